/* delta.h — a metric's change, shown the same way by every writer.
 *
 * The text is an arrow for the direction of the change ("▲ " rising,
 * "▼ " falling, nothing when it is zero) followed by the signed delta as
 * Excel displays it with the metric's delta_format: the format carries the
 * sign ("+0.0%;-0.0%;0.0%" gives "▲ +14.7%" and "▼ -14.7%"; "0.0%;(0.0%)"
 * gives "▼ (5.0%)"), exactly what the xlsx cell shows beside its arrow-less
 * number. The tone says whether the change is good news: a rise is good and
 * a fall bad, unless the metric says lower is better (a falling cost). */
#ifndef FO_DELTA_H
#define FO_DELTA_H

#include <stddef.h>

#include "render/core/model.h"
#include "render/core/theme.h"

typedef enum { FO_DELTA_FLAT = 0, FO_DELTA_GOOD, FO_DELTA_BAD } fo_delta_tone;

#define FO_DELTA_GOOD_RGB 0x2E7D32u  /* green 800 */
#define FO_DELTA_BAD_RGB 0xC62828u   /* red 800 */

/* Writes the delta's text (NUL-terminated, truncated to cap) and returns
 * its length. m->has_delta must be set. */
size_t fo_delta_text(const fo_metric *m, char *buf, size_t cap);
/* Good, bad or flat (zero, or not a finite number). */
fo_delta_tone fo_delta_tone_of(const fo_metric *m);
/* The colour for the delta's text on background bg: green when good, red
 * when bad (lightened on a dark bg until readable, FO_CONTRAST_TEXT),
 * `flat` when there is no change. */
fo_rgb fo_delta_rgb(const fo_metric *m, fo_rgb flat, fo_rgb bg);

#endif
