/* pdf_floor.c — the benchmark's floor: the least a libharu program must do
 * to draw the report spec's text, tables and charts, with no layout engine.
 *
 * Reads report.json (jansson) and its CSVs; same fonts as folio (Liberation
 * Sans, embedded, UTF-8); paragraphs wrapped with HPDF_Page_MeasureText;
 * tables as fixed-width text rows; charts as plain bars. No outline, links,
 * footers, number formats or TOC. folio should stay within 2x of this.
 *
 * build: cc -O2 bench/pdf_floor.c -lhpdf -ljansson -lm -o build/pdf_floor
 * usage: pdf_floor SPEC.json OUT.pdf */
#include <hpdf.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FONT "/usr/share/fonts/truetype/liberation/LiberationSans-Regular.ttf"
#define FONT_BOLD "/usr/share/fonts/truetype/liberation/LiberationSans-Bold.ttf"

typedef struct {
    HPDF_Doc pdf;
    HPDF_Page page;
    HPDF_Font reg, bold;
    double y;
} floor_ctx;

static void on_error(HPDF_STATUS e, HPDF_STATUS detail, void *u)
{
    (void)u;
    fprintf(stderr, "pdf_floor: libharu error 0x%04X (%u)\n", (unsigned)e, (unsigned)detail);
    exit(1);
}

static void new_page(floor_ctx *c)
{
    c->page = HPDF_AddPage(c->pdf);
    HPDF_Page_SetSize(c->page, HPDF_PAGE_SIZE_A4, HPDF_PAGE_PORTRAIT);
    c->y = 842 - 57;
}

static void need(floor_ctx *c, double h)
{
    if (c->y - h < 57) new_page(c);
}

static void text(floor_ctx *c, HPDF_Font f, double size, double x, const char *s)
{
    HPDF_Page_BeginText(c->page);
    HPDF_Page_SetFontAndSize(c->page, f, (HPDF_REAL)size);
    HPDF_Page_TextOut(c->page, (HPDF_REAL)x, (HPDF_REAL)c->y, s);
    HPDF_Page_EndText(c->page);
}

static void paragraph(floor_ctx *c, const char *src)
{
    char *s = malloc(strlen(src) + 1), *o = s;
    for (const char *p = src; *p; p++)
        if (*p != '*') *o++ = *p;  /* markup markers out */
    *o = 0;
    HPDF_Page_SetFontAndSize(c->page, c->reg, 10.5);
    for (char *p = s; *p;) {
        HPDF_REAL w;
        HPDF_UINT n = HPDF_Page_MeasureText(c->page, p, 481, HPDF_TRUE, &w);
        if (n == 0) n = (HPDF_UINT)strlen(p);
        char save = p[n];
        p[n] = 0;
        need(c, 14.7);
        c->y -= 14.7;
        text(c, c->reg, 10.5, 57, p);
        p[n] = save;
        p += n;
        while (*p == ' ') p++;
    }
    c->y -= 7;
    free(s);
}

static void table(floor_ctx *c, const char *dir, const char *csv)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/%s", dir, csv);
    FILE *f = fopen(path, "r");
    if (!f) return;
    static const double x[] = {57, 160, 250, 330, 450};
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        line[strcspn(line, "\r\n")] = 0;
        need(c, 14);
        c->y -= 14;
        if (row % 2) {
            HPDF_Page_SetRGBFill(c->page, 0.93f, 0.95f, 0.98f);
            HPDF_Page_Rectangle(c->page, 57, (HPDF_REAL)(c->y - 3), 481, 14);
            HPDF_Page_Fill(c->page);
            HPDF_Page_SetRGBFill(c->page, 0, 0, 0);
        }
        int col = 0;
        for (char *tok = strtok(line, ","); tok && col < 5; tok = strtok(NULL, ","), col++)
            text(c, row == 0 ? c->bold : c->reg, 9.5, x[col], tok);
    }
    fclose(f);
    c->y -= 10;
}

static void chart(floor_ctx *c, const char *dir, const char *csv)
{
    char path[1024], line[256];
    snprintf(path, sizeof path, "%s/%s", dir, csv);
    FILE *f = fopen(path, "r");
    if (!f) return;
    need(c, 240);
    double base = c->y - 220;
    text(c, c->bold, 11, 200, "chart");
    for (int row = 0; fgets(line, sizeof line, f); row++) {
        if (row == 0) continue;
        char *m = strtok(line, ",");
        for (int s = 0; s < 3; s++) {
            double v = atof(strtok(NULL, ",\n"));
            HPDF_Page_SetRGBFill(c->page, s == 0 ? 0.18f : 0.9f, 0.4f, s == 2 ? 0.3f : 0.6f);
            HPDF_Page_Rectangle(c->page, (HPDF_REAL)(70 + (row - 1) * 38 + s * 11),
                                (HPDF_REAL)base, 10, (HPDF_REAL)(v / 250000 * 190));
            HPDF_Page_Fill(c->page);
        }
        c->y = base - 2;
        HPDF_Page_SetRGBFill(c->page, 0, 0, 0);
        text(c, c->reg, 8, 75 + (row - 1) * 38, m);
        c->y = base + 220;
    }
    fclose(f);
    c->y = base - 24;
}

int main(int argc, char **argv)
{
    if (argc != 3) { fprintf(stderr, "usage: pdf_floor SPEC.json OUT.pdf\n"); return 2; }
    json_error_t err;
    json_t *spec = json_load_file(argv[1], 0, &err);
    if (!spec) { fprintf(stderr, "pdf_floor: %s\n", err.text); return 2; }
    char dir[1024];
    snprintf(dir, sizeof dir, "%s", argv[1]);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = 0; else strcpy(dir, ".");
    json_t *data = json_object_get(spec, "data");

    floor_ctx c = {0};
    c.pdf = HPDF_New(on_error, NULL);
    HPDF_SetCompressionMode(c.pdf, HPDF_COMP_ALL);
    HPDF_UseUTFEncodings(c.pdf);
    HPDF_SetCurrentEncoder(c.pdf, "UTF-8");
    c.reg = HPDF_GetFont(c.pdf, HPDF_LoadTTFontFromFile(c.pdf, FONT, HPDF_TRUE), "UTF-8");
    c.bold = HPDF_GetFont(c.pdf, HPDF_LoadTTFontFromFile(c.pdf, FONT_BOLD, HPDF_TRUE), "UTF-8");
    new_page(&c);
    c.y -= 28;
    text(&c, c.bold, 28, 57, json_string_value(json_object_get(spec, "title")));
    c.y -= 20;
    size_t i;
    json_t *b;
    json_array_foreach(json_object_get(spec, "blocks"), i, b) {
        const char *type = json_string_value(json_object_get(b, "type"));
        if (strcmp(type, "heading") == 0) {
            need(&c, 60);
            c.y -= 30;
            text(&c, c.bold, 20, 57, json_string_value(json_object_get(b, "text")));
            c.y -= 8;
        } else if (strcmp(type, "paragraph") == 0) {
            paragraph(&c, json_string_value(json_object_get(b, "text")));
        } else if (strcmp(type, "table") == 0 || strcmp(type, "chart") == 0) {
            const char *name = json_string_value(json_object_get(b, "data"));
            const char *csv = json_string_value(json_object_get(json_object_get(data, name), "csv"));
            if (csv && type[1] == 'a') table(&c, dir, csv);
            else if (csv) chart(&c, dir, csv);
        }
    }
    HPDF_SaveToFile(c.pdf, argv[2]);
    HPDF_Free(c.pdf);
    json_decref(spec);
    return 0;
}
