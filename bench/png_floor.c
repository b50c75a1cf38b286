/* png_floor.c — the floor for bench-png.sh: a minimal cairo program drawing N
 * grouped bar charts (12 x 3 bars, grid, labels, 800x500) and writing each
 * with cairo's own PNG writer. Not folio: no layout, no fonts from files, no
 * number formats; it shows what bare drawing + encoding costs.
 *
 * Build: cc -O2 png_floor.c $(pkg-config --cflags --libs cairo) -lm
 * Usage: png_floor N OUTDIR */
#include <cairo.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

static const char *const months[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                     "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
static const double colors[3][3] = {{0.18, 0.33, 0.59}, {0.93, 0.49, 0.19}, {0.44, 0.68, 0.28}};

static void chart(cairo_t *cr, int k)
{
    const double x0 = 60, x1 = 680, y0 = 50, y1 = 450, vmax = 100;
    cairo_set_source_rgb(cr, 1, 1, 1);
    cairo_paint(cr);
    cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, CAIRO_FONT_WEIGHT_NORMAL);
    cairo_set_font_size(cr, 12);
    for (int t = 0; t <= 5; t++) { /* grid and value labels */
        double y = floor(y1 - t * (y1 - y0) / 5) + 0.5;
        char buf[16];
        cairo_set_source_rgb(cr, 0.88, 0.88, 0.88);
        cairo_move_to(cr, x0, y);
        cairo_line_to(cr, x1, y);
        cairo_set_line_width(cr, 1);
        cairo_stroke(cr);
        snprintf(buf, sizeof buf, "%d", t * 20);
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
        cairo_move_to(cr, x0 - 30, y + 4);
        cairo_show_text(cr, buf);
    }
    double slot = (x1 - x0) / 12, bw = slot * 0.75 / 3;
    for (int i = 0; i < 12; i++) {
        for (int s = 0; s < 3; s++) {
            double v = 40 + 10 * s + 30 * sin(i * 0.6 + s + k);
            double h = v / vmax * (y1 - y0);
            cairo_rectangle(cr, x0 + i * slot + slot * 0.125 + s * bw, y1 - h, bw, h);
            cairo_set_source_rgb(cr, colors[s][0], colors[s][1], colors[s][2]);
            cairo_fill(cr);
        }
        cairo_set_source_rgb(cr, 0.4, 0.4, 0.4);
        cairo_move_to(cr, x0 + i * slot + slot / 2 - 10, y1 + 18);
        cairo_show_text(cr, months[i]);
    }
    char title[32];
    snprintf(title, sizeof title, "Chart %d", k + 1);
    cairo_set_font_size(cr, 17);
    cairo_set_source_rgb(cr, 0.13, 0.13, 0.13);
    cairo_move_to(cr, 340, 30);
    cairo_show_text(cr, title);
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: png_floor N OUTDIR\n"); return 1; }
    int n = atoi(argv[1]);
    for (int k = 0; k < n; k++) {
        cairo_surface_t *s = cairo_image_surface_create(CAIRO_FORMAT_RGB24, 800, 500);
        cairo_t *cr = cairo_create(s);
        chart(cr, k);
        char path[4096];
        snprintf(path, sizeof path, "%s/chart-%d.png", argv[2], k + 1);
        if (cairo_surface_write_to_png(s, path) != CAIRO_STATUS_SUCCESS) return 1;
        cairo_destroy(cr);
        cairo_surface_destroy(s);
    }
    return 0;
}
