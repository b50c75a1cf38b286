/* dl.c — the display list: building it (dl_build.h), reading it back, and
 * replaying it on a backend vtable with cairo-style fallbacks.
 *
 * Invariant: every pointer inside an op (path arrays, text) points into the
 * list's arena, so ops stay valid while the ops array itself grows. */
#include <math.h>
#include <string.h>

#include "render/chart/dl_build.h"
#include "base/buf.h"
#include "render/core/text.h"

struct fo_dl {
    double width, height;
    fo_rgb background;
    fo_status status;      /* sticky: first error */
    fo_arena *arena;
    fo_dl_op *ops;
    size_t n, cap;
    /* path under construction */
    fo_path_cmd *cmds;
    size_t ncmds, capcmds;
    double *pts;
    size_t npts, cappts;
};

fo_dl *fo_dl_new(double width, double height, fo_rgb background)
{
    fo_dl *dl = fo_calloc(1, sizeof *dl);
    if (!dl) return NULL;
    dl->arena = fo_arena_new();
    if (!dl->arena) { fo_free(dl); return NULL; }
    dl->width = width;
    dl->height = height;
    dl->background = background;
    return dl;
}

void fo_dl_free(fo_dl *dl)
{
    if (!dl) return;
    fo_arena_free(dl->arena);
    fo_free(dl->ops);
    fo_free(dl->cmds);
    fo_free(dl->pts);
    fo_free(dl);
}

fo_status fo_dl_status(const fo_dl *dl) { return dl->status; }
double fo_dl_width(const fo_dl *dl) { return dl->width; }
double fo_dl_height(const fo_dl *dl) { return dl->height; }
size_t fo_dl_count(const fo_dl *dl) { return dl ? dl->n : 0; }
fo_rgb fo_dl_background(const fo_dl *dl) { return dl->background; }

const fo_dl_op *fo_dl_op_at(const fo_dl *dl, size_t i)
{
    return dl && i < dl->n ? &dl->ops[i] : NULL;
}

/* A new zeroed op, or NULL (status set) on failure. */
static fo_dl_op *op_new(fo_dl *dl, fo_dl_kind kind, fo_dl_role role, size_t series, size_t point)
{
    if (dl->status != FO_OK) return NULL;
    if (!fo_grow((void **)&dl->ops, &dl->cap, dl->n + 1, 64, sizeof *dl->ops)) {
        dl->status = FO_ERR_NOMEM;
        return NULL;
    }
    fo_dl_op *op = &dl->ops[dl->n++];
    memset(op, 0, sizeof *op);
    op->kind = kind;
    op->role = role;
    op->series = series;
    op->point = point;
    op->alpha = 1;
    return op;
}

/* ---- paths ---------------------------------------------------------------- */
static void path_push(fo_dl *dl, fo_path_cmd cmd, const double *xy, size_t np)
{
    if (dl->status != FO_OK) return;
    if (!fo_grow((void **)&dl->cmds, &dl->capcmds, dl->ncmds + 1, 32, sizeof *dl->cmds) ||
        !fo_grow((void **)&dl->pts, &dl->cappts, dl->npts + np, 64, 2 * sizeof *dl->pts)) {
        dl->status = FO_ERR_NOMEM;
        return;
    }
    dl->cmds[dl->ncmds++] = cmd;
    if (np) memcpy(dl->pts + 2 * dl->npts, xy, np * 2 * sizeof *xy); /* close: no points */
    dl->npts += np;
}

void fo_dl_path_move(fo_dl *dl, double x, double y)
{
    double p[2] = {x, y};
    path_push(dl, FO_PATH_MOVE, p, 1);
}

void fo_dl_path_line(fo_dl *dl, double x, double y)
{
    double p[2] = {x, y};
    path_push(dl, dl->ncmds ? FO_PATH_LINE : FO_PATH_MOVE, p, 1);
}

void fo_dl_path_curve(fo_dl *dl, double x1, double y1, double x2, double y2, double x3, double y3)
{
    double p[6] = {x1, y1, x2, y2, x3, y3};
    path_push(dl, FO_PATH_CURVE, p, 3);
}

void fo_dl_path_close(fo_dl *dl) { path_push(dl, FO_PATH_CLOSE, NULL, 0); }

void fo_dl_path_clear(fo_dl *dl) { dl->ncmds = dl->npts = 0; }

void fo_dl_path_arc(fo_dl *dl, double cx, double cy, double r, double a0, double a1)
{
    double sx = cx + r * cos(a0), sy = cy + r * sin(a0);
    fo_dl_path_line(dl, sx, sy);
    double span = a1 - a0;
    int segs = (int)ceil(fabs(span) / (M_PI / 2) - 1e-9);
    if (segs < 1) segs = 1;
    double step = span / segs;
    double k = 4.0 / 3.0 * tan(step / 4); /* control-point distance for a circular arc */
    for (int i = 0; i < segs; i++) {
        double b0 = a0 + i * step, b1 = b0 + step;
        double c0 = cos(b0), s0 = sin(b0), c1 = cos(b1), s1 = sin(b1);
        fo_dl_path_curve(dl, cx + r * (c0 - k * s0), cy + r * (s0 + k * c0),
                         cx + r * (c1 + k * s1), cy + r * (s1 - k * c1),
                         cx + r * c1, cy + r * s1);
    }
}

static void bbox_add(fo_dl_op *op, double x, double y)
{
    op->x0 = fmin(op->x0, x);
    op->x1 = fmax(op->x1, x);
    op->y0 = fmin(op->y0, y);
    op->y1 = fmax(op->y1, y);
}

/* One coordinate of the cubic p0 p1 p2 p3 at t. */
static double cubic_at(double p0, double p1, double p2, double p3, double t)
{
    double u = 1 - t;
    return u * u * u * p0 + 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t * p3;
}

/* The values of t in (0, 1) where one coordinate of the cubic p0 p1 p2 p3
 * turns (its derivative, a quadratic, is zero) into t[]; their count. */
static int cubic_turns(double p0, double p1, double p2, double p3, double t[2])
{
    /* derivative / 3: a t^2 + b t + c */
    double a = -p0 + 3 * p1 - 3 * p2 + p3, b = 2 * (p0 - 2 * p1 + p2), c = p1 - p0;
    double r[2];
    int n = 0, k = 0;
    if (fabs(a) < 1e-12 * (fabs(b) + fabs(c) + 1e-300)) {
        if (b != 0) r[n++] = -c / b;
    } else {
        double d = b * b - 4 * a * c;
        if (d >= 0) {
            double sq = sqrt(d);
            r[n++] = (-b + sq) / (2 * a);
            r[n++] = (-b - sq) / (2 * a);
        }
    }
    for (int i = 0; i < n; i++)
        if (r[i] > 0 && r[i] < 1) t[k++] = r[i];
    return k;
}

/* Grows op's box by the cubic from q[0], q[1] through the controls q[2..5]
 * to q[6], q[7]: its end and the points where x or y turns (exact, where
 * sampling missed up to a quarter pixel of a pie's rim). */
static void curve_bbox(fo_dl_op *op, const double *q)
{
    bbox_add(op, q[6], q[7]);
    for (int axis = 0; axis < 2; axis++) {
        double t[2];
        int n = cubic_turns(q[axis], q[2 + axis], q[4 + axis], q[6 + axis], t);
        for (int i = 0; i < n; i++)
            bbox_add(op, cubic_at(q[0], q[2], q[4], q[6], t[i]), cubic_at(q[1], q[3], q[5], q[7], t[i]));
    }
}

/* Moves the path under construction into a new op's arena copy. */
static void path_commit(fo_dl *dl, fo_dl_op *op)
{
    if (!op) { dl->ncmds = dl->npts = 0; return; }
    fo_path_cmd *c = fo_arena_alloc(dl->arena, dl->ncmds * sizeof *c + 1);
    double *p = fo_arena_alloc(dl->arena, dl->npts * 2 * sizeof *p + 1);
    if (!c || !p) { dl->status = FO_ERR_NOMEM; dl->n--; dl->ncmds = dl->npts = 0; return; }
    memcpy(c, dl->cmds, dl->ncmds * sizeof *c);
    memcpy(p, dl->pts, dl->npts * 2 * sizeof *p);
    op->path.cmds = c;
    op->path.ncmds = dl->ncmds;
    op->path.pts = p;
    op->path.npts = dl->npts;
    op->x0 = op->y0 = INFINITY;
    op->x1 = op->y1 = -INFINITY;
    const double *q = p;
    for (size_t i = 0; i < dl->ncmds; i++) {
        if (c[i] == FO_PATH_CLOSE) continue;
        if (c[i] == FO_PATH_CURVE) { /* the curve, not its control points */
            curve_bbox(op, q - 2);
            q += 6;
            continue;
        }
        bbox_add(op, q[0], q[1]);
        q += 2;
    }
    if (dl->npts == 0) op->x0 = op->y0 = op->x1 = op->y1 = 0;
    dl->ncmds = dl->npts = 0;
}

void fo_dl_path_fill(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                     fo_rgb color, double alpha)
{
    fo_dl_op *op = op_new(dl, FO_DL_FILL, role, series, point);
    if (op) { op->color = color; op->alpha = alpha; }
    path_commit(dl, op);
}

void fo_dl_path_stroke(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                       double width, fo_rgb color, const double *dash)
{
    fo_dl_op *op = op_new(dl, FO_DL_STROKE, role, series, point);
    if (op) {
        op->color = color;
        op->line_width = width;
        if (dash) { op->dash[0] = dash[0]; op->dash[1] = dash[1]; }
    }
    path_commit(dl, op);
}

void fo_dl_rect(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                double x0, double y0, double x1, double y1, fo_rgb color, double alpha)
{
    double l = fmin(x0, x1), r = fmax(x0, x1), t = fmin(y0, y1), b = fmax(y0, y1);
    dl->ncmds = dl->npts = 0;
    fo_dl_path_move(dl, l, t);
    fo_dl_path_line(dl, r, t);
    fo_dl_path_line(dl, r, b);
    fo_dl_path_line(dl, l, b);
    fo_dl_path_close(dl);
    size_t before = dl->n;
    fo_dl_path_fill(dl, role, series, point, color, alpha);
    if (dl->n > before) dl->ops[dl->n - 1].rect = true;
}

void fo_dl_segment(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                   double x0, double y0, double x1, double y1, double width,
                   fo_rgb color, const double *dash)
{
    dl->ncmds = dl->npts = 0;
    fo_dl_path_move(dl, x0, y0);
    fo_dl_path_line(dl, x1, y1);
    fo_dl_path_stroke(dl, role, series, point, width, color, dash);
}

void fo_dl_add_text(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                const char *utf8, double x, double y, double size, bool bold,
                const char *font_file, fo_rgb color, fo_anchor anchor, double rotation)
{
    if (!utf8 || !*utf8) return;
    fo_dl_op *op = op_new(dl, FO_DL_TEXT, role, series, point);
    if (!op) return;
    char *s = fo_arena_strdup(dl->arena, utf8);
    char *f = fo_arena_strdup(dl->arena, font_file ? font_file : "");
    if (!s || !f) { dl->status = FO_ERR_NOMEM; dl->n--; return; }
    size_t len = strlen(s);
    fo_dl_text *t = &op->text;
    t->utf8 = s;
    t->x = x;
    t->y = y;
    t->size = size;
    t->bold = bold;
    t->color = color;
    t->anchor = anchor;
    t->rotation = rotation;
    t->font_file = f;
    t->width = fo_text_width(f, size, s, len);
    op->color = color;
    /* bounding box of the unrotated text, for overlap checks */
    double left = anchor == FO_ANCHOR_START ? x : anchor == FO_ANCHOR_MIDDLE ? x - t->width / 2
                                                                              : x - t->width;
    /* bounding box of the text box (ascent 0.8 em, descent 0.2 em), rotated */
    double cs = cos(rotation * M_PI / 180), sn = sin(rotation * M_PI / 180);
    double bx[2] = {left - x, left - x + t->width}, by[2] = {-0.8 * size, 0.2 * size};
    op->x0 = op->y0 = INFINITY;
    op->x1 = op->y1 = -INFINITY;
    for (int i = 0; i < 4; i++) {
        double px = x + bx[i & 1] * cs - by[i >> 1] * sn, py = y + bx[i & 1] * sn + by[i >> 1] * cs;
        op->x0 = fmin(op->x0, px);
        op->x1 = fmax(op->x1, px);
        op->y0 = fmin(op->y0, py);
        op->y1 = fmax(op->y1, py);
    }
}

/* ---- replay ------------------------------------------------------------------ */
void fo_dl_replay(const fo_dl *dl, const fo_dl_backend *b, void *ctx)
{
    if (!dl || !b) return;
    if (b->begin) b->begin(ctx, dl->width, dl->height, dl->background);
    for (size_t i = 0; i < dl->n; i++) {
        const fo_dl_op *op = &dl->ops[i];
        switch (op->kind) {
        case FO_DL_FILL:
            if (op->rect && b->fill_rect)
                b->fill_rect(ctx, op->x0, op->y0, op->x1 - op->x0, op->y1 - op->y0,
                             op->color, op->alpha);
            else if (b->fill) b->fill(ctx, &op->path, op->color, op->alpha);
            break;
        case FO_DL_STROKE:
            if (b->stroke) b->stroke(ctx, &op->path, op->line_width, op->color, op->alpha, op->dash);
            break;
        case FO_DL_TEXT:
            if (b->text) b->text(ctx, &op->text);
            break;
        }
    }
    if (b->end) b->end(ctx);
}
