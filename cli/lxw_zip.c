/* lxw_zip.c — libxlsxwriter's parts deflated by libdeflate, not zlib.
 *
 * Why: libxlsxwriter 1.1.4 adds every part of a workbook to its zip through
 * minizip (libminizip.so.1), which deflates it with zlib at level 6 from a
 * fresh deflate state per part: about 37% of the CPU of a small workbook's
 * render in a reused `folio serve` worker (perf, issue 39). libdeflate, which
 * folio already uses for docx and pptx, deflates the same XML at the same
 * level in about half zlib's time, and no larger.
 *
 * How: libxlsxwriter calls minizip's zipOpenNewFileInZip4_64,
 * zipWriteInFileInZip and zipCloseFileInZip through its PLT, so an
 * executable that defines them is the one called (ELF symbol interposition,
 * as cli/lxw_tmp.c does for lxw_tmpfile; only libxlsxwriter uses minizip in
 * folio's executables). This file is one of the executables' own objects,
 * never libfolio.a. A part opened to be deflated (Z_DEFLATED, not raw, no
 * password) is opened raw in minizip instead; its bytes are gathered here,
 * and at its close deflated in one call by libdeflate (level 6), handed to
 * minizip as they are, and the part closed with its size and CRC
 * (zipCloseFileInZipRaw64). Every other call goes to minizip unchanged.
 *
 * Memory is bounded: a part that passes HELD bytes (a big worksheet's XML)
 * is deflated from then on by zlib's streaming deflate with minizip's own
 * settings, in pieces, as minizip would have: its bytes then are zlib's.
 *
 * Output: the XML inside the workbook is the library's, byte for byte; the
 * deflated bytes differ from zlib's (still deterministic: the same input
 * gives the same file). FOLIO_LXW_ZIP=zlib in the environment hands every
 * call to minizip unchanged, for comparison (tests/serve/test_lxw_zip.py).
 *
 * The archive itself: libxlsxwriter opens it with zipOpen(path), and
 * minizip's own file functions (stdio) then wrote a small workbook in some
 * 70 system calls: a write per local header, per part and per central
 * entry, and two seeks per part to patch its header's CRC and sizes (half
 * the system calls of a `folio serve` render child, strace -c). zipOpen is
 * taken over too: the archive is opened with file functions over a buffer
 * here, written to path at zipClose in one write (created as fopen's "wb"
 * creates it: O_TRUNC, mode 0666 & ~umask). Memory is bounded as the parts
 * are: past SPILL bytes the buffer goes to the file and the rest is written
 * there at its offsets. The bytes are minizip's, whichever way they go:
 * FOLIO_LXW_ZIP=file keeps minizip's stdio file (and libdeflate's parts),
 * for comparison. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <libdeflate.h>
#include <minizip/zip.h>

#include "serve/serve.h"

/* A part larger than this is deflated by zlib as it comes, not held. */
#define HELD ((size_t)4 << 20)
#define LEVEL 6
/* Parts open at once: libxlsxwriter writes one zip at a time per workbook;
 * more than this many workbooks closing at once fall back to minizip. */
#define SLOTS 8
/* An archive held in memory past this many bytes goes on in its file. */
#define SPILL ((size_t)16 << 20)

typedef int (*open_fn)(zipFile, const char *, const zip_fileinfo *, const void *, uInt, const void *, uInt,
                       const char *, int, int, int, int, int, int, const char *, uLong, uLong, uLong, int);
typedef int (*write_fn)(zipFile, const void *, unsigned);
typedef int (*close_fn)(zipFile);
typedef int (*close_raw_fn)(zipFile, ZPOS64_T, uLong);
typedef zipFile (*zopen_fn)(const void *, int, zipcharpc *, zlib_filefunc64_def *);

static struct {
    open_fn open;
    write_fn write;
    close_fn close;
    close_raw_fn close_raw;
    zopen_fn zopen;
    bool off;     /* FOLIO_LXW_ZIP=zlib, or minizip not found */
    bool on_disk; /* FOLIO_LXW_ZIP=zlib or file: minizip's own stdio file */
} real;
static pthread_once_t real_once = PTHREAD_ONCE_INIT;

/* The part being written to one zip file. */
typedef struct {
    zipFile file; /* NULL: free */
    unsigned char *buf;
    size_t len, cap;
    bool streaming; /* past HELD: zlib deflates as it comes */
    z_stream z;
    uLong crc;
    uint64_t size;
    int err; /* a ZIP_ error met while streaming */
} part;

static part slots[SLOTS];
static pthread_mutex_t slots_lock = PTHREAD_MUTEX_INITIALIZER;

static void find_real(void)
{
    const char *mode = getenv("FOLIO_LXW_ZIP");
    real.open = (open_fn)dlsym(RTLD_NEXT, "zipOpenNewFileInZip4_64");
    real.write = (write_fn)dlsym(RTLD_NEXT, "zipWriteInFileInZip");
    real.close = (close_fn)dlsym(RTLD_NEXT, "zipCloseFileInZip");
    real.close_raw = (close_raw_fn)dlsym(RTLD_NEXT, "zipCloseFileInZipRaw64");
    real.zopen = (zopen_fn)dlsym(RTLD_NEXT, "zipOpen2_64");
    real.off = (mode && strcmp(mode, "zlib") == 0) || !real.close_raw;
    real.on_disk = real.off || (mode && strcmp(mode, "file") == 0);
}

/* The slot of file's open part, or NULL (a part minizip deflates itself). */
static part *slot_of(zipFile file)
{
    part *p = NULL;
    pthread_mutex_lock(&slots_lock);
    for (int k = 0; k < SLOTS && !p; k++)
        if (slots[k].file == file) p = &slots[k];
    pthread_mutex_unlock(&slots_lock);
    return p;
}

static part *slot_take(zipFile file)
{
    part *p = NULL;
    pthread_mutex_lock(&slots_lock);
    for (int k = 0; k < SLOTS && !p; k++)
        if (!slots[k].file) {
            p = &slots[k];
            memset(p, 0, sizeof *p);
            p->file = file;
        }
    pthread_mutex_unlock(&slots_lock);
    return p;
}

static void slot_free(part *p)
{
    free(p->buf);
    if (p->streaming) deflateEnd(&p->z);
    pthread_mutex_lock(&slots_lock);
    memset(p, 0, sizeof *p);
    pthread_mutex_unlock(&slots_lock);
}

int zipOpenNewFileInZip4_64(zipFile file, const char *filename, const zip_fileinfo *zipfi,
                            const void *extra_local, uInt n_extra_local, const void *extra_global,
                            uInt n_extra_global, const char *comment, int method, int level, int raw,
                            int windowBits, int memLevel, int strategy, const char *password,
                            uLong crcForCrypting, uLong versionMadeBy, uLong flagBase, int zip64)
{
    pthread_once(&real_once, find_real);
    if (!real.open) return ZIP_INTERNALERROR;
    bool ours = !real.off && method == Z_DEFLATED && !raw && !password && level != 0 && !slot_of(file);
    part *p = ours ? slot_take(file) : NULL;
    int rc = real.open(file, filename, zipfi, extra_local, n_extra_local, extra_global, n_extra_global,
                       comment, method, level, p ? 1 : raw, windowBits, memLevel, strategy, password,
                       crcForCrypting, versionMadeBy, flagBase, zip64);
    if (rc != ZIP_OK && p) slot_free(p);
    return rc;
}

/* Hands what zlib has deflated so far to minizip. */
static int stream(part *p, const void *data, size_t n, int flush)
{
    unsigned char out[64 << 10];
    p->z.next_in = (Bytef *)data;
    p->z.avail_in = (uInt)n;
    int zr;
    do {
        p->z.next_out = out;
        p->z.avail_out = sizeof out;
        zr = deflate(&p->z, flush);
        if (zr == Z_STREAM_ERROR) return ZIP_INTERNALERROR;
        size_t have = sizeof out - p->z.avail_out;
        if (have && real.write(p->file, out, (unsigned)have) != ZIP_OK) return ZIP_ERRNO;
    } while (p->z.avail_out == 0 || (flush == Z_FINISH && zr != Z_STREAM_END));
    return ZIP_OK;
}

/* A part past HELD: zlib, with minizip's own settings, from here on. */
static int start_stream(part *p)
{
    if (deflateInit2(&p->z, LEVEL, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK)
        return ZIP_INTERNALERROR;
    p->streaming = true;
    int rc = stream(p, p->buf, p->len, Z_NO_FLUSH);
    free(p->buf);
    p->buf = NULL;
    p->len = p->cap = 0;
    return rc;
}

int zipWriteInFileInZip(zipFile file, const void *buf, unsigned len)
{
    pthread_once(&real_once, find_real);
    part *p = real.write ? slot_of(file) : NULL;
    if (!p) return real.write ? real.write(file, buf, len) : ZIP_INTERNALERROR;
    if (p->err) return p->err;
    p->crc = libdeflate_crc32((uint32_t)p->crc, buf, len);
    p->size += len;
    if (!p->streaming && p->len + len > HELD) p->err = start_stream(p);
    if (!p->err && p->streaming) p->err = stream(p, buf, len, Z_NO_FLUSH);
    if (p->err || p->streaming) return p->err;
    if (p->len + len > p->cap) {
        size_t cap = p->cap ? p->cap : 16 << 10;
        while (cap < p->len + len) cap *= 2;
        unsigned char *b = realloc(p->buf, cap);
        if (!b) return p->err = ZIP_INTERNALERROR;
        p->buf = b;
        p->cap = cap;
    }
    memcpy(p->buf + p->len, buf, len);
    p->len += len;
    return ZIP_OK;
}

/* Parts learned while the zygote warms up (fo_serve_warm_learn): their
 * bytes and their deflated bytes, read-only once learning ends, so the
 * zygote's children share them. libdeflate keeps no state from one call to
 * the next, so a part with the same bytes deflates to the same bytes: using
 * the learned ones changes no output. */
#define LEARNED 48
typedef struct {
    unsigned char *in, *out;
    size_t in_len, out_len;
    uint32_t crc;
} learned_part;
static learned_part learned[LEARNED];
static size_t n_learned;
static bool learning;

/* One compressor for the process, made at the first part and kept: making
 * one is a large allocation (mmap'd, faulted in) that a part of a few KiB
 * would pay again each time. */
static struct libdeflate_compressor *compressor;
static pthread_mutex_t compressor_lock = PTHREAD_MUTEX_INITIALIZER;

/* Learning ends with the compressor the warm-up made freed: a zygote's child
 * that wrote into it (its hash tables, ~0.3 MiB, rewritten by every part)
 * copied each page on its first write, some 45 page faults a small
 * workbook (perf, issue 39); a child now makes its own in memory of its own
 * (the render children's region, serve/region.c) at its first part. */
void fo_serve_warm_learn(bool on)
{
    learning = on;
    if (!on) {
        libdeflate_free_compressor(compressor);
        compressor = NULL;
    }
}

static const learned_part *learned_find(const part *p)
{
    for (size_t k = 0; k < n_learned; k++) {
        const learned_part *l = &learned[k];
        if (l->in_len == p->len && l->crc == (uint32_t)p->crc && !memcmp(l->in, p->buf, p->len)) return l;
    }
    return NULL;
}

static void learn(const part *p, const unsigned char *out, size_t n)
{
    learned_part *l = &learned[n_learned];
    if (n_learned == LEARNED || learned_find(p)) return;
    l->in = malloc(p->len);
    l->out = malloc(n);
    if (!l->in || !l->out) {
        free(l->in);
        free(l->out);
        return;
    }
    memcpy(l->in, p->buf, p->len);
    memcpy(l->out, out, n);
    l->in_len = p->len;
    l->out_len = n;
    l->crc = (uint32_t)p->crc;
    n_learned++;
}

/* The held bytes deflated in one call (or learned) and handed to minizip. */
static int deflate_held(part *p)
{
    const learned_part *l = learning ? NULL : learned_find(p);
    if (l) return real.write(p->file, l->out, (unsigned)l->out_len);
    pthread_mutex_lock(&compressor_lock);
    if (!compressor) compressor = libdeflate_alloc_compressor(LEVEL);
    size_t bound = compressor ? libdeflate_deflate_compress_bound(compressor, p->len) : 0;
    unsigned char *out = compressor ? malloc(bound) : NULL;
    size_t n = out ? libdeflate_deflate_compress(compressor, p->buf, p->len, out, bound) : 0;
    if (n && learning) learn(p, out, n);
    pthread_mutex_unlock(&compressor_lock);
    int rc = n ? real.write(p->file, out, (unsigned)n) : ZIP_INTERNALERROR;
    free(out);
    return rc;
}

int zipCloseFileInZip(zipFile file)
{
    pthread_once(&real_once, find_real);
    part *p = real.close ? slot_of(file) : NULL;
    if (!p) return real.close ? real.close(file) : ZIP_INTERNALERROR;
    int rc = p->err;
    if (!rc) rc = p->streaming ? stream(p, NULL, 0, Z_FINISH) : deflate_held(p);
    uint64_t size = p->size;
    uLong crc = p->crc;
    slot_free(p);
    int closed = real.close_raw(file, size, crc);
    return rc ? rc : closed;
}

/* ------------------------------------------------ the archive in memory */

/* One archive being written: in buf until it passes SPILL, then in fd. */
typedef struct {
    char *path;
    unsigned char *buf;
    size_t len, cap, pos; /* pos: minizip's offset (its seeks patch headers) */
    int fd;               /* -1 while in memory */
    int err;              /* errno of the first failure; sticky */
} memzip;

static int put_all(int fd, const unsigned char *p, size_t n, size_t at)
{
    while (n) {
        ssize_t w = pwrite(fd, p, n, (off_t)at);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        n -= (size_t)w;
        at += (size_t)w;
    }
    return 0;
}

/* The buffer into the file, which is made now; from here on writes go there. */
static int spill(memzip *m)
{
    m->fd = open(m->path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
    if (m->fd < 0 || put_all(m->fd, m->buf, m->len, 0) < 0) return -1;
    free(m->buf);
    m->buf = NULL;
    m->cap = 0;
    return 0;
}

static voidpf ZCALLBACK mz_open(voidpf opaque, const void *path, int mode)
{
    memzip *m = calloc(1, sizeof *m);
    (void)opaque;
    /* minizip opens to create (read-write, but it reads nothing back) when
       zipOpen did; never to append */
    if (!m || !path || !(mode & ZLIB_FILEFUNC_MODE_CREATE) || !(m->path = strdup(path))) {
        free(m);
        return NULL;
    }
    m->fd = -1;
    return m;
}

static uLong ZCALLBACK mz_read(voidpf opaque, voidpf stream, void *buf, uLong size)
{
    (void)opaque, (void)stream, (void)buf, (void)size;
    return 0;
}

static uLong ZCALLBACK mz_write(voidpf opaque, voidpf stream, const void *buf, uLong size)
{
    memzip *m = stream;
    size_t end = m->pos + size;
    (void)opaque;
    if (m->err) return 0;
    if (m->fd < 0 && end > SPILL && spill(m) < 0) m->err = errno ? errno : EIO;
    if (!m->err && m->fd >= 0 && put_all(m->fd, buf, size, m->pos) < 0) m->err = errno ? errno : EIO;
    if (m->err) return 0;
    if (m->fd < 0) {
        if (end > m->cap) {
            size_t cap = m->cap ? m->cap : 64 << 10;
            while (cap < end) cap *= 2;
            unsigned char *b = realloc(m->buf, cap);
            if (!b) {
                m->err = ENOMEM;
                return 0;
            }
            m->buf = b;
            m->cap = cap;
        }
        if (m->pos > m->len) memset(m->buf + m->len, 0, m->pos - m->len);
        memcpy(m->buf + m->pos, buf, size);
    }
    m->pos = end;
    if (end > m->len) m->len = end;
    return size;
}

static ZPOS64_T ZCALLBACK mz_tell(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((memzip *)stream)->pos;
}

static long ZCALLBACK mz_seek(voidpf opaque, voidpf stream, ZPOS64_T off, int origin)
{
    memzip *m = stream;
    (void)opaque;
    if (origin == ZLIB_FILEFUNC_SEEK_CUR) off += m->pos;
    else if (origin == ZLIB_FILEFUNC_SEEK_END) off += m->len;
    else if (origin != ZLIB_FILEFUNC_SEEK_SET) return -1;
    m->pos = (size_t)off;
    return 0;
}

/* The archive into its file, in one write while it was in memory. */
static int ZCALLBACK mz_close(voidpf opaque, voidpf stream)
{
    memzip *m = stream;
    int err = m->err;
    (void)opaque;
    if (!err && m->fd < 0 && spill(m) < 0) err = errno ? errno : EIO;
    if (m->fd >= 0 && close(m->fd) < 0 && !err) err = errno;
    free(m->buf);
    free(m->path);
    free(m);
    if (err) errno = err;
    return err ? -1 : 0;
}

static int ZCALLBACK mz_error(voidpf opaque, voidpf stream)
{
    (void)opaque;
    return ((memzip *)stream)->err;
}

zipFile zipOpen(const char *pathname, int append)
{
    static zlib_filefunc64_def mem = {mz_open, mz_read, mz_write, mz_tell, mz_seek, mz_close, mz_error, NULL};
    pthread_once(&real_once, find_real);
    if (!real.zopen) return NULL;
    bool ours = !real.on_disk && append == APPEND_STATUS_CREATE;
    return real.zopen(pathname, append, NULL, ours ? &mem : NULL);
}
