/* pptx_text.c — slide paragraphs: runs from inline markup, measuring with the
 * theme's font files, splitting at a line, and writing DrawingML <a:p>.
 *
 * Measuring mirrors what is written: every paragraph carries its own exact
 * line pitch (a:lnSpc/a:spcPts = size * FO_PPTX_LINE), space before, margins
 * and run fonts, so the height computed here is the height PowerPoint and
 * LibreOffice lay out, whatever the master says. Lines break greedily at
 * spaces (a word split across runs — "**12%**;" — stays one word) and at
 * '\n'; a word wider than the line wraps by width. */
#include <math.h>
#include <string.h>

#include "render/core/words.h"
#include "render/core/policy.h"
#include "render/pptx/pptx_internal.h"
#include "render/core/text.h"
#include "render/core/shape.h"

double fo_pptx_body_size(int level)
{
    return level <= 0 ? 18.0 : level == 1 ? 16.0 : 14.0;
}

double fo_pptx_mar_left(int level)
{
    return 22.0 + 24.0 * (level < 0 ? 0 : level > 8 ? 8 : level);
}

double fo_pptx_line_h(double size) { return size * FO_PPTX_LINE; }

const char *fo_pptx_font_file(const fo_theme *t, unsigned flags, bool bold)
{
    bool b = bold || (flags & FO_RUN_BOLD), i = (flags & FO_RUN_ITALIC) != 0;
    const fo_font *f = (flags & FO_RUN_CODE) ? &t->mono : &t->body;
    if (b && i) return f->bold_italic;
    if (b) return f->bold;
    if (i) return f->italic;
    return f->regular;
}

bool fo_pptx_para_init(fo_pptx_para *para, fo_pptx_para_kind kind, int level,
                       double size, const char *src, bool markup)
{
    memset(para, 0, sizeof *para);
    para->kind = kind;
    para->level = level;
    para->size = size;
    para->number = 1;
    if (!src || !*src) return true;
    if (markup) {
        fo_runs r;
        if (fo_markup_parse(src, &r) != FO_OK) return false;
        para->runs = r.runs;
        para->nruns = r.n;
        return true;
    }
    para->runs = fo_calloc(1, sizeof *para->runs);
    if (!para->runs) return false;
    para->runs[0].text = fo_strdup(src);
    if (!para->runs[0].text) { fo_free(para->runs); para->runs = NULL; return false; }
    para->runs[0].len = strlen(src);
    para->runs[0].flags = kind == FO_PPTX_PARA_CODE ? FO_RUN_CODE : 0;
    para->nruns = 1;
    return true;
}

void fo_pptx_para_clear(fo_pptx_para *para)
{
    if (!para) return;
    fo_runs r = {para->runs, para->nruns};
    fo_runs_free(&r);
    para->runs = NULL;
    para->nruns = 0;
}

static double para_indent(const fo_pptx_para *para)
{
    return (para->kind == FO_PPTX_PARA_BULLET || para->kind == FO_PPTX_PARA_NUMBER)
               ? fo_pptx_mar_left(para->level) : 0.0;
}

double fo_pptx_para_width(const fo_pptx_para *para, double frame_w)
{
    return (frame_w - 2 * FO_PPTX_INS_X - para_indent(para)) * FO_PPTX_FIT;
}

/* ---- measuring ------------------------------------------------------------ */

typedef struct {
    const fo_theme *t;
    const fo_pptx_para *para;
    double max;
    size_t nlines;
    double line_w;       /* width committed on the current line (with spaces) */
    bool line_has;       /* a word is on the current line */
    double word_w;       /* the word being gathered */
    uint64_t word_pos;   /* where it starts */
    bool word_open;
    uint64_t *starts;
    size_t cap;
} wrap_state;

static void new_line(wrap_state *s, uint64_t pos)
{
    if (s->starts && s->nlines < s->cap) s->starts[s->nlines] = pos;
    s->nlines++;
    s->line_w = 0;
    s->line_has = false;
}

/* Puts the gathered word (and sp_w of spaces after it) on the line. */
static void commit_word(wrap_state *s, double sp_w)
{
    if (s->word_open) {
        if (s->line_has && s->line_w + s->word_w > s->max) new_line(s, s->word_pos);
        if (s->word_w > s->max && s->max > 0) {
            /* an over-long word wraps by width; extra lines have no split point */
            double extra = floor(s->word_w / s->max);
            for (size_t k = 0; k < (size_t)extra; k++, s->nlines++)
                if (s->starts && s->nlines < s->cap) s->starts[s->nlines] = UINT64_MAX;
            s->line_w = s->word_w - extra * s->max;
        } else {
            s->line_w += s->word_w;
        }
        s->line_has = true;
    }
    s->line_w += sp_w;
    s->word_w = 0;
    s->word_open = false;
}

size_t fo_pptx_para_lines(const fo_theme *t, const fo_pptx_para *para, double w,
                          uint64_t *starts, size_t cap, size_t limit)
{
    wrap_state s = {.t = t, .para = para, .max = w, .starts = starts, .cap = cap};
    new_line(&s, 0);
    /* one space's width, measured once per font: half the calls were for
       the single space between two words (fo_text_width is pure) */
    const char *space_font = NULL;
    double space_w = 0;
    for (size_t r = 0; r < para->nruns; r++) {
        const fo_run *run = &para->runs[r];
        const char *font = fo_pptx_font_file(t, run->flags, para->bold);
        size_t i = 0;
        while (i < run->len) {
            if (limit && s.nlines > limit) return limit + 1;
            char c = run->text[i];
            if (c == '\n') {
                commit_word(&s, 0);
                new_line(&s, (uint64_t)r << 32 | (i + 1));
                i++;
            } else if (c == ' ') {
                size_t j = i;
                while (j < run->len && run->text[j] == ' ') j++;
                if (j - i == 1 && font != space_font) {
                    space_font = font;
                    space_w = fo_text_width(font, para->size, " ", 1);
                }
                commit_word(&s, j - i == 1 ? space_w : fo_text_width(font, para->size, run->text + i, j - i));
                i = j;
            } else {
                size_t j = i;
                while (j < run->len && run->text[j] != ' ' && run->text[j] != '\n') j++;
                if (!s.word_open) {
                    s.word_open = true;
                    s.word_pos = (uint64_t)r << 32 | i;
                }
                s.word_w += fo_text_width(font, para->size, run->text + i, j - i);
                i = j;
            }
        }
    }
    commit_word(&s, 0);
    return limit && s.nlines > limit ? limit + 1 : s.nlines;
}

double fo_pptx_para_height(const fo_pptx_para *para, size_t nlines, bool first)
{
    bool tight = first || para->kind == FO_PPTX_PARA_CODE;
    return (tight ? 0.0 : FO_PPTX_SPC_BEF) + (double)nlines * fo_pptx_line_h(para->size);
}

/* ---- splitting --------------------------------------------------------------- */

bool fo_pptx_para_split(fo_pptx_para *para, uint64_t pos, fo_pptx_para *tail)
{
    size_t r = (size_t)(pos >> 32), b = (size_t)(pos & 0xFFFFFFFFu);
    *tail = *para;
    tail->runs = NULL;
    tail->nruns = 0;
    tail->cont = true;
    if (r >= para->nruns) return true;
    size_t n = para->nruns - r;
    tail->runs = fo_calloc(n, sizeof *tail->runs);
    if (!tail->runs) return false;
    for (size_t k = 0; k < n; k++) {
        const fo_run *src = &para->runs[r + k];
        size_t off = k == 0 ? b : 0;
        fo_run *dst = &tail->runs[k];
        dst->flags = src->flags;
        dst->text = fo_strndup(src->text + off, src->len - off);
        dst->len = src->len - off;
        dst->url = src->url ? fo_strdup(src->url) : NULL;
        tail->nruns = k + 1;
        if (!dst->text || (src->url && !dst->url)) return false;
    }
    /* the head keeps runs [0, r) and the first b bytes of run r */
    for (size_t k = r + (b > 0); k < para->nruns; k++) {
        fo_free(para->runs[k].text);
        fo_free(para->runs[k].url);
    }
    para->nruns = r + (b > 0);
    if (b > 0) {
        fo_run *last = &para->runs[r];
        last->len = b;
        while (last->len > 0 && (last->text[last->len - 1] == ' ' || last->text[last->len - 1] == '\n'))
            last->len--;
        last->text[last->len] = '\0';
    }
    return true;
}

/* ---- writing ----------------------------------------------------------------- */

void fo_pptx_rpr(fo_pptx *p, double size, unsigned flags, fo_rgb color, const char *rid)
{
    fo_xml *x = p->x;
    fo_lang_ooxml lang = fo_lang_for_ooxml(p->doc->lang);
    fo_xml_open(x, "a:rPr", "lang", lang.latin, NULL);
    fo_xml_attr_int(x, "sz", (long long)lround(size * 100));
    if (flags & FO_RUN_BOLD) fo_xml_attr(x, "b", "1");
    if (flags & FO_RUN_ITALIC) fo_xml_attr(x, "i", "1");
    if (rid) fo_xml_attr(x, "u", "sng");
    fo_xml_attr(x, "dirty", "0");
    fo_xml_solid_fill(x, rid ? p->t->link : color);
    if (flags & FO_RUN_CODE) fo_xml_leaf(x, "a:latin", "typeface", p->t->mono.family, NULL);
    /* East Asian and complex-script text in the document language's font */
    if (lang.ea_font)
        fo_xml_leaf(x, "a:ea", "typeface", flags & FO_PPTX_RUN_EA_THEME ? "+mn-ea" : lang.ea_font, NULL);
    if (lang.cs_font) fo_xml_leaf(x, "a:cs", "typeface", lang.cs_font, NULL);
    if (rid) fo_xml_leaf(x, "a:hlinkClick", "r:id", rid, NULL);
    fo_xml_close(x);
}

/* Only links the policy allows become hyperlinks; anything else is text. */
static bool safe_url(const char *u) { return u && fo_link_allowed(u); }

void fo_pptx_para_write(fo_pptx *p, const fo_pptx_para *para, bool first)
{
    fo_xml *x = p->x;
    static const char *const algn[] = {"l", "ctr", "r"};
    bool listed = para->kind == FO_PPTX_PARA_BULLET || para->kind == FO_PPTX_PARA_NUMBER;
    fo_xml_open(x, "a:p", NULL);
    /* CT_TextParagraphProperties: lnSpc, spcBef, spcAft, buClr, buSzPct, buFont, bu* */
    fo_xml_open(x, "a:pPr", NULL);
    fo_xml_attr_int(x, "marL", listed ? FO_PPTX_EMU(fo_pptx_mar_left(para->level)) : 0);
    if (listed) fo_xml_attr_int(x, "lvl", para->level > 8 ? 8 : para->level);
    fo_xml_attr_int(x, "indent", listed && !para->cont ? -FO_PPTX_EMU(FO_PPTX_HANG) : 0);
    /* a paragraph whose first strong character is right to left reads from
       the right: rtl="1" (PowerPoint orders it, bullets on the right) */
    fo_dir dir = FO_DIR_AUTO;
    for (size_t r = 0; r < para->nruns && dir == FO_DIR_AUTO; r++)
        dir = fo_shape_direction(para->runs[r].text, para->runs[r].len);
    bool rtl = dir == FO_DIR_RTL;
    fo_xml_attr(x, "algn", rtl && para->align == 0 ? "r" : algn[para->align > 2 ? 0 : para->align]);
    if (rtl) fo_xml_attr(x, "rtl", "1");
    fo_xml_open(x, "a:lnSpc", NULL);
    fo_pptx_leaf_int(x, "a:spcPts", "val", lround(fo_pptx_line_h(para->size) * 100));
    fo_xml_close(x);
    fo_xml_open(x, "a:spcBef", NULL);
    bool tight = first || para->kind == FO_PPTX_PARA_CODE;
    fo_pptx_leaf_int(x, "a:spcPts", "val", tight ? 0 : lround(FO_PPTX_SPC_BEF * 100));
    fo_xml_close(x);
    if (listed && !para->cont) {
        char hex[7];
        fo_rgb_hex(p->t->accent, hex);
        fo_xml_open(x, "a:buClr", NULL);
        fo_xml_leaf(x, "a:srgbClr", "val", hex, NULL);
        fo_xml_close(x);
    }
    if (para->kind == FO_PPTX_PARA_BULLET && !para->cont) {
        static const char *const chars[] = {"\xE2\x80\xA2", "\xE2\x80\x93", "\xE2\x96\xAA"};
        fo_xml_leaf(x, "a:buFont", "typeface", "Arial", NULL);
        fo_xml_leaf(x, "a:buChar", "char", chars[para->level % 3], NULL);
    } else if (para->kind == FO_PPTX_PARA_NUMBER && !para->cont) {
        fo_xml_leaf(x, "a:buFont", "typeface", "+mj-lt", NULL);
        fo_xml_open(x, "a:buAutoNum", "type", para->level % 2 ? "alphaLcPeriod" : "arabicPeriod",
                    NULL);
        if (para->number > 1) fo_xml_attr_int(x, "startAt", para->number);
        fo_xml_close(x);
    } else {
        fo_xml_leaf(x, "a:buNone", NULL);
    }
    fo_xml_close(x); /* a:pPr */
    /* LibreOffice draws a paragraph's number in the East Asian font of its
       first character when that is East Asian; Droid Sans Fallback has no
       digits and the number went missing ("1." drawn as "."). The first run
       of a numbered paragraph names its East Asian font through the theme
       (fo_pkg_add_theme lists it for the script), which LibreOffice reads
       as its default East Asian font, one with digits. */
    unsigned first_run = para->kind == FO_PPTX_PARA_NUMBER && !para->cont ? FO_PPTX_RUN_EA_THEME : 0;
    for (size_t r = 0; r < para->nruns; r++) {
        const fo_run *run = &para->runs[r];
        unsigned flags = run->flags | (para->bold ? FO_RUN_BOLD : 0);
        const char *rid = NULL;
        if (safe_url(run->url)) rid = fo_pkg_add_rel(p->pkg, p->part, FO_REL_HYPERLINK, run->url, true);
        size_t i = 0;
        while (i < run->len) {
            size_t j = i;
            while (j < run->len && run->text[j] != '\n') j++;
            if (j > i) {
                fo_xml_open(x, "a:r", NULL);
                fo_pptx_rpr(p, para->size, flags | first_run, para->color, rid);
                first_run = 0;
                fo_xml_open(x, "a:t", NULL);
                fo_xml_textn(x, run->text + i, j - i);
                fo_xml_close(x);
                fo_xml_close(x);
            }
            if (j < run->len) { /* '\n': a line break inside the paragraph */
                fo_xml_open(x, "a:br", NULL);
                fo_pptx_rpr(p, para->size, flags, para->color, NULL);
                fo_xml_close(x);
            }
            i = j + 1;
        }
    }
    fo_xml_open(x, "a:endParaRPr", "lang", fo_lang_tag(p->doc->lang), NULL);
    fo_xml_attr_int(x, "sz", lround(para->size * 100));
    fo_xml_attr(x, "dirty", "0");
    fo_xml_close(x);
    fo_xml_close(x); /* a:p */
}

void fo_pptx_textbox(fo_pptx *p, const char *name, double left, double top, double w,
                     double h, fo_pptx_para *paras, size_t n, int anchor)
{
    static const char *const anchors[] = {"t", "ctr", "b"};
    fo_xml *x = p->x;
    fo_pptx_shape_begin(p, "p:sp", "p:nvSpPr", name, NULL);
    fo_xml_leaf(x, "p:cNvSpPr", "txBox", "1", NULL);
    fo_xml_leaf(x, "p:nvPr", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "p:spPr", NULL);
    fo_pptx_rect(x, left, top, w, h);
    fo_xml_leaf(x, "a:noFill", NULL);
    fo_xml_close(x);
    fo_xml_open(x, "p:txBody", NULL);
    fo_xml_open(x, "a:bodyPr", "wrap", "square", "rtlCol", "0",
                "anchor", anchors[anchor > 2 ? 0 : anchor], NULL);
    fo_pptx_text_end(p, paras, n);
}

void fo_pptx_text_end(fo_pptx *p, fo_pptx_para *paras, size_t n)
{
    fo_xml *x = p->x;
    fo_xml_leaf(x, "a:noAutofit", NULL);
    fo_xml_close(x);
    fo_xml_leaf(x, "a:lstStyle", NULL);
    for (size_t i = 0; i < n; i++) fo_pptx_para_write(p, &paras[i], i == 0);
    fo_xml_close(x);
    fo_xml_close(x);
}
