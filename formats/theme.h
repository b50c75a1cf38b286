/* theme.h — reading theme files: built-in names (templates/themes/NAME.json)
 * or a user's FILE.json, validated with located errors like specs. */
#ifndef FO_FORMATS_THEME_H
#define FO_FORMATS_THEME_H

#include "render/core/theme.h"
#include "folio.h"

#define FO_THEME_MAX_BYTES (1u << 20)       /* a theme's JSON */
#define FO_THEME_FONT_MAX_BYTES (64u << 20) /* one font file named by a theme */

/* Fills t with the built-in "default" theme, read from its one definition,
 * templates/themes/default.json (embedded at build time): Liberation Sans
 * and Mono (metric-compatible with Arial and Courier New, so Office files
 * lay out alike where only Arial exists), A4 portrait, 20 mm margins. */
void fo_theme_default(fo_theme *t);

/* Loads a theme by built-in name or path to a .json file into *t, starting
 * from the default theme (keys a file leaves out keep their defaults). The
 * files a theme names (fonts, logo) follow the spec's rule, formats/path.h:
 * relative, inside the theme's folder, no links, regular, size-capped.
 * Errors (unknown name, bad file) go to d; returns FO_ERR_INPUT then. */
fo_status fo_theme_load(const char *name_or_path, fo_theme *t, fo_diags *d);

/* A footer that is folio's English default ("Page {page} of {pages}") in
 * language lang instead (render/core/words.h); a theme's own footer, and
 * any footer for a NULL lang, stay as they are. */
void fo_theme_localize(fo_theme *t, const char *lang);

/* fo_theme_builtin, fo_theme_description, fo_doc_set_theme: include/folio.h. */

#endif
