/* pdf_int.h — private to render/pdf: the render context its files share.
 *
 * The PDF writer lays the document out top to bottom in one pass: a cursor
 * (y, in PDF points, origin bottom-left) walks down the content box of the
 * current page and a new page starts when a block does not fit. Text goes
 * through libharu's UTF-8 encoder into embedded TrueType (CID) fonts; a
 * character the theme font lacks is drawn with a fallback font that has it.
 * Text that needs shaping (render/shape.h) is drawn as the shaper's glyphs
 * by id (shaped.c, glyphs.c).
 *
 * Errors are sticky (cairo's way): the first one is kept in ctx->st and
 * every later drawing call is a no-op; fo_pdf_render checks once at the end. */
#ifndef FO_PDF_INT_H
#define FO_PDF_INT_H

#include <hpdf.h>

#include "render/core/markup.h"
#include "render/core/text.h"
#include "render/core/model.h"
#include "render/core/numfmt.h"
#include "render/core/shape.h"

/* Font faces of a family. */
enum { FO_PDF_REGULAR = 0, FO_PDF_BOLD = 1, FO_PDF_ITALIC = 2, FO_PDF_BOLD_ITALIC = 3 };

/* One loaded TrueType file. Widths of U+0000..U+07FF are cached in
 * 1/1000 em (-1 = not looked up yet); others are asked from libharu. */
#define FO_PDF_WCACHE 0x800
struct fo_pdf_gmap;           /* glyphs.c: codes of shaped glyphs */
typedef struct {
    char path[256];
    HPDF_Font font;           /* NULL until first drawn (fo_pdf_set_font): a font
                               * only measured or asked for a glyph (a fallback
                               * tried) is not embedded */
    HPDF_FontDef def;         /* NULL for c->outlines */
    struct fo_pdf_gmap *gmap; /* NULL until a shaped glyph is drawn with it */
    uint8_t *has;             /* 2 bits per BMP code point: looked up, has a glyph;
                               * lazily (libharu's cmap lookup is a linear scan) */
    uint8_t ascii;            /* has every printable ASCII character: 0 not yet
                               * known, 1 yes, 2 no (fo_pdf_cover) */
    uint8_t *used;            /* 1 bit per BMP code: shown (glyphs.c) */
    uint32_t used_top;        /* one past the highest code marked in used (0: none) */
    uint16_t *remap;          /* subset.c: glyph id -> id in the embedded subset */
    float ascent, descent;   /* 1/1000 em; descent is negative */
    float w[FO_PDF_WCACHE];
} fo_pdf_font;

#define FO_PDF_MAX_FONTS 24

/* A heading, remembered for the outline and the table of contents. */
typedef struct {
    char *text;              /* owned (fo_malloc) */
    int level;
    size_t page;             /* 0-based page index */
    double y;                /* top of the heading on that page */
} fo_pdf_mark;

/* Space reserved for a table of contents, filled in at the end. */
typedef struct {
    size_t page;
    double y;                /* baseline of the first entry on that page */
} fo_pdf_tocslot;

/* What the end of the render needs to know of a page it may no longer hold. */
typedef struct {
    uint32_t form; /* object number of its header/footer form XObject
                              * (stream.c), 0: they are drawn on the page itself */
    bool landscape;
    bool written; /* written to the file (stream.c): libharu keeps only
                              * a bare dictionary header of it, which stream.c frees */
} fo_pdf_pinfo;

typedef struct {
    const fo_doc *doc;
    const fo_theme *t;
    fo_diags *d;
    fo_status st;            /* sticky: first error */
    const fo_block *blk;     /* block being drawn (NULL: none), locates failures */
    const char *loading;     /* image file being loaded, for error messages */
    bool probing;            /* loading a font: libharu errors are not fatal */
    bool probe_failed;
    HPDF_Doc pdf;

    fo_pdf_font *fonts[FO_PDF_MAX_FONTS];
    size_t nfonts;
#define FO_PDF_MAX_FALLBACKS 6
    const char *fallbacks[FO_PDF_MAX_FALLBACKS]; /* files tried for a glyph the font lacks */
    size_t nfallbacks;
    fo_pdf_font *fallback_fonts[FO_PDF_MAX_FALLBACKS]; /* loaded on first need */
    bool fallback_tried[FO_PDF_MAX_FALLBACKS];
    uint8_t *fallback_has[FO_PDF_MAX_FALLBACKS]; /* before it is loaded: its cmap's
                                                  * answers, as fo_pdf_font's has */
    /* Stands for characters outside the BMP, which libharu cannot show:
       font NULL; they are drawn as glyph outlines (fo_pdf_show). */
    fo_pdf_font outlines;

    HPDF_Page page;          /* current page, NULL before the first */
    HPDF_Page *pages;        /* every page, in order */
    size_t npages, pages_cap;
    double left, right, top, bottom, width; /* content box, pt */
    double y;                /* cursor: top of the free space on the page */
    bool fresh;              /* nothing drawn on the current page yet */
    bool landscape;          /* pages from here on are landscape (a wide table's) */

    fo_pdf_mark *marks;      /* headings in order */
    size_t nmarks, marks_cap;
    HPDF_Outline outline[7]; /* last outline item per level (1..6) */
    fo_pdf_tocslot *toc;     /* one slot per TOC entry, in order */
    size_t ntoc, toc_cap;
    size_t toc_first_mark;   /* marks[] index of the first TOC entry */

    HPDF_ExtGState alpha_gs[16]; /* by alpha * 15, lazily */
    struct fo_pdf_wcache *widths; /* shaped.c: widths of shaped words, lazily */
    fo_shaped *shaped;       /* shaped.c: the glyphs of the line being drawn */
    size_t shaped_cap;
    struct fo_pdf_emoji *emoji; /* emoji.c: one image per distinct emoji drawn */
    size_t nemoji, emoji_cap;
    char *marked;            /* glyphs.c: fo_pdf_mark_codes's last rewritten text */
    uint64_t max_bytes;      /* the output ceiling (fo_outset_max_bytes) */
    const char *path;        /* the file the PDF is written to (fo_outset_add's) */
    struct libdeflate_compressor *squeezer; /* deflate.c: finished pages, lazily */
    uint64_t squeezed;       /* compressed bytes of the pages' contents so far */
    size_t pages_squeezed;   /* pages whose contents were compressed when finished */
    size_t expect_pages;     /* table.c: the pages a table's remaining rows reach at
                              * the rate so far (0: no estimate) */
    fo_pdf_pinfo *pinfo;     /* per page, beside pages[] (same capacity) */
    struct fo_pdf_stream *stream;     /* stream.c: the pages written so far (NULL: none) */
    struct fo_pdf_measured *measured; /* table.c: the last table's widths, which
                              * fo_pdf_table_turns measured for it (NULL: none) */
} fo_pdf;

/* ---- pdf.c: document, pages, fonts ------------------------------------- */
/* libharu keeps every page in one /Kids array and fails at its 32,767-entry
 * limit with an opaque error: stop before, with a message. */
#define FO_PDF_MAX_PAGES 30000
/* Records the first error (later ones only add diagnostics), located at
 * the block being drawn (fo_fail_at). */
void fo_pdf_fail(fo_pdf *c, fo_status st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Starts a new page; the cursor goes to its top. */
void fo_pdf_new_page(fo_pdf *c);
/* Turns the pages from here on to landscape or back (the theme's page on
 * its side, same margins), starting a new page unless the current one is
 * still fresh, which is turned instead. The content box follows. */
void fo_pdf_orient(fo_pdf *c, bool landscape);
/* The content width of a portrait or a landscape page. */
double fo_pdf_content_width(const fo_pdf *c, bool landscape);
/* Ensures h pt of room below the cursor, starting a new page if needed
 * (never on a fresh page: a block taller than a page is drawn anyway). */
void fo_pdf_need(fo_pdf *c, double h);
/* The face of a theme font; falls back to regular when the file is missing. */
fo_pdf_font *fo_pdf_face(fo_pdf *c, const fo_font *f, int face);
/* A font by file path (loaded once); NULL when it cannot be loaded. */
fo_pdf_font *fo_pdf_font_load(fo_pdf *c, const char *path);
/* The font to draw code point cp with: f when it has the glyph, else the
 * first fallback that has it, else f (the reader shows .notdef). */
fo_pdf_font *fo_pdf_cover(fo_pdf *c, fo_pdf_font *f, uint32_t cp);
/* Whether f (a font libharu loaded) has a glyph for cp, a BMP code point. */
bool fo_pdf_font_has(fo_pdf_font *f, uint32_t cp);
/* cmap.c: makes def's character map a table indexed by code point (same
 * glyphs), so libharu's lookups are one read; call before HPDF_GetFont. */
void fo_pdf_flat_cmap(HPDF_FontDef def);
/* HPDF_LoadTTFontFromFile (a collection: HPDF_LoadTTFontFromFile2, font 0)
 * with embedding, reading the file through a read-only mapping
 * (fontfile.c); the font's name, or NULL as libharu's call gives it. A font
 * libharu's loader would fault on (fo_pdf_sfnt_problem) is not handed to
 * it: NULL, and *problem says what is wrong (else *problem = NULL). */
const char *fo_pdf_load_ttf(HPDF_Doc pdf, const char *path, bool collection, const char **problem);
/* Pages kept as drawn until saving; past them each finished page is
 * written to the file and let go (the documents most make are left byte
 * for byte): a long table's memory stays flat. */
#define FO_PDF_HELD_PAGES 100
/* deflate.c: the current page is finished (fo_pdf_new_page calls it before
 * starting the next). Past FO_PDF_HELD_PAGES its content stream is
 * compressed now and, when fo_pdf_stream_ready, closed and written out
 * with the page (stream.c); FO_ERR_CEILING is recorded once the compressed
 * contents pass c->max_bytes. */
void fo_pdf_page_done(fo_pdf *c);
/* Marks d's stream as the same bytes in every PDF (nothing of a request):
 * fo_pdf_save compresses it as any other, and the first one's compressed
 * bytes are kept for the process and reused for the same bytes. */
void fo_pdf_deflate_constant(HPDF_Dict d);
/* Frees fo_pdf_page_done's compressor (none: nothing). */
void fo_pdf_squeezer_free(fo_pdf *c);
/* The deflated (zlib) bytes of memory stream s, fo_malloc'd in *out (the
 * caller frees): their count, 0 on failure (recorded: out of memory). */
size_t fo_pdf_deflate(fo_pdf *c, HPDF_Stream s, unsigned char **out);
/* HPDF_SaveToFile, with the streams libharu would deflate compressed by
 * libdeflate instead; once pages were written as they were finished
 * (stream.c), the rest of the document after them. False when the file
 * could not be written. */
bool fo_pdf_save(fo_pdf *c, const char *path);

/* ---- stream.c: long documents written page by page --------------------- */
/* A page past FO_PDF_HELD_PAGES starts with a saved graphics state (q),
 * so that when it is finished it can be closed (Q) and its header, footer
 * and logo, known only once the page count is, drawn later in a form
 * XObject that its contents invoke (fo_pdf_form_begin). */
/* Whether the current page can be written now: it opened a graphics state
 * at depth 1 and is outside any text or path object, it holds no table of
 * contents slot (filled at the end), its contents are one memory stream. */
bool fo_pdf_stream_ready(fo_pdf *c);
/* Closes the current page for writing: restores the state saved at its
 * start and invokes its header/footer form when the theme has any (an
 * object number reserved now, the form written by fo_pdf_form_end). */
void fo_pdf_stream_close(fo_pdf *c);
/* Writes the current page (closed, contents compressed) to path, the file
 * opened by the first page written, with its contents and annotations;
 * frees them and leaves libharu a bare page object that outline and links
 * can still point at. Failures are recorded. */
void fo_pdf_stream_page(fo_pdf *c, const char *path);
/* The page to draw page i's header, footer and logo on: NULL when that is
 * the page itself, else a blank page whose contents become i's form. */
HPDF_Page fo_pdf_form_begin(fo_pdf *c, size_t i);
/* Writes page i's form from what was drawn since fo_pdf_form_begin, its
 * box w x h pt. */
void fo_pdf_form_end(fo_pdf *c, size_t i, double w, double h);
/* The rest of the document after the pages written, then the cross
 * reference table and the trailer; false when the file could not be
 * written. */
bool fo_pdf_stream_finish(fo_pdf *c);
/* Closes the file and frees; before HPDF_Free. Also drops the graphics
 * states a page not written still has saved (a render stopped midway),
 * which HPDF_Free would leak; with no stream, only that. */
void fo_pdf_stream_free(fo_pdf *c);
/* xmp.c: the catalog's /Metadata stream, an XMP packet with the provenance
 * (render/core/prov.h). A failure is recorded with fo_pdf_fail. */
void fo_pdf_xmp(fo_pdf *c, const fo_render_opts *opts);
/* subset.c: before saving, f's embedded program written by folio: the
 * glyphs f shows and their components, renumbered from 0; its descriptor
 * made with it as /FontFile2. Left to libharu when the font's tables
 * cannot be read. Call before fo_pdf_glyphs_finish. */
void fo_pdf_subset(fo_pdf *c, fo_pdf_font *f);
/* gid's number in f's subset (gid itself before fo_pdf_subset, 0 for a
 * glyph not kept). */
uint16_t fo_pdf_subset_gid(const fo_pdf_font *f, uint16_t gid);
/* sfnt.c: what is wrong with the font file data[0..size) in the values
 * libharu trusts (unitsPerEm, metrics counts, the glyphs its character map
 * names), as "<table> ..." text; NULL when they are sound. */
const char *fo_pdf_sfnt_problem(const unsigned char *data, size_t size);
/* closure.c: flags the components of every composite glyph font f shows
 * (unsigned, nested), so libharu's subset embeds them; call before saving. */
void fo_pdf_close_glyphs(fo_pdf *c, fo_pdf_font *f);
/* Advance width of one code point, 1/1000 em. */
double fo_pdf_glyph_width(fo_pdf_font *f, uint32_t cp);
/* Fill/stroke colour from 0xRRGGBB; nothing is written when the page's
 * graphics state already has it (libharu tracks it through q/Q). */
void fo_pdf_fill_rgb(HPDF_Page p, fo_rgb c);
void fo_pdf_stroke_rgb(HPDF_Page p, fo_rgb c);
/* Font and size on the current page, likewise written only when they
 * change; the font joins the document the first time (HPDF_GetFont). */
void fo_pdf_set_font(fo_pdf *c, fo_pdf_font *f, double size);
/* Big-endian fields of a font file's tables (sfnt.c, subset.c). */
static inline uint32_t fo_pdf_be16(const unsigned char *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t fo_pdf_be32(const unsigned char *p) { return fo_pdf_be16(p) << 16 | fo_pdf_be16(p + 2); }
/* Positions are snapped to 1/4 pt: exact in binary, so libharu writes them
 * short ("302.75", not "302.70999"), which keeps content streams small.
 * Every coordinate reaches the content stream through here, so this is the
 * one guard against non-numbers: libharu prints NaN as garbage (".(-*,(")
 * and a corrupt PDF follows. NaN becomes 0; anything else is held to the
 * +-32767 that PDF readers must accept (libharu's HPDF_LIMIT_MAX_REAL). */
static inline HPDF_REAL fo_pdf_q(double v)
{
    if (!(v == v)) return 0;
    if (v > 32767) v = 32767;
    if (v < -32767) v = -32767;
    return (HPDF_REAL)(__builtin_round(v * 4) / 4);
}
/* Least height block b needs on a page to start well (keep-with-next). */
double fo_pdf_min_height(const fo_pdf *c, const fo_block *b);
/* Remembers a heading at the cursor for outline and TOC. */
void fo_pdf_mark_add(fo_pdf *c, const char *text, int level, double y);

/* ---- flow.c: text ------------------------------------------------------- */
typedef struct {
    const fo_font *family;   /* theme font family */
    double size;             /* pt */
    fo_rgb color;
    int face;                /* FO_PDF_* for runs without markup flags */
} fo_pdf_style;

/* Width in pt of UTF-8 text in font f (with fallbacks) at size. */
double fo_pdf_text_width(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len);
/* Draws one line of plain UTF-8 text with its left end at (x, baseline y). */
/* Shows one single-font piece (from fo_pdf_cover) at x, y in the current fill
 * color: as text, or as filled glyph outlines for c->outlines (emoji), drawn
 * outside the text object, which is then reopened. */
void fo_pdf_show(fo_pdf *c, fo_pdf_font *g, double size, double x, double y, const char *s);

/* ---- emoji.c ---------------------------------------------------------------- */
/* Draws the colour picture of glyph gid of the colour font (FO_EMOJI_FONT,
 * as shaping chose it: one glyph for a whole emoji sequence) in its box for
 * advance adv at the pen (x, y): an image XObject, one per distinct glyph
 * of the document (an RGB image with its alpha as soft mask). Outside a
 * text object. False when it cannot. */
bool fo_pdf_emoji_draw(fo_pdf *c, uint32_t gid, double size, double x, double y, double adv);
void fo_pdf_emoji_free(fo_pdf *c);
void fo_pdf_text_draw(fo_pdf *c, fo_pdf_font *f, double size, fo_rgb color,
                      double x, double y, const char *s, size_t len);
/* fo_pdf_text_draw for one line of a paragraph of direction dir (FO_DIR_AUTO:
 * the line's own first strong character): a wrapped right-to-left cell's
 * line that begins with a Latin word is still set right to left. */
void fo_pdf_text_draw_dir(fo_pdf *c, fo_pdf_font *f, double size, fo_rgb color,
                          double x, double y, const char *s, size_t len, fo_dir dir);
/* Lays out runs in a column [x, x + w) from the cursor down, page by page;
 * first_indent is added to x on the first line only (list bullets). */
void fo_pdf_runs(fo_pdf *c, const fo_runs *runs, const fo_pdf_style *st,
                 double x, double w, double line_h);
/* Same for inline markup source (plain text when markup is false). */
void fo_pdf_markup(fo_pdf *c, const char *src, bool markup, const fo_pdf_style *st,
                   double x, double w, double line_h);
/* Number of lines plain text needs in width w (for tables). Fills starts and
 * lens (up to max entries) with each line's byte range. */
size_t fo_pdf_wrap_plain(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                         double w, size_t *starts, size_t *lens, size_t max);

/* ---- shaped.c: text that needs shaping (fo_shape_needed) ------------------ */
/* Advance width in pt of s shaped in font f (with the shaper's fallbacks).
 * Short strings (words) are remembered in c->widths: a report repeats its
 * words, and shaping is most of the cost of measuring. */
double fo_pdf_shaped_width(fo_pdf *c, fo_pdf_font *f, double size, const char *s, size_t len,
                           fo_dir dir);
/* fo_pdf_shaped_width of the piece text[off, off+len) with the text
 * around it as the shaper's context (fo_shape_in: an Arabic word cut by a
 * style change stays joined); the piece's width as drawn by
 * fo_pdf_show_shaped_in. */
double fo_pdf_shaped_width_in(fo_pdf *c, fo_pdf_font *f, double size, const char *text,
                              size_t tlen, size_t off, size_t len, fo_dir dir);
/* Frees the width cache and the shaping buffer. */
void fo_pdf_widths_free(fo_pdf *c);
/* Draws s shaped with its left end at (x, baseline y) in the current fill
 * colour: the shaper's glyphs by id (glyphs.c), or as outlines under
 * invisible text for a font libharu cannot embed; works inside or outside a
 * text object (leaves the mode as it found it). */
void fo_pdf_show_shaped(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                        const char *s, size_t len, fo_dir dir);
/* fo_pdf_show_shaped shaping once and giving the advance width: the text
 * starts at x, or ends there when right (a right-to-left line drawn from
 * its right edge). Returns the width (0 on failure). */
double fo_pdf_show_shaped_at(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                             const char *s, size_t len, fo_dir dir, bool right);
/* fo_pdf_show_shaped_at of the piece text[off, off+len), the text around
 * it the shaper's context (fo_shape_in). */
double fo_pdf_show_shaped_in(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                             const char *text, size_t tlen, size_t off, size_t len, fo_dir dir,
                             bool right);
/* fo_pdf_show_shaped_at of a line of a paragraph, the bidi level of each
 * byte of s given in levels (fo_shape_levels). */
double fo_pdf_show_shaped_levels(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                                 const char *s, size_t len, const uint8_t *levels, bool right);

/* ---- glyphs.c: shaped glyphs by glyph id ---------------------------------- */
typedef struct {
    uint32_t gid;
    double x, dy;            /* pen x from the run's start; dy above the baseline */
    double adv;              /* to the next glyph's x (its own advance for the last) */
    const char *text;        /* the characters it stands for ("" for a cluster's
                              * later glyphs); borrowed for the call */
    unsigned char actual;    /* 1: starts an /ActualText span with text (a cluster of
                              * more glyphs than characters), 2: inside it */
} fo_pdf_glyph;

/* Whether libharu's HPDF_MemCpy and HPDF_MemSet calls reach hpdf_mem.c's
 * (the C library's copy and fill instead of byte loops). */
bool fo_pdf_mem_interposed(void);

/* True when font f can take n more shaped glyphs (codes are per font, at
 * most 2,048, each one the font's cmap lacks). */
bool fo_pdf_glyph_codes_left(fo_pdf_font *f, size_t n);
/* Shows g[0..n) of font f (a TrueType file libharu loaded) at size from
 * (x, baseline y), inside a text object, each glyph where the shaper put it. */
void fo_pdf_glyph_run(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                      const fo_pdf_glyph *g, size_t n);
/* Flags for embedding exactly the glyphs f shows: .notdef, the glyphs of
 * its codes and its shaped glyphs (libharu also flags glyphs only measured). */
void fo_pdf_glyphs_flag(fo_pdf_font *f);
/* Records that text s (UTF-8, as given to libharu) is shown in font f, and
 * returns the text to give libharu: s, or (for a character no font has
 * whose code stands for a shaped glyph of f) a copy with that character
 * under a code of its own, valid until the next call. */
const char *fo_pdf_mark_codes(fo_pdf *c, fo_pdf_font *f, const char *s);
/* Whether code u stands for a shaped glyph of f (not for its character). */
bool fo_pdf_code_taken(const fo_pdf_font *f, uint32_t u);
/* One past the highest such code (0: none). */
uint32_t fo_pdf_taken_top(const fo_pdf_font *f);
/* Before saving: /CIDToGIDMap and /W of f rewritten for the codes it shows
 * (fo_pdf_mark_codes) and its shaped glyphs. libharu wrote both for every
 * character the font's cmap has: for Droid Sans Fallback a 128 KB map of
 * real glyph ids, 50 KB compressed, and thousands of widths, in every PDF
 * that showed one Chinese character. */
void fo_pdf_glyphs_finish(fo_pdf *c, fo_pdf_font *f);
/* HPDF_GetFont(pdf, name, "UTF-8") without libharu's pass over every code
 * point for /W and /CIDToGIDMap, which fo_pdf_glyphs_finish rewrites: the
 * saved file is the same. NULL as HPDF_GetFont. */
HPDF_Font fo_pdf_get_font(HPDF_Doc pdf, const char *name);
/* bfchar entries of f's shaped glyphs for its /ToUnicode CMap. */
void fo_pdf_glyphs_to_unicode(const fo_pdf_font *f, HPDF_Stream s);
void fo_pdf_gmap_free(fo_pdf_font *f);
/* A marked-content span whose text readers take instead of what is drawn
 * inside it (/ActualText, utf8), written into the page's content stream. */
void fo_pdf_actual_open(HPDF_Page p, const char *utf8);
void fo_pdf_actual_close(HPDF_Page p);

void fo_pdf_title_block(fo_pdf *c);
void fo_pdf_heading(fo_pdf *c, const fo_block *b);
void fo_pdf_paragraph(fo_pdf *c, const fo_block *b);
void fo_pdf_list(fo_pdf *c, const fo_block *b);
void fo_pdf_code(fo_pdf *c, const fo_block *b);

/* ---- table.c, blocks.c, chart_backend.c ---------------------------------- */
void fo_pdf_table(fo_pdf *c, const fo_block *b);
/* True when table b goes on landscape pages (render/core/table.h): the
 * headings right before it go with it. Reports nothing. */
bool fo_pdf_table_turns(fo_pdf *c, const fo_block *b);
/* Frees what table.c keeps of the last table it measured (c->measured). */
void fo_pdf_table_forget(fo_pdf *c);
void fo_pdf_metrics(fo_pdf *c, const fo_block *b);
void fo_pdf_image(fo_pdf *c, const fo_block *b);
/* A PNG decoded by cairo (any bit depth), composited on the page background. */
HPDF_Image fo_pdf_load_png(fo_pdf *c, const char *path);
void fo_pdf_toc_reserve(fo_pdf *c, const fo_block *b);
void fo_pdf_toc_fill(fo_pdf *c);
void fo_pdf_chart(fo_pdf *c, const fo_block *b);

/* Glyph outlines drawn onto the page (flow.c): em units scaled by size
   from (x, y); any is set once something was drawn. The path callbacks for
   fo_text_outline and the shaped-glyph outlines take an fo_pdf_pen. */
typedef struct {
    HPDF_Page p;
    double x, y, size;
    bool any;
} fo_pdf_pen;
extern const fo_text_path fo_pdf_pen_path;

#endif
