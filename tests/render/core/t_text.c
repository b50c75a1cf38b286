/* t_text.c — unit tests of text measuring (render/core/text.h): FreeType widths
 * against known font metrics, DejaVu and CJK fallbacks, wrapping and ellipsizing,
 * UTF-8 decoding. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "render/core/emoji.h"
#include "render/core/linebreak.h"
#include "folio.h"
#include "render/core/fonts.h"
#include "render/core/text.h"
#include "tests/check_run.h"
#include "base/utf8.h"

#define SANS "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"
#define SANS_BOLD "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"

START_TEST(widths_match_font_metrics)
{
    /* Liberation Sans is metric-compatible with Arial: 'H' advance 1479/2048 em,
     * space 569/2048 em. */
    ck_assert_double_eq_tol(fo_text_width(SANS, 2048, "H", 1), 1479, 1e-9);
    ck_assert_double_eq_tol(fo_text_width(SANS, 2048, " ", 1), 569, 1e-9);
    ck_assert_double_eq_tol(fo_text_width(SANS, 10, "HH", 2), 2 * 1479 * 10 / 2048.0, 1e-9);
    ck_assert(fo_text_width(SANS_BOLD, 12, "Revenue", 7) > fo_text_width(SANS, 12, "Revenue", 7));
    ck_assert_double_eq(fo_text_width(SANS, 12, "", 0), 0);
    ck_assert_double_eq(fo_text_width(SANS, 12, "a\n", 2), fo_text_width(SANS, 12, "a", 1));
}
END_TEST

/* Invisible format characters (fo_text_invisible) take no width and draw no
 * glyph on either text path: "a" X "b" measures and draws as "ab". */
START_TEST(invisible_controls_take_no_width)
{
    static const uint32_t cs[] = {0x200B, 0x200D, 0x200E, 0x200F, 0x202A, 0x202C, 0x202E,
                                  0x2060, 0x2063, 0x2064, 0x2066, 0x2068, 0x2069, 0xFEFF};
    double ab = fo_text_width(SANS, 12, "ab", 2);
    for (size_t k = 0; k < sizeof cs / sizeof *cs; k++) {
        char s[8] = "a";
        size_t n = 1 + fo_utf8_put(s + 1, cs[k]);
        s[n++] = 'b';
        ck_assert_msg(fo_text_invisible(cs[k]), "U+%04X", (unsigned)cs[k]);
        ck_assert_msg(fo_text_width(SANS, 12, s, n) == ab, "U+%04X has a width", (unsigned)cs[k]);
        fo_glyph g[4];
        double w;
        ck_assert_uint_eq(fo_text_glyphs(SANS, 12, s, n, g, 4, &w), 2);
        ck_assert(g[0].index != 0 && g[1].index != 0);
    }
    ck_assert(!fo_text_invisible('a') && !fo_text_invisible(0x2065) && !fo_text_invisible(0x2070));
}
END_TEST

START_TEST(fallback_for_missing_glyphs_and_files)
{
    /* U+2603 SNOWMAN: not in Liberation Sans, in DejaVu Sans */
    const char *snow = "\xE2\x98\x83";
    fo_glyph g[2];
    double w;
    ck_assert_uint_eq(fo_text_glyphs(SANS, 12, snow, 3, g, 2, &w), 1);
    ck_assert(g[0].fallback);
    ck_assert_uint_ne(g[0].index, 0);
    ck_assert(w > 0);
    ck_assert_uint_eq(fo_text_glyphs(SANS, 12, "A", 1, g, 2, NULL), 1);
    ck_assert(!g[0].fallback);
    /* a file that does not exist measures with DejaVu instead */
    ck_assert_str_eq(fo_text_resolve("/nonexistent/font.ttf"), FO_TEXT_FALLBACK_REGULAR);
    ck_assert_double_eq(fo_text_width("/nonexistent/font.ttf", 12, "abc", 3),
                        fo_text_width(FO_TEXT_FALLBACK_REGULAR, 12, "abc", 3));
    ck_assert_str_eq(fo_text_fallback(SANS_BOLD), FO_TEXT_FALLBACK_BOLD);
}
END_TEST

/* CJK: in neither Liberation nor DejaVu; drawn from Droid Sans Fallback. Mixed
 * text keeps each character in the first font that has it. */
START_TEST(cjk_falls_back_to_droid)
{
    ck_assert_msg(access(FO_TEXT_FALLBACK_CJK, R_OK) == 0,
                  "%s missing: install the Debian package fonts-droid-fallback", FO_TEXT_FALLBACK_CJK);
    const char *s = "A\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE2\x98\x83"; /* "A日本語☃" */
    fo_glyph g[8];
    double w;
    ck_assert_uint_eq(fo_text_glyphs(SANS, 10, s, strlen(s), g, 8, &w), 5);
    ck_assert_str_eq(g[0].font, SANS);
    ck_assert(!g[0].fallback);
    for (int i = 1; i <= 3; i++) {
        ck_assert_str_eq(g[i].font, FO_TEXT_FALLBACK_CJK);
        ck_assert(g[i].fallback);
        ck_assert_uint_ne(g[i].index, 0);
        ck_assert_double_gt(g[i].x, g[i - 1].x);
    }
    /* the snowman is a pictograph of text presentation by default (UTS
       #51): DejaVu's, not the colour font's */
    ck_assert_str_eq(g[4].font, FO_TEXT_FALLBACK_REGULAR);
    /* widths are Droid's advances (CJK ideographs are 1 em wide there) */
    ck_assert_double_eq_tol(fo_text_width(SANS, 10, s + 1, 9), 30, 1e-9);
    ck_assert_double_eq_tol(w, fo_text_width(SANS, 10, s, strlen(s)), 1e-9);
    /* bold text falls back through DejaVu Bold to the same (regular) CJK face */
    ck_assert_uint_eq(fo_text_glyphs(SANS_BOLD, 10, s + 1, 3, g, 8, NULL), 1);
    ck_assert_str_eq(g[0].font, FO_TEXT_FALLBACK_CJK);
}
END_TEST

/* 中 and の are in Symbola too, which came before Droid Sans Fallback in
 * the chain: the script's font is asked first, a symbol font only for what
 * no text font has (and 한 from Nanum Gothic, though Symbola has none). */
START_TEST(cjk_never_from_the_symbol_font)
{
    ck_assert(fo_text_has_char(FO_TEXT_FALLBACK_SYMBOLS, 0x4E2D));   /* the case at hand */
    const char *s = "\xE4\xB8\xAD\xE3\x81\xAE\xE3\x80\x82\xEF\xBC\x88"; /* "中の。（" */
    fo_glyph g[8];
    ck_assert_uint_eq(fo_text_glyphs(SANS, 10, s, strlen(s), g, 8, NULL), 4);
    for (int i = 0; i < 4; i++) {
        ck_assert_str_eq(g[i].font, FO_TEXT_FALLBACK_CJK);
        ck_assert_uint_ne(g[i].index, 0);
    }
    ck_assert_str_eq(fo_fonts_for_char(0x4E2D), FO_TEXT_FALLBACK_CJK);
    ck_assert_str_eq(fo_fonts_for_char(0xD55C), FO_TEXT_FALLBACK_KOREAN);
    ck_assert_ptr_null(fo_fonts_for_char(0x2713));   /* ✓ stays a symbol */
}
END_TEST

/* fo_text_has_char asks the one file, no fallback: the PDF writer loads a
 * fallback font only for a character its cmap has. */
START_TEST(has_char_asks_the_file_alone)
{
    ck_assert(fo_text_has_char(SANS, 'A'));
    ck_assert(!fo_text_has_char(SANS, 0x65E5));                      /* 日 */
    ck_assert(fo_text_has_char(FO_TEXT_FALLBACK_CJK, 0x65E5));
    ck_assert(!fo_text_has_char(FO_TEXT_FALLBACK_REGULAR, 0x65E5));  /* DejaVu Sans */
    ck_assert(fo_text_has_char(FO_TEXT_FALLBACK_REGULAR, 0x2603));   /* ☃ */
    ck_assert(!fo_text_has_char("/nonexistent/font.ttf", 'A'));
    for (uint32_t c = 0x20; c < 0x3000; c++) {   /* the font measuring picks, when it is the file */
        if (c == 0x7F || (c >= 0x200B && c <= 0x200F)) continue;   /* no glyph: zero width */
        char u[4];
        fo_glyph g;
        size_t n = fo_utf8_put(u, c);
        if (fo_text_glyphs(SANS, 10, u, n, &g, 1, NULL) != 1) continue;   /* shaped: combining marks */
        ck_assert_msg(fo_text_has_char(SANS, c) == (!g.fallback && g.index != 0), "U+%04X", c);
    }
}
END_TEST

/* Symbols and emoji: check marks the colour font lacks from the text fonts;
 * pictographs one glyph each of the colour font (glyph ids as hb-shape gives
 * them on NotoColorEmoji.ttf), 2550/2048 em wide; variation selectors (the
 * U+FE0F of "⚠️") take no room; ⚠ alone is text. Without the colour font (test_emoji.py runs
 * folio so) they are Symbola's and DejaVu's. */
START_TEST(symbols_and_emoji_fall_back_to_symbola)
{
    ck_assert_msg(access(FO_TEXT_FALLBACK_SYMBOLS, R_OK) == 0,
                  "%s missing: install the Debian package fonts-symbola", FO_TEXT_FALLBACK_SYMBOLS);
    ck_assert_msg(access(FO_EMOJI_FONT, R_OK) == 0,
                  "%s missing: install the Debian package fonts-noto-color-emoji", FO_EMOJI_FONT);
    const char *s = "\xE2\x9C\x85\xF0\x9F\x93\x88\xE2\x9A\xA0\xEF\xB8\x8F"; /* "✅📈⚠️" */
    fo_glyph g[8];
    double w;
    ck_assert_uint_eq(fo_text_glyphs(SANS, 10, s, strlen(s), g, 8, &w), 3);
    const uint32_t gid[] = {143, 692, 112};
    for (int i = 0; i < 3; i++) {
        ck_assert_str_eq(g[i].font, FO_EMOJI_FONT);
        ck_assert_uint_eq(g[i].index, gid[i]);
        ck_assert_double_eq_tol(g[i].x, i * 2550 * 10 / 2048.0, 1e-9);
    }
    ck_assert_double_eq_tol(w, 3 * 2550 * 10 / 2048.0, 1e-9);
    /* U+FE0F takes no room; without it ⚠ (text presentation by default)
       is DejaVu's narrower outline */
    ck_assert_double_eq_tol(fo_text_width(SANS, 10, s + 7, 6), 2550 * 10 / 2048.0, 1e-9);
    ck_assert_uint_eq(fo_text_glyphs(SANS, 10, s + 7, 3, g, 8, NULL), 1);
    ck_assert_str_eq(g[0].font, FO_TEXT_FALLBACK_REGULAR);
    ck_assert_double_lt(fo_text_width(SANS, 10, s + 7, 3), 2550 * 10 / 2048.0);
    const char *marks = "\xE2\x9C\x93\xE2\x9C\x97";   /* "✓✗": not in the colour font */
    ck_assert_uint_eq(fo_text_glyphs(SANS, 10, marks, 6, g, 8, NULL), 2);
    ck_assert_str_eq(g[0].font, FO_TEXT_FALLBACK_REGULAR);   /* DejaVu has them */
    ck_assert_str_eq(g[1].font, FO_TEXT_FALLBACK_REGULAR);
    ck_assert_uint_ne(g[0].index, 0);
}
END_TEST

/* Emoji sequences wrap whole: a line breaks between two families or two
 * flags, never inside one (libunibreak 1.1 aborted on regional indicators
 * and allowed a break after a ZWJ). */
START_TEST(emoji_sequences_wrap_whole)
{
    ck_assert_msg(access(FO_EMOJI_FONT, R_OK) == 0, "install fonts-noto-color-emoji");
    const char *fam = "👨‍👩‍👧", *flags = "🇯🇵🇩🇪🇺🇸";
    char s[128];
    snprintf(s, sizeof s, "%s%s%s", fam, fam, fam);
    fo_text_line lines[8];
    double one = fo_text_width(SANS, 10, fam, strlen(fam));
    ck_assert_double_eq_tol(one, 2550 * 10 / 2048.0, 1e-9);
    ck_assert_uint_eq(fo_text_wrap(SANS, 10, s, strlen(s), one * 1.5, lines, 8), 3);
    for (int k = 0; k < 3; k++) {
        ck_assert_uint_eq(lines[k].start, k * strlen(fam));
        ck_assert_uint_eq(lines[k].len, strlen(fam));
    }
    ck_assert_uint_eq(fo_text_wrap(SANS, 10, flags, strlen(flags), one * 1.5, lines, 8), 3);
    for (int k = 0; k < 3; k++) ck_assert_uint_eq(lines[k].len, 8);   /* two indicators */
}
END_TEST

/* U+FFFF (a noncharacter, but valid UTF-8) is libunibreak 1.1's end-of-
 * text mark: after a letter it aborted the render (fuzz_text). It wraps
 * like any other character now, and the breaks after it are still found. */
START_TEST(noncharacter_ffff_wraps)
{
    const char *s = "a\xEF\xBF\xBF b c";
    char *brks = fo_linebreaks(s, strlen(s));
    ck_assert_ptr_nonnull(brks);
    ck_assert(fo_linebreak_after(brks, 4));    /* after the space */
    ck_assert(!fo_linebreak_after(brks, 1));   /* inside U+FFFF */
    fo_free(brks);
    fo_text_line lines[8];
    ck_assert_uint_eq(fo_text_wrap(SANS, 10, s, strlen(s), fo_text_width(SANS, 10, "a\xEF\xBF\xBF", 4), lines, 8), 3);
}
END_TEST

static void check_lines(const char *text, double max, const char *const *want, size_t nwant)
{
    fo_text_line lines[32];
    size_t n = fo_text_wrap(SANS, 10, text, strlen(text), max, lines, 32);
    ck_assert_uint_eq(n, nwant);
    for (size_t i = 0; i < n; i++) {
        ck_assert_int_eq((int)lines[i].len, (int)strlen(want[i]));
        ck_assert_msg(strncmp(text + lines[i].start, want[i], lines[i].len) == 0,
                      "line %zu is '%.*s', want '%s'", i, (int)lines[i].len, text + lines[i].start, want[i]);
        ck_assert_double_eq_tol(lines[i].width, fo_text_width(SANS, 10, want[i], strlen(want[i])), 1e-9);
        if (strchr(want[i], ' ') || strlen(want[i]) > 1) ck_assert(lines[i].width <= max + 1e-9);
    }
}

START_TEST(wrap_at_spaces_hyphens_and_newlines)
{
    double w = fo_text_width(SANS, 10, "quick brown", 11);
    const char *a[] = {"the quick", "brown fox", "jumps"};
    check_lines("the quick brown fox jumps", w, a, 3);
    const char *b[] = {"well-", "known"};
    check_lines("well-known", fo_text_width(SANS, 10, "well-kn", 7), b, 2);
    const char *c[] = {"one", "", "two"};
    check_lines("one\n\ntwo", 1000, c, 3);
    const char *d[] = {""};
    check_lines("", 100, d, 1);
    const char *e[] = {"a", "b"};
    check_lines("a    b", fo_text_width(SANS, 10, "a ", 2), e, 2);
}
END_TEST

START_TEST(wrap_hard_breaks_long_words_between_characters)
{
    const char *word = "Donaudampfschifffahrtsgesellschaft";
    double max = fo_text_width(SANS, 10, "Donaudampf", 10);
    fo_text_line lines[16];
    size_t n = fo_text_wrap(SANS, 10, word, strlen(word), max, lines, 16);
    ck_assert(n >= 3);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert(lines[i].width <= max + 1e-9);
        ck_assert_uint_eq(lines[i].start, total);
        total += lines[i].len;
    }
    ck_assert_uint_eq(total, strlen(word));
    /* multi-byte: never split inside a character */
    const char *jp = "\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E\xE3\x81\xAE\xE6\x96\x87\xE7\xAB\xA0"; /* 日本語の文章 */
    n = fo_text_wrap(SANS, 10, jp, strlen(jp), fo_text_width(SANS, 10, jp, 6) + 0.1, lines, 16);
    ck_assert_uint_eq(n, 3);
    for (size_t i = 0; i < n; i++) ck_assert_uint_eq(lines[i].len, 6);
    /* counting mode */
    ck_assert_uint_eq(fo_text_wrap(SANS, 10, word, strlen(word), max, NULL, 0),
                      fo_text_wrap(SANS, 10, word, strlen(word), max, lines, 16));
}
END_TEST

/* Thai has no spaces between words: lines break between words, found by
 * ICU's dictionary (linebreak.c), never inside one. The words are ours;
 * ICU keeps each whole (it may join two, which removes a boundary). */
START_TEST(wrap_thai_between_words)
{
    static const char *const words[] = {"ประเทศ", "ไทย", "มี", "ประชากร", "ประมาณ", "หก", "สิบ", "ล้าน",
                                        "คน", "เมือง", "หลวง", "คือ", "กรุงเทพ", "อาหาร", "อร่อย", "มาก",
                                        "และ", "ผล", "ไม้", "ตลาด", "นัก", "ท่อง", "เที่ยว", "ทะเล"};
    char text[1024] = "";
    size_t ends[64], nends = 0;
    for (size_t i = 0; i < sizeof words / sizeof *words; i++) {
        strcat(text, words[i]);
        ends[nends++] = strlen(text);
    }
    size_t len = strlen(text);
    double max = fo_text_width(SANS, 10, text, len) / 4;
    fo_text_line lines[16];
    size_t n = fo_text_wrap(SANS, 10, text, len, max, lines, 16);
    ck_assert(n >= 4 && n <= 8);
    size_t total = 0;
    for (size_t i = 0; i < n; i++) {
        ck_assert_uint_eq(lines[i].start, total);
        total += lines[i].len;
        ck_assert(lines[i].width <= max + 1e-9);
        bool at_word_end = false;
        for (size_t k = 0; k < nends; k++) at_word_end |= ends[k] == total;
        ck_assert_msg(at_word_end, "line %zu ends inside a word, at byte %zu", i, total);
    }
    ck_assert_uint_eq(total, len);
}
END_TEST

START_TEST(ellipsize)
{
    char out[64];
    const char *s = "Quarterly revenue by region";
    size_t n = fo_text_ellipsize(SANS, 10, s, strlen(s), 1000, out, sizeof out);
    ck_assert_str_eq(out, s);
    ck_assert_uint_eq(n, strlen(s));
    double max = fo_text_width(SANS, 10, "Quarterly rev", 13);
    fo_text_ellipsize(SANS, 10, s, strlen(s), max, out, sizeof out);
    ck_assert(fo_text_width(SANS, 10, out, strlen(out)) <= max);
    ck_assert(strstr(out, "\xE2\x80\xA6") != NULL);
    ck_assert(strncmp(out, "Quarterly r", 11) == 0);
    fo_text_ellipsize(SANS, 10, "\xC3\xA9\xC3\xA9\xC3\xA9", 6, 1000, out, 4); /* room for one é */
    ck_assert_str_eq(out, "\xC3\xA9");
}
END_TEST

START_TEST(utf8_decoding)
{
    size_t i = 0;
    const char *s = "A\xC3\xA9\xE2\x82\xAC\xF0\x9F\x98\x80\xFF\xC3";
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 'A');
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 0xE9);
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 0x20AC);
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 0x1F600);
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 0xFFFD); /* invalid byte */
    ck_assert_uint_eq(fo_utf8_next(s, 12, &i), 0xFFFD); /* truncated sequence */
    ck_assert_uint_eq(i, 12);
    i = 0;
    ck_assert_uint_eq(fo_utf8_next("\xC0\x80", 2, &i), 0xFFFD); /* overlong */
    ck_assert_uint_eq(i, 1);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        widths_match_font_metrics,
        invisible_controls_take_no_width,
        fallback_for_missing_glyphs_and_files,
        cjk_falls_back_to_droid,
        cjk_never_from_the_symbol_font,
        has_char_asks_the_file_alone,
        symbols_and_emoji_fall_back_to_symbola,
        emoji_sequences_wrap_whole,
        noncharacter_ffff_wraps,
        wrap_at_spaces_hyphens_and_newlines,
        wrap_hard_breaks_long_words_between_characters,
        wrap_thai_between_words,
        ellipsize,
        utf8_decoding,
        NULL,
    };
    return fo_check_tests("text", 0, tests);
}
