/* t_region.c — the render children's allocator (serve/region.c): after
 * fo_serve_region_begin, malloc/calloc/realloc/free keep their contracts,
 * memory from glibc's heap can still be freed and grown, and allocation
 * goes on past the region's end. In a sanitizer build the region is compiled
 * out and the same contracts are checked against the sanitizer's malloc. */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "tests/check_run.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define REGION_BUILT (!FO_SERVE_ASAN)

#define REGION_BYTES ((size_t)64 << 20)
static char *before;   /* from glibc's heap, before the region was turned on */

START_TEST(contracts_hold_in_the_region)
{
    char *a = malloc(10), *b = malloc(1000), *c;
    unsigned char *z;

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq((uintptr_t)a % 16, 0);
    ck_assert_uint_eq((uintptr_t)b % 16, 0);
    memcpy(a, "012345678", 10);
    a = realloc(a, 5000);                       /* grows: the contents move along */
    ck_assert_str_eq(a, "012345678");
    c = realloc(a, 4);
    ck_assert_int_eq(memcmp(c, "0123", 4), 0);
    z = calloc(1000, 8);
    for (size_t i = 0; i < 8000; i++) ck_assert_uint_eq(z[i], 0);
    free(b);
    free(c);
    free(z);
    free(NULL);
#if REGION_BUILT   /* (a sanitizer reports an overflowing calloc as an error) */
    volatile size_t huge = SIZE_MAX / 2;          /* (volatile: the compiler sees it too) */
    ck_assert_ptr_null(calloc(huge, 4));          /* overflow: refused */
    ck_assert_ptr_null(reallocarray(NULL, huge, 4));
#endif
    if (fo_serve_region_used() > 0) {   /* not under valgrind, which replaces malloc */
        char *p = malloc(1), *q = malloc(1);    /* bumped: the next block follows */
        ck_assert_uint_eq((uintptr_t)(q - p), 32);
    }
#if !REGION_BUILT
    ck_assert_uint_eq(fo_serve_region_used(), 0);
#endif
}
END_TEST

START_TEST(freed_memory_is_reused_and_calloc_still_zeroes)
{
    unsigned char *keep = malloc(100), *big = malloc(65536), *after = malloc(100), *again, *z;

    memset(big, 0xab, 65536);
    free(big);                                  /* not the last block: kept */
    again = calloc(1, 65536);                   /* the kept block, zeroed */
    for (size_t i = 0; i < 65536; i++) ck_assert_uint_eq(again[i], 0);
    if (fo_serve_region_used() > 0) ck_assert_ptr_eq(again, big);
    z = malloc(4000);                           /* the last block ... */
    memset(z, 0xcd, 4000);
    free(z);                                    /* ... goes back, dirty */
    z = calloc(1, 4000);
    for (size_t i = 0; i < 4000; i++) ck_assert_uint_eq(z[i], 0);
    memcpy(z, "grows", 6);
    z = realloc(z, 100000);                     /* the last block grows (in place here) */
    ck_assert_str_eq((char *)z, "grows");
    free(z);
    free(again);
    free(keep);
    free(after);
}
END_TEST

/* A growing buffer (realloc past a block that follows it) leaves its old
   block behind; blocks from 1 KiB up are kept, so the next buffer of that
   size takes it and an xlsx render's region stays within one huge page
   (2.2 MB with only blocks from 16 KiB up kept, 1.2 MB now). */
START_TEST(growing_buffers_leave_blocks_that_are_reused)
{
    char *buf = malloc(3072), *grown, *next;
    char *volatile fence = malloc(16); /* (volatile: used, so the compiler keeps it) */
    size_t used;

    memset(buf, 'x', 3072);
    grown = realloc(buf, 6144); /* moves: fence follows buf */
    ck_assert_int_eq(grown[3071], 'x');
    used = fo_serve_region_used();
    next = calloc(1, 3000); /* the old block fits (within a quarter), zeroed */
    for (size_t i = 0; i < 3000; i++) ck_assert_uint_eq((unsigned char)next[i], 0);
    ck_assert_uint_eq(fo_serve_region_used(), used); /* a kept block: the region did not grow */
    free(next);
    next = malloc(3000); /* kept again, and taken again by a block of its size */
    ck_assert_uint_eq(fo_serve_region_used(), used);
    free(next);
    free(grown);
    free(fence);
}
END_TEST

START_TEST(glibc_memory_is_still_freed_and_grown)
{
    ck_assert_str_eq(before, "from the zygote");
    before = realloc(before, 1 << 20);
    ck_assert_str_eq(before, "from the zygote");
    free(before);
}
END_TEST

START_TEST(allocation_goes_on_past_the_region)
{
    enum { N = (int)(REGION_BYTES >> 20) + 8 }; /* 1 MiB blocks, all held: 8 past the region */
    static char *held[N];
    for (int i = 0; i < N; i++) {
        held[i] = malloc(1 << 20);
        ck_assert_ptr_nonnull(held[i]);
        memset(held[i], i, 1 << 20);
    }
    for (int i = 0; i < N; i++) {
        ck_assert_uint_eq((unsigned char)held[i][0], (unsigned char)i);
        ck_assert_uint_eq((unsigned char)held[i][(1 << 20) - 1], (unsigned char)i);
    }
    for (int i = N - 1; i >= 0; i--) free(held[i]);
    char *s = strdup("libc's own calls come here too");
    ck_assert_str_eq(s, "libc's own calls come here too");
    free(s);
}
END_TEST

/* Threads allocate at once (a pptx render deflates its parts on a second
 * thread): every block a thread gets is its own. Each thread fills its
 * blocks with its own byte and checks them before freeing them, last first
 * (so the bump pointer goes back and forth under both threads). */
#define THREADS 4
static void *churn(void *arg)
{
    unsigned char id = (unsigned char)(uintptr_t)arg;
    unsigned seed = id * 7919u + 1;
    intptr_t bad = 0;
    for (int round = 0; round < 5000; round++) {
        unsigned char *b[6];
        size_t n[6];
        for (int k = 0; k < 6; k++) {
            seed = seed * 1103515245u + 12345u;
            n[k] = 16 + (seed >> 16) % 200;
            b[k] = k % 3 == 2 ? calloc(1, n[k]) : malloc(n[k]);
            if (k % 3 == 1 && b[k]) b[k] = realloc(b[k], n[k] += 64);
            if (b[k]) memset(b[k], id, n[k]);
        }
        for (int k = 5; k >= 0; k--) {
            for (size_t i = 0; b[k] && i < n[k]; i++) bad += b[k][i] != id;
            free(b[k]);
        }
    }
    return (void *)bad;
}

START_TEST(threads_get_blocks_of_their_own)
{
    pthread_t t[THREADS];
    for (uintptr_t i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&t[i], NULL, churn, (void *)(i + 1)), 0);
    for (int i = 0; i < THREADS; i++) {
        void *bad;
        pthread_join(t[i], &bad);
        ck_assert_msg(bad == NULL, "thread %d found %ld bytes of another's", i + 1, (long)(intptr_t)bad);
    }
    /* and the bump pointer is whole: two blocks in a row are adjacent (blocks
       freed out of turn stay used, so the region must still have room) */
    if (fo_serve_region_used() > 0 && fo_serve_region_used() + 4096 < REGION_BYTES) {
        char *p = malloc(1), *q = malloc(1);
        ck_assert_uint_eq((uintptr_t)(q - p), 32);
        free(q);
        free(p);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("region");
    TCase *t = tcase_create("region");

    before = malloc(64);
    strcpy(before, "from the zygote");
    fo_serve_region_begin(REGION_BYTES);
    tcase_add_test(t, threads_get_blocks_of_their_own); /* first: the region is fresh */
    tcase_add_test(t, contracts_hold_in_the_region);
    tcase_add_test(t, freed_memory_is_reused_and_calloc_still_zeroes);
    tcase_add_test(t, growing_buffers_leave_blocks_that_are_reused);
    tcase_add_test(t, glibc_memory_is_still_freed_and_grown);
    tcase_add_test(t, allocation_goes_on_past_the_region);
    suite_add_tcase(s, t);
    return fo_check_run(s);
}
