/* t_buf.c — the one growable buffer, array growth, fo_file_read and the
 * arena: contents, overflow refused instead of wrapping, sticky failure. */
#include <check.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "render/core/model.h"
#include "tests/check_run.h"

START_TEST(test_append_printf_take)
{
    fo_buf b = {0};
    ck_assert(fo_buf_append(&b, "ab", 2));
    ck_assert(fo_buf_puts(&b, "cd"));
    ck_assert(fo_buf_printf(&b, "-%d-%s", 42, "x"));
    ck_assert_str_eq(b.data, "abcd-42-x");
    ck_assert_uint_eq(b.len, 9);
    ck_assert(fo_buf_append(&b, NULL, 3)); /* room only, counted */
    ck_assert_uint_eq(b.len, 12);
    ck_assert_int_eq(b.data[12], '\0');
    size_t len;
    char *d = fo_buf_take(&b, &len);
    ck_assert_uint_eq(len, 12);
    ck_assert_ptr_null(b.data);
    ck_assert_uint_eq(b.len, 0);
    fo_free(d);
    fo_buf_free(NULL);
}
END_TEST

/* Growth doubles: a million one-byte appends reallocate ~12 times. */
START_TEST(test_growth_doubles)
{
    fo_buf b = {0};
    size_t grows = 0, cap = 0;
    for (int i = 0; i < 1000000; i++) {
        fo_buf_append(&b, "z", 1);
        if (b.cap != cap) { grows++; cap = b.cap; }
    }
    ck_assert_uint_eq(b.len, 1000000);
    ck_assert_uint_le(grows, 14);
    ck_assert_uint_ge(b.cap, 1000001);
    fo_buf_free(&b);
}
END_TEST

START_TEST(test_overflow_is_refused_and_sticky)
{
    fo_buf b = {0};
    fo_buf_puts(&b, "keep");
    ck_assert(!fo_buf_reserve(&b, SIZE_MAX - 2));
    ck_assert(b.failed);
    ck_assert(!fo_buf_append(&b, "x", 1)); /* sticky */
    ck_assert_ptr_null(fo_buf_take(&b, NULL));
    ck_assert_uint_eq(fo_grow_cap(0, SIZE_MAX / 8 + 1, 16, 8), 0);
    ck_assert_uint_eq(fo_grow_cap(0, 100, 16, 8), 128);
    ck_assert_uint_eq(fo_grow_cap(64, 65, 16, 1), 128);
    void *v = NULL;
    size_t cap = 0;
    ck_assert(!fo_grow(&v, &cap, SIZE_MAX / 4, 16, 8));
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(cap, 0);
}
END_TEST

START_TEST(test_grow_zeroes_new_elements)
{
    int *v = NULL;
    size_t cap = 0;
    ck_assert(fo_grow((void **)&v, &cap, 3, 4, sizeof *v));
    ck_assert_uint_eq(cap, 4);
    v[0] = 7;
    ck_assert(fo_grow((void **)&v, &cap, 5, 4, sizeof *v));
    ck_assert_uint_eq(cap, 8);
    ck_assert_int_eq(v[0], 7);
    for (size_t i = 1; i < cap; i++) ck_assert_int_eq(v[i], 0);
    fo_free(v);
}
END_TEST

START_TEST(test_allocation_failure_is_sticky)
{
    fo_buf b = {0};
    fo_alloc_fail_after(1); /* the next allocation fails */
    ck_assert(!fo_buf_puts(&b, "x"));
    fo_alloc_fail_after(0);
    ck_assert(b.failed);
    ck_assert(!fo_buf_puts(&b, "x"));
    fo_buf_free(&b);
    ck_assert(fo_buf_puts(&b, "ok")); /* usable again after free */
    fo_buf_free(&b);
}
END_TEST

START_TEST(test_file_read)
{
    char path[] = "/tmp/folio-t_buf-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    static char big[200000];
    for (size_t i = 0; i < sizeof big; i++) big[i] = (char)('a' + i % 26);
    ck_assert_int_eq(write(fd, big, sizeof big), (ssize_t)sizeof big);
    close(fd);
    size_t len;
    char *d = fo_file_read(path, 0, &len);
    ck_assert_ptr_nonnull(d);
    ck_assert_uint_eq(len, sizeof big);
    ck_assert_int_eq(memcmp(d, big, sizeof big), 0);
    ck_assert_int_eq(d[len], '\0');
    fo_free(d);
    errno = 0;
    ck_assert_ptr_null(fo_file_read(path, 1000, &len));
    ck_assert_int_eq(errno, EFBIG);
    unlink(path);
    ck_assert_ptr_null(fo_file_read(path, 0, &len));
    ck_assert_int_eq(errno, ENOENT);
    ck_assert_ptr_null(fo_file_read("/tmp", 0, &len));
    ck_assert_int_eq(errno, EISDIR);
}
END_TEST

/* A request within 15 bytes of SIZE_MAX used to round to 0 and get 16 bytes. */
START_TEST(test_arena_rounding_overflow)
{
    fo_arena *a = fo_arena_new();
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_null(fo_arena_alloc(a, SIZE_MAX));
    ck_assert_ptr_null(fo_arena_alloc(a, SIZE_MAX - 10));
    ck_assert_ptr_null(fo_arena_alloc(a, SIZE_MAX - 40));
    char *p = fo_arena_alloc(a, 5);
    ck_assert_ptr_nonnull(p);
    ck_assert_uint_eq((uintptr_t)p % 16, 0);
    fo_arena_free(a);
}
END_TEST

/* Parallel arrays share one capacity: all grow together, new elements zeroed;
 * an overflow for the widest leaves the capacity alone. */
START_TEST(test_grow_all_parallel)
{
    double *x = NULL;
    char **cat = NULL;
    size_t cap = 0;
    ck_assert(fo_grow_all(&cap, 3, 4, 2, (void **const[]){(void **)&x, (void **)&cat},
                          (size_t[]){sizeof *x, sizeof *cat}));
    ck_assert_uint_eq(cap, 4);
    x[3] = 1.5;
    ck_assert_ptr_null(cat[3]);
    ck_assert(fo_grow_all(&cap, 9, 4, 2, (void **const[]){(void **)&x, (void **)&cat},
                          (size_t[]){sizeof *x, sizeof *cat}));
    ck_assert_uint_eq(cap, 16);
    ck_assert(x[3] == 1.5 && x[15] == 0 && cat[15] == NULL);
    ck_assert(!fo_grow_all(&cap, SIZE_MAX / 4, 4, 2, (void **const[]){(void **)&x, (void **)&cat},
                           (size_t[]){1, 8}));
    ck_assert_uint_eq(cap, 16);
    fo_free(x);
    fo_free(cat);
}
END_TEST

/* fo_fd_read: a pipe read to its end; over max, EFBIG. */
START_TEST(test_fd_read_pipe)
{
    int p[2];
    size_t len;
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "{\"a\": 1}", 8), 8);
    close(p[1]);
    char *t = fo_fd_read(p[0], 100, &len);
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(len, 8);
    ck_assert_str_eq(t, "{\"a\": 1}");
    fo_free(t);
    close(p[0]);
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "0123456789", 10), 10);
    close(p[1]);
    errno = 0;
    ck_assert_ptr_null(fo_fd_read(p[0], 4, &len));
    ck_assert_int_eq(errno, EFBIG);
    ck_assert_uint_eq(len, 0);
    close(p[0]);
}
END_TEST

/* fo_read_upto: a pipe fed in two writes is read across them; at the end
 * it returns what there was with errno 0; pread from an offset; a bad fd
 * stops at once with read's errno. */
START_TEST(test_read_upto)
{
    int p[2];
    char buf[16] = {0};
    ck_assert_int_eq(pipe(p), 0);
    ck_assert_int_eq(write(p[1], "abc", 3), 3);
    ck_assert_int_eq(write(p[1], "defg", 4), 4);
    close(p[1]);
    ck_assert_uint_eq(fo_read_upto(p[0], buf, 5, -1), 5);
    ck_assert_int_eq(memcmp(buf, "abcde", 5), 0);
    ck_assert_uint_eq(fo_read_upto(p[0], buf, 10, -1), 2);
    ck_assert_int_eq(errno, 0);
    ck_assert_int_eq(memcmp(buf, "fg", 2), 0);
    close(p[0]);

    char path[] = "/tmp/t_buf_XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    unlink(path);
    ck_assert_int_eq(write(fd, "0123456789", 10), 10);
    ck_assert_uint_eq(fo_read_upto(fd, buf, 4, 6), 4);
    ck_assert_int_eq(memcmp(buf, "6789", 4), 0);
    ck_assert_uint_eq(fo_read_upto(fd, buf, 8, 8), 2); /* short: the end */
    ck_assert_int_eq(errno, 0);
    close(fd);
    ck_assert_uint_eq(fo_read_upto(fd, buf, 4, -1), 0); /* closed: an error */
    ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* fo_grow_free: each element freed once, then the array; counts reset. */
static int freed;
static void count_free(void *p)
{
    freed++;
    fo_free(p);
}

START_TEST(test_grow_free)
{
    char **v = NULL;
    size_t n = 0, cap = 0;
    for (; n < 5; n++) {
        ck_assert(fo_grow((void **)&v, &cap, n + 1, 2, sizeof *v));
        v[n] = fo_strdup("x");
    }
    freed = 0;
    fo_grow_free((void ***)&v, &n, &cap, count_free);
    ck_assert_int_eq(freed, 5);
    ck_assert_ptr_null(v);
    ck_assert_uint_eq(n, 0);
    ck_assert_uint_eq(cap, 0);
    fo_grow_free((void ***)&v, &n, &cap, count_free);     /* empty: nothing */
    ck_assert_int_eq(freed, 5);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_append_printf_take,
        test_growth_doubles,
        test_overflow_is_refused_and_sticky,
        test_grow_zeroes_new_elements,
        test_allocation_failure_is_sticky,
        test_file_read,
        test_arena_rounding_overflow,
        test_grow_all_parallel,
        test_fd_read_pipe,
        test_read_upto,
        test_grow_free,
        NULL,
    };
    return fo_check_tests("buf", 0, tests);
}
