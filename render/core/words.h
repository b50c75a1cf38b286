/* words.h — folio's own words in a document ("Total", "(cont.)", "Page 1
 * of 3", "Columns 1–13 of 25"...) in the document's language, and what a
 * language implies (its direction).
 *
 * The words are data: templates/lang/words.json (embedded with the other
 * templates), one object per BCP 47 primary language subtag ("de", "zh"),
 * read once per process (thread-safe). A tag is looked up by its primary
 * subtag, case-insensitively ("pt-BR" -> "pt", "zh-Hant-TW" -> "zh"); a
 * language the table lacks, a missing key, NULL or a broken table give
 * English. Never fails: the English words are compiled in as well. */
#ifndef FO_WORDS_H
#define FO_WORDS_H

#include <stdbool.h>
#include <stddef.h>

typedef enum {
    FO_W_TOTAL,        /* "Total": label of a totals row */
    FO_W_TABLE,        /* "Table": caption label, "Table 1: ..." */
    FO_W_FIGURE,       /* "Figure" */
    FO_W_CONT,         /* "(cont.)": a continued slide's title suffix */
    FO_W_PAGE_OF,      /* "Page {page} of {pages}": the default footer */
    FO_W_COLUMNS_OF,   /* "Columns {1}–{2} of {3}" */
    FO_W_KEY_REPEATED, /* " (key column repeated)", appended to the above */
    FO_W_FIRST_ROWS,   /* "First {1} of {2} rows; the full table is in the workbook." */
    FO_W_CHART_DATA,   /* "Chart data: sheet “{1}”" */
    FO_W_CONTENTS,     /* "Contents": a toc block's default title */
    FO_W_TABLE_LINK,   /* "Table: {1} → sheet “{2}” ({3} rows)": the Summary sheet's link */
    FO_W_TABLE_LINK_SHEETS, /* "Table: {1} → sheets “{2}” to “{3}” ({4} rows)" */
    FO_W_COUNT
} fo_word_id;

/* CLDR's cardinal plural categories (Unicode CLDR, common/supplemental/
 * plurals.xml; LDML, UTS #35 part 3). */
typedef enum {
    FO_PLURAL_ZERO,
    FO_PLURAL_ONE,
    FO_PLURAL_TWO,
    FO_PLURAL_FEW,
    FO_PLURAL_MANY,
    FO_PLURAL_OTHER
} fo_plural;

/* The category of the whole number n in language lang by CLDR's rules (one
 * rule per family: en de nl; es it pt-PT; fr pt; hi; ar; he; ru uk be;
 * zh ja ko and any other language: "other" only). */
fo_plural fo_plural_of(const char *lang, unsigned long long n);

/* The word id in language lang (BCP 47; NULL: English), the "other" form
 * of a counted word. Static text. */
const char *fo_word(const char *lang, fo_word_id id);

/* fo_word(lang, id) in the form for count with {1}, {2}, {3} replaced by
 * args[0..nargs) into buf (cap bytes, cut at cap - 1, always terminated when
 * cap > 0). Returns the length written.
 *
 * A word in words.json is a string (one form) or, for a counted word, an
 * object of CLDR categories ("zero", "one", "two", "few", "many", "other";
 * "other" required): the form is the one for fo_plural_of(count) in the
 * language whose words these are ("other" when that form is missing;
 * English's rule when the word falls back to English). The count is the
 * number the caller fills in: {3} of FO_W_COLUMNS_OF (all columns), {2} of
 * FO_W_FIRST_ROWS (all rows), {3} of FO_W_TABLE_LINK and {4} of
 * FO_W_TABLE_LINK_SHEETS (rows); other words ignore it. */
size_t fo_word_fill(const char *lang, fo_word_id id, unsigned long long count, char *buf, size_t cap,
                    size_t nargs, const char *const *args);

/* True when lang is written right to left (ar, he, fa, ur, yi, ps, sd, ug,
 * dv, ckb; "iw" too), or is tagged with such a script (-Arab, -Hebr). */
bool fo_lang_rtl(const char *lang);

/* True when s is a well-formed BCP 47 tag as far as folio checks: a primary
 * subtag of 2-3 letters (the grandfathered i- and private x- forms are
 * refused), then subtags of 1-8 letters or digits separated by '-', at
 * most 63 bytes. */
bool fo_lang_valid(const char *s);

/* The tag as OOXML writes it in w:lang / a:rPr lang: lang, or "en-US" for
 * NULL. Static or borrowed. */
const char *fo_lang_tag(const char *lang);

/* What Word and PowerPoint are told about a document in language lang:
 * the language of its Latin, East Asian and complex-script text (w:lang's
 * w:val, w:eastAsia, w:bidi: lang where it is of that kind, else Word's
 * defaults en-US / ar-SA), and the font families for East Asian and
 * complex-script text (the ones folio draws them with, text.md), NULL when
 * the language is of neither kind or the font lacks digits (Hebrew, Thai:
 * the theme's body font stays); ea_script is the ISO 15924 script a
 * DrawingML theme lists ea_font under (Jpan, Hans, Hant, Hang: zh-Hant and
 * zh-TW/HK/MO are Hant), NULL with ea_font. */
typedef struct {
    const char *latin, *east_asia, *bidi;
    const char *ea_font, *cs_font;
    const char *ea_script;
} fo_lang_ooxml;
fo_lang_ooxml fo_lang_for_ooxml(const char *lang);

#endif
