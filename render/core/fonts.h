/* fonts.h — which installed font draws a script the theme's fonts lack.
 *
 * A fallback chain per script: for scripts DejaVu Sans, Symbola and Droid
 * Sans Fallback draw badly or not at all, the Noto family of that script
 * (Debian fonts-noto-core), found through fontconfig where it is installed.
 * Scripts covered: Arabic (and Persian, Urdu), Hebrew, Devanagari, Bengali,
 * Tamil, Telugu, Kannada, Malayalam, Gujarati, Gurmukhi, Sinhala, Thai, Lao,
 * Khmer, Myanmar, Georgian, Armenian, Ethiopic. Latin, Greek, Cyrillic and
 * Vietnamese come from the theme font, then DejaVu Sans; Chinese and
 * Japanese from Droid Sans Fallback and Korean from Nanum Gothic, always
 * before Symbola (which has 中 and の but is a symbol font); symbols and
 * emoji from Symbola (see text.h).
 *
 * Only TrueType-outline files are returned (the PDF writer embeds them). The
 * answer is looked up once per script and cached for the life of the process
 * (guarded by a mutex). Where fonts-noto-core puts the family's regular file
 * (/usr/share/fonts/truetype/noto/NotoSansArabic-Regular.ttf), that file is
 * taken without asking fontconfig: initialising fontconfig (reading its
 * configuration and caches) costs 8 ms per process, 4 % of the mixed-script
 * benchmark report's PDF. Elsewhere fontconfig finds it; it is never
 * initialised for text that needs no such script. */
#ifndef FO_FONTS_H
#define FO_FONTS_H

#include <stdint.h>

/* The file for the script of code point cp, or NULL when cp's script needs
 * none (or none is installed). For CJK, the fixed file of text.h (it may be
 * missing: the chain goes on). Borrowed, valid for the life of the process. */
const char *fo_fonts_for_char(uint32_t cp);

/* The bold file of a script font fo_fonts_for_char gave (".../NotoSansArabic-
 * Regular.ttf" -> ".../NotoSansArabic-Bold.ttf", which fonts-noto-core
 * installs beside it), or regular itself when there is none. Bold text
 * (a bold theme file) takes it, so **bold** Arabic is drawn bold. Borrowed,
 * valid for the life of the process. */
const char *fo_fonts_bold(const char *regular);

#endif
