/* fuzz_csv.c — libFuzzer target for the CSV reader, fo_csv_scan and fo_rows.
 *
 * Input: one control byte (delimiter choice, header flag), then the CSV bytes.
 * The reader runs from memory; scan and rows read the same bytes through a
 * memfd. Checked invariants: every field is NUL-terminated at its length and
 * holds no NUL; a clean scan is followed by exactly ds.nrows rows; passes
 * through a fo_rows_keep (the first stopped early) hand out the same values
 * and source lines as a plain pass. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "formats/csv.h"
#include "formats/infer.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size);

static void read_all(const char *buf, size_t len, char delim)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_csv *c;
    if (fo_csv_open_mem(buf, len, "fuzz.csv", delim, &c, &d) == FO_OK) {
        const char *const *f;
        const size_t *l;
        size_t nf;
        int r, guard = 0;
        while ((r = fo_csv_next(c, &f, &l, &nf, &d)) != 0) {
            if (r < 0) {
                if (fo_csv__fatal(c) || ++guard > 100000) break;
                continue;
            }
            for (size_t i = 0; i < nf; i++) {
                if (f[i][l[i]] != '\0' || memchr(f[i], 0, l[i])) abort();
                fo_value v;
                char fmt[64];
                fo_infer_cell(f[i], l[i], &v, fmt, sizeof fmt);
            }
        }
        fo_csv_close(c);
    }
    fo_diags_free(&d);
}

/* A digest of one pass (through keep, or plain when NULL) of at most stop
 * rows: values and source lines folded into a hash. */
static unsigned long long pass_digest(const fo_dataset *ds, fo_rows_keep *keep, size_t stop, size_t *n)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_rows *r;
    unsigned long long h = 1469598103934665603ULL;
    *n = 0;
    if (fo_rows_open_kept(ds, keep, &r, &d) != FO_OK) abort();
    const fo_value *row;
    int rc = 1;
#define MIX(x) (h = (h ^ (unsigned long long)(x)) * 1099511628211ULL)
    while (*n < stop && (rc = fo_rows_next(r, &row, &d)) == 1) {
        (*n)++;
        MIX(fo_rows_line(r));
        for (size_t j = 0; j < ds->ncols; j++) {
            unsigned long long bits;
            memcpy(&bits, &row[j].num, sizeof bits);
            MIX(row[j].kind);
            MIX(bits);
            for (const char *t = row[j].str; t && *t; t++) MIX((unsigned char)*t);
            for (const char *t = row[j].label; t && *t; t++) MIX((unsigned char)*t);
        }
    }
#undef MIX
    if (rc < 0) abort();
    fo_rows_close(r);
    fo_diags_free(&d);
    return h;
}

static void kept_passes(const fo_dataset *ds)
{
    size_t n, m;
    unsigned long long plain = pass_digest(ds, NULL, SIZE_MAX, &n);
    fo_rows_keep *keep = fo_rows_keep_new(ds);
    if (!keep) abort();
    pass_digest(ds, keep, n / 2, &m);
    for (int i = 0; i < 3; i++)
        if (pass_digest(ds, keep, SIZE_MAX, &m) != plain || m != n) abort();
    fo_rows_keep_free(keep);
}

static void scan_and_rows(const char *buf, size_t len, char delim, bool header)
{
    int fd = memfd_create("fuzz_csv", 0);
    if (fd < 0) return;
    if (write(fd, buf, len) != (ssize_t)len) {
        close(fd);
        return;
    }
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    char display[] = "fuzz.csv";
    fo_dataset ds = {.src = FO_SRC_CSV, .stream = &fo_csv_stream, .csv_path = path, .csv_display = display,
                     .delimiter = delim, .header = header};
    if (fo_csv_scan(&ds, a, NULL, 0, &d) == FO_OK) {
        for (size_t i = 0; i < d.n; i++)   /* a scan that succeeds says at most warnings */
            if (strncmp(d.items[i].message, "warning: ", 9) != 0) abort();
        fo_rows *r;
        if (fo_rows_open(&ds, &r, &d) == FO_OK) {
            const fo_value *row;
            size_t n = 0;
            int rc;
            while ((rc = fo_rows_next(r, &row, &d)) == 1) {
                for (size_t j = 0; j < ds.ncols; j++)
                    if (row[j].kind == FO_VAL_TEXT && !row[j].str) abort();
                n++;
            }
            if (rc != 0 || n != ds.nrows) abort();
            fo_rows_close(r);
            kept_passes(&ds);
        }
    }
    fo_diags_free(&d);
    fo_arena_free(a);
    close(fd);
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
    if (size < 1) return 0;
    static const char delims[4] = {0, ',', ';', '\t'};
    char delim = delims[data[0] & 3];
    bool header = !(data[0] & 4);
    const char *buf = (const char *)data + 1;
    read_all(buf, size - 1, delim);
    scan_and_rows(buf, size - 1, delim, header);
    return 0;
}
