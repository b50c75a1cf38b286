/* body.c — the <sheetData> rows of a big table's sheet, written by folio
 * itself and deflated while they are produced (see xlsx_internal.h).
 *
 * Why: in constant_memory mode libxlsxwriter formats every cell with
 * fprintf into a temp file and deflates the whole sheet in workbook_close
 * with zlib's default level; on the 200,000-row benchmark that was 80% of
 * the run. Here the main thread formats cells straight into a chunk
 * (hand-written integer, %.16G and escaping code: the same text
 * libxlsxwriter writes) and a second thread deflates full chunks (raw
 * deflate, level FO_XLSX_BODY_LEVEL) into an unlinked spill file, with the
 * CRC, while the next chunk fills. The stream ends with a sync flush, so
 * that xlsx.c can put it between the deflated head and tail of the sheet
 * libxlsxwriter wrote (repack.c). Memory: two chunks and zlib's state. */
#include <errno.h>
#include <fcntl.h>
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zlib.h>

#include "base/thread.h"
#include "render/xlsx/xlsx_internal.h"

#define CHUNK (128u * 1024u) /* bytes a thread hands over at a time */
#define ROOM 256u            /* a cell but its text always fits in this */

struct fo_xlsx_body {
    unsigned char *fill; /* the chunk being filled (main thread) */
    size_t len;
    unsigned char *job; /* the chunk being deflated (worker) */
    size_t job_len;
    bool pending; /* job holds a chunk to deflate */
    bool last;    /* ... and it is the last one */
    bool quit;
    bool threaded;
    bool sync; /* mu and cv initialised */
    pthread_t thread;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    z_stream z;
    bool z_ok;
    unsigned char *out;   /* deflated bytes on their way to the spill */
    int fd;               /* the spill file (unlinked), -1 if none */
    uint64_t raw, packed; /* bytes in, bytes out */
    uint32_t crc;
    uint64_t max_packed; /* stop past this (the output ceiling) */
    int err;             /* errno of a failed write, or EFBIG past max_packed (the
                                 worker's own; the main thread reads seen_err) */
    int seen_err;        /* err as of the last chunk done, under mu */
};

/* ---- deflating (the worker's side) ----------------------------------------*/

static void spill(fo_xlsx_body *b, size_t n)
{
    for (size_t done = 0; done < n && !b->err;) {
        ssize_t w = write(b->fd, b->out + done, n - done);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) b->err = w < 0 ? errno : EIO;
        else done += (size_t)w;
    }
    b->packed += n;
    if (!b->err && b->packed > b->max_packed) b->err = EFBIG;
}

static void deflate_chunk(fo_xlsx_body *b, const unsigned char *in, size_t n, bool last)
{
    if (b->err) return;
    b->crc = (uint32_t)libdeflate_crc32(b->crc, in, n);
    b->raw += n;
    b->z.next_in = (Bytef *)in;
    b->z.avail_in = (uInt)n;
    do {
        b->z.next_out = b->out;
        b->z.avail_out = CHUNK;
        if (deflate(&b->z, last ? Z_SYNC_FLUSH : Z_NO_FLUSH) == Z_STREAM_ERROR) {
            b->err = EIO;
            return;
        }
        spill(b, CHUNK - b->z.avail_out);
    } while (b->z.avail_out == 0 && !b->err);
}

static void *worker(void *arg)
{
    fo_xlsx_body *b = arg;
    pthread_mutex_lock(&b->mu);
    for (;;) {
        while (!b->pending && !b->quit) pthread_cond_wait(&b->cv, &b->mu);
        if (!b->pending) break;
        bool last = b->last;
        pthread_mutex_unlock(&b->mu);
        deflate_chunk(b, b->job, b->job_len, last);
        pthread_mutex_lock(&b->mu);
        b->seen_err = b->err;
        b->pending = false;
        pthread_cond_broadcast(&b->cv);
    }
    pthread_mutex_unlock(&b->mu);
    return NULL;
}

/* Hands the filled chunk over (deflated at once without a thread); false
 * once the stream failed (b->err). */
static bool hand_over(fo_xlsx_body *b, bool last)
{
    if (!b->threaded) {
        deflate_chunk(b, b->fill, b->len, last);
        b->len = 0;
        return !b->err;
    }
    pthread_mutex_lock(&b->mu);
    while (b->pending) pthread_cond_wait(&b->cv, &b->mu);
    unsigned char *t = b->job;
    b->job = b->fill;
    b->job_len = b->len;
    b->fill = t;
    b->len = 0;
    b->pending = true;
    b->last = last;
    pthread_cond_broadcast(&b->cv);
    if (last)
        while (b->pending) pthread_cond_wait(&b->cv, &b->mu);
    int err = b->seen_err;
    pthread_mutex_unlock(&b->mu);
    return !err;
}

/* ---- the stream (main thread) ---------------------------------------------*/

static int open_spill(const char *dir)
{
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0) return fd;
    char path[4096];
    if (snprintf(path, sizeof path, "%s/folio-xlsx-XXXXXX", dir) >= (int)sizeof path) return -1;
    fd = mkostemp(path, O_CLOEXEC);
    if (fd >= 0) unlink(path);
    return fd;
}

fo_xlsx_body *fo_xlsx_body_new(const char *tmpdir, uint64_t max_packed)
{
    fo_xlsx_body *b = fo_calloc(1, sizeof *b);
    if (!b) return NULL;
    b->fd = -1;
    b->max_packed = max_packed ? max_packed : UINT64_MAX;
    b->fill = fo_malloc(CHUNK);
    b->job = fo_malloc(CHUNK);
    b->out = fo_malloc(CHUNK);
    b->z_ok = deflateInit2(&b->z, FO_XLSX_BODY_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) == Z_OK;
    if (!b->fill || !b->job || !b->out || !b->z_ok) {
        fo_xlsx_body_free(b);
        return NULL;
    }
    if ((b->fd = open_spill(tmpdir)) < 0) b->err = b->seen_err = errno ? errno : EIO;
    pthread_mutex_init(&b->mu, NULL);
    pthread_cond_init(&b->cv, NULL);
    b->sync = true;
    b->threaded = fo_thread_start(&b->thread, worker, b) == 0; /* else deflated inline */
    return b;
}

static void stop(fo_xlsx_body *b)
{
    if (!b->threaded) return;
    pthread_mutex_lock(&b->mu);
    while (b->pending) pthread_cond_wait(&b->cv, &b->mu);
    b->quit = true;
    pthread_cond_broadcast(&b->cv);
    pthread_mutex_unlock(&b->mu);
    pthread_join(b->thread, NULL);
    b->threaded = false;
}

void fo_xlsx_body_free(fo_xlsx_body *b)
{
    if (!b) return;
    if (b->threaded) stop(b);
    if (b->sync) {
        pthread_mutex_destroy(&b->mu);
        pthread_cond_destroy(&b->cv);
    }
    if (b->z_ok) deflateEnd(&b->z);
    if (b->fd >= 0) close(b->fd);
    fo_free(b->fill);
    fo_free(b->job);
    fo_free(b->out);
    fo_free(b);
}

int fo_xlsx_body_error(const fo_xlsx_body *b)
{
    if (!b->threaded) return b->err;
    pthread_mutex_lock((pthread_mutex_t *)&b->mu);
    int e = b->seen_err;
    pthread_mutex_unlock((pthread_mutex_t *)&b->mu);
    return e;
}

int fo_xlsx_body_finish(fo_xlsx_body *b, fo_xlsx_body_info *info)
{
    hand_over(b, true);
    stop(b);
    info->fd = b->fd;
    info->raw = b->raw;
    info->packed = b->packed;
    info->crc = b->crc;
    return b->err;
}

/* Room for n more bytes in the chunk; false once the stream failed. */
static inline bool room(fo_xlsx_body *b, size_t n)
{
    if (b->len + n <= CHUNK) return true;
    return hand_over(b, false);
}

static inline void put(fo_xlsx_body *b, const char *s, size_t n)
{
    memcpy(b->fill + b->len, s, n);
    b->len += n;
}
#define PUT(b, lit) put(b, lit, sizeof lit - 1)

/* ---- numbers ---------------------------------------------------------------*/

static size_t put_u64(char *out, uint64_t v)
{
    char tmp[24];
    size_t n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    for (size_t i = 0; i < n; i++) out[i] = tmp[n - 1 - i];
    return n;
}

static const double pow10_tab[] = {1e-4, 1e-3, 1e-2, 1e-1, 1e0,  1e1,  1e2,  1e3,  1e4,  1e5,
                                   1e6,  1e7,  1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15};

size_t fo_xlsx_num(char out[FO_XLSX_NUM_CAP], double v)
{
    char *o = out;
    if (signbit(v)) *o++ = '-';
    double a = fabs(v);
    if (a == 0) {
        *o++ = '0';
        return (size_t)(o - out);
    }
    if (a < 1e16 && a == (double)(uint64_t)a) return (size_t)(o - out) + put_u64(o, (uint64_t)a);
#if LDBL_MANT_DIG >= 64
    if (a >= 1e-4 && a < 1e15) {
        /* X: the decimal exponent; N: a * 10^(15 - X) rounded, the 16 digits
         * printf would give. The product is exact to 2^-64 (< 6e-4 of a unit
         * at N < 1e16): near a tie, or when rounding carries, printf decides. */
        int x = 4; /* most data: 1 <= a < 10^5 */
        if (a < 1)
            while (a < pow10_tab[x]) x--;
        else
            while (x < 18 && a >= pow10_tab[x + 1]) x++;
        x -= 4;
        static const long double scale[] = {
            1e0L,  1e1L,  1e2L,  1e3L,  1e4L,  1e5L,  1e6L,  1e7L,  1e8L,  1e9L,
            1e10L, 1e11L, 1e12L, 1e13L, 1e14L, 1e15L, 1e16L, 1e17L, 1e18L, 1e19L}; /* exact: 10^k < 2^64 */
        long double s = (long double)a * scale[15 - x];
        uint64_t n = (uint64_t)s;
        long double frac = s - (long double)n;
        if (frac > 0.498L && frac < 0.502L) goto slow;
        if (frac > 0.5L) n++;
        if (n < 1000000000000000ull || n >= 10000000000000000ull) goto slow;
        char d[16];
        for (int i = 15; i >= 0; i--) {
            d[i] = (char)('0' + n % 10);
            n /= 10;
        }
        int end = 16;
        while (end > 1 && d[end - 1] == '0') end--;
        if (x >= 0) {
            int ip = x + 1; /* integer digits */
            memcpy(o, d, (size_t)ip);
            o += ip;
            if (end > ip) {
                *o++ = '.';
                memcpy(o, d + ip, (size_t)(end - ip));
                o += end - ip;
            }
        } else {
            *o++ = '0';
            *o++ = '.';
            for (int z = -1; z > x; z--) *o++ = '0';
            memcpy(o, d, (size_t)end);
            o += end;
        }
        return (size_t)(o - out);
    }
slow:
#endif
    return (size_t)snprintf(out, FO_XLSX_NUM_CAP, "%.16G", v);
}

/* ---- cells -----------------------------------------------------------------*/

/* `<c r="B7" s="3"` of column name col (NUL-terminated) on row text rn. */
static inline void cell_open(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf)
{
    PUT(b, "<c r=\"");
    put(b, col, strlen(col));
    put(b, rn, rnl);
    if (xf) {
        PUT(b, "\" s=\"");
        b->len += put_u64((char *)b->fill + b->len, (uint64_t)xf);
    }
    b->fill[b->len++] = '"';
}

bool fo_xlsx_body_row(fo_xlsx_body *b, const char *rn, size_t rnl, double height)
{
    if (!room(b, ROOM)) return false;
    PUT(b, "<row r=\"");
    put(b, rn, rnl);
    if (height > 0) {
        PUT(b, "\" ht=\"");
        b->len += fo_xlsx_num((char *)b->fill + b->len, height);
        PUT(b, "\" customHeight=\"1");
    }
    PUT(b, "\">");
    return true;
}

bool fo_xlsx_body_row_end(fo_xlsx_body *b)
{
    if (!room(b, 8)) return false;
    PUT(b, "</row>");
    return true;
}

bool fo_xlsx_body_number(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, double v)
{
    if (!room(b, ROOM)) return false;
    cell_open(b, col, rn, rnl, xf);
    PUT(b, "><v>");
    b->len += fo_xlsx_num((char *)b->fill + b->len, v);
    PUT(b, "</v></c>");
    return true;
}

bool fo_xlsx_body_bool(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, bool v)
{
    if (!room(b, ROOM)) return false;
    cell_open(b, col, rn, rnl, xf);
    if (v) PUT(b, " t=\"b\"><v>1</v></c>");
    else PUT(b, " t=\"b\"><v>0</v></c>");
    return true;
}

static inline bool is_c_space(unsigned char c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

bool fo_xlsx_body_text(fo_xlsx_body *b, const char *col, const char *rn, size_t rnl, int xf, const char *s,
                       size_t len)
{
    if (!room(b, ROOM)) return false;
    cell_open(b, col, rn, rnl, xf);
    if (!len) { /* libxlsxwriter: an empty string is a blank cell */
        PUT(b, "/>");
        return true;
    }
    if (is_c_space((unsigned char)s[0]) || is_c_space((unsigned char)s[len - 1]))
        PUT(b, " t=\"inlineStr\"><is><t xml:space=\"preserve\">");
    else PUT(b, " t=\"inlineStr\"><is><t>");
    /* &, < and > escaped, as libxlsxwriter does (the text is clean already:
       fo_xlsx_clean); in runs, a chunk at a time */
    size_t i = 0;
    while (i < len) {
        if (!room(b, 64)) return false;
        size_t space = CHUNK - b->len - 8; /* an escape is at most 5 bytes */
        unsigned char *o = b->fill + b->len;
        size_t w = 0;
        for (; i < len && w < space; i++) {
            unsigned char c = (unsigned char)s[i];
            if (c > '>' || (c != '&' && c != '<' && c != '>')) {
                o[w++] = c;
                continue;
            }
            const char *e = c == '&' ? "&amp;" : c == '<' ? "&lt;" : "&gt;";
            size_t el = c == '&' ? 5 : 4;
            memcpy(o + w, e, el);
            w += el;
        }
        b->len += w;
    }
    if (!room(b, 24)) return false;
    PUT(b, "</t></is></c>");
    return true;
}
