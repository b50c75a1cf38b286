/* t_xlsx_rows.c — folio's own sheet rows (render/xlsx/body.c): numbers
 * written as libxlsxwriter writes them (printf's "%.16G"), and the
 * deflated stream of a sheet of many chunks read back with zlib: well-formed
 * rows, every one present, the CRC right, the same bytes every time. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "render/xlsx/xlsx_internal.h"
#include "tests/check_run.h"

static void same_as_printf(double v)
{
    char want[64], got[FO_XLSX_NUM_CAP + 1];
    snprintf(want, sizeof want, "%.16G", v);
    size_t n = fo_xlsx_num(got, v);
    got[n] = 0;
    ck_assert_msg(strcmp(want, got) == 0, "%a: printf %s, fo_xlsx_num %s", v, want, got);
}

/* a deterministic 64-bit generator (xorshift64*) */
static uint64_t rnd_state = 0x9E3779B97F4A7C15ull;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state >> 12;
    rnd_state ^= rnd_state << 25;
    rnd_state ^= rnd_state >> 27;
    return rnd_state * 2685821657736338717ull;
}

START_TEST(num_like_printf)
{
    static const double fixed[] = {
        0.0,
        -0.0,
        1,
        -1,
        7,
        45293,
        1e15,
        1e16,
        1e17,
        9007199254740993.0,
        123456789012345678.0,
        0.1 + 0.2,
        0.3,
        9.2,
        23.15,
        7593.20,
        17020.72,
        1.0 / 3,
        2.0 / 3,
        -2.5,
        0.5,
        1e-4,
        0.0001234,
        9.9999e-5,
        1e-5,
        1e-7,
        1e300,
        -1e300,
        1.7976931348623157e308,
        5e-324,
        2.2250738585072014e-308,
        999999999999999.9,
        999999999999999.4,
        99999999999999.99,
        0.99999999999999994,
        9.999999999999999e14,
        45293.5,
        45293.041666666664,
        123.456,
        1234567.891,
        0.045,
        4.35,
        1e-4 * 3,
        6.02214076e23,
    };
    for (size_t i = 0; i < sizeof fixed / sizeof *fixed; i++) {
        same_as_printf(fixed[i]);
        same_as_printf(-fixed[i]);
    }
    for (int i = 0; i < 300000; i++) {
        uint64_t bits = rnd();
        double v;
        memcpy(&v, &bits, sizeof v);
        if (v == v && v - v == 0) same_as_printf(v); /* any finite double */
        /* decimals as data has them: up to 6 places, up to 12 digits */
        int places = (int)(rnd() % 7);
        double scale = 1;
        for (int p = 0; p < places; p++) scale *= 10;
        same_as_printf((double)(int64_t)(rnd() % 1000000000000ull) / scale);
        same_as_printf((double)(rnd() % 100000) / 100.0);
        same_as_printf((double)(rnd() % 2000000) * ((double)(rnd() % 1000) / 1000.0));
    }
}
END_TEST

/* Reads the whole spill back and inflates it (a raw stream ended with a
 * sync flush) into a NUL-terminated buffer. */
static char *inflate_rows(const fo_xlsx_body_info *in, size_t *out_len)
{
    unsigned char *packed = malloc(in->packed ? in->packed : 1);
    ck_assert_ptr_nonnull(packed);
    ck_assert_int_eq(pread(in->fd, packed, in->packed, 0), (ssize_t)in->packed);
    char *raw = malloc(in->raw + 1);
    ck_assert_ptr_nonnull(raw);
    z_stream z = {0};
    ck_assert_int_eq(inflateInit2(&z, -15), Z_OK);
    z.next_in = packed;
    z.avail_in = (uInt)in->packed;
    z.next_out = (Bytef *)raw;
    z.avail_out = (uInt)in->raw + 1;
    int rc = inflate(&z, Z_SYNC_FLUSH);
    ck_assert(rc == Z_OK || rc == Z_BUF_ERROR);
    ck_assert_uint_eq(z.avail_in, 0); /* every byte was used */
    ck_assert_uint_eq(z.total_out, in->raw);
    inflateEnd(&z);
    raw[in->raw] = 0;
    *out_len = in->raw;
    ck_assert_uint_eq(crc32(0, (Bytef *)raw, (uInt)in->raw), in->crc);
    free(packed);
    return raw;
}

#define ROWS 30000u

/* Writes ROWS rows of every kind of cell (well past one chunk), returns
 * the inflated XML. */
static char *write_rows(size_t *len, uint64_t *packed)
{
    char tmpl[] = "/tmp/t_xlsx_rows_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    fo_xlsx_body *b = fo_xlsx_body_new(tmpl, 0);
    ck_assert_ptr_nonnull(b);
    char big[40000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    big[100] = '&';
    for (unsigned r = 1; r <= ROWS; r++) {
        char rn[16];
        size_t rnl = (size_t)snprintf(rn, sizeof rn, "%u", r);
        ck_assert(fo_xlsx_body_row(b, rn, rnl, r % 1000 == 0 ? 30 : 0));
        ck_assert(fo_xlsx_body_number(b, "A", rn, rnl, 2, r * 1.25));
        ck_assert(fo_xlsx_body_text(b, "B", rn, rnl, 3, "a&b<c>d\"e'f", 11));
        ck_assert(fo_xlsx_body_text(b, "C", rn, rnl, 0, " lead", 5));
        ck_assert(fo_xlsx_body_bool(b, "D", rn, rnl, 4, r & 1));
        ck_assert(fo_xlsx_body_text(b, "E", rn, rnl, 3, "", 0));
        if (r % 5000 == 0) ck_assert(fo_xlsx_body_text(b, "F", rn, rnl, 3, big, sizeof big - 1));
        ck_assert(fo_xlsx_body_row_end(b));
    }
    fo_xlsx_body_info info;
    ck_assert_int_eq(fo_xlsx_body_finish(b, &info), 0);
    ck_assert_uint_gt(info.raw, 4u * 128u * 1024u); /* several chunks */
    char *xml = inflate_rows(&info, len);
    *packed = info.packed;
    fo_xlsx_body_free(b);
    rmdir(tmpl);
    return xml;
}

START_TEST(rows_stream_reads_back)
{
    size_t len;
    uint64_t packed;
    char *xml = write_rows(&len, &packed);
    static const char first[] =
        "<row r=\"1\"><c r=\"A1\" s=\"2\"><v>1.25</v></c>"
        "<c r=\"B1\" s=\"3\" t=\"inlineStr\"><is><t>a&amp;b&lt;c&gt;d\"e'f</t></is></c>"
        "<c r=\"C1\" t=\"inlineStr\"><is><t xml:space=\"preserve\"> lead</t></is></c>"
        "<c r=\"D1\" s=\"4\" t=\"b\"><v>1</v></c><c r=\"E1\" s=\"3\"/></row>";
    ck_assert(strncmp(xml, first, sizeof first - 1) == 0);
    ck_assert_ptr_nonnull(strstr(xml, "<row r=\"1000\" ht=\"30\" customHeight=\"1\">"));
    /* every row, in order, each closed */
    size_t rows = 0;
    const char *p = xml;
    while ((p = strstr(p, "<row r=\""))) {
        rows++;
        ck_assert_uint_eq(strtoul(p + 8, NULL, 10), rows);
        p += 8;
    }
    ck_assert_uint_eq(rows, ROWS);
    size_t ends = 0;
    for (p = xml; (p = strstr(p, "</row>")); p += 6) ends++;
    ck_assert_uint_eq(ends, ROWS);
    ck_assert(len > 6 && strcmp(xml + len - 6, "</row>") == 0);
    /* the long texts whole, escaped */
    const char *t = strstr(xml, "<c r=\"F5000\"");
    ck_assert_ptr_nonnull(t);
    t = strstr(t, "<t>") + 3;
    ck_assert_uint_eq((size_t)(strstr(t, "</t>") - t), 40000 - 1 + 4);
    /* the same bytes again */
    size_t len2;
    uint64_t packed2;
    char *again = write_rows(&len2, &packed2);
    ck_assert_uint_eq(len, len2);
    ck_assert_uint_eq(packed, packed2);
    ck_assert(memcmp(xml, again, len) == 0);
    free(xml);
    free(again);
}
END_TEST

START_TEST(rows_stop_at_the_ceiling)
{
    char tmpl[] = "/tmp/t_xlsx_rows_XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(tmpl));
    fo_xlsx_body *b = fo_xlsx_body_new(tmpl, 10000);
    ck_assert_ptr_nonnull(b);
    bool ok = true;
    unsigned r;
    for (r = 1; ok && r < 1000000; r++) {
        char rn[16], text[64];
        size_t rnl = (size_t)snprintf(rn, sizeof rn, "%u", r);
        size_t tl = (size_t)snprintf(text, sizeof text, "%llx", (unsigned long long)rnd());
        ok = fo_xlsx_body_row(b, rn, rnl, 0) && fo_xlsx_body_text(b, "A", rn, rnl, 1, text, tl) &&
             fo_xlsx_body_row_end(b);
    }
    ck_assert(!ok);
    ck_assert_uint_lt(r, 100000); /* stopped soon after 10 kB of deflated rows */
    ck_assert_int_eq(fo_xlsx_body_error(b), EFBIG);
    fo_xlsx_body_free(b);
    rmdir(tmpl);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("xlsx_rows");
    TCase *tc = tcase_create("rows");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, num_like_printf);
    tcase_add_test(tc, rows_stream_reads_back);
    tcase_add_test(tc, rows_stop_at_the_ceiling);
    suite_add_tcase(s, tc);
    return fo_check_run(s);
}
