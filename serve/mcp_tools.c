/* mcp_tools.c — the tools of folio's MCP server (mcp.h), each a thin layer
 * over the session client API (sandbox/session.h: exec, put, get, render,
 * close, as `folio session` and /v1/sessions use it) and libfolio
 * (fo_spec_parse for validate_spec). Results are MCP content: text, images
 * (figures, as base64 PNG), resource links and embedded resources
 * (folio://work/PATH, folio://out/PATH: the session's files; folio://render/NAME:
 * the files of the last render, kept in the MCP session's scratch folder).
 *
 * Every limit is the session's: the jail and its ceiling (--max-bytes) were
 * set when `folio mcp` or `folio serve` started; a call's timeout can only
 * shorten the session's. A failure is a result with isError and folio's
 * hint, never a protocol error. */
#define FO_SERVE_PRIVATE
#define FO_MCP_PRIVATE
#include "base/buf.h"
#include "serve/serve.h"
#include "serve/mcp.h"
#include "folio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TEXT_INLINE (1u << 20)   /* a text file up to this size comes back as text */
#define MAX_LIST 500                 /* files list_files and resources/list show */

/* ------------------------------------------------------------ base64 */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* malloc'd, NUL-terminated. */
static char *b64_encode(const unsigned char *p, size_t n)
{
    char *out = fo_malloc((n + 2) / 3 * 4 + 1), *o = out;

    if (!out) return NULL;
    for (size_t k = 0; k < n; k += 3) {
        unsigned v = (unsigned)p[k] << 16 | (k + 1 < n ? (unsigned)p[k + 1] << 8 : 0) |
                     (k + 2 < n ? p[k + 2] : 0);
        *o++ = b64[v >> 18 & 63];
        *o++ = b64[v >> 12 & 63];
        *o++ = k + 1 < n ? b64[v >> 6 & 63] : '=';
        *o++ = k + 2 < n ? b64[v & 63] : '=';
    }
    *o = '\0';
    return out;
}

static int b64_value(int ch)
{
    const char *at = ch ? strchr(b64, ch) : NULL;
    return at ? (int)(at - b64) : -1;
}

/* Decodes s (whitespace ignored, padding optional) to out (at least
   len / 4 * 3 + 3 bytes); the byte count, or -1 for a character outside
   the alphabet. */
static long b64_decode(const char *s, size_t len, unsigned char *out)
{
    unsigned v = 0;
    int bits = 0;
    long n = 0;

    for (size_t k = 0; k < len; k++) {
        int d;
        if (s[k] == '=' || s[k] == '\n' || s[k] == '\r' || s[k] == ' ') continue;
        if ((d = b64_value((unsigned char)s[k])) < 0) return -1;
        v = v << 6 | (unsigned)d;
        if ((bits += 6) >= 8) {
            bits -= 8;
            out[n++] = (unsigned char)(v >> bits & 0xff);
        }
    }
    return n;
}

/* ------------------------------------------------------------ helpers */

static json_t *text_item(const char *text)
{
    return json_pack("{s:s, s:s}", "type", "text", "text", text);
}

static json_t *result_of(json_t *content, int is_error)
{
    return json_pack("{s:o, s:b}", "content", content, "isError", is_error);
}

static const char *mime_of(const char *name)
{
    static const struct { const char *ext, *mime; } map[] = {
        { ".png", "image/png" }, { ".jpg", "image/jpeg" }, { ".jpeg", "image/jpeg" },
        { ".gif", "image/gif" }, { ".svg", "image/svg+xml" }, { ".csv", "text/csv" },
        { ".tsv", "text/tab-separated-values" }, { ".json", "application/json" },
        { ".txt", "text/plain" }, { ".md", "text/markdown" }, { ".html", "text/html" },
        { ".py", "text/x-python" }, { ".pdf", "application/pdf" },
        { ".xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet" },
        { ".docx", "application/vnd.openxmlformats-officedocument.wordprocessingml.document" },
        { ".pptx", "application/vnd.openxmlformats-officedocument.presentationml.presentation" },
    };
    const char *dot = strrchr(name, '.');

    for (size_t k = 0; dot && k < sizeof map / sizeof *map; k++)
        if (!strcasecmp(dot, map[k].ext)) return map[k].mime;
    return "application/octet-stream";
}

/* Reads all of fd (up to max bytes) into a malloc'd buffer; NULL when
   it can't or it is larger. */
static unsigned char *read_fd(int fd, size_t max, size_t *n)
{
    struct stat st;
    unsigned char *p;
    size_t got = 0;

    if (fstat(fd, &st) < 0 || (uint64_t)st.st_size > max || !(p = fo_malloc((size_t)st.st_size + 1)))
        return NULL;
    got = fo_read_upto(fd, p, (size_t)st.st_size, 0);
    if (got < (size_t)st.st_size) {
        fo_free(p);
        return NULL;
    }
    p[got] = 0;
    *n = got;
    return p;
}

/* Text a model can read: valid UTF-8 (jansson checks it), no NUL. */
static int is_text(const unsigned char *p, size_t n)
{
    json_t *s;

    if (n > MAX_TEXT_INLINE || memchr(p, 0, n)) return 0;
    s = json_stringn((const char *)p, n);
    json_decref(s);
    return s != NULL;
}

/* "work/a.csv" or "/work/a.csv" or "a.csv" -> "/work/a.csv"; "out/x" ->
   "/out/x". The session checks the rest (relative, no .., no links). */
static void session_path(const char *in, char *out, size_t len)
{
    while (*in == '/') in++;
    if (!strncmp(in, "work/", 5) || !strncmp(in, "out/", 4))
        snprintf(out, len, "/%s", in);
    else snprintf(out, len, "/work/%s", in);
}

/* "/out/x" -> "folio://out/x". */
static void uri_of(const char *path, char *uri, size_t len)
{
    snprintf(uri, len, "folio://%s", path[0] == '/' ? path + 1 : path);
}

/* An embedded resource (text or blob) of the bytes p. */
static json_t *embedded(const char *uri, const char *mime, const unsigned char *p, size_t n)
{
    json_t *res;

    if (is_text(p, n) && strncmp(mime, "image/", 6)) {
        res = json_pack("{s:s, s:s, s:s%}", "uri", uri, "mimeType", mime, "text", (const char *)p,
                        n);
    } else {
        char *enc = b64_encode(p, n);
        res = enc ? json_pack("{s:s, s:s, s:s}", "uri", uri, "mimeType", mime, "blob", enc) : NULL;
        fo_free(enc);
    }
    return res;
}

/* ------------------------------------------------------- helper cells */

/* Runs src in the session in a namespace of its own (the user's
   variables and `_` untouched) and returns its stdout, malloc'd, or NULL
   with *fail set to a tool error. The cell counts among the session's. */
static char *helper_cell(fo_mcp *m, const char *src, const char *with, json_t **fail)
{
    fo_session_error err;
    json_t *lit = json_string(src), *res;
    char *code, *lit_text = lit ? json_dumps(lit, JSON_ENCODE_ANY | JSON_ENSURE_ASCII) : NULL;
    char id[33], *result = NULL, *out = NULL;
    size_t len;

    json_decref(lit);
    memset(&err, 0, sizeof err);
    if (!lit_text || fo_mcp_session(m, id, &err) < 0) {
        free(lit_text);
        *fail = fo_mcp_session_error(&err);
        return NULL;
    }
    len = strlen(lit_text) + 128;      /* lit_text is json_dumps'd: plain free below */
    code = fo_malloc(len);
    if (code) snprintf(code, len, "exec(%s, {\"__name__\": \"__folio_mcp__\"%s})", lit_text, with);
    free(lit_text);
    if (!code || fo_session_exec(id, code, strlen(code), 0, NULL, NULL, &result, &err) < 0) {
        fo_free(code);
        *fail = fo_mcp_session_error(&err);
        return NULL;
    }
    fo_free(code);
    res = json_loads(result, 0, NULL);
    fo_free(result);
    const char *status = json_string_value(json_object_get(res, "status")); /* NULL: none */
    if (json_is_string(json_object_get(res, "stdout")) && status && !strcmp(status, "ok"))
        out = fo_strdup(json_string_value(json_object_get(res, "stdout")));
    else
        *fail = fo_mcp_tool_error("internal", "folio's helper cell failed",
                                  json_string_value(json_object_get(res, "stderr")));
    json_decref(res);
    return out;
}

static const char list_src[] =
    "import json, os\n"
    "out = []\n"
    "for root in ('/work', '/out'):\n"
    "    for d, dirs, files in os.walk(root):\n"
    "        dirs[:] = sorted(x for x in dirs if not x.startswith('.'))\n"
    "        for f in sorted(files):\n"
    "            p = os.path.join(d, f)\n"
    "            if os.path.islink(p) or not os.path.isfile(p) or len(out) >= 500:\n"
    "                continue\n"
    "            out.append([p, os.path.getsize(p)])\n"
    "print(json.dumps(out))\n";

/* The session's files: a JSON array of [path, bytes], or NULL + *fail. */
static json_t *session_files(fo_mcp *m, json_t **fail)
{
    char *text = helper_cell(m, list_src, "", fail);
    json_t *j = text ? json_loads(text, 0, NULL) : NULL;

    fo_free(text);
    if (text && !json_is_array(j)) {
        json_decref(j);
        *fail = fo_mcp_tool_error("internal", "the file list was unreadable", "");
        return NULL;
    }
    return j;
}

static const char table_src[] =
    "import json\n"
    "def md(df, n=50):\n"
    "    df = df.head(n)\n"
    "    cols = [str(c) for c in df.columns]\n"
    "    esc = lambda s: str(s).replace('|', '\\\\|').replace('\\n', ' ')\n"
    "    rows = ['| ' + ' | '.join([esc(df.index.name or '')] + [esc(c) for c in cols]) + ' |',\n"
    "            '|' + '---|' * (len(cols) + 1)]\n"
    "    for i, r in zip(df.index, df.itertuples(index=False)):\n"
    "        rows.append('| ' + ' | '.join([esc(i)] + [esc(x) for x in r]) + ' |')\n"
    "    return '\\n'.join(rows)\n"
    "t = type(_v).__name__\n"
    "if t == 'Series':\n"
    "    _v = _v.to_frame()\n"
    "    t = 'DataFrame'\n"
    "if t == 'DataFrame' and type(_v).__module__.startswith('pandas'):\n"
    "    print(json.dumps({'rows': len(_v), 'markdown': md(_v),\n"
    "                      'html': _v.head(50).to_html(border=0)}))\n";

/* When a cell's value is a pandas table: its markdown (first 50 rows)
   and its HTML, as text items; else nothing is added. */
static void add_table(fo_mcp *m, json_t *content)
{
    json_t *fail = NULL, *j;
    char *text = helper_cell(m, table_src, ", \"_v\": _", &fail);
    char head[96];

    json_decref(fail);
    j = text && *text ? json_loads(text, 0, NULL) : NULL;
    fo_free(text);
    if (json_is_string(json_object_get(j, "markdown"))) {
        snprintf(head, sizeof head, "table (%lld rows%s), markdown:\n",
                 (long long)json_integer_value(json_object_get(j, "rows")),
                 json_integer_value(json_object_get(j, "rows")) > 50 ? ", first 50 shown" : "");
        json_t *t = json_pack("{s:s, s:s++}", "type", "text", "text", head,
                              json_string_value(json_object_get(j, "markdown")), "");
        json_array_append_new(content, t);
        json_array_append_new(content, json_pack("{s:s, s:O, s:{s:[s]}}", "type", "text", "text",
                                                 json_object_get(j, "html"), "annotations",
                                                 "audience", "user"));
    }
    json_decref(j);
}

/* --------------------------------------------------------- run_python */

/* Output as it streams: a progress notification with its last line. */
static void on_stream(void *ud, int stream, const char *s, size_t n)
{
    char line[200];
    size_t end = n, start;

    while (end && (s[end - 1] == '\n' || s[end - 1] == '\r')) end--;
    for (start = end; start && s[start - 1] != '\n'; start--)
        ;
    if (end == start) return;
    snprintf(line, sizeof line, "%s: %.*s", stream == 1 ? "stdout" : "stderr",
             (int)(end - start > 180 ? 180 : end - start), s + start);
    fo_mcp_progress(ud, line);
}

/* A figure of the cell, as an image item; NULL when it can't be read. */
static json_t *figure(const char *id, const char *path)
{
    fo_session_error err;
    unsigned long long bytes;
    unsigned char *p;
    size_t n;
    int fd;
    char *enc;
    json_t *item = NULL;

    memset(&err, 0, sizeof err);
    if (fo_session_get(id, path, &fd, &bytes, &err) < 0) return NULL;
    p = read_fd(fd, (size_t)bytes, &n);
    close(fd);
    enc = p ? b64_encode(p, n) : NULL;
    if (enc) item = json_pack("{s:s, s:s, s:s}", "type", "image", "data", enc, "mimeType", "image/png");
    fo_free(enc);
    fo_free(p);
    return item;
}

/* The exec result of PRODUCT.md §6 as MCP content. */
static json_t *cell_content(fo_mcp *m, const char *id, json_t *r)
{
    json_t *content = json_array(), *v, *e;
    const char *status = json_string_value(json_object_get(r, "status"));
    const char *out = json_string_value(json_object_get(r, "stdout"));
    const char *err = json_string_value(json_object_get(r, "stderr"));
    const char *repr = json_string_value(json_object_get(r, "result"));
    char head[160];
    size_t k;

    if (out && *out) json_array_append_new(content, text_item(out));
    if (err && *err)
        json_array_append_new(content, json_pack("{s:s, s:s++}", "type", "text", "text",
                                                 "stderr:\n", err, ""));
    if (repr) {
        json_array_append_new(content, text_item(repr));
        if (strchr(repr, '\n')) add_table(m, content);
    }
    if ((e = json_object_get(r, "error")) && json_is_object(e)) {
        /* the traceback ends with "Name: value" already */
        const char *tb = json_string_value(json_object_get(e, "traceback"));
        const char *name = json_string_value(json_object_get(e, "name"));
        const char *value = json_string_value(json_object_get(e, "value"));
        if (tb && *tb)
            json_array_append_new(content, text_item(tb));
        else
            json_array_append_new(content, json_pack("{s:s, s:s++}", "type", "text", "text",
                                                     name ? name : "Error", ": ", value ? value : ""));
    }
    if ((e = json_object_get(r, "failure")) && json_is_object(e)) {
        json_t *f = fo_mcp_tool_error(json_string_value(json_object_get(e, "code")),
                                      json_string_value(json_object_get(e, "message")),
                                      json_string_value(json_object_get(e, "hint")));
        json_array_extend(content, json_object_get(f, "content"));
        json_decref(f);
    }
    json_array_foreach(json_object_get(r, "displays"), k, v) {
        const char *path = json_string_value(json_object_get(v, "path"));
        json_t *img = path ? figure(id, path) : NULL;
        if (img) json_array_append_new(content, img);
    }
    json_array_foreach(json_object_get(r, "files"), k, v) {
        const char *path = json_string_value(json_object_get(v, "path"));
        char uri[600], name[300];
        if (!path) continue;
        snprintf(name, sizeof name, "%s", path[0] == '/' ? path : "/out/");
        if (path[0] != '/') snprintf(name, sizeof name, "/out/%s", path);
        uri_of(name, uri, sizeof uri);
        json_array_append_new(content, json_pack("{s:s, s:s, s:s, s:s, s:I}", "type",
                              "resource_link", "uri", uri, "name", name, "mimeType", mime_of(name),
                              "size", json_integer_value(json_object_get(v, "bytes"))));
    }
    snprintf(head, sizeof head, "[cell %lld: %s in %.0f ms]",
             (long long)json_integer_value(json_object_get(r, "cell")), status ? status : "?",
             json_number_value(json_object_get(r, "ms")));
    json_array_append_new(content, text_item(head));
    return content;
}

static json_t *t_run_python(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *code = json_object_get(args, "code"), *tm = json_object_get(args, "timeout"), *r, *res;
    fo_session_error err;
    char id[33], *result = NULL;
    double timeout = 0, most;
    const char *status;

    memset(&err, 0, sizeof err);
    if (!json_is_string(code))
        return fo_mcp_tool_error("bad_request", "run_python needs \"code\", a string of Python",
                                 "pass {\"code\": \"print(1+1)\"}");
    if (tm && (!json_is_number(tm) || json_number_value(tm) <= 0))
        return fo_mcp_tool_error("bad_request", "\"timeout\" must be a positive number of seconds",
                                 "leave it out for the session's default");
    if (fo_mcp_session(m, id, &err) < 0) return fo_mcp_session_error(&err);
    most = fo_mcp_limit(m, "timeout_s", 60);
    if (tm)   /* a call may shorten the session's timeout, never lengthen it */
        timeout = json_number_value(tm) < most ? json_number_value(tm) : most;
    if (fo_session_exec(id, json_string_value(code), json_string_length(code), timeout,
                        on_stream, c, &result, &err) < 0)
        return fo_mcp_session_error(&err);
    r = json_loads(result, 0, NULL);
    fo_free(result);
    if (!r) return fo_mcp_tool_error("internal", "the cell's result was unreadable", "");
    status = json_string_value(json_object_get(r, "status"));
    res = result_of(cell_content(m, id, r), !status || strcmp(status, "ok"));
    json_object_set_new(res, "structuredContent", json_pack("{s:O, s:O, s:O, s:O, s:O}",
                        "cell", json_object_get(r, "cell"), "status", json_object_get(r, "status"),
                        "ms", json_object_get(r, "ms"), "files", json_object_get(r, "files"),
                        "displays", json_object_get(r, "displays")));
    json_decref(r);
    return res;
}

/* ----------------------------------------------------------- put_file */

static json_t *t_put_file(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *path = json_object_get(args, "path"), *b = json_object_get(args, "content_base64");
    json_t *text = json_object_get(args, "text");
    fo_session_error err;
    char id[33], dest[1100], msg[300];
    unsigned char *data;
    double most;
    long n;
    int fd;

    (void)c;
    memset(&err, 0, sizeof err);
    if (!json_is_string(path) || (!json_is_string(b) == !json_is_string(text)))
        return fo_mcp_tool_error("bad_request", "put_file needs \"path\" and exactly one of "
                                 "\"text\" or \"content_base64\"", "e.g. {\"path\": \"data/sales.csv\", "
                                 "\"text\": \"region,revenue\\nNorth,10\\n\"}");
    if (fo_mcp_session(m, id, &err) < 0) return fo_mcp_session_error(&err);
    most = fo_mcp_limit(m, "max_bytes", 30 << 20);
    n = (long)(json_is_string(b) ? json_string_length(b) / 4 * 3 : json_string_length(text));
    if ((double)n > most + 2) {
        snprintf(msg, sizeof msg, "the file (about %ld bytes) is over the session's ceiling of "
                 "%.0f bytes", n, most);
        return fo_mcp_tool_error("bad_request", msg, "split the file, or ask the operator to "
                                 "start folio with a larger --max-bytes");
    }
    if (json_is_string(b)) {
        data = fo_malloc((size_t)n + 4);
        n = data ? b64_decode(json_string_value(b), json_string_length(b), data) : -1;
        if (n < 0) {
            fo_free(data);
            return fo_mcp_tool_error("bad_request", "\"content_base64\" is not base64",
                                     "encode the bytes with standard base64 (RFC 4648)");
        }
    } else {
        data = (unsigned char *)fo_strdup(json_string_value(text));
    }
    fd = data ? memfd_create("folio-mcp-put", MFD_CLOEXEC) : -1;
    if (fd < 0 || write(fd, data, (size_t)n) != n) {
        fo_free(data);
        if (fd >= 0) close(fd);
        return fo_mcp_tool_error("internal", "can't hold the file", strerror(errno));
    }
    fo_free(data);
    (void)lseek(fd, 0, SEEK_SET);
    {
        const char *p = json_string_value(path);
        while (*p == '/') p++;
        snprintf(dest, sizeof dest, "%s", !strncmp(p, "work/", 5) ? p + 5 : p);
    }
    if (!strncmp(dest, "out/", 4)) {
        close(fd);
        return fo_mcp_tool_error("bad_request", "files are put into /work; /out is what the "
                                 "session's code makes", "pass a path under /work, e.g. "
                                 "\"data/sales.csv\"");
    }
    if (fo_session_put(id, fd, dest, &err) < 0) {
        close(fd);
        return fo_mcp_session_error(&err);
    }
    close(fd);
    snprintf(msg, sizeof msg, "wrote /work/%.200s (%ld bytes)", dest, n);
    {
        char uri[300], full[260];
        snprintf(full, sizeof full, "/work/%.200s", dest);
        uri_of(full, uri, sizeof uri);
        return result_of(json_pack("[o, {s:s, s:s, s:s, s:s, s:I}]", text_item(msg), "type",
                                   "resource_link", "uri", uri, "name", full, "mimeType",
                                   mime_of(dest), "size", (json_int_t)n), 0);
    }
}

/* ---------------------------------------------------- get_file, list */

/* The bytes of a session file as a content item: an image, or an
   embedded resource (text or blob). NULL + *fail. */
static json_t *file_item(fo_mcp *m, const char *path, json_t **fail)
{
    fo_session_error err;
    unsigned long long bytes;
    unsigned char *p;
    size_t n;
    int fd;
    char id[33], uri[1100];
    const char *mime = mime_of(path);
    json_t *item, *res;

    memset(&err, 0, sizeof err);
    if (fo_mcp_session(m, id, &err) < 0 || fo_session_get(id, path, &fd, &bytes, &err) < 0) {
        *fail = fo_mcp_session_error(&err);
        return NULL;
    }
    p = read_fd(fd, (size_t)bytes, &n);
    close(fd);
    if (!p) {
        *fail = fo_mcp_tool_error("internal", "can't read the file", "");
        return NULL;
    }
    uri_of(path, uri, sizeof uri);
    if (!strncmp(mime, "image/", 6) && strcmp(mime, "image/svg+xml")) {
        char *enc = b64_encode(p, n);
        item = enc ? json_pack("{s:s, s:s, s:s}", "type", "image", "data", enc, "mimeType", mime)
                   : NULL;
        fo_free(enc);
    } else {
        res = embedded(uri, mime, p, n);
        item = res ? json_pack("{s:s, s:o}", "type", "resource", "resource", res) : NULL;
    }
    fo_free(p);
    if (!item) *fail = fo_mcp_tool_error("internal", "out of memory", "");
    return item;
}

static json_t *t_get_file(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *path = json_object_get(args, "path"), *fail = NULL, *item;
    char full[1100];

    (void)c;
    if (!json_is_string(path))
        return fo_mcp_tool_error("bad_request", "get_file needs \"path\"", "a path under /work or "
                                 "/out, e.g. \"out/chart.png\"; list_files names them");
    session_path(json_string_value(path), full, sizeof full);
    item = file_item(m, full, &fail);
    return item ? result_of(json_pack("[o]", item), 0) : fail;
}

static json_t *t_list_files(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *fail = NULL, *files = session_files(m, &fail), *content, *f;
    size_t k, len = 0;
    char *listing;

    (void)c;
    (void)args;
    if (!files) return fail;
    content = json_array();
    listing = fo_malloc(json_array_size(files) * 1100 + 64);
    if (!listing) {
        json_decref(files);
        json_decref(content);
        return fo_mcp_tool_error("internal", "out of memory", "");
    }
    len = (size_t)sprintf(listing, "%zu files in /work and /out%s\n", json_array_size(files),
                          json_array_size(files) >= MAX_LIST ? " (the first 500)" : "");
    json_array_foreach(files, k, f) {
        const char *p = json_string_value(json_array_get(f, 0));
        json_int_t bytes = json_integer_value(json_array_get(f, 1));
        char uri[1100];
        if (!p || strlen(p) > 1000) continue;
        len += (size_t)sprintf(listing + len, "%s\t%lld bytes\n", p, (long long)bytes);
        uri_of(p, uri, sizeof uri);
        json_array_append_new(content, json_pack("{s:s, s:s, s:s, s:s, s:I}", "type",
                              "resource_link", "uri", uri, "name", p, "mimeType", mime_of(p),
                              "size", bytes));
    }
    json_array_insert_new(content, 0, text_item(listing));
    fo_free(listing);
    json_decref(files);
    return result_of(content, 0);
}

/* ------------------------------------------------------------ render */

typedef struct {
    fo_mcp_call *c;
    const char *dir;
    char names[8][32];
    size_t n;
    int failed;
} rendered;

/* Keeps a rendered file in the MCP session's scratch folder. */
static int keep_render(void *ud, const char *name, int fd)
{
    rendered *o = ud;
    char path[4200], buf[65536], line[80];
    ssize_t r;
    int out;

    if (o->n == 8 || strlen(name) >= sizeof o->names[0] || strchr(name, '/') || name[0] == '.') return -1;
    snprintf(path, sizeof path, "%s/%s", o->dir, name);
    out = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (out < 0) return -1;
    (void)lseek(fd, 0, SEEK_SET);
    while ((r = read(fd, buf, sizeof buf)) > 0)
        if (write(out, buf, (size_t)r) != r) {
            r = -1;
            break;
        }
    close(out);
    if (r < 0) {
        o->failed = 1;
        return -1;
    }
    snprintf(o->names[o->n++], sizeof o->names[0], "%s", name);
    snprintf(line, sizeof line, "rendered %s", name);
    fo_mcp_progress(o->c, line);
    return 0;
}

static json_t *t_render(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    static const char *const known[] = { "xlsx", "docx", "pptx", "pdf", "png" };
    json_t *fmts = json_object_get(args, "formats"), *embed = json_object_get(args, "embed"), *f;
    json_t *content, *j;
    fo_session_error err;
    rendered o;
    char id[33], list[64] = "", *result = NULL, line[600];
    size_t k, n_want = 0;

    memset(&err, 0, sizeof err);
    memset(&o, 0, sizeof o);
    if (!json_is_array(fmts) || !json_array_size(fmts) || json_array_size(fmts) > 5)
        return fo_mcp_tool_error("bad_request", "render needs \"formats\": a list of xlsx, docx, "
                                 "pptx, pdf, png", "e.g. {\"formats\": [\"xlsx\", \"pdf\"]}");
    json_array_foreach(fmts, k, f) {
        size_t i;
        for (i = 0; i < 5 && (!json_is_string(f) || strcmp(json_string_value(f), known[i])); i++)
            ;
        if (i == 5)
            return fo_mcp_tool_error("bad_request", "unknown format in \"formats\"",
                                     "formats: xlsx, docx, pptx, pdf, png");
        if (strstr(list, known[i])) continue;
        snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", n_want ? "," : "",
                 known[i]);
        n_want++;
    }
    if (fo_mcp_session(m, id, &err) < 0) return fo_mcp_session_error(&err);
    o.c = c;
    o.dir = fo_mcp_scratch(m);
    snprintf(line, sizeof line, "rendering /out/result.json to %s", list);
    fo_mcp_progress(c, line);
    if (fo_session_render(id, list, keep_render, &o, &result, &err) < 0) return fo_mcp_session_error(&err);
    j = json_loads(result ? result : "{}", 0, NULL);
    fo_free(result);
    if (o.n < n_want) {
        const char *why = json_string_value(json_object_get(j, "stderr"));
        int code = (int)json_integer_value(json_object_get(j, "exit"));
        snprintf(line, sizeof line, "the render ended with exit %d%s%.400s", code,
                 why && *why ? ": " : "", why ? why : "");
        json_decref(j);
        return fo_mcp_tool_error(code == 3 ? "ceiling" : code == 2 ? "invalid_spec" : "render_failed",
                                 line, code == 3 ? "make the document smaller (fewer rows or "
                                 "images): the ceiling is the server's --max-bytes"
                                 : "call validate_spec to see each error of /out/result.json "
                                 "with its location and hint");
    }
    json_decref(j);
    content = json_array();
    for (k = 0; k < o.n; k++) {
        char uri[128], path[4200];
        struct stat st;
        snprintf(uri, sizeof uri, "folio://render/%s", o.names[k]);
        snprintf(path, sizeof path, "%s/%s", o.dir, o.names[k]);
        if (json_is_true(embed)) {
            size_t n;
            int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
            unsigned char *p = fd >= 0 ? read_fd(fd, (size_t)1 << 31, &n) : NULL;
            json_t *res = p ? embedded(uri, mime_of(o.names[k]), p, n) : NULL;
            if (fd >= 0) close(fd);
            fo_free(p);
            if (res)
                json_array_append_new(content, json_pack("{s:s, s:o}", "type", "resource",
                                                         "resource", res));
        } else if (stat(path, &st) == 0) {
            json_array_append_new(content, json_pack("{s:s, s:s, s:s, s:s, s:I}", "type",
                                  "resource_link", "uri", uri, "name", o.names[k], "mimeType",
                                  mime_of(o.names[k]), "size", (json_int_t)st.st_size));
        }
    }
    snprintf(line, sizeof line, "rendered %zu file%s from /out/result.json%s", o.n,
             o.n == 1 ? "" : "s", json_is_true(embed) ? "" : "; read each with resources/read");
    json_array_insert_new(content, 0, text_item(line));
    return result_of(content, 0);
}

/* ------------------------------------------------------ validate_spec */

static json_t *diag_json(const fo_diag *d)
{
    json_t *o = json_object();

    if (d->file) json_object_set_new(o, "file", json_string(d->file));
    if (d->line) json_object_set_new(o, "line", json_integer(d->line));
    if (d->column) json_object_set_new(o, "column", json_integer(d->column));
    if (d->pointer) json_object_set_new(o, "pointer", json_string(d->pointer));
    json_object_set_new(o, "message", json_string(d->message ? d->message : ""));
    if (d->hint) json_object_set_new(o, "hint", json_string(d->hint));
    return o;
}

/* Copies into dir each file the diagnostics say is missing ("file \"X\"
   not found"), from the spec's folder in the session (/out): the spec's
   own files are checked as the render would see them. How many. */
static int fetch_missing(fo_mcp *m, const fo_diags *d, const char *dir)
{
    char id[33], name[512], path[1100], dest[4200];
    fo_session_error err;
    int got = 0;

    memset(&err, 0, sizeof err);
    if (fo_mcp_session(m, id, &err) < 0) return 0;
    for (size_t k = 0; k < d->n && k < 64; k++) {
        const char *msg = d->items[k].message;
        unsigned long long bytes;
        int fd, out;
        if (!msg || sscanf(msg, "file \"%511[^\"]\" not found", name) != 1 || strstr(name, "..") ||
            name[0] == '/')
            continue;
        snprintf(path, sizeof path, "/out/%s", name);
        if (fo_session_get(id, path, &fd, &bytes, &err) < 0) continue;
        for (char *s = name; (s = strchr(s, '/')); s++) {   /* its folders */
            *s = '\0';
            snprintf(dest, sizeof dest, "%s/%s", dir, name);
            (void)mkdir(dest, 0700);
            *s = '/';
        }
        snprintf(dest, sizeof dest, "%s/%s", dir, name);
        out = open(dest, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (out >= 0) {
            char buf[65536];
            ssize_t r;
            while ((r = read(fd, buf, sizeof buf)) > 0 && write(out, buf, (size_t)r) == r)
                ;
            close(out);
            got++;
        }
        close(fd);
    }
    return got;
}

static json_t *validate_text(fo_mcp *m, const char *text, size_t len, const char *shown,
                             int in_session)
{
    char dir[4200];
    fo_diags d;
    fo_doc *doc = NULL;
    fo_status st;
    json_t *content, *errors;
    char line[300];

    snprintf(dir, sizeof dir, "%s/validate-XXXXXX", fo_mcp_scratch(m));
    if (!mkdtemp(dir))
        return fo_mcp_tool_error("internal", "can't make a folder to validate in", strerror(errno));
    fo_diags_init(&d);
    st = fo_spec_parse(text, len, shown, dir, &doc, &d);
    if (st != FO_OK && in_session && fetch_missing(m, &d, dir) > 0) {
        fo_diags_free(&d);
        fo_diags_init(&d);
        st = fo_spec_parse(text, len, shown, dir, &doc, &d);
    }
    fo_serve_rmtree(dir);
    errors = json_array();
    content = json_array();
    if (st == FO_OK)
        snprintf(line, sizeof line, "%s is valid: %zu blocks, %zu datasets; render it with render",
                 shown, fo_doc_nblocks(doc), fo_doc_ndatasets(doc));
    else
        snprintf(line, sizeof line, "%s has %zu problem%s (each: where, what, hint):", shown, d.n,
                 d.n == 1 ? "" : "s");
    json_array_append_new(content, text_item(line));
    for (size_t k = 0; k < d.n; k++) {
        char *one = fo_diag_format(&d.items[k]);
        json_array_append_new(errors, diag_json(&d.items[k]));
        json_array_append_new(content, text_item(one ? one : d.items[k].message));
        fo_free(one);
    }
    fo_doc_free(doc);
    fo_diags_free(&d);
    {
        json_t *r = result_of(content, st != FO_OK);
        json_object_set_new(r, "structuredContent", json_pack("{s:b, s:o}", "valid", st == FO_OK,
                                                              "errors", errors));
        return r;
    }
}

static json_t *t_validate(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *spec = json_object_get(args, "spec"), *path = json_object_get(args, "path");
    char full[1100], *text;
    json_t *r;

    (void)c;
    if (spec && path) return fo_mcp_tool_error("bad_request", "pass \"spec\" or \"path\", not both", "");
    if (spec && !json_is_object(spec) && !json_is_string(spec))
        return fo_mcp_tool_error("bad_request", "\"spec\" must be the spec (an object) or its "
                                 "JSON text", "");
    if (spec) {                     /* json_dumps'd or strdup'd: one plain free for both */
        text = json_is_string(spec) ? strdup(json_string_value(spec))
                                    : json_dumps(spec, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
        r = text ? validate_text(m, text, strlen(text), "spec.json", 1) : NULL;
        free(text);
        return r ? r : fo_mcp_tool_error("internal", "out of memory", "");
    }
    if (path && !json_is_string(path))
        return fo_mcp_tool_error("bad_request", "\"path\" must be a string", "");
    session_path(path ? json_string_value(path) : "out/result.json", full, sizeof full);
    {
        fo_session_error err;
        unsigned long long bytes;
        char id[33];
        size_t n;
        unsigned char *p;
        int fd;
        memset(&err, 0, sizeof err);
        if (fo_mcp_session(m, id, &err) < 0 || fo_session_get(id, full, &fd, &bytes, &err) < 0) {
            if (!strcmp(full, "/out/result.json") && !strcmp(err.code, "bad_request"))
                return fo_mcp_tool_error("no_spec", "there is no /out/result.json yet",
                                         "write the spec there in a run_python cell, or pass "
                                         "\"spec\" to validate one directly");
            return fo_mcp_session_error(&err);
        }
        p = read_fd(fd, (size_t)bytes, &n);
        close(fd);
        if (!p) return fo_mcp_tool_error("internal", "can't read the spec", "");
        /* a spec in /out finds its files there, as the render will */
        r = validate_text(m, (char *)p, n, strrchr(full, '/') + 1, !strncmp(full, "/out/", 5));
        fo_free(p);
        return r;
    }
}

/* ---------------------------------------------- restart, environment */

static json_t *t_restart(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *keep = json_object_get(args, "keep_files");
    fo_session_error err;
    char id[33], *result = NULL;
    static const char die[] = "import os\nos._exit(0)\n";

    (void)c;
    memset(&err, 0, sizeof err);
    if (keep && !json_is_boolean(keep))
        return fo_mcp_tool_error("bad_request", "\"keep_files\" must be true or false", "");
    if (json_is_false(keep)) {
        fo_mcp_session_drop(m);
        return result_of(json_pack("[o]", text_item("the session was closed: variables and "
                                   "files are gone; the next call starts a fresh one")), 0);
    }
    if (fo_mcp_session(m, id, &err) < 0) return fo_mcp_session_error(&err);
    /* the interpreter ends itself; the supervisor restarts it with the files kept */
    if (fo_session_exec(id, die, strlen(die), 0, NULL, NULL, &result, &err) < 0)
        return fo_mcp_session_error(&err);
    fo_free(result);
    return result_of(json_pack("[o]", text_item("the Python interpreter was restarted: variables "
                               "and imports are cleared, files in /work and /out are kept")), 0);
}

static const char env_src[] =
    "import sys, platform\n"
    "from importlib import metadata\n"
    "print('Python', sys.version.split()[0], 'on', platform.machine())\n"
    "seen = {}\n"
    "for d in metadata.distributions():\n"
    "    n = d.metadata['Name']\n"
    "    if n and n.lower() not in seen:\n"
    "        seen[n.lower()] = (n, d.version)\n"
    "for k in sorted(seen):\n"
    "    print('%s==%s' % seen[k])\n";

static json_t *t_environment(fo_mcp *m, fo_mcp_call *c, json_t *args)
{
    json_t *fail = NULL;
    char *text;

    (void)c;
    (void)args;
    text = helper_cell(m, env_src, "", &fail);
    if (!text) return fail;
    {
        json_t *r = result_of(json_pack("[{s:s, s:s}]", "type", "text", "text", text), 0);
        fo_free(text);
        return r;
    }
}

/* --------------------------------------------------------- resources */

json_t *fo_mcp_resource_list(fo_mcp *m)
{
    json_t *fail = NULL, *files = session_files(m, &fail), *list = json_array(), *f;
    size_t k;

    json_decref(fail);
    json_array_foreach(files, k, f) {
        const char *p = json_string_value(json_array_get(f, 0));
        char uri[1100];
        if (!p || strlen(p) > 1000) continue;
        uri_of(p, uri, sizeof uri);
        json_array_append_new(list, json_pack("{s:s, s:s, s:s, s:O}", "uri", uri, "name", p,
                                              "mimeType", mime_of(p), "size", json_array_get(f, 1)));
    }
    json_decref(files);
    return json_pack("{s:o}", "resources", list);
}

json_t *fo_mcp_resource_read(fo_mcp *m, const char *uri, int *code, char *why, size_t len)
{
    char path[1100];
    json_t *item, *fail = NULL, *res;

    *code = -32002;   /* Resource not found (server/resources) */
    if (!strncmp(uri, "folio://render/", 15)) {
        const char *name = uri + 15;
        char full[4200];
        size_t n;
        int fd;
        unsigned char *p;
        if (!*name || strchr(name, '/') || name[0] == '.') {
            snprintf(why, len, "Resource not found: %.200s", uri);
            return NULL;
        }
        snprintf(full, sizeof full, "%s/%s", fo_mcp_scratch(m), name);
        fd = open(full, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
        p = fd >= 0 ? read_fd(fd, (size_t)1 << 31, &n) : NULL;
        if (fd >= 0) close(fd);
        if (!p) {
            snprintf(why, len, "Resource not found: %.200s (render makes folio://render/ files)",
                     uri);
            return NULL;
        }
        res = embedded(uri, mime_of(name), p, n);
        fo_free(p);
        return res ? json_pack("{s:[o]}", "contents", res) : NULL;
    }
    if (strncmp(uri, "folio://work/", 13) && strncmp(uri, "folio://out/", 12)) {
        snprintf(why, len, "Resource not found: %.200s (folio's URIs: folio://work/PATH, "
                 "folio://out/PATH, folio://render/NAME)", uri);
        return NULL;
    }
    snprintf(path, sizeof path, "/%s", uri + 8);
    item = file_item(m, path, &fail);
    if (!item) {
        const char *t = json_string_value(json_object_get(json_array_get(
                                          json_object_get(fail, "content"), 0), "text"));
        snprintf(why, len, "Resource not found: %.200s: %.300s", uri, t ? t : "");
        json_decref(fail);
        return NULL;
    }
    if (json_object_get(item, "resource"))
        res = json_incref(json_object_get(item, "resource"));
    else
        res = json_pack("{s:s, s:O, s:O}", "uri", uri, "mimeType", json_object_get(item, "mimeType"),
                        "blob", json_object_get(item, "data"));
    json_decref(item);
    return json_pack("{s:[o]}", "contents", res);
}

/* ------------------------------------------------------------- table */

const fo_mcp_tool fo_mcp_tools[] = {
    { "run_python", "Run Python",
      "Run Python code in this conversation's sandboxed session, like a notebook cell. "
      "Variables, imports and files persist to the next call. The result holds stdout, "
      "stderr, the value of a last bare expression (a pandas table also as markdown), the "
      "traceback of an error, matplotlib figures left open (as PNG images) and links to files "
      "the cell wrote in /out. The working folder is /work (files from put_file are there); "
      "write outputs to /out. A cell over its timeout is interrupted (KeyboardInterrupt) and "
      "the variables are kept. There is no network unless the server allows it.",
      "{\"type\": \"object\", \"properties\": {"
      "\"code\": {\"type\": \"string\", \"description\": \"Python source to run\"},"
      "\"timeout\": {\"type\": \"number\", \"exclusiveMinimum\": 0, \"description\": "
      "\"seconds before the cell is interrupted; at most the server's limit (default: that "
      "limit)\"}}, \"required\": [\"code\"], \"additionalProperties\": false}",
      0, 0, 0, t_run_python },
    { "put_file", "Put a file",
      "Write a file into the session's /work folder, for code to read (e.g. a CSV to analyse). "
      "Pass the content as \"text\" (UTF-8) or as \"content_base64\" (any bytes). The path is "
      "relative to /work; folders are made. A file over the server's size ceiling is refused.",
      "{\"type\": \"object\", \"properties\": {"
      "\"path\": {\"type\": \"string\", \"description\": \"relative path under /work, e.g. "
      "data/sales.csv\"},"
      "\"text\": {\"type\": \"string\", \"description\": \"the content, as text\"},"
      "\"content_base64\": {\"type\": \"string\", \"contentEncoding\": \"base64\", "
      "\"description\": \"the content, base64-encoded\"}},"
      "\"required\": [\"path\"], \"additionalProperties\": false}",
      0, 0, 1, t_put_file },
    { "get_file", "Get a file",
      "Read a file of the session: from /work (a relative path means /work) or /out (start the "
      "path with out/). Images come back as images, text as text, other files as a base64 "
      "resource. Links are not followed; files over the size ceiling are refused.",
      "{\"type\": \"object\", \"properties\": {"
      "\"path\": {\"type\": \"string\", \"description\": \"e.g. out/chart.png or data/sales.csv\"}},"
      "\"required\": [\"path\"], \"additionalProperties\": false}",
      1, 0, 1, t_get_file },
    { "list_files", "List files",
      "List the files of the session's /work and /out folders with their sizes, each as a "
      "resource link (folio://work/PATH, folio://out/PATH) to read with get_file or "
      "resources/read.",
      "{\"type\": \"object\", \"properties\": {}, \"additionalProperties\": false}",
      1, 0, 1, t_list_files },
    { "render", "Render the document",
      "Render the folio spec at /out/result.json (write it there in a run_python cell) to "
      "documents: xlsx, docx, pptx, pdf or png. Each file comes back as a resource link "
      "(folio://render/result.FMT, read it with resources/read), or embedded when \"embed\" is "
      "true. An invalid spec fails with its errors: call validate_spec for each error's "
      "location and hint.",
      "{\"type\": \"object\", \"properties\": {"
      "\"formats\": {\"type\": \"array\", \"minItems\": 1, \"maxItems\": 5, \"uniqueItems\": true, "
      "\"items\": {\"type\": \"string\", \"enum\": [\"xlsx\", \"docx\", \"pptx\", \"pdf\", \"png\"]}},"
      "\"embed\": {\"type\": \"boolean\", \"default\": false, \"description\": \"return the files' "
      "bytes in the result instead of links\"}},"
      "\"required\": [\"formats\"], \"additionalProperties\": false}",
      0, 0, 1, t_render },
    { "validate_spec", "Validate a spec",
      "Check a folio spec without rendering: every problem with its line, column, JSON Pointer, "
      "message and a hint to fix it. Pass \"spec\" (the spec object; its files are looked up "
      "in /out) or \"path\" (a spec file of the session; default out/result.json).",
      "{\"type\": \"object\", \"properties\": {"
      "\"spec\": {\"type\": [\"object\", \"string\"], \"description\": \"the spec, or its JSON text\"},"
      "\"path\": {\"type\": \"string\", \"description\": \"a spec file in the session, e.g. "
      "out/result.json\"}}, \"additionalProperties\": false}",
      1, 0, 1, t_validate },
    { "restart_session", "Restart the session",
      "Restart the Python interpreter: variables and imports are cleared, files in /work and "
      "/out are kept. With keep_files false, the whole session is closed and the next call "
      "starts an empty one.",
      "{\"type\": \"object\", \"properties\": {"
      "\"keep_files\": {\"type\": \"boolean\", \"default\": true}}, \"additionalProperties\": false}",
      0, 1, 0, t_restart },
    { "environment", "Python environment",
      "The session's Python version and the installed packages (name==version), to know what "
      "code can import.",
      "{\"type\": \"object\", \"properties\": {}, \"additionalProperties\": false}",
      1, 0, 1, t_environment },
    { NULL, NULL, NULL, NULL, 0, 0, 0, NULL },
};
