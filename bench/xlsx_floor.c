/* xlsx_floor.c — the speed floor for folio's xlsx writer: a bare C program
 * that reads the benchmark's sales CSV and writes the same cells straight
 * through libxlsxwriter in constant_memory mode (no inference, no checks).
 * usage: xlsx_floor IN.csv OUT.xlsx     (built by bench/bench-xlsx.sh)
 * Columns: id, date (ISO -> Excel serial, yyyy-mm-dd), region, product,
 * units, price, revenue (numbers), note (text). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xlsxwriter.h>

#define MAXF 16

/* Splits one CSV record (quotes, "" escapes; no embedded newlines in the
 * benchmark data) into fields in place. Returns the field count. */
static int split(char *line, char **f)
{
    int n = 0;
    char *p = line;
    while (n < MAXF) {
        if (*p == '"') {
            char *o = ++p;
            f[n++] = o;
            for (;;) {
                if (*p == '"' && p[1] == '"') { *o++ = '"'; p += 2; }
                else if (*p == '"') { p++; break; }
                else if (!*p) break;
                else *o++ = *p++;
            }
            *o = '\0';
            if (*p == ',') { p++; continue; }
            break;
        }
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = '\0';
        p = c + 1;
    }
    return n;
}

static double serial(const char *s)
{
    int y = atoi(s), m = atoi(s + 5), d = atoi(s + 8);
    /* days from civil (H. Hinnant) + 25569 = Excel serial */
    y -= m <= 2;
    long era = (y >= 0 ? y : y - 399) / 400;
    unsigned yoe = (unsigned)(y - era * 400);
    unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return (double)(era * 146097 + (long)doe - 719468 + 25569);
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: xlsx_floor IN.csv OUT.xlsx\n"); return 1; }
    FILE *in = fopen(argv[1], "r");
    if (!in) { perror(argv[1]); return 1; }
    lxw_workbook_options o = {.constant_memory = LXW_TRUE};
    lxw_workbook *wb = workbook_new_opt(argv[2], &o);
    lxw_worksheet *ws = workbook_add_worksheet(wb, "sales");
    lxw_format *date = workbook_add_format(wb);
    format_set_num_format(date, "yyyy-mm-dd");
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    lxw_row_t r = 0;
    char *f[MAXF];
    while ((len = getline(&line, &cap, in)) > 0) {
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        int n = split(line, f);
        if (r == 0 || n < 8) {
            for (int c = 0; c < n; c++) worksheet_write_string(ws, r, (lxw_col_t)c, f[c], NULL);
        } else {
            worksheet_write_number(ws, r, 0, strtod(f[0], NULL), NULL);
            worksheet_write_number(ws, r, 1, serial(f[1]), date);
            worksheet_write_string(ws, r, 2, f[2], NULL);
            worksheet_write_string(ws, r, 3, f[3], NULL);
            worksheet_write_number(ws, r, 4, strtod(f[4], NULL), NULL);
            worksheet_write_number(ws, r, 5, strtod(f[5], NULL), NULL);
            worksheet_write_number(ws, r, 6, strtod(f[6], NULL), NULL);
            worksheet_write_string(ws, r, 7, f[7], NULL);
        }
        r++;
    }
    free(line);
    fclose(in);
    return workbook_close(wb) == LXW_NO_ERROR ? 0 : 1;
}
