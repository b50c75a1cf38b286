/* png.c — the .png renderer: one PNG per chart block, drawn by replaying the
 * chart's display list on a cairo image surface (the cairo backend below)
 * and written with folio's own fast encoder (encode.c). Where cairo's cost
 * per shape was most of a chart's (issue 39), the backend draws into the
 * surface's pixels itself: the series' lines, the pies' gaps and the
 * markers by distance to the shape, and the blending of translucent areas
 * through cairo's own coverage (FO_PNG_OWN_*, png_encode.h).
 *
 * Fonts come from the theme's TrueType files through cairo-ft (never a
 * fontconfig lookup), glyphs are placed at the advances text.c measured, and
 * no time or machine data goes into the file: the same spec gives the same
 * bytes. Naming: one chart -> OUT.png; several -> OUT-1.png, OUT-2.png, ... */
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include <cairo.h>
#include <cairo-ft.h>
#include <ft2build.h>
#include FT_FREETYPE_H

#include "render/chart/chart.h"
#include "render/png/png_encode.h"
#include "render/render.h"
#include "base/buf.h"
#include "base/proc.h"
#include "render/core/emoji.h"
#include "render/core/prov.h"
#include "render/core/text.h"
#include "base/utf8.h"

/* ---- font faces: one cairo face per TrueType file, kept for the process ---- */
typedef struct {
    char *path;
    cairo_font_face_t *face; /* NULL: the file could not be loaded */
} face_slot;

static pthread_mutex_t face_lock = PTHREAD_MUTEX_INITIALIZER;
static FT_Library ft;
static face_slot *slots;
static size_t nslots, capslots;

/* the FT_Face a cairo face was made from, freed when cairo lets the face go */
static const cairo_user_data_key_t ft_face_key;

static void ft_face_done(void *face) { FT_Done_Face((FT_Face)face); }

static cairo_font_face_t *face_for(const char *path)
{
    cairo_font_face_t *r = NULL;
    pthread_mutex_lock(&face_lock);
    for (size_t i = 0; i < nslots; i++)
        if (strcmp(slots[i].path, path) == 0) {
            r = slots[i].face;
            goto done;
        }
    if (!fo_grow((void **)&slots, &capslots, nslots + 1, 8, sizeof *slots)) goto done;
    char *p = fo_strdup(path);
    if (!p) goto done;
    FT_Face f = NULL;
    if ((ft || FT_Init_FreeType(&ft) == 0) && FT_New_Face(ft, path, 0, &f) == 0) {
        r = cairo_ft_font_face_create_for_ft_face(f, 0);
        if (cairo_font_face_status(r) != CAIRO_STATUS_SUCCESS ||
            cairo_font_face_set_user_data(r, &ft_face_key, f, ft_face_done) != CAIRO_STATUS_SUCCESS) {
            cairo_font_face_destroy(r);
            FT_Done_Face(f);
            r = NULL;
        }
    }
    slots[nslots].path = p;
    slots[nslots].face = r;
    nslots++;
done:
    pthread_mutex_unlock(&face_lock);
    return r;
}

void fo_png_forget_fonts(void)
{
    pthread_mutex_lock(&face_lock);
    for (size_t i = 0; i < nslots; i++) {
        cairo_font_face_destroy(slots[i].face);
        fo_free(slots[i].path);
    }
    fo_free(slots);
    slots = NULL;
    nslots = capslots = 0;
    pthread_mutex_unlock(&face_lock);
}

/* ---- the cairo backend ------------------------------------------------------- */

/* What the backend draws on: cairo, and (own, FO_PNG_OWN_*) what is drawn
 * by the code below rather than by cairo alone (FO_PNG_OWN_ALL but in tests
 * that compare the two). */
/* The A8 coverage masks of translucent fills (own_translucent_fill), one
 * buffer for every fill of a render: all zero between fills (each row is
 * cleared once blended), so cairo draws into it without a fresh, zeroed
 * surface a fill (issue 39: ~0.56 M instructions of an area chart's 9 M
 * went to allocating and clearing three masks of ~270 KB). */
typedef struct {
    unsigned char *at; /* fo_calloc'd, cap bytes */
    size_t cap;
} mask_buf;

typedef struct {
    cairo_t *cr;
    unsigned own;   /* FO_PNG_OWN_* */
    mask_buf *mask; /* borrowed */
} png_ctx;

/* ---- lines and markers drawn by folio -------------------------------------------
 * Why: cairo's scan converter samples 15 sub-rows a pixel row for each edge
 * of a shape, whatever its size; a series' polyline of 12 points (2 px wide,
 * a few hundred rows tall) cost ~0.6 M instructions to stroke, and a 7 px
 * marker ~25,000 (issue 39: three series' lines and 36 markers were ~3.2 M
 * of a line chart's 8.8 M, their pixels' encoding included). Here a pixel's
 * coverage is its centre's distance d to the shape: clamp(half width + 0.5
 * - d, 0, 1), the antialiasing most renderers use for lines and dots; only
 * the pixels within reach of each segment are visited. Edge pixels differ
 * from cairo's exact-area coverage by a few levels (t_png's
 * own_lines_and_markers_match_cairo bounds it); the line's weight and
 * position are the same. Only where nothing can differ otherwise: opaque
 * colour, solid line of straight segments, a transform that only scales. */

/* Colour c (0xRRGGBB) over pixel d with coverage a (0..255), rounded; the
 * pixel's unused top byte kept. */
static inline uint32_t over(uint32_t c, uint32_t d, uint32_t a)
{
    uint32_t na = 255 - a;
    uint32_t rb = (c & 0xFF00FFu) * a + (d & 0xFF00FFu) * na + 0x7F007Fu;
    uint32_t g = ((c >> 8) & 0xFFu) * a + ((d >> 8) & 0xFFu) * na + 0x7Fu;
    rb = ((rb + 0x10001u + ((rb >> 8) & 0xFF00FFu)) >> 8) & 0xFF00FFu; /* / 255, each */
    g = ((g + 1 + (g >> 8)) >> 8) & 0xFFu;
    return (d & 0xFF000000u) | rb | g << 8;
}

static bool device_offset(cairo_surface_t *s)
{
    double dx, dy;
    cairo_surface_get_device_offset(s, &dx, &dy);
    return dx != 0 || dy != 0;
}

/* The surface under cr when the user-to-device transform is a uniform
 * scale plus a translation (*k the scale); NULL otherwise. */
static cairo_surface_t *plain_target(cairo_t *cr, double *k)
{
    cairo_matrix_t m;
    cairo_get_matrix(cr, &m);
    cairo_surface_t *s = cairo_get_target(cr);
    if (m.xy != 0 || m.yx != 0 || m.xx != m.yy || !(m.xx > 0) ||
        cairo_surface_get_type(s) != CAIRO_SURFACE_TYPE_IMAGE ||
        (cairo_image_surface_get_format(s) != CAIRO_FORMAT_RGB24 &&
         cairo_image_surface_get_format(s) != CAIRO_FORMAT_ARGB32) ||
        device_offset(s))
        return NULL;
    *k = m.xx;
    return s;
}

static double clamp01(double v) { return v < 0 ? 0 : v > 1 ? 1 : v; }

typedef struct {
    double ax, ay, dx, dy, len2, len; /* start, direction (end - start), |d|^2, |d| */
    double top, bottom;               /* the smaller and the larger y */
    bool cap0, cap1;                  /* butt cap at the start / at the end */
} seg;

/* Coverage (0..1) of the pixel centred at (px, py) by the stroke of
 * half-width h along s: round where segments meet, butt at the ends. */
static double seg_cover(const seg *s, double h, double px, double py)
{
    double ex = px - s->ax, ey = py - s->ay;
    double t = s->len2 > 0 ? (ex * s->dx + ey * s->dy) / s->len2 : 0;
    if ((t < 0 && s->cap0) || (t > 1 && s->cap1)) { /* beyond a butt end */
        double perp = fabs(ex * s->dy - ey * s->dx) / s->len;
        double out = t < 0 ? -t * s->len : (t - 1) * s->len;
        return fmin(clamp01(h + 0.5 - perp), clamp01(0.5 - out));
    }
    t = t < 0 ? 0 : t > 1 ? 1 : t;
    double qx = ex - t * s->dx, qy = ey - t * s->dy;
    return clamp01(h + 0.5 - sqrt(qx * qx + qy * qy));
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* over() in each 16-bit lane of c16 (the colour's channels), d16 (the
 * pixels') and a16 (their coverages): the same integers, none past 16 bits
 * (c * a + d * (255 - a) + 127 <= 65152). */
static inline __attribute__((target("avx2"))) __m256i over16(__m256i c16, __m256i d16, __m256i a16)
{
    __m256i x = _mm256_add_epi16(_mm256_mullo_epi16(c16, a16),
                                 _mm256_mullo_epi16(d16, _mm256_sub_epi16(_mm256_set1_epi16(255), a16)));
    x = _mm256_add_epi16(x, _mm256_set1_epi16(0x7F));
    x = _mm256_add_epi16(_mm256_add_epi16(x, _mm256_set1_epi16(1)), _mm256_srli_epi16(x, 8));
    return _mm256_srli_epi16(x, 8);
}

/* Colour c over d[0..n) (n a multiple of eight) with coverages m[0..n),
 * clearing them: over() eight pixels a step. At coverage 0 over() gives the
 * pixel back and at 255 the colour, so no pixel needs a case of its own. */
static __attribute__((target("avx2"))) void over_row_avx2(uint32_t *d, unsigned char *m, int n, uint32_t c)
{
    __m256i c16 = _mm256_cvtepu8_epi16(_mm_set1_epi32((int)c)), z = _mm256_setzero_si256();
    __m256i top = _mm256_set1_epi32((int)0xFF000000u);
    for (int x = 0; x + 8 <= n; x += 8) {
        uint64_t m8;
        memcpy(&m8, m + x, 8);
        if (m8 == 0) continue;
        /* each pixel's coverage in its four bytes, unpacked as the pixels
           are (within 128-bit lanes; the packing puts them back) */
        __m256i mrep = _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)m8)),
                                          _mm256_set1_epi32(0x01010101));
        __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)(d + x));
        __m256i lo = over16(c16, _mm256_unpacklo_epi8(v, z), _mm256_unpacklo_epi8(mrep, z));
        __m256i hi = over16(c16, _mm256_unpackhi_epi8(v, z), _mm256_unpackhi_epi8(mrep, z));
        __m256i r = _mm256_blendv_epi8(_mm256_packus_epi16(lo, hi), v, top); /* the top byte kept */
        _mm256_storeu_si256((__m256i *)(void *)(d + x), r);
        memset(m + x, 0, 8);
    }
}
#endif

/* Blends colour over the pixels [x0, x1) of row y with the coverages
 * cov[x0 - bx ..] (bx: the first column cov holds), clearing them. Columns
 * [lo, hi) hold pixels and coverages, zero but where a stretch still to be
 * blended has them: with AVX2 the stretch is widened to whole eights
 * within them (a zero coverage leaves a pixel as it is, and a stretch
 * blended early is not blended again: its coverages are cleared). Issue
 * 39: a line's two to four pixels a row, pixel by pixel, were ~0.25 M
 * instructions of a line chart. */
static inline void blend_row(unsigned char *data, int stride, int y, int bx, int x0, int x1,
                             unsigned char *cov, uint32_t color, int lo, int hi)
{
    uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
#if defined(__x86_64__) && defined(__GNUC__)
    int wide = (x1 - x0 + 7) & ~7;
    if (x1 > x0 && wide <= hi - lo && __builtin_cpu_supports("avx2")) {
        if (x0 + wide > hi) x0 = hi - wide;
        over_row_avx2(row + x0, cov + (x0 - bx), wide, color);
        return;
    }
#else
    (void)lo, (void)hi;
#endif
    for (int x = x0; x < x1; x++) {
        uint32_t a = cov[x - bx];
        if (a == 255) row[x] = (row[x] & 0xFF000000u) | color;
        else if (a) row[x] = over(color, row[x], a);
        cov[x - bx] = 0;
    }
}

/* Segment order by top edge, for the sweep down the rows. */
static int seg_top_cmp(const void *a, const void *b)
{
    const seg *x = *(const seg *const *)a, *y = *(const seg *const *)b;
    return x->top < y->top ? -1 : x->top > y->top;
}

static int span_cmp(const void *a, const void *b)
{
    const int *x = a, *y = b;
    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* spans[0..n) in order of start: by insertion when few (a row of a chart's
 * line has one to three). */
static void sort_spans(int (*spans)[2], size_t n)
{
    if (n > 16) {
        qsort(spans, n, sizeof *spans, span_cmp);
        return;
    }
    for (size_t i = 1; i < n; i++) {
        int a = spans[i][0], b = spans[i][1];
        size_t j = i;
        for (; j > 0 && spans[j - 1][0] > a; j--) {
            spans[j][0] = spans[j - 1][0];
            spans[j][1] = spans[j - 1][1];
        }
        spans[j][0] = a;
        spans[j][1] = b;
    }
}

/* floor and ceil of v (|v| < 2^31), inline: without SSE4.1 the libm
 * calls were ~0.07 M instructions of a line chart (two a row and segment). */
static inline int floor_int(double v)
{
    int i = (int)v;
    return i - (i > v);
}

static inline int ceil_int(double v)
{
    int i = (int)v;
    return i + (i < v);
}

/* Adds the coverage of segment q to cov (cov[0] is column x0) for pixel row
 * y (centre cy), pixels [x0, x1); D: reach of the coverage (half width +
 * 0.5). Stores the columns it looked at in span; false when none. */
static bool seg_row(const seg *q, double h, double D, double cy, int x0, int x1, unsigned char *cov,
                    int span[2])
{
    /* pixel centres within D of the segment's line, and of its ends (round
       joins, butt caps) */
    double xl = q->dx < 0 ? q->ax + q->dx : q->ax, xr = xl + fabs(q->dx);
    xl -= D;
    xr += D;
    if (q->dy != 0) {
        double xc = q->ax + (cy - q->ay) * q->dx / q->dy, half = D * q->len / fabs(q->dy);
        if (xc - half > xl) xl = xc - half;
        if (xc + half < xr) xr = xc + half;
    }
    int sx0 = ceil_int(xl - 0.5), sx1 = floor_int(xr - 0.5) + 1;
    if (sx0 < x0) sx0 = x0;
    if (sx1 > x1) sx1 = x1;
    if (sx1 <= sx0) return false;
    /* across the row the distance to the line and the position along the
       segment change by constant steps */
    double ex = sx0 + 0.5 - q->ax, ey = cy - q->ay;
    double perp = (ex * q->dy - ey * q->dx) / q->len, dperp = q->dy / q->len;
    double t = (ex * q->dx + ey * q->dy) / q->len2, dt = q->dx / q->len2;
    for (int x = sx0; x < sx1; x++, perp += dperp, t += dt) {
        double c = t >= 0 && t <= 1 ? D - fabs(perp) : seg_cover(q, h, x + 0.5, cy);
        if (c <= 0) continue;
        unsigned v = c >= 1 ? 255 : (unsigned)(c * 255 + 0.5);
        if (v > cov[x - x0]) cov[x - x0] = (unsigned char)v;
    }
    span[0] = sx0;
    span[1] = sx1;
    return true;
}

/* Strokes p (straight LINEs, in one or more subpaths, each begun by a
 * MOVE) with width (user units) in opaque color, round joins and butt ends
 * as cairo's stroke would; false when p or the transform is not such, or
 * memory ran out (the caller strokes with cairo). Rows top to bottom, each
 * with the segments within reach (sorted by top, so a long series costs its
 * segments, not segments x rows); per row the segments' coverages are
 * united (the larger wins) and blended once. */
static bool own_polyline(cairo_t *cr, const fo_dl_path *p, double width, fo_rgb color)
{
    double k;
    cairo_surface_t *s = plain_target(cr, &k);
    if (!s || p->ncmds < 2 || p->npts != p->ncmds || p->cmds[0] != FO_PATH_MOVE) return false;
    for (size_t i = 1; i < p->ncmds; i++)
        if (p->cmds[i] != FO_PATH_LINE && p->cmds[i] != FO_PATH_MOVE) return false;
    double h = width * k / 2, R = h + 1, D = h + 0.5;
    if (!(h >= 0.5 && h < 64)) return false;
    size_t m = p->npts - 1;
    seg *sg = fo_malloc(m * sizeof *sg);
    const seg **order = fo_malloc(m * sizeof *order), **act = fo_malloc(m * sizeof *act);
    int(*spans)[2] = fo_malloc(m * sizeof *spans);
    unsigned char *cov = NULL;
    bool ok = sg && order && act && spans;
    /* the segments in device pixels, zero-length ones dropped; butt ends
       where each subpath begins and ends */
    size_t n = 0, first = 0;
    double px0 = 0, py0 = 0, bx0 = INFINITY, by0 = INFINITY, bx1 = -INFINITY, by1 = -INFINITY;
    for (size_t i = 0; ok && i < p->npts; i++) {
        double x = p->pts[2 * i], y = p->pts[2 * i + 1];
        cairo_user_to_device(cr, &x, &y);
        ok = isfinite(x) && isfinite(y) && fabs(x) < 1e7 && fabs(y) < 1e7;
        if (!ok) break;
        bx0 = fmin(bx0, x);
        bx1 = fmax(bx1, x);
        by0 = fmin(by0, y);
        by1 = fmax(by1, y);
        if (p->cmds[i] == FO_PATH_MOVE) {
            if (n > first) sg[first].cap0 = sg[n - 1].cap1 = true;
            first = n;
        } else if (x != px0 || y != py0) {
            seg *q = &sg[n++];
            *q = (seg){px0, py0, x - px0, y - py0, 0, 0, py0 < y ? py0 : y, py0 < y ? y : py0, false, false};
            q->len2 = q->dx * q->dx + q->dy * q->dy;
            q->len = sqrt(q->len2);
        }
        px0 = x;
        py0 = y;
    }
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
    int x0 = 0, x1 = 0, y0 = 0, y1 = 0;
    if (ok && n > 0) {
        if (n > first) sg[first].cap0 = sg[n - 1].cap1 = true;
        x0 = (int)fmax(0, floor(bx0 - R));
        x1 = (int)fmin(W, ceil(bx1 + R));
        y0 = (int)fmax(0, floor(by0 - R));
        y1 = (int)fmin(H, ceil(by1 + R));
        if (x1 > x0 && y1 > y0) ok = (cov = fo_calloc((size_t)(x1 - x0), 1)) != NULL;
    }
    ok = ok && n > 0; /* none: cairo knows what to make of it (nothing, or a dot) */
    if (ok && cov) {
        for (size_t i = 0; i < n; i++) order[i] = &sg[i];
        qsort(order, n, sizeof *order, seg_top_cmp);
        cairo_surface_flush(s);
        unsigned char *data = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        uint32_t c = color & 0xFFFFFFu;
        size_t next = 0, na = 0;
        for (int y = y0; y < y1; y++) {
            double lo = y - R, hi = y + 1 + R, cy = y + 0.5;
            size_t keep = 0, ns = 0;
            for (size_t i = 0; i < na; i++) /* drop those above */
                if (act[i]->bottom >= lo) act[keep++] = act[i];
            na = keep;
            while (next < n && order[next]->top <= hi) act[na++] = order[next++];
            for (size_t i = 0; i < na; i++) ns += seg_row(act[i], h, D, cy, x0, x1, cov, spans[ns]);
            sort_spans(spans, ns);
            for (size_t j = 0; j < ns;) { /* each stretch of overlapping spans once */
                int a = spans[j][0], b = spans[j][1];
                for (j++; j < ns && spans[j][0] <= b; j++) b = spans[j][1] > b ? spans[j][1] : b;
                blend_row(data, stride, y, x0, a, b, cov, c, x0, x1);
            }
        }
        cairo_surface_mark_dirty_rectangle(s, x0, y0, x1 - x0, y1 - y0);
    }
    fo_free(cov);
    fo_free(sg);
    fo_free(order);
    fo_free(act);
    fo_free(spans);
    return ok;
}

/* Fills p in opaque color when it is a whole circle as fo_dl_path_arc
 * draws one (MOVE at angle 0, four quarter curves, CLOSE): a marker. False
 * when it is not (the caller fills with cairo). */
static bool own_disc(cairo_t *cr, const fo_dl_path *p, fo_rgb color)
{
    double k;
    cairo_surface_t *s = plain_target(cr, &k);
    static const fo_path_cmd circle[6] = {FO_PATH_MOVE,  FO_PATH_CURVE, FO_PATH_CURVE,
                                          FO_PATH_CURVE, FO_PATH_CURVE, FO_PATH_CLOSE};
    if (!s || p->ncmds != 6 || p->npts != 13 || memcmp(p->cmds, circle, sizeof circle) != 0) return false;
    const double *q = p->pts;
    /* the on-curve points: 0 (angle 0), 3, 6, 9 (a quarter turn each), 12 = 0 */
    double cx = (q[0] + q[12]) / 2, cy = (q[7] + q[19]) / 2, r = (q[0] - q[12]) / 2;
    if (!(r > 0) || !isfinite(cx) || !isfinite(cy) || !isfinite(r) || q[24] != q[0] || q[25] != q[1])
        return false;
    double tol = 1e-6 * r;
    if (fabs(q[1] - cy) > tol || fabs(q[13] - cy) > tol || fabs(q[6] - cx) > tol || fabs(q[18] - cx) > tol ||
        fabs(q[7] - cy - r) > tol || fabs(cy - q[19] - r) > tol)
        return false;
    cairo_user_to_device(cr, &cx, &cy);
    r *= k;
    if (!(r >= 1 && r < 64)) return false;
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
    int x0 = (int)fmax(0, floor(cx - r - 1)), x1 = (int)fmin(W, ceil(cx + r + 1));
    int y0 = (int)fmax(0, floor(cy - r - 1)), y1 = (int)fmin(H, ceil(cy + r + 1));
    if (x1 <= x0 || y1 <= y0) return true;
    cairo_surface_flush(s);
    unsigned char *data = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    uint32_t c = color & 0xFFFFFFu;
    for (int y = y0; y < y1; y++) {
        uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
        double ey = y + 0.5 - cy;
        for (int x = x0; x < x1; x++) {
            double ex = x + 0.5 - cx;
            double v = clamp01(r + 0.5 - sqrt(ex * ex + ey * ey));
            uint32_t a = (uint32_t)(v * 255 + 0.5);
            if (a == 255) row[x] = (row[x] & 0xFF000000u) | c;
            else if (a) row[x] = over(c, row[x], a);
        }
    }
    cairo_surface_mark_dirty_rectangle(s, x0, y0, x1 - x0, y1 - y0);
    return true;
}

static void set_color(cairo_t *cr, fo_rgb c, double alpha)
{
    cairo_set_source_rgba(cr, ((c >> 16) & 0xFF) / 255.0, ((c >> 8) & 0xFF) / 255.0, (c & 0xFF) / 255.0,
                          alpha);
}

static void set_path(cairo_t *cr, const fo_dl_path *p)
{
    const double *q = p->pts;
    cairo_new_path(cr);
    for (size_t i = 0; i < p->ncmds; i++) {
        switch (p->cmds[i]) {
        case FO_PATH_MOVE:
            cairo_move_to(cr, q[0], q[1]);
            q += 2;
            break;
        case FO_PATH_LINE:
            cairo_line_to(cr, q[0], q[1]);
            q += 2;
            break;
        case FO_PATH_CURVE:
            cairo_curve_to(cr, q[0], q[1], q[2], q[3], q[4], q[5]);
            q += 6;
            break;
        case FO_PATH_CLOSE: cairo_close_path(cr); break;
        }
    }
}

/* ---- translucent fills (areas) -------------------------------------------------
 * cairo_fill composites a translucent colour span by span: one pixman call
 * per row and per run of full coverage (issue 39: ~2.3 M instructions of
 * call setup in a three-series area chart, ~4.4 M of pixman in all). Here
 * cairo still rasterizes the path, into an A8 coverage mask of its box,
 * and the blending is done here, exactly as pixman's OVER of a solid colour
 * through an 8-bit mask (in, then over, each channel rounded by MUL_UN8),
 * eight pixels at a time where AVX2 is. Same pixels as cairo_fill (t_png:
 * translucent_fill_is_cairo_fill). */

/* x * y / 255, rounded as pixman's MUL_UN8 does. */
static inline uint32_t mul_un8(uint32_t x, uint32_t y)
{
    uint32_t t = x * y + 0x80;
    return ((t >> 8) + t) >> 8;
}

/* Source s (premultiplied 0xAARRGGBB) through coverage m over pixel d. */
static inline uint32_t over_masked(uint32_t s, uint32_t m, uint32_t d)
{
    uint32_t r = 0;
    if (m != 255) {
        s = mul_un8(s >> 24, m) << 24 | mul_un8((s >> 16) & 0xFF, m) << 16 |
            mul_un8((s >> 8) & 0xFF, m) << 8 | mul_un8(s & 0xFF, m);
    }
    uint32_t ia = 255 - (s >> 24);
    for (int sh = 0; sh < 32; sh += 8) {
        uint32_t v = ((s >> sh) & 0xFF) + mul_un8((d >> sh) & 0xFF, ia);
        r |= (v > 255 ? 255 : v) << sh;
    }
    return r;
}

/* Blends s through the coverages m[0..n) over the pixels d[0..n), one by one. */
static void blend_masked_plain(uint32_t s, const unsigned char *m, uint32_t *d, int n)
{
    for (int x = 0; x < n; x++)
        if (m[x]) d[x] = over_masked(s, m[x], d[x]);
}

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
/* x * y / 255 in each 16-bit lane, rounded as MUL_UN8. */
static inline __attribute__((target("avx2"))) __m256i mul_un8x16(__m256i x, __m256i y)
{
    __m256i t = _mm256_add_epi16(_mm256_mullo_epi16(x, y), _mm256_set1_epi16(0x80));
    return _mm256_srli_epi16(_mm256_add_epi16(t, _mm256_srli_epi16(t, 8)), 8);
}

/* over_masked for the eight pixels at d with coverages m[0..8); s16: the
 * source's four channels as 16-bit lanes, twice in each 128-bit lane. */
static inline __attribute__((target("avx2"))) void over8_masked(__m256i s16, const unsigned char *m,
                                                                uint32_t *d)
{
    uint64_t m8;
    memcpy(&m8, m, 8);
    /* each pixel's coverage in its four bytes, then 16-bit lanes ordered
       as the pixels' unpacked channels */
    __m256i mrep = _mm256_mullo_epi32(_mm256_cvtepu8_epi32(_mm_cvtsi64_si128((long long)m8)),
                                      _mm256_set1_epi32(0x01010101));
    __m256i z = _mm256_setzero_si256(), v = _mm256_loadu_si256((const __m256i *)(const void *)d);
    __m256i slo = mul_un8x16(s16, _mm256_unpacklo_epi8(mrep, z));
    __m256i shi = mul_un8x16(s16, _mm256_unpackhi_epi8(mrep, z));
    __m256i ff = _mm256_set1_epi16(255);
    __m256i alo = _mm256_sub_epi16(ff, _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(slo, 0xFF), 0xFF));
    __m256i ahi = _mm256_sub_epi16(ff, _mm256_shufflehi_epi16(_mm256_shufflelo_epi16(shi, 0xFF), 0xFF));
    __m256i lo = mul_un8x16(_mm256_unpacklo_epi8(v, z), alo),
            hi = mul_un8x16(_mm256_unpackhi_epi8(v, z), ahi);
    /* unpack/pack work within 128-bit lanes: the order comes back */
    __m256i r = _mm256_adds_epu8(_mm256_packus_epi16(lo, hi), _mm256_packus_epi16(slo, shi));
    _mm256_storeu_si256((__m256i *)(void *)d, r);
}

/* The same for whole coverage (255): no multiplication of the source. */
static inline __attribute__((target("avx2"))) __m256i over8v(__m256i s16, __m256i ia16, __m256i v)
{
    __m256i z = _mm256_setzero_si256();
    __m256i lo = mul_un8x16(_mm256_unpacklo_epi8(v, z), ia16),
            hi = mul_un8x16(_mm256_unpackhi_epi8(v, z), ia16);
    return _mm256_adds_epu8(_mm256_packus_epi16(lo, hi), _mm256_packus_epi16(s16, s16));
}

/* Eight pixels under whole coverage. The inside of an area lies mostly
 * over runs of one colour (the background, an earlier area), so the last
 * eight blended (*in -> *out) are reused when these are the same: a
 * compare instead of the arithmetic (issue 39). */
static inline __attribute__((target("avx2"))) void over8(__m256i s16, __m256i ia16, uint32_t *d, __m256i *in,
                                                         __m256i *out)
{
    __m256i v = _mm256_loadu_si256((const __m256i *)(const void *)d);
    if (_mm256_movemask_epi8(_mm256_cmpeq_epi32(v, *in)) != -1) {
        *in = v;
        *out = over8v(s16, ia16, v);
    }
    _mm256_storeu_si256((__m256i *)(void *)d, *out);
}

/* blend_masked_plain with AVX2: eight pixels a step, sixteen coverages
 * looked at at once (most are all 0 or all 255). */
static __attribute__((target("avx2"))) void blend_masked_avx2(uint32_t s, const unsigned char *m, uint32_t *d,
                                                              int n)
{
    __m256i s16 = _mm256_cvtepu8_epi16(_mm_set1_epi64x((long long)((uint64_t)s << 32 | s)));
    __m256i ia16 = _mm256_set1_epi16((short)(255 - (s >> 24)));
    __m256i in = _mm256_setzero_si256(), out = over8v(s16, ia16, in);
    int x = 0;
    for (; x + 16 <= n; x += 16) {
        __m128i c = _mm_loadu_si128((const __m128i *)(const void *)(m + x));
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(c, _mm_setzero_si128())) == 0xFFFF) continue;
        if (_mm_movemask_epi8(_mm_cmpeq_epi8(c, _mm_set1_epi8((char)0xFF))) == 0xFFFF) {
            over8(s16, ia16, d + x, &in, &out);
            over8(s16, ia16, d + x + 8, &in, &out);
        } else {
            over8_masked(s16, m + x, d + x);
            over8_masked(s16, m + x + 8, d + x + 8);
        }
    }
    blend_masked_plain(s, m + x, d + x, n - x);
}
#endif

/* Blends s through the coverages m[0..n) over the pixels d[0..n). */
static void blend_masked_row(bool avx2, uint32_t s, const unsigned char *m, uint32_t *d, int n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (avx2) {
        blend_masked_avx2(s, m, d, n);
        return;
    }
#endif
    (void)avx2;
    blend_masked_plain(s, m, d, n);
}

/* A translucent fill's colour as own_fill blends it, set up once a fill
 * rather than once a stretch of a row: the premultiplied source and, with AVX2, its channels in 16-bit lanes, 255
 * minus its alpha, and the last eight pixels blended at whole coverage with
 * their result, kept from one stretch to the next (they run over the same
 * few colours). */
typedef struct {
    uint32_t s;
    bool avx2;
#if defined(__x86_64__) && defined(__GNUC__)
    __m256i s16, ia16, in, out;
#endif
} blend_src;

#if defined(__x86_64__) && defined(__GNUC__)
static __attribute__((target("avx2"))) void blend_src_avx2(blend_src *b)
{
    b->s16 = _mm256_cvtepu8_epi16(_mm_set1_epi64x((long long)((uint64_t)b->s << 32 | b->s)));
    b->ia16 = _mm256_set1_epi16((short)(255 - (b->s >> 24)));
    b->in = _mm256_setzero_si256();
    b->out = over8v(b->s16, b->ia16, b->in);
}

/* b over the pixels d[0..n) at whole coverage: the inside of a fill, no
 * coverage to look at. Mostly 32 pixels like the last eight at once; the
 * last few pixels through a masked load and store. */
static __attribute__((target("avx2"))) void solid_avx2(blend_src *b, uint32_t *d, int n)
{
    __m256i in = b->in, out = b->out;
    int x = 0;
    for (; x + 32 <= n; x += 32) {
        __m256i *v = (__m256i *)(void *)(d + x);
        __m256i p = _mm256_loadu_si256(v), q = _mm256_loadu_si256(v + 1), r = _mm256_loadu_si256(v + 2),
                t = _mm256_loadu_si256(v + 3);
        __m256i same =
            _mm256_and_si256(_mm256_and_si256(_mm256_cmpeq_epi32(p, in), _mm256_cmpeq_epi32(q, in)),
                             _mm256_and_si256(_mm256_cmpeq_epi32(r, in), _mm256_cmpeq_epi32(t, in)));
        if (_mm256_movemask_epi8(same) == -1) {
            _mm256_storeu_si256(v, out);
            _mm256_storeu_si256(v + 1, out);
            _mm256_storeu_si256(v + 2, out);
            _mm256_storeu_si256(v + 3, out);
            continue;
        }
        for (int k = 0; k < 32; k += 8) over8(b->s16, b->ia16, d + x + k, &in, &out);
    }
    for (; x + 8 <= n; x += 8) over8(b->s16, b->ia16, d + x, &in, &out);
    if (x < n) {
        __m256i lanes =
            _mm256_cmpgt_epi32(_mm256_set1_epi32(n - x), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
        int *p = (int *)(void *)(d + x);
        _mm256_maskstore_epi32(p, lanes, over8v(b->s16, b->ia16, _mm256_maskload_epi32(p, lanes)));
    }
    b->in = in;
    b->out = out;
}

/* b through the coverages m[0..n) (n a multiple of eight) over d[0..n),
 * clearing them: eight at a time, none to blend, whole or partial. */
static __attribute__((target("avx2"))) void cells_avx2(blend_src *b, unsigned char *m, uint32_t *d, int n)
{
    for (int x = 0; x < n; x += 8) {
        uint64_t m8;
        memcpy(&m8, m + x, 8);
        if (m8 == 0) continue;
        if (m8 == ~(uint64_t)0) over8(b->s16, b->ia16, d + x, &b->in, &b->out);
        else over8_masked(b->s16, m + x, d + x);
        memset(m + x, 0, 8);
    }
}
#endif

static void blend_src_init(blend_src *b, uint32_t s)
{
    b->s = s;
    b->avx2 = false;
#if defined(__x86_64__) && defined(__GNUC__)
    b->avx2 = __builtin_cpu_supports("avx2");
    if (b->avx2) blend_src_avx2(b);
#endif
}

/* Blends b over the pixels d[0..n) at whole coverage. */
static inline void blend_solid(blend_src *b, uint32_t *d, int n)
{
#if defined(__x86_64__) && defined(__GNUC__)
    if (b->avx2) {
        solid_avx2(b, d, n);
        return;
    }
#endif
    for (int x = 0; x < n; x++) d[x] = over_masked(b->s, 255, d[x]);
}

/* Blends b through the coverages cov[xa..xb) over row[xa..xb) of a row w
 * pixels wide, clearing them. cov is zero everywhere else, so the stretch
 * is widened to whole eights where the row has room (no pixel by pixel
 * blending): a zero coverage leaves a pixel as it is. */
static inline void blend_cells(blend_src *b, unsigned char *cov, uint32_t *row, int xa, int xb, int w)
{
    int wide = (xb - xa + 7) & ~7;
    if (wide <= w) {
        xb = xa + wide;
        if (xb > w) xa -= xb - w, xb = w;
    }
#if defined(__x86_64__) && defined(__GNUC__)
    if (b->avx2 && wide <= w) {
        cells_avx2(b, cov + xa, row + xa, xb - xa);
        return;
    }
#endif
    blend_masked_plain(b->s, cov + xa, row + xa, xb - xa);
    memset(cov + xa, 0, (size_t)(xb - xa));
}

/* The premultiplied 0xAARRGGBB pixel cairo gives pixman for color at alpha. */
static bool source_pixel(fo_rgb color, double alpha, uint32_t *px)
{
    cairo_surface_t *one = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, 1, 1);
    cairo_t *c = cairo_create(one);
    set_color(c, color, alpha);
    cairo_set_operator(c, CAIRO_OPERATOR_SOURCE);
    cairo_paint(c);
    bool ok = cairo_status(c) == CAIRO_STATUS_SUCCESS;
    cairo_destroy(c);
    cairo_surface_flush(one);
    if (ok) memcpy(px, cairo_image_surface_get_data(one), 4);
    cairo_surface_destroy(one);
    return ok;
}

/* Fills p in color at alpha < 1 through a coverage mask; false when it
 * cannot (the transform, memory): the caller fills with cairo. */
/* An A8 surface of w x h on mb's zeroed bytes (a new one when mb cannot
 * grow): the caller destroys it and leaves the bytes zero. */
static cairo_surface_t *mask_surface(mask_buf *mb, int w, int h)
{
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_A8, w);
    size_t bytes = stride > 0 ? (size_t)stride * (size_t)h : 0;
    if (bytes > mb->cap) {
        fo_free(mb->at);
        mb->at = fo_calloc(bytes, 1);
        mb->cap = mb->at ? bytes : 0;
    }
    if (!bytes || !mb->at) return cairo_image_surface_create(CAIRO_FORMAT_A8, w, h);
    return cairo_image_surface_create_for_data(mb->at, CAIRO_FORMAT_A8, w, h, stride);
}

static bool own_translucent_fill(cairo_t *cr, mask_buf *mb, const fo_dl_path *p, fo_rgb color, double alpha)
{
    double k;
    cairo_surface_t *s = plain_target(cr, &k);
    uint32_t src;
    if (!s || p->npts == 0 || !source_pixel(color, alpha, &src)) return false;
    double lx = INFINITY, ly = INFINITY, hx = -INFINITY, hy = -INFINITY;
    for (size_t i = 0; i < p->npts; i++) { /* a curve stays within its control points */
        double x = p->pts[2 * i], y = p->pts[2 * i + 1];
        cairo_user_to_device(cr, &x, &y);
        lx = fmin(lx, x);
        hx = fmax(hx, x);
        ly = fmin(ly, y);
        hy = fmax(hy, y);
    }
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
    if (!(lx < W && ly < H && hx > 0 && hy > 0))
        return isfinite(lx) && isfinite(ly) && isfinite(hx) && isfinite(hy);
    int x0 = (int)fmax(0, floor(lx) - 1), y0 = (int)fmax(0, floor(ly) - 1);
    int x1 = (int)fmin(W, ceil(hx) + 1), y1 = (int)fmin(H, ceil(hy) + 1);
    /* whole steps of sixteen pixels where the surface has room: the row's
       last few pixels are not left to the pixel by pixel code */
    int wide = (x1 - x0 + 15) & ~15;
    if (wide <= W) {
        x1 = x0 + wide;
        if (x1 > W) x0 -= x1 - W, x1 = W;
    }
    cairo_surface_t *m = mask_surface(mb, x1 - x0, y1 - y0);
    cairo_t *mc = cairo_create(m);
    bool ok = cairo_status(mc) == CAIRO_STATUS_SUCCESS;
    if (ok) {
        cairo_matrix_t ctm;
        cairo_get_matrix(cr, &ctm);
        cairo_translate(mc, -x0, -y0);
        cairo_transform(mc, &ctm);
        cairo_set_tolerance(mc, cairo_get_tolerance(cr));
        cairo_set_fill_rule(mc, cairo_get_fill_rule(cr));
        cairo_set_antialias(mc, cairo_get_antialias(cr));
        set_path(mc, p);
        cairo_fill(mc);
        ok = cairo_status(mc) == CAIRO_STATUS_SUCCESS;
    }
    cairo_destroy(mc);
    cairo_surface_flush(m);
    unsigned char *mask = cairo_image_surface_get_data(m);
    int mstride = cairo_image_surface_get_stride(m);
    if (ok) {
        cairo_surface_flush(s);
        int stride = cairo_image_surface_get_stride(s);
        unsigned char *data = cairo_image_surface_get_data(s);
        bool avx2 = false;
#if defined(__x86_64__) && defined(__GNUC__)
        avx2 = __builtin_cpu_supports("avx2");
#endif
        for (int y = y0; y < y1; y++) {
            unsigned char *mrow = mask + (size_t)(y - y0) * (size_t)mstride;
            blend_masked_row(avx2, src, mrow, (uint32_t *)(void *)(data + (size_t)y * (size_t)stride) + x0,
                             x1 - x0);
            memset(mrow, 0, (size_t)mstride);
        }
        cairo_surface_mark_dirty_rectangle(s, x0, y0, x1 - x0, y1 - y0);
    } else if (mask == mb->at) {
        memset(mask, 0, (size_t)mstride * (size_t)(y1 - y0));
    }
    cairo_surface_destroy(m);
    return ok;
}

/* ---- solid fills: exact-area coverage -------------------------------------------
 * Why: cairo's scan converter samples fifteen sub-rows a pixel row for every
 * edge (issue 39: a pie's six sectors cost ~2 M instructions to fill, an
 * area chart's three polygons ~1.1 M). Here each pixel's coverage is the
 * exact area of the polygon inside it (the accumulation of signed areas
 * that font rasterizers use): per pixel row, every edge crossing it adds its
 * trapezoid's area to the cells it passes and its height to the cell after;
 * a running sum along the row is the coverage, constant between the edges'
 * cells (a run filled at once). Curves are flattened to the tolerance cairo
 * flattens them to. Nonzero winding as |sum| clamped to 1: exact for simple
 * polygons (sectors, areas). Edge pixels differ from cairo's sampled
 * coverage by a few levels (t_png: own_fills_match_cairo bounds it). */
typedef struct {
    double y0, y1, x0, dxdy, dir; /* y0 < y1; x at y0; dir: +1 downward, -1 upward */
} fill_edge;

typedef struct {
    fill_edge *e;
    size_t n, cap;
    double W, H; /* the surface: every edge lies within [0, W] x [0, H] */
} fill_edges;

/* Adds the edge from (xa, ya) to (xb, yb); false when it leaves the
 * surface or memory ran out. */
static bool edge_add(fill_edges *es, double xa, double ya, double xb, double yb)
{
    if (!(xa >= 0 && xa <= es->W && xb >= 0 && xb <= es->W && ya >= 0 && ya <= es->H && yb >= 0 &&
          yb <= es->H))
        return false;
    if (ya == yb) return true; /* horizontal: adds nothing */
    if (es->n == es->cap) {
        size_t cap = es->cap ? es->cap * 2 : 64;
        fill_edge *e = fo_realloc(es->e, cap * sizeof *e);
        if (!e) return false;
        es->e = e;
        es->cap = cap;
    }
    double dir = 1;
    if (ya > yb) {
        double t = xa;
        xa = xb;
        xb = t;
        t = ya;
        ya = yb;
        yb = t;
        dir = -1;
    }
    es->e[es->n++] = (fill_edge){ya, yb, xa, (xb - xa) / (yb - ya), dir};
    return true;
}

static int edge_top_cmp(const void *a, const void *b)
{
    const fill_edge *x = a, *y = b;
    return x->y0 < y->y0 ? -1 : x->y0 > y->y0;
}

/* p's outline in device pixels as edges (each subpath closed, curves
 * flattened to tol: a curve's control points may lie off the surface, the
 * curve not), within es's surface; false when it is not (or memory ran
 * out): the caller fills with cairo. */
static bool fill_outline(cairo_t *cr, const fo_dl_path *p, double tol, fill_edges *es)
{
    const double *q = p->pts;
    double sx = 0, sy = 0, cx = 0, cy = 0;
    bool open = false;
    for (size_t i = 0; i < p->ncmds; i++) {
        double pt[6];
        int np = p->cmds[i] == FO_PATH_CURVE ? 3 : p->cmds[i] == FO_PATH_CLOSE ? 0 : 1;
        for (int j = 0; j < np; j++) {
            pt[2 * j] = q[2 * j];
            pt[2 * j + 1] = q[2 * j + 1];
            cairo_user_to_device(cr, &pt[2 * j], &pt[2 * j + 1]);
            if (!isfinite(pt[2 * j]) || !isfinite(pt[2 * j + 1])) return false;
        }
        q += 2 * np;
        switch (p->cmds[i]) {
        case FO_PATH_MOVE:
            if (open && !edge_add(es, cx, cy, sx, sy)) return false;
            sx = cx = pt[0];
            sy = cy = pt[1];
            open = true;
            break;
        case FO_PATH_LINE:
            if (!open) return false;
            if (!edge_add(es, cx, cy, pt[0], pt[1])) return false;
            cx = pt[0];
            cy = pt[1];
            break;
        case FO_PATH_CURVE: {
            if (!open) return false;
            /* n uniform steps stray from the curve by at most
               3/4 max|second difference| / n^2 */
            double ax = cx - 2 * pt[0] + pt[2], ay = cy - 2 * pt[1] + pt[3];
            double bx = pt[0] - 2 * pt[2] + pt[4], by = pt[1] - 2 * pt[3] + pt[5];
            double dd = sqrt(fmax(ax * ax + ay * ay, bx * bx + by * by));
            double steps = ceil(sqrt(0.75 * dd / tol));
            if (!(steps <= 1024)) return false;
            int n = steps < 1 ? 1 : (int)steps;
            double px = cx, py = cy;
            for (int k = 1; k <= n; k++) {
                double t = (double)k / n, u = 1 - t;
                double b0 = u * u * u, b1 = 3 * u * u * t, b2 = 3 * u * t * t, b3 = t * t * t;
                double x = k == n ? pt[4] : b0 * cx + b1 * pt[0] + b2 * pt[2] + b3 * pt[4];
                double y = k == n ? pt[5] : b0 * cy + b1 * pt[1] + b2 * pt[3] + b3 * pt[5];
                if (!edge_add(es, px, py, x, y)) return false;
                px = x;
                py = y;
            }
            cx = pt[4];
            cy = pt[5];
            break;
        }
        case FO_PATH_CLOSE:
            if (open && !edge_add(es, cx, cy, sx, sy)) return false;
            cx = sx;
            cy = sy;
            open = false;
            break;
        }
    }
    if (open && !edge_add(es, cx, cy, sx, sy)) return false;
    return true;
}

/* Adds the part of e within pixel row y (y .. y + 1) to acc (acc[0] is
 * column bx): the area left of it to each cell it crosses, the rest of its
 * height to the cell after. span: the cells touched. */
static void edge_row(const fill_edge *e, int y, int bx, double *acc, int span[2])
{
    double ya = e->y0 > y ? e->y0 : y, yb = e->y1 < y + 1 ? e->y1 : y + 1;
    double xa = e->x0 + (ya - e->y0) * e->dxdy - bx, xb = e->x0 + (yb - e->y0) * e->dxdy - bx;
    double d = (yb - ya) * e->dir;
    double x0 = xa < xb ? xa : xb, x1 = xa < xb ? xb : xa;
    int i0 = floor_int(x0), i1 = ceil_int(x1);
    if (i0 < 0) i0 = 0; /* rounding only: the outline lies within the box */
    if (i1 <= i0 + 1) { /* within one column */
        double xm = 0.5 * (xa + xb) - i0;
        acc[i0] += d - d * xm;
        acc[i0 + 1] += d * xm;
        i1 = i0 + 1;
    } else {
        double s = 1 / (x1 - x0), f0 = x0 - i0, f1 = x1 - i1 + 1;
        double a0 = 0.5 * s * (1 - f0) * (1 - f0), am = 0.5 * s * f1 * f1;
        acc[i0] += d * a0;
        if (i1 == i0 + 2) {
            acc[i0 + 1] += d * (1 - a0 - am);
        } else {
            double a1 = s * (1.5 - f0);
            acc[i0 + 1] += d * (a1 - a0);
            for (int i = i0 + 2; i < i1 - 1; i++) acc[i] += d * s;
            double a2 = a1 + (i1 - i0 - 3) * s;
            acc[i1 - 1] += d * (1 - a2 - am);
        }
        acc[i1] += d * am;
    }
    span[0] = i0;
    span[1] = i1 + 1;
}

static inline unsigned char cover_byte(double s)
{
    s = fabs(s);
    return s >= 1 ? 255 : (unsigned char)(s * 255 + 0.5);
}

/* Pixels d[0..n) set to colour c (0xRRGGBB), their unused top byte kept. */
static void fill_run(uint32_t *d, int n, uint32_t c)
{
    int x = 0;
#ifdef __SSE2__
    __m128i cv = _mm_set1_epi32((int)c), top = _mm_set1_epi32((int)0xFF000000u);
    for (; x + 4 <= n; x += 4) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(d + x));
        _mm_storeu_si128((__m128i *)(void *)(d + x), _mm_or_si128(_mm_and_si128(v, top), cv));
    }
#endif
    for (; x < n; x++) d[x] = (d[x] & 0xFF000000u) | c;
}

/* Fills p in color at alpha: opaque over() as the lines and markers,
 * translucent as own_translucent_fill blends; false when p or the
 * transform is not for it (the caller fills with cairo). */
static bool own_fill(cairo_t *cr, const fo_dl_path *p, fo_rgb color, double alpha)
{
    double k;
    cairo_surface_t *s = plain_target(cr, &k);
    uint32_t src = 0;
    if (!s || p->ncmds < 2 || cairo_get_fill_rule(cr) != CAIRO_FILL_RULE_WINDING ||
        cairo_get_antialias(cr) == CAIRO_ANTIALIAS_NONE || (alpha < 1 && !source_pixel(color, alpha, &src)))
        return false;
    int W = cairo_image_surface_get_width(s), H = cairo_image_surface_get_height(s);
    fill_edges es = {.W = W, .H = H};
    bool ok = fill_outline(cr, p, fmax(cairo_get_tolerance(cr), 0.01), &es);
    double lx = INFINITY, hx = -INFINITY, ly = INFINITY, hy = -INFINITY;
    for (size_t i = 0; ok && i < es.n; i++) {
        const fill_edge *e = &es.e[i];
        double xe = e->x0 + (e->y1 - e->y0) * e->dxdy;
        lx = fmin(lx, fmin(e->x0, xe));
        hx = fmax(hx, fmax(e->x0, xe));
        ly = fmin(ly, e->y0);
        hy = fmax(hy, e->y1);
    }
    if (!ok || es.n == 0) {
        fo_free(es.e);
        return ok; /* no edge: nothing to fill */
    }
    /* columns as on the surface (acc and cov start at column 0), and room
       for the cell after the right edge; translucent edge cells are blended
       in whole eights within the row */
    int y0 = floor_int(ly), y1 = ceil_int(hy);
    if (y1 > H) y1 = H;
    double *acc = fo_calloc((size_t)W + 2, sizeof *acc);
    unsigned char *cov = fo_calloc((size_t)W + 2, 1);
    const fill_edge **act = fo_malloc(es.n * sizeof *act);
    int(*spans)[2] = fo_malloc(es.n * sizeof *spans);
    ok = acc && cov && act && spans;
    if (ok) {
        qsort(es.e, es.n, sizeof *es.e, edge_top_cmp);
        cairo_surface_flush(s);
        unsigned char *data = cairo_image_surface_get_data(s);
        int stride = cairo_image_surface_get_stride(s);
        uint32_t c = color & 0xFFFFFFu;
        bool opaque = alpha >= 1;
        blend_src bs;
        if (!opaque) blend_src_init(&bs, src);
        size_t next = 0, na = 0;
        for (int y = y0; y < y1; y++) {
            uint32_t *row = (uint32_t *)(void *)(data + (size_t)y * (size_t)stride);
            size_t keep = 0, ns = 0;
            for (size_t i = 0; i < na; i++)
                if (act[i]->y1 > y) act[keep++] = act[i];
            na = keep;
            while (next < es.n && es.e[next].y0 < y + 1) {
                if (es.e[next].y1 > y) act[na++] = &es.e[next];
                next++;
            }
            for (size_t i = 0; i < na; i++) edge_row(act[i], y, 0, acc, spans[ns++]);
            if (!ns) continue;
            sort_spans(spans, ns);
            /* the running sum: cell by cell within the edges' cells,
               constant between them (whole coverage stored or blended at
               once, no coverage: nothing done) */
            int pos = spans[0][0];
            double sum = 0;
            for (size_t j = 0; j < ns;) {
                int sa = spans[j][0], sb = spans[j][1];
                for (j++; j < ns && spans[j][0] <= sb; j++) sb = spans[j][1] > sb ? spans[j][1] : sb;
                int run = (sa < W ? sa : W) - pos;
                if (run > 0) {
                    unsigned char v = cover_byte(sum);
                    if (v == 255) {
                        if (opaque) fill_run(row + pos, run, c);
                        else blend_solid(&bs, row + pos, run);
                    } else if (v) {
                        memset(cov + pos, v, (size_t)run);
                        if (opaque) blend_row(data, stride, y, 0, pos, pos + run, cov, c, 0, W);
                        else blend_cells(&bs, cov, row, pos, pos + run, W);
                    }
                }
                for (int x = sa; x < sb; x++) {
                    sum += acc[x];
                    acc[x] = 0;
                    cov[x] = cover_byte(sum);
                }
                if (opaque) blend_row(data, stride, y, 0, sa, sb < W ? sb : W, cov, c, 0, W);
                else if (sa < W) blend_cells(&bs, cov, row, sa, sb < W ? sb : W, W);
                pos = sb;
            }
            cov[W] = cov[W + 1] = 0; /* the cell after an edge on the right border */
        }
        cairo_surface_mark_dirty_rectangle(s, 0, y0, W, y1 - y0);
    }
    fo_free(acc);
    fo_free(cov);
    fo_free(act);
    fo_free(spans);
    fo_free(es.e);
    return ok;
}

#if defined(__x86_64__) && defined(__GNUC__)
static __attribute__((target("avx2"))) void fill_avx2(uint32_t *d, size_t n, uint32_t v)
{
    __m256i p = _mm256_set1_epi32((int)v);
    size_t i = 0;
    for (; i + 64 <= n; i += 64) {
        __m256i *q = (__m256i *)(void *)(d + i);
        _mm256_storeu_si256(q, p);
        _mm256_storeu_si256(q + 1, p);
        _mm256_storeu_si256(q + 2, p);
        _mm256_storeu_si256(q + 3, p);
        _mm256_storeu_si256(q + 4, p);
        _mm256_storeu_si256(q + 5, p);
        _mm256_storeu_si256(q + 6, p);
        _mm256_storeu_si256(q + 7, p);
    }
    for (; i < n; i++) d[i] = v;
}
#endif

/* Paints the whole surface: a fractional chart size must not leave an
 * unpainted (black) edge column. On chart_draw's RGB24 image surface (no
 * clip yet: the first operation) every pixel is set to what cairo_paint
 * wrote there, 0xFF and the opaque color (t_png checks the two agree),
 * 32 bytes a store: pixman_fill was ~0.19 M instructions of an 800x500
 * chart, this is ~0.07 M (issue 39; eight stores a loop: four were ~0.09 M). */
static void cb_begin(void *ctx, double w, double h, fo_rgb bg)
{
    cairo_t *cr = ((png_ctx *)ctx)->cr;
    set_color(cr, bg, 1);
    cairo_surface_t *s = cairo_get_target(cr);
    unsigned char *data = cairo_surface_get_type(s) == CAIRO_SURFACE_TYPE_IMAGE &&
                                  cairo_image_surface_get_format(s) == CAIRO_FORMAT_RGB24
                              ? cairo_image_surface_get_data(s)
                              : NULL;
#if defined(__x86_64__) && defined(__GNUC__)
    if (data && __builtin_cpu_supports("avx2")) {
        cairo_surface_flush(s);
        size_t n = (size_t)cairo_image_surface_get_stride(s) / 4 * (size_t)cairo_image_surface_get_height(s);
        fill_avx2((uint32_t *)(void *)data, n, 0xFF000000u | (bg & 0xFFFFFFu));
        cairo_surface_mark_dirty(s);
        return;
    }
#endif
    (void)data;
    cairo_paint(cr);
}

static void cb_fill(void *ctx, const fo_dl_path *p, fo_rgb color, double alpha)
{
    png_ctx *x = ctx;
    cairo_t *cr = x->cr;
    if ((x->own & FO_PNG_OWN_LINES) && alpha >= 1 && own_disc(cr, p, color)) return;
    if ((x->own & FO_PNG_OWN_FILLS) && alpha > 0 && own_fill(cr, p, color, alpha)) return;
    if ((x->own & FO_PNG_OWN_AREAS) && alpha < 1 && alpha > 0 &&
        own_translucent_fill(cr, x->mask, p, color, alpha))
        return;
    set_path(cr, p);
    set_color(cr, color, alpha);
    cairo_fill(cr);
}

/* Rectangles (bars, swatches, the background) snap to whole device pixels,
 * as matplotlib's Agg does: crisp edges, and no blended edge colors, which
 * keeps most charts within a 256-color palette (see encode.c). A rectangle
 * that would snap to nothing is drawn as given, antialiased. */
static void cb_fill_rect(void *ctx, double x, double y, double w, double h, fo_rgb color, double alpha)
{
    cairo_t *cr = ((png_ctx *)ctx)->cr;
    double x0 = x, y0 = y, x1 = x + w, y1 = y + h;
    cairo_user_to_device(cr, &x0, &y0);
    cairo_user_to_device(cr, &x1, &y1);
    x0 = round(x0);
    y0 = round(y0);
    x1 = round(x1);
    y1 = round(y1);
    if (x0 != x1 && y0 != y1) {
        cairo_matrix_t m;
        cairo_get_matrix(cr, &m);
        cairo_identity_matrix(cr);
        cairo_rectangle(cr, fmin(x0, x1), fmin(y0, y1), fabs(x1 - x0), fabs(y1 - y0));
        cairo_set_matrix(cr, &m);
    } else {
        cairo_rectangle(cr, x, y, w, h);
    }
    set_color(cr, color, alpha);
    cairo_fill(cr);
}

static void cb_stroke(void *ctx, const fo_dl_path *p, double width, fo_rgb color, double alpha,
                      const double dash[2])
{
    png_ctx *x = ctx;
    cairo_t *cr = x->cr;
    /* three points or more: a series' line (grid lines and axes, two
       points on half pixels, are cairo's cheap rectilinear case) */
    if ((x->own & FO_PNG_OWN_LINES) && alpha >= 1 && !(dash[0] > 0) && p->npts > 2 &&
        own_polyline(cr, p, width, color))
        return;
    set_path(cr, p);
    set_color(cr, color, alpha);
    cairo_set_line_width(cr, width);
    cairo_set_dash(cr, dash, dash[0] > 0 ? 2 : 0, 0);
    cairo_stroke(cr);
}

/* Draws the glyphs of g[0..n) that come from font file (pointer identity:
 * fo_glyph.font points into text.c's cache), marking them done. */
static void show_run(cairo_t *cr, const char *file, double size, fo_glyph *g, size_t n, double x0,
                     cairo_glyph_t *buf)
{
    size_t m = 0;
    for (size_t i = 0; i < n; i++)
        if (g[i].font == file) {
            if (g[i].index != 0) {
                buf[m].index = g[i].index;
                buf[m].x = x0 + g[i].x;
                buf[m].y = -g[i].y; /* cairo's y grows downwards */
                m++;
            }
            g[i].font = NULL;
        }
    if (m == 0) return;
    cairo_font_face_t *face = face_for(file);
    if (!face) return;
    cairo_set_font_face(cr, face);
    cairo_set_font_size(cr, size);
    cairo_show_glyphs(cr, buf, (int)m);
}

/* Paints emoji picture img into box at the pen position (x, y), y down. */
static void paint_emoji(cairo_t *cr, const fo_emoji_image *img, const fo_emoji_box *box, double x, double y)
{
    cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, img->w, img->h);
    if (cairo_surface_status(s) != CAIRO_STATUS_SUCCESS) {
        cairo_surface_destroy(s);
        return;
    }
    cairo_surface_flush(s);
    unsigned char *px = cairo_image_surface_get_data(s);
    int stride = cairo_image_surface_get_stride(s);
    for (int r = 0; r < img->h; r++)
        for (int k = 0; k < img->w; k++) {
            const unsigned char *q = img->rgba + ((size_t)r * img->w + k) * 4;
            uint32_t a = q[3]; /* cairo's ARGB32: premultiplied, native-endian words */
            uint32_t v =
                a << 24 | (q[0] * a + 127) / 255 << 16 | (q[1] * a + 127) / 255 << 8 | (q[2] * a + 127) / 255;
            memcpy(px + (size_t)r * stride + (size_t)k * 4, &v, 4);
        }
    cairo_surface_mark_dirty(s);
    cairo_save(cr);
    cairo_translate(cr, x + box->dx, y - box->top);
    cairo_scale(cr, box->w / img->w, box->h / img->h);
    cairo_set_source_surface(cr, s, 0, 0);
    cairo_pattern_set_filter(cairo_get_source(cr), CAIRO_FILTER_GOOD);
    cairo_paint(cr);
    cairo_restore(cr);
    cairo_surface_destroy(s);
}

/* Paints the colour picture of every glyph of the colour emoji font among
 * g[0..n) (shaping set each emoji sequence as one such glyph), marking
 * them done so no outline is drawn for them. */
static void emoji_over(cairo_t *cr, double size, fo_glyph *g, size_t n, double x0)
{
    for (size_t k = 0; k < n; k++) {
        fo_emoji_image img;
        fo_emoji_box box;
        /* by path: shaped glyphs name their file from shape.c's cache */
        if (!g[k].font || strcmp(g[k].font, FO_EMOJI_FONT) != 0) continue;
        if (fo_emoji_glyph(g[k].index, size, 0, &img, &box)) {
            paint_emoji(cr, &img, &box, x0 + g[k].x, -g[k].y);
            fo_free(img.rgba);
        }
        g[k].font = NULL;
    }
}

static void cb_text(void *ctx, const fo_dl_text *t)
{
    cairo_t *cr = ((png_ctx *)ctx)->cr;
    size_t len = strlen(t->utf8);
    fo_glyph stack[128], *g = stack;
    cairo_glyph_t cstack[128], *cg = cstack;
    double width;
    /* one call when the glyphs fit the stack (it writes up to cap, counts all) */
    size_t n = fo_text_glyphs(t->font_file, t->size, t->utf8, len, stack, 128, &width);
    if (n == 0) return;
    if (n > 128) {
        g = fo_malloc(n * sizeof *g);
        cg = fo_malloc(n * sizeof *cg);
        if (!g || !cg) goto cleanup;
        fo_text_glyphs(t->font_file, t->size, t->utf8, len, g, n, &width);
    }
    double x0 = t->anchor == FO_ANCHOR_START ? 0 : t->anchor == FO_ANCHOR_MIDDLE ? -width / 2 : -width;
    cairo_save(cr);
    cairo_translate(cr, t->x, t->y);
    if (t->rotation != 0) cairo_rotate(cr, t->rotation * M_PI / 180);
    emoji_over(cr, t->size, g, n, x0);
    set_color(cr, t->color, 1);
    /* one run per font, in order of first use: primary, DejaVu, CJK */
    for (size_t i = 0; i < n; i++)
        if (g[i].font) show_run(cr, g[i].font, t->size, g, n, x0, cg);
    cairo_restore(cr);
cleanup:
    if (g != stack) fo_free(g);
    if (cg != cstack) fo_free(cg);
}

static const fo_dl_backend cairo_backend = {
    .begin = cb_begin,
    .fill = cb_fill,
    .fill_rect = cb_fill_rect,
    .stroke = cb_stroke,
    .text = cb_text,
    .end = NULL,
};

/* ---- one chart to PNG bytes ------------------------------------------------------ */

/* The pixels of the charts of one render, in huge pages (fo_huge_map): an
   800x500 chart is 1.6 MB, which as 4 KiB pages is ~400 page faults on first
   touch -- the largest single cost of a PNG in a fresh `folio serve` child
   (measured: 730 -> 335 faults and ~4 ms of CPU less per render). One
   mapping serves every chart of the render (grown when a chart is larger):
   mapping, zeroing and unmapping 2 MiB a chart was ~40% of the CPU time of
   200 line charts, as system time. cb_begin paints every pixel, so what
   the last chart left there never shows. */
typedef struct {
    fo_huge map;
    unsigned char *at;
    size_t cap;
    mask_buf mask;
} pixel_store;

static void pixel_store_free(pixel_store *p)
{
    fo_huge_unmap(&p->map);
    fo_free(p->mask.at);
}

static cairo_surface_t *surface_new(int w, int h, pixel_store *p)
{
    int stride = cairo_format_stride_for_width(CAIRO_FORMAT_RGB24, w);
    size_t bytes = stride > 0 ? (size_t)stride * (size_t)h : 0;
    if (bytes && (!p->at || bytes > p->cap)) {
        fo_huge_unmap(&p->map);
        p->at = fo_huge_map(&p->map, bytes);
        p->cap = p->at ? bytes : 0;
    }
    if (!bytes || !p->at) return cairo_image_surface_create(CAIRO_FORMAT_RGB24, w, h);
    return cairo_image_surface_create_for_data(p->at, CAIRO_FORMAT_RGB24, w, h, stride);
}

/* Lays c out and draws it at scale on *out, a new surface on px's pixels
 * (the caller destroys it); own: as png_ctx says. */
static fo_status chart_draw(const fo_chart *c, const fo_theme *t, double scale, unsigned own, pixel_store *px,
                            cairo_surface_t **out, fo_diags *d)
{
    *out = NULL;
    if (!(scale > 0)) scale = 1;
    fo_dl *dl = NULL;
    fo_status st = fo_chart_layout(c, t, 0, 0, &dl, d);
    if (st != FO_OK) return st;
    int w = (int)lround(fo_dl_width(dl) * scale), h = (int)lround(fo_dl_height(dl) * scale);
    if (w < 1) w = 1;
    if (h < 1) h = 1;
    cairo_surface_t *s = surface_new(w, h, px);
    png_ctx x = {.cr = cairo_create(s), .own = own, .mask = &px->mask};
    cairo_t *cr = x.cr;
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "cannot create a %dx%d px image: %s", w, h,
                     cairo_status_to_string(cairo_status(cr)));
        st = cairo_status(cr) == CAIRO_STATUS_NO_MEMORY ? FO_ERR_NOMEM : FO_ERR_INTERNAL;
        goto cleanup;
    }
    cairo_font_options_t *fo = cairo_font_options_create();
    cairo_font_options_set_antialias(fo, CAIRO_ANTIALIAS_GRAY);
    cairo_font_options_set_hint_style(fo, CAIRO_HINT_STYLE_SLIGHT);
    cairo_font_options_set_hint_metrics(fo, CAIRO_HINT_METRICS_OFF);
    cairo_set_font_options(cr, fo);
    cairo_font_options_destroy(fo);
    cairo_set_line_join(cr, CAIRO_LINE_JOIN_ROUND);
    cairo_scale(cr, scale, scale);
    fo_dl_replay(dl, &cairo_backend, &x);
    cairo_surface_flush(s);
    if (cairo_status(cr) != CAIRO_STATUS_SUCCESS) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "drawing the chart failed: %s",
                     cairo_status_to_string(cairo_status(cr)));
        st = FO_ERR_INTERNAL;
    }
cleanup:
    cairo_destroy(cr);
    if (st == FO_OK) *out = s;
    else cairo_surface_destroy(s);
    fo_dl_free(dl);
    return st;
}

static fo_status chart_png(const fo_chart *c, const fo_theme *t, double scale, pixel_store *px, fo_buf *out,
                           fo_diags *d)
{
    cairo_surface_t *s;
    fo_status st = chart_draw(c, t, scale, FO_PNG_OWN_ALL, px, &s, d);
    if (st != FO_OK) return st;
    st = fo_png_encode(cairo_image_surface_get_data(s), cairo_image_surface_get_width(s),
                       cairo_image_surface_get_height(s), cairo_image_surface_get_stride(s), false,
                       96 * (scale > 0 ? scale : 1), out);
    cairo_surface_destroy(s);
    return st;
}

fo_status fo_png_chart_pixels(const fo_chart *c, const fo_theme *t, double scale, unsigned own, uint32_t **px,
                              int *w, int *h, fo_diags *d)
{
    pixel_store ps = {0};
    cairo_surface_t *s;
    *px = NULL;
    fo_status st = chart_draw(c, t, scale, own, &ps, &s, d);
    if (st == FO_OK) {
        *w = cairo_image_surface_get_width(s);
        *h = cairo_image_surface_get_height(s);
        int stride = cairo_image_surface_get_stride(s);
        const unsigned char *data = cairo_image_surface_get_data(s);
        *px = fo_malloc((size_t)*w * (size_t)*h * 4);
        if (!*px) st = FO_ERR_NOMEM;
        for (int y = 0; *px && y < *h; y++)
            for (int k = 0; k < *w; k++) {
                uint32_t v;
                memcpy(&v, data + (size_t)y * (size_t)stride + (size_t)k * 4, 4);
                (*px)[(size_t)y * (size_t)*w + (size_t)k] = v & 0xFFFFFFu;
            }
        cairo_surface_destroy(s);
    }
    pixel_store_free(&ps);
    return st;
}

fo_status fo_chart_render_png(const fo_chart *c, const fo_theme *t, double scale, unsigned char **png,
                              size_t *len, fo_diags *d)
{
    fo_buf b = {0};
    *png = NULL;
    *len = 0;
    pixel_store px = {0};
    fo_status st = chart_png(c, t, scale, &px, &b, d);
    pixel_store_free(&px);
    if (st != FO_OK) {
        fo_free(b.data);
        return st;
    }
    *png = (unsigned char *)b.data;
    *len = b.len;
    return FO_OK;
}

/* ---- the renderer ------------------------------------------------------------------ */

/* "OUT.png" -> "OUT-3.png" (the extension keeps its case). */
static char *numbered_path(const char *dest, size_t i)
{
    const char *dot = strrchr(dest, '.'), *slash = strrchr(dest, '/');
    if (!dot || (slash && dot < slash)) dot = dest + strlen(dest);
    size_t cap = strlen(dest) + 24;
    char *p = fo_malloc(cap);
    if (p) snprintf(p, cap, "%.*s-%zu%s", (int)(dot - dest), dest, i, dot);
    return p;
}

/* Writes b to the staged temporary tmp of out through the descriptor the
 * output set holds (one write(2); no open, fstat or close of the path), or,
 * in a scratch set (folio serve's children), through the path. */
static fo_status write_file(fo_outset *out, const char *tmp, const fo_buf *b, const char *dest, fo_diags *d)
{
    int fd = fo_outset_fd(out, tmp), own = -1;
    if (fd < 0) fd = own = open(tmp, O_WRONLY | O_TRUNC | O_CLOEXEC);
    int rc = fd < 0 ? -1 : fo_write_all(fd, b->data, b->len, 0);
    if (own >= 0 && close(own) != 0) rc = -1;
    if (rc != 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot write (disk full?)", dest);
        return FO_ERR_IO;
    }
    return FO_OK;
}

/* One iTXt chunk per provenance item (render/core/prov.h), keyword = name. */
static void add_provenance(const fo_doc *doc, const fo_render_opts *opts, fo_buf *b)
{
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(doc, opts, items);
    for (size_t k = 0; k < n; k++) fo_png_add_text(b, items[k].name, items[k].value);
}

fo_status fo_png_render(const fo_doc *doc, const char *dest, fo_outset *out, const fo_render_opts *opts,
                        fo_diags *d)
{
    size_t ncharts = 0;
    for (size_t i = 0; i < doc->nblocks; i++) ncharts += doc->blocks[i].kind == FO_BLOCK_CHART;
    if (ncharts == 0) {
        fo_diags_add(d, doc->spec_path, 0, 0, "/blocks",
                     "add a {\"type\": \"chart\", ...} block, "
                     "or write .pdf/.docx for a document",
                     "no chart block to render as PNG");
        return FO_ERR_INPUT;
    }
    double scale = opts && opts->scale > 0 ? opts->scale : 1;
    fo_buf b = {0};
    pixel_store px = {0};
    fo_status st = FO_OK;
    size_t k = 0;
    for (size_t i = 0; i < doc->nblocks && st == FO_OK; i++) {
        const fo_block *blk = &doc->blocks[i];
        if (blk->kind != FO_BLOCK_CHART) continue;
        k++;
        char *name = ncharts == 1 ? fo_strdup(dest) : numbered_path(dest, k);
        if (!name) {
            st = FO_ERR_NOMEM;
            break;
        }
        const char *tmp = fo_outset_add(out, name, "png", d);
        if (!tmp) st = FO_ERR_IO;
        b.len = 0;
        b.failed = false;
        if (st == FO_OK) st = chart_png(&blk->u.chart, &doc->theme, scale, &px, &b, d);
        if (st == FO_OK) add_provenance(doc, opts, &b);
        if (st == FO_OK) st = write_file(out, tmp, &b, name, d);
        else if (tmp)
            fo_diags_add(d, doc->spec_path, blk->line, blk->column, blk->pointer, NULL,
                         "%s: the chart could not be drawn: %s", name, fo_strerror(st));
        fo_free(name);
    }
    pixel_store_free(&px);
    fo_free(b.data);
    return st;
}
