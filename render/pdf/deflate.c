/* deflate.c — the PDF's streams compressed with libdeflate as libharu
 * writes them, in place of libharu's zlib.
 *
 * Why: libharu deflates every stream (page contents, font programs, the
 * ToUnicode and CIDToGIDMap maps) with zlib at its default level, 4 KiB at
 * a time. For the mixed-script benchmark report that is 2.5 MB of streams
 * and about a tenth of the render's CPU time. libdeflate (Debian
 * libdeflate-dev) compresses a whole buffer at once; at level 6 it was 2x
 * faster than zlib's level 6 on those streams and its output 2% smaller.
 * Level 5 (mixed report, task-clock best of 9 alternated; file size):
 *   level 4: 147.9 ms, 417,156 B (English 297,345 B)
 *   level 5: 151.7 ms, 405,535 B (English 289,384 B)
 *   level 6: 154.9 ms, 400,713 B (English 283,582 B)
 *   zlib 6 (libharu): 406,910 B (English 285,032 B)
 * so the files stay about as small as libharu's were.
 *
 * How, around libharu: each stream object that libharu would deflate gets a
 * before-write hook. When libharu comes to write the object, the hook
 * compresses the stream's bytes, puts the compressed bytes in their place,
 * tells libharu the stream has no filter (so it copies the bytes as they
 * are and writes /Length for them) and adds an on-write hook that writes
 * /Filter /FlateDecode into the dictionary. Compressing when the object is
 * written, not before saving, leaves libharu free to add to a stream or
 * set its filter while it saves (a page's content stream gets its closing
 * ET then, a ToUnicode map its filter). Objects that have hooks of
 * libharu's own, filter parameters or another filter are left to libharu.
 *
 * Long documents: past the first FO_PDF_HELD_PAGES pages, a page's content
 * stream is compressed the same way as soon as the page is finished
 * (fo_pdf_page_done) and the page is written out with it (stream.c).
 * The sum of those compressed streams is bytes the file will hold, so
 * once it passes the output ceiling the render stops there
 * (FO_ERR_CEILING) instead of laying out the rest. */
#include <pthread.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_objects.h>
#include <hpdf_streams.h>
#include <libdeflate.h>

#include "base/buf.h"
#include "render/pdf/pdf_int.h"

#define LEVEL 5
/* Bytes each page adds to the file besides its contents, at least: its
 * object (/Type /Page, /Parent, /MediaBox, /Contents, /Resources), its two
 * content streams' dictionaries and three cross-reference entries (a
 * 100,000-row table's pages measured ~600). */
#define PAGE_FLOOR 250.0
/* Compressed pages averaged before a table's size is estimated. */
#define SAMPLE_PAGES 50

/* The compressor of the save under way on this thread (hooks have no
 * other way to reach it). */
static _Thread_local struct libdeflate_compressor *active;

static void use_fo_malloc(void)
{
    libdeflate_set_memory_allocator(fo_malloc, fo_free);
}

static HPDF_STATUS write_filter(HPDF_Dict d, HPDF_Stream out)
{
    (void)d;
    return HPDF_Stream_WriteStr(out, "/Filter /FlateDecode\012");
}

/* The stream's bytes in one buffer (false: out of memory). */
static bool gather(HPDF_Stream s, fo_buf *b)
{
    HPDF_UINT n = HPDF_MemStream_GetBufCount(s);
    for (HPDF_UINT i = 0; i < n; i++) {
        HPDF_UINT len = 0;
        HPDF_BYTE *p = HPDF_MemStream_GetBufPtr(s, i, &len);
        if (p && len && !fo_buf_append(b, p, len)) return false;
    }
    return true;
}

/* Sets the size of the blocks an empty memory stream allocates as it grows
 * (libharu's HPDF_STREAM_BUF_SIZ, 4 KiB, otherwise). */
static void block_size(HPDF_Stream s, HPDF_UINT n)
{
    HPDF_MemStreamAttr a = s->attr;
    if (s->size != 0 || a->buf->count != 0) return;
    a->buf_siz = n;
    a->w_pos = n; /* "the block is full": the next write allocates one */
    a->w_ptr = NULL;
}

/* A stream that is the same bytes in every PDF, whatever the request: the
 * identity ToUnicode map (fix_to_unicode, pdf.c) of a font that shows no
 * shaped glyph, two of them in the smallest report. Its ~5.6 KB of similar
 * lines took libdeflate 0.70 M instructions each, 15% of bench-serve's PDF
 * render (callgrind, issue 39). Its compressed bytes are kept for the
 * process: made by the first render (in `folio serve`, the zygote's warm-up,
 * so that its children read them and need not make them) and copied by
 * every later one whose stream has the same bytes; libdeflate keeps no state
 * from one call to the next, so they are the bytes it would make. Only
 * streams marked constant (fo_pdf_deflate_constant) are kept: nothing of a
 * request. */
static struct {
    unsigned char *in, *out;
    size_t in_len, out_len;
} kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

/* The kept bytes for in[0..len), copied to a fo_malloc'd *out: their count,
 * 0 when none are kept for those bytes. */
static size_t kept_copy(const unsigned char *in, size_t len, unsigned char **out)
{
    size_t n = 0;
    pthread_mutex_lock(&kept_lock);
    if (kept.in && kept.in_len == len && !memcmp(kept.in, in, len) && (*out = fo_malloc(kept.out_len))) {
        memcpy(*out, kept.out, kept.out_len);
        n = kept.out_len;
    }
    pthread_mutex_unlock(&kept_lock);
    return n;
}

/* Keeps in[0..len) compressed to out[0..n) if nothing is kept yet. */
static void keep(const unsigned char *in, size_t len, const unsigned char *out, size_t n)
{
    pthread_mutex_lock(&kept_lock);
    if (!kept.in) {
        unsigned char *i = fo_malloc(len), *o = fo_malloc(n);
        if (i && o) {
            kept.in = memcpy(i, in, len);
            kept.out = memcpy(o, out, n);
            kept.in_len = len;
            kept.out_len = n;
        } else {
            fo_free(i);
            fo_free(o);
        }
    }
    pthread_mutex_unlock(&kept_lock);
}

/* Compresses d's stream in place with z (see the file's comment): its
 * compressed length, 0 when left as it was (nothing to do, or out of
 * memory: libharu's own deflate then does it). exact: the stream is held
 * in one block of that length from now on. constant: the stream is marked
 * constant (the kept bytes above). *st: libharu's status. */
static size_t squeeze(HPDF_Dict d, struct libdeflate_compressor *z, bool exact, bool constant,
                      HPDF_STATUS *st)
{
    *st = HPDF_OK;
    if (!z || d->stream->size == 0 || d->filter != HPDF_STREAM_FILTER_FLATE_DECODE || d->filterParams)
        return 0;
    fo_buf in = {0};
    unsigned char *out = NULL;
    size_t n = 0;
    if (fo_buf_reserve(&in, d->stream->size) && gather(d->stream, &in) && in.len == d->stream->size &&
        !(constant && (n = kept_copy((unsigned char *)in.data, in.len, &out)))) {
        size_t cap = libdeflate_zlib_compress_bound(z, in.len);
        if ((out = fo_malloc(cap))) n = libdeflate_zlib_compress(z, in.data, in.len, out, cap);
        if (n > 0 && constant) keep((unsigned char *)in.data, in.len, out, n);
    }
    fo_buf_free(&in);
    if (n > 0) {
        HPDF_MemStream_FreeData(d->stream);
        if (exact) block_size(d->stream, (HPDF_UINT)n); /* one block, not 4 KiB ones */
        *st = HPDF_Stream_Write(d->stream, out, (HPDF_UINT)n);
        d->filter = HPDF_STREAM_FILTER_NONE;
        d->write_fn = write_filter;
    }
    fo_free(out);
    return n;
}

/* Before-write hooks: see the file's comment. Anything short of success
 * leaves the stream to libharu's own deflate. */
static HPDF_STATUS compress_now(HPDF_Dict d)
{
    HPDF_STATUS st;
    d->before_write_fn = NULL;
    squeeze(d, active, false, false, &st);
    return st;
}

static HPDF_STATUS compress_constant(HPDF_Dict d)
{
    HPDF_STATUS st;
    d->before_write_fn = NULL;
    squeeze(d, active, false, true, &st);
    return st;
}

static bool eligible(const HPDF_Obj_Header *h)
{
    if ((h->obj_class & HPDF_OCLASS_ANY) != HPDF_OCLASS_DICT) return false;
    const HPDF_Dict_Rec *d = (const HPDF_Dict_Rec *)h;
    /* the filter is looked at when the object is written: libharu sets a
       font's ToUnicode map to FlateDecode only as it writes the font */
    return d->stream && d->stream->type == HPDF_STREAM_MEMORY && !d->before_write_fn && !d->write_fn;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;

/* Whether the PDF is past c->max_bytes (then recorded as FO_ERR_CEILING):
 * for certain, when the compressed contents of the pages finished so far
 * and PAGE_FLOOR bytes for each page's objects pass it; or by estimate,
 * once SAMPLE_PAGES were compressed, when a table's remaining rows need
 * pages (c->expect_pages) that at the average page so far pass it. */
static bool past_ceiling(fo_pdf *c)
{
    if (!c->max_bytes) return false;
    double page = (c->pages_squeezed ? (double)c->squeezed / (double)c->pages_squeezed : 0) + PAGE_FLOOR;
    double sure = (double)c->squeezed + (double)c->npages * PAGE_FLOOR;
    double est = c->pages_squeezed >= SAMPLE_PAGES && c->expect_pages > c->npages
                     ? page * (double)c->expect_pages : 0;
    if (sure <= (double)c->max_bytes && est <= (double)c->max_bytes) return false;
    if (sure > (double)c->max_bytes)
        fo_pdf_fail(c, FO_ERR_CEILING,
                    "the PDF would pass the output ceiling of %llu bytes: its first %zu pages "
                    "already hold %.0f; stopped there, nothing written (split the data, drop "
                    "columns, or raise --max-bytes)", (unsigned long long)c->max_bytes, c->npages, sure);
    else
        fo_pdf_fail(c, FO_ERR_CEILING,
                    "the PDF would pass the output ceiling of %llu bytes: the table's rows need "
                    "about %zu pages at %.0f bytes a page (~%.0f MB); stopped at page %zu, nothing "
                    "written (split the data, drop columns, or raise --max-bytes)",
                    (unsigned long long)c->max_bytes, c->expect_pages, page, est / 1e6, c->npages);
    return true;
}

/* The finished pages' compressor, made on first need (false: out of
 * memory, recorded). */
static bool squeezer(fo_pdf *c)
{
    pthread_once(&once, use_fo_malloc);
    if (!c->squeezer && !(c->squeezer = libdeflate_alloc_compressor(LEVEL)))
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
    return c->squeezer != NULL;
}

void fo_pdf_page_done(fo_pdf *c)
{
    HPDF_Page page = c->page;
    if (!page || c->st != FO_OK || c->npages <= FO_PDF_HELD_PAGES) return;
    HPDF_Dict d = ((HPDF_PageAttr)page->attr)->contents;
    if (!d || !eligible(&d->header) || !fo_pdf_stream_ready(c)) return; /* held to the end */
    if (!squeezer(c)) return;
    fo_pdf_stream_close(c);
    if (c->st != FO_OK) return;
    HPDF_STATUS st;
    size_t n = squeeze(d, c->squeezer, true, false, &st);
    if (st != HPDF_OK || c->st != FO_OK) return; /* libharu's error is reported */
    if (n > 0) { /* else libharu's own deflate does it as the page is written */
        c->squeezed += n;
        c->pages_squeezed++;
    }
    if (past_ceiling(c)) return;
    fo_pdf_stream_page(c, c->path);
}

size_t fo_pdf_deflate(fo_pdf *c, HPDF_Stream s, unsigned char **out)
{
    *out = NULL;
    if (!squeezer(c)) return 0;
    fo_buf in = {0};
    size_t n = 0;
    if (fo_buf_reserve(&in, s->size + 1) && gather(s, &in)) {
        size_t cap = libdeflate_zlib_compress_bound(c->squeezer, in.len);
        if ((*out = fo_malloc(cap))) n = libdeflate_zlib_compress(c->squeezer, in.data, in.len, *out, cap);
    }
    fo_buf_free(&in);
    if (n == 0) {
        fo_free(*out);
        *out = NULL;
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
    }
    return n;
}

void fo_pdf_deflate_constant(HPDF_Dict d)
{
    if (d && eligible(&d->header)) d->before_write_fn = compress_constant;
}

void fo_pdf_squeezer_free(fo_pdf *c)
{
    if (c->squeezer) libdeflate_free_compressor(c->squeezer);
    c->squeezer = NULL;
}

bool fo_pdf_save(fo_pdf *c, const char *path)
{
    pthread_once(&once, use_fo_malloc);
    /* the finished pages' compressor if there is one: one ~0.7 MB state, not two */
    active = c->squeezer ? c->squeezer : libdeflate_alloc_compressor(LEVEL);
    c->squeezer = NULL;
    for (HPDF_Xref x = c->pdf->xref; active && x; x = x->prev)
        for (HPDF_UINT i = 0; i < x->entries->count; i++) {
            HPDF_XrefEntry e = HPDF_List_ItemAt(x->entries, i);
            if (e && e->obj && eligible(e->obj)) ((HPDF_Dict)e->obj)->before_write_fn = compress_now;
        }
    bool ok = c->stream ? fo_pdf_stream_finish(c) : HPDF_SaveToFile(c->pdf, path) == HPDF_OK;
    libdeflate_free_compressor(active);
    active = NULL;
    return ok;
}
