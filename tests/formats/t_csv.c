/* t_csv.c — the streaming CSV reader, fo_csv_scan and fo_rows over CSV and
 * inline datasets (formats/csv.h, render/core/model.h). */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "formats/csv.h"
#include "formats/infer.h"
#include "tests/check_run.h"

/* ---- helpers ----------------------------------------------------------------*/
static char tmp_paths[64][32];
static int ntmp;

/* Writes len bytes to a new file under /tmp; removed by cleanup(). */
static const char *tmp_file(const char *data, size_t len)
{
    char *p = tmp_paths[ntmp++ % 64];
    strcpy(p, "/tmp/t_csv_XXXXXX");
    int fd = mkstemp(p);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
    return p;
}

static void cleanup(void)
{
    for (int i = 0; i < ntmp && i < 64; i++) unlink(tmp_paths[i]);
    ntmp = 0;
}

static const char *diag_text(const fo_diags *d, size_t i)
{
    static char buf[2048];
    ck_assert_uint_gt(d->n, i);
    char *m = fo_diag_format(&d->items[i]);
    snprintf(buf, sizeof buf, "%s", m);
    fo_free(m);
    return buf;
}

/* Reads every record of a memory CSV into "a|b|c\n" lines ("!" marks an
 * error record, at the line fo_csv_line gives). */
static char *dump(const char *buf, size_t len, char delim, fo_diags *d)
{
    static char out[1 << 16];
    fo_csv *c;
    size_t n = 0;
    out[0] = '\0';
    if (fo_csv_open_mem(buf, len, "mem.csv", delim, &c, d) != FO_OK) return NULL;
    const char *const *f;
    const size_t *l;
    size_t nf;
    int r;
    while ((r = fo_csv_next(c, &f, &l, &nf, d)) != 0) {
        if (r < 0) {
            n += (size_t)snprintf(out + n, sizeof out - n, "!%zu\n", fo_csv_line(c));
            if (fo_csv__fatal(c)) break;
            continue;
        }
        for (size_t i = 0; i < nf; i++) {
            ck_assert_uint_eq(strlen(f[i]), l[i]);
            n += (size_t)snprintf(out + n, sizeof out - n, "%s%s", i ? "|" : "", f[i]);
        }
        n += (size_t)snprintf(out + n, sizeof out - n, "@%zu\n", fo_csv_line(c));
    }
    fo_csv_close(c);
    return out;
}

#define DUMP(lit, delim, expect)                                   \
    do {                                                           \
        fo_diags d_;                                               \
        fo_diags_init(&d_);                                        \
        char *o_ = dump(lit, sizeof(lit) - 1, delim, &d_);         \
        ck_assert_ptr_nonnull(o_);                                 \
        ck_assert_str_eq(o_, expect);                              \
        fo_diags_free(&d_);                                        \
    } while (0)

/* ---- the reader ---------------------------------------------------------------*/
START_TEST(rfc4180)
{
    DUMP("a,b,c\r\n1,\"x,y\",\"he said \"\"hi\"\"\"\r\n", ',',
         "a|b|c@1\n1|x,y|he said \"hi\"@2\n");
    DUMP("a,,c\n,,\n", ',', "a||c@1\n||@2\n");
    DUMP("\"\"\n\"\",x\n", ',', "@1\n|x@2\n");                       /* explicit empty field */
    DUMP("a,b", ',', "a|b@1\n");                                      /* no final newline */
    DUMP("a,b\n\n\nc,d\n\n", ',', "a|b@1\nc|d@4\n");                  /* blank lines skipped */
    DUMP("a\rb\rc", ',', "a@1\nb@2\nc@3\n");                          /* lone CR */
    DUMP("a\r\nb\r\n", ',', "a@1\nb@2\n");
    DUMP("a\"b,c\"\"d\n", ',', "a\"b|c\"\"d@1\n");                    /* quotes in unquoted fields */
    DUMP("\"ab\"c,d\n", ',', "abc|d@1\n");                            /* text after a closing quote */
    DUMP("\xEF\xBB\xBF" "id,name\n1,x\n", ',', "id|name@1\n1|x@2\n"); /* BOM */
    DUMP("", ',', "");
    DUMP("\xEF\xBB\xBF", ',', "");
    DUMP("\n\r\n", ',', "");
}
END_TEST

START_TEST(embedded_newlines)
{
    DUMP("h1,h2\n\"line1\nline2\",b\nc,d\n", ',', "h1|h2@1\nline1\nline2|b@2\nc|d@4\n");
    DUMP("\"x\r\ny\"\r\nz\r\n", ',', "x\r\ny@1\nz@3\n");
    DUMP("\"a\rb\"\rc", ',', "a\rb@1\nc@3\n");
}
END_TEST

START_TEST(delimiters)
{
    fo_diags d;
    fo_diags_init(&d);
    struct { const char *text; char expect; } cases[] = {
        {"a,b,c\n1,2,3\n", ','},
        {"a;b;c\n1;2,5;3\n", ';'},
        {"\"a,b\";c\n\"d,e\";f\n", ';'},   /* commas only inside quotes */
        {"a\tb\n1\t2\n", '\t'},
        {"a|b|c\n", '|'},
        {"single\n", ','},
        {"a;b,c;d\n1;2,3;4\n", ';'},
        {"name,note\nx,\"a;b;c;d\"\n", ','},
        {"\n\na;b\n1;2\n", ';'},                 /* leading blank lines */
        {"a;b\r\n1;2\r\n3;4", ';'},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        fo_csv *c;
        ck_assert_int_eq(fo_csv_open_mem(cases[i].text, strlen(cases[i].text), NULL, 0, &c, &d), FO_OK);
        ck_assert_msg(fo_csv_delimiter(c) == cases[i].expect, "case %zu: got '%c'", i, fo_csv_delimiter(c));
        fo_csv_close(c);
    }
    DUMP("a;b;c\n1;2,5;3\n", 0, "a|b|c@1\n1|2,5|3@2\n");
    DUMP("a\tb\n1\t\"x\ty\"\n", '\t', "a|b@1\n1|x\ty@2\n");
    fo_diags_free(&d);
}
END_TEST

START_TEST(errors)
{
    fo_diags d;
    fo_diags_init(&d);
    /* invalid UTF-8: line and column named, the next record still read */
    const char bad[] = "a,b\nx,y\n1,ok\xFF\n2,z\n";
    ck_assert_str_eq(dump(bad, sizeof bad - 1, ',', &d), "a|b@1\nx|y@2\n!3\n2|z@4\n");
    ck_assert_uint_eq(d.n, 1);
    ck_assert_int_eq(d.items[0].line, 3);
    ck_assert_int_eq(d.items[0].column, 2);
    ck_assert_str_eq(diag_text(&d, 0), "mem.csv:3:2: invalid UTF-8 (byte 0xFF) in column 2 (save the file as UTF-8)");
    fo_diags_free(&d);

    /* overlong, surrogate, truncated sequences; valid multibyte passes */
    const char *bads[] = {"\xC0\xAF", "\xED\xA0\x80", "\xE2\x82", "\xF4\x90\x80\x80", "\x80"};
    for (size_t i = 0; i < 5; i++) {
        char *o = dump(bads[i], strlen(bads[i]), ',', &d);
        ck_assert_str_eq(o, "!1\n");
    }
    fo_diags_free(&d);
    DUMP("\xE2\x82\xAC,\xF0\x9F\x98\x80,\xC3\xA9\n", ',', "\xE2\x82\xAC|\xF0\x9F\x98\x80|\xC3\xA9@1\n");

    /* invalid UTF-8 on the second line of a multi-line field */
    const char bad2[] = "a\n\"x\ny\xFEz\",b\n";
    ck_assert_str_eq(dump(bad2, sizeof bad2 - 1, ',', &d), "a@1\n!2\n");
    ck_assert_int_eq(d.items[0].line, 3);
    ck_assert_int_eq(d.items[0].column, 1);
    fo_diags_free(&d);

    /* NUL bytes are an error, never a silent truncation */
    const char nul[] = "a,b\nx,y\0z\n\"p\0\",q\n";
    ck_assert_str_eq(dump(nul, sizeof nul - 1, ',', &d), "a|b@1\n!2\n!3\n");
    ck_assert_uint_eq(d.n, 2);
    ck_assert_str_eq(diag_text(&d, 0), "mem.csv:2:2: NUL byte in column 2 (is this a binary or UTF-16 file?)");
    fo_diags_free(&d);

    /* unterminated quote: named at the line where the field opened */
    const char unterminated[] = "a,b\n1,2\nx,\"open\nmore\nlines\n";
    ck_assert_str_eq(dump(unterminated, sizeof unterminated - 1, ',', &d), "a|b@1\n1|2@2\n!3\n");
    ck_assert_uint_eq(d.n, 1);
    ck_assert_int_eq(d.items[0].line, 3);
    ck_assert_int_eq(d.items[0].column, 2);
    ck_assert_ptr_nonnull(strstr(d.items[0].message, "unterminated quoted field"));
    fo_diags_free(&d);

    /* missing file */
    fo_csv *c;
    ck_assert_int_eq(fo_csv_open("/nonexistent/x.csv", 0, &c, &d), FO_ERR_INPUT);
    ck_assert_ptr_null(c);
    ck_assert_ptr_nonnull(strstr(diag_text(&d, 0), "/nonexistent/x.csv: cannot open CSV file"));
    fo_diags_free(&d);
    ck_assert_int_eq(fo_csv_open_mem("a", 1, NULL, '"', &c, &d), FO_ERR_INPUT);
    fo_diags_free(&d);
}
END_TEST

START_TEST(long_fields_and_blocks)
{
    /* A 1 MB field, quoted and not, from a file (several read blocks). */
    size_t big = 1 << 20;
    char *buf = malloc(2 * big + 64);
    size_t n = 0;
    n += (size_t)sprintf(buf, "h1,h2\n\"");
    memset(buf + n, 'x', big);
    n += big;
    buf[n++] = '"';
    buf[n++] = ',';
    memset(buf + n, 'y', big);
    n += big;
    n += (size_t)sprintf(buf + n, "\r\nlast,row");
    const char *path = tmp_file(buf, n);
    fo_diags d;
    fo_diags_init(&d);
    fo_csv *c;
    ck_assert_int_eq(fo_csv_open(path, 0, &c, &d), FO_OK);
    const char *const *f;
    const size_t *l;
    size_t nf;
    ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 1);
    ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 1);
    ck_assert_uint_eq(nf, 2);
    ck_assert_uint_eq(l[0], big);
    ck_assert_uint_eq(l[1], big);
    ck_assert(f[0][0] == 'x' && f[0][big - 1] == 'x' && f[1][big - 1] == 'y');
    ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 1);
    ck_assert_str_eq(f[0], "last");
    ck_assert_uint_eq(fo_csv_line(c), 3);
    ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 0);
    fo_csv_close(c);
    ck_assert_uint_eq(d.n, 0);

    /* A CRLF split across the 256 KiB window boundary, in and out of quotes. */
    for (int quoted = 0; quoted < 2; quoted++) {
        size_t w = 256 << 10;
        n = 0;
        if (quoted) buf[n++] = '"';
        while (n < w - 1) buf[n++] = 'a';
        buf[n++] = '\r';
        buf[n++] = '\n';
        if (quoted) n += (size_t)sprintf(buf + n, "b\"\r\n");
        n += (size_t)sprintf(buf + n, "next\r\n");
        ck_assert_int_eq(fo_csv_open_mem(buf, n, NULL, ',', &c, &d), FO_OK);
        ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 1);
        ck_assert_uint_eq(l[0], quoted ? w - 2 + 3 : w - 1);
        ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 1);
        ck_assert_str_eq(f[0], "next");
        ck_assert_uint_eq(fo_csv_line(c), quoted ? 3 : 2);
        ck_assert_int_eq(fo_csv_next(c, &f, &l, &nf, &d), 0);
        fo_csv_close(c);
    }
    ck_assert_uint_eq(d.n, 0);
    fo_diags_free(&d);
    free(buf);
    cleanup();
}
END_TEST

/* ---- fo_csv_scan -----------------------------------------------------------------*/
static fo_status scan(fo_dataset *ds, fo_arena *a, const char *text, bool header,
                      const fo_column *hints, size_t nhints, fo_diags *d)
{
    memset(ds, 0, sizeof *ds);
    ds->src = FO_SRC_CSV;
    ds->stream = &fo_csv_stream;
    ds->csv_path = (char *)tmp_file(text, strlen(text));
    ds->csv_display = fo_arena_strdup(a, "data.csv");
    ds->header = header;
    return fo_csv_scan(ds, a, hints, nhints, d);
}

START_TEST(scan_types)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    ck_assert_int_eq(scan(&ds, a,
        "id;zip;amount;share;price;day;at;ok;note\r\n"
        "1;00123;1,234.50;12.5%;$5.00;2024-03-01;2024-03-01 10:00;true;hello\r\n"
        "2;00200;-7.25;3%;($1.25);2024-03-02;2024-03-02 11:30;FALSE;\"a;b\"\r\n"
        "3;09999;;;;;;;\r\n", true, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(d.n, 0);
    ck_assert_int_eq(ds.delimiter, ';');
    ck_assert_uint_eq(ds.nrows, 3);
    ck_assert_uint_eq(ds.ncols, 9);
    static const struct { const char *name; fo_type t; const char *fmt; } want[] = {
        {"id", FO_TYPE_INTEGER, "0"},
        {"zip", FO_TYPE_TEXT, "@"},
        {"amount", FO_TYPE_NUMBER, "#,##0.00"},
        {"share", FO_TYPE_PERCENT, "0.0%"},
        {"price", FO_TYPE_CURRENCY, "$#,##0.00;($#,##0.00)"},
        {"day", FO_TYPE_DATE, "yyyy-mm-dd"},
        {"at", FO_TYPE_DATETIME, "yyyy-mm-dd hh:mm"},
        {"ok", FO_TYPE_BOOLEAN, "General"},
        {"note", FO_TYPE_TEXT, "@"},
    };
    for (size_t i = 0; i < 9; i++) {
        ck_assert_str_eq(ds.cols[i].name, want[i].name);
        ck_assert_msg(ds.cols[i].type == want[i].t, "%s: %s", want[i].name, fo_type_name(ds.cols[i].type));
        ck_assert_str_eq(ds.cols[i].format, want[i].fmt);
    }
    fo_diags_free(&d);
    fo_arena_free(a);
    cleanup();
}
END_TEST

START_TEST(scan_names_and_shape)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    /* duplicate and empty header names */
    ck_assert_int_eq(scan(&ds, a, "revenue,revenue,,revenue (2),x,x,x\n1,2,3,4,5,6,7\n", true, NULL, 0, &d), FO_OK);
    const char *names[] = {"revenue", "revenue (3)", "column 3", "revenue (2)", "x", "x (2)", "x (3)"};
    ck_assert_uint_eq(ds.ncols, 7);
    for (size_t i = 0; i < 7; i++) ck_assert_str_eq(ds.cols[i].name, names[i]);

    /* ragged: short rows padded, extra empty fields ignored */
    ck_assert_int_eq(scan(&ds, a, "a,b,c\n1\n1,2\n1,2,3,,\n", true, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(ds.nrows, 3);
    ck_assert_uint_eq(d.n, 0);

    /* too many fields: an error naming each line */
    ck_assert_int_eq(scan(&ds, a, "a,b\n1,2\n1,2,3\n4,5\n6,7,8,9\n", true, NULL, 0, &d), FO_ERR_INPUT);
    ck_assert_uint_eq(d.n, 2);
    ck_assert_str_eq(diag_text(&d, 0),
                     "data.csv:3:3: record has 3 fields but the header has 2 (quote fields that contain the delimiter)");
    ck_assert_int_eq(d.items[1].line, 5);
    fo_diags_free(&d);

    /* no header: names "column N", the widest record sets the width */
    ck_assert_int_eq(scan(&ds, a, "1,x\n2,y,2024-01-01\n3\n", false, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(ds.ncols, 3);
    ck_assert_uint_eq(ds.nrows, 3);
    ck_assert_str_eq(ds.cols[0].name, "column 1");
    ck_assert_str_eq(ds.cols[2].name, "column 3");
    ck_assert_int_eq(ds.cols[0].type, FO_TYPE_INTEGER);
    ck_assert_int_eq(ds.cols[1].type, FO_TYPE_TEXT);
    ck_assert_int_eq(ds.cols[2].type, FO_TYPE_DATE);

    /* header only: columns, no rows, all text */
    ck_assert_int_eq(scan(&ds, a, "a,b\n", true, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(ds.ncols, 2);
    ck_assert_uint_eq(ds.nrows, 0);
    ck_assert_int_eq(ds.cols[1].type, FO_TYPE_TEXT);

    /* empty file, invalid UTF-8, missing file */
    ck_assert_int_eq(scan(&ds, a, "", true, NULL, 0, &d), FO_ERR_INPUT);
    ck_assert_str_eq(diag_text(&d, 0), "data.csv: the CSV file is empty");
    fo_diags_free(&d);
    ck_assert_int_eq(scan(&ds, a, "\xEF\xBB\xBF\n\n", false, NULL, 0, &d), FO_ERR_INPUT);
    fo_diags_free(&d);
    ck_assert_int_eq(scan(&ds, a, "a,b\n1,2\n3,\xC3\n", true, NULL, 0, &d), FO_ERR_INPUT);
    ck_assert_str_eq(diag_text(&d, 0), "data.csv:3:2: invalid UTF-8 (byte 0xC3) in column 2 (save the file as UTF-8)");
    fo_diags_free(&d);
    memset(&ds, 0, sizeof ds);
    ds.src = FO_SRC_CSV;
    ds.stream = &fo_csv_stream;
    ds.csv_path = fo_arena_strdup(a, "/nonexistent/sales.csv");
    ds.csv_display = fo_arena_strdup(a, "sales.csv");
    ds.header = true;
    ck_assert_int_eq(fo_csv_scan(&ds, a, NULL, 0, &d), FO_ERR_INPUT);
    ck_assert_ptr_nonnull(strstr(diag_text(&d, 0), "sales.csv: cannot open CSV file"));
    fo_diags_free(&d);
    fo_arena_free(a);
    cleanup();
}
END_TEST

START_TEST(scan_hints)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    fo_column hints[] = {
        {.name = fo_arena_strdup(a, "share"), .type = FO_TYPE_PERCENT, .format = NULL},
        {.name = fo_arena_strdup(a, "code"), .type = FO_TYPE_TEXT, .format = NULL},
        {.name = fo_arena_strdup(a, "amount"), .type = FO_TYPE_AUTO, .format = fo_arena_strdup(a, "#,##0.000")},
        {.name = fo_arena_strdup(a, "absent"), .type = FO_TYPE_INTEGER, .format = NULL},
        {.name = fo_arena_strdup(a, "share"), .type = FO_TYPE_AUTO, .format = fo_arena_strdup(a, "0.0%")},   /* a second hint for a column adds its format */
    };
    ck_assert_int_eq(scan(&ds, a, "share,code,amount,n\n0.12,1,2.5,4\n0.5,2,3,5\n", true, hints, 5, &d), FO_OK);
    ck_assert_int_eq(ds.cols[0].type, FO_TYPE_PERCENT);
    ck_assert_str_eq(ds.cols[0].format, "0.0%");
    ck_assert_int_eq(ds.cols[1].type, FO_TYPE_TEXT);
    ck_assert_str_eq(ds.cols[1].format, "@");
    ck_assert_int_eq(ds.cols[2].type, FO_TYPE_NUMBER);
    ck_assert_str_eq(ds.cols[2].format, "#,##0.000");
    ck_assert_int_eq(ds.cols[3].type, FO_TYPE_INTEGER);

    /* rows follow the hinted types */
    fo_rows *r;
    const fo_value *row;
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_int_eq(row[0].kind, FO_VAL_NUMBER);
    ck_assert(row[0].num == 0.12);
    ck_assert_int_eq(row[1].kind, FO_VAL_TEXT);
    ck_assert_str_eq(row[1].str, "1");
    fo_rows_close(r);
    fo_diags_free(&d);
    fo_arena_free(a);
    cleanup();
}
END_TEST

/* ---- fo_rows ---------------------------------------------------------------------*/
START_TEST(rows_csv)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    /* 9 of 10 fit integer: "n/a" stays exactly "n/a"; "00123" in a number
     * column stays text; a euro amount in a dollar column stays text. */
    ck_assert_int_eq(scan(&ds, a,
        "n,x,price,day,flag,t\n"
        "1,1.5,$1.00,2024-01-01,true,a\n"
        "2,00123,$2.50,2024-01-02,false,\n"
        "3,2.5,$3,2024-01-03,true,c\n"
        "4,3.5,$4,2024-01-04,true,d\n"
        "5,4.5,$5,2024-01-05,true,e\n"
        "6,5.5,$6,2024-01-06,true,f\n"
        "7,6.5,$7,2024-01-07,true,g\n"
        "8,7.5,$8,2024-01-08,true,h\n"
        "9,8.5,$9,2024-01-09,true,i\n"
        "n/a,9.5,\xE2\x82\xAC" "10,2024-02-30,maybe,j\n"
        "11\n", true, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(ds.nrows, 11);
    ck_assert_int_eq(ds.cols[0].type, FO_TYPE_INTEGER);
    ck_assert_int_eq(ds.cols[1].type, FO_TYPE_NUMBER);
    ck_assert_int_eq(ds.cols[2].type, FO_TYPE_CURRENCY);
    ck_assert_str_eq(ds.cols[2].format, "$#,##0.00");
    ck_assert_int_eq(ds.cols[3].type, FO_TYPE_DATE);
    ck_assert_int_eq(ds.cols[4].type, FO_TYPE_BOOLEAN);
    ck_assert_int_eq(ds.cols[5].type, FO_TYPE_TEXT);

    fo_rows *r;
    const fo_value *row;
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    size_t n = 0;
    int rc;
    while ((rc = fo_rows_next(r, &row, &d)) == 1) {
        n++;
        if (n == 1) {
            ck_assert(row[0].kind == FO_VAL_NUMBER && row[0].num == 1);
            ck_assert(row[1].kind == FO_VAL_NUMBER && row[1].num == 1.5);
            ck_assert(row[2].kind == FO_VAL_NUMBER && row[2].num == 1);
            ck_assert(row[3].kind == FO_VAL_DATE && row[3].num == 45292);
            ck_assert(row[4].kind == FO_VAL_BOOL && row[4].num == 1);
            ck_assert(row[5].kind == FO_VAL_TEXT);
            ck_assert_str_eq(row[5].str, "a");
        } else if (n == 2) {
            ck_assert_int_eq(row[1].kind, FO_VAL_TEXT);
            ck_assert_str_eq(row[1].str, "00123");
            ck_assert_int_eq(row[5].kind, FO_VAL_NULL);
        } else if (n == 10) {
            ck_assert_int_eq(row[0].kind, FO_VAL_TEXT);
            ck_assert_str_eq(row[0].str, "n/a");
            ck_assert_int_eq(row[2].kind, FO_VAL_TEXT);
            ck_assert_str_eq(row[2].str, "\xE2\x82\xAC" "10");
            ck_assert_int_eq(row[3].kind, FO_VAL_TEXT);
            ck_assert_str_eq(row[3].str, "2024-02-30");
            ck_assert_int_eq(row[4].kind, FO_VAL_TEXT);
            ck_assert_str_eq(row[4].str, "maybe");
        } else if (n == 11) {
            ck_assert(row[0].kind == FO_VAL_NUMBER && row[0].num == 11);
            for (int j = 1; j < 6; j++) ck_assert_int_eq(row[j].kind, FO_VAL_NULL);
        }
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_uint_eq(n, 11);
    fo_rows_close(r);
    ck_assert_uint_eq(d.n, 0);

    /* without a header the first record is data */
    ck_assert_int_eq(scan(&ds, a, "5,x\n6,y\n", false, NULL, 0, &d), FO_OK);
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert(row[0].kind == FO_VAL_NUMBER && row[0].num == 5);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 0);
    fo_rows_close(r);

    /* the file changed under us: the wide record is an error */
    ck_assert_int_eq(scan(&ds, a, "a,b\n1,2\n", true, NULL, 0, &d), FO_OK);
    ds.csv_path = (char *)tmp_file("a,b\n1,2,3\n", 10);
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), -1);
    ck_assert_uint_eq(d.n, 1);
    fo_rows_close(r);
    fo_diags_free(&d);
    fo_arena_free(a);
    cleanup();
}
END_TEST

START_TEST(inferred_percent_keeps_plain_numbers_as_text)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    /* 10 percentages and one plain number: the column is percent (90%),
     * and "5" must not become 500% */
    ck_assert_int_eq(scan(&ds, a, "p\n1%\n2%\n3%\n4%\n5\n6%\n7%\n8%\n9%\n10%\n11%\n", true, NULL, 0, &d), FO_OK);
    ck_assert_int_eq(ds.cols[0].type, FO_TYPE_PERCENT);
    ck_assert(ds.cols[0].inferred);
    fo_rows *r;
    const fo_value *row;
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    for (int i = 0; i < 5; i++) ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_int_eq(row[0].kind, FO_VAL_TEXT);
    ck_assert_str_eq(row[0].str, "5");
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_int_eq(row[0].kind, FO_VAL_NUMBER);
    ck_assert(row[0].num > 0.0599 && row[0].num < 0.0601);
    fo_rows_close(r);
    /* a percent hint accepts plain numbers as fractions: that is what it asks */
    fo_column hint = {.name = fo_arena_strdup(a, "p"), .type = FO_TYPE_PERCENT, .format = NULL};
    ck_assert_int_eq(scan(&ds, a, "p\n0.05\n12%\n", true, &hint, 1, &d), FO_OK);
    ck_assert(!ds.cols[0].inferred);
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_int_eq(row[0].kind, FO_VAL_NUMBER);
    fo_rows_close(r);
    fo_diags_free(&d);
    fo_arena_free(a);
}
END_TEST

START_TEST(rows_inline)
{
    char region[] = "region", text_fmt[] = "@", revenue[] = "revenue", general[] = "General", name[] = "regions";
    fo_column cols[2] = {{.name = region, .type = FO_TYPE_TEXT, .format = text_fmt}, {.name = revenue, .type = FO_TYPE_NUMBER, .format = general}};
    fo_value cells[4] = {
        {.kind = FO_VAL_TEXT, .str = "North"}, {.kind = FO_VAL_NUMBER, .num = 1204.5},
        {.kind = FO_VAL_TEXT, .str = "South"}, {.kind = FO_VAL_NUMBER, .num = 980},
    };
    fo_dataset ds = {.name = name, .cols = cols, .ncols = 2, .nrows = 2,
                     .src = FO_SRC_INLINE, .cells = cells};
    fo_diags d;
    fo_diags_init(&d);
    fo_rows *r;
    const fo_value *row;
    ck_assert_int_eq(fo_rows_open(&ds, &r, &d), FO_OK);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert_str_eq(row[0].str, "North");
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 1);
    ck_assert(row[1].num == 980);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 0);
    ck_assert_int_eq(fo_rows_next(r, &row, &d), 0);
    fo_rows_close(r);
    fo_rows_close(NULL);
    fo_csv_close(NULL);
    fo_diags_free(&d);
}
END_TEST

/* Every allocation failure is reported as FO_ERR_NOMEM, never a crash. */
START_TEST(alloc_failures)
{
    const char *text = "a,a,,b\n1,x,2024-01-01,$5\n2,\"y\nz\",,\n";
    const char *path = tmp_file(text, strlen(text));
    bool ok = false;
    for (unsigned long k = 1; k < 200 && !ok; k++) {
        fo_arena *a = fo_arena_new();
        fo_diags d;
        fo_diags_init(&d);
        fo_dataset ds = {.src = FO_SRC_CSV, .stream = &fo_csv_stream, .csv_path = (char *)path, .header = true};
        if (!a) continue;
        fo_alloc_fail_after(k);
        fo_status st = fo_csv_scan(&ds, a, NULL, 0, &d);
        if (st == FO_OK) {
            fo_rows *r;
            st = fo_rows_open(&ds, &r, &d);
            if (st == FO_OK) {
                const fo_value *row;
                while (fo_rows_next(r, &row, &d) == 1) {}
                fo_rows_close(r);
                ok = true;
            }
        }
        fo_alloc_fail_after(0);
        ck_assert(st == FO_OK || st == FO_ERR_NOMEM);
        fo_diags_free(&d);
        fo_arena_free(a);
    }
    ck_assert(ok);
    cleanup();
}
END_TEST

/* ---- fo_rows_keep ----------------------------------------------------------------*/
/* fo_csv_stream with its next() counted: how many rows a pass really read. */
static size_t streamed;
static int counting_next(void *state, const fo_value **row, fo_diags *d)
{
    int rc = fo_csv_stream.next(state, row, d);
    streamed += rc == 1;
    return rc;
}

/* One pass through keep (NULL: plain), stopping after stop rows: the
 * values and source line of each row as text, for comparing passes. False
 * when the pass failed (out of memory). */
static bool pass_text(const fo_dataset *ds, fo_rows_keep *keep, size_t stop, char *out, size_t cap)
{
    fo_diags d;
    fo_diags_init(&d);
    fo_rows *r;
    const fo_value *row;
    out[0] = '\0';
    if (fo_rows_open_kept(ds, keep, &r, &d) != FO_OK) {
        fo_diags_free(&d);
        return false;
    }
    size_t n = 0, at = 0;
    int rc = 1;
    while (n < stop && (rc = fo_rows_next(r, &row, &d)) == 1) {
        n++;
        at += (size_t)snprintf(out + at, cap - at, "@%zu", fo_rows_line(r));
        for (size_t j = 0; j < ds->ncols; j++)
            at += (size_t)snprintf(out + at, cap - at, "|%d:%g:%s", (int)row[j].kind, row[j].num,
                                   row[j].str ? row[j].str : "-");
        ck_assert_uint_lt(at, cap);
    }
    fo_rows_close(r);
    if (rc >= 0) ck_assert_uint_eq(d.n, 0);
    fo_diags_free(&d);
    return rc >= 0;
}

/* A table drawn in column groups passes over its rows once a group; kept
 * rows are the same values and lines as a fresh pass, and the file is read
 * once whatever the number of passes (else wide tables cost the square of
 * their width). Out of memory, the keep takes fewer rows, never wrong ones. */
START_TEST(rows_keep)
{
    fo_arena *a = fo_arena_new();
    fo_diags d;
    fo_diags_init(&d);
    fo_dataset ds;
    ck_assert_int_eq(scan(&ds, a,
        "n,x,day,t\n1,1.5,2024-01-01,a\n\n2,00123,2024-01-02,\"b\nb\"\n3,2.5,2024-01-03,c\n"
        "4,3.5,2024-01-04,d\n", true, NULL, 0, &d), FO_OK);
    ck_assert_uint_eq(ds.nrows, 4);
    fo_row_stream counting = fo_csv_stream;
    counting.next = counting_next;
    ds.stream = &counting;
    static char want[4096], got[4096];
    ck_assert(pass_text(&ds, NULL, SIZE_MAX, want, sizeof want));
    /* after a blank line and a quoted newline, rows start on lines 2, 4, 6, 7 */
    ck_assert_ptr_nonnull(strstr(want, "@2|2:1:-|1:0:1.5|4:45292:-|1:0:a@4|"));
    ck_assert_ptr_nonnull(strstr(want, "|1:0:b\nb@6|2:3:"));
    ck_assert_ptr_nonnull(strstr(want, "@7|2:4:-|1:0:3.5|4:45295:-|1:0:d"));

    for (unsigned long fail = 0; fail < 40; fail++) {
        fo_alloc_fail_after(fail);
        fo_rows_keep *keep = fo_rows_keep_new(&ds);
        fo_alloc_fail_after(0);
        if (fail == 0) ck_assert_ptr_nonnull(keep);
        streamed = 0;
        ck_assert(pass_text(&ds, keep, 2, got, sizeof got)); /* a pass that stops early */
        ck_assert_uint_eq(streamed, 2);
        for (int pass = 0; pass < 5; pass++) {
            fo_alloc_fail_after(fail);
            bool ok = pass_text(&ds, keep, SIZE_MAX, got, sizeof got);
            fo_alloc_fail_after(0);
            if (ok || fail == 0) ck_assert_str_eq(got, want);
        }
        /* 2 rows for the stopped pass, 4 for the first whole one (winding past
         * the 2 kept rows), none for the four after it */
        if (fail == 0) ck_assert_uint_eq(streamed, 6);
        fo_rows_keep_free(keep);
    }
    fo_dataset inline_ds = {.src = FO_SRC_INLINE};
    ck_assert_ptr_null(fo_rows_keep_new(&inline_ds)); /* inline rows are in memory already */
    fo_diags_free(&d);
    fo_arena_free(a);
    cleanup();
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        rfc4180,
        embedded_newlines,
        delimiters,
        errors,
        long_fields_and_blocks,
        scan_types,
        scan_names_and_shape,
        scan_hints,
        rows_csv,
        rows_inline,
        rows_keep,
        inferred_percent_keeps_plain_numbers_as_text,
        alloc_failures,
        NULL,
    };
    return fo_check_tests("csv", 60, tests);
}
