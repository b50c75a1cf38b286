/* chart_backend.c — the libharu backend of the chart engine: replays a
 * chart's display list as PDF vector paths and text, and places the chart
 * in the flow scaled to the text width.
 *
 * The display list is in px, y down; the page is in pt, y up. One transform
 * maps them: X = ox + s * x, Y = oy - s * y (ox, oy: the chart's top-left
 * corner on the page). Transparency uses an ExtGState per alpha step. */
#include <math.h>
#include <string.h>

#include "render/chart/chart.h"
#include "render/pdf/pdf_int.h"

typedef struct {
    fo_pdf *c;
    HPDF_Page p;
    double ox, oy, s;
} replay;

#define X(r, x) fo_pdf_q((r)->ox + (r)->s * (x))
#define Y(r, y) fo_pdf_q((r)->oy - (r)->s * (y))

static void path(replay *r, const fo_dl_path *p)
{
    size_t k = 0;
    for (size_t i = 0; i < p->ncmds; i++) {
        const double *q = p->pts + 2 * k;
        switch (p->cmds[i]) {
        case FO_PATH_MOVE:
            if (k + 1 > p->npts) return;
            HPDF_Page_MoveTo(r->p, X(r, q[0]), Y(r, q[1]));
            k += 1;
            break;
        case FO_PATH_LINE:
            if (k + 1 > p->npts) return;
            HPDF_Page_LineTo(r->p, X(r, q[0]), Y(r, q[1]));
            k += 1;
            break;
        case FO_PATH_CURVE:
            if (k + 3 > p->npts) return;
            HPDF_Page_CurveTo(r->p, X(r, q[0]), Y(r, q[1]), X(r, q[2]), Y(r, q[3]),
                              X(r, q[4]), Y(r, q[5]));
            k += 3;
            break;
        case FO_PATH_CLOSE:
            HPDF_Page_ClosePath(r->p);
            break;
        }
    }
}

/* Sets a translucent state when alpha < 1; returns true if it must be undone. */
static bool push_alpha(replay *r, double alpha, bool fill)
{
    if (alpha >= 0.999) return false;
    int k = (int)lround((alpha < 0 ? 0 : alpha) * 15);
    HPDF_ExtGState *gs = &r->c->alpha_gs[k];
    if (!*gs) {
        *gs = HPDF_CreateExtGState(r->c->pdf);
        if (!*gs) return false;
        HPDF_ExtGState_SetAlphaFill(*gs, (HPDF_REAL)(k / 15.0));
        HPDF_ExtGState_SetAlphaStroke(*gs, (HPDF_REAL)(k / 15.0));
    }
    (void)fill;
    HPDF_Page_GSave(r->p);
    HPDF_Page_SetExtGState(r->p, *gs);
    return true;
}

static void be_fill(void *ctx, const fo_dl_path *p, fo_rgb color, double alpha)
{
    replay *r = ctx;
    if (alpha <= 0.001 || p->ncmds == 0) return;
    bool pop = push_alpha(r, alpha, true);
    fo_pdf_fill_rgb(r->p, color);
    path(r, p);
    HPDF_Page_Fill(r->p);
    if (pop) HPDF_Page_GRestore(r->p);
}

static void be_fill_rect(void *ctx, double x, double y, double w, double h, fo_rgb color,
                         double alpha)
{
    replay *r = ctx;
    if (alpha <= 0.001 || w <= 0 || h <= 0) return;
    bool pop = push_alpha(r, alpha, true);
    fo_pdf_fill_rgb(r->p, color);
    HPDF_Page_Rectangle(r->p, X(r, x), Y(r, y + h), fo_pdf_q(w * r->s), fo_pdf_q(h * r->s));
    HPDF_Page_Fill(r->p);
    if (pop) HPDF_Page_GRestore(r->p);
}

static void be_stroke(void *ctx, const fo_dl_path *p, double width, fo_rgb color,
                      double alpha, const double dash[2])
{
    replay *r = ctx;
    if (alpha <= 0.001 || p->ncmds == 0) return;
    bool pop = push_alpha(r, alpha, false);
    bool dashed = dash && dash[0] > 0;
    if (dashed && !pop) HPDF_Page_GSave(r->p);
    fo_pdf_stroke_rgb(r->p, color);
    HPDF_Page_SetLineWidth(r->p, (HPDF_REAL)(width * r->s));
    if (dashed) {
        HPDF_UINT16 d[2] = {(HPDF_UINT16)fmax(1, lround(dash[0] * r->s)),
                            (HPDF_UINT16)fmax(1, lround(dash[1] * r->s))};
        HPDF_Page_SetDash(r->p, d, 2, 0);
    }
    path(r, p);
    HPDF_Page_Stroke(r->p);
    if (pop || dashed) HPDF_Page_GRestore(r->p);
}

static void be_text(void *ctx, const fo_dl_text *t)
{
    replay *r = ctx;
    fo_pdf *c = r->c;
    if (!t->utf8 || !t->utf8[0]) return;
    fo_pdf_font *f = t->font_file ? fo_pdf_font_load(c, t->font_file) : NULL;
    if (!f) f = fo_pdf_face(c, &c->t->body, t->bold ? FO_PDF_BOLD : FO_PDF_REGULAR);
    else if (t->bold && strcmp(t->font_file, c->t->body.regular) == 0)
        f = fo_pdf_face(c, &c->t->body, FO_PDF_BOLD);
    if (!f) return;
    size_t len = strlen(t->utf8);
    double size = t->size * r->s;
    double w = fo_pdf_text_width(c, f, size, t->utf8, len);
    double dx = t->anchor == FO_ANCHOR_MIDDLE ? -w / 2 : t->anchor == FO_ANCHOR_END ? -w : 0;
    double x = r->ox + r->s * t->x, y = r->oy - r->s * t->y;
    if (fabs(t->rotation) < 0.01) {
        fo_pdf_text_draw(c, f, size, t->color, x + dx, y, t->utf8, len);
        return;
    }
    /* rotate about the anchor: clockwise on screen is negative in PDF */
    double a = -t->rotation * M_PI / 180.0, ca = cos(a), sa = sin(a);
    HPDF_Page_GSave(r->p);
    HPDF_Page_Concat(r->p, (HPDF_REAL)ca, (HPDF_REAL)sa, (HPDF_REAL)-sa, (HPDF_REAL)ca,
                     fo_pdf_q(x), fo_pdf_q(y));
    fo_pdf_text_draw(c, f, size, t->color, dx, 0, t->utf8, len);
    HPDF_Page_GRestore(r->p);
}

static const fo_dl_backend pdf_backend = {
    NULL, be_fill, be_fill_rect, be_stroke, be_text, NULL
};

void fo_pdf_chart(fo_pdf *c, const fo_block *b)
{
    fo_dl *dl = NULL;
    fo_status st = fo_chart_layout(&b->u.chart, c->t, 0, 0, &dl, c->d);
    if (st != FO_OK) {
        fo_diags_add(c->d, c->doc->spec_path, b->line, b->column, b->pointer, NULL,
                     "the chart could not be drawn: %s", fo_strerror(st));
        if (c->st == FO_OK) c->st = st;
        return;
    }
    double w = fo_dl_width(dl), h = fo_dl_height(dl);
    if (w <= 0 || h <= 0) { fo_dl_free(dl); return; }
    double s = 0.75;                       /* px -> pt at 96 dpi */
    if (w * s > c->width) s = c->width / w;
    double maxh = (c->top - c->bottom) * 0.9;
    if (h * s > maxh) s = maxh / h;
    fo_pdf_need(c, h * s + 4);
    if (c->st == FO_OK) {
        replay r = {c, c->page, c->left + (c->width - w * s) / 2, c->y - 2, s};
        fo_dl_replay(dl, &pdf_backend, &r);
        c->fresh = false;
        c->y -= h * s + 4 + c->t->body_size * 0.8;
    }
    fo_dl_free(dl);
}
