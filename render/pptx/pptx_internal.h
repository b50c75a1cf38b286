/* pptx_internal.h — private to render/pptx: the deck under construction,
 * slide geometry, measured paragraphs, and the functions the modules share.
 *
 * Modules: pptx.c (entry, fixed parts, presentation.xml, block dispatch),
 * pptx_slide.c (slide lifecycle, title and text frames, vertical flow),
 * pptx_text.c (paragraphs: runs, measuring, splitting, DrawingML text),
 * pptx_template.c (--template decks), pptx_table.c (tables split over
 * slides), pptx_media.c (native charts, images, metrics cards, code boxes).
 *
 * Units: layout works in pt (1 pt = 12700 EMU); XML is written in EMU and in
 * hundredths of a point for font sizes. Invariant: every vertical position
 * handed to a writer lies inside [g.body_y, g.body_bottom]; content that would
 * cross body_bottom moves to a "(cont.)" slide instead — the layout never
 * relies on PowerPoint's autofit. */
#ifndef FO_PPTX_INTERNAL_H
#define FO_PPTX_INTERNAL_H

#include "render/render.h"
#include "render/core/markup.h"
#include "render/ooxml/package.h"

#define FO_PPTX_EMU(pt) ((long long)((pt) * 12700.0 + 0.5))

/* Text sizes (pt) and spacing on slides. */
#define FO_PPTX_TITLE_SZ 28.0
#define FO_PPTX_CTITLE_SZ 40.0
#define FO_PPTX_SUBTITLE_SZ 20.0
#define FO_PPTX_TABLE_SZ 12.0
#define FO_PPTX_CODE_SZ 12.0
#define FO_PPTX_CODE_PAD 10.0     /* a code box's padding */
#define FO_PPTX_LINE 1.2        /* exact line pitch = size * LINE (a:spcPts) */
#define FO_PPTX_SPC_BEF 6.0     /* space before a paragraph (not the first) */
#define FO_PPTX_INS_X 7.2       /* default text insets of a shape */
#define FO_PPTX_INS_Y 3.6
#define FO_PPTX_GAP 12.0        /* between stacked frames on a slide */
#define FO_PPTX_FIT 0.96        /* measured width must stay below FIT * box */

/* Relationship and content types of PresentationML. */
#define FO_PPTX_NS_P "http://schemas.openxmlformats.org/presentationml/2006/main"
#define FO_PPTX_REL_BASE "http://schemas.openxmlformats.org/officeDocument/2006/relationships/"
#define FO_PPTX_CT_BASE "application/vnd.openxmlformats-officedocument.presentationml."

/* Layout numbers = slideLayoutN.xml in templates/pptx. */
enum { FO_PPTX_L_TITLE = 1, FO_PPTX_L_CONTENT = 2, FO_PPTX_L_SECTION = 3, FO_PPTX_L_BLANK = 4 };

typedef struct {
    double w, h;                 /* slide */
    double x, cw;                /* content box: left edge and width */
    double title_y, title_h;     /* title placeholder */
    double body_y, body_bottom;  /* content area */
    double title_cut;            /* taken from the title box's right by the logo */
} fo_pptx_geom;

/* Level-dependent body sizes, margins and bullets. */
double fo_pptx_body_size(int level);
double fo_pptx_mar_left(int level); /* marL of a bulleted level, pt */
#define FO_PPTX_HANG 20.0           /* bullet hangs this far left of marL */

typedef enum {
    FO_PPTX_PARA_BULLET,  /* "•"/"–" by level */
    FO_PPTX_PARA_NUMBER,  /* autonumbered from .number */
    FO_PPTX_PARA_HEADING, /* bold line, no bullet */
    FO_PPTX_PARA_PLAIN,   /* no bullet, no indent (agenda, captions, cards) */
    FO_PPTX_PARA_CODE     /* one line of a code box: mono, no bullet */
} fo_pptx_para_kind;

/* One paragraph with its runs (owned) and style. */
typedef struct {
    fo_pptx_para_kind kind;
    int level;          /* 0-based list level */
    int number;         /* NUMBER: this item's number */
    double size;        /* pt */
    bool bold;          /* all runs bold (headings) */
    fo_rgb color;       /* text color */
    int align;          /* 0 left, 1 centre, 2 right */
    bool cont;          /* continues a split item: no bullet, same indent */
    fo_run *runs;
    size_t nruns;
} fo_pptx_para;

/* A placeholder of a template layout (pptx_template.c): kind, idx, box in pt. */
typedef struct {
    bool present, has_box;
    char type[32];               /* "title", "ctrTitle", "obj", ... */
    char idx[16];                /* "" when the placeholder has none */
    double x, y, w, h;
} fo_pptx_ph;

/* The layout a folio slide kind uses in a template deck. */
typedef struct {
    char target[256];            /* relationship target from ppt/slides/ */
    fo_pptx_ph title, body, sub, num;
} fo_pptx_tlayout;

/* --template FILE.pptx: what the deck borrows (NULL when no template). */
typedef struct {
    char master_target[256];     /* from presentation.xml */
    char theme_target[256];      /* "" when the master has no theme */
    char master_id[24];          /* p:sldMasterId/@id as in the template */
    fo_pptx_tlayout layout[5];   /* by FO_PPTX_L_* */
    fo_theme theme;              /* folio's theme with the template's colors/fonts */
} fo_pptx_tpl;

/* The deck being written. Errors are sticky in err (first wins); every
 * function returns at once when err is set, the caller checks at the end. */
typedef struct {
    fo_pkg *pkg;
    const fo_doc *doc;
    const fo_theme *t;
    const fo_render_opts *opts;
    fo_pptx_tpl *tpl;            /* --template, or NULL */
    fo_diags *d;
    fo_status err;
    fo_pptx_geom g;
    const char **slide_rids;     /* presentation.xml -> slide rel ids (borrowed from pkg) */
    size_t nslides, cap_slides;
    size_t nmedia;
    size_t ncharts;              /* ppt/charts/chartN.xml written */
    const char *section;         /* text of the current level-1 heading, or NULL */
    bool section_used;           /* a slide already carries the section title */
    bool logo_on_title;          /* blocks[0] (an image) was placed on the title slide */
    fo_block logo;               /* the theme's logo as an image block (path "" = none;
                                    never with a template: its master has its branding) */
    double logo_w, logo_h;       /* pt, in the top-right corner of content slides */
    char logo_media[64];         /* its one media part, "../media/imageN.ext" */
    char section_buf[512];       /* section text when taken from a caption */
    /* the slide being written (x != NULL) */
    fo_xml *x;
    char part[48];               /* "ppt/slides/slide7.xml" */
    int next_id;                 /* next shape id */
    int layout;                  /* FO_PPTX_L_* of the open slide */
    bool titled;                 /* the open slide carries a title */
    bool body_ph_used;           /* the body placeholder holds a frame already */
    double y;                    /* top of the free content area */
    bool has_content;            /* something below the title */
    bool chart_next;             /* the slide holds the heading of the chart that follows */
    /* the pending text frame: paragraphs measured, written at flush */
    fo_pptx_para *paras;
    size_t npara, cap_para;
    double frame_y, frame_h;     /* frame top and used height (with insets) */
} fo_pptx;

/* ---- pptx_slide.c ------------------------------------------------------- */
/* Records the first failure, located at block b (NULL: the whole deck);
 * later ones are dropped (fo_fail_at). */
void fo_pptx_fail(fo_pptx *p, fo_status err, const fo_block *b, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Ends the open slide (if any) and opens a new one with the given layout
 * and title (NULL/"": no title shape). */
void fo_pptx_slide_begin(fo_pptx *p, int layout, const char *title);
/* Writes the pending frame and the slide number, adds the part. */
void fo_pptx_slide_end(fo_pptx *p);
/* Title for a continuation: "<section> (cont.)". Returns buf. */
const char *fo_pptx_cont_title(const fo_pptx *p, const char *base, char *buf, size_t cap);
/* Makes sure `need` pt fit below the cursor: opens a content slide when no
 * slide is open, or a "(cont.)" slide when the open one is too full. Returns
 * true when a new slide was opened. Flushes the pending text frame first
 * unless keep_frame. */
bool fo_pptx_need(fo_pptx *p, double need, bool keep_frame);
/* Opens the next slide of the current section ("(cont.)" after its first). */
void fo_pptx_open_flow_slide(fo_pptx *p);
/* For a block that brings its own title (set as p->section, unused yet) and
 * needs `need` pt to start: titles the open slide with it when that slide
 * has no title, no shape yet (text in the pending frame may precede the
 * block) and the room, else ends the open slide; so the block's first slide
 * (this one, or the one the next fo_pptx_need opens) carries the title and
 * later ones "(cont.)". */
void fo_pptx_own_title(fo_pptx *p, double need);
/* Free height below the cursor (after the pending frame). */
double fo_pptx_room(const fo_pptx *p);
/* Adds a paragraph (takes ownership of para's runs) to the text flow:
 * measured, split over "(cont.)" slides when it does not fit. */
void fo_pptx_flow_para(fo_pptx *p, fo_pptx_para *para);
/* Writes the pending text frame as a shape and moves the cursor below it. */
void fo_pptx_frame_flush(fo_pptx *p);
int fo_pptx_shape_id(fo_pptx *p);
/* Starts a shape on the open slide: <outer><nv><p:cNvPr id name="NAME n"
 * [descr]/>, with the next shape id, leaving <nv> open for the caller's
 * cNv*Pr and nvPr. descr (alt text) may be NULL or empty. */
void fo_pptx_shape_begin(fo_pptx *p, const char *outer, const char *nv, const char *name,
                        const char *descr);
/* <p:nvSpPr>/<p:spPr> xfrm helper: writes <a:xfrm> for a box in pt. */
void fo_pptx_xfrm(fo_xml *x, double left, double top, double w, double h);
/* A rectangle's geometry inside p:spPr: its a:xfrm and a:prstGeom "rect". */
void fo_pptx_rect(fo_xml *x, double left, double top, double w, double h);
/* Opens a placeholder shape (p:sp with p:ph type/sz/idx, each omitted when
 * NULL) named name, up to its text body's a:lstStyle; the caller writes the
 * paragraphs and closes p:txBody and p:sp. */
void fo_pptx_ph_begin(fo_pptx *p, const char *name, const char *type, const char *sz, const char *idx);
/* Opens a p:graphicFrame (a chart's or a table's) named name (alt: its
 * description, may be NULL) at the box in pt, through its p:xfrm; the caller
 * writes the a:graphic and closes the frame. */
void fo_pptx_frame_begin(fo_pptx *p, const char *name, const char *alt, double left, double top,
                         double w, double h);
/* <name attr="v"/> with an integer value. */
void fo_pptx_leaf_int(fo_xml *x, const char *name, const char *attr, long long v);
/* Adds media bytes as ppt/media/imageN.ext and relates it from the open
 * slide; returns the rel id ("" after an error). */
const char *fo_pptx_add_media(fo_pptx *p, const void *data, size_t len, bool png);
/* Same without the relationship: writes the target ("../media/imageN.ext",
 * relative to a slide, layout or master) into target. */
void fo_pptx_add_media_part(fo_pptx *p, const void *data, size_t len, bool png,
                            char *target, size_t cap);

/* ---- pptx_text.c --------------------------------------------------------- */
/* Builds a paragraph from inline markup (src may be NULL = empty). */
bool fo_pptx_para_init(fo_pptx_para *para, fo_pptx_para_kind kind, int level,
                       double size, const char *src, bool markup);
void fo_pptx_para_clear(fo_pptx_para *para);
/* Font file used to measure a run of these flags. */
const char *fo_pptx_font_file(const fo_theme *t, unsigned flags, bool bold);
/* Text width available to the paragraph in a frame of width frame_w. */
double fo_pptx_para_width(const fo_pptx_para *para, double frame_w);
/* Lines the paragraph takes at width w; when starts != NULL, starts[k]
 * (k < cap) receives (run << 32 | byte) where line k begins. With limit > 0
 * measuring stops past limit lines and the result is then limit + 1 ("more"):
 * a slide asks only as far as it can hold, so a long paragraph spread over
 * many slides is measured once, not once per slide. */
size_t fo_pptx_para_lines(const fo_theme *t, const fo_pptx_para *para, double w,
                          uint64_t *starts, size_t cap, size_t limit);
double fo_pptx_line_h(double size);
/* Height of nlines lines, plus space before unless first in its frame. */
double fo_pptx_para_height(const fo_pptx_para *para, size_t nlines, bool first);
/* Moves the text from position pos (as from para_lines) on into *tail. */
bool fo_pptx_para_split(fo_pptx_para *para, uint64_t pos, fo_pptx_para *tail);
/* Writes <a:p> for para; links get relationships from p->part. */
void fo_pptx_para_write(fo_pptx *p, const fo_pptx_para *para, bool first);
/* A run's <a:rPr> (sz pt, flags FO_RUN_* and FO_PPTX_RUN_EA_THEME, color,
 * link rel id or NULL). */
#define FO_PPTX_RUN_EA_THEME 0x100u /* a:ea is +mn-ea: the theme's font for the script */
void fo_pptx_rpr(fo_pptx *p, double size, unsigned flags, fo_rgb color, const char *rid);
/* Ends an open a:bodyPr (no autofit), writes the paragraphs of a text body
 * and closes p:txBody and the shape: the common end of every text shape. */
void fo_pptx_text_end(fo_pptx *p, fo_pptx_para *paras, size_t n);
/* One-paragraph text box at a fixed place (labels, captions, card text). */
void fo_pptx_textbox(fo_pptx *p, const char *name, double left, double top, double w,
                     double h, fo_pptx_para *paras, size_t n, int anchor);

/* ---- pptx_template.c ----------------------------------------------------- */
/* Reads the template at path: copies its master, layouts, theme and their
 * pictures into p->pkg, sets p->tpl, p->t (template colors/fonts) and the
 * geometry (slide size, content layout's placeholders). A file that is not a
 * zip, or has no slide master or layouts: FO_ERR_INPUT naming the file. */
fo_status fo_pptx_template_load(fo_pptx *p, const char *path);

/* ---- pptx_table.c / pptx_media.c ------------------------------------------- */
void fo_pptx_table(fo_pptx *p, const fo_block *b);
void fo_pptx_chart(fo_pptx *p, const fo_block *b);
void fo_pptx_image(fo_pptx *p, const fo_block *b);
/* An image placed in a box outside the flow, centred, aspect kept: the
 * title slide's logo. */
void fo_pptx_image_box(fo_pptx *p, const fo_block *b, double left, double top, double w, double h);
/* The theme's logo placed the same way, showing the media part the layouts
 * already hold (p->logo_media) instead of a second copy. */
void fo_pptx_logo_box(fo_pptx *p, double left, double top, double w, double h);
void fo_pptx_metrics(fo_pptx *p, const fo_block *b);
void fo_pptx_code(fo_pptx *p, const fo_block *b);

#endif
