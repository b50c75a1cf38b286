/* provenance.c — `folio render --provenance` (what made a document: read
 * into fo_render_opts.prov) and `folio inspect FILE...` (the provenance a
 * rendered file records, read back by fo_prov_read, render/ooxml/inspect.c).
 * docs/provenance.md describes both. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli/cli.h"
#include "base/usage.h"

char *fo_cli_read_file(const char *path, size_t max, size_t *len)
{
    FILE *f = fopen(path, "rb");
    char *buf = NULL;
    size_t cap = 0, n = 0;
    if (!f) return NULL;
    for (;;) {
        if (n == cap) {
            char *more = cap >= max ? NULL : fo_realloc(buf, (cap = cap ? 2 * cap : 65536) + 1);
            if (!more) { fo_free(buf); fclose(f); errno = cap >= max ? EFBIG : ENOMEM; return NULL; }
            buf = more;
        }
        size_t got = fread(buf + n, 1, cap - n, f);
        n += got;
        if (got == 0) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) { fo_free(buf); errno = EIO; return NULL; }
    buf[n] = 0;
    *len = n;
    return buf;
}

/* ---- --provenance ----------------------------------------------------------*/
/* The items, their text owned here (one render per process). */
static fo_prov_item prov_items[FO_PROV_MAX];
static char *prov_text[FO_PROV_MAX];
static size_t prov_n;

static int prov_add(const char *name, const char *value)
{
    if (prov_n >= FO_PROV_MAX - 2) return -1;     /* spec and version come first */
    size_t cap = strlen(name) + 1 + strlen(value) + 1;
    char *t = fo_malloc(cap);
    if (!t) return -1;
    memcpy(t, name, strlen(name) + 1);
    memcpy(t + strlen(name) + 1, value, strlen(value) + 1);
    prov_text[prov_n] = t;
    prov_items[prov_n++] = (fo_prov_item){t, t + strlen(name) + 1};
    return 0;
}

static int is_hex64(const char *s)
{
    size_t k;
    for (k = 0; s[k]; k++)
        if (!((s[k] >= '0' && s[k] <= '9') || (s[k] >= 'a' && s[k] <= 'f'))) return 0;
    return k == 64;
}

/* One input {"path": "...", "sha256": "<64 hex>"} as folio.input.N = "SHA256  PATH"
 * (the line sha256sum prints). Returns an error message or NULL. */
static const char *prov_input(json_t *in, size_t n)
{
    const char *path = json_string_value(json_object_get(in, "path"));
    const char *sha = json_string_value(json_object_get(in, "sha256"));
    char name[48], *v;
    if (!json_is_object(in) || !path || !sha || !*path)
        return "each of \"inputs\" is {\"path\": \"...\", \"sha256\": \"...\"}";
    if (!is_hex64(sha)) return "an input's \"sha256\" is 64 lowercase hex digits";
    if (strchr(path, '\n')) return "an input's \"path\" has a line break";
    snprintf(name, sizeof name, "folio.input.%zu", n);
    size_t plen = strlen(path);
    if (!(v = fo_malloc(plen + 67))) return "out of memory";
    memcpy(v, sha, 64);
    memcpy(v + 64, "  ", 2);
    memcpy(v + 66, path, plen + 1);
    int rc = prov_add(name, v);
    fo_free(v);
    return rc ? "too many inputs (at most 60 are recorded)" : NULL;
}

/* The object's members as items; an error message or NULL. */
static const char *prov_object(json_t *o)
{
    const char *key;
    json_t *v;
    char num[32];
    if (!json_is_object(o)) return "it is a JSON object";
    json_object_foreach(o, key, v) {
        if (!strcmp(key, "run") || !strcmp(key, "session") || !strcmp(key, "cell")) {
            char name[32];
            snprintf(name, sizeof name, "folio.%s", key);
            if (json_is_integer(v)) snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
            else if (json_is_real(v) && json_real_value(v) == (double)(long long)json_real_value(v))
                snprintf(num, sizeof num, "%lld", (long long)json_real_value(v));
            const char *s = json_is_string(v) ? json_string_value(v) : json_is_number(v) ? num : NULL;
            if (!s || !*s) return "\"run\", \"session\" and \"cell\" are strings or numbers";
            if (prov_add(name, s)) return "out of memory";
        } else if (!strcmp(key, "inputs")) {
            size_t k;
            json_t *in;
            if (!json_is_array(v)) return "\"inputs\" is an array";
            json_array_foreach(v, k, in) {
                const char *why = prov_input(in, k + 1);
                if (why) return why;
            }
        } else {
            static char why[128];
            snprintf(why, sizeof why, "unknown member \"%.40s\" (known: run, session, cell, inputs)", key);
            return why;
        }
    }
    return NULL;
}

int fo_cli_provenance(const char *arg, fo_render_opts *opts)
{
    json_error_t err;
    json_t *o = arg[0] == '{' ? json_loads(arg, JSON_REJECT_DUPLICATES, &err)
                              : json_load_file(arg, JSON_REJECT_DUPLICATES, &err);
    const char *why = o ? prov_object(o) : NULL;
    json_decref(o);
    if (!o) {
        fprintf(stderr, "folio: --provenance %s: %s (line %d)\n", arg[0] == '{' ? "JSON" : arg, err.text,
                err.line);
        return 2;
    }
    if (why) {
        fprintf(stderr, "folio: --provenance %s: %s\n", arg[0] == '{' ? "JSON" : arg, why);
        return 2;
    }
    opts->prov = prov_items;
    opts->nprov = prov_n;
    return 0;
}

/* ---- inspect ---------------------------------------------------------------*/
static void json_out(const char *path, const char *format, const fo_prov_found *f)
{
    json_t *o = json_object(), *p = f->n ? json_object() : json_null();
    json_object_set_new(o, "file", json_string(path));
    json_object_set_new(o, "format", format ? json_string(format) : json_null());
    for (size_t k = 0; k < f->n; k++) json_object_set_new(p, f->name[k], json_string(f->value[k]));
    json_object_set_new(o, "provenance", p);
    char *s = json_dumps(o, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
    if (s) puts(s);
    free(s);
    json_decref(o);
}

/* Inspects one file: 0 with provenance, 2 without (or unreadable). */
static int inspect_one(const char *path, bool json)
{
    size_t len = 0;
    fo_prov_found f = {0};
    const char *format = NULL;
    char *data = fo_cli_read_file(path, (size_t)1 << 31, &len);
    if (!data) {
        fprintf(stderr, "folio: inspect: %s: cannot read: %s\n", path, strerror(errno));
        return 2;
    }
    format = fo_prov_read(path, data, len, &f);
    fo_free(data);
    int rc = f.n ? 0 : 2;
    if (json) {
        json_out(path, format, &f);
    } else if (!format) {
        fprintf(stderr, "folio: inspect: %s: not a document folio writes (xlsx, docx, pptx, pdf, png)\n", path);
    } else if (!f.n) {
        fprintf(stderr, "folio: inspect: %s: no folio provenance: this %s records none (not rendered by "
                        "folio, or its metadata was rewritten by another program)\n", path, format);
    } else {
        printf("%s (%s):\n", path, format);
        for (size_t k = 0; k < f.n; k++) printf("  %-20s %s\n", f.name[k], f.value[k]);
    }
    fo_prov_found_free(&f);
    return rc;
}

int fo_cli_inspect(const fo_cli_request *req)
{
    int rc = 0;
    if (!req->npos || req->nouts)
        return fo_usage_error("inspect", "inspect takes one or more FILEs (.xlsx .docx .pptx .pdf .png)");
    for (size_t k = 0; k < req->npos; k++) {
        int one = inspect_one(req->pos[k], req->json);
        if (one > rc) rc = one;
    }
    return rc;
}
