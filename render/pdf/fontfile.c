/* fontfile.c — a TrueType file handed to libharu as a mapped stream.
 *
 * Why: libharu reads a font through its file reader, which zeroes the
 * destination and calls fread for each value it reads, two or four bytes
 * at a time: every advance width of hmtx, every loca offset, every cmap
 * entry. Droid Sans Fallback has 50,000 glyphs; loading the eight fonts of
 * the mixed-script benchmark report spent ~6 ms in those calls (fread takes
 * the FILE lock each time). Here the file is mapped read-only and the
 * stream's read is a copy out of the mapping; the pages read are the tables
 * libharu reads, and folio's subsetter (subset.c) reads glyphs through the
 * same stream.
 *
 * The stream behaves as libharu's file reader does (hpdf_streams.c): a read
 * past the end gives what is there, zeros after it and HPDF_STREAM_EOF; a
 * seek to a negative position is an I/O error; a seek past the end is
 * allowed. One difference, while libharu loads the font: a read past the
 * end is also an error. libharu's loader adds up the statuses of its reads
 * and then returns the document's error code, which a plain EOF leaves at
 * 0, so a table cut off by the end of the file loaded as zeros: a format-0
 * cmap with no glyph array, read through a null pointer (fuzz_font). fo_pdf_load_ttf then does what HPDF_LoadTTFontFromFile does with
 * the stream (hpdf_doc.c, LoadTTFontFromStream), so the font definition,
 * its tag and the document's list of fonts are the same as libharu's; but
 * a font on which libharu's loader would fault (sfnt.c) is refused first,
 * and the caller says why. */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hpdf.h>
#include <hpdf_doc.h>
#include <hpdf_fontdef.h>
#include <hpdf_streams.h>

#include "render/pdf/pdf_int.h"

typedef struct {
    const unsigned char *data;
    size_t size, pos;
    bool loading;         /* inside HPDF_TTFontDef_Load: a short read is an error */
    bool *cut;            /* while loading: set on a short read */
    bool kept;            /* data is a kept mapping (below): not unmapped */
} mapped;

/* The system's font files stay mapped for the process once mapped. A
 * render mapped and unmapped each font it used: in a reused `folio serve`
 * worker, two mmaps, two munmaps (a TLB flush each) and ~4 page faults of
 * the file's pages per small PDF, ~0.14 ms of its ~1.5 ms (issue 39); the
 * zygote's warm-up maps the theme's fonts, so its children find them
 * mapped. Only files under SYSTEM_FONTS are kept, read-only in the jail
 * and the same for every request; a font a request brings lives in its own
 * folder and is unmapped with its document, as before. A kept mapping is
 * used again only while the path names the same file (device, inode, size,
 * change time); a file that changed is mapped anew. At most KEPT are kept:
 * their pages count in a worker's RSS (--worker-memory). */
#define SYSTEM_FONTS "/usr/share/fonts/"
#define KEPT 16
static struct kept_map {
    char path[256];
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec ctime;
    const unsigned char *data;
} kept[KEPT];
static size_t n_kept;
static pthread_mutex_t kept_lock = PTHREAD_MUTEX_INITIALIZER;

static bool system_font(const char *path)
{
    return strncmp(path, SYSTEM_FONTS, strlen(SYSTEM_FONTS)) == 0 && !strstr(path, "/..") &&
           strlen(path) < sizeof kept[0].path;
}

static bool same_file(const struct kept_map *k, const struct stat *st)
{
    return k->dev == st->st_dev && k->ino == st->st_ino && k->size == st->st_size &&
           k->ctime.tv_sec == st->st_ctim.tv_sec && k->ctime.tv_nsec == st->st_ctim.tv_nsec;
}

/* The kept mapping of path if the file is still the one kept (NULL if not). */
static const unsigned char *kept_find(const char *path, size_t *size)
{
    struct stat st;
    const unsigned char *data = NULL;
    if (!system_font(path) || stat(path, &st) != 0) return NULL;
    pthread_mutex_lock(&kept_lock);
    for (size_t i = 0; i < n_kept && !data; i++)
        if (!strcmp(kept[i].path, path) && same_file(&kept[i], &st)) {
            data = kept[i].data;
            *size = (size_t)st.st_size;
        }
    pthread_mutex_unlock(&kept_lock);
    return data;
}

/* Keeps the mapping of path (st: its file): whether it is kept. */
static bool keep(const char *path, const struct stat *st, const unsigned char *data)
{
    bool done = false;
    if (!system_font(path)) return false;
    pthread_mutex_lock(&kept_lock);
    if (n_kept < KEPT) {
        struct kept_map *k = &kept[n_kept++];
        snprintf(k->path, sizeof k->path, "%s", path);
        k->dev = st->st_dev;
        k->ino = st->st_ino;
        k->size = st->st_size;
        k->ctime = st->st_ctim;
        k->data = data;
        done = true;
    }
    pthread_mutex_unlock(&kept_lock);
    return done;
}

static HPDF_STATUS map_read(HPDF_Stream s, HPDF_BYTE *ptr, HPDF_UINT *siz)
{
    mapped *m = s->attr;
    size_t want = *siz, have = m->pos < m->size ? m->size - m->pos : 0;
    size_t n = want < have ? want : have;
    if (n) memcpy(ptr, m->data + m->pos, n);
    m->pos += n;
    if (n == want) return HPDF_OK;
    memset(ptr + n, 0, want - n);
    *siz = (HPDF_UINT)n;
    if (m->loading) {
        *m->cut = true;
        return HPDF_SetError(s->error, HPDF_STREAM_EOF, 0);
    }
    return HPDF_STREAM_EOF;
}

static HPDF_STATUS map_seek(HPDF_Stream s, HPDF_INT pos, HPDF_WhenceMode mode)
{
    mapped *m = s->attr;
    long long base = mode == HPDF_SEEK_CUR ? (long long)m->pos
                   : mode == HPDF_SEEK_END ? (long long)m->size : 0;
    if (base + pos < 0) return HPDF_SetError(s->error, HPDF_FILE_IO_ERROR, 0);
    m->pos = (size_t)(base + pos);
    return HPDF_OK;
}

static HPDF_INT32 map_tell(HPDF_Stream s)
{
    return (HPDF_INT32)((mapped *)s->attr)->pos;
}

static HPDF_UINT32 map_size(HPDF_Stream s)
{
    return (HPDF_UINT32)((mapped *)s->attr)->size;
}

static void map_free(HPDF_Stream s)
{
    mapped *m = s->attr;
    if (!m) return;
    if (!m->kept) munmap((void *)m->data, m->size);
    fo_free(m);
    s->attr = NULL;
}

/* A read-only stream over the file at path; NULL when it cannot be opened
 * or mapped, or is empty or over 2 GiB (libharu's offsets are 32-bit). */
static HPDF_Stream map_stream(HPDF_Doc pdf, const char *path)
{
    size_t size = 0;
    const unsigned char *data = kept_find(path, &size);
    bool is_kept = data != NULL;
    if (!data) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0) return NULL;
        struct stat st;
        void *p = MAP_FAILED;
        if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0 && st.st_size < (1LL << 31))
            p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
        close(fd);
        if (p == MAP_FAILED) return NULL;
        data = p;
        size = (size_t)st.st_size;
        is_kept = keep(path, &st, data);
    }
    mapped *m = fo_calloc(1, sizeof *m);
    HPDF_Stream s = m ? HPDF_CallbackReader_New(pdf->mmgr, map_read, map_seek, map_tell, map_size, m)
                      : NULL;
    if (!s) {
        fo_free(m);
        if (!is_kept) munmap((void *)data, size);
        return NULL;
    }
    *m = (mapped){data, size, 0, false, NULL, is_kept};
    s->free_fn = map_free;
    return s;
}

/* The next embedding tag, as libharu counts them: HPDFAA, HPDFAB, ... */
static void next_tag(HPDF_Doc pdf)
{
    if (pdf->ttfont_tag[0] == 0) {
        memcpy(pdf->ttfont_tag, "HPDFAA", 6);
        return;
    }
    for (int i = 5; i >= 0; i--) {
        if (++pdf->ttfont_tag[i] <= 'Z') return;
        pdf->ttfont_tag[i] = 'A';
    }
}

const char *fo_pdf_load_ttf(HPDF_Doc pdf, const char *path, bool collection, const char **problem)
{
    *problem = NULL;
    HPDF_Stream s = map_stream(pdf, path);
    if (!s) return NULL;
    const mapped *fm = s->attr;
    if ((*problem = fo_pdf_sfnt_problem(fm->data, fm->size)) != NULL) {
        HPDF_Stream_Free(s);
        return NULL;
    }
    /* libharu frees the stream with the definition, or itself on failure */
    mapped *m = s->attr;
    bool cut = false;
    m->loading = true;
    m->cut = &cut;
    HPDF_FontDef def = collection ? HPDF_TTFontDef_Load2(pdf->mmgr, s, 0, HPDF_TRUE)
                                  : HPDF_TTFontDef_Load(pdf->mmgr, s, HPDF_TRUE);
    if (def) {
        m->loading = false;
        m->cut = NULL;
    }
    if (!def) {
        HPDF_CheckError(&pdf->error);
        if (cut) *problem = "tables run past the end of the file";
        return NULL;
    }
    HPDF_FontDef same = HPDF_Doc_FindFontDef(pdf, def->base_font);
    if (same) {
        HPDF_FontDef_Free(def);
        return same->base_font;
    }
    if (HPDF_List_Add(pdf->fontdef_list, def) != HPDF_OK) {
        HPDF_FontDef_Free(def);
        HPDF_CheckError(&pdf->error);
        return NULL;
    }
    next_tag(pdf);
    HPDF_TTFontDef_SetTagName(def, (char *)pdf->ttfont_tag);
    return def->base_font;
}
