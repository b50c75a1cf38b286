/* stream.c — a long document's pages written to the file as they are
 * finished, so that its memory stays flat.
 *
 * Why: libharu holds every object of a document until HPDF_SaveToFile,
 * about 8 KB a table page (its page and resource dictionaries, where each
 * entry carries a 128-byte name, and the compressed contents): a
 * 100,000-row table (2,440 pages) peaked at 32.6 MiB, 200,000 rows at
 * 52.9 MiB, growing with the page count up to the output ceiling.
 *
 * How, around libharu: past FO_PDF_HELD_PAGES, each page starts with q.
 * When it is finished (fo_pdf_page_done) it is closed with Q and, when the
 * theme has a header, footer or logo, "/FoHF Do" invokes a form XObject
 * whose object number is reserved now in libharu's cross-reference table
 * and whose contents are drawn at the end, when the page count that
 * "Page N of M" needs is known (fo_pdf_form_begin/end: on one blank page
 * kept for that, the form's /Resources being that page's). The page's
 * contents are then final: the file is opened (the PDF header first), and
 * the page dictionary, its content stream with its /Length and its
 * annotations are written with libharu's own object writer, their byte
 * offsets kept by object number. They are freed, and so are their entries
 * in libharu's cross-reference table (their slots share one entry); the
 * page object stays in libharu's tree as a bare dictionary header (its
 * number is what /Kids, the outline and links refer to), owned from then
 * on here. At the end
 * (fo_pdf_stream_finish) every object not yet written follows (fonts,
 * outline, catalog, the pages held, the forms' resources), then the cross
 * reference table and the trailer as libharu writes them, and the header
 * is rewritten with the version libharu settled on. Left per page: the
 * bare dictionary, its /Kids entry and its objects' table slots, about
 * 250 bytes.
 *
 * A page that cannot be closed that way (inside a text object, holding a
 * table of contents slot, which is filled at the end) is held as before;
 * the q it began with is closed by libharu when the page is written. */
#include <stdio.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_objects.h>
#include <hpdf_pages.h>
#include <hpdf_streams.h>

#include "base/buf.h"
#include "render/pdf/pdf_int.h"

/* The form's name in a written page's /XObject resources (libharu names
 * its own X1, X2, ...). */
#define FORM_NAME "FoHF"

struct fo_pdf_stream {
    HPDF_Stream out; /* the PDF file */
    uint32_t *off;   /* byte offset of each object written, by number
                               * (0: not written yet) */
    size_t off_cap;
    HPDF_PageAttr_Rec bare;    /* what every written page's attr points at */
    HPDF_XrefEntry_Rec shared; /* the table entry of every object written or reserved */
    HPDF_Obj_Header ref;       /* stands for the form being referenced */
    HPDF_Page scratch;         /* headers and footers are drawn on it (NULL: none yet) */
    void **annots;             /* the annotations of the page being written */
    size_t annots_cap;
};

static uint32_t id_of(const void *obj) { return ((const HPDF_Obj_Header *)obj)->obj_id & 0x00FFFFFF; }

/* The value of key in d (through a reference), NULL when absent; unlike
 * HPDF_Dict_GetItem never an error. */
static void *item(HPDF_Dict d, const char *key)
{
    for (HPDF_UINT i = 0; i < d->list->count; i++) {
        HPDF_DictElement e = HPDF_List_ItemAt(d->list, i);
        if (strcmp(e->key, key) != 0) continue;
        HPDF_Obj_Header *h = e->value;
        return h->obj_class == HPDF_OCLASS_PROXY ? ((HPDF_Proxy)e->value)->obj : e->value;
    }
    return NULL;
}

static struct fo_pdf_stream *state(fo_pdf *c)
{
    if (!c->stream && !(c->stream = fo_calloc(1, sizeof *c->stream)))
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
    return c->stream;
}

/* "%PDF-1.x" and the binary comment, as libharu's WriteHeader. */
static void header(char *buf, size_t cap, HPDF_PDFVer v)
{
    snprintf(buf, cap, "%%PDF-1.%d\012%%\267\276\255\252\012", 2 + (int)v);
}

/* The file, opened with a header by the first call. */
static HPDF_Stream out(fo_pdf *c, const char *path)
{
    struct fo_pdf_stream *s = state(c);
    if (!s) return NULL;
    if (!s->out) {
        char h[32];
        header(h, sizeof h, c->pdf->pdf_version);
        s->out = HPDF_FileWriter_New(c->pdf->mmgr, path);
        if (!s->out || HPDF_Stream_WriteStr(s->out, h) != HPDF_OK) {
            if (c->st == FO_OK) fo_pdf_fail(c, FO_ERR_IO, "%s: cannot write the PDF", path);
            return NULL;
        }
    }
    return s->out;
}

/* Records that object id starts at the file's current end. */
static bool mark(fo_pdf *c, uint32_t id)
{
    struct fo_pdf_stream *s = c->stream;
    if (!fo_grow((void **)&s->off, &s->off_cap, (size_t)id + 1, 4096, sizeof *s->off)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return false;
    }
    s->off[id] = s->out->size;
    return true;
}

static bool written(const fo_pdf *c, uint32_t id)
{
    const struct fo_pdf_stream *s = c->stream;
    return id < s->off_cap && s->off[id] != 0;
}

/* Writes obj as object id ("id 0 obj ... endobj", as libharu does). */
static bool emit_as(fo_pdf *c, uint32_t id, void *obj)
{
    HPDF_Stream o = c->stream->out;
    char buf[32];
    snprintf(buf, sizeof buf, "%u 0 obj\012", id);
    return mark(c, id) && HPDF_Stream_WriteStr(o, buf) == HPDF_OK &&
           (obj ? HPDF_Obj_WriteValue(obj, o, NULL) : HPDF_Stream_WriteStr(o, "null")) == HPDF_OK &&
           HPDF_Stream_WriteStr(o, "\012endobj\012") == HPDF_OK;
}

static bool emit(fo_pdf *c, void *obj) { return emit_as(c, id_of(obj), obj); }

/* Object id written: its slot in libharu's table now the shared entry
 * (the number stays; its offset is in s->off). */
static void release(fo_pdf *c, uint32_t id)
{
    struct fo_pdf_stream *s = c->stream;
    HPDF_Xref x = c->pdf->xref;
    HPDF_XrefEntry e = HPDF_Xref_GetEntry(x, id);
    if (!e || e == &s->shared) return;
    x->entries->obj[id] = &s->shared;
    HPDF_FreeMem(x->mmgr, e);
}

/* Frees indirect object obj, written: libharu's table keeps its number. */
static void drop(fo_pdf *c, void *obj)
{
    release(c, id_of(obj));
    HPDF_Obj_ForceFree(c->pdf->mmgr, obj);
}

bool fo_pdf_stream_ready(fo_pdf *c)
{
    HPDF_Page page = c->page;
    HPDF_PageAttr a = page->attr;
    if (a->gmode != HPDF_GMODE_PAGE_DESCRIPTION || !a->gstate || a->gstate->depth != 2) return false;
    HPDF_Dict contents = item(page, "Contents");
    if (contents != a->contents) return false; /* more than one content stream */
    size_t i = c->npages - 1;
    for (size_t k = 0; k < c->ntoc; k++)
        if (c->toc[k].page == i) return false;
    return true;
}

/* Whether the theme draws anything on every page at the end. */
static bool late_drawing(const fo_pdf *c) { return c->t->header[0] || c->t->footer[0] || c->t->logo[0]; }

void fo_pdf_stream_close(fo_pdf *c)
{
    HPDF_Page page = c->page;
    HPDF_PageAttr a = page->attr;
    struct fo_pdf_stream *s = state(c);
    if (!s || HPDF_Page_GRestore(page) != HPDF_OK || !late_drawing(c)) return;
    /* a number for the form, its object written at the end */
    HPDF_Xref x = c->pdf->xref;
    s->shared.entry_typ = HPDF_IN_USE_ENTRY;
    if (HPDF_List_Add(x->entries, &s->shared) != HPDF_OK) return; /* its error is reported */
    uint32_t id = x->start_offset + x->entries->count - 1;
    if (!a->xobjects) {
        HPDF_Dict res = item(page, "Resources");
        HPDF_Dict xo = HPDF_Dict_New(page->mmgr);
        if (!res || !xo || HPDF_Dict_Add(res, "XObject", xo) != HPDF_OK) return;
        a->xobjects = xo;
    }
    s->ref = (HPDF_Obj_Header){.obj_id = id | HPDF_OTYPE_INDIRECT, .obj_class = HPDF_OCLASS_DICT};
    if (HPDF_Dict_Add(a->xobjects, FORM_NAME, &s->ref) != HPDF_OK) return;
    HPDF_Stream_WriteStr(a->stream, "/" FORM_NAME " Do\012");
    c->pinfo[c->npages - 1].form = id;
}

/* Leaves page, written, a bare dictionary header: no entries (nor their
 * list), its attributes those every written page shares (what
 * HPDF_Page_CreateDestination reads of them). Its table slot is released:
 * fo_pdf_stream_free frees it. */
static void bare(fo_pdf *c, HPDF_Page page)
{
    struct fo_pdf_stream *s = c->stream;
    while (page->list->count) {
        HPDF_DictElement e = HPDF_List_ItemAt(page->list, 0);
        HPDF_Dict_RemoveElement(page, e->key);
    }
    HPDF_List_Free(page->list);
    page->list = NULL;
    release(c, id_of(page));
    c->pinfo[c->npages - 1].written = true;
    if (page->free_fn) page->free_fn(page); /* libharu's: the graphics state and attr */
    s->bare.xref = c->pdf->xref;
    s->bare.gmode = HPDF_GMODE_PAGE_DESCRIPTION;
    page->attr = &s->bare;
    page->free_fn = NULL;
    page->before_write_fn = NULL;
}

void fo_pdf_stream_page(fo_pdf *c, const char *path)
{
    HPDF_Page page = c->page;
    if (c->st != FO_OK || !out(c, path)) return;
    HPDF_Dict contents = item(page, "Contents");
    void *length = contents ? item(contents, "Length") : NULL;
    HPDF_Array annots = item(page, "Annots");
    bool ok = emit(c, page) && contents && emit(c, contents);
    /* the length is known once the stream is written */
    if (ok && length && (((HPDF_Obj_Header *)length)->obj_id & HPDF_OTYPE_INDIRECT)) ok = emit(c, length);
    else length = NULL;
    size_t nannots =
        annots && (annots->header.obj_class & HPDF_OCLASS_ANY) == HPDF_OCLASS_ARRAY ? annots->list->count : 0;
    struct fo_pdf_stream *s = c->stream;
    size_t n = 0;
    if (nannots && !fo_grow((void **)&s->annots, &s->annots_cap, nannots, 16, sizeof *s->annots)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    for (size_t i = 0; ok && i < nannots; i++) {
        HPDF_Obj_Header *h = HPDF_List_ItemAt(annots->list, (HPDF_UINT)i);
        void *a = h->obj_class == HPDF_OCLASS_PROXY ? ((HPDF_Proxy)h)->obj : h;
        if (!(((HPDF_Obj_Header *)a)->obj_id & HPDF_OTYPE_INDIRECT)) continue;
        ok = emit(c, a);
        s->annots[n++] = a;
    }
    if (!ok) {
        if (c->st == FO_OK) fo_pdf_fail(c, FO_ERR_IO, "%s: cannot write the PDF", path);
        return;
    }
    bare(c, page); /* first: its entries refer to what follows */
    drop(c, contents);
    if (length) drop(c, length);
    for (size_t i = 0; i < n; i++) drop(c, s->annots[i]);
}

/* The blank page headers and footers are drawn on, made on first need. */
static HPDF_Page scratch(fo_pdf *c)
{
    struct fo_pdf_stream *s = c->stream;
    if (!s->scratch) s->scratch = HPDF_Page_New(c->pdf->mmgr, c->pdf->xref);
    return s->scratch;
}

HPDF_Page fo_pdf_form_begin(fo_pdf *c, size_t i)
{
    if (!c->stream || !c->pinfo[i].form) return NULL;
    HPDF_Page p = scratch(c);
    if (!p) return NULL;
    /* as a page starts: no contents, the initial graphics state (what the
       page's Q left when it invokes the form), no text object */
    HPDF_PageAttr a = p->attr;
    HPDF_MemStream_FreeData(a->stream);
    while (a->gstate && a->gstate->prev) {
        HPDF_GState prev = a->gstate->prev;
        HPDF_GState_Free(p->mmgr, a->gstate);
        a->gstate = prev;
    }
    HPDF_GState_Free(p->mmgr, a->gstate);
    a->gstate = HPDF_GState_New(p->mmgr, NULL);
    if (!a->gstate) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return NULL;
    }
    a->gmode = HPDF_GMODE_PAGE_DESCRIPTION;
    a->str_pos = a->cur_pos = a->text_pos = (HPDF_Point){0, 0};
    a->text_matrix = (HPDF_TransMatrix){1, 0, 0, 1, 0, 0};
    return p;
}

void fo_pdf_form_end(fo_pdf *c, size_t i, double w, double h)
{
    struct fo_pdf_stream *s = c->stream;
    if (c->st != FO_OK) return;
    HPDF_PageAttr a = s->scratch->attr;
    unsigned char *z = NULL;
    size_t n = a->stream->size ? fo_pdf_deflate(c, a->stream, &z) : 0;
    if (c->st != FO_OK) return;
    char head[256];
    snprintf(head, sizeof head,
             "<<\012/Type /XObject\012/Subtype /Form\012/BBox [0 0 %.3f %.3f]\012/Resources %u 0 R\012"
             "%s/Length %zu\012>>\012stream\015\012",
             w, h, id_of(s->scratch), n ? "/Filter /FlateDecode\012" : "", n);
    char buf[32];
    uint32_t id = c->pinfo[i].form;
    snprintf(buf, sizeof buf, "%u 0 obj\012", id);
    HPDF_Stream o = s->out;
    bool ok = mark(c, id) && HPDF_Stream_WriteStr(o, buf) == HPDF_OK &&
              HPDF_Stream_WriteStr(o, head) == HPDF_OK &&
              (!n || HPDF_Stream_Write(o, z, (HPDF_UINT)n) == HPDF_OK) &&
              HPDF_Stream_WriteStr(o, "\012endstream\012endobj\012") == HPDF_OK;
    fo_free(z);
    if (!ok && c->st == FO_OK) fo_pdf_fail(c, FO_ERR_IO, "%s: cannot write the PDF", c->path);
}

bool fo_pdf_stream_finish(fo_pdf *c)
{
    struct fo_pdf_stream *s = c->stream;
    HPDF_Doc pdf = c->pdf;
    HPDF_Xref x = pdf->xref;
    HPDF_Stream o = s->out;
    if (!o || x->prev || x->start_offset != 0) return false;
    /* the forms' resources, in place of the page they were drawn on */
    if (s->scratch && !emit_as(c, id_of(s->scratch), item(s->scratch, "Resources"))) return false;
    if (HPDF_Dict_Add(x->trailer, "Root", pdf->catalog) != HPDF_OK ||
        (pdf->info && HPDF_Dict_Add(x->trailer, "Info", pdf->info) != HPDF_OK))
        return false;
    for (HPDF_UINT id = 1; id < x->entries->count; id++) {
        if (written(c, id)) continue;
        HPDF_XrefEntry e = HPDF_Xref_GetEntry(x, id);
        if (!emit_as(c, id, e->obj)) return false;
    }
    /* the cross-reference table and the trailer, as HPDF_Xref_WriteToStream */
    uint32_t addr = o->size;
    char buf[64];
    snprintf(buf, sizeof buf, "xref\0120 %u\012", x->entries->count);
    if (HPDF_Stream_WriteStr(o, buf) != HPDF_OK) return false;
    for (HPDF_UINT id = 0; id < x->entries->count; id++) {
        HPDF_XrefEntry e = HPDF_Xref_GetEntry(x, id);
        snprintf(buf, sizeof buf, "%010u %05u %c\015\012", id ? s->off[id] : 0, e->gen_no,
                 id ? HPDF_IN_USE_ENTRY : e->entry_typ);
        if (HPDF_Stream_WriteStr(o, buf) != HPDF_OK) return false;
    }
    if (HPDF_Dict_AddNumber(x->trailer, "Size", x->entries->count) != HPDF_OK ||
        HPDF_Stream_WriteStr(o, "trailer\012") != HPDF_OK || HPDF_Dict_Write(x->trailer, o, NULL) != HPDF_OK)
        return false;
    snprintf(buf, sizeof buf, "\012startxref\012%u\012%%%%EOF\012", addr);
    if (HPDF_Stream_WriteStr(o, buf) != HPDF_OK) return false;
    /* the version may have risen since the header was written */
    FILE *f = o->attr;
    char h[32];
    header(h, sizeof h, pdf->pdf_version);
    return fflush(f) == 0 && fseek(f, 0, SEEK_SET) == 0 && fwrite(h, 1, strlen(h), f) == strlen(h) &&
           fflush(f) == 0;
}

/* Drops every graphics state a held page still has saved above its first:
 * libharu frees a page's top state only (HPDF_GState_Free), and a page past
 * FO_PDF_HELD_PAGES starts with a save that its fo_pdf_stream_close
 * restores; one a render stopped on (an error, the page limit) never got
 * there. */
static void unwind_states(fo_pdf *c)
{
    for (size_t i = 0; i < c->npages; i++) {
        HPDF_Page page = c->pages[i];
        HPDF_PageAttr a = c->pinfo[i].written || !page ? NULL : page->attr;
        while (a && a->gstate && a->gstate->prev) {
            HPDF_GState prev = a->gstate->prev;
            HPDF_GState_Free(page->mmgr, a->gstate);
            a->gstate = prev;
        }
    }
}

void fo_pdf_stream_free(fo_pdf *c)
{
    struct fo_pdf_stream *s = c->stream;
    unwind_states(c);
    if (!s) return;
    /* the written pages are this file's to free, and the slots of the
       shared entry are taken out of the table libharu frees entry by entry */
    for (size_t i = 0; i < c->npages; i++)
        if (c->pinfo[i].written) HPDF_FreeMem(c->pdf->mmgr, c->pages[i]);
    HPDF_List l = c->pdf->xref->entries;
    HPDF_UINT kept = 0;
    for (HPDF_UINT i = 0; i < l->count; i++)
        if (l->obj[i] != &s->shared) l->obj[kept++] = l->obj[i];
    l->count = kept;
    if (s->out) HPDF_Stream_Free(s->out);
    fo_free(s->off);
    fo_free(s->annots);
    fo_free(s);
    c->stream = NULL;
}
