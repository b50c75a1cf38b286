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
 * libharu's own, filter parameters or another filter are left to libharu. */
#include <pthread.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_objects.h>
#include <hpdf_streams.h>
#include <libdeflate.h>

#include "base/buf.h"
#include "render/pdf/pdf_int.h"

#define LEVEL 5

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

/* Before-write hook: see the file's comment. Anything short of success
 * leaves the stream to libharu's own deflate. */
static HPDF_STATUS compress_now(HPDF_Dict d)
{
    d->before_write_fn = NULL;
    if (!active || d->stream->size == 0 || d->filter != HPDF_STREAM_FILTER_FLATE_DECODE || d->filterParams)
        return HPDF_OK;
    fo_buf in = {0};
    unsigned char *out = NULL;
    size_t n = 0;
    if (fo_buf_reserve(&in, d->stream->size) && gather(d->stream, &in) && in.len == d->stream->size) {
        size_t cap = libdeflate_zlib_compress_bound(active, in.len);
        if ((out = fo_malloc(cap)))
            n = libdeflate_zlib_compress(active, in.data, in.len, out, cap);
    }
    fo_buf_free(&in);
    HPDF_STATUS st = HPDF_OK;
    if (n > 0) {
        HPDF_MemStream_FreeData(d->stream);
        st = HPDF_Stream_Write(d->stream, out, (HPDF_UINT)n);
        d->filter = HPDF_STREAM_FILTER_NONE;
        d->write_fn = write_filter;
    }
    fo_free(out);
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

bool fo_pdf_save(fo_pdf *c, const char *path)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, use_fo_malloc);
    active = libdeflate_alloc_compressor(LEVEL);
    for (HPDF_Xref x = c->pdf->xref; active && x; x = x->prev)
        for (HPDF_UINT i = 0; i < x->entries->count; i++) {
            HPDF_XrefEntry e = HPDF_List_ItemAt(x->entries, i);
            if (e && e->obj && eligible(e->obj)) ((HPDF_Dict)e->obj)->before_write_fn = compress_now;
        }
    bool ok = HPDF_SaveToFile(c->pdf, path) == HPDF_OK;
    libdeflate_free_compressor(active);
    active = NULL;
    return ok;
}
