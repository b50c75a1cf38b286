/* csv.c — the streaming RFC 4180 reader (rules in csv.h) and fo_csv_scan,
 * the one pass that names, counts and types the columns of a CSV dataset.
 *
 * Invariants of the reader: buf[pos..len) is unread input; line is the
 * 1-based line of buf[pos]; after_cr means the previous byte was a CR, so an
 * LF at pos belongs to the same line break. A record is assembled in rec:
 * field contents, each followed by a NUL, with off[]/flen[] giving each one;
 * fields[] is rebuilt from off[] once the record is complete (rec may move
 * while it grows). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "formats/csv.h"
#include "formats/infer.h"
#include "base/buf.h"
#include "base/utf8.h"

#define BLOCK_SIZE ((size_t)256 << 10)
#define SCAN_MAX_ERRORS 10

enum { C_UNQ = 1, C_QUO = 2 }; /* bytes that end a run in unquoted / quoted text */
enum { ST_START, ST_UNQ, ST_QUOTED, ST_QQ };

struct fo_csv {
    int fd;                   /* -1: reading from memory */
    char *display;            /* owned copy, names the file in diagnostics */
    char delim;
    unsigned char *block;     /* owned read block (fd only) */
    const unsigned char *buf; /* block, or the caller's memory */
    size_t pos, len;
    bool eof, after_cr, fatal;
    size_t line, rec_line;
    char *rec;
    size_t rec_len, rec_cap;
    size_t *off, *flen;
    const char **fields;
    size_t nf, fcap;
    unsigned char cls[256];
};

/* ---- input ---------------------------------------------------------------*/
/* 1: more input at pos; 0: end of file; -1: read error (reported, sticky). */
static int refill(fo_csv *c, fo_diags *d)
{
    if (c->pos < c->len) return 1;
    if (c->eof) return 0;
    if (c->fd < 0) {
        c->eof = true;
        return 0;
    }
    for (;;) {
        ssize_t n = read(c->fd, c->block, BLOCK_SIZE);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            fo_diags_add(d, c->display, 0, 0, NULL, NULL, "cannot read: %s", strerror(errno));
            c->fatal = true;
            return -1;
        }
        c->pos = 0;
        c->len = (size_t)n;
        if (n == 0) c->eof = true;
        return n > 0;
    }
}

/* ---- delimiter detection ---------------------------------------------------
 * Counts each candidate outside quotes on up to 20 complete lines of the first
 * block. A candidate found the same number of times (> 0) on every line wins,
 * the highest count first; otherwise the one most frequent on the first line;
 * ties go to the earlier of , ; TAB |. */
static char detect_delimiter(const unsigned char *p, size_t n, bool whole)
{
    static const char cand[4] = {',', ';', '\t', '|'};
    size_t first[4] = {0}, cur[4] = {0};
    bool consistent[4] = {true, true, true, true};
    size_t lines = 0;
    bool quoted = false;
    for (size_t i = 0; i < n && lines < 20; i++) {
        unsigned char ch = p[i];
        if (ch == '"') {
            quoted = !quoted;
        } else if (!quoted && (ch == '\n' || ch == '\r' || (i + 1 == n && whole))) {
            if (ch != '\n' && ch != '\r') /* last byte of a file without final newline */
                for (int k = 0; k < 4; k++) cur[k] += ch == (unsigned char)cand[k];
            if (ch == '\r' && i + 1 < n && p[i + 1] == '\n') i++;
            bool blank = true; /* no candidate at all: a blank or one-field line */
            for (int k = 0; k < 4; k++) blank &= cur[k] == 0;
            if (lines == 0 && blank) continue; /* leading blank lines */
            if (lines == 0) {
                memcpy(first, cur, sizeof first);
            } else if (!blank) {
                for (int k = 0; k < 4; k++) consistent[k] &= cur[k] == first[k];
            }
            lines++;
            memset(cur, 0, sizeof cur);
        } else if (!quoted) {
            for (int k = 0; k < 4; k++) cur[k] += ch == (unsigned char)cand[k];
        }
    }
    if (lines == 0) memcpy(first, cur, sizeof first); /* one partial line */
    int best = -1;
    for (int k = 0; k < 4; k++)
        if (consistent[k] && first[k] > 0 && (best < 0 || first[k] > first[best])) best = k;
    if (best < 0)
        for (int k = 0; k < 4; k++)
            if (first[k] > 0 && (best < 0 || first[k] > first[best])) best = k;
    return best < 0 ? ',' : cand[best];
}

/* ---- opening ---------------------------------------------------------------*/
static fo_status finish_open(fo_csv *c, char delimiter, fo_diags *d)
{
    if (refill(c, d) < 0) return FO_ERR_IO;
    if (c->len - c->pos >= 3 && memcmp(c->buf + c->pos, "\xEF\xBB\xBF", 3) == 0) c->pos += 3;
    if (delimiter == 0)
        delimiter = detect_delimiter(c->buf + c->pos, c->len - c->pos, c->fd < 0 || c->len < BLOCK_SIZE);
    if (delimiter == '"' || delimiter == '\n' || delimiter == '\r' || delimiter == '\0') {
        fo_diags_add(d, c->display, 0, 0, NULL, "use , ; TAB or |",
                     "invalid CSV delimiter 0x%02x", (unsigned char)delimiter);
        return FO_ERR_INPUT;
    }
    c->delim = delimiter;
    c->cls[(unsigned char)delimiter] |= C_UNQ;
    c->cls['\n'] |= C_UNQ | C_QUO;
    c->cls['\r'] |= C_UNQ | C_QUO;
    c->cls['\0'] |= C_UNQ | C_QUO;
    c->cls['"'] |= C_QUO;
    return FO_OK;
}

/* off, flen and fields: one entry per field of the record, room for need. */
static bool grow_fields(fo_csv *c, size_t need)
{
    return fo_grow_all(&c->fcap, need, 16, 3,
                       (void **const[]){(void **)&c->off, (void **)&c->flen, (void **)&c->fields},
                       (size_t[]){sizeof *c->off, sizeof *c->flen, sizeof *c->fields});
}

static fo_csv *csv_new(const char *display)
{
    fo_csv *c = fo_calloc(1, sizeof *c);
    if (!c) return NULL;
    c->fd = -1;
    c->line = 1;
    c->display = fo_strdup(display);
    if (!c->display || !fo_grow((void **)&c->rec, &c->rec_cap, 1, 4096, 1) || !grow_fields(c, 16)) {
        fo_csv_close(c);
        return NULL;
    }
    return c;
}

fo_status fo_csv_open_named(const char *path, const char *display, char delimiter,
                            fo_csv **out, fo_diags *d)
{
    *out = NULL;
    fo_csv *c = csv_new(display ? display : path);
    if (!c) return FO_ERR_NOMEM;
    c->block = fo_malloc(BLOCK_SIZE);
    if (!c->block) {
        fo_csv_close(c);
        return FO_ERR_NOMEM;
    }
    c->buf = c->block;
    c->fd = open(path, O_RDONLY | O_CLOEXEC);
    if (c->fd < 0) {
        int e = errno;
        fo_diags_add(d, c->display, 0, 0, NULL, e == ENOENT ? "check the path; it is relative to the spec's folder" : NULL,
                     "cannot open CSV file: %s", strerror(e));
        fo_csv_close(c);
        return e == ENOENT || e == EACCES || e == EISDIR ? FO_ERR_INPUT : FO_ERR_IO;
    }
    fo_status st = finish_open(c, delimiter, d);
    if (st != FO_OK) {
        fo_csv_close(c);
        return st;
    }
    *out = c;
    return FO_OK;
}

fo_status fo_csv_open(const char *path, char delimiter, fo_csv **out, fo_diags *d)
{
    return fo_csv_open_named(path, NULL, delimiter, out, d);
}

fo_status fo_csv_open_mem(const char *buf, size_t len, const char *display,
                          char delimiter, fo_csv **out, fo_diags *d)
{
    *out = NULL;
    fo_csv *c = csv_new(display ? display : "<memory>");
    if (!c) return FO_ERR_NOMEM;
    c->buf = (const unsigned char *)buf;
    c->len = buf ? len : 0;
    fo_status st = finish_open(c, delimiter, d);
    if (st != FO_OK) {
        fo_csv_close(c);
        return st;
    }
    *out = c;
    return FO_OK;
}

void fo_csv_close(fo_csv *c)
{
    if (!c) return;
    if (c->fd >= 0) close(c->fd);
    fo_free(c->display);
    fo_free(c->block);
    fo_free(c->rec);
    fo_free(c->off);
    fo_free(c->flen);
    fo_free(c->fields);
    fo_free(c);
}

char fo_csv_delimiter(const fo_csv *c) { return c->delim; }
size_t fo_csv_line(const fo_csv *c) { return c->rec_line; }

/* ---- records ---------------------------------------------------------------*/
/* Word-at-a-time search (SWAR): has_zero(v) has the high bit set in each
 * byte of v that is zero (exact for the lowest such byte, which is all we use). */
#define ONES 0x0101010101010101ULL
#define HIGHS 0x8080808080808080ULL
static inline uint64_t has_zero(uint64_t v) { return (v - ONES) & ~v & HIGHS; }

/* First byte in [p, end) whose class has bit stop (the bytes w1..w3 repeat,
 * plus NUL); ORs the bytes before it into *hi. */
static inline const unsigned char *scan_run(const unsigned char *p, const unsigned char *end,
                                            const unsigned char *cls, unsigned stop,
                                            uint64_t w1, uint64_t w2, uint64_t w3,
                                            unsigned char *hi)
{
    uint64_t acc = 0;
    while (end - p >= 8) {
        uint64_t x;
        memcpy(&x, p, 8);
        if (has_zero(x) | has_zero(x ^ w1) | has_zero(x ^ w2) | has_zero(x ^ w3)) break;
        acc |= x;
        p += 8;
    }
    unsigned char h = (acc & HIGHS) ? 0x80 : 0;
    while (p < end && !(cls[*p] & stop)) h |= *p++;
    *hi |= h;
    return p;
}

/* Per-record parse state (kept out of fo_csv: it never outlives a call). */
typedef struct {
    int state;
    bool err;           /* an error was reported in this record */
    bool any;           /* a byte of this record was consumed */
    size_t field_start; /* offset in rec of the current field */
    size_t field_line;  /* line where the current quoted field opened */
    unsigned char hi;   /* OR of the current field's bytes (bit 7: non-ASCII) */
} rec_state;

/* Reading cannot go on: reported at the record, every later call fails. */
static bool out_of_memory(fo_csv *c, fo_diags *d)
{
    fo_diags_add(d, c->display, (int)c->rec_line, 0, NULL, NULL, "out of memory");
    c->fatal = true;
    return false;
}

/* Makes room for n more bytes in rec. */
static bool reserve(fo_csv *c, size_t n, fo_diags *d)
{
    /* n is at most a block: rec_len + n does not wrap */
    return fo_grow((void **)&c->rec, &c->rec_cap, c->rec_len + n, 4096, 1) || out_of_memory(c, d);
}

/* Reports the first problem of a record (later ones would be noise). */
static void record_error(fo_csv *c, rec_state *rs, fo_diags *d, size_t line, const char *what,
                         const char *hint)
{
    if (!rs->err)
        fo_diags_add(d, c->display, (int)line, (int)c->nf + 1, NULL, hint, "%s in column %zu",
                     what, c->nf + 1);
    rs->err = true;
}

/* Closes the current field, the careful way: checks its UTF-8, grows the
 * field arrays, NUL-terminates it. read_record inlines the common case. */
static bool end_field(fo_csv *c, rec_state *rs, fo_diags *d)
{
    size_t n = c->rec_len - rs->field_start;
    if (rs->hi & 0x80) {
        const unsigned char *f = (const unsigned char *)c->rec + rs->field_start;
        size_t bad = fo_utf8_invalid_at((const char *)f, n);
        if (bad < n) {
            size_t line = c->rec_line;
            for (size_t i = 0; i < rs->field_start + bad; i++) {
                unsigned char ch = (unsigned char)c->rec[i];
                if (ch == '\n' || (ch == '\r' && (i + 1 >= c->rec_len || c->rec[i + 1] != '\n'))) line++;
            }
            char what[64];
            snprintf(what, sizeof what, "invalid UTF-8 (byte 0x%02X)", f[bad]);
            record_error(c, rs, d, line, what, "save the file as UTF-8");
        }
    }
    rs->hi = 0;
    if (c->nf == FO_CSV_MAX_FIELDS) {
        if (!rs->err)
            fo_diags_add(d, c->display, (int)c->rec_line, 0, NULL, NULL,
                         "record has more than %zu fields", FO_CSV_MAX_FIELDS);
        rs->err = true;
        c->rec_len = rs->field_start; /* drop the field, keep parsing the record */
        return true;
    }
    if (!grow_fields(c, c->nf + 1)) return out_of_memory(c, d);
    if (!reserve(c, 1, d)) return false;
    c->rec[c->rec_len++] = '\0';
    c->off[c->nf] = rs->field_start;
    c->flen[c->nf] = n;
    c->nf++;
    rs->field_start = c->rec_len;
    return true;
}

/* Reads one record into rec: 1 = record, 0 = end of file, -1 = error.
 * Input is taken in windows of at most BLOCK_SIZE bytes; rec is first grown
 * so that the whole window fits (each input byte adds at most one byte, and
 * each field end consumes a byte for the NUL it adds), so the inner loop
 * writes through w without checks. */
static int read_record(fo_csv *c, fo_diags *d)
{
    rec_state rs = {ST_START, false, false, 0, 0, 0};
    const unsigned char *cls = c->cls;
    const unsigned char delim = (unsigned char)c->delim;
    const uint64_t w_delim = ONES * delim;
    const unsigned char *p, *end, *q;
    char *w;
    bool done = false;
    c->rec_len = 0;
    c->nf = 0;

#define SYNC() (c->rec_len = (size_t)(w - c->rec), c->pos = (size_t)(p - c->buf))
#define END_FIELD()                                                              \
    do {                                                                         \
        if ((rs.hi & 0x80) || c->nf == c->fcap) {                                \
            SYNC();                                                              \
            if (!end_field(c, &rs, d)) return -1;                                \
            w = c->rec + c->rec_len;                                             \
        } else {                                                                 \
            *w++ = '\0';                                                         \
            c->off[c->nf] = rs.field_start;                                      \
            c->flen[c->nf] = (size_t)(w - c->rec) - 1 - rs.field_start;          \
            c->nf++;                                                             \
            rs.field_start = (size_t)(w - c->rec);                               \
        }                                                                        \
    } while (0)
#define TAKE_NEWLINE(ch)                                                         \
    do {                                                                         \
        p++;                                                                     \
        c->line++;                                                               \
        if ((ch) == '\r') {                                                      \
            if (p < end) {                                                       \
                if (*p == '\n') p++;                                             \
            } else {                                                             \
                c->after_cr = true;                                              \
            }                                                                    \
        }                                                                        \
    } while (0)
/* ch, the delimiter or a line end, ends the field; a line end the record too. */
#define END_AT(ch)                                                               \
    do {                                                                         \
        if ((ch) == delim) {                                                     \
            p++;                                                                 \
            rs.state = ST_START;                                                 \
            END_FIELD();                                                         \
        } else {                                                                 \
            END_FIELD();                                                         \
            TAKE_NEWLINE(ch);                                                    \
            done = true;                                                         \
        }                                                                        \
    } while (0)

    while (!done) {
        int r = refill(c, d);
        if (r < 0) return -1;
        if (r == 0) break;
        if (c->rec_len > FO_CSV_MAX_RECORD) {
            fo_diags_add(d, c->display, (int)c->rec_line, 0, NULL, NULL,
                         "record longer than %zu MiB", FO_CSV_MAX_RECORD >> 20);
            c->fatal = true;
            return -1;
        }
        size_t avail = c->len - c->pos;
        if (avail > BLOCK_SIZE) avail = BLOCK_SIZE;
        if (!reserve(c, avail + 2, d)) return -1;
        p = c->buf + c->pos;
        end = p + avail;
        w = c->rec + c->rec_len;
        if (c->after_cr) {
            c->after_cr = false;
            if (*p == '\n') { /* the LF of a CRLF split across windows */
                if (rs.state == ST_QUOTED) *w++ = '\n';
                p++;
            }
        }
        while (p < end && !done) {
            unsigned char ch = *p;
            switch (rs.state) {
            case ST_START:
                if (!rs.any) {
                    if (ch == '\n' || ch == '\r') { /* blank line: skipped */
                        TAKE_NEWLINE(ch);
                        continue;
                    }
                    rs.any = true;
                    c->rec_line = c->line;
                }
                if (ch == delim) {
                    p++;
                    END_FIELD();
                } else if (ch == '\n' || ch == '\r') {
                    END_FIELD();
                    TAKE_NEWLINE(ch);
                    done = true;
                } else if (ch == '"') {
                    p++;
                    rs.state = ST_QUOTED;
                    rs.field_line = c->line;
                } else {
                    rs.state = ST_UNQ;
                }
                break;
            case ST_UNQ:
                q = scan_run(p, end, cls, C_UNQ, w_delim, ONES * '\n', ONES * '\r', &rs.hi);
                memcpy(w, p, (size_t)(q - p));
                w += q - p;
                p = q;
                if (p == end) break;
                ch = *p;
                if (ch == delim || ch == '\n' || ch == '\r') {
                    END_AT(ch);
                } else { /* NUL */
                    p++;
                    record_error(c, &rs, d, c->line, "NUL byte", "is this a binary or UTF-16 file?");
                }
                break;
            case ST_QUOTED:
                q = scan_run(p, end, cls, C_QUO, ONES * '"', ONES * '\n', ONES * '\r', &rs.hi);
                memcpy(w, p, (size_t)(q - p));
                w += q - p;
                p = q;
                if (p == end) break;
                ch = *p;
                if (ch == '"') {
                    p++;
                    rs.state = ST_QQ;
                } else if (ch == '\n' || ch == '\r') { /* kept verbatim */
                    *w++ = (char)ch;
                    if (ch == '\r' && p + 1 < end && p[1] == '\n') *w++ = '\n';
                    TAKE_NEWLINE(ch);
                } else {
                    p++;
                    record_error(c, &rs, d, c->line, "NUL byte", "is this a binary or UTF-16 file?");
                }
                break;
            default: /* ST_QQ: just after a closing quote */
                if (ch == '"') { /* "" escape */
                    *w++ = '"';
                    p++;
                    rs.state = ST_QUOTED;
                } else if (ch == delim || ch == '\n' || ch == '\r') {
                    END_AT(ch);
                } else { /* text after the closing quote: kept */
                    rs.state = ST_UNQ;
                }
                break;
            }
        }
        SYNC();
    }
#undef SYNC
#undef END_FIELD
#undef TAKE_NEWLINE
#undef END_AT

    if (!done) { /* end of file */
        if (rs.state == ST_QUOTED) {
            fo_diags_add(d, c->display, (int)rs.field_line, (int)c->nf + 1, NULL,
                         "close the field with a \" or write a quote inside it as \"\"",
                         "unterminated quoted field in column %zu (opened at line %zu)",
                         c->nf + 1, rs.field_line);
            c->fatal = true;
            return -1;
        }
        if (!rs.any) return 0;
        if (!end_field(c, &rs, d)) return -1;
    }
    for (size_t i = 0; i < c->nf; i++) c->fields[i] = c->rec + c->off[i];
    return rs.err ? -1 : 1;
}

int fo_csv_next(fo_csv *c, const char *const **fields, const size_t **lens,
                size_t *nfields, fo_diags *d)
{
    if (c->fatal) return -1;
    int r = read_record(c, d);
    if (r <= 0) {
        *nfields = 0;
        return r;
    }
    *fields = c->fields;
    *lens = c->flen;
    *nfields = c->nf;
    return 1;
}

/* ---- private helpers shared with rows.c ------------------------------------*/
bool fo_csv__fatal(const fo_csv *c) { return c->fatal; }

const char *fo_csv__display(const fo_dataset *ds)
{
    return ds->csv_display ? ds->csv_display : ds->csv_path;
}

bool fo_csv__check_width(const fo_csv *c, const char *display, const size_t *lens,
                         size_t nfields, size_t ncols, fo_diags *d)
{
    size_t last = nfields;
    while (last > ncols && lens[last - 1] == 0) last--;
    if (last <= ncols) return true;
    fo_diags_add(d, display, (int)c->rec_line, (int)ncols + 1, NULL,
                 "quote fields that contain the delimiter",
                 "record has %zu fields but the header has %zu", last, ncols);
    return false;
}

fo_status fo_csv__open_dataset(const fo_dataset *ds, fo_csv **out, fo_diags *d)
{
    fo_csv *c;
    fo_status st = fo_csv_open_named(ds->csv_path, fo_csv__display(ds), ds->delimiter, &c, d);
    if (st != FO_OK) return st;
    if (ds->header) {
        const char *const *f;
        const size_t *l;
        size_t n;
        if (fo_csv_next(c, &f, &l, &n, d) < 0) {
            fo_csv_close(c);
            return FO_ERR_INPUT;
        }
    }
    *out = c;
    return FO_OK;
}

/* ---- fo_csv_scan -------------------------------------------------------------*/
/* A set of column names (open addressing, sized for every name we may add),
 * used to make header names unique in O(n). */
typedef struct {
    const char **slot;
    size_t mask;
} name_set;

static size_t name_hash(const char *s)
{
    size_t h = 14695981039346656037ULL & (size_t)-1;
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 1099511628211ULL;
    return h;
}

/* Index of s's slot: either holding s or empty. */
static size_t name_find(const name_set *ns, const char *s)
{
    size_t i = name_hash(s) & ns->mask;
    while (ns->slot[i] && strcmp(ns->slot[i], s) != 0) i = (i + 1) & ns->mask;
    return i;
}

/* Final column names: the header's (or empty), made unique. A non-empty name
 * is kept by its first column; empty names become "column N"; repeats get
 * " (2)", " (3)".. — never a name another column already has. */
static fo_status unique_names(char **names, size_t n, fo_arena *a)
{
    name_set ns;
    size_t cap = n <= SIZE_MAX / 4 ? fo_grow_cap(0, 4 * n, 16, sizeof *ns.slot) : 0;
    ns.slot = cap ? fo_calloc(cap, sizeof *ns.slot) : NULL;
    if (!ns.slot) return FO_ERR_NOMEM;
    ns.mask = cap - 1;
    bool *keep = fo_calloc(n, sizeof *keep);
    if (!keep) {
        fo_free(ns.slot);
        return FO_ERR_NOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (!names[i] || !names[i][0]) continue;
        size_t k = name_find(&ns, names[i]);
        if (!ns.slot[k]) {
            ns.slot[k] = names[i];
            keep[i] = true;
        }
    }
    fo_status st = FO_OK;
    for (size_t i = 0; i < n && st == FO_OK; i++) {
        if (keep[i]) continue;
        char base[64];
        const char *b = names[i] && names[i][0] ? names[i] : base;
        snprintf(base, sizeof base, "column %zu", i + 1);
        size_t blen = strlen(b);
        char *cand = fo_malloc(blen + 32);
        if (!cand) {
            st = FO_ERR_NOMEM;
            break;
        }
        memcpy(cand, b, blen + 1);
        for (unsigned long k = 2; ns.slot[name_find(&ns, cand)]; k++) snprintf(cand + blen, 32, " (%lu)", k);
        names[i] = fo_arena_strdup(a, cand);
        fo_free(cand);
        if (!names[i]) {
            st = FO_ERR_NOMEM;
            break;
        }
        ns.slot[name_find(&ns, names[i])] = names[i];
    }
    fo_free(keep);
    fo_free(ns.slot);
    return st;
}

/* Grows the per-column accumulators to n columns (new ones empty). */
static bool grow_infer(fo_infer **inf, size_t *cap, size_t *have, size_t n)
{
    if (!fo_grow((void **)inf, cap, n, 16, sizeof **inf)) return false;
    for (; *have < n; (*have)++) fo_infer_init(&(*inf)[*have]);
    return true;
}

/* What the hints say about a column: several may name it (a spec's "types"
 * and "columns"); the first type and the first format given win. */
static void find_hint(const fo_column *hints, size_t nhints, const char *name,
                      fo_type *type, const char **format)
{
    *type = FO_TYPE_AUTO;
    *format = NULL;
    for (size_t i = 0; i < nhints; i++) {
        if (!hints[i].name || strcmp(hints[i].name, name) != 0) continue;
        if (*type == FO_TYPE_AUTO) *type = hints[i].type;
        if (!*format) *format = hints[i].format;
    }
}

fo_status fo_csv_scan(fo_dataset *ds, fo_arena *a, const fo_column *hints, size_t nhints,
                      fo_diags *d)
{
    return fo_csv_scan_n(ds, a, hints, nhints, NULL, d, NULL);
}

/* After an error: the header's names, untyped (FO_TYPE_AUTO), so a spec
 * can still check the fields it names (every problem at once). */
static void keep_names(fo_dataset *ds, fo_arena *a, char **names, size_t ncols)
{
    if (unique_names(names, ncols, a) != FO_OK) return;
    ds->cols = fo_arena_alloc(a, ncols * sizeof *ds->cols);
    if (!ds->cols) return;
    for (size_t j = 0; j < ncols; j++) {
        ds->cols[j].name = names[j];
        ds->cols[j].format = (char *)"General";
    }
    ds->ncols = ncols;
}

/* Declares column j's hint (type, notation) to its accumulator. */
static void declare(fo_infer *in, const fo_column *hints, size_t nhints, const char *name,
                    const fo_notation *dflt)
{
    fo_type t;
    const char *f;
    find_hint(hints, nhints, name, &t, &f);
    in->declared = t;
    in->nt = dflt ? *dflt : FO_NOTATION_DEFAULT;
    for (size_t i = 0; i < nhints; i++) {
        if (!hints[i].name || strcmp(hints[i].name, name) != 0) continue;
        if (hints[i].decimal) in->nt.decimal = hints[i].decimal;
        if (hints[i].dates) in->nt.dates = hints[i].dates;
    }
}

/* The format of a column declared ht whose cells looked like t: what the
 * cells show (symbol, decimals, date notation) when they are of that kind. */
static void declared_format(const fo_infer *in, fo_type ht, fo_type t, char *fmt, size_t cap)
{
    bool like = ht == t || (ht == FO_TYPE_CURRENCY && (in->n_cur[0] || in->n_cur[1] || in->n_cur[2] || in->n_cur[3])) ||
                ((ht == FO_TYPE_DATE || ht == FO_TYPE_DATETIME) && in->n_slash);
    if (like) fo_infer_format(in, ht, fmt, cap);
    else snprintf(fmt, cap, "%s", fo_type_default_format(ht));
}

fo_status fo_csv_scan_n(fo_dataset *ds, fo_arena *a, const fo_column *hints, size_t nhints,
                        const fo_notation *nt, fo_diags *d, int *warnings)
{
    const char *display = fo_csv__display(ds);
    fo_csv *c = NULL;
    fo_infer *inf = NULL;
    size_t icap = 0, ncols = 0, nrows = 0, nerr = 0;
    char **names = NULL;
    fo_status st = fo_csv_open_named(ds->csv_path, display, ds->delimiter, &c, d);
    if (st != FO_OK) return st;
    if (!ds->delimiter) ds->delimiter = fo_csv_delimiter(c);

    const char *const *f;
    const size_t *l;
    size_t nf;
    bool first = true;
    for (;;) {
        int r = fo_csv_next(c, &f, &l, &nf, d);
        if (r == 0) break;
        if (r < 0) {
            if (fo_csv__fatal(c) || ++nerr >= SCAN_MAX_ERRORS) break;
            if (first && ds->header) break; /* no names to go on */
            first = false;
            continue;
        }
        if (first && ds->header) {
            first = false;
            ncols = nf;
            names = fo_arena_alloc(a, nf * sizeof *names);
            if (!names || !grow_infer(&inf, &icap, &(size_t){0}, nf)) goto nomem;
            for (size_t j = 0; j < nf; j++) {
                if (!(names[j] = fo_arena_strndup(a, f[j], l[j]))) goto nomem;
                declare(&inf[j], hints, nhints, names[j], nt);
            }
            continue;
        }
        first = false;
        if (ds->header) {
            if (!fo_csv__check_width(c, display, l, nf, ncols, d)) {
                if (++nerr >= SCAN_MAX_ERRORS) break;
                continue;
            }
            if (nf > ncols) nf = ncols;
        } else if (nf > ncols) {
            size_t was = ncols;
            if (!grow_infer(&inf, &icap, &ncols, nf)) goto nomem;
            for (size_t j = was; j < ncols; j++) declare(&inf[j], NULL, 0, "", nt);
        }
        for (size_t j = 0; j < nf; j++)
            if (l[j]) fo_infer_add(&inf[j], f[j], l[j]);
        nrows++;
    }
    if (first && nerr == 0 && !fo_csv__fatal(c)) {
        fo_diags_add(d, display, 0, 0, NULL, NULL, "the CSV file is empty");
        nerr++;
    }
    if (nerr || fo_csv__fatal(c)) {
        st = FO_ERR_INPUT;
        if (names && ncols) keep_names(ds, a, names, ncols);
        goto done;
    }
    if (!names) {
        names = fo_arena_alloc(a, ncols * sizeof *names);
        if (!names) goto nomem;
    }
    if ((st = unique_names(names, ncols, a)) != FO_OK) goto done;

    ds->cols = fo_arena_alloc(a, ncols * sizeof *ds->cols);
    if (!ds->cols) goto nomem;
    for (size_t j = 0; j < ncols; j++) {
        fo_column *col = &ds->cols[j];
        fo_type ht;
        const char *hf;
        find_hint(hints, nhints, names[j], &ht, &hf);
        char fmt[128];
        fo_type t = fo_infer_result(&inf[j], fmt, sizeof fmt);
        col->name = names[j];
        col->type = t;
        col->inferred = ht == FO_TYPE_AUTO;
        if (ht != FO_TYPE_AUTO) {
            col->type = ht;
            declared_format(&inf[j], ht, t, fmt, sizeof fmt);
        }
        col->format = fo_arena_strdup(a, hf ? hf : fmt);
        if (!col->format) goto nomem;
        col->decimal = inf[j].nt.decimal;
        col->dates = fo_infer_date_order(&inf[j], NULL);
    }
    ds->ncols = ncols;
    ds->nrows = nrows;
    st = ds->header ? fo_csv__check_cells(ds, inf, d, warnings) : FO_OK;
    goto done;
nomem:
    st = FO_ERR_NOMEM;
done:
    fo_free(inf);
    fo_csv_close(c);
    return st;
}
