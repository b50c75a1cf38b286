/* pdf.c — .pdf renderer (libharu): document setup, pages, fonts, outline,
 * header/footer, document info, and the block loop that drives the layout.
 *
 * Order of work: lay every block out in one pass (pages are created as the
 * cursor runs off the bottom), then revisit what needed the whole document —
 * the table of contents, "{page} of {pages}" footers, the outline — and save.
 * libharu keeps page objects until save, so late drawing on any page is fine.
 *
 * Determinism: libharu writes no /ID without encryption and no dates unless
 * asked; we set /CreationDate and /ModDate from doc->epoch, so the same spec
 * gives the same bytes. Its UTF-8 encoder writes a broken /ToUnicode CMap
 * (a CID range where a bf range belongs); fix_to_unicode replaces it, so
 * text extraction and search work in every reader. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/buf.h"
#include "render/core/fonts.h"
#include "render/pdf/pdf_int.h"
#include "render/render.h"
#include "render/core/text.h"

/* Files tried, in order, for characters the theme's fonts lack. */
static const char *const fallback_files[] = {
    FO_TEXT_FALLBACK_REGULAR,
    FO_TEXT_FALLBACK_SYMBOLS,
    FO_TEXT_FALLBACK_CJK,
    FO_TEXT_FALLBACK_KOREAN,
    "/usr/share/fonts/truetype/wqy/wqy-microhei.ttc",
};

void fo_pdf_fail(fo_pdf *c, fo_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fo_fail_atv(c->d, &c->st, c->doc, c->blk, st, NULL, fmt, ap);
    va_end(ap);
}

/* hpdf_mem.c replaces libharu's byte-loop copy and fill only when it is
 * linked in, and a static library's member is linked only when something
 * refers to it: this does, wherever the PDF writer is linked. */
static bool (*const keep_hpdf_mem)(void) __attribute__((used)) = fo_pdf_mem_interposed;

static void hpdf_error(HPDF_STATUS code, HPDF_STATUS detail, void *user)
{
    fo_pdf *c = user;
    if (c->st != FO_OK) return;
    if (c->probing) { c->probe_failed = true; return; } /* fo_pdf_font_load decides */
    if (c->loading) {
        fo_pdf_fail(c, FO_ERR_INPUT, "%s: cannot read the image (libharu error 0x%04X)",
                    c->loading, (unsigned)code);
        return;
    }
    fo_pdf_fail(c, code == HPDF_FAILD_TO_ALLOC_MEM ? FO_ERR_NOMEM : FO_ERR_INTERNAL,
                "pdf: libharu error 0x%04X (detail %u)", (unsigned)code, (unsigned)detail);
}

static HPDF_RGBColor rgb_of(fo_rgb c)
{
    return (HPDF_RGBColor){((c >> 16) & 255) / 255.0f, ((c >> 8) & 255) / 255.0f, (c & 255) / 255.0f};
}

/* True when the page's colour (space cs, value a) is already v: no operator. */
static bool already(HPDF_ColorSpace cs, HPDF_RGBColor a, HPDF_RGBColor v)
{
    return cs == HPDF_CS_DEVICE_RGB && a.r - v.r < 1e-4f && v.r - a.r < 1e-4f && a.g - v.g < 1e-4f &&
           v.g - a.g < 1e-4f && a.b - v.b < 1e-4f && v.b - a.b < 1e-4f;
}

void fo_pdf_fill_rgb(HPDF_Page p, fo_rgb c)
{
    HPDF_RGBColor v = rgb_of(c);
    if (!already(HPDF_Page_GetFillingColorSpace(p), HPDF_Page_GetRGBFill(p), v))
        HPDF_Page_SetRGBFill(p, v.r, v.g, v.b);
}

void fo_pdf_stroke_rgb(HPDF_Page p, fo_rgb c)
{
    HPDF_RGBColor v = rgb_of(c);
    if (!already(HPDF_Page_GetStrokingColorSpace(p), HPDF_Page_GetRGBStroke(p), v))
        HPDF_Page_SetRGBStroke(p, v.r, v.g, v.b);
}

void fo_pdf_set_font(fo_pdf *c, fo_pdf_font *f, double size)
{
    HPDF_Page p = c->page;
    if (!f->font && f->def && c->st == FO_OK)  /* first drawn: now it is embedded */
        f->font = fo_pdf_get_font(c->pdf, f->def->base_font);
    if (!f->font) return;
    if (HPDF_Page_GetCurrentFont(p) == f->font && HPDF_Page_GetCurrentFontSize(p) == (HPDF_REAL)size) return;
    HPDF_Page_SetFontAndSize(p, f->font, (HPDF_REAL)size);
}

/* ---- fonts ---------------------------------------------------------------- */

fo_pdf_font *fo_pdf_font_load(fo_pdf *c, const char *path)
{
    for (size_t i = 0; i < c->nfonts; i++)
        if (strcmp(c->fonts[i]->path, path) == 0) return c->fonts[i];
    if (c->nfonts == FO_PDF_MAX_FONTS || !path[0] || access(path, R_OK) != 0) return NULL;
    size_t plen = strlen(path);
    /* a file libharu cannot embed (OpenType with CFF outlines, as the Noto
       CJK collections are) is skipped like a missing one, not a failed render */
    c->probing = true;
    c->probe_failed = false;
    const char *bad;
    const char *name = fo_pdf_load_ttf(c->pdf, path, plen > 4 && strcmp(path + plen - 4, ".ttc") == 0,
                                       &bad);
    c->probing = false;
    if (c->probe_failed) HPDF_ResetError(c->pdf);
    if (bad && c->st == FO_OK)
        fo_pdf_fail(c, FO_ERR_INPUT, "%s: the font's %s; use another font file", path, bad);
    if (!name || c->probe_failed) return NULL;
    fo_pdf_font *f = fo_calloc(1, sizeof *f);
    if (!f) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return NULL; }
    snprintf(f->path, sizeof f->path, "%s", path);
    f->def = HPDF_GetFontDef(c->pdf, name);
    if (!f->def) { fo_free(f); return NULL; }
    fo_pdf_flat_cmap(f->def);               /* before HPDF_GetFont looks up every code */
    f->ascent = (float)f->def->ascent;
    f->descent = (float)f->def->descent;
    for (size_t i = 0; i < FO_PDF_WCACHE; i++) f->w[i] = -1;
    c->fonts[c->nfonts++] = f;
    return f;
}

fo_pdf_font *fo_pdf_face(fo_pdf *c, const fo_font *f, int face)
{
    const char *paths[4] = {f->regular, f->bold, f->italic, f->bold_italic};
    fo_pdf_font *r = fo_pdf_font_load(c, paths[face & 3]);
    if (!r && face == FO_PDF_BOLD_ITALIC) r = fo_pdf_font_load(c, f->bold);
    if (!r) r = fo_pdf_font_load(c, f->regular);
    if (!r) r = fo_pdf_font_load(c, fallback_files[0]);
    if (!r && c->st == FO_OK)
        fo_pdf_fail(c, FO_ERR_INPUT, "pdf: cannot load the font %s (theme \"%s\")",
                    f->regular, c->t->name);
    return r;
}

/* Whether a font has BMP code cp, by has(file, cp), remembered in *memo
 * (allocated on first use; two bits a code: asked, has). */
static bool memo_has(uint8_t **memo, bool (*has)(const void *font, uint32_t cp), const void *font,
                     uint32_t cp)
{
    if (!*memo && !(*memo = fo_calloc(0x10000 / 4, 1))) return has(font, cp);
    uint8_t *b = &(*memo)[cp >> 2];
    unsigned shift = (cp & 3) * 2;
    if (!(*b >> shift & 1)) *b |= (uint8_t)((1 | has(font, cp) << 1) << shift);
    return *b >> shift & 2;
}

static bool def_has(const void *def, uint32_t cp)
{
    return HPDF_TTFontDef_GetGlyphid((HPDF_FontDef)def, (HPDF_UINT16)cp) != 0;
}

static bool file_has(const void *path, uint32_t cp)
{
    return fo_text_has_char(path, cp);
}

bool fo_pdf_font_has(fo_pdf_font *f, uint32_t cp)
{
    return memo_has(&f->has, def_has, f->def, cp);
}

/* Fallback file i when it has cp, loaded on first need; NULL otherwise. */
static fo_pdf_font *fallback(fo_pdf *c, size_t i, uint32_t cp)
{
    if (!c->fallback_tried[i]) {   /* once: this runs for every character */
        /* not for a character it lacks: libharu reads a whole font to
           load it (DejaVu Sans and Symbola, asked before Droid Sans
           Fallback for Chinese and never drawn, were 6 M instructions
           of the mixed-script report's PDF) */
        if (!memo_has(&c->fallback_has[i], file_has, c->fallbacks[i], cp)) return NULL;
        c->fallback_tried[i] = true;
        c->fallback_fonts[i] = fo_pdf_font_load(c, c->fallbacks[i]);
    }
    fo_pdf_font *g = c->fallback_fonts[i];
    return g && fo_pdf_font_has(g, cp) ? g : NULL;
}

fo_pdf_font *fo_pdf_cover(fo_pdf *c, fo_pdf_font *f, uint32_t cp)
{
    if (cp > 0xFFFF) return &c->outlines;    /* flow.c's drawable() made sure one exists */
    /* ASCII too: a theme's Hebrew-, Arabic- or CJK-only font has no Latin
       letters ("Page 1 of 1" came out as boxes, silently); a font drawn
       as outlines (no def) answers for itself. Whether a font has all of
       printable ASCII is found once: English text asks per character. */
    if (!f->def) return f;
    if (cp < 0x80) {
        for (uint32_t a = 0x20; !f->ascii && a < 0x7F; a++)
            if (!fo_pdf_font_has(f, a)) f->ascii = 2;
        if (!f->ascii) f->ascii = 1;
        if (f->ascii == 1 && cp >= 0x20 && cp != 0x7F) return f;
    }
    if (fo_pdf_font_has(f, cp)) return f;
    /* the script's own font first (fonts.h): 中 and の from Droid Sans
       Fallback, never from Symbola, which has them too */
    const char *script = fo_fonts_for_char(cp);
    for (size_t i = 0; script && i < c->nfallbacks; i++) {
        if (strcmp(c->fallbacks[i], script) != 0) continue;
        fo_pdf_font *g = fallback(c, i, cp);
        if (g) return g;
    }
    for (size_t i = 0; i < c->nfallbacks; i++) {
        fo_pdf_font *g = fallback(c, i, cp);
        if (g) return g;
    }
    fo_text_missing_note(cp);
    return f;
}

double fo_pdf_glyph_width(fo_pdf_font *f, uint32_t cp)
{
    if (!f->def) {                           /* drawn as an outline */
        double a = 0.5;
        fo_text_outline(FO_TEXT_FALLBACK_REGULAR, cp, NULL, NULL, &a);
        return a * 1000;
    }
    if (cp < FO_PDF_WCACHE) {
        if (f->w[cp] < 0) f->w[cp] = (float)HPDF_TTFontDef_GetCharWidth(f->def, (HPDF_UINT16)cp);
        return f->w[cp];
    }
    return cp > 0xFFFF ? f->w[0x3F] >= 0 ? f->w[0x3F] : 500
                       : HPDF_TTFontDef_GetCharWidth(f->def, (HPDF_UINT16)cp);
}

/* Writes block[0..n) as one bfrange block (none when n is 0); returns 0. */
static unsigned put_ranges(HPDF_Stream s, char (*block)[32], unsigned n)
{
    if (!n) return 0;
    char line[32];
    snprintf(line, sizeof line, "%u beginbfrange\n", n);
    HPDF_Stream_WriteStr(s, line);
    for (unsigned k = 0; k < n; k++) HPDF_Stream_WriteStr(s, block[k]);
    HPDF_Stream_WriteStr(s, "endbfrange\n");
    return 0;
}

/* "<FIRST> <LAST> <FIRST>\n", four upper-case hex digits each, as
 * "%04X" writes them: one line of a bf range block. By hand because the
 * map has ~250 of them a font, and snprintf's were 8% of a small report's
 * render (0.84 M of 10.2 M instructions, callgrind; issue 39). */
static void range_line(char out[32], unsigned first, unsigned last)
{
    static const char hex[] = "0123456789ABCDEF";
    const unsigned v[3] = {first, last, first};
    char *o = out;
    for (int k = 0; k < 3; k++) {
        *o++ = '<';
        for (int shift = 12; shift >= 0; shift -= 4) *o++ = hex[v[k] >> shift & 0xF];
        *o++ = '>';
        *o++ = k < 2 ? ' ' : '\n';
    }
    *o = '\0';
}

/* Replaces libharu's /ToUnicode of a UTF-8 font: character codes are the
 * UTF-16 code units of the BMP, so the map is the identity, written as bf
 * ranges of up to 256 codes (surrogates excluded), at most 100 per block;
 * the codes of shaped glyphs (glyphs.c) are left out of the ranges and
 * mapped each to its characters. */
static void fix_to_unicode(fo_pdf *c, fo_pdf_font *f)
{
    if (!f->font) return;                    /* never drawn: not in the file */
    HPDF_Dict cmap = HPDF_Dict_GetItem((HPDF_Dict)f->font, "ToUnicode", HPDF_OCLASS_DICT);
    if (!cmap || !cmap->stream) return;
    HPDF_MemStream_FreeData(cmap->stream);
    HPDF_Dict_RemoveElement(cmap, "CMapName");
    HPDF_Dict_RemoveElement(cmap, "CIDSystemInfo");
    HPDF_Dict_RemoveElement(cmap, "WMode");
    HPDF_Dict_RemoveElement(cmap, "Type");
    HPDF_Stream s = cmap->stream;
    HPDF_Stream_WriteStr(s, "/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n"
        "/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n"
        "/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n"
        "1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n");
    char block[100][32];
    unsigned n = 0;
    uint32_t top = fo_pdf_taken_top(f);
    for (unsigned h = 0; h < 256; h++) {
        if (h >= 0xD8 && h <= 0xDF) continue;
        for (unsigned lo = 0; lo < 256;) {
            unsigned first = h << 8 | lo;
            if (fo_pdf_code_taken(f, first)) { lo++; continue; }
            if (first >= top) lo = 256;      /* the common case: no code taken from here */
            else while (lo < 256 && !fo_pdf_code_taken(f, h << 8 | lo)) lo++;
            range_line(block[n++], first, h << 8 | (lo - 1));
            if (n == 100) n = put_ranges(s, block, n);
        }
    }
    put_ranges(s, block, n);
    fo_pdf_glyphs_to_unicode(f, s);
    HPDF_Stream_WriteStr(s, "endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend\n");
    if (!f->gmap) fo_pdf_deflate_constant(cmap); /* no code taken: the identity, always the same */
    (void)c;
}

/* ---- pages ---------------------------------------------------------------- */

/* The content box of a portrait or landscape page. */
static void set_box(fo_pdf *c, bool landscape)
{
    const fo_theme *t = c->t;
    double pw = landscape ? t->page.height : t->page.width;
    double ph = landscape ? t->page.width : t->page.height;
    c->left = t->page.margin_left;
    c->right = pw - t->page.margin_right;
    c->top = ph - t->page.margin_top;
    c->bottom = t->page.margin_bottom;
    c->width = c->right - c->left;
}

double fo_pdf_content_width(const fo_pdf *c, bool landscape)
{
    const fo_theme *t = c->t;
    return (landscape ? t->page.height : t->page.width) - t->page.margin_left - t->page.margin_right;
}

/* Whether block i goes on landscape pages: a table that the rule turns
 * decides for itself; headings right before it go with it. */
static bool turned(fo_pdf *c, size_t i)
{
    const fo_doc *doc = c->doc;
    size_t k = i;
    while (k < doc->nblocks && doc->blocks[k].kind == FO_BLOCK_HEADING) k++;
    return k > i && k < doc->nblocks && fo_pdf_table_turns(c, &doc->blocks[k]);
}

/* Sizes a page for the current orientation; dark themes paint it. */
static void page_setup(fo_pdf *c, HPDF_Page page)
{
    const fo_theme *t = c->t;
    double pw = c->landscape ? t->page.height : t->page.width;
    double ph = c->landscape ? t->page.width : t->page.height;
    HPDF_Page_SetWidth(page, (HPDF_REAL)pw);
    HPDF_Page_SetHeight(page, (HPDF_REAL)ph);
    c->pinfo[c->npages - 1].landscape = c->landscape && t->page.width != t->page.height;
    if ((t->background & 0xFFFFFF) != 0xFFFFFF) {
        fo_rgb bg = t->background;
        HPDF_Page_SetRGBFill(page, (HPDF_REAL)((bg >> 16 & 255) / 255.0), (HPDF_REAL)((bg >> 8 & 255) / 255.0),
                             (HPDF_REAL)((bg & 255) / 255.0));
        HPDF_Page_Rectangle(page, 0, 0, (HPDF_REAL)pw, (HPDF_REAL)ph);
        HPDF_Page_Fill(page);
    }
    c->y = c->top;
    c->fresh = true;
}

void fo_pdf_new_page(fo_pdf *c)
{
    if (c->st != FO_OK) return;
    if (c->npages >= FO_PDF_MAX_PAGES) {
        fo_pdf_fail(c, FO_ERR_INPUT, "pdf: the document would run past %d pages, the most a PDF here "
                    "holds; split it into several documents", FO_PDF_MAX_PAGES);
        return;
    }
    fo_pdf_page_done(c);
    if (c->st != FO_OK) return;
    void **const arrays[] = {(void **)&c->pages, (void **)&c->pinfo};
    if (!fo_grow_all(&c->pages_cap, c->npages + 1, 16, 2, arrays,
                     (const size_t[]){sizeof *c->pages, sizeof *c->pinfo})) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    HPDF_Page page = HPDF_AddPage(c->pdf);
    if (!page) return;
    c->pinfo[c->npages] = (fo_pdf_pinfo){0};
    c->pages[c->npages++] = page;
    c->page = page;
    /* past the pages held, one that fo_pdf_page_done can close (stream.c) */
    if (c->npages > FO_PDF_HELD_PAGES) HPDF_Page_GSave(page);
    page_setup(c, page);
}

void fo_pdf_orient(fo_pdf *c, bool landscape)
{
    if (c->landscape == landscape || c->st != FO_OK) return;
    c->landscape = landscape;
    set_box(c, landscape);
    if (c->page && c->fresh) page_setup(c, c->page); /* turned, nothing on it yet */
    else fo_pdf_new_page(c);
}

void fo_pdf_need(fo_pdf *c, double h)
{
    if (!c->page || (!c->fresh && c->y - h < c->bottom - 0.01)) fo_pdf_new_page(c);
}

void fo_pdf_mark_add(fo_pdf *c, const char *text, int level, double y)
{
    if (!fo_grow((void **)&c->marks, &c->marks_cap, c->nmarks + 1, 32, sizeof *c->marks)) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return;
    }
    char *s = fo_strdup(text ? text : "");
    if (!s) { fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory"); return; }
    c->marks[c->nmarks++] = (fo_pdf_mark){s, level, c->npages - 1, y};
}

double fo_pdf_min_height(const fo_pdf *c, const fo_block *b)
{
    const fo_theme *t = c->t;
    double lh = t->body_size * 1.4, row = t->body_size * 0.9 * 1.25 + 5.2;
    switch (b->kind) {
    case FO_BLOCK_CHART: {
        double w = b->u.chart.width > 0 ? b->u.chart.width : 800;
        double h = b->u.chart.height > 0 ? b->u.chart.height : 500;
        double s = w * 0.75 > c->width ? c->width / w : 0.75;
        double maxh = (c->top - c->bottom) * 0.9;
        return h * s > maxh ? maxh : h * s;
    }
    case FO_BLOCK_IMAGE: {
        double w = b->u.image.width, h = b->u.image.height;
        double nw = b->u.image.px_width > 0 ? b->u.image.px_width : 1;
        double nh = b->u.image.px_height > 0 ? b->u.image.px_height : 1;
        if (w <= 0 && h <= 0) { w = nw; h = nh; }
        else if (w <= 0) w = h * nw / nh;
        else if (h <= 0) h = w * nh / nw;
        w *= 0.75;
        h *= 0.75;
        if (w > c->width) h *= c->width / w;
        return h > (c->top - c->bottom) * 0.8 ? (c->top - c->bottom) * 0.8 : h;
    }
    case FO_BLOCK_TABLE: return (b->u.table.caption ? lh : 0) + 4 * row;
    case FO_BLOCK_METRICS: return t->heading_size[0] * 1.3 + t->body_size * 3.5 + 18;
    case FO_BLOCK_CODE: return t->mono_size * 1.35 * 3 + 12;
    case FO_BLOCK_LIST: case FO_BLOCK_PARAGRAPH: return 3 * lh;
    case FO_BLOCK_HEADING: case FO_BLOCK_PAGE_BREAK: case FO_BLOCK_TOC:
    default: return 0;
    }
}

/* Bookmarks nested by heading level; a level-3 heading under a level-1 one
 * hangs from the level-1 item (skipped levels do not create empty items). */
static void build_outline(fo_pdf *c)
{
    HPDF_Encoder enc = HPDF_GetEncoder(c->pdf, "UTF-8");
    memset(c->outline, 0, sizeof c->outline);
    for (size_t i = 0; i < c->nmarks && c->st == FO_OK; i++) {
        const fo_pdf_mark *m = &c->marks[i];
        HPDF_Outline parent = NULL;
        for (int l = m->level - 1; l >= 1 && !parent; l--) parent = c->outline[l];
        HPDF_Outline o = HPDF_CreateOutline(c->pdf, parent, m->text, enc);
        if (!o) return;
        HPDF_Destination dst = HPDF_Page_CreateDestination(c->pages[m->page]);
        HPDF_Destination_SetFitH(dst, (HPDF_REAL)m->y);
        HPDF_Outline_SetDestination(o, dst);
        HPDF_Outline_SetOpened(o, m->level < 2 ? HPDF_TRUE : HPDF_FALSE);
        c->outline[m->level] = o;
        for (int l = m->level + 1; l <= 6; l++) c->outline[l] = NULL;
    }
    if (c->nmarks) HPDF_SetPageMode(c->pdf, HPDF_PAGE_MODE_USE_OUTLINE);
}

/* Expands {page} {pages} {title} {date} of a header/footer template. */
static void expand(const fo_pdf *c, const char *tpl, size_t page, char *out, size_t cap)
{
    size_t o = 0;
    out[0] = 0;
    for (const char *p = tpl; *p && o + 1 < cap;) {
        char num[32];
        const char *sub = NULL;
        size_t skip = 0;
        if (strncmp(p, "{page}", 6) == 0) {
            snprintf(num, sizeof num, "%zu", page + 1); sub = num; skip = 6;
        } else if (strncmp(p, "{pages}", 7) == 0) {
            snprintf(num, sizeof num, "%zu", c->npages); sub = num; skip = 7;
        } else if (strncmp(p, "{title}", 7) == 0) {
            sub = c->doc->title ? c->doc->title : ""; skip = 7;
        } else if (strncmp(p, "{date}", 6) == 0) {
            sub = c->doc->date ? c->doc->date : ""; skip = 6;
        }
        if (sub) {
            o += (size_t)snprintf(out + o, cap - o, "%s", sub);
            if (o >= cap) o = cap - 1;
            p += skip;
        } else {
            out[o++] = *p++;
            out[o] = 0;
        }
    }
}

/* The theme's logo, for the top right of the header band of every page:
 * NULL when there is none or it failed (recorded). */
static HPDF_Image logo_load(fo_pdf *c)
{
    const fo_theme *t = c->t;
    bool png = t->logo_is_png;
    int pw = t->logo_width, ph = t->logo_height; /* probed by the theme reader */
    if (!t->logo[0]) return NULL;
    if (pw <= 0 || ph <= 0 || access(t->logo, R_OK) != 0) {
        fo_pdf_fail(c, FO_ERR_INPUT, "theme logo %s: not a readable PNG or JPEG image", t->logo);
        return NULL;
    }
    HPDF_Image img = png ? fo_pdf_load_png(c, t->logo) : HPDF_LoadJpegImageFromFile(c->pdf, t->logo);
    if (!img) fo_pdf_fail(c, FO_ERR_INPUT, "theme logo %s: cannot be embedded", t->logo);
    return img;
}

/* Draws the logo on page p (its box set). */
static void logo_draw(fo_pdf *c, HPDF_Page p, HPDF_Image img)
{
    const fo_theme *t = c->t;
    double h = t->page.margin_top * 0.5;
    if (h > 28) h = 28;
    double w = h * t->logo_width / t->logo_height;
    if (w > c->width / 3) { h *= c->width / 3 / w; w = c->width / 3; }
    double y = c->top + (t->page.margin_top - h) / 2;
    HPDF_Page_DrawImage(p, img, (HPDF_REAL)(c->right - w), (HPDF_REAL)y, (HPDF_REAL)w, (HPDF_REAL)h);
}

/* Logo, header and footer of every page: on the page itself, or for a
 * page already written in its form (stream.c). */
static void header_footer(fo_pdf *c)
{
    const fo_theme *t = c->t;
    HPDF_Image img = logo_load(c);
    fo_pdf_font *f = c->st == FO_OK ? fo_pdf_face(c, &t->body, FO_PDF_REGULAR) : NULL;
    double size = t->body_size * 0.8;
    char buf[1024];
    HPDF_Page saved = c->page;
    for (size_t i = 0; i < c->npages && c->st == FO_OK; i++) {
        bool land = c->pinfo[i].landscape;
        set_box(c, land);
        HPDF_Page form = fo_pdf_form_begin(c, i);
        c->page = form ? form : c->pages[i];
        if (img) logo_draw(c, c->page, img);
        for (int which = 0; which < 2 && f; which++) {
            const char *tpl = which ? t->footer : t->header;
            if (!tpl[0]) continue;
            expand(c, tpl, i, buf, sizeof buf);
            size_t len = strlen(buf);
            double w = fo_pdf_text_width(c, f, size, buf, len);
            double x = c->left + (c->width - w) / 2;
            double y = which ? c->bottom - t->page.margin_bottom * 0.55 : c->top + t->page.margin_top * 0.45;
            fo_pdf_text_draw(c, f, size, t->muted, x, y, buf, len);
        }
        if (form)
            fo_pdf_form_end(c, i, land ? t->page.height : t->page.width,
                            land ? t->page.width : t->page.height);
    }
    c->page = saved;
    set_box(c, false);
}

static void set_info(fo_pdf *c)
{
    const fo_doc *doc = c->doc;
    time_t tt = (time_t)doc->epoch;
    struct tm tm;
    gmtime_r(&tt, &tm);
    HPDF_Date date = {tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                      tm.tm_min, tm.tm_sec, 'Z', 0, 0};
    HPDF_SetInfoAttr(c->pdf, HPDF_INFO_PRODUCER, "folio " FOLIO_VERSION);
    HPDF_SetInfoAttr(c->pdf, HPDF_INFO_CREATOR, "folio");
    if (doc->title) HPDF_SetInfoAttr(c->pdf, HPDF_INFO_TITLE, doc->title);
    if (doc->author) HPDF_SetInfoAttr(c->pdf, HPDF_INFO_AUTHOR, doc->author);
    if (doc->subtitle) HPDF_SetInfoAttr(c->pdf, HPDF_INFO_SUBJECT, doc->subtitle);
    {   /* the catalog's /Lang (PDF 1.4, 14.9.2): screen readers, text search; English
         * by default, as Word's and the slides' runs say */
        HPDF_String s = HPDF_String_New(c->pdf->mmgr, doc->lang ? doc->lang : "en-US", NULL);
        if (s) HPDF_Dict_Add(c->pdf->catalog, "Lang", s);
    }
    if (doc->epoch == FO_NO_EPOCH) return; /* no date given: none made up */
    HPDF_SetInfoDateAttr(c->pdf, HPDF_INFO_CREATION_DATE, date);
    HPDF_SetInfoDateAttr(c->pdf, HPDF_INFO_MOD_DATE, date);
}

static void render_block(fo_pdf *c, const fo_block *b)
{
    switch (b->kind) {
    case FO_BLOCK_HEADING: fo_pdf_heading(c, b); break;
    case FO_BLOCK_PARAGRAPH: fo_pdf_paragraph(c, b); break;
    case FO_BLOCK_LIST: fo_pdf_list(c, b); break;
    case FO_BLOCK_METRICS: fo_pdf_metrics(c, b); break;
    case FO_BLOCK_TABLE: fo_pdf_table(c, b); break;
    case FO_BLOCK_CHART: fo_pdf_chart(c, b); break;
    case FO_BLOCK_IMAGE: fo_pdf_image(c, b); break;
    case FO_BLOCK_CODE: fo_pdf_code(c, b); break;
    case FO_BLOCK_PAGE_BREAK: if (!c->fresh) fo_pdf_new_page(c); break;
    case FO_BLOCK_TOC: fo_pdf_toc_reserve(c, b); break;
    }
}

fo_status fo_pdf_render(const fo_doc *doc, const char *dest, fo_outset *out,
                        const fo_render_opts *opts, fo_diags *d)
{
    const char *tmp = fo_outset_add(out, dest, "pdf", d);
    if (!tmp) return FO_ERR_IO;
    fo_pdf ctx, *c = &ctx;
    memset(c, 0, sizeof *c);
    c->doc = doc;
    c->t = &doc->theme;
    c->d = d;
    c->max_bytes = fo_outset_max_bytes(out);
    c->path = tmp;
    for (size_t i = 0; i < sizeof fallback_files / sizeof *fallback_files; i++)
        if (access(fallback_files[i], R_OK) == 0 && c->nfallbacks < FO_PDF_MAX_FALLBACKS)
            c->fallbacks[c->nfallbacks++] = fallback_files[i];
    set_box(c, false);

    c->pdf = HPDF_New(hpdf_error, c);
    if (!c->pdf) return FO_ERR_NOMEM;
    HPDF_SetCompressionMode(c->pdf, HPDF_COMP_ALL);
    HPDF_UseUTFEncodings(c->pdf);
    HPDF_SetCurrentEncoder(c->pdf, "UTF-8");
    set_info(c);
    fo_pdf_xmp(c, opts);

    fo_pdf_new_page(c);
    fo_pdf_title_block(c);
    for (size_t i = 0; i < doc->nblocks && c->st == FO_OK; i++) {
        c->blk = &doc->blocks[i];
        if (c->blk->kind != FO_BLOCK_TABLE) /* a wide table's landscape pages end with it */
            fo_pdf_orient(c, turned(c, i));
        render_block(c, c->blk);
    }
    c->blk = NULL; /* what follows is the document's, not a block's */
    set_box(c, false);
    if (c->st == FO_OK) fo_pdf_toc_fill(c);
    if (c->st == FO_OK) header_footer(c);
    if (c->st == FO_OK) build_outline(c);
    for (size_t i = 0; i < c->nfonts && c->st == FO_OK; i++) {
        fo_pdf_subset(c, c->fonts[i]);
        fo_pdf_glyphs_finish(c, c->fonts[i]);
        fix_to_unicode(c, c->fonts[i]);
    }
    if (c->st == FO_OK && !fo_pdf_save(c, tmp) && c->st == FO_OK)
        fo_pdf_fail(c, FO_ERR_IO, "%s: cannot write the PDF", dest);

    fo_status st = c->st;
    fo_pdf_stream_free(c);
    HPDF_Free(c->pdf);
    fo_pdf_squeezer_free(c);
    for (size_t i = 0; i < c->nfonts; i++) {
        fo_pdf_gmap_free(c->fonts[i]);
        fo_free(c->fonts[i]->has);
        fo_free(c->fonts[i]->used);
        fo_free(c->fonts[i]->remap);
        fo_free(c->fonts[i]);
    }
    for (size_t i = 0; i < c->nfallbacks; i++) fo_free(c->fallback_has[i]);
    for (size_t i = 0; i < c->nmarks; i++) fo_free(c->marks[i].text);
    fo_free(c->marks);
    fo_free(c->pages);
    fo_free(c->pinfo);
    fo_pdf_widths_free(c);
    fo_pdf_table_forget(c);
    fo_pdf_emoji_free(c);
    fo_free(c->marked);
    fo_free(c->toc);
    return st;
}
