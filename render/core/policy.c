/* policy.c — the link-target and formula rules of policy.h.
 *
 * Formulas are scanned, not parsed: outside string literals, a '|' is a DDE
 * link (=cmd|' /C calc'!A0), a name before '(' is a function call checked
 * against the functions that reach out of the workbook, a ']' followed by a
 * sheet name and '!' is an external workbook reference ([1]Sheet1!A1,
 * [book.xlsx]S!A1), and a quoted sheet name holding a path character
 * ('C:\dir\[b.xlsx]S'!A1) is one too. Structured references (Table[Col],
 * [@Col]) never have a '!' after their ']' and pass. */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "render/core/policy.h"

#define MAX_EXTRA 16
#define SCHEME_MAX 32

static char extra[MAX_EXTRA][SCHEME_MAX];
static size_t nextra;
static bool external_formulas;

/* ---- links -------------------------------------------------------------------- */

static bool scheme_char(char c, bool first)
{
    return isalpha((unsigned char)c) || (!first && c && (isdigit((unsigned char)c) || strchr("+.-", c)));
}

bool fo_link_schemes_allow(const char *list)
{
    char names[MAX_EXTRA][SCHEME_MAX];
    size_t n = 0;
    for (const char *s = list; *s;) {
        size_t len = 0;
        while (s[len] && s[len] != ',') {
            if (!scheme_char(s[len], len == 0) || len + 1 >= SCHEME_MAX) return false;
            len++;
        }
        if (len == 0 || n + nextra >= MAX_EXTRA) return false;
        memcpy(names[n], s, len);
        names[n++][len] = '\0';
        s += len + (s[len] == ',');
    }
    if (n == 0) return false;
    for (size_t i = 0; i < n; i++) memcpy(extra[nextra++], names[i], SCHEME_MAX);
    return true;
}

void fo_link_schemes_reset(void) { nextra = 0; }

/* Length of url's scheme (before ':'), 0 if it has none. */
static size_t scheme_len(const char *url)
{
    size_t n = 0;
    while (scheme_char(url[n], n == 0)) n++;
    return url[n] == ':' && n > 0 ? n : 0;
}

static bool scheme_allowed(const char *url, size_t n)
{
    if (n == 4 && !strncasecmp(url, "http://", 7)) return true;
    if (n == 5 && !strncasecmp(url, "https://", 8)) return true;
    if (n == 6 && !strncasecmp(url, "mailto", 6)) return true;
    for (size_t i = 0; i < nextra; i++)
        if (strlen(extra[i]) == n && !strncasecmp(url, extra[i], n)) return true;
    return false;
}

const char *fo_link_refusal(const char *url)
{
    if (!url || !*url) return "an empty target";
    size_t len = strlen(url);
    if (len > FO_LINK_MAX) return "longer than 2,048 bytes";
    for (size_t i = 0; i < len; i++)
        if ((unsigned char)url[i] <= ' ' || url[i] == 0x7F) return "spaces or control characters";
    size_t n = scheme_len(url);
    if (n == 0) return "no scheme such as https:";
    if (!scheme_allowed(url, n)) return "a scheme that is not allowed";
    return NULL;
}

bool fo_link_allowed(const char *url) { return fo_link_refusal(url) == NULL; }

/* ---- formulas ------------------------------------------------------------------ */

void fo_formulas_external_allow(bool on) { external_formulas = on; }

/* Functions that fetch, execute or load something outside the workbook. */
static const char *const refused_functions[] = {
    "DDE", "DDEAUTO", "WEBSERVICE", "FILTERXML", "CALL", "REGISTER", "REGISTER.ID", "EXEC",
    "EXECUTE", "RTD", "IMAGE", "IMPORTDATA", "IMPORTXML", "IMPORTHTML", "IMPORTFEED",
    "IMPORTRANGE", "SQL.REQUEST", NULL
};

static bool name_char(char c) { return isalnum((unsigned char)c) || c == '_' || c == '.'; }

/* End of the string literal starting at f[i] == '"' ("" is an escaped quote). */
static size_t skip_literal(const char *f, size_t i, char q)
{
    for (i++; f[i]; i++) {
        if (f[i] != q) continue;
        if (f[i + 1] != q) return i + 1;
        i++;
    }
    return i;
}

/* The target of HYPERLINK( at f[i] (just past '('): refused unless it is a
 * string literal the link policy allows. */
static const char *hyperlink_refusal(const char *f, size_t i)
{
    while (f[i] == ' ') i++;
    if (f[i] != '"') return "links to a computed target";
    size_t end = skip_literal(f, i, '"');
    char url[FO_LINK_MAX + 1];
    size_t n = 0;
    for (size_t k = i + 1; k + 1 < end && n < sizeof url - 1; k++) {
        url[n++] = f[k];
        if (f[k] == '"') k++;
    }
    url[n] = '\0';
    return end - i > FO_LINK_MAX || !fo_link_allowed(url) ? "links to a refused target" : NULL;
}

/* f[start..end) is a name called with '(' at f[paren]. */
static const char *call_refusal(const char *f, size_t start, size_t end, size_t paren)
{
    const char *name = f + start;
    size_t n = end - start;
    if (n > 6 && (!strncasecmp(name, "_xlfn.", 6) || !strncasecmp(name, "_xlws.", 6))) { name += 6; n -= 6; }
    if (n > 5 && !strncasecmp(name, "_xll.", 5)) return "calls an add-in function";
    for (size_t k = 0; refused_functions[k]; k++)
        if (strlen(refused_functions[k]) == n && !strncasecmp(name, refused_functions[k], n))
            return "calls a function that reaches outside the workbook";
    if (n == 9 && !strncasecmp(name, "HYPERLINK", 9)) return hyperlink_refusal(f, paren + 1);
    return NULL;
}

/* After ']': a sheet name then '!' makes [..] an external workbook. */
static bool external_bracket(const char *f, size_t i)
{
    while (f[i] && (name_char(f[i]) || f[i] == ' ')) i++;
    return f[i] == '!';
}

static bool path_in_sheet_name(const char *f, size_t start, size_t end)
{
    for (size_t k = start; k < end; k++)
        if (strchr("[]\\/:", f[k])) return true;
    return false;
}

const char *fo_formula_refusal(const char *f)
{
    if (external_formulas || !f) return NULL;
    for (size_t i = 0; f[i];) {
        char c = f[i];
        if (c == '"') { i = skip_literal(f, i, '"'); continue; }
        if (c == '\'') {
            size_t end = skip_literal(f, i, '\'');
            if (path_in_sheet_name(f, i, end)) return "refers to another workbook";
            i = end;
            continue;
        }
        if (c == '|') return "is a DDE link";
        if (c == ']' && external_bracket(f, i + 1)) return "refers to another workbook";
        if (name_char(c) && (i == 0 || !name_char(f[i - 1]))) {
            size_t end = i;
            while (name_char(f[end])) end++;
            size_t k = end;
            while (f[k] == ' ') k++;
            const char *why = f[k] == '(' ? call_refusal(f, i, end, k) : NULL;
            if (why) return why;
            i = end;
            continue;
        }
        i++;
    }
    return NULL;
}
