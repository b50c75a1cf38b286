/* region.c — the allocator of `folio serve`'s render children (serve.h).
 *
 * Why: a render child is a fork of the zygote, and glibc's malloc hands it
 * the free chunks of the zygote's heap first. Every heap page the child then
 * writes is copied (copy-on-write) with a TLB flush; on this project's
 * paravirtualised 2-core machine that was the largest cost of a small render
 * after the fork itself (perf: do_wp_page ~23% of a child's samples, jansson's
 * first allocations alone ~20%). A child lives for one request, so it needs no
 * free list at all: after fo_serve_region_begin, malloc, calloc and realloc
 * bump a pointer through fresh memory of the child's own (transparent huge
 * pages where the kernel gives them: one fault per 2 MiB, no copies) and free
 * forgets. When the region is used up, allocation goes on in glibc's heap.
 *
 * The functions replace glibc's malloc in folio-engine the documented way
 * (glibc manual, "Replacing malloc": malloc, free, calloc, realloc, and
 * reallocarray which libraries call too); until a child turns the region on
 * they are glibc's (__libc_malloc & co.). free and realloc tell a region
 * pointer by its address, so memory from either side may be freed anywhere.
 * memalign and its kin stay glibc's; what they return is never in the region.
 * Not built into sanitizer builds (ASan and UBSan bring their own malloc). */
#define FO_SERVE_PRIVATE
#include "serve/serve.h"
#include "base/buf.h"

#if !FO_SERVE_ASAN
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);

#define ALIGN 16u              /* what malloc guarantees on x86-64 */
#define HEAD 16u               /* the block's size, before the block */

/* Freed blocks from this size up are kept for later blocks of their size:
   the buffers that grow by doubling (libxlsxwriter's, the zip parts') leave
   their old blocks behind at every step. Kept only from 16 KiB up, and at
   most 64 of them, a small xlsx render's region reached 2.2 MB: two huge
   pages to fault and clear (~0.2 ms each here). Kept from 1 KiB up, 1.2 MB. */
#define KEEP ((size_t)1 << 10)
/* Kept blocks are in lists by capacity, four to each power of two (TLSF's
   classes, without its bitmaps): 1024..1279 bytes in list 0, 1280..1535 in
   list 1, ..., 2048..2559 in list 4. */
#define LISTS (4 * (64 - 10))

static char *base, *top, *end;  /* [base, end) reserved; [base, top) handed out */
static char *high;              /* [high, end) never written: still zero */
static char *kept[LISTS];       /* each block's first bytes: the next in its list */

void fo_serve_region_begin(size_t bytes)
{
    static fo_huge region;
    char *at = fo_huge_map(&region, bytes);

    if (!at)
        return;   /* glibc's heap, as before */
    base = top = high = at;
    end = at + bytes;
}

static int in_region(const void *p)
{
    return base && (const char *)p >= base && (const char *)p < end;
}

/* The bump pointer, the kept blocks and the block heads are shared by every
   thread of the child (a pptx render deflates on a second thread): each
   change to them holds this lock. base and end are set before any thread. */
static atomic_flag guard = ATOMIC_FLAG_INIT;

static void lock(void)
{
    while (atomic_flag_test_and_set_explicit(&guard, memory_order_acquire)) sched_yield();
}

static void unlock(void) { atomic_flag_clear_explicit(&guard, memory_order_release); }

/* n rounded up to ALIGN: a block's capacity (wraps to a small number for n
   near SIZE_MAX: callers check cap >= n or bound n first). */
static size_t round_up(size_t n)
{
    return (n + ALIGN - 1) & ~(size_t)(ALIGN - 1);
}

/* The capacity of a block, kept in the HEAD bytes before it. */
static size_t cap_of(const void *p)
{
    size_t cap;
    memcpy(&cap, (const char *)p - HEAD, sizeof cap);
    return cap;
}

/* The list of a capacity of at least KEEP. */
static unsigned list_of(size_t cap)
{
    unsigned lg = 63u - (unsigned)__builtin_clzll(cap); /* 2^lg <= cap < 2^(lg+1) */
    return (lg - 10) * 4 + (unsigned)((cap >> (lg - 2)) & 3);
}

static char *next_of(const char *p)
{
    char *n;
    memcpy(&n, p, sizeof n);
    return n;
}

/* A kept block of capacity cap to about 1.6 cap, or NULL. Its own list
   first, a few blocks deep: most kept blocks come back for a block of the
   very size they had (an xlsx render asks 443 times for 4176 bytes). Then
   the next list, whose every block is large enough. */
static char *reuse(size_t cap)
{
    unsigned k = list_of(cap);
    char *prev = NULL, *p = kept[k];

    for (int depth = 0; p && depth < 8; depth++, prev = p, p = next_of(p))
        if (cap_of(p) >= cap) {
            char *next = next_of(p);
            if (prev) memcpy(prev, &next, sizeof next);
            else kept[k] = next;
            return p;
        }
    if (++k < LISTS && (p = kept[k]) != NULL) {
        kept[k] = next_of(p);
        return p;
    }
    return NULL;
}

static void keep(char *p, size_t cap)
{
    unsigned k = list_of(cap);
    memcpy(p, &kept[k], sizeof p);
    kept[k] = p;
}

/* A block of at least n bytes from the region, or NULL when it is off or
   used up. *dirty: bytes at its start that may hold old data (else zero). */
static void *bump(size_t n, size_t *dirty)
{
    size_t cap;
    char *p;

    if (!base || n > (size_t)(end - base)) return NULL;
    cap = round_up(n);
    if (cap >= KEEP && (p = reuse(cap)) != NULL) {
        *dirty = cap_of(p);
        return p;
    }
    if (HEAD + cap > (size_t)(end - top)) return NULL;
    p = top + HEAD;
    memcpy(top, &cap, sizeof cap);
    top += HEAD + cap;
    *dirty = high > p ? (size_t)(high - p) : 0;
    if (*dirty > cap) *dirty = cap;
    if (top > high) high = top;
    return p;
}

void *malloc(size_t n)
{
    size_t dirty;
    void *p = NULL;

    if (base) {
        lock();
        p = bump(n ? n : 1, &dirty);
        unlock();
    }
    return p ? p : __libc_malloc(n);
}

/* The last block goes back to the bump pointer; one of KEEP bytes or more is
   kept for a block of its size (zlib's windows, one per zip entry; a grown
   buffer's old block); the rest is left. */
void free(void *p)
{
    size_t cap;

    if (!p) return;
    if (!in_region(p)) {
        __libc_free(p);
        return;
    }
    lock();
    cap = cap_of(p);
    if ((char *)p + cap == top) top = (char *)p - HEAD;
    else if (cap >= KEEP) keep(p, cap);
    unlock();
}

void *calloc(size_t n, size_t size)
{
    size_t dirty;
    void *p;

    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    if (!base) return __libc_calloc(n, size);
    lock();
    p = bump(n && size ? n * size : 1, &dirty);
    unlock();
    if (!p) return __libc_calloc(n, size);
    memset(p, 0, dirty);
    return p;
}

void *realloc(void *p, size_t n)
{
    size_t old, cap;
    void *q;

    if (!p) return malloc(n);
    if (!in_region(p)) return __libc_realloc(p, n);
    lock();
    old = cap_of(p);
    if (n <= old) {
        unlock();
        return p;
    }
    cap = round_up(n);
    if ((char *)p + old == top && cap >= n && cap - old <= (size_t)(end - top)) {
        memcpy((char *)p - HEAD, &cap, sizeof cap); /* the last block grows in place */
        top = (char *)p + cap;
        if (top > high) high = top;
        unlock();
        return p;
    }
    unlock();
    q = malloc(n);
    if (q) {
        memcpy(q, p, old);
        free(p);
    }
    return q;
}

void *reallocarray(void *p, size_t n, size_t size)
{
    if (size && n > SIZE_MAX / size) {
        errno = ENOMEM;
        return NULL;
    }
    return realloc(p, n * size);
}

size_t fo_serve_region_used(void)
{
    return base ? (size_t)(high - base) : 0;
}

#else
void fo_serve_region_begin(size_t bytes) { (void)bytes; }
size_t fo_serve_region_used(void) { return 0; }
#endif
