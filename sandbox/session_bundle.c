/* session_bundle.c — rich output of a cell: the MIME bundles of PRODUCT.md §8
 * (`display(obj)`, a last expression's `_repr_*_` forms, figures), assembled
 * from the kernel's 'b' / 'm' / 'B' frames into JSON the supervisor writes.
 *
 * The kernel runs the user's code, so nothing here trusts it: a mime type is
 * a short token of [a-z0-9.+-] around one '/'; images are base64 checked
 * character by character; a `+json` or `application/json` value is embedded
 * only after a strict, bounded check (fo_session_json_valid); every other
 * value is text, re-escaped as a JSON string (bad UTF-8 becomes U+FFFD). A
 * bundle holds at most FO_SESSION_BUNDLE_CAP bytes of JSON: what does not fit
 * is dropped, and the bundle's metadata says which forms and why. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_super.h"
#include "base/utf8.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------ JSON check */

typedef struct {
    const unsigned char *p, *end;
    unsigned depth;
} json_in;

static void skip_ws(json_in *in)
{
    while (in->p < in->end && (*in->p == ' ' || *in->p == '\t' || *in->p == '\n' || *in->p == '\r')) in->p++;
}

static int eat(json_in *in, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(in->end - in->p) < n || memcmp(in->p, word, n)) return 0;
    in->p += n;
    return 1;
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

static int string_ok(json_in *in)
{
    in->p++;                                   /* the opening quote */
    while (in->p < in->end) {
        unsigned char c = *in->p++;

        if (c == '"') return 1;
        if (c < 0x20) return 0;
        if (c == '\\') {
            if (in->p >= in->end) return 0;
            c = *in->p++;
            if (c == 'u') {
                if (in->end - in->p < 4 || !is_hex(in->p[0]) || !is_hex(in->p[1]) ||
                    !is_hex(in->p[2]) || !is_hex(in->p[3]))
                    return 0;
                in->p += 4;
            } else if (!strchr("\"\\/bfnrt", c) || !c) {
                return 0;
            }
        } else if (c >= 0x80) {
            uint32_t cp;
            size_t n = fo_utf8_decode((const char *)in->p - 1, (size_t)(in->end - in->p + 1), &cp);

            if (!n) return 0;
            in->p += n - 1;
        }
    }
    return 0;
}

static int digits(json_in *in)
{
    const unsigned char *start = in->p;

    while (in->p < in->end && *in->p >= '0' && *in->p <= '9') in->p++;
    return in->p > start;
}

static int number_shape(json_in *in, int *real);

/* A number, which must also fit where readers put it: a 64-bit integer, or
   a finite double (jansson, for one, refuses the rest). */
static int number_ok(json_in *in)
{
    const unsigned char *start = in->p;
    char text[400];
    int real = 0;

    if (!number_shape(in, &real) || (size_t)(in->p - start) >= sizeof text) return 0;
    memcpy(text, start, (size_t)(in->p - start));
    text[in->p - start] = 0;
    errno = 0;
    if (real) {
        double d = strtod(text, NULL);
        return errno != ERANGE || d == 0.0 ? isfinite(d) : 0;
    }
    (void)strtoll(text, NULL, 10);
    return errno != ERANGE;
}

static int number_shape(json_in *in, int *real)
{
    if (in->p < in->end && *in->p == '-') in->p++;
    if (in->p < in->end && *in->p == '0')
        in->p++;
    else if (!digits(in)) return 0;
    if (in->p < in->end && *in->p == '.' && (*real = 1, in->p++, !digits(in))) return 0;
    if (in->p < in->end && (*in->p == 'e' || *in->p == 'E')) {
        *real = 1;
        in->p++;
        if (in->p < in->end && (*in->p == '+' || *in->p == '-')) in->p++;
        if (!digits(in)) return 0;
    }
    return 1;
}

static int value_ok(json_in *in);

/* An array or object: members separated by ',', object keys strings. */
static int container_ok(json_in *in, char close, int object)
{
    int first = 1;

    if (++in->depth > 64) return 0;
    in->p++;
    for (;;) {
        skip_ws(in);
        if (in->p < in->end && *in->p == close && first) {
            in->p++;
            break;
        }
        if (object) {
            if (in->p >= in->end || *in->p != '"' || !string_ok(in)) return 0;
            skip_ws(in);
            if (in->p >= in->end || *in->p++ != ':') return 0;
        }
        if (!value_ok(in)) return 0;
        skip_ws(in);
        if (in->p >= in->end) return 0;
        if (*in->p == close) {
            in->p++;
            break;
        }
        if (*in->p++ != ',') return 0;
        first = 0;
        skip_ws(in);
        if (in->p < in->end && *in->p == close)
            return 0;                          /* a trailing comma */
    }
    in->depth--;
    return 1;
}

static int value_ok(json_in *in)
{
    skip_ws(in);
    if (in->p >= in->end) return 0;
    switch (*in->p) {
    case '{': return container_ok(in, '}', 1);
    case '[': return container_ok(in, ']', 0);
    case '"': return string_ok(in);
    case 't': return eat(in, "true");
    case 'f': return eat(in, "false");
    case 'n': return eat(in, "null");
    default: return number_ok(in);
    }
}

int fo_session_json_valid(const char *p, size_t n)
{
    json_in in = { (const unsigned char *)p, (const unsigned char *)p + n, 0 };

    if (!value_ok(&in)) return 0;
    skip_ws(&in);
    return in.p == in.end;
}

/* --------------------------------------------------------------- bundles */

/* "type/subtype" of [a-z0-9.+-], within the buffer's size. */
static int mime_ok(const char *m, size_t n)
{
    const char *slash = memchr(m, '/', n);

    if (!n || n >= sizeof ((fo_bundle *)0)->mime || !slash || slash == m || slash == m + n - 1 ||
        memchr(slash + 1, '/', n - (size_t)(slash - m) - 1))
        return 0;
    for (size_t k = 0; k < n; k++)
        if (m[k] != '/' && !strchr("abcdefghijklmnopqrstuvwxyz0123456789.+-", m[k])) return 0;
    return 1;
}

static int is_base64_kind(const char *mime)
{
    return !strcmp(mime, "image/png") || !strcmp(mime, "image/jpeg") || !strcmp(mime, "image/gif");
}

static int is_json_kind(const char *mime)
{
    size_t n = strlen(mime);

    return !strcmp(mime, "application/json") || (n > 5 && !strcmp(mime + n - 5, "+json"));
}

static int base64_ok(const char *p, size_t n)
{
    for (size_t k = 0; k < n; k++)
        if (!strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=\n", p[k]) ||
            !p[k])
            return 0;
    return 1;
}

static void drop(fo_bundle *b, const char *mime, const char *why)
{
    fo_buf_puts(&b->dropped, b->dropped.len ? ", {\"mime\": " : "{\"mime\": ");
    fo_buf_json_str(&b->dropped, mime, strlen(mime));
    fo_buf_puts(&b->dropped, ", \"reason\": ");
    fo_buf_json_str(&b->dropped, why, strlen(why));
    fo_buf_puts(&b->dropped, "}");
}

/* The representation gathered in b->val, written into the bundle's data
   (or dropped, with the reason). */
static void flush_value(fo_bundle *b)
{
    const char *why = NULL;

    if (!b->mime[0]) return;
    if (b->over)
        why = "over the bundle's size cap";
    else if (is_base64_kind(b->mime) && !base64_ok(b->val.data, b->val.len)) why = "not base64";
    else if (is_json_kind(b->mime) && !fo_session_json_valid(b->val.data, b->val.len)) why = "not valid JSON";
    if (!why) {
        size_t before = b->json.len;

        fo_buf_puts(&b->json, b->entries ? ", " : "");
        fo_buf_json_str(&b->json, b->mime, strlen(b->mime));
        fo_buf_puts(&b->json, ": ");
        if (is_json_kind(b->mime))
            fo_buf_append(&b->json, b->val.data ? b->val.data : "", b->val.len);
        else fo_buf_json_str(&b->json, b->val.data ? b->val.data : "", b->val.len);
        if (b->bytes + (b->json.len - before) > b->room) {
            b->json.len = before;                 /* escaped, it no longer fits */
            why = "over the bundle's size cap";
        } else {
            b->bytes += b->json.len - before;
            b->entries++;
            if (!strcmp(b->mime, "text/plain"))
                fo_buf_append(&b->plain, b->val.data ? b->val.data : "", b->val.len);
        }
    }
    if (why) drop(b, b->mime, why);
    b->mime[0] = 0;
    b->val.len = 0;
    b->over = 0;
}

void fo_session_bundle_begin(fo_bundle *b, const char *p, size_t n, size_t room)
{
    const char *nul = memchr(p, 0, n);

    b->kind = n && (p[0] == 'd' || p[0] == 'x') ? p[0] : 'd';
    b->path[0] = 0;
    if (nul && n - (size_t)(nul - p) - 1 < sizeof b->path)
        snprintf(b->path, sizeof b->path, "%.*s", (int)(n - (size_t)(nul - p) - 1), nul + 1);
    b->json.len = b->dropped.len = b->val.len = b->plain.len = 0;
    b->entries = 0;
    b->bytes = 0;
    b->room = room < FO_SESSION_BUNDLE_CAP ? room : FO_SESSION_BUNDLE_CAP;
    b->mime[0] = 0;
    b->over = 0;
    b->open = 1;
    fo_buf_puts(&b->json, "{\"data\": {");
}

void fo_session_bundle_add(fo_bundle *b, const char *p, size_t n)
{
    const char *nul = memchr(p, 0, n);
    size_t ml = nul ? (size_t)(nul - p) : n, dl = nul ? n - ml - 1 : 0;

    if (!b->open || !nul || !mime_ok(p, ml)) return;
    if (strlen(b->mime) != ml || memcmp(b->mime, p, ml)) {
        flush_value(b);
        memcpy(b->mime, p, ml);
        b->mime[ml] = 0;
    }
    if (b->over || b->bytes + b->val.len + dl > b->room) {
        b->over = 1;                          /* the rest of it is not kept */
        return;
    }
    fo_buf_append(&b->val, nul + 1, dl);
}

int fo_session_bundle_end(fo_bundle *b)
{
    if (!b->open) return -1;
    flush_value(b);
    fo_buf_puts(&b->json, "}, \"metadata\": {");
    if (b->dropped.len) {
        fo_buf_puts(&b->json, "\"truncated\": {\"cap_bytes\": ");
        fo_buf_printf(&b->json, "%zu, \"dropped\": [", b->room);
        fo_buf_append(&b->json, b->dropped.data, b->dropped.len);
        fo_buf_puts(&b->json, "]}");
    }
    fo_buf_puts(&b->json, "}}");
    b->open = 0;
    return b->json.failed ? -1 : 0;
}

void fo_session_bundle_free(fo_bundle *b)
{
    fo_buf_free(&b->json);
    fo_buf_free(&b->val);
    fo_buf_free(&b->dropped);
    fo_buf_free(&b->plain);
}

void fo_session_displays(fo_buf *b, const fo_sandbox_collection *out, const fo_bundle *d,
                         size_t n)
{
    fo_buf_puts(b, "[");
    for (size_t k = 0; k < n; k++) {
        const fo_sandbox_file *f = NULL;
        char path[300];

        for (size_t i = 0; d[k].path[0] && out && i < out->n_files && !f; i++)
            if (!strcmp(out->files[i].name, d[k].path)) f = &out->files[i];
        fo_buf_puts(b, k ? ", " : "");
        if (!f) {
            fo_buf_append(b, d[k].json.data, d[k].json.len);
            continue;
        }
        snprintf(path, sizeof path, "/out/%s", f->name);
        fo_buf_puts(b, "{\"mime\": \"image/png\", \"path\": ");
        fo_buf_json_str(b, path, strlen(path));
        fo_buf_printf(b, ", \"bytes\": %llu, \"sha256\": \"%s\", ", (unsigned long long)f->bytes,
                      f->sha256);
        fo_buf_append(b, d[k].json.data + 1, d[k].json.len - 1);
    }
    fo_buf_puts(b, "]");
}
