/* chart.h — the chart engine: lay a chart out once into a display list, then
 * replay that list on a backend (cairo for PNG, libharu for PDF, ...).
 *
 * This is cairo's own design in miniature: one small drawing vocabulary
 * (fill, stroke, text, image), a vtable per backend, and a NULL slot falls
 * back to a more general one. Layout does everything a chart library does
 * (nice ticks, number formats, label thinning, legend placement); a backend
 * only draws what it is told, so every output format shows the same chart.
 *
 * Units: px, origin top-left, y grows downwards. A backend that works in pt
 * with y up (PDF) maps with one transform. Angles are degrees, clockwise
 * positive (as seen on screen). Colors are 0xRRGGBB plus an alpha 0..1. */
#ifndef FO_CHART_H
#define FO_CHART_H

#include "render/core/model.h"
#include "render/core/numfmt.h"
#include "render/core/theme.h"

#define FO_CHART_DEFAULT_WIDTH 800
#define FO_CHART_DEFAULT_HEIGHT 500

/* ---- display list ----------------------------------------------------- */
typedef struct fo_dl fo_dl;

/* Path commands. A CURVE consumes three points (two controls, the end). */
typedef enum { FO_PATH_MOVE, FO_PATH_LINE, FO_PATH_CURVE, FO_PATH_CLOSE } fo_path_cmd;

typedef struct {
    const fo_path_cmd *cmds; /* ncmds entries */
    size_t ncmds;
    const double *pts;       /* x,y pairs: MOVE/LINE 1 point, CURVE 3, CLOSE 0 */
    size_t npts;             /* number of points (pts has 2*npts doubles) */
} fo_dl_path;

typedef enum { FO_DL_FILL, FO_DL_STROKE, FO_DL_TEXT } fo_dl_kind;

/* What an op is part of: lets tests find the bars, and lets Office backends
 * name shapes. series/point are SIZE_MAX when they do not apply. */
typedef enum {
    FO_ROLE_BACKGROUND, FO_ROLE_PLOT, FO_ROLE_GRID, FO_ROLE_AXIS, FO_ROLE_TICK,
    FO_ROLE_VALUE_LABEL,    /* tick labels of the value (y) axis */
    FO_ROLE_CATEGORY_LABEL, /* tick labels of the category / x axis */
    FO_ROLE_TITLE, FO_ROLE_AXIS_TITLE, FO_ROLE_LEGEND_SWATCH, FO_ROLE_LEGEND_TEXT,
    FO_ROLE_BAR, FO_ROLE_LINE, FO_ROLE_MARKER, FO_ROLE_AREA, FO_ROLE_SLICE,
    FO_ROLE_SLICE_LABEL, FO_ROLE_NOTE /* "No data" */
} fo_dl_role;

/* Horizontal anchor of a text op at (x, y); y is the baseline. */
typedef enum { FO_ANCHOR_START, FO_ANCHOR_MIDDLE, FO_ANCHOR_END } fo_anchor;

typedef struct {
    const char *utf8;        /* NUL-terminated, owned by the list */
    double x, y;             /* anchor point on the baseline */
    double size;             /* px (font size, em) */
    bool bold;
    fo_rgb color;
    fo_anchor anchor;
    double rotation;         /* degrees about (x, y), clockwise on screen */
    const char *font_file;   /* TrueType file (theme body/heading font) */
    double width;            /* advance width as measured by fo_text_width */
} fo_dl_text;

typedef struct {
    fo_dl_kind kind;
    fo_dl_role role;
    size_t series, point;    /* SIZE_MAX when not applicable */
    fo_rgb color;
    double alpha;            /* 0..1 */
    fo_dl_path path;         /* FILL, STROKE */
    double line_width;       /* STROKE, px */
    double dash[2];          /* STROKE: on, off px; {0,0} = solid */
    bool rect;               /* FILL: the path is one axis-aligned rectangle */
    double x0, y0, x1, y1;   /* FILL rect / any op: bounding box */
    fo_dl_text text;         /* TEXT */
} fo_dl_op;

/* Lays out c once into a display list of width x height px (0 = the chart's
 * own width/height, else 800 x 500). Reads the data through fo_rows. Never
 * fails on odd data (empty, nulls, one point, negative values): that lays out
 * sensibly. Errors: FO_ERR_NOMEM, a data read error (in d), or FO_ERR_INPUT
 * for a value beyond FO_CHART_VALUE_MAX (in d, naming column and row).
 * Caller frees *out with fo_dl_free. */
fo_status fo_chart_layout(const fo_chart *c, const fo_theme *t, double width, double height,
                          fo_dl **out, fo_diags *d);
void fo_dl_free(fo_dl *dl); /* NULL is a no-op */

double fo_dl_width(const fo_dl *dl);
double fo_dl_height(const fo_dl *dl);
size_t fo_dl_count(const fo_dl *dl);
const fo_dl_op *fo_dl_op_at(const fo_dl *dl, size_t i); /* borrowed; NULL past the end */
fo_rgb fo_dl_background(const fo_dl *dl);

/* ---- backends ----------------------------------------------------------
 * Every slot may be NULL. Fallbacks: fill_rect -> fill; a NULL fill, stroke
 * or text slot skips those ops. begin/end bracket a replay. */
typedef struct {
    void (*begin)(void *ctx, double width, double height, fo_rgb background);
    void (*fill)(void *ctx, const fo_dl_path *p, fo_rgb color, double alpha);
    void (*fill_rect)(void *ctx, double x, double y, double w, double h,
                      fo_rgb color, double alpha);
    void (*stroke)(void *ctx, const fo_dl_path *p, double width, fo_rgb color,
                   double alpha, const double dash[2]);
    void (*text)(void *ctx, const fo_dl_text *t);
    void (*end)(void *ctx);
} fo_dl_backend;

/* Replays dl, op by op in order, on backend b (ctx is passed through). */
void fo_dl_replay(const fo_dl *dl, const fo_dl_backend *b, void *ctx);

/* ---- convenience ----------------------------------------------------------
 * PNG bytes of one chart at scale (0 = 1; 2 = high-DPI), e.g. for DOCX/PPTX
 * pictures. Implemented by render/png. Caller frees *png with fo_free. */
fo_status fo_chart_render_png(const fo_chart *c, const fo_theme *t, double scale,
                              unsigned char **png, size_t *len, fo_diags *d);

/* ---- nice axis scale (exposed for tests and other layouts) --------------- */
typedef struct {
    double min, max, step;   /* ticks at min, min+step, ..., max */
    int nticks;
    bool log;                /* base 10: ticks at min, min*10, ..., max (powers of
                                ten); step is min, for the tick labels' decimals */
} fo_axis_scale;

/* A logarithmic scale covering [lo, hi] (both > 0): from the power of ten
 * below lo to the one above hi (10..1000 -> 1..10,000), a tick per decade. */
fo_axis_scale fo_chart_log_scale(double lo, double hi);

/* A scale of times of day (day fractions) [lo, hi] with about target
 * ticks at whole minutes: 1, 2, 5, 10, 15, 30 minutes, 1, 2, 3, 6, 12 hours. */
fo_axis_scale fo_chart_time_scale(double lo, double hi, int target);

/* The value of tick i of s. */
double fo_chart_tick_value(const fo_axis_scale *s, int i);

/* Where v falls between a (at s->min) and b (at s->max); logarithmic on a
 * log scale (v <= 0 there maps to a). */
double fo_chart_scale_map(const fo_axis_scale *s, double v, double a, double b);

/* Picks a 1-2-5 step and a range covering [lo, hi] with about target ticks.
 * zero_based forces 0 into the range (bar/column/area). lo == hi, NaN and
 * infinities give a sensible range too. */
fo_axis_scale fo_chart_nice_scale(double lo, double hi, int target, bool zero_based);

/* The range [*lo, *hi] of n points of ns series (y[s * n + i]), NaN = missing;
 * stacked: per-point sums of the positives and of the negatives. x (may be
 * NULL) drops the points whose x is not a number (scatter). False when no
 * value is a number. */
bool fo_chart_value_range(const double *y, const double *x, size_t n, size_t ns, bool stacked,
                          double *lo, double *hi);

/* s on whole days when code shows dates without time and a step under a day
 * would print a date twice; otherwise s unchanged. */
fo_axis_scale fo_chart_whole_days(fo_axis_scale s, const char *code);

/* Excel's rule for where a value axis starts: at zero for bars, columns and
 * areas; for lines and scatter unless the data [lo, hi] sit far from it. */
bool fo_chart_zero_based(fo_chart_kind kind, double lo, double hi);

/* The number format for the tick labels of scale s on an axis whose column
 * has format code (NULL, "" or General: plain numbers). Decimals come from the
 * step, never more than it needs (step 50 -> none, 0.25 -> two); thousands
 * separators when the column has them or ticks reach 10,000; currency,
 * percent, literal text and scaling commas of the code are kept (percent and
 * scaling count in the decimals: step 0.005 with "0%" gives "0.5%"). Date,
 * scientific and fraction codes come back unchanged. Writes at most cap bytes
 * with the NUL into out; returns the full length (like snprintf).
 *   "0.00", ticks 0..250000 step 50000 -> "#,##0"       ("250,000")
 *   "$#,##0.00;($#,##0.00)", step 0.5  -> "$#,##0.0;($#,##0.0)" */
size_t fo_chart_tick_format(const char *code, const fo_axis_scale *s, char *out, size_t cap);

/* The label of an x (category) cell as its column displays it through f
 * (NULL = General); text as written. Returns buf or a borrowed string.
 * Shared by the layout and the native Office chart writer. */
const char *fo_chart_value_label(const fo_numfmt *f, const fo_value *v, char *buf, size_t cap);

/* ---- a chart's series, read once from its dataset -------------------------
 * The one reader of chart data, shared by the layout (PNG, PDF) and the
 * native Office chart parts (render/chartxml). Values live in y[s * n + i];
 * NaN marks a missing value (null cell, text cell, non-finite number). */
typedef struct {
    size_t n;           /* points (rows) */
    size_t ns;          /* series (y columns that exist in the dataset) */
    char **cat;         /* n category labels (the x cell as xfmt displays it) */
    double *x;          /* n numeric x values (NaN when not numeric; 1..n without x) */
    double *y;          /* ns * n values */
    const char **names; /* ns series names (the chart's series titles, else column names) */
    long *colors;       /* ns series colours 0xRRGGBB, -1: the palette's (fo_chart_series_color) */
    size_t *cols;       /* ns dataset columns of the series */
    const char *xfmt;   /* the x column's format code ("General" when none);
                           "hh:mm" or "hh:mm:ss" when every x is a time of one
                           day (the labels then show only the time) */
    const char *yfmt;   /* the first y column's format code ("General" when none) */
    const char **fmts;  /* ns series' column format codes ("General" when none) */
    const char *xname;  /* the x column's name ("" without one) */
    bool linked;        /* render/chartxml: the caches refer to the chart's
                           embedded workbook (c:f); the reader leaves it false */
    bool flipped;       /* render/chartxml: rows in reverse and series plotted
                           last first (a clustered bar chart of several series,
                           fo_chartxml_data_read); the reader leaves it false */
    size_t bad_line;    /* CSV line of the first row with a value (a scatter
                           chart's x too) beyond FO_CHART_VALUE_MAX; 0: none
                           or not from a CSV */
    size_t log_line;    /* CSV line of the first row with a value <= 0 when
                           the chart's axis is logarithmic; 0: none */
    fo_arena *arena;    /* owns names, cols and the cat strings */
} fo_chart_series;

/* The format code of column col of ds; "General" when there is none (or no
 * such column). */
const char *fo_chart_column_format(const fo_dataset *ds, size_t col);

/* Reads c's series through fo_rows; category labels through xfmt (NULL =
 * General). Errors: FO_ERR_NOMEM, or the rows' error (FO_ERR_INPUT, in d).
 * Free *s with fo_chart_series_free, also after an error. */
fo_status fo_chart_series_read(const fo_chart *c, const fo_numfmt *xfmt, fo_chart_series *s,
                               fo_diags *d);
void fo_chart_series_free(fo_chart_series *s); /* NULL is a no-op */

/* The rows of s in reverse order: categories, x and every series' values
 * (a right-to-left chart's; a bar chart's part written bottom up). */
void fo_chart_series_reverse(fo_chart_series *s);

/* The colour of series i of s: its own ("color" in the spec), else
 * palette_color (the caller's palette entry for i). */
fo_rgb fo_chart_series_color(const fo_chart_series *s, size_t i, fo_rgb palette_color);

/* FO_ERR_INPUT (reported, naming column and row, at the CSV line when the
 * data are a CSV's) when c has a log axis and a value of s is zero or
 * negative; FO_OK otherwise. Gaps (NaN) pass. */
fo_status fo_chart_series_check_log(const fo_chart *c, const fo_chart_series *s, fo_diags *d);

#endif
