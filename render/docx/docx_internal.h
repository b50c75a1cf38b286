/* docx_internal.h — private interface between the .docx modules: one module
 * per part (document.c -> word/document.xml, docx.c -> the package, styles,
 * numbering, settings, footer/header) and the body writers it uses (runs, table, picture).
 *
 * Every writer appends to ctx->x (the document.xml writer) and records the
 * first non-XML failure in ctx->err; XML failures stay sticky in ctx->x. The
 * package (ctx->pkg) is the only thing that knows the archive. */
#ifndef FO_DOCX_INTERNAL_H
#define FO_DOCX_INTERNAL_H

#include "render/core/model.h"
#include "render/ooxml/package.h"

#define FO_DOCX_DOCUMENT "word/document.xml"

#define FO_NS_W "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
#define FO_NS_WP "http://schemas.openxmlformats.org/drawingml/2006/wordprocessingDrawing"

#define FO_CT_DOCX_DOCUMENT \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"
#define FO_CT_DOCX_STYLES \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"
#define FO_CT_DOCX_NUMBERING \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.numbering+xml"
#define FO_CT_DOCX_SETTINGS \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.settings+xml"
#define FO_CT_DOCX_FOOTER \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.footer+xml"
#define FO_CT_DOCX_HEADER \
    "application/vnd.openxmlformats-officedocument.wordprocessingml.header+xml"

#define FO_REL_DOCX_STYLES "http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles"
#define FO_REL_DOCX_NUMBERING \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/numbering"
#define FO_REL_DOCX_SETTINGS \
    "http://schemas.openxmlformats.org/officeDocument/2006/relationships/settings"
#define FO_REL_DOCX_FOOTER "http://schemas.openxmlformats.org/officeDocument/2006/relationships/footer"
#define FO_REL_DOCX_HEADER "http://schemas.openxmlformats.org/officeDocument/2006/relationships/header"

/* numbering.xml instances: 1 = bullets, 2 = numbers; 3.. = restarted numbers */
enum { FO_DOCX_NUM_BULLET = 1, FO_DOCX_NUM_DECIMAL = 2 };

typedef struct fo_docx_links fo_docx_links;
typedef struct fo_docx_tpl fo_docx_tpl;

typedef struct {
    const fo_doc *doc;
    const fo_theme *t;
    fo_pkg *pkg;
    fo_xml *x;              /* word/document.xml */
    fo_diags *d;
    fo_status err;          /* first failure outside the XML writer */
    fo_docx_links *links;   /* URL -> relationship id */
    unsigned nnums;         /* w:num instances used (>= 2) */
    unsigned pic_id;        /* last wp:docPr id */
    unsigned nmedia;        /* word/media/imageN.* */
    unsigned ncharts;       /* word/charts/chartN.xml */
    unsigned ntables, nfigures; /* caption numbers */
    unsigned bookmark;      /* last w:bookmarkStart id */
    long text_width;        /* twips between the margins (of a turned page when landscape) */
    bool landscape;         /* the section being written is turned (a wide table's) */
    bool body_empty;        /* nothing in the body yet: a turn needs no section break */
    bool keep_cells;        /* table.c: cell paragraphs keep with the next row */
    int run_sz;             /* table.c: half-points for runs of a shrunk wide table, 0 = style's */
    long run_color;         /* colour of runs from a number format ([Red]): 0xRRGGBB + 1; 0 = style's */
    char footer_rid[16], header_rid[16];
    const char *opts_template; /* --template path when it is a .docx */
    fo_docx_tpl *tpl;       /* the loaded template, or NULL */
    bool template_hdrftr;   /* the template's headers/footers are used */
} fo_docx_ctx;

/* Records a failure (first one wins) with a diagnostic at block b (may be NULL). */
void fo_docx_fail(fo_docx_ctx *c, const fo_block *b, fo_status st, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static inline bool fo_docx_ok(const fo_docx_ctx *c)
{
    return c->err == FO_OK && fo_xml_status(c->x) == FO_OK;
}

/* ---- runs.c: text runs ------------------------------------------------------- */
fo_docx_links *fo_docx_links_new(void);
void fo_docx_links_free(fo_docx_links *l);
/* Relationship id of an external hyperlink to url (one per distinct URL). */
const char *fo_docx_link_rid(fo_docx_ctx *c, const char *url);
/* One w:r: text (n bytes) with \n as w:br and \t as w:tab; rstyle (character
 * style id) and bold/italic may be NULL/false. */
void fo_docx_run(fo_docx_ctx *c, const char *text, size_t n, const char *rstyle,
                 bool bold, bool italic);
/* The runs of inline markup src (bold, italic, code, real hyperlinks). */
void fo_docx_markup(fo_docx_ctx *c, const char *src);
/* <w:bidi/> when text is mainly right to left (its first strong character):
 * Word lays the paragraph out from the right. Goes in w:pPr after w:numPr,
 * before w:spacing, w:ind and w:jc (schema order). */
void fo_docx_bidi(fo_docx_ctx *c, const char *text);
/* A field: begin, instruction, separate, cached result text, end. */
void fo_docx_field(fo_docx_ctx *c, const char *instr, const char *result);

/* ---- document.c: word/document.xml -------------------------------------------- */
void fo_docx_document_write(fo_docx_ctx *c);
/* <w:p><w:pPr><w:pStyle w:val=style/>, <w:keepNext/> when keep_next,
 * </w:pPr>: a styled paragraph, left open for its runs. */
void fo_docx_para_style(fo_docx_ctx *c, const char *style, bool keep_next);
/* Twips between the margins (the template's page when it gives one). */
long fo_docx_text_width(const fo_docx_ctx *c);
/* Twips between the margins of the theme's page turned on its side, or 0
 * with a template (whose page setup is copied, never turned). */
long fo_docx_landscape_width(const fo_docx_ctx *c);
/* Turns the pages from here on (a wide table's section) or back: a section
 * break paragraph ends the section so far, in its own orientation; the
 * body's last w:sectPr takes the orientation current at the end (an empty
 * body turns without a break). Sets c->text_width. No-op when nothing
 * changes or with a template. */
void fo_docx_orient(fo_docx_ctx *c, bool landscape);

/* ---- table.c ------------------------------------------------------------------ */
void fo_docx_table_write(fo_docx_ctx *c, const fo_block *b);
/* True when table b gets a landscape section (render/core/table.h): the
 * headings right before it go in that section. Reports nothing. */
bool fo_docx_table_turns(fo_docx_ctx *c, const fo_block *b);
void fo_docx_metrics_write(fo_docx_ctx *c, const fo_block *b);
/* Caption paragraph "Table N: text" / "Figure N: text" with a SEQ field. */
void fo_docx_caption(fo_docx_ctx *c, const char *label, unsigned n, const char *markup);

/* ---- picture.c ----------------------------------------------------------------- */
void fo_docx_chart_write(fo_docx_ctx *c, const fo_block *b);
void fo_docx_image_write(fo_docx_ctx *c, const fo_block *b);
/* The theme's logo as a run with an inline picture (alt text "logo"), 1.5 cm
 * high, written to x; its media part is related from `part` (the header).
 * An unreadable logo is FO_ERR_INPUT naming its path. */
void fo_docx_logo_run(fo_docx_ctx *c, fo_xml *x, const char *part);

/* ---- docx.c: the other parts ----------------------------------------------- */
void fo_docx_styles_add(fo_docx_ctx *c);
void fo_docx_numbering_add(fo_docx_ctx *c);
void fo_docx_settings_add(fo_docx_ctx *c, bool update_fields);
/* Footer (and header) from the theme's text; sets c->footer_rid/header_rid.
 * A theme logo goes at the right of the header (text left, logo at a right
 * tab), with or without header text. A template's headers win: no logo. */
void fo_docx_header_footer_add(fo_docx_ctx *c);

/* ---- template.c: --template FILE.docx ------------------------------------------ */
/* Reads the template (FO_ERR_INPUT naming it when it is not a Word
 * document); sets c->tpl, copies its headers/footers into the package and
 * relates them from word/document.xml. */
fo_status fo_docx_tpl_load(fo_docx_ctx *c, const char *path);
void fo_docx_tpl_free(fo_docx_tpl *t);
/* Text width (twips) of the template's page, 0 when it gives none. */
long fo_docx_tpl_text_width(const fo_docx_tpl *t);
/* Writes the template's sectPr; false when there is none (folio's own). */
bool fo_docx_tpl_section(fo_docx_ctx *c);
/* Ids folio's numbering starts after (0 without a template numbering). */
unsigned fo_docx_tpl_num_base(const fo_docx_tpl *t);
unsigned fo_docx_tpl_abs_base(const fo_docx_tpl *t);
bool fo_docx_tpl_has_numbering(const fo_docx_tpl *t);
/* Adds word/theme/theme1.xml from the template; false when it has none. */
bool fo_docx_tpl_theme(fo_docx_ctx *c);
/* Adds word/styles.xml / numbering.xml: the template's merged with folio's
 * (folio's complete part given as text). */
void fo_docx_tpl_styles(fo_docx_ctx *c, const char *folio, size_t len);
void fo_docx_tpl_numbering(fo_docx_ctx *c, const char *folio, size_t len);

#endif
