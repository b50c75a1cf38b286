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

const char *fo_word(const char *lang, fo_word_id id)
{
    if ((unsigned)id >= FO_W_COUNT) return "";
    char p[9];
    if (!lang || !primary(lang, p, sizeof p)) return english[id];
    pthread_once(&once, load);
    json_t *w = json_object_get(json_object_get(languages, p), keys[id]);
    return json_is_string(w) ? json_string_value(w) : english[id];
}

size_t fo_word_fill(const char *lang, fo_word_id id, char *buf, size_t cap, size_t nargs,
                    const char *const *args)
{
    if (!cap) return 0;
    size_t o = 0;
    for (const char *s = fo_word(lang, id); *s && o + 1 < cap;) {
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
