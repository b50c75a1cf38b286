/* xlsx.c — the .xlsx renderer's entry point: plans sheets, opens the
 * libxlsxwriter workbook in the right memory mode, writes tables, charts and
 * the Summary sheet, and closes the workbook into the staged file.
 *
 * Sheet order: one sheet per table block in block order (a long table's
 * parts follow it), so that the workbook opens on the first table and
 * pandas.read_excel(path) reads its data; then the Summary sheet (omitted
 * for a bare CSV conversion and for a spec that is one table: see
 * data_first); then a data sheet per chart whose dataset no table shows.
 * The Summary comes first instead when there is no table, or when the spec
 * says "xlsx": {"first_sheet": "summary"}. Charts sit on the Summary sheet
 * where their block is, so that sheet reads in the order of the document.
 *
 * Determinism: libxlsxwriter 1.1.4 stamps every zip entry 1980-01-01 and
 * takes docProps dates from lxw_doc_properties.created, which we set to
 * doc->epoch; with that, the same doc gives byte-identical files. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "base/buf.h"
#include "render/core/markup.h"
#include "render/core/prov.h"
#include "render/xlsx/xlsx_internal.h"

/* Memory mode. Shared strings (the default) keep every distinct string of
 * the workbook in memory until close: files are smaller (a repeated string
 * is stored once) but memory grows with the text of the data. constant_memory
 * writes each row to a temp file as soon as the next row starts and stores
 * strings inline: memory stays flat (one row), files grow by the repeated
 * text, which deflate mostly absorbs (measured: +1% on the benchmark's
 * 20k-row sales table; more for very repetitive short text).
 * The rule: constant_memory once the document holds more than
 * INLINE_CELLS cells. Below that, shared strings cost at most a few MiB
 * of memory and give the smallest file, which is what matters against the
 * output ceiling for small documents; above it, a table that fits the
 * ceiling is dominated by numbers and deflate, so the inline overhead is
 * small, while shared strings would cost memory proportional to the data
 * (the 200k-row benchmark would need ~60 MiB).
 * The ceiling (fo_outset_max_bytes) does not change the choice: shared
 * strings save ~1% on realistic tables, so a file that only fits the
 * ceiling with them is within 1% of it either way, while the memory they
 * cost is unbounded.
 * In constant_memory mode the rows of a table without links or formulas
 * are not libxlsxwriter's: sheets.c formats them (body.c) and a second
 * thread deflates them as they come; libxlsxwriter writes the workbook
 * around them (styles, header row, widths, filter, totals, other sheets)
 * into $TMPDIR, and repack.c copies that archive into the output with the
 * rows spliced in. The sheet XML is the same as libxlsxwriter's; its
 * deflated bytes are not (zlib level FO_XLSX_BODY_LEVEL, ~9% bigger than
 * libxlsxwriter's level 6, at a third of its CPU time). */
#define INLINE_CELLS 100000u

/* Uncompressed sheet XML beyond 4 GiB needs ZIP64; a cell costs < 60 bytes
 * of XML, so switch it on only for documents that could get there (ZIP64
 * headers change the bytes of every file, so not by default). */
#define ZIP64_CELLS 60000000u

static size_t doc_cells(const fo_doc *doc)
{
    size_t cells = 0;
    for (size_t i = 0; i < doc->nblocks; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind == FO_BLOCK_TABLE && b->u.table.data)
            cells += (b->u.table.data->nrows + 2) * b->u.table.ncols;
        else if (b->kind == FO_BLOCK_CHART && b->u.chart.data)
            cells += (b->u.chart.data->nrows + 1) * b->u.chart.data->ncols;
    }
    return cells;
}

/* A bare CSV conversion (no spec, tables only) opens on its data. */
/* A spec whose content is one table, headings aside ("export this to a
 * spreadsheet"): its workbook is that table alone — pandas.read_excel(path)
 * reads the data, and the title lives in the document properties. A spec
 * with words of its own (paragraphs, lists, code) is a report: its Summary
 * sheet comes first. */
static bool data_first(const fo_doc *doc)
{
    size_t tables = 0;
    for (size_t i = 0; i < doc->nblocks; i++) {
        fo_block_kind k = doc->blocks[i].kind;
        if (k == FO_BLOCK_TABLE) tables++;
        else if (k != FO_BLOCK_HEADING && k != FO_BLOCK_PAGE_BREAK && k != FO_BLOCK_TOC) return false;
    }
    return tables == 1;
}

/* The Summary sheet holds the title block and the blocks that are not
 * tables; a CSV conversion and a data-first spec have none. */
static bool wants_summary(const fo_doc *doc)
{
    if (data_first(doc)) return false;
    if (doc->spec_path || doc->title || doc->subtitle || doc->author) return true;
    for (size_t i = 0; i < doc->nblocks; i++)
        if (doc->blocks[i].kind != FO_BLOCK_TABLE) return true;
    return false;
}

/* Sheet name a table asks for: its "sheet", else its caption without
 * markup, else its dataset's name. */
static fo_status table_wanted_name(const fo_block *b, char **out)
{
    *out = NULL;
    if (b->u.table.sheet) {
        *out = fo_strdup(b->u.table.sheet);
        return *out ? FO_OK : FO_ERR_NOMEM;
    }
    if (b->u.table.caption && b->u.table.caption[0]) {
        *out = fo_markup_plain(b->u.table.caption);
        return *out ? FO_OK : FO_ERR_NOMEM;
    }
    const char *n = b->u.table.data && b->u.table.data->name ? b->u.table.data->name : "Table";
    *out = fo_strdup(n);
    return *out ? FO_OK : FO_ERR_NOMEM;
}

static fo_status plan_tables(fo_xlsx *x)
{
    const fo_doc *doc = x->doc;
    size_t n = 0;
    for (size_t i = 0; i < doc->nblocks; i++) n += doc->blocks[i].kind == FO_BLOCK_TABLE;
    x->tables = fo_calloc(n ? n : 1, sizeof *x->tables);
    if (!x->tables) return FO_ERR_NOMEM;
    for (size_t i = 0; i < doc->nblocks; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind != FO_BLOCK_TABLE) continue;
        fo_xlsx_table *t = &x->tables[x->ntables++];
        t->block = b;
        size_t nrows = b->u.table.data ? b->u.table.data->nrows : 0;
        t->nparts = fo_xlsx_parts_for(nrows, b->u.table.has_totals);
        if (!fo_grow((void **)&t->parts, &t->parts_cap, t->nparts, t->nparts, sizeof *t->parts))
            return FO_ERR_NOMEM;
        char *want = NULL;
        fo_status st = table_wanted_name(b, &want);
        if (st == FO_OK) st = fo_xlsx_sheet_name(&x->names, want, t->parts[0]);
        for (size_t p = 1; st == FO_OK && p < t->nparts; p++) {
            char part[FO_XLSX_NAME_CAP + 16];
            snprintf(part, sizeof part, "%s (%zu)", t->parts[0], p + 1);
            st = fo_xlsx_sheet_name(&x->names, part, t->parts[p]);
        }
        fo_free(want);
        if (st != FO_OK) return st;
    }
    return FO_OK;
}

static fo_status set_properties(fo_xlsx *x)
{
    const fo_doc *doc = x->doc;
    char *title = NULL, *subject = NULL, *author = NULL;
    fo_status st = FO_OK;
    /* properties are plain text: clean each into its own copy */
    const char *src[3] = {doc->title, doc->subtitle, doc->author};
    char **dst[3] = {&title, &subject, &author};
    for (int i = 0; i < 3; i++) {
        if (!src[i]) continue;
        const char *c = fo_xlsx_clean(&x->buf, src[i], strlen(src[i]), FO_XLSX_PLAIN);
        if (!c || !(*dst[i] = fo_strdup(c))) { st = FO_ERR_NOMEM; goto cleanup; }
    }
    lxw_doc_properties props = {
        .title = title, .subject = subject, .author = author,
        .created = (time_t)(doc->epoch == FO_NO_EPOCH ? FO_FIXED_EPOCH : doc->epoch),
    };
    if (workbook_set_properties(x->wb, &props) != LXW_NO_ERROR) st = FO_ERR_NOMEM;
cleanup:
    fo_free(title);
    fo_free(subject);
    fo_free(author);
    return st;
}

/* The provenance (render/core/prov.h) as custom document properties. Each
 * value is cleaned like the other properties and, past libxlsxwriter's limit
 * of 255 characters, cut at a character boundary. */
static fo_status set_provenance(fo_xlsx *x, const fo_render_opts *opts)
{
    fo_prov_item items[FO_PROV_MAX];
    size_t n = fo_prov_collect(x->doc, opts, items);
    for (size_t k = 0; k < n; k++) {
        const char *c = fo_xlsx_clean(&x->buf, items[k].value, strlen(items[k].value), FO_XLSX_PLAIN);
        if (!c) return FO_ERR_NOMEM;
        char v[256];
        size_t len = strlen(c);
        if (len > 255) {
            len = 255;
            while (len && ((unsigned char)c[len] & 0xC0) == 0x80) len--;
        }
        memcpy(v, c, len);
        v[len] = 0;
        if (workbook_set_custom_property_string(x->wb, items[k].name, v) != LXW_NO_ERROR) return FO_ERR_NOMEM;
    }
    return FO_OK;
}

/* Folder for libxlsxwriter's working files (worksheet XML, ~8x the .xlsx):
 * $TMPDIR, else /tmp, like the OOXML writers' parts -- not beside the output,
 * whose folder must never hold more than about the ceiling while a render
 * runs (issue 16 item 13: render/output.c stops the staged file there). */
static char *work_dir(void)
{
    const char *t = getenv("TMPDIR");
    return fo_strdup(t && *t ? t : "/tmp");
}

static void free_ctx(fo_xlsx *x)
{
    for (size_t i = 0; i < x->ntables; i++) fo_free(x->tables[i].parts);
    fo_free(x->tables);
    for (size_t i = 0; i < x->nrefs; i++) fo_free(x->refs[i].col_of_field);
    fo_free(x->refs);
    for (size_t i = 0; i < x->nfmts; i++) fo_free(x->fmts[i].code);
    fo_free(x->fmts);
    fo_xlsx_names_free(&x->names);
    fo_buf_free(&x->buf);
    fo_buf_free(&x->buf2);
    fo_xlsx__bodies_free(x);
}

/* Whether folio writes some table's rows itself (body.c): in constant_memory
 * mode, for a table that fo_xlsx_rows_eligible takes. */
static bool any_fast_table(const fo_xlsx *x)
{
    for (size_t i = 0; i < x->ntables; i++) {
        const fo_block *b = x->tables[i].block;
        if (fo_xlsx_rows_eligible(x, b->u.table.data, b->u.table.cols, b->u.table.ncols)) return true;
    }
    return false;
}

/* A name for libxlsxwriter's archive in dir when rows are spliced into it
 * afterwards (fo_xlsx_repack); NULL when out of memory or not creatable. */
static char *work_archive(const char *dir)
{
    size_t n = strlen(dir) + 32;
    char *p = fo_malloc(n);
    if (!p) return NULL;
    snprintf(p, n, "%s/folio-xlsx-XXXXXX", dir);
    int fd = mkostemp(p, O_CLOEXEC);
    if (fd < 0) {
        fo_free(p);
        return NULL;
    }
    close(fd);
    return p;
}

fo_status fo_xlsx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d)
{
    fo_xlsx x = {.doc = doc, .d = d, .dest = dest, .max_bytes = fo_outset_max_bytes(out)};
    lxw_chart **charts = NULL;
    char *tmpdir = NULL, *work = NULL;
    fo_status st = FO_OK;
    fo_theme borrowed = doc->theme; /* --template FILE.xlsx lends its theme (only an .xlsx reaches here) */
    const char *tpl = opts ? opts->template_path : NULL;
    if (tpl && (st = fo_xlsx_template_theme(tpl, &borrowed, d)) != FO_OK) return st;
    fo_theme paper; /* a sheet has no background: a dark theme's light variant */
    fo_theme_on_paper(&borrowed, &paper);
    x.th = &paper;

    const char *path = fo_outset_add(out, dest, "xlsx", d);
    if (!path) return FO_ERR_IO;
    if (!(charts = fo_calloc(doc->nblocks ? doc->nblocks : 1, sizeof *charts)) ||
        !(tmpdir = work_dir())) { st = FO_ERR_NOMEM; goto cleanup; }

    char summary_name[FO_XLSX_NAME_CAP];
    bool summary = wants_summary(doc);
    if (summary && (st = fo_xlsx_sheet_name(&x.names, "Summary", summary_name)) != FO_OK) goto cleanup;
    if ((st = plan_tables(&x)) != FO_OK) goto cleanup;

    size_t cells = doc_cells(doc);
    x.constant_memory = cells > INLINE_CELLS;
    x.tmpdir = tmpdir;
    x.fast = x.constant_memory;
    x.fast = x.fast && any_fast_table(&x);
    if (x.fast && !(work = work_archive(tmpdir))) {
        fo_diags_add(d, NULL, 0, 0, NULL, "check that $TMPDIR (else /tmp) is writable",
                     "%s: cannot create a temporary file in %s: %s", dest, tmpdir, strerror(errno));
        st = FO_ERR_IO;
        goto cleanup;
    }
    lxw_workbook_options wo = {
        .constant_memory = x.constant_memory,
        .tmpdir = tmpdir,
        .use_zip64 = cells > ZIP64_CELLS,
    };
    if (!(x.wb = workbook_new_opt(work ? work : path, &wo))) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot start the workbook", dest);
        st = FO_ERR_IO;
        goto cleanup;
    }
    if ((st = set_properties(&x)) != FO_OK) goto cleanup;
    if ((st = set_provenance(&x, opts)) != FO_OK) goto cleanup;
    /* sheets open in the order they are added */
    bool summary_first = doc->xlsx_summary_first || x.ntables == 0;
    if (summary && summary_first && !(x.summary = workbook_add_worksheet(x.wb, summary_name))) {
        st = FO_ERR_NOMEM;
        goto cleanup;
    }
    for (size_t i = 0; i < x.ntables; i++) {
        const fo_block *b = x.tables[i].block;
        st = fo_xlsx_write_table(&x, b->u.table.data, b->u.table.cols, b->u.table.ncols,
                                 b->u.table.has_totals, &x.tables[i]);
        if (st != FO_OK) goto cleanup;
    }
    if (summary && !summary_first && !(x.summary = workbook_add_worksheet(x.wb, summary_name))) {
        st = FO_ERR_NOMEM;
        goto cleanup;
    }
    if (x.summary && doc->rtl) worksheet_right_to_left(x.summary);  /* read from the right, as the text */
    for (size_t i = 0; i < doc->nblocks; i++) {
        const fo_block *b = &doc->blocks[i];
        if (b->kind != FO_BLOCK_CHART) continue;
        const fo_xlsx_dataref *ref = NULL;
        if ((st = fo_xlsx_dataref_for(&x, &b->u.chart, &ref)) != FO_OK) goto cleanup;
        if ((st = fo_xlsx_chart_build(&x, b, ref, &charts[i])) != FO_OK) goto cleanup;
    }
    if (x.summary && (st = fo_xlsx_write_summary(&x, charts)) != FO_OK) goto cleanup;

    lxw_error err = workbook_close(x.wb);
    x.wb = NULL;
    if (err != LXW_NO_ERROR) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: writing the workbook failed: %s",
                     dest, lxw_strerror(err));
        st = err == LXW_ERROR_MEMORY_MALLOC_FAILED ? FO_ERR_NOMEM : FO_ERR_IO;
    }
    if (st == FO_OK && work) st = fo_xlsx_repack(&x, work, path, d);
cleanup:
    if (x.wb) lxw_workbook_free(x.wb); /* failed: drop everything, write nothing */
    free_ctx(&x);
    fo_free(charts);
    fo_free(tmpdir);
    if (work) unlink(work);
    fo_free(work);
    return st;
}
