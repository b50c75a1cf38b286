/* buf.h — the one growable byte buffer, and the one rule for growing arrays.
 *
 * Growth doubles (from a first capacity) and every size computation is
 * checked: a request whose size would wrap SIZE_MAX fails like an allocation
 * failure instead of allocating a small block and writing past it.
 *
 * fo_buf keeps its bytes NUL-terminated (data[len] == 0 once anything is
 * reserved), so text built in it is a C string. Errors are sticky, as in
 * cairo: after a failure every call is a no-op returning false, and the
 * caller checks once, at the end (b->failed). */
#ifndef FO_BUF_H
#define FO_BUF_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

typedef struct {
    char *data;   /* fo_malloc'd, owned by the buffer until fo_buf_take */
    size_t len;   /* bytes in use, not counting the NUL */
    size_t cap;   /* bytes allocated */
    bool failed;  /* sticky: an allocation failed or a size overflowed */
} fo_buf;

#define FO_BUF_FIRST 256 /* capacity of the first allocation */

/* Makes room for n more bytes plus the NUL. False when that is impossible. */
bool fo_buf_reserve(fo_buf *b, size_t n);
/* Appends p[0..n) (p NULL: n bytes of room, uninitialised, counted in len). */
bool fo_buf_append(fo_buf *b, const void *p, size_t n);
bool fo_buf_puts(fo_buf *b, const char *s);
/* Appends printf output. */
bool fo_buf_printf(fo_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Hands the bytes to the caller (fo_free them; NULL when empty or failed)
 * and empties the buffer. */
char *fo_buf_take(fo_buf *b, size_t *len);
/* Frees the bytes; the buffer is empty and usable again. NULL: no-op. */
void fo_buf_free(fo_buf *b);

/* The whole file at path, read into a fo_malloc'd buffer with a NUL after
 * its *len bytes. NULL with errno set when it cannot be opened or read
 * (open's or read's errno), is over max bytes (EFBIG; max 0 = no cap) or
 * does not fit in memory (ENOMEM). The caller fo_frees the result. */
char *fo_file_read(const char *path, size_t max, size_t *len);
/* The same for what fd gives until its end (a file, a pipe), read at its
 * current position; fd stays open. Over max bytes it stops reading there
 * (a writer on a pipe may still be blocked: drain or close). */
char *fo_fd_read(int fd, size_t max, size_t *len);
/* Up to n bytes of fd into buf: from offset at (pread), or from fd's
 * position when at < 0 (read); EINTR retried. Stops at n, at the end or at
 * an error, and returns the bytes read; when fewer than n, errno is 0 at the
 * end and read's errno after an error. */
size_t fo_read_upto(int fd, void *buf, size_t n, off_t at);

/* The capacity an array growing from cap (0 = none yet) needs for need
 * elements: cap doubled (from first) until it holds need. 0 when need
 * elements of elem bytes would not fit in a size_t. */
size_t fo_grow_cap(size_t cap, size_t need, size_t first, size_t elem);
/* Grows the array *v (elements of elem bytes, *cap of them) to hold need
 * elements; new elements are zeroed. False (array untouched) on overflow or
 * allocation failure. */
bool fo_grow(void **v, size_t *cap, size_t need, size_t first, size_t elem);
/* fo_grow for n parallel arrays that share one capacity *cap: *v[i] has
 * elements of elem[i] bytes. All get the same new capacity. False on overflow
 * or allocation failure; *cap is then unchanged (arrays already grown keep
 * their larger blocks, which stay valid to free). */
bool fo_grow_all(size_t *cap, size_t need, size_t first, size_t n, void **const v[],
                 const size_t elem[]);

/* Frees an array of pointers grown by fo_grow: free_one on each of its n
 * elements, then the array; *v = NULL, *n = *cap = 0. */
void fo_grow_free(void ***v, size_t *n, size_t *cap, void (*free_one)(void *));

/* Memory straight from the kernel, for a large block touched at once (an
 * image's pixels, serve's per-child allocator region): at least bytes,
 * zero-filled, aligned to 2 MiB and marked for transparent huge pages (a
 * hint: 4 KiB pages where refused), committed only as touched. One fault per
 * 2 MiB instead of one per 4 KiB, which on a paravirtualised machine is most
 * of the cost of first touch. fo_huge_map returns the aligned start, or NULL
 * (h->map NULL); fo_huge_unmap releases it (h->map NULL: no-op). */
typedef struct {
    void *map;    /* the whole mapping, as mmap gave it */
    size_t len;
} fo_huge;
void *fo_huge_map(fo_huge *h, size_t bytes);
void fo_huge_unmap(fo_huge *h);

/* Appends s[0..len) to b as a JSON string: invalid UTF-8 becomes U+FFFD,
   controls are escaped (the JSON the sandbox and the service write:
   manifest.json, session answers). */
void fo_buf_json_str(fo_buf *b, const char *s, size_t len);

/* Appends "/" + the token escaped as RFC 6901 says (~0, ~1) to a JSON
   Pointer held in ptr (capacity cap); a token that does not fit is cut. */
void fo_json_ptr_push(char *ptr, size_t cap, const char *token);
void fo_json_ptr_push_index(char *ptr, size_t cap, size_t index);
/* out = base + "/" + index: the pointer of an array's item. */
void fo_json_ptr_item(char *out, size_t cap, const char *base, size_t index);

#endif
