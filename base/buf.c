/* buf.c — growable byte buffer and array growth (base/buf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "folio.h"
#include "base/buf.h"
#include "base/utf8.h"

size_t fo_grow_cap(size_t cap, size_t need, size_t first, size_t elem)
{
    if (elem == 0 || need > SIZE_MAX / elem) return 0;
    size_t c = cap ? cap : (first ? first : 1);
    while (c < need) {
        if (c > SIZE_MAX / 2 / elem) return need; /* doubling would overflow: exactly need */
        c *= 2;
    }
    return c;
}

void fo_grow_free(void ***v, size_t *n, size_t *cap, void (*free_one)(void *))
{
    for (size_t i = 0; i < *n; i++) free_one((*v)[i]);
    fo_free(*v);
    *v = NULL;
    *n = *cap = 0;
}

bool fo_grow_all(size_t *cap, size_t need, size_t first, size_t n, void **const v[],
                 const size_t elem[])
{
    if (need <= *cap) return true;
    size_t widest = 0;
    for (size_t i = 0; i < n; i++)
        if (elem[i] > widest) widest = elem[i];
    size_t nc = fo_grow_cap(*cap, need, first, widest);
    if (nc == 0) return false;
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = fo_realloc(*v[i], nc * elem[i]);
        if (!p) return false;
        memset(p + *cap * elem[i], 0, (nc - *cap) * elem[i]);
        *v[i] = p;
    }
    *cap = nc;
    return true;
}

bool fo_grow(void **v, size_t *cap, size_t need, size_t first, size_t elem)
{
    return fo_grow_all(cap, need, first, 1, (void **const[]){v}, (size_t[]){elem});
}

bool fo_buf_reserve(fo_buf *b, size_t n)
{
    if (b->failed) return false;
    if (n > SIZE_MAX - 1 - b->len) {
        b->failed = true;
        return false;
    }
    size_t need = b->len + n + 1;
    if (need <= b->cap) return true;
    size_t cap = fo_grow_cap(b->cap, need, FO_BUF_FIRST, 1);
    char *d = cap ? fo_realloc(b->data, cap) : NULL; /* not zeroed: bytes are written before use */
    if (!d) {
        b->failed = true;
        return false;
    }
    b->data = d;
    b->cap = cap;
    return true;
}

bool fo_buf_append(fo_buf *b, const void *p, size_t n)
{
    if (!fo_buf_reserve(b, n)) return false;
    if (p && n) memcpy(b->data + b->len, p, n);
    b->len += n;
    b->data[b->len] = '\0';
    return true;
}

bool fo_buf_puts(fo_buf *b, const char *s) { return fo_buf_append(b, s, strlen(s)); }

bool fo_buf_printf(fo_buf *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || !fo_buf_reserve(b, (size_t)n)) {
        b->failed = true;
        return false;
    }
    va_start(ap, fmt);
    vsnprintf(b->data + b->len, (size_t)n + 1, fmt, ap);
    va_end(ap);
    b->len += (size_t)n;
    return true;
}

char *fo_buf_take(fo_buf *b, size_t *len)
{
    char *d = b->failed ? NULL : b->data;
    if (len) *len = d ? b->len : 0;
    if (!d) fo_free(b->data);
    *b = (fo_buf){0};
    return d;
}

void fo_buf_free(fo_buf *b)
{
    if (!b) return;
    fo_free(b->data);
    *b = (fo_buf){0};
}

char *fo_fd_read(int fd, size_t max, size_t *len)
{
    *len = 0;
    fo_buf b = {0};
    int err = 0;
    for (;;) {
        if (!fo_buf_reserve(&b, 65536)) { err = ENOMEM; break; }
        b.data[b.len] = '\0';
        ssize_t n = read(fd, b.data + b.len, b.cap - 1 - b.len);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) { err = errno ? errno : EIO; break; }
        if (n == 0) break;
        b.len += (size_t)n;
        b.data[b.len] = '\0';
        if (max && b.len > max) { err = EFBIG; break; }
    }
    if (err) {
        fo_buf_free(&b);
        errno = err;
        return NULL;
    }
    return fo_buf_take(&b, len);
}

size_t fo_read_upto(int fd, void *buf, size_t n, off_t at)
{
    size_t got = 0;
    errno = 0;
    while (got < n) {
        ssize_t r = at < 0 ? read(fd, (char *)buf + got, n - got)
                           : pread(fd, (char *)buf + got, n - got, at + (off_t)got);
        if (r < 0 && errno == EINTR) continue;
        if (r <= 0) break;
        got += (size_t)r;
        errno = 0;
    }
    return got;
}

char *fo_file_read(const char *path, size_t max, size_t *len)
{
    *len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return NULL;
    char *r = fo_fd_read(fd, max, len);
    int err = errno;
    close(fd);
    errno = err;
    return r;
}

/* ---- memory straight from the kernel ------------------------------------------ */

#define HUGE_PAGE ((size_t)2 << 20)

void *fo_huge_map(fo_huge *h, size_t bytes)
{
    h->map = NULL;
    if (bytes == 0 || bytes > SIZE_MAX / 2) return NULL;
    h->len = (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + HUGE_PAGE; /* + room to align */
    void *m = mmap(NULL, h->len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
    if (m == MAP_FAILED) return NULL;
    h->map = m;
    char *at = (char *)(((uintptr_t)m + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
    (void)madvise(at, h->len - HUGE_PAGE, MADV_HUGEPAGE);
    return at;
}

void fo_huge_unmap(fo_huge *h)
{
    if (h->map) munmap(h->map, h->len);
    h->map = NULL;
}

/* A JSON string; invalid UTF-8 becomes U+FFFD, controls are escaped. */
void fo_buf_json_str(fo_buf *b, const char *s, size_t len)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t k = 0;

    fo_buf_append(b, "\"", 1);
    while (k < len) {
        uint32_t cp;
        size_t n = fo_utf8_decode(s + k, len - k, &cp);
        char esc[8];

        if (n == 0) {
            fo_buf_append(b, "\\ufffd", 6);
            k++;
            continue;
        }
        if (n == 1 && (u[k] < 0x20 || u[k] == '"' || u[k] == '\\' || u[k] == 0x7f)) {
            switch (u[k]) {
            case '"': fo_buf_append(b, "\\\"", 2); break;
            case '\\': fo_buf_append(b, "\\\\", 2); break;
            case '\n': fo_buf_append(b, "\\n", 2); break;
            case '\t': fo_buf_append(b, "\\t", 2); break;
            case '\r': fo_buf_append(b, "\\r", 2); break;
            default:
                snprintf(esc, sizeof esc, "\\u%04x", u[k]);
                fo_buf_append(b, esc, 6);
            }
        } else {
            fo_buf_append(b, s + k, n);
        }
        k += n;
    }
    fo_buf_append(b, "\"", 1);
}

/* ---- JSON Pointers (RFC 6901) -------------------------------------------*/
void fo_json_ptr_push(char *ptr, size_t cap, const char *token)
{
    size_t n = strlen(ptr);
    if (n + 1 >= cap) return;
    ptr[n++] = '/';
    for (const char *s = token; *s && n + 2 < cap; s++) {
        if (*s == '~') { ptr[n++] = '~'; ptr[n++] = '0'; }
        else if (*s == '/') { ptr[n++] = '~'; ptr[n++] = '1'; }
        else ptr[n++] = *s;
    }
    ptr[n] = '\0';
}

/* index in decimal into tok (at least 21 bytes), NUL-terminated */
static void index_token(char tok[static 21], size_t index)
{
    char rev[20];
    size_t n = 0;
    do rev[n++] = (char)('0' + index % 10);
    while ((index /= 10) != 0);
    for (size_t k = 0; k < n; k++) tok[k] = rev[n - 1 - k];
    tok[n] = '\0';
}

/* Without snprintf: a spec's reader builds one pointer a cell, and the two
 * snprintf calls of each were ~80 k instructions of a 12 x 4 chart's
 * marginal cost (issue 39); the same text, truncated the same way. */
void fo_json_ptr_push_index(char *ptr, size_t cap, size_t index)
{
    char tok[21];
    index_token(tok, index);
    fo_json_ptr_push(ptr, cap, tok);
}

void fo_json_ptr_item(char *out, size_t cap, const char *base, size_t index)
{
    if (cap == 0) return;
    size_t n = strnlen(base, cap - 1);
    memcpy(out, base, n);
    out[n] = '\0';
    fo_json_ptr_push_index(out, cap, index);
}
