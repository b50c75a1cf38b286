/* dl_build.h — private to render/chart: building a display list op by op.
 *
 * Errors are sticky (cairo-style): after an allocation failure every later
 * call is a no-op and fo_dl_status() reports FO_ERR_NOMEM once at the end.
 * Strings and path data are copied into the list's arena. */
#ifndef FO_DL_BUILD_H
#define FO_DL_BUILD_H

#include <stdint.h>

#include "render/chart/chart.h"

#define FO_NONE SIZE_MAX

fo_dl *fo_dl_new(double width, double height, fo_rgb background);
fo_status fo_dl_status(const fo_dl *dl);

/* Axis-aligned filled rectangle given by two corners (any order). */
void fo_dl_rect(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                double x0, double y0, double x1, double y1, fo_rgb color, double alpha);
/* Straight stroked segment. dash may be NULL (solid). */
void fo_dl_segment(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                   double x0, double y0, double x1, double y1, double width,
                   fo_rgb color, const double *dash);

/* General paths: begin, add commands, then end with fill or stroke. */
void fo_dl_path_move(fo_dl *dl, double x, double y);
void fo_dl_path_line(fo_dl *dl, double x, double y);
void fo_dl_path_curve(fo_dl *dl, double x1, double y1, double x2, double y2, double x3, double y3);
/* Arc of the circle (cx, cy, r) from angle a0 to a1 (radians, clockwise on
 * screen from 3 o'clock), as cubic Béziers of at most 90 degrees; starts
 * with a LINE to the arc's start when a path is open, else a MOVE. */
void fo_dl_path_arc(fo_dl *dl, double cx, double cy, double r, double a0, double a1);
void fo_dl_path_close(fo_dl *dl);
/* Drops the path under construction (nothing worth drawing). */
void fo_dl_path_clear(fo_dl *dl);
void fo_dl_path_fill(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                     fo_rgb color, double alpha);
void fo_dl_path_stroke(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                       double width, fo_rgb color, const double *dash);

/* Text op; width is measured with fo_text_width. */
void fo_dl_add_text(fo_dl *dl, fo_dl_role role, size_t series, size_t point,
                const char *utf8, double x, double y, double size, bool bold,
                const char *font_file, fo_rgb color, fo_anchor anchor, double rotation);

#endif
