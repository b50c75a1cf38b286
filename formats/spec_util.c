/* spec_util.c — located errors, key checking with suggestions, typed getters
 * and safe path resolution for the spec reader. */
#include <ctype.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/path.h"
#include "formats/spec_internal.h"
#include "base/buf.h"
#include "render/core/markup.h"
#include "render/core/numfmt.h"
#include "render/core/policy.h"

/* The group of an earlier diagnostic with the same message and hint, or NULL. */
static fo_spec_group *group_of(fo_spec_ctx *c, const char *msg, const char *hint)
{
    for (size_t i = 0; i < c->ngroups; i++) {
        const fo_diag *g = &c->d->items[c->groups[i].diag];
        if (strcmp(g->message, msg) == 0 && ((!g->hint && !hint) || (g->hint && hint && strcmp(g->hint, hint) == 0)))
            return &c->groups[i];
    }
    return NULL;
}

static void group_add(fo_spec_ctx *c)
{
    if (c->ngroups >= FO_SPEC_MAX_ERRORS * 2 || !c->d->n) return;
    if (!fo_grow((void **)&c->groups, &c->capgroups, c->ngroups + 1, 8, sizeof *c->groups)) return;
    c->groups[c->ngroups].diag = c->d->n - 1;
    c->groups[c->ngroups++].count = 1;
}

/* One located diagnostic; *count counts it. A message already reported
 * (the same mistake elsewhere) only joins that one's group; past
 * FO_SPEC_MAX_ERRORS distinct ones (*listed) it is only counted
 * (fo_spec_finish sums those up). */
__attribute__((format(printf, 8, 0)))
static void vreport(fo_spec_ctx *c, int *count, int *listed, const char *pointer, bool key,
                    const char *hint, const char *prefix, const char *fmt, va_list ap)
{
    (*count)++;
    char msg[1024], full[1100];
    vsnprintf(msg, sizeof msg, fmt, ap);
    snprintf(full, sizeof full, "%s%s", prefix, msg);
    fo_spec_group *g = group_of(c, full, hint);
    if (g) {
        if (g->count <= 3) g->places[g->count - 1] = fo_strdup(pointer ? pointer : "");
        g->count++;
        return;
    }
    if ((*listed)++ >= FO_SPEC_MAX_ERRORS) return;
    int line = 0, col = 0;
    if (c->json) fo_json_locate(c->json, pointer, key, &line, &col);
    fo_diags_add(c->d, c->file, line, col, pointer, hint, "%s", full);
    group_add(c);
}

void fo_spec_error(fo_spec_ctx *c, const char *pointer, bool key, const char *hint,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, &c->errors, &c->listed_errors, pointer, key, hint, "", fmt, ap);
    va_end(ap);
}

void fo_spec_warn(fo_spec_ctx *c, const char *pointer, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, &c->warnings, &c->listed_warnings, pointer, false, hint, "warning: ", fmt, ap);
    va_end(ap);
}

/* "MESSAGE; 30 times in all, also at /a, /b, /c, ..." */
static void group_finish(fo_spec_ctx *c, fo_spec_group *g)
{
    fo_diag *dg = &c->d->items[g->diag];
    char places[3 * FO_PTR_MAX + 16] = "";
    size_t n = 0;
    for (int i = 0; i < 3 && i < g->count - 1; i++)
        if (g->places[i] && n < sizeof places)
            n += (size_t)snprintf(places + n, sizeof places - n, "%s%s", i ? ", " : "", g->places[i]);
    if (g->count > 4 && n < sizeof places) snprintf(places + n, sizeof places - n, ", ...");
    size_t len = strlen(dg->message) + strlen(places) + 64;
    char *m = fo_malloc(len);
    if (!m) return;
    snprintf(m, len, "%s; %d times in all, also at %s", dg->message, g->count, places);
    fo_free(dg->message);
    dg->message = m;
}

void fo_spec_finish(fo_spec_ctx *c)
{
    for (size_t i = 0; i < c->ngroups; i++) {
        if (c->groups[i].count > 1) group_finish(c, &c->groups[i]);
        for (int k = 0; k < 3; k++) fo_free(c->groups[i].places[k]);
    }
    fo_free(c->groups);
    c->groups = NULL;
    c->ngroups = 0;
    fo_spec_more_errors(c->d, c->file, c->listed_warnings, "warning");
    fo_spec_more_errors(c->d, c->file, c->listed_errors, "error");
}

void fo_spec_more_errors(fo_diags *d, const char *file, int n, const char *what)
{
    if (n <= FO_SPEC_MAX_ERRORS) return;
    fo_diags_add(d, file, 0, 0, NULL, "fix these first; the rest are often the same mistake",
                 "... and %d more %s%s not shown", n - FO_SPEC_MAX_ERRORS, what,
                 n - FO_SPEC_MAX_ERRORS == 1 ? "" : "s");
}

bool fo_spec_check_link(fo_spec_ctx *c, const char *url, const char *ptr)
{
    const char *why = fo_link_refusal(url);
    if (!why) return true;
    fo_spec_warn(c, ptr, "links may use http, https and mailto; folio render --allow-link-scheme NAME allows another",
                 "link to \"%.60s%s\" dropped (%s); its text stays", url, strlen(url) > 60 ? "..." : "", why);
    return false;
}

void fo_spec_check_markup(fo_spec_ctx *c, const char *text, const char *ptr)
{
    if (!text || !strchr(text, '[')) return;
    fo_runs runs = {0};
    if (fo_markup_parse(text, &runs) != FO_OK) return;
    const char *last = NULL;
    for (size_t i = 0; i < runs.n; i++) {
        const char *u = runs.runs[i].url;
        if (u && (!last || strcmp(u, last) != 0)) fo_spec_check_link(c, u, ptr);
        last = u;
    }
    fo_runs_free(&runs);
}

/* Optimal string alignment distance (Damerau-Levenshtein, adjacent swaps). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 64 || lb > 64) return 99;
    size_t dp[66][66];
    for (size_t i = 0; i <= la; i++) dp[i][0] = i;
    for (size_t j = 0; j <= lb; j++) dp[0][j] = j;
    for (size_t i = 1; i <= la; i++)
        for (size_t j = 1; j <= lb; j++) {
            size_t cost = a[i - 1] != b[j - 1];
            size_t v = dp[i - 1][j] + 1;
            if (dp[i][j - 1] + 1 < v) v = dp[i][j - 1] + 1;
            if (dp[i - 1][j - 1] + cost < v) v = dp[i - 1][j - 1] + cost;
            if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && dp[i - 2][j - 2] + 1 < v)
                v = dp[i - 2][j - 2] + 1;
            dp[i][j] = v;
        }
    return dp[la][lb];
}

/* Words a person (or a model) writes for a name the spec spells another
 * way: a suggestion that no edit distance finds. Each applies only where its
 * target is one of the candidates. */
static const char *const synonyms[][2] = {
    {"bullets", "list"}, {"bullet_list", "list"}, {"bulleted_list", "list"}, {"numbered_list", "list"},
    {"ordered_list", "list"}, {"unordered_list", "list"}, {"points", "items"},
    {"kpis", "metrics"}, {"kpi", "metrics"}, {"stats", "metrics"}, {"cards", "metrics"},
    {"chart_type", "kind"}, {"type", "kind"}, {"labels", "x"}, {"categories", "x"}, {"category", "x"},
    {"values", "y"}, {"series", "y"}, {"value", "y"}, {"header", "title"}, {"heading", "title"},
    {"src", "path"}, {"file", "path"}, {"image", "path"}, {"name", "field"}, {"column", "field"},
    {"content", "text"}, {"body", "text"}, {"md", "text"}, {"markdown", "paragraph"}, {"text", "paragraph"},
    {"image_path", "path"}, {"number_format", "format"}, {"fmt", "format"}, {"headers", "columns"},
    {"fields", "columns"}, {"data_rows", "rows"}, {"values_format", "format"}, {"subtitle_text", "subtitle"},
    {"x_axis", "x_title"}, {"y_axis", "y_title"}, {"xlabel", "x_title"}, {"ylabel", "y_title"},
    {"x_label", "x_title"}, {"y_label", "y_title"}, {"footnote", "caption"}, {"pagebreak", "page_break"},
    {"break", "page_break"}, {"hr", "page_break"}, {"code_block", "code"}, {"lang", "language"},
    {"total", "totals"}, {"change", "delta"}, {"trend", "delta"},
};

static const char *synonym_of(const char *word, const char *const *candidates)
{
    for (size_t i = 0; i < sizeof synonyms / sizeof *synonyms; i++) {
        if (strcmp(word, synonyms[i][0]) != 0) continue;
        for (size_t k = 0; candidates[k]; k++)
            if (strcmp(candidates[k], synonyms[i][1]) == 0) return candidates[k];
    }
    return NULL;
}

const char *fo_spec_suggest(const char *word, const char *const *candidates)
{
    const char *syn = synonym_of(word, candidates);
    if (syn) return syn;
    const char *best = NULL;
    size_t best_d = 99, len = strlen(word);
    size_t limit = len <= 3 ? 1 : len <= 6 ? 2 : 3;
    for (size_t i = 0; candidates[i]; i++) {
        size_t dist = edit_distance(word, candidates[i]);
        if (dist < best_d) { best_d = dist; best = candidates[i]; }
    }
    return best_d <= limit ? best : NULL;
}

static void list_of(const char *const *names, char *buf, size_t cap)
{
    size_t n = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i] && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%s", i ? ", " : "", names[i]);
}

/* Keys that are no typo but a different idea of the spec: what to do
 * instead. Each applies where its anchor key is allowed (the top level for
 * "slides"). */
static const char *explanation(const char *key, const char *const *allowed)
{
    static const char *const why[][3] = {
        {"x_scale", "y_scale", "only the value axis has a scale: \"y_scale\": \"log\" (a bar chart's value axis too)"},
        {"scale", "y_scale", "the value axis's scale is \"y_scale\": \"log\" or \"linear\""},
        {"log", "y_scale", "a logarithmic value axis is \"y_scale\": \"log\""},
        {"slides", "blocks", "slides come from level-1 headings: put {\"type\": \"heading\", \"level\": 1, "
         "\"text\": \"...\"} in \"blocks\" before each slide's content"},
        {"pages", "blocks", "pages are not declared: \"blocks\" flow onto pages; {\"type\": \"page_break\"} starts a new one"},
        {"sheets", "blocks", "each table block becomes its own sheet in a workbook; list them in \"blocks\""},
        {"sections", "blocks", "sections are headings: {\"type\": \"heading\", \"level\": 1, \"text\": \"...\"} in \"blocks\""},
        {"charts", "blocks", "charts are blocks: {\"type\": \"chart\", \"kind\": \"bar\", ...} in \"blocks\""},
        {"tables", "blocks", "tables are blocks: {\"type\": \"table\", \"data\": \"NAME\"} in \"blocks\""},
        {"datasets", "data", "datasets go under \"data\": {\"sales\": {\"csv\": \"sales.csv\"}}"},
    };
    for (size_t i = 0; i < sizeof why / sizeof *why; i++) {
        if (strcmp(key, why[i][0]) != 0) continue;
        for (size_t k = 0; allowed[k]; k++)
            if (strcmp(allowed[k], why[i][1]) == 0) return why[i][2];
    }
    return NULL;
}

void fo_spec_check_keys(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *const *allowed)
{
    const char *key;
    json_t *v;
    json_object_foreach(obj, key, v) {
        bool ok = false;
        for (size_t i = 0; allowed[i] && !ok; i++) ok = strcmp(key, allowed[i]) == 0;
        if (ok) continue;
        char p[FO_PTR_MAX];
        snprintf(p, sizeof p, "%s", ptr);
        fo_json_ptr_push(p, sizeof p, key);
        const char *s = fo_spec_suggest(key, allowed);
        const char *why = explanation(key, allowed);
        char hint[512];
        if (why) snprintf(hint, sizeof hint, "%s", why);
        else if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
        else {
            char list[400];
            list_of(allowed, list, sizeof list);
            snprintf(hint, sizeof hint, "allowed keys: %s", list);
        }
        fo_spec_error(c, p, true, hint, "unknown key \"%s\"", key);
    }
}

const char *fo_spec_json_type(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: case JSON_REAL: return "a number";
    case JSON_TRUE: case JSON_FALSE: return "a boolean";
    case JSON_NULL:
    default: return "null";
    }
}

static void member_ptr(char *p, size_t cap, const char *ptr, const char *key)
{
    snprintf(p, cap, "%s", ptr);
    fo_json_ptr_push(p, cap, key);
}

/* The longest string key may hold: long text for "text" (paragraphs, list
 * items, code), Excel's formula limit, else a name, title or path. */
static size_t string_cap(const char *key)
{
    if (!strcmp(key, "text")) return FO_SPEC_TEXT_MAX;
    if (!strcmp(key, "formula")) return FO_SPEC_FORMULA_MAX;
    return FO_SPEC_NAME_MAX;
}

const char *fo_spec_capped(fo_spec_ctx *c, json_t *v, const char *ptr, size_t cap)
{
    size_t n = json_string_length(v);
    if (n <= cap) return json_string_value(v);
    fo_spec_error(c, ptr, false, cap == FO_SPEC_TEXT_MAX ? "split it into several blocks" :
                  "shorten it; long text belongs in a paragraph",
                  "a string of %zu bytes is too long here (at most %zu)", n, cap);
    return NULL;
}

const char *fo_spec_text_value(fo_spec_ctx *c, json_t *v, const char *ptr)
{
    const char *s = fo_spec_capped(c, v, ptr, FO_SPEC_TEXT_MAX);
    return s ? s : "";
}

const char *fo_spec_string(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, bool required)
{
    json_t *v = json_object_get(obj, key);
    char p[FO_PTR_MAX];
    member_ptr(p, sizeof p, ptr, key);
    if (!v) {
        if (required) fo_spec_error(c, ptr, false, NULL, "missing required key \"%s\"", key);
        return NULL;
    }
    if (!json_is_string(v)) {
        fo_spec_error(c, p, false, NULL, "\"%s\" must be a string, not %s", key, fo_spec_json_type(v));
        return NULL;
    }
    return fo_spec_capped(c, v, p, string_cap(key));
}

bool fo_spec_bool(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, bool dflt)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return dflt;
    if (!json_is_boolean(v)) {
        char p[FO_PTR_MAX];
        member_ptr(p, sizeof p, ptr, key);
        fo_spec_error(c, p, false, "use true or false", "\"%s\" must be a boolean, not %s",
                      key, fo_spec_json_type(v));
        return dflt;
    }
    return json_is_true(v);
}

long fo_spec_int(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, long lo, long hi, long dflt)
{
    json_t *v = json_object_get(obj, key);
    if (!v) return dflt;
    char p[FO_PTR_MAX];
    member_ptr(p, sizeof p, ptr, key);
    double x = json_number_value(v);
    /* range first: casting a double outside long's range is undefined */
    if (!json_is_number(v) || !(x >= (double)lo && x <= (double)hi) || x != floor(x)) {
        char hint[64];
        snprintf(hint, sizeof hint, "a whole number from %ld to %ld", lo, hi);
        fo_spec_error(c, p, false, hint, "invalid \"%s\"", key);
        return dflt;
    }
    return (long)x;
}

char *fo_spec_strdup(fo_spec_ctx *c, const char *s) { return fo_arena_strdup(c->doc->arena, s); }

char *fo_spec_resolve(fo_spec_ctx *c, const char *path, const char *ptr, uint64_t max_bytes)
{
    char real[PATH_MAX], msg[512];
    fo_path_status st = fo_path_inside(c->base_real, path, max_bytes, real, sizeof real);
    if (st == FO_PATH_OK) return fo_spec_strdup(c, real);
    const char *hint;
    fo_path_message(st, path, max_bytes, msg, sizeof msg, &hint);
    fo_spec_error(c, ptr, false, hint, "%s", msg);
    return NULL;
}

/* When the format compiler stopped at a letter (err: "... at position N"),
 * the code with that word in double quotes, as Excel wants literal text:
 * "+0.0 pp" -> "+0.0 \"pp\"". Writes the hint into hint; false otherwise. */
static bool quote_hint(const char *code, const char *err, char *hint, size_t cap)
{
    const char *at = strstr(err, "at position ");
    if (!at || !strstr(err, "unexpected character")) return false;
    size_t pos = (size_t)strtoul(at + 12, NULL, 10), len = strlen(code);  /* from 1 */
    if (pos == 0 || --pos >= len || !isalpha((unsigned char)code[pos])) return false;
    while (pos > 0 && isalpha((unsigned char)code[pos - 1])) pos--;
    size_t end = pos;
    while (end < len && isalpha((unsigned char)code[end])) end++;
    snprintf(hint, cap, "literal text goes in double quotes: \"%.*s\\\"%.*s\\\"%s\"",
             (int)pos, code, (int)(end - pos), code + pos, code + end);
    return true;
}

bool fo_spec_check_format(fo_spec_ctx *c, const char *code, const char *ptr)
{
    char err[256] = "";
    fo_numfmt *f = fo_numfmt_compile(code, err, sizeof err);
    if (!f) {
        char hint[512];
        if (!quote_hint(code, err, hint, sizeof hint))
            snprintf(hint, sizeof hint, "use an Excel format code such as \"#,##0.00\", \"0.0%%\", \"$#,##0\" or \"yyyy-mm-dd\"");
        fo_spec_error(c, ptr, false, hint, "unknown number format \"%s\"%s%s", code, err[0] ? ": " : "", err);
        return false;
    }
    fo_numfmt_free(f);
    return true;
}

void fo_spec_ptr(char *dst, const char *base, const char *key)
{
    size_t n = strlen(base);
    if (n >= FO_PTR_MAX) n = FO_PTR_MAX - 1;
    memmove(dst, base, n);
    dst[n] = '\0';
    fo_json_ptr_push(dst, FO_PTR_MAX, key);
}
