/* session_record.c — a session's record (session_record.h): written by the
 * supervisor after each cell and put, read back by `folio session export`
 * and GET /v1/sessions/{id}/notebook (fo_session_export, session.h).
 *
 * Everything is appended with one write(2) of whole lines (O_APPEND), so a
 * reader sees complete lines, and a cut last line (a crash mid-write) is
 * dropped when read. Trimming rewrites a file atomically (keeping the newest
 * lines) once it passes its bound by a quarter: amortized, a cell costs two
 * appends and a SHA-256 of its code. */
#define FO_SANDBOX_PRIVATE
#define FO_SESSION_PRIVATE
#include "sandbox/sandbox.h"
#include "sandbox/session.h"
#include "sandbox/session_record.h"
#include "sandbox/session_store.h"
#include "sandbox/session_super.h"
#include "sandbox/env.h"
#include "base/sha256.h"
#include "folio.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* ------------------------------------------------------------- writing */

static void iso_time(double t, char out[32])
{
    time_t sec = (time_t)t;
    struct tm tm;

    gmtime_r(&sec, &tm);
    strftime(out, 32, "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out + strlen(out), 32 - strlen(out), ".%03dZ", (int)((t - (double)sec) * 1000) % 1000);
}

/* Lines in the file (counted once per supervisor, then kept up to date). */
typedef struct {
    const char *name;
    long lines;                     /* -1: not counted yet */
    unsigned long long bytes;
    long max_lines;
    unsigned long long max_bytes;
} rec_file;

static rec_file files[] = {
    { "record.jsonl", -1, 0, FO_RECORD_FULL_CELLS, FO_RECORD_FULL_BYTES },
    { "record.nb", -1, 0, FO_RECORD_FULL_CELLS, FO_RECORD_FULL_BYTES },
    { "record.index", -1, 0, FO_RECORD_INDEX_CELLS, 64u << 20 },
    { "record.puts", -1, 0, FO_RECORD_PUTS, 16u << 20 },
};

static void count(int dir, rec_file *f)
{
    char buf[65536];
    ssize_t n;
    int fd = openat(dir, f->name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);

    f->lines = 0;
    f->bytes = 0;
    while (fd >= 0 && (n = read(fd, buf, sizeof buf)) > 0) {
        f->bytes += (unsigned long long)n;
        for (ssize_t k = 0; k < n; k++) f->lines += buf[k] == '\n';
    }
    if (fd >= 0) close(fd);
}

/* Keeps the newest lines within both bounds (an atomic rewrite). */
static void trim(int dir, rec_file *f)
{
    size_t max = (size_t)(f->max_bytes + f->max_bytes / 4 + (16u << 20));
    char *text = fo_session_read_small(dir, f->name, max), *p;
    size_t len;
    long keep = 0;

    if (!text) return;
    len = strlen(text);
    p = text + len;
    /* walk back over whole lines while both bounds hold */
    while (p > text && keep < f->max_lines) {
        char *q = p - 1;
        while (q > text && q[-1] != '\n') q--;
        if ((size_t)(text + len - q) > f->max_bytes) break;
        p = q;
        keep++;
    }
    if (fo_session_write_small(dir, f->name, p) == 0) {
        f->lines = keep;
        f->bytes = (unsigned long long)(text + len - p);
    }
    fo_free(text);
}

static void append(int dir, rec_file *f, const fo_buf *line)
{
    int fd;

    if (line->failed || !line->len) return;
    if (f->lines < 0) count(dir, f);
    fd = openat(dir, f->name, O_WRONLY | O_APPEND | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || write(fd, line->data, line->len) != (ssize_t)line->len)
        fprintf(stderr, "folio: session record: can't append to %s: %s\n", f->name,
                strerror(errno));
    if (fd >= 0) close(fd);
    f->lines++;
    f->bytes += line->len;
    if (f->lines > f->max_lines + f->max_lines / 4 || f->bytes > f->max_bytes + f->max_bytes / 4)
        trim(dir, f);
}

void fo_session_record_begin(int dir, const char *id, const char *info, const char *inputs)
{
    fo_buf b = { 0 };
    char now[32];

    iso_time((double)time(NULL), now);
    fo_buf_printf(&b, "{\"session\": \"%s\", \"folio\": \"%s\", \"created\": \"%s\", "
                  "\"info\": %s, \"inputs\": %s}\n", id, FOLIO_VERSION, now,
                  info && info[0] == '{' ? info : "null",
                  inputs && inputs[0] == '[' ? inputs : "[]");
    for (size_t k = 0; k < sizeof files / sizeof *files; k++) (void)unlinkat(dir, files[k].name, 0);
    if (!b.failed) (void)fo_session_write_small(dir, "record.head", b.data);
    fo_buf_free(&b);
}

void fo_session_record_put(int dir, const char *path, unsigned long long bytes,
                           const char sha256[65])
{
    fo_buf b = { 0 };
    char now[32];

    iso_time((double)time(NULL), now);
    fo_buf_puts(&b, "{\"path\": ");
    fo_buf_json_str(&b, path, strlen(path));
    fo_buf_printf(&b, ", \"bytes\": %llu, \"sha256\": \"%s\", \"at\": \"%s\"}\n", bytes,
                  sha256, now);
    append(dir, &files[3], &b);
    fo_buf_free(&b);
}

static size_t bundles_size(const fo_record_cell *c)
{
    size_t n = strlen(c->result_data);

    for (size_t k = 0; k < c->n_displays; k++) n += strlen(c->displays[k]);
    return n;
}

static void text(fo_buf *b, const char *p, size_t n)
{
    fo_buf_json_str(b, p ? p : "", n > FO_RECORD_TEXT_CAP ? FO_RECORD_TEXT_CAP : n);
}

/* record.jsonl's line. */
static void cell_line(fo_buf *b, const fo_record_cell *c, const char *sha, const char *when,
                      int bundles)
{
    fo_buf_printf(b, "{\"cell\": %u, \"started\": \"%s\", \"status\": \"%s\", \"ms\": %.1f, "
                  "\"code_sha256\": \"%s\", \"code\": ", c->cell, when, c->status, c->ms, sha);
    fo_buf_json_str(b, c->code, c->code_len);
    fo_buf_puts(b, ", \"stdout\": ");
    text(b, c->out, c->out_len);
    fo_buf_puts(b, ", \"stderr\": ");
    text(b, c->err, c->err_len);
    fo_buf_printf(b, ", \"stdout_bytes\": %llu, \"stderr_bytes\": %llu, \"result_data\": %s, "
                  "\"displays\": [", c->out_total, c->err_total,
                  bundles && c->result_data[0] == '{' ? c->result_data : "null");
    for (size_t k = 0; bundles && k < c->n_displays; k++)
        fo_buf_printf(b, "%s%s", k ? ", " : "", c->displays[k]);
    fo_buf_printf(b, "], \"bundles_dropped\": %s, \"error\": ", bundles ? "false" : "true");
    if (c->ename[0])
        fo_buf_printf(b, "{\"name\": %s, \"value\": %s, \"traceback\": %s}", c->ename,
                      c->evalue[0] ? c->evalue : "\"\"", c->etb[0] ? c->etb : "\"\"");
    else fo_buf_puts(b, "null");
    fo_buf_printf(b, ", \"files\": %s, \"egress\": [%s]}\n",
                  c->files && c->files[0] == '[' ? c->files : "[]", c->egress ? c->egress : "");
}

static void stream(fo_buf *b, int *first, const char *name, const char *p, size_t n)
{
    if (!n) return;
    fo_buf_printf(b, "%s{\"output_type\": \"stream\", \"name\": \"%s\", \"text\": ",
                  *first ? "" : ", ", name);
    text(b, p, n);
    fo_buf_puts(b, "}");
    *first = 0;
}

/* record.nb's line: the cell as nbformat 4 writes a code cell. */
static void nb_line(fo_buf *b, const fo_record_cell *c, const char *sha, const char *when,
                    int bundles)
{
    int first = 1;

    fo_buf_printf(b, "{\"cell_type\": \"code\", \"execution_count\": %u, \"metadata\": "
                  "{\"folio\": {\"cell\": %u, \"status\": \"%s\", \"started\": \"%s\", "
                  "\"ms\": %.1f, \"code_sha256\": \"%s\"}}, \"source\": ", c->cell, c->cell,
                  c->status, when, c->ms, sha);
    fo_buf_json_str(b, c->code, c->code_len);
    fo_buf_puts(b, ", \"outputs\": [");
    stream(b, &first, "stdout", c->out, c->out_len);
    stream(b, &first, "stderr", c->err, c->err_len);
    for (size_t k = 0; k < c->n_displays; k++) {
        fo_buf_puts(b, first ? "" : ", ");
        first = 0;
        if (bundles && c->displays[k][0] == '{')
            fo_buf_printf(b, "{\"output_type\": \"display_data\", %s", c->displays[k] + 1);
        else
            fo_buf_puts(b, "{\"output_type\": \"display_data\", \"data\": {\"text/plain\": "
                        "\"[not kept: over the record's cap]\"}, \"metadata\": {}}");
    }
    if (bundles && c->result_data[0] == '{') {
        fo_buf_printf(b, "%s{\"output_type\": \"execute_result\", \"execution_count\": %u, %s",
                      first ? "" : ", ", c->cell, c->result_data + 1);
        first = 0;
    }
    if (c->ename[0] || strcmp(c->status, "ok")) {
        fo_buf_puts(b, first ? "" : ", ");
        if (c->ename[0])
            fo_buf_printf(b, "{\"output_type\": \"error\", \"ename\": %s, \"evalue\": %s, "
                          "\"traceback\": [%s]}", c->ename, c->evalue[0] ? c->evalue : "\"\"",
                          c->etb[0] ? c->etb : "\"\"");
        else
            fo_buf_printf(b, "{\"output_type\": \"error\", \"ename\": \"%s\", \"evalue\": "
                          "\"the cell ended: %s\", \"traceback\": []}", c->status, c->status);
    }
    fo_buf_puts(b, "]}\n");
}

void fo_session_record_cell(int dir, const fo_record_cell *c)
{
    fo_buf b = { 0 };
    char sha[65], when[32];
    int bundles = bundles_size(c) <= FO_RECORD_BUNDLES_CAP;
    static int off = -1;            /* FOLIO_SESSION_RECORD=0: for bench/bench-record.sh only */

    if (off < 0) off = getenv("FOLIO_SESSION_RECORD") && !strcmp(getenv("FOLIO_SESSION_RECORD"), "0");
    if (off) return;

    fo_sha256_hex(c->code, c->code_len, sha);
    iso_time(c->started, when);
    cell_line(&b, c, sha, when, bundles);
    append(dir, &files[0], &b);
    b.len = 0;
    nb_line(&b, c, sha, when, bundles);
    append(dir, &files[1], &b);
    b.len = 0;
    fo_buf_printf(&b, "{\"cell\": %u, \"started\": \"%s\", \"status\": \"%s\", \"ms\": %.1f, "
                  "\"code_sha256\": \"%s\"}\n", c->cell, when, c->status, c->ms, sha);
    append(dir, &files[2], &b);
    fo_buf_free(&b);
}

void fo_session_record_copy(int from, int to)
{
    static const char *const names[] = { "record.head", "record.jsonl", "record.nb",
                                         "record.index", "record.puts", "inputs" };

    if (from == to) return;
    for (size_t k = 0; k < sizeof names / sizeof *names; k++) {
        struct stat st;
        int fd = fo_sandbox_open_regular(from, names[k], &st);
        if (fd < 0) continue;
        if (fo_sandbox_write_copy(to, names[k], fd) < 0 || fchmodat(to, names[k], 0600, 0) < 0)
            fprintf(stderr, "folio: session record: can't copy %s: %s\n", names[k],
                    strerror(errno));
        close(fd);
    }
    for (size_t k = 0; k < sizeof files / sizeof *files; k++)
        files[k].lines = -1;                 /* counted again where they now are */
}

/* ------------------------------------------------------------- reading */

/* The file's whole lines (a cut last line dropped), within max bytes: the
   newest ones when it is larger. malloc'd ("" when missing), or NULL. */
static char *read_lines(int dir, const char *name, size_t max)
{
    struct stat st;
    int fd = fo_sandbox_open_regular(dir, name, &st);
    char *buf;
    size_t got = 0, want;
    off_t from;

    if (fd < 0) return errno == ENOENT ? fo_calloc(1, 1) : NULL;
    want = (uint64_t)st.st_size > max ? max : (size_t)st.st_size;
    from = st.st_size - (off_t)want;
    buf = fo_malloc(want + 1);
    if (buf) got = fo_read_upto(fd, buf, want, from);
    close(fd);
    if (!buf) return NULL;
    while (got && buf[got - 1] != '\n')       /* a cut last line */
        got--;
    buf[got] = 0;
    if (from > 0) {                           /* started mid-line: skip to the next */
        char *nl = strchr(buf, '\n');
        memmove(buf, nl ? nl + 1 : buf + got, strlen(nl ? nl + 1 : buf + got) + 1);
    }
    return buf;
}

/* Lines joined by ", " (each a JSON value written by this file; a line that
   does not look like one is skipped). */
static void join_lines(fo_buf *b, const char *lines)
{
    int first = 1;

    while (*lines) {
        size_t n = strcspn(lines, "\n");
        if (n >= 2 && lines[0] == '{' && lines[n - 1] == '}' &&
            fo_session_json_valid(lines, n)) {
            fo_buf_puts(b, first ? "" : ", ");
            fo_buf_append(b, lines, n);
            first = 0;
        }
        lines += n + (lines[n] == '\n');
    }
}

/* The session's folder for reading its record: RT/ID, or its snapshot in
   the state folder when it is not here. -1 + err. */
static int record_dir(const char *id, fo_session_error *err)
{
    int rt, dir;

    if (!fo_session_valid_id(id)) {
        fo_session_fail(err, "bad_request", 2, "a session id is 32 hex digits (folio session ls)",
                        "not a session id: \"%.40s\"", id);
        return -1;
    }
    rt = fo_session_runtime(err);
    if (rt < 0) return -1;
    dir = openat(rt, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    close(rt);
    if (dir >= 0 && faccessat(dir, "record.head", R_OK, AT_SYMLINK_NOFOLLOW) == 0) return dir;
    if (dir >= 0) close(dir);
    rt = fo_session_state_dir();            /* hibernated in the shared state folder */
    dir = rt >= 0 ? fo_session_snap_open(rt, id) : -1;
    if (rt >= 0) close(rt);
    if (dir >= 0) return dir;
    fo_session_fail(err, "session_not_found", 2, "list sessions with folio session ls",
                    "no session %s (or it keeps no record)", id);
    return -1;
}

/* "3.11.2" from the head's "python": "..." (digits, dots, letters only). */
static void python_version(const char *head, char out[32])
{
    const char *p = strstr(head, "\"python\": \"");
    size_t n = 0;

    out[0] = 0;
    if (!p) return;
    p += 11;
    while (n < 31 && p[n] && strchr("0123456789.abcdefghijklmnopqrstuvwxyz+", p[n])) n++;
    memcpy(out, p, n);
    out[n] = 0;
}

/* JSON text with the whitespace between tokens removed, in place: one line. */
static void minify(char *p)
{
    char *w = p;
    int in = 0;

    for (; *p; p++) {
        if (in) {
            *w++ = *p;
            if (*p == '\\' && p[1])
                *w++ = *++p;
            else if (*p == '"') in = 0;
        } else if (!strchr(" \t\r\n", *p)) {
            in = *p == '"';
            *w++ = *p;
        }
    }
    *w = 0;
}

static char *environment(void)
{
    char why[256], *text, *sep;
    size_t len;

    if (getenv("FOLIO_RECORD_NO_ENV")) return NULL;
    text = fo_env_listing(0, &len, why, sizeof why);
    if (!text) return NULL;
    sep = strstr(text, "\n\036\n");
    if (sep) *sep = 0;
    minify(text);
    if (text[0] != '{' || !fo_session_json_valid(text, strlen(text))) {
        fo_free(text);
        return NULL;
    }
    return text;
}

int fo_session_export(const char *id, int what, char **out, size_t *len, fo_session_error *err)
{
    int dir = record_dir(id, err);
    char *head, *cells, *puts, *env = NULL, py[32];
    fo_buf b = { 0 };

    if (dir < 0) return -1;
    head = fo_session_read_small(dir, "record.head", 4u << 20);
    cells = read_lines(dir, what == FO_EXPORT_NOTEBOOK ? "record.nb" : "record.jsonl",
                       FO_RECORD_FULL_BYTES + FO_RECORD_FULL_BYTES / 4);
    puts = read_lines(dir, "record.puts", 20u << 20);
    close(dir);
    if (!head || !cells || !puts || head[0] != '{' ||
        !fo_session_json_valid(head, strcspn(head, "\n"))) {
        fo_session_fail(err, "internal", 5, "the session's record is damaged; its cells still run",
                        "can't read the record of session %s", id);
        fo_free(head), fo_free(cells), fo_free(puts);
        return -1;
    }
    head[strcspn(head, "\n")] = 0;
    env = environment();
    if (what == FO_EXPORT_NOTEBOOK) {
        python_version(head, py);
        fo_buf_printf(&b, "{\"nbformat\": 4, \"nbformat_minor\": 4, \"metadata\": {\"kernelspec\": "
                      "{\"name\": \"python3\", \"display_name\": \"Python 3\", \"language\": "
                      "\"python\"}, \"language_info\": {\"name\": \"python\", \"version\": \"%s\"}, "
                      "\"folio\": {\"record\": %s, \"puts\": [", py[0] ? py : "3", head);
        join_lines(&b, puts);
        fo_buf_printf(&b, "], \"environment\": %s}}, \"cells\": [", env ? env : "null");
        join_lines(&b, cells);
        fo_buf_puts(&b, "]}\n");
    } else {
        fo_buf_printf(&b, "{\"folio_record\": 1, \"head\": %s, \"puts\": [", head);
        join_lines(&b, puts);
        fo_buf_printf(&b, "], \"environment\": %s}\n", env ? env : "null");
        fo_buf_puts(&b, cells);
    }
    fo_free(head), fo_free(cells), fo_free(puts), fo_free(env);
    if (b.failed) {
        fo_buf_free(&b);
        fo_session_fail(err, "internal", 5, "free some memory", "out of memory");
        return -1;
    }
    *out = fo_buf_take(&b, len);
    return 0;
}
