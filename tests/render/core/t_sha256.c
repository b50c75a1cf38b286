/* t_sha256.c — SHA-256 against the FIPS 180-4 / sha256sum test vectors. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/sha256.h"
#include "tests/check_run.h"

static void check_hex(const char *msg, size_t len, const char *want)
{
    char got[65];
    fo_sha256_hex(msg, len, got);
    ck_assert_str_eq(got, want);
}

START_TEST(test_vectors)
{
    check_hex("", 0, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_hex(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
}
END_TEST

/* Padding edges: 55 bytes fit one block, 56 need two, 64 is exactly one. */
START_TEST(test_block_edges)
{
    char a[64];
    memset(a, 'a', sizeof a);
    check_hex(a, 55, "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
    check_hex(a, 56, "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
    check_hex(a, 64, "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
}
END_TEST

/* One million 'a' fed in uneven pieces exercises the partial-block path. */
START_TEST(test_million_a_streamed)
{
    static char a[1000];
    memset(a, 'a', sizeof a);
    fo_sha256 s;
    unsigned char d[32];
    fo_sha256_init(&s);
    size_t done = 0, step = 1;
    while (done < 1000000) {
        size_t n = step < 1000000 - done ? step : 1000000 - done;
        if (n > sizeof a) n = sizeof a;
        fo_sha256_update(&s, a, n);
        done += n;
        step = step * 7 % 997 + 1;
    }
    fo_sha256_final(&s, d);
    char hex[65];
    for (int i = 0; i < 32; i++) snprintf(hex + 2 * i, 3, "%02x", d[i]);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}
END_TEST

START_TEST(test_file)
{
    char path[] = "/tmp/t_sha256_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unsigned char *buf = malloc(100000);
    for (int i = 0; i < 100000; i++) buf[i] = (unsigned char)(i % 251);
    ck_assert_int_eq(write(fd, buf, 100000), 100000);
    close(fd);
    char hex[65];
    ck_assert_int_eq(fo_sha256_file_hex(path, hex), 1);
    ck_assert_str_eq(hex, "cd2df694e424bc7968cc37f47751019e5ca0cd1bdf2e479ea537c3a1c32ee1aa");
    unlink(path);
    free(buf);
    ck_assert_int_eq(fo_sha256_file_hex("/nonexistent/folio/file", hex), 0);
}
END_TEST

/* The portable rounds and the SHA extensions' (where the processor has
 * them) agree: the vectors again through the portable code, and both ways
 * over buffers of every length up to 300 bytes and one of 1 MB. */
START_TEST(test_portable_agrees)
{
    fo_sha256__force_portable(true);
    check_hex("abc", 3, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *m448 = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    check_hex(m448, strlen(m448), "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    fo_sha256__force_portable(false);
    size_t big = 1000000;
    unsigned char *buf = malloc(big);
    ck_assert_ptr_nonnull(buf);
    for (size_t i = 0; i < big; i++) buf[i] = (unsigned char)(i * 2654435761u >> 13);
    for (size_t n = 0; n <= 300; n++) {
        char fast[65], slow[65];
        fo_sha256_hex(buf, n, fast);
        fo_sha256__force_portable(true);
        fo_sha256_hex(buf, n, slow);
        fo_sha256__force_portable(false);
        ck_assert_str_eq(fast, slow);
    }
    char fast[65], slow[65];
    fo_sha256_hex(buf, big, fast);
    fo_sha256__force_portable(true);
    fo_sha256_hex(buf, big, slow);
    fo_sha256__force_portable(false);
    ck_assert_str_eq(fast, slow);
    free(buf);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_vectors, test_block_edges, test_million_a_streamed, test_file, test_portable_agrees, NULL,
    };
    return fo_check_tests("sha256", 0, tests);
}
