/* spec_util.c — located errors, key checking with suggestions, typed getters
 * and safe path resolution for the spec reader. */
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/path.h"
#include "formats/spec_internal.h"
#include "render/core/markup.h"
#include "render/core/numfmt.h"
#include "render/core/policy.h"

/* One located diagnostic; *count counts it, and past FO_SPEC_MAX_ERRORS it
 * is only counted (fo_spec_more_errors sums those up). */
__attribute__((format(printf, 7, 0)))
static void vreport(fo_spec_ctx *c, int *count, const char *pointer, bool key, const char *hint,
                    const char *prefix, const char *fmt, va_list ap)
{
    if ((*count)++ >= FO_SPEC_MAX_ERRORS) return;
    char msg[1024];
    vsnprintf(msg, sizeof msg, fmt, ap);
    int line = 0, col = 0;
    if (c->json) fo_json_locate(c->json, pointer, key, &line, &col);
    fo_diags_add(c->d, c->file, line, col, pointer, hint, "%s%s", prefix, msg);
}

void fo_spec_error(fo_spec_ctx *c, const char *pointer, bool key, const char *hint,
                   const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, &c->errors, pointer, key, hint, "", fmt, ap);
    va_end(ap);
}

void fo_spec_warn(fo_spec_ctx *c, const char *pointer, const char *hint, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vreport(c, &c->warnings, pointer, false, hint, "warning: ", fmt, ap);
    va_end(ap);
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

const char *fo_spec_suggest(const char *word, const char *const *candidates)
{
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
        char hint[512];
        if (s) snprintf(hint, sizeof hint, "did you mean '%s'?", s);
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
        if (required)
            fo_spec_error(c, ptr, false, NULL, "missing required key \"%s\"", key);
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

bool fo_spec_check_format(fo_spec_ctx *c, const char *code, const char *ptr)
{
    char err[256] = "";
    fo_numfmt *f = fo_numfmt_compile(code, err, sizeof err);
    if (!f) {
        fo_spec_error(c, ptr, false,
                      "use an Excel format code such as \"#,##0.00\", \"0.0%\", \"$#,##0\" or \"yyyy-mm-dd\"",
                      "unknown number format \"%s\"%s%s", code, err[0] ? ": " : "", err);
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
