/* t_lxw_tmp.c — libxlsxwriter's temp files in memory (cli/lxw_tmp.c): the
 * stream does what the library does with a temp file (write, fprintf,
 * fflush, rewind, ftell, fseek, fread back; a hole reads as zeros), a file
 * that outgrows the memory budget moves to a real unlinked file in tmpdir
 * and reads back whole, and workbooks written through it -- a small one and
 * a constant_memory one past the budget -- are byte for byte the ones the
 * library's own temp files give (FOLIO_LXW_TMPFILE=disk). */
#include "tests/check_run.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <xlsxwriter.h>

static char tmpdir[] = "/tmp/t_lxw_tmp.XXXXXX";

/* Open descriptors of this process on a file in tmpdir (a real temp file;
 * unlinked, its link reads "tmpdir/name (deleted)"). */
static int real_tmpfiles(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    ck_assert_ptr_nonnull(d);
    for (struct dirent *e; (e = readdir(d));) {
        char p[300], t[4096];
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        ssize_t k = readlink(p, t, sizeof t - 1);
        if (k <= 0) continue;
        t[k] = 0;
        if (strncmp(t, tmpdir, strlen(tmpdir)) == 0 && t[strlen(tmpdir)] == '/') n++;
    }
    closedir(d);
    return n;
}

START_TEST(stream_contract)
{
    int before = real_tmpfiles();
    FILE *f = lxw_tmpfile(tmpdir);
    ck_assert_ptr_nonnull(f);
    ck_assert_int_eq(real_tmpfiles(), before); /* in memory: no file */
    fprintf(f, "<row r=\"%d\">", 7);
    ck_assert_uint_eq(fwrite("abc", 1, 3, f), 3);
    ck_assert_int_eq(ftell(f), 14);
    ck_assert_int_eq(fflush(f), 0);
    rewind(f);
    char b[64] = {0};
    ck_assert_uint_eq(fread(b, 1, sizeof b, f), 14);
    ck_assert_str_eq(b, "<row r=\"7\">abc");
    ck_assert(feof(f));
    /* past the end, then write: the gap reads as zeros */
    ck_assert_int_eq(fseek(f, 20, SEEK_SET), 0);
    ck_assert_uint_eq(fwrite("z", 1, 1, f), 1);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    ck_assert_int_eq(ftell(f), 21);
    ck_assert_int_eq(fseek(f, -8, SEEK_CUR), 0);
    memset(b, 'x', sizeof b);
    ck_assert_uint_eq(fread(b, 1, sizeof b, f), 8);
    ck_assert_int_eq(b[0], 'c');
    for (int i = 1; i < 7; i++) ck_assert_int_eq(b[i], 0);
    ck_assert_int_eq(b[7], 'z');
    ck_assert_int_ne(fseek(f, -100, SEEK_SET), 0); /* before the start: refused */
    ck_assert_int_eq(fclose(f), 0);
}
END_TEST

START_TEST(spills_past_the_budget)
{
    int before = real_tmpfiles();
    FILE *f = lxw_tmpfile(tmpdir);
    ck_assert_ptr_nonnull(f);
    static char chunk[1 << 16];
    size_t total = (size_t)40 << 20; /* past the 16 MiB budget */
    size_t short_writes = 0;
    for (size_t off = 0; off < total; off += sizeof chunk) {
        for (size_t i = 0; i < sizeof chunk; i += 8)
            snprintf(chunk + i, 9, "%07zx", (off + i) / 8 % 0xfffffff);
        short_writes += fwrite(chunk, 1, sizeof chunk, f) != sizeof chunk;
    }
    ck_assert_uint_eq(short_writes, 0);
    ck_assert_int_eq(real_tmpfiles(), before + 1); /* moved to a real file... */
    DIR *d = opendir(tmpdir);
    int names = 0;
    for (struct dirent *e; (e = readdir(d));) names += e->d_name[0] != '.';
    closedir(d);
    ck_assert_int_eq(names, 0); /* ...already unlinked, in tmpdir */
    ck_assert_int_eq(fflush(f), 0);
    ck_assert_int_eq(ftell(f), (long)total);
    rewind(f);
    size_t got = 0, n, wrong = 0;
    while ((n = fread(chunk, 1, sizeof chunk, f)) > 0) {
        for (size_t i = 0; i < n; i += 8) {
            char want[9];
            snprintf(want, sizeof want, "%07zx", (got + i) / 8 % 0xfffffff);
            wrong += memcmp(chunk + i, want, 8) != 0;
        }
        got += n;
    }
    ck_assert_uint_eq(got, total);
    ck_assert_uint_eq(wrong, 0);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(real_tmpfiles(), before);
}
END_TEST

/* Writes a workbook of rows rows to path, constant_memory or not; with
   spilled >= 0, checks that many real temp files are open once the rows are
   written (the constant_memory row file past the budget: 1). */
static void workbook(const char *path, int rows, int constant_memory, int spilled)
{
    lxw_workbook_options o = {.constant_memory = (uint8_t)constant_memory, .tmpdir = tmpdir};
    lxw_workbook *wb = workbook_new_opt(path, &o);
    ck_assert_ptr_nonnull(wb);
    lxw_worksheet *ws = workbook_add_worksheet(wb, "Data");
    lxw_format *bold = workbook_add_format(wb);
    format_set_bold(bold);
    worksheet_write_string(ws, 0, 0, "name", bold);
    worksheet_write_string(ws, 0, 1, "value", bold);
    for (int r = 1; r <= rows; r++) {
        char s[32];
        snprintf(s, sizeof s, "row %d", r);
        worksheet_write_string(ws, (lxw_row_t)r, 0, s, NULL);
        worksheet_write_number(ws, (lxw_row_t)r, 1, r * 1.25, NULL);
    }
    if (spilled >= 0) ck_assert_int_eq(real_tmpfiles(), spilled);
    lxw_chart *c = workbook_add_chart(wb, LXW_CHART_COLUMN);
    chart_add_series(c, "=Data!$A$2:$A$6", "=Data!$B$2:$B$6");
    worksheet_insert_chart(workbook_add_worksheet(wb, "Chart"), 1, 1, c);
    workbook_set_custom_property_string(wb, "folio.run", "t_lxw_tmp");
    static char title[] = "t_lxw_tmp";
    lxw_doc_properties props = {.title = title, .created = 1700000000}; /* no clock in the bytes */
    workbook_set_properties(wb, &props);
    ck_assert_int_eq(workbook_close(wb), LXW_NO_ERROR);
}

/* The whole file at path, its size in *n (compared in one assertion: Check
 * logs a record for every assertion made). */
static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_ptr_nonnull(f);
    size_t cap = 1 << 20, len = 0, k;
    char *b = malloc(cap);
    while (b && (k = fread(b + len, 1, cap - len, f)) > 0)
        if ((len += k) == cap) b = realloc(b, cap *= 2);
    ck_assert_ptr_nonnull(b);
    fclose(f);
    *n = len;
    return b;
}

static void same_bytes(const char *a, const char *b)
{
    size_t na, nb;
    char *ba = slurp(a, &na), *bb = slurp(b, &nb);
    ck_assert_uint_gt(na, 1000);
    ck_assert_uint_eq(na, nb);
    ck_assert_msg(memcmp(ba, bb, na) == 0, "%s and %s differ", a, b);
    free(ba);
    free(bb);
}

static void both_ways(int rows, int constant_memory, int spilled)
{
    char mem[64], disk[64];
    snprintf(mem, sizeof mem, "/tmp/t_lxw_tmp_mem_%d.xlsx", (int)getpid());
    snprintf(disk, sizeof disk, "/tmp/t_lxw_tmp_disk_%d.xlsx", (int)getpid());
    unsetenv("FOLIO_LXW_TMPFILE");
    workbook(mem, rows, constant_memory, spilled);
    setenv("FOLIO_LXW_TMPFILE", "disk", 1);
    workbook(disk, rows, constant_memory, -1);
    unsetenv("FOLIO_LXW_TMPFILE");
    same_bytes(mem, disk);
    if (!getenv("T_LXW_KEEP")) {
        unlink(mem);
        unlink(disk);
    }
}

START_TEST(small_workbook_same_bytes) { both_ways(20, 0, 0); }
END_TEST

/* ~21 MiB of row XML: the constant_memory row file spills on the way */
START_TEST(big_constant_memory_workbook_same_bytes) { both_ways(200000, 1, 1); }
END_TEST

int main(void)
{
    if (!mkdtemp(tmpdir)) {
        perror("t_lxw_tmp: mkdtemp");
        return EXIT_FAILURE;
    }
    int r =
        fo_check_tests("lxw_tmp", 120,
                       (const TTest *[]){stream_contract, spills_past_the_budget, small_workbook_same_bytes,
                                         big_constant_memory_workbook_same_bytes, NULL});
    rmdir(tmpdir);
    return r;
}
