/* summary.c — the Summary sheet: the document's text in block order.
 *
 * Layout: six columns (A..F, ~100 characters) with gridlines hidden, so
 * the sheet reads like a page. Text blocks are merged across A:F and
 * wrapped with an estimated row height; metrics use A (label), B (value in
 * its number format) and C (delta); images and charts are placed at their
 * block's row; tables get a link to their sheet. The sheet is laid out
 * twice: a dry pass finds the row of every heading (for the toc block's
 * links), the second writes. Rows only ever move forward, as constant_memory
 * mode requires.
 *
 * The theme's logo sits at the top right of the title row, over E:F; the
 * title is then merged across A:D and wrapped, so the two never overlap. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/buf.h"
#include "base/utf8.h"
#include "render/core/words.h"
#include "render/core/delta.h"
#include "render/core/markup.h"
#include "render/xlsx/xlsx_internal.h"
#include "render/core/shape.h"

#define NCOLS 6
#define ROW_PX 20.0 /* default row height: 15 pt */
#define LOGO_PX 44.0    /* logo height (~0.46 in) */
#define LOGO_PAD 6.0    /* px between the logo and the title row's edges */
#define LOGO_COL 4      /* the logo's first column (E); the title keeps A..D */
static const double col_width[NCOLS] = {30, 18, 14, 14, 14, 14};

enum { RUN_LINK = 8, RUN_STYLES = 16 };

typedef struct {
    fo_xlsx *x;
    lxw_worksheet *ws;
    bool dry;
    lxw_row_t row;
    lxw_chart *const *charts;
    const fo_block *cur;       /* block being laid out, for messages */
    lxw_row_t *heading_rows;   /* filled by the dry pass, one per heading block */
    size_t nheadings;
    lxw_row_t *breaks;         /* page breaks, 0-terminated */
    size_t nbreaks;
    double page_pt;            /* what a printed page holds, in the sheet's pt */
    double extra_pt;           /* rows so far: their heights beyond ROW_PT */
    lxw_row_t last_set;        /* the row set_height last set, and its extra */
    double last_extra;
    lxw_row_t page_row;        /* the first row of the current printed page */
    double page_extra;         /* extra_pt then */
    lxw_format *run[RUN_STYLES];   /* fonts of inline runs */
    lxw_format *text[7];           /* wrapped text cell, by indent 0..6 */
    lxw_format *rtext[7];          /* the same, read right to left (Arabic, Hebrew) */
    lxw_format *linkfmt[7];        /* link cell, by indent 0..6 */
    lxw_format *title, *subtitle, *meta, *heading[6], *code, *link, *caption;
    lxw_format *metric_label;
    fo_status st;
} summary;

static lxw_format *font_format(summary *s, const fo_font *font, double size, fo_rgb color)
{
    lxw_format *f = workbook_add_format(s->x->wb);
    if (!f) { s->st = FO_ERR_NOMEM; return NULL; }
    format_set_font_name(f, font->family);
    format_set_font_size(f, size);
    format_set_font_color(f, fo_xlsx_color(color));
    format_set_align(f, LXW_ALIGN_VERTICAL_TOP);
    return f;
}

static fo_status make_formats(summary *s)
{
    const fo_theme *th = s->x->th;
    for (unsigned k = 0; k < RUN_STYLES; k++) {
        const fo_font *font = (k & FO_RUN_CODE) ? &th->mono : &th->body;
        lxw_format *f = font_format(s, font, th->body_size, (k & RUN_LINK) ? th->link : th->text);
        if (!f) return s->st;
        if (k & FO_RUN_BOLD) format_set_bold(f);
        if (k & FO_RUN_ITALIC) format_set_italic(f);
        if (k & RUN_LINK) format_set_underline(f, LXW_UNDERLINE_SINGLE);
        s->run[k] = f;
    }
    for (int i = 0; i < 7; i++) {
        if (!(s->text[i] = font_format(s, &th->body, th->body_size, th->text))) return s->st;
        format_set_text_wrap(s->text[i]);
        if (i) format_set_indent(s->text[i], (uint8_t)i);
        if (!(s->rtext[i] = font_format(s, &th->body, th->body_size, th->text))) return s->st;
        format_set_text_wrap(s->rtext[i]);
        if (i) format_set_indent(s->rtext[i], (uint8_t)i);
        format_set_reading_order(s->rtext[i], 2);   /* Excel: right-to-left context */
        if (!(s->linkfmt[i] = font_format(s, &th->body, th->body_size, th->link))) return s->st;
        format_set_underline(s->linkfmt[i], LXW_UNDERLINE_SINGLE);
        if (i) format_set_indent(s->linkfmt[i], (uint8_t)i);
    }
    if (!(s->title = font_format(s, &th->heading, th->title_size, th->heading_color)) ||
        !(s->subtitle = font_format(s, &th->heading, th->heading_size[1], th->muted)) ||
        !(s->meta = font_format(s, &th->body, th->body_size, th->muted)) ||
        !(s->code = font_format(s, &th->mono, th->mono_size, th->text)) ||
        !(s->link = font_format(s, &th->body, th->body_size, th->link)) ||
        !(s->caption = font_format(s, &th->body, th->body_size, th->muted)) ||
        !(s->metric_label = font_format(s, &th->body, th->body_size, th->muted)))
        return s->st;
    format_set_bold(s->title);
    if (th->logo[0]) format_set_text_wrap(s->title); /* merged beside the logo */
    format_set_bg_color(s->code, fo_xlsx_color(th->code_fill));
    format_set_underline(s->link, LXW_UNDERLINE_SINGLE);
    format_set_italic(s->caption);
    for (int i = 0; i < 6; i++) {
        if (!(s->heading[i] = font_format(s, &th->heading, th->heading_size[i], th->heading_color)))
            return s->st;
        format_set_bold(s->heading[i]);
        format_set_align(s->heading[i], LXW_ALIGN_VERTICAL_BOTTOM);
    }
    return FO_OK;
}

/* ---- writing helpers (no-ops in the dry pass) ------------------------------ */

/* Records a failure located at block b (NULL: the workbook), fo_fail_at. */
static void fail(summary *s, const fo_block *b, fo_status st, const char *hint, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static void fail(summary *s, const fo_block *b, fo_status st, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fo_fail_atv(s->x->d, &s->st, s->x->doc, b, st, hint, fmt, ap);
    va_end(ap);
}

static const char *clean(summary *s, fo_buf *b, const char *t)
{
    const char *c = fo_xlsx_clean(b, t ? t : "", t ? strlen(t) : 0, FO_XLSX_CELL);
    if (!c) s->st = FO_ERR_NOMEM;
    return c;
}

#define ROW_PT (ROW_PX * 0.75)

static void set_height(summary *s, double pt)
{
    if (!s->dry) worksheet_set_row(s->ws, s->row, pt, NULL);
    if (s->row == s->last_set && s->row) s->extra_pt -= s->last_extra;   /* set again */
    s->last_set = s->row;
    s->last_extra = pt - ROW_PT;
    s->extra_pt += s->last_extra;
}

/* Starts a printed page at the current row. */
static void new_page(summary *s)
{
    s->page_row = s->row;
    s->page_extra = s->extra_pt;
}

/* Keeps an object rows tall (a chart, a picture) on one printed page: a
 * page break before it when the rest of the current page cannot hold it.
 * Pages that Excel breaks by itself are followed by whole rows. */
static void keep_on_page(summary *s, lxw_row_t rows)
{
    double page = floor(s->page_pt / ROW_PT) * ROW_PT, need = rows * ROW_PT;
    double used = (s->row - s->page_row) * ROW_PT + s->extra_pt - s->page_extra;
    if (!(page > 0)) return;
    while (used > page) used -= page;
    if (used <= 0 || used + need <= page || s->row == 0 || s->nbreaks >= 1023) return; /* Excel: 1,026 at most */
    s->breaks[s->nbreaks++] = s->row;
    new_page(s);
}

/* Refuses (located at the current block) a text Excel would drop. */
static bool fits(summary *s, const char *t, size_t extra)
{
    size_t chars = fo_xlsx_char_count(t, strlen(t)) + extra;
    if (chars <= FO_XLSX_MAX_CELL_CHARS) return true;
    fail(s, s->cur, FO_ERR_INPUT, "split it into several paragraphs or lines",
         "a text of %zu characters exceeds Excel's 32,767-character cell limit", chars);
    return false;
}

static void put_string(summary *s, lxw_col_t col, const char *t, lxw_format *f)
{
    if (s->dry || !fits(s, t, 0)) return; /* libxlsxwriter would drop it silently */
    const char *c = clean(s, &s->x->buf, t);
    if (c) worksheet_write_string(s->ws, s->row, col, c, f);
}

/* Lines a text of display width w needs across the merged columns. */
static double text_lines(const char *plain, double capacity)
{
    double lines = 0;
    const char *p = plain;
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        double w = fo_xlsx_text_width(p, len);
        lines += w > 0 ? ceil(w / capacity) : 1;
        if (!nl) break;
        p = nl + 1;
    }
    return lines < 1 ? 1 : lines;
}

static double merged_chars(int indent)
{
    double w = 0;
    for (int i = 0; i < NCOLS; i++) w += col_width[i];
    /* body text is ~10% narrower than the default font's digits; indent = 3 chars */
    return w * 1.1 - indent * 3.0 - 2;
}

/* Excel links a whole cell, not a run, and a hyperlink over rich text
 * loses its wrapping in LibreOffice: so the links of a text follow it, one
 * row each ("↗ label"), as clickable cells. */
static void put_links(summary *s, const char *src, int indent)
{
    fo_runs runs = {0};
    if (!src || !strchr(src, ']')) return;
    if (fo_markup_parse(src, &runs) != FO_OK) { s->st = FO_ERR_NOMEM; return; }
    for (size_t i = 0; i < runs.n; i++) {
        const fo_run *r = &runs.runs[i];
        if (!r->url || !fo_xlsx_url_allowed(r->url) || /* refused links: their text is above */
            (i > 0 && runs.runs[i - 1].url && strcmp(runs.runs[i - 1].url, r->url) == 0))
            continue;
        s->row++;
        if (s->dry) continue;
        size_t ul = strlen(r->url);
        const char *u = fo_xlsx_clean(&s->x->buf2, r->url, ul, FO_XLSX_PLAIN);
        char *label = fo_malloc(r->len + 8);
        if (!u || !label) { fo_free(label); s->st = FO_ERR_NOMEM; break; }
        memcpy(label, "\xE2\x86\x97 ", 4);
        memcpy(label + 4, r->text, r->len);
        label[r->len + 4] = '\0';
        const char *l = clean(s, &s->x->buf, label);
        lxw_format *f = s->linkfmt[indent > 6 ? 6 : indent];
        bool linked = l && fo_xlsx_url_allowed(u) && ul <= FO_XLSX_MAX_URL_CHARS &&
                      worksheet_write_url_opt(s->ws, s->row, 0, u, f, l, NULL) == LXW_NO_ERROR;
        if (l && !linked) worksheet_write_string(s->ws, s->row, 0, l, s->text[indent > 6 ? 6 : indent]);
        fo_free(label);
    }
    fo_runs_free(&runs);
}

/* True when the k runs of tuples are all in the plain body font. */
static bool plain_runs(const summary *s, const lxw_rich_string_tuple *tuples, size_t k)
{
    for (size_t i = 0; i < k; i++)
        if (tuples[i].format != s->run[0]) return false;
    return k > 0;
}

/* The text of runs tuples[0..k) joined, fo_malloc'd; NULL when out of memory. */
static char *join_runs(const lxw_rich_string_tuple *tuples, size_t k)
{
    fo_buf b = {0};
    for (size_t i = 0; i < k; i++) fo_buf_puts(&b, tuples[i].string);
    char *joined = fo_buf_take(&b, NULL);
    return joined || b.failed ? joined : fo_strdup("");
}

/* Writes inline markup text merged across A:F, wrapped, with a height that
 * fits; the first link's target becomes the cell's hyperlink (Excel links a
 * whole cell, not a run). prefix (may be NULL) goes before the text. */
static void put_markup(summary *s, const char *prefix, const char *src, int indent)
{
    fo_runs runs = {0};
    lxw_rich_string_tuple *tuples = NULL, **list = NULL;
    char *plain = NULL, *joined = NULL;
    fo_buf *bufs = NULL;
    size_t nbufs = 0;
    if (indent > 6) indent = 6;
    if (!(plain = fo_markup_plain(src ? src : ""))) { s->st = FO_ERR_NOMEM; goto cleanup; }
    lxw_format *cell = fo_shape_direction(plain, strlen(plain)) == FO_DIR_RTL ? s->rtext[indent]
                                                                             : s->text[indent];
    double lines = text_lines(plain, merged_chars(indent));
    set_height(s, fmax(15, lines * s->x->th->body_size * 1.45 + 3));
    if (!fits(s, plain, prefix ? 4 : 0)) goto cleanup; /* Excel would drop it: refuse, lose nothing */
    if (s->dry) goto cleanup;
    worksheet_merge_range(s->ws, s->row, 0, s->row, NCOLS - 1, "", cell);
    if (fo_markup_parse(src ? src : "", &runs) != FO_OK) { s->st = FO_ERR_NOMEM; goto cleanup; }
    size_t n = runs.n + (prefix ? 1 : 0);
    if (!(tuples = fo_calloc(n + 2, sizeof *tuples)) || !(list = fo_calloc(n + 3, sizeof *list)) ||
        !(bufs = fo_calloc(n + 2, sizeof *bufs))) { s->st = FO_ERR_NOMEM; goto cleanup; }
    nbufs = n + 2;
    size_t k = 0;
    if (prefix) {
        tuples[k].format = s->run[0];
        tuples[k].string = (char *)prefix;
        k++;
    }
    for (size_t i = 0; i < runs.n; i++) {
        const fo_run *r = &runs.runs[i];
        if (!r->len) continue;
        const char *c = fo_xlsx_clean(&bufs[k], r->text, r->len, FO_XLSX_CELL);
        if (!c) { s->st = FO_ERR_NOMEM; goto cleanup; }
        unsigned style = (r->flags & 7) | (r->url ? RUN_LINK : 0);
        tuples[k].format = s->run[style];
        tuples[k].string = (char *)c;
        k++;
    }
    if (plain_runs(s, tuples, k)) {
        /* one font throughout (a bullet and a plain item): a plain string
         * looks the same, and libxlsxwriter builds each rich string in a
         * temporary file of its own (20,000 list items took 1.3 s) */
        if (!(joined = join_runs(tuples, k))) { s->st = FO_ERR_NOMEM; goto cleanup; }
        worksheet_write_string(s->ws, s->row, 0, joined, cell);
    } else if (k == 1) {
        /* libxlsxwriter wants 2+ fragments: split after the first character */
        const char *t = tuples[0].string;
        size_t cut = 1;
        while (t[cut] && ((unsigned char)t[cut] & 0xC0) == 0x80) cut++;
        if (!t[cut]) {
            worksheet_write_string(s->ws, s->row, 0, t, cell);
        } else {
            char head[8];
            memcpy(head, t, cut);
            head[cut] = '\0';
            tuples[1].format = tuples[0].format;
            tuples[1].string = (char *)t + cut;
            tuples[0].string = head;
            list[0] = &tuples[0];
            list[1] = &tuples[1];
            worksheet_write_rich_string(s->ws, s->row, 0, list, cell);
        }
    } else if (k > 1) {
        for (size_t i = 0; i < k; i++) list[i] = &tuples[i];
        worksheet_write_rich_string(s->ws, s->row, 0, list, cell);
    }
cleanup:
    if (s->st == FO_OK) put_links(s, src, indent);
    for (size_t i = 0; i < nbufs; i++) fo_buf_free(&bufs[i]);
    fo_free(bufs);
    fo_free(tuples);
    fo_free(list);
    fo_free(plain);
    fo_free(joined);
    fo_runs_free(&runs);
}

/* ---- blocks ------------------------------------------------------------------ */

static void blank_row(summary *s) { s->row++; }

static void put_heading(summary *s, const char *text, int level)
{
    if (level < 1) level = 1;
    if (level > 6) level = 6;
    char *plain = fo_markup_plain(text ? text : "");
    if (!plain) { s->st = FO_ERR_NOMEM; return; }
    if (s->row > 0) blank_row(s);
    set_height(s, s->x->th->heading_size[level - 1] * 1.6);
    put_string(s, 0, plain, s->heading[level - 1]);
    fo_free(plain);
    s->row++;
}

static void put_list(summary *s, const fo_list_item *items, size_t n, bool ordered, int depth)
{
    for (size_t i = 0; i < n && s->st == FO_OK; i++) {
        char prefix[32];
        if (ordered) snprintf(prefix, sizeof prefix, "%zu. ", i + 1);
        else snprintf(prefix, sizeof prefix, "%s ", depth % 2 ? "\xE2\x97\xA6" : "\xE2\x80\xA2");
        put_markup(s, prefix, items[i].text, depth + 1);
        s->row++;
        if (items[i].nitems) put_list(s, items[i].items, items[i].nitems, items[i].ordered, depth + 1);
    }
}

static void put_code(summary *s, const char *text)
{
    const char *p = text ? text : "";
    for (;;) {
        const char *nl = strchr(p, '\n');
        size_t len = nl ? (size_t)(nl - p) : strlen(p);
        if (!s->dry) {
            /* tabs as 4 spaces: Excel draws a tab as nothing */
            char *line = fo_malloc(len * 4 + 1);
            if (!line) { s->st = FO_ERR_NOMEM; return; }
            size_t o = 0;
            for (size_t i = 0; i < len; i++) {
                if (p[i] == '\t') { memcpy(line + o, "    ", 4); o += 4; }
                else if (p[i] != '\r') line[o++] = p[i];
            }
            line[o] = '\0';
            worksheet_merge_range(s->ws, s->row, 0, s->row, NCOLS - 1, "", s->code);
            put_string(s, 0, line, s->code);
            fo_free(line);
        }
        s->row++;
        if (!nl) break;
        p = nl + 1;
    }
}

static lxw_format *value_format(summary *s, const char *code, double size, bool bold)
{
    lxw_format *f = font_format(s, &s->x->th->body, size, s->x->th->text);
    if (!f) return NULL;
    if (bold) format_set_bold(f);
    if (code && strcmp(code, "General") != 0) format_set_num_format(f, code);
    format_set_align(f, LXW_ALIGN_LEFT);
    return f;
}

static void put_metrics(summary *s, const fo_metric *items, size_t n)
{
    for (size_t i = 0; i < n && s->st == FO_OK; i++) {
        const fo_metric *m = &items[i];
        set_height(s, s->x->th->body_size * 1.9);
        if (!s->dry) {
            put_string(s, 0, m->label, s->metric_label);
            lxw_format *vf = value_format(s, m->format, s->x->th->body_size * 1.3, true);
            if (!vf) return;
            const fo_value *v = &m->value;
            switch (v->kind) {
            case FO_VAL_NUMBER: case FO_VAL_DATE:
                if (isfinite(v->num)) worksheet_write_number(s->ws, s->row, 1, v->num, vf);
                break;
            case FO_VAL_BOOL:
                worksheet_write_boolean(s->ws, s->row, 1, v->num != 0, vf);
                break;
            case FO_VAL_NULL:
                break;
            case FO_VAL_TEXT: case FO_VAL_FORMULA: case FO_VAL_URL:
            default:
                put_string(s, 1, v->label ? v->label : v->str, vf);
                break;
            }
            if (m->has_delta && isfinite(m->delta)) {
                lxw_format *df = value_format(s, m->delta_format, s->x->th->body_size, false);
                if (!df) return;
                format_set_font_color(df, fo_delta_rgb(m, s->x->th->text, s->x->th->background));
                worksheet_write_number(s->ws, s->row, 2, m->delta, df);
            }
        }
        s->row++;
    }
}

/* s inside a formula's string literal: a double quote doubled. */
static void formula_text(fo_buf *b, const char *s)
{
    for (const char *q; (q = strchr(s, '"')); s = q + 1) {
        fo_buf_append(b, s, (size_t)(q - s));
        fo_buf_puts(b, "\"\"");
    }
    fo_buf_puts(b, s);
}

/* Label l (cleaned) linking to cell, "'Sheet'!A1", in this row: a link cell;
 * in a right-to-left document a HYPERLINK formula whose cached value is the
 * label instead, since LibreOffice draws a link cell of right-to-left text
 * overlapped and with boxes (its hyperlink field) but a formula's result as
 * text. Excel's HYPERLINK takes a label of at most 255 characters: a
 * longer one stays a link cell. */
static void put_link(summary *s, const char *cell, lxw_format *f, const char *l)
{
    char target[FO_XLSX_NAME_CAP * 2 + 48];
    if (s->x->doc->rtl && fo_utf8_count(l, strlen(l)) <= 255) {
        fo_buf b = {0};
        fo_buf_puts(&b, "=HYPERLINK(\"#");
        formula_text(&b, cell);
        fo_buf_puts(&b, "\",\"");
        formula_text(&b, l);
        fo_buf_puts(&b, "\")");
        if (b.failed) s->st = FO_ERR_NOMEM;
        else worksheet_write_formula_str(s->ws, s->row, 0, b.data, f, l);
        fo_buf_free(&b);
        return;
    }
    snprintf(target, sizeof target, "internal:%s", cell);
    worksheet_write_url_opt(s->ws, s->row, 0, target, f, l, NULL);
}

/* A link to sheet's A1 with label. */
static void put_sheet_link(summary *s, const char *label, const char *sheet)
{
    if (!s->dry) {
        char ref[FO_XLSX_NAME_CAP * 2 + 16], cell[FO_XLSX_NAME_CAP * 2 + 24];
        fo_xlsx_sheet_ref(sheet, ref, sizeof ref);
        snprintf(cell, sizeof cell, "%sA1", ref);
        const char *l = clean(s, &s->x->buf2, label);
        if (l) put_link(s, cell, s->link, l);
    }
    s->row++;
}

static void put_table(summary *s, const fo_block *b, const fo_xlsx_table *t)
{
    char *name = NULL;
    if (b->u.table.caption) name = fo_markup_plain(b->u.table.caption);
    else name = fo_strdup(b->u.table.data && b->u.table.data->name ? b->u.table.data->name : "Table");
    if (!name) { s->st = FO_ERR_NOMEM; return; }
    size_t len = strlen(name) + 2 * FO_XLSX_NAME_CAP + 256;
    char *label = fo_malloc(len);
    if (!label) { fo_free(name); s->st = FO_ERR_NOMEM; return; }
    size_t rows = t ? t->rows_written : 0;
    const char *lang = s->x->doc->lang;
    char n[32];
    snprintf(n, sizeof n, "%zu", rows);
    if (t && t->nparts > 1) {
        const char *args[] = {name, t->parts[0], t->parts[t->nparts - 1], n};
        fo_word_fill(lang, FO_W_TABLE_LINK_SHEETS, rows, label, len, 4, args);
    } else {
        const char *args[] = {name, t ? t->parts[0] : "", n};
        fo_word_fill(lang, FO_W_TABLE_LINK, rows, label, len, 3, args);
    }
    put_sheet_link(s, label, t ? t->parts[0] : "Summary");
    fo_free(label);
    fo_free(name);
}

static void put_chart(summary *s, const fo_block *b, lxw_chart *chart, const fo_xlsx_dataref *ref)
{
    const fo_chart *c = &b->u.chart;
    double w = c->width > 0 ? c->width : 800, h = c->height > 0 ? c->height : 500;
    keep_on_page(s, (lxw_row_t)ceil(h / ROW_PX));
    if (!s->dry && chart) {
        lxw_chart_options o = {.x_scale = w / 480.0, .y_scale = h / 288.0, .object_position = LXW_OBJECT_MOVE_DONT_SIZE};
        const char *alt = c->alt ? c->alt : c->title;
        if (alt) {
            const char *a = fo_xlsx_clean(&s->x->buf2, alt, strlen(alt), FO_XLSX_PLAIN);
            if (!a) { s->st = FO_ERR_NOMEM; return; }
            o.description = (char *)a;
        }
        worksheet_insert_chart_opt(s->ws, s->row, 0, chart, &o);
    }
    s->row += (lxw_row_t)ceil(h / ROW_PX);
    if (ref) {
        char label[FO_XLSX_NAME_CAP + 64];
        const char *args[] = {ref->sheet};
        fo_word_fill(s->x->doc->lang, FO_W_CHART_DATA, 0, label, sizeof label, 1, args);
        put_sheet_link(s, label, ref->sheet);
    }
}

static void put_image(summary *s, const fo_block *b)
{
    double pw = b->u.image.px_width > 0 ? b->u.image.px_width : 1;
    double ph = b->u.image.px_height > 0 ? b->u.image.px_height : 1;
    double xs = b->u.image.width > 0 ? b->u.image.width / pw : 0;
    double ys = b->u.image.height > 0 ? b->u.image.height / ph : 0;
    if (!xs && !ys) xs = ys = 1;
    else if (!xs) xs = ys;
    else if (!ys) ys = xs;
    keep_on_page(s, (lxw_row_t)ceil(ph * ys / ROW_PX));
    if (!s->dry) {
        lxw_image_options o = {.x_scale = xs, .y_scale = ys, .object_position = LXW_OBJECT_MOVE_DONT_SIZE};
        if (b->u.image.alt) {
            const char *a = fo_xlsx_clean(&s->x->buf2, b->u.image.alt, strlen(b->u.image.alt), FO_XLSX_PLAIN);
            if (!a) { s->st = FO_ERR_NOMEM; return; }
            o.description = (char *)a;
        }
        if (worksheet_insert_image_opt(s->ws, s->row, 0, b->u.image.path, &o) != LXW_NO_ERROR) {
            fail(s, b, FO_ERR_INPUT, "use a PNG or JPEG file", "cannot place image %s in the workbook",
                 b->u.image.path);
            return;
        }
    }
    s->row += (lxw_row_t)ceil(ph * ys / ROW_PX);
    if (b->u.image.caption) {
        put_markup(s, NULL, b->u.image.caption, 0);
        s->row++;
    }
}

static void put_toc(summary *s)
{
    const fo_doc *doc = s->x->doc;
    size_t h = 0;
    put_heading(s, "Contents", 2);
    for (size_t i = 0; i < doc->nblocks && s->st == FO_OK; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind != FO_BLOCK_HEADING) continue;
        lxw_row_t target = s->heading_rows ? s->heading_rows[h] : 0;
        h++;
        if (!s->dry) {
            char *plain = fo_markup_plain(b->u.heading.text ? b->u.heading.text : "");
            if (!plain) { s->st = FO_ERR_NOMEM; return; }
            char ref[FO_XLSX_NAME_CAP * 2 + 16], cell[FO_XLSX_NAME_CAP * 2 + 32];
            fo_xlsx_sheet_ref("Summary", ref, sizeof ref);
            snprintf(cell, sizeof cell, "%sA%u", ref, (unsigned)target + 1);
            int lvl = b->u.heading.level < 1 ? 1 : b->u.heading.level > 6 ? 6 : b->u.heading.level;
            const char *l = clean(s, &s->x->buf2, plain);
            if (l) put_link(s, cell, s->linkfmt[lvl - 1], l);
            fo_free(plain);
        }
        s->row++;
    }
}

/* Column width in pixels as Excel draws it (Calibri 11: 7 px a character). */
static double col_px(double width) { return floor(width * 7.0 + 0.5) + 5.0; }

static unsigned long be32(const unsigned char *p)
{
    return (unsigned long)p[0] << 24 | (unsigned long)p[1] << 16 | (unsigned long)p[2] << 8 | p[3];
}

/* The resolution libxlsxwriter scales a picture by (its size is px * 96 /
 * dpi): PNG pHYs in pixels per metre, JPEG JFIF density; 96 when absent. */
static void image_dpi(const char *path, bool png, double *xdpi, double *ydpi)
{
    *xdpi = *ydpi = 96;
    FILE *f = fopen(path, "rb");
    if (!f) return;
    unsigned char h[20];
    if (png) {
        long at = 8;
        while (fseek(f, at, SEEK_SET) == 0 && fread(h, 1, 8, f) == 8) {
            unsigned long len = be32(h);
            if (!memcmp(h + 4, "IDAT", 4) || !memcmp(h + 4, "IEND", 4) || len > (1ul << 30)) break;
            if (!memcmp(h + 4, "pHYs", 4) && len >= 9 && fread(h + 8, 1, 9, f) == 9 && h[16] == 1) {
                *xdpi = be32(h + 8) * 0.0254;
                *ydpi = be32(h + 12) * 0.0254;
                break;
            }
            at += 12 + (long)len;
        }
    } else if (fread(h, 1, 18, f) == 18 && h[2] == 0xFF && h[3] == 0xE0 && !memcmp(h + 6, "JFIF", 4)) {
        double k = h[13] == 1 ? 1 : h[13] == 2 ? 2.54 : 0;
        if (k > 0) {
            *xdpi = (h[14] << 8 | h[15]) * k;
            *ydpi = (h[16] << 8 | h[17]) * k;
        }
    }
    fclose(f);
    if (*xdpi <= 0 || *ydpi <= 0) *xdpi = *ydpi = 96;
}

/* The theme's logo in the title row: LOGO_PX high (at most as wide as E:F),
 * its right edge LOGO_PAD inside F's. */
static void put_logo(summary *s)
{
    const char *path = s->x->th->logo;
    bool png = s->x->th->logo_is_png;
    int pw = s->x->th->logo_width, ph = s->x->th->logo_height; /* probed by the theme reader */
    if (s->dry) return;
    double xdpi, ydpi;
    bool ok = pw > 0 && ph > 0 && access(path, R_OK) == 0;
    if (ok) {
        double room = 0;
        for (int c = LOGO_COL; c < NCOLS; c++) room += col_px(col_width[c]);
        double h = LOGO_PX, w = h * pw / ph;
        if (w > room - LOGO_PAD) { h *= (room - LOGO_PAD) / w; w = room - LOGO_PAD; }
        image_dpi(path, png, &xdpi, &ydpi);
        lxw_image_options o = {
            .x_offset = (int32_t)(room - LOGO_PAD - w), .y_offset = (int32_t)LOGO_PAD,
            .x_scale = w / pw * xdpi / 96.0, .y_scale = h / ph * ydpi / 96.0,
            .object_position = LXW_OBJECT_MOVE_DONT_SIZE, .description = (char *)"logo"};
        ok = worksheet_insert_image_opt(s->ws, s->row, LOGO_COL, path, &o) == LXW_NO_ERROR;
    }
    if (!ok) {
        fail(s, NULL, FO_ERR_INPUT, "the theme's \"logo\" must be a PNG or JPEG file",
             "theme logo %s: not a readable PNG or JPEG image", path);
    }
}

/* The title row beside a logo: merged across A..D, wrapped, tall enough
 * for its lines and for the logo. */
static void put_title_beside_logo(summary *s, const char *title)
{
    const fo_theme *th = s->x->th;
    double chars = 0;
    for (int c = 0; c < LOGO_COL; c++) chars += col_width[c];
    chars = chars * 11.0 / th->title_size; /* col widths count 11 pt characters */
    double lines = title ? text_lines(title, chars) : 1;
    double pt = fmax(fmax(th->title_size * 1.5, lines * th->title_size * 1.25 + 6),
                     (LOGO_PX + 2 * LOGO_PAD) * 0.75);
    set_height(s, pt);
    put_logo(s);
    if (s->dry || !title || s->st != FO_OK) return;
    const char *c = clean(s, &s->x->buf, title);
    if (c) worksheet_merge_range(s->ws, s->row, 0, s->row, LOGO_COL - 1, c, s->title);
}

static void put_header(summary *s)
{
    const fo_doc *doc = s->x->doc;
    const fo_theme *th = s->x->th;
    if (th->logo[0]) { /* with or without a title, the first row holds the logo */
        put_title_beside_logo(s, doc->title);
        s->row++;
    } else if (doc->title) {
        set_height(s, th->title_size * 1.5);
        put_string(s, 0, doc->title, s->title);
        s->row++;
    }
    if (doc->subtitle) {
        set_height(s, th->heading_size[1] * 1.5);
        put_string(s, 0, doc->subtitle, s->subtitle);
        s->row++;
    }
    if (doc->author || doc->date) {
        char *line = NULL;
        size_t len = (doc->author ? strlen(doc->author) : 0) + (doc->date ? strlen(doc->date) : 0) + 16;
        if (!(line = fo_malloc(len))) { s->st = FO_ERR_NOMEM; return; }
        fo_doc_byline(doc, false, line, len);
        put_string(s, 0, line, s->meta);
        fo_free(line);
        s->row++;
    }
    if (s->row) s->row++;
}

static void layout(summary *s)
{
    const fo_doc *doc = s->x->doc;
    size_t table = 0;
    s->row = 0;
    s->nheadings = 0;
    s->nbreaks = 0;
    s->extra_pt = s->last_extra = 0;
    s->last_set = 0;
    new_page(s);
    put_header(s);
    for (size_t i = 0; i < doc->nblocks && s->st == FO_OK; i++) {
        const fo_block *b = &doc->blocks[i];
        s->cur = b;
        switch (b->kind) {
        case FO_BLOCK_HEADING:
            if (s->dry) s->heading_rows[s->nheadings] = s->row + (s->row > 0);
            s->nheadings++;
            put_heading(s, b->u.heading.text, b->u.heading.level);
            break;
        case FO_BLOCK_PARAGRAPH:
            put_markup(s, NULL, b->u.paragraph.text, 0);
            s->row++;
            break;
        case FO_BLOCK_LIST:
            put_list(s, b->u.list.items, b->u.list.nitems, b->u.list.ordered, 0);
            break;
        case FO_BLOCK_METRICS:
            put_metrics(s, b->u.metrics.items, b->u.metrics.nitems);
            break;
        case FO_BLOCK_TABLE:
            put_table(s, b, table < s->x->ntables ? &s->x->tables[table] : NULL);
            table++;
            break;
        case FO_BLOCK_CHART: {
            const fo_xlsx_dataref *ref = NULL;
            if ((s->st = fo_xlsx_dataref_for(s->x, &b->u.chart, &ref)) != FO_OK) return;
            put_chart(s, b, s->charts[i], ref);
            break;
        }
        case FO_BLOCK_IMAGE:
            put_image(s, b);
            break;
        case FO_BLOCK_CODE:
            put_code(s, b->u.code.text);
            break;
        case FO_BLOCK_PAGE_BREAK:
            if (s->row > 0) s->breaks[s->nbreaks++] = s->row;
            new_page(s);
            break;
        case FO_BLOCK_TOC:
            put_toc(s);
            break;
        }
        /* a blank row after each block except headings, which add their own */
        if (b->kind != FO_BLOCK_HEADING && b->kind != FO_BLOCK_PAGE_BREAK) s->row++;
        if (s->row >= FO_XLSX_MAX_ROWS - 64) { /* absurdly long text: stop cleanly */
            fail(s, b, FO_ERR_INPUT, NULL, "the Summary sheet is longer than Excel's 1,048,576 rows");
            return;
        }
    }
}

fo_status fo_xlsx_write_summary(fo_xlsx *x, lxw_chart *const *charts)
{
    const fo_doc *doc = x->doc;
    summary s = {.x = x, .ws = x->summary, .charts = charts, .st = FO_OK};
    size_t nh = 0;
    for (size_t i = 0; i < doc->nblocks; i++) nh += doc->blocks[i].kind == FO_BLOCK_HEADING;
    if (!(s.heading_rows = fo_calloc(nh + 1, sizeof *s.heading_rows)) ||
        !(s.breaks = fo_calloc(doc->nblocks + 1, sizeof *s.breaks))) {
        s.st = FO_ERR_NOMEM;
        goto cleanup;
    }
    if (make_formats(&s) != FO_OK) goto cleanup;
    for (size_t c = 0; c < NCOLS; c++)
        worksheet_set_column(s.ws, (lxw_col_t)c, (lxw_col_t)c, col_width[c], NULL);
    worksheet_gridlines(s.ws, LXW_HIDE_ALL_GRIDLINES);
    /* one page wide: the columns, or the widest chart or picture */
    double width = fo_xlsx_columns_pt(col_width, NCOLS);
    for (size_t i = 0; i < doc->nblocks; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind == FO_BLOCK_CHART) width = fmax(width, (b->u.chart.width > 0 ? b->u.chart.width : 800) * 0.75);
        if (b->kind == FO_BLOCK_IMAGE)
            width = fmax(width, (b->u.image.width > 0 ? b->u.image.width : b->u.image.px_width) * 0.75);
    }
    s.page_pt = fo_xlsx_page_setup(x->th, s.ws, width, false);
    s.dry = true;
    layout(&s);
    if (s.st != FO_OK) goto cleanup;
    s.dry = false;
    layout(&s);
    if (s.st != FO_OK) goto cleanup;
    if (s.nbreaks) {
        s.breaks[s.nbreaks] = 0;
        worksheet_set_h_pagebreaks(s.ws, s.breaks);
    }
cleanup:
    fo_free(s.heading_rows);
    fo_free(s.breaks);
    return s.st;
}
