/* words.c — folio's own words by language, from templates/lang/words.json
 * (words.h). */
#include <ctype.h>
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "folio.h"
#include "render/core/templates.h"
#include "render/core/words.h"

/* The keys of words.json, in fo_word_id order. */
static const char *const keys[FO_W_COUNT] = {
    "total", "table", "figure", "cont", "page_of", "columns_of", "key_repeated",
    "first_rows", "chart_data", "contents", "table_link", "table_link_sheets",
};

/* English, compiled in: the answer when the table cannot say. */
static const char *const english[FO_W_COUNT] = {
    "Total", "Table", "Figure", "(cont.)", "Page {page} of {pages}",
    "Columns {1}\u2013{2} of {3}", " (key column repeated)",
    "First {1} of {2} rows; the full table is in the workbook.",
    "Chart data: sheet \u201C{1}\u201D", "Contents",
    "Table: {1} \u2192 sheet \u201C{2}\u201D ({3} rows)",
    "Table: {1} \u2192 sheets \u201C{2}\u201D to \u201C{3}\u201D ({4} rows)",
};

static pthread_once_t once = PTHREAD_ONCE_INIT;
static json_t *languages;   /* the "languages" object; NULL: English only */

static void load(void)
{
    size_t len;
    const char *s = (const char *)fo_template_find("lang/words.json", &len);
    json_t *root = s ? json_loadb(s, len, 0, NULL) : NULL;
    json_t *l = root ? json_object_get(root, "languages") : NULL;
    if (json_is_object(l)) languages = json_incref(l);
    json_decref(root);   /* kept for the life of the process through languages */
}

/* The primary subtag of lang, lowercased, into p (cap >= 4); false if none. */
static bool primary(const char *lang, char *p, size_t cap)
{
    size_t n = 0;
    while (lang && lang[n] && lang[n] != '-' && lang[n] != '_' && n + 1 < cap) {
        p[n] = (char)tolower((unsigned char)lang[n]);
        n++;
    }
    p[n] = '\0';
    return n > 0;
}

/* ---- plural rules: CLDR 42+ (common/supplemental/plurals.xml), for whole
   numbers (v = 0, so i = n) ----------------------------------------------- */

static fo_plural rule_other(unsigned long long n)
{
    (void)n;
    return FO_PLURAL_OTHER;
}

/* en de nl (and ast et fi fy gl sv...): one: i = 1 and v = 0 */
static fo_plural rule_germanic(unsigned long long n) { return n == 1 ? FO_PLURAL_ONE : FO_PLURAL_OTHER; }

/* es it pt-PT (ca): one: n = 1 (i = 1 and v = 0); many: e = 0 and i != 0
   and i % 1000000 = 0 and v = 0 */
static fo_plural rule_romance(unsigned long long n)
{
    if (n == 1) return FO_PLURAL_ONE;
    return n && n % 1000000 == 0 ? FO_PLURAL_MANY : FO_PLURAL_OTHER;
}

/* fr pt: one: i = 0,1; many as above */
static fo_plural rule_french(unsigned long long n)
{
    if (n <= 1) return FO_PLURAL_ONE;
    return n % 1000000 == 0 ? FO_PLURAL_MANY : FO_PLURAL_OTHER;
}

/* hi (am bn fa gu kn zu): one: i = 0 or n = 1 */
static fo_plural rule_hindi(unsigned long long n) { return n <= 1 ? FO_PLURAL_ONE : FO_PLURAL_OTHER; }

/* ar: zero: n = 0; one: n = 1; two: n = 2; few: n % 100 = 3..10;
   many: n % 100 = 11..99 */
static fo_plural rule_arabic(unsigned long long n)
{
    if (n <= 2) return n == 0 ? FO_PLURAL_ZERO : n == 1 ? FO_PLURAL_ONE : FO_PLURAL_TWO;
    unsigned long long h = n % 100;
    return h >= 3 && h <= 10 ? FO_PLURAL_FEW : h >= 11 ? FO_PLURAL_MANY : FO_PLURAL_OTHER;
}

/* he iw: one: i = 1 and v = 0; two: i = 2 and v = 0 (CLDR 42 dropped
   "many", CLDR-14634) */
static fo_plural rule_hebrew(unsigned long long n)
{
    return n == 1 ? FO_PLURAL_ONE : n == 2 ? FO_PLURAL_TWO : FO_PLURAL_OTHER;
}

/* ru uk (be): one: i % 10 = 1 and i % 100 != 11; few: i % 10 = 2..4 and
   i % 100 != 12..14; many: the rest of the whole numbers */
static fo_plural rule_slavic(unsigned long long n)
{
    unsigned long long t = n % 10, h = n % 100;
    if (t == 1 && h != 11) return FO_PLURAL_ONE;
    if (t >= 2 && t <= 4 && (h < 12 || h > 14)) return FO_PLURAL_FEW;
    return FO_PLURAL_MANY;
}

/* The rule of primary subtag p in tag lang (pt-PT is not pt's). */
static fo_plural (*rule_of(const char *p, const char *lang))(unsigned long long)
{
    static const struct {
        const char *lang;
        fo_plural (*rule)(unsigned long long);
    } rules[] = {
        {"en", rule_germanic}, {"de", rule_germanic}, {"nl", rule_germanic}, {"es", rule_romance},
        {"it", rule_romance},  {"fr", rule_french},   {"pt", rule_french},   {"hi", rule_hindi},
        {"ar", rule_arabic},   {"he", rule_hebrew},   {"iw", rule_hebrew},   {"ru", rule_slavic},
        {"uk", rule_slavic},   {"be", rule_slavic},
    };
    if (strcmp(p, "pt") == 0 && lang && strcasestr(lang, "-PT")) return rule_romance;
    for (size_t i = 0; i < sizeof rules / sizeof *rules; i++)
        if (strcmp(p, rules[i].lang) == 0) return rules[i].rule;
    return rule_other;
}

fo_plural fo_plural_of(const char *lang, unsigned long long n)
{
    char p[9];
    if (!lang) return rule_germanic(n);
    if (!primary(lang, p, sizeof p)) return FO_PLURAL_OTHER;
    return rule_of(p, lang)(n);
}

/* ---- the one lookup -------------------------------------------------------- */

static const char *const categories[] = {"zero", "one", "two", "few", "many", "other"};

/* Word id of language object l (NULL: none) for count (NULL: the "other"
 * form) under language tag lang; NULL when l lacks it. */
static const char *lookup_in(json_t *l, const char *p, const char *lang, fo_word_id id,
                             const unsigned long long *count)
{
    json_t *w = json_object_get(l, keys[id]);
    if (json_is_string(w)) return json_string_value(w);
    if (!json_is_object(w)) return NULL;
    json_t *f = count ? json_object_get(w, categories[rule_of(p, lang)(*count)]) : NULL;
    if (!json_is_string(f)) f = json_object_get(w, "other");
    return json_is_string(f) ? json_string_value(f) : NULL;
}

/* The word in lang's table, else English's, else the compiled-in English. */
static const char *lookup(const char *lang, fo_word_id id, const unsigned long long *count)
{
    if ((unsigned)id >= FO_W_COUNT) return "";
    pthread_once(&once, load);
    char p[9];
    const char *s = NULL;
    if (lang && primary(lang, p, sizeof p)) s = lookup_in(json_object_get(languages, p), p, lang, id, count);
    if (!s) s = lookup_in(json_object_get(languages, "en"), "en", "en", id, count);
    return s ? s : english[id];
}

const char *fo_word(const char *lang, fo_word_id id) { return lookup(lang, id, NULL); }

size_t fo_word_fill(const char *lang, fo_word_id id, unsigned long long count, char *buf, size_t cap,
                    size_t nargs, const char *const *args)
{
    if (!cap) return 0;
    size_t o = 0;
    for (const char *s = lookup(lang, id, &count); *s && o + 1 < cap;) {
        if (s[0] == '{' && s[1] >= '1' && s[1] <= '9' && s[2] == '}' && (size_t)(s[1] - '1') < nargs) {
            for (const char *a = args[s[1] - '1']; a && *a && o + 1 < cap;) buf[o++] = *a++;
            s += 3;
            continue;
        }
        buf[o++] = *s++;
    }
    /* never end inside a UTF-8 sequence */
    size_t k = o;
    while (k > 0 && ((unsigned char)buf[k - 1] & 0xC0) == 0x80) k--;
    if (k > 0 && (unsigned char)buf[k - 1] >= 0xC0) {
        unsigned char lead = (unsigned char)buf[k - 1];
        size_t need = lead >= 0xF0 ? 4 : lead >= 0xE0 ? 3 : 2;
        if (o - (k - 1) < need) o = k - 1;
    }
    buf[o] = '\0';
    return o;
}

bool fo_lang_rtl(const char *lang)
{
    static const char *const rtl[] = {"ar", "he", "iw", "fa", "ur", "yi", "ps", "sd", "ug", "dv", "ckb", NULL};
    char p[9];
    if (!lang || !primary(lang, p, sizeof p)) return false;
    for (size_t i = 0; rtl[i]; i++)
        if (strcmp(p, rtl[i]) == 0) return true;
    return strcasestr(lang, "-Arab") || strcasestr(lang, "-Hebr");
}

bool fo_lang_valid(const char *s)
{
    size_t n = s ? strlen(s) : 0, sub = 0, i = 0;
    if (n == 0 || n > 63) return false;
    for (; i < n && isalpha((unsigned char)s[i]); i++) {}
    if (i < 2 || i > 3 || (s[i] && s[i] != '-')) return false;
    for (; i < n; i++) {
        if (s[i] == '-') {
            if (i + 1 == n || s[i + 1] == '-') return false;
            sub = 0;
            continue;
        }
        if (!isalnum((unsigned char)s[i]) || ++sub > 8) return false;
    }
    return true;
}

const char *fo_lang_tag(const char *lang)
{
    return lang ? lang : "en-US";
}

/* The ISO 15924 script of East Asian language p (primary subtag) in tag
 * lang: Jpan, Hang, or for Chinese Hant (-Hant, -TW, -HK, -MO) or Hans. */
static const char *ea_script(const char *p, const char *lang)
{
    if (strcmp(p, "ja") == 0) return "Jpan";
    if (strcmp(p, "ko") == 0) return "Hang";
    static const char *const hant[] = {"-Hant", "-TW", "-HK", "-MO", NULL};
    for (size_t i = 0; hant[i]; i++) {
        const char *s = strcasestr(lang, hant[i]);
        size_t n = strlen(hant[i]);
        if (s && (s[n] == '\0' || s[n] == '-')) return "Hant";
    }
    return "Hans";
}

fo_lang_ooxml fo_lang_for_ooxml(const char *lang)
{
    static const struct { const char *lang, *ea, *cs; } fonts[] = {
        {"zh", "Droid Sans Fallback", NULL}, {"ja", "Droid Sans Fallback", NULL},
        {"ko", "NanumGothic", NULL},
        {"ar", NULL, "Noto Sans Arabic"}, {"fa", NULL, "Noto Sans Arabic"},
        {"ur", NULL, "Noto Sans Arabic"}, {"ps", NULL, "Noto Sans Arabic"},
        {"ckb", NULL, "Noto Sans Arabic"},
        {"hi", NULL, "Noto Sans Devanagari"}, {"mr", NULL, "Noto Sans Devanagari"},
        {"ne", NULL, "Noto Sans Devanagari"}, {"bn", NULL, "Noto Sans Bengali"},
        {"ta", NULL, "Noto Sans Tamil"}, {"te", NULL, "Noto Sans Telugu"},
        {"kn", NULL, "Noto Sans Kannada"}, {"ml", NULL, "Noto Sans Malayalam"},
        {"gu", NULL, "Noto Sans Gujarati"}, {"pa", NULL, "Noto Sans Gurmukhi"},
    };
    /* Noto Sans Hebrew and Thai have no digits: Word and LibreOffice then
       draw none in right-to-left runs. Those languages keep the body font
       (Liberation Sans has Hebrew) and only say their language. */
    static const char *const cs_only[] = {"he", "iw", "yi", "th", NULL};
    fo_lang_ooxml o = {fo_lang_tag(lang), "en-US", "ar-SA", NULL, NULL, NULL};
    char p[9];
    if (!lang || !primary(lang, p, sizeof p)) return o;
    for (size_t i = 0; i < sizeof fonts / sizeof *fonts; i++) {
        if (strcmp(p, fonts[i].lang) != 0) continue;
        o.ea_font = fonts[i].ea;
        o.cs_font = fonts[i].cs;
        if (fonts[i].ea) o.east_asia = lang;
        if (fonts[i].ea) o.ea_script = ea_script(p, lang);
        if (fonts[i].cs) o.bidi = lang;
    }
    for (size_t i = 0; cs_only[i]; i++)
        if (strcmp(p, cs_only[i]) == 0) o.bidi = lang;
    return o;
}
