/* repack.c — puts the rows folio wrote (body.c) into the sheets of the
 * archive libxlsxwriter wrote.
 *
 * libxlsxwriter writes the workbook to a temporary archive with each such
 * sheet holding only its header row (and its totals row): every style,
 * width, filter, pane and print setting is its own. fo_xlsx_repack copies
 * that archive into the output entry by entry, the deflated bytes as they
 * are (zip_source_zip with ZIP_FL_COMPRESSED: nothing is inflated or
 * deflated again), except those sheets: each becomes one deflate stream
 * made of three — the sheet's XML up to its header row's </row> (deflated
 * here, sync-flushed), the rows' own stream (sync-flushed, from the spill
 * file) and the rest of the XML (deflated here, finished) — with the CRC
 * combined from the three. The output is written straight into its path
 * (fo_pkg__open_dest), so the output ceiling's watch sees it grow. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libdeflate.h>
#include <zip.h>
#include <zlib.h>

#include "render/ooxml/package.h"
#include "render/ooxml/zipsrc.h"
#include "render/xlsx/xlsx_internal.h"

/* ---- the streams ------------------------------------------------------------*/

bool fo_xlsx_rows_eligible(const fo_xlsx *x, const fo_dataset *ds, const fo_table_col *cols, size_t ncols)
{
    if (!x->fast || !ncols || !ds) return false;
    if (ds->src == FO_SRC_CSV) return true;
    for (size_t i = 0; i < ds->nrows; i++)
        for (size_t j = 0; j < ncols; j++) {
            fo_val_kind k = ds->cells[i * ds->ncols + cols[j].field].kind;
            if (k == FO_VAL_URL || k == FO_VAL_FORMULA) return false;
        }
    return true;
}

fo_xlsx_body *fo_xlsx__body_for(fo_xlsx *x, lxw_worksheet *w)
{
    if (!fo_grow((void **)&x->bodies, &x->bodycap, x->nbodies + 1, 4, sizeof *x->bodies)) return NULL;
    /* the ceiling holds for the rows of every sheet together */
    uint64_t used = 0;
    for (size_t i = 0; i < x->nbodies; i++) used += x->bodies[i].info.packed;
    uint64_t left = x->max_bytes > used ? x->max_bytes - used : 1;
    fo_xlsx_body *b = fo_xlsx_body_new(x->tmpdir, x->max_bytes ? left : 0);
    if (!b) return NULL;
    fo_xlsx_spliced *s = &x->bodies[x->nbodies++];
    memset(s, 0, sizeof *s);
    /* libxlsxwriter numbers the worksheet parts in sheet order (folio adds
       no chartsheets) */
    snprintf(s->entry, sizeof s->entry, "xl/worksheets/sheet%u.xml", (unsigned)w->index + 1);
    s->body = b;
    return b;
}

int fo_xlsx__body_done(fo_xlsx *x, fo_xlsx_body *b)
{
    for (size_t i = 0; i < x->nbodies; i++)
        if (x->bodies[i].body == b) {
            x->bodies[i].done = true;
            return fo_xlsx_body_finish(b, &x->bodies[i].info);
        }
    return EINVAL;
}

void fo_xlsx__bodies_free(fo_xlsx *x)
{
    for (size_t i = 0; i < x->nbodies; i++) fo_xlsx_body_free(x->bodies[i].body);
    fo_free(x->bodies);
    x->bodies = NULL;
    x->nbodies = x->bodycap = 0;
}

/* ---- a spliced sheet as a libzip source --------------------------------------*/

typedef struct {
    unsigned char *head, *tail; /* deflated pieces of libxlsxwriter's XML */
    size_t head_len, tail_len;
    const fo_xlsx_body_info *rows;
    uint64_t size, comp_size, pos;
    uint32_t crc;
    zip_error_t err;
} spliced_src;

/* Deflates n bytes of s (raw; finished when last, else sync-flushed) into a
 * new buffer; NULL when out of memory. */
static unsigned char *deflate_piece(const char *s, size_t n, bool last, size_t *out_len)
{
    z_stream z = {0};
    if (deflateInit2(&z, FO_XLSX_BODY_LEVEL, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY) != Z_OK) return NULL;
    size_t cap = deflateBound(&z, (uLong)n) + 16;
    unsigned char *out = fo_malloc(cap);
    if (out) {
        z.next_in = (Bytef *)s;
        z.avail_in = (uInt)n;
        z.next_out = out;
        z.avail_out = (uInt)cap;
        int rc = deflate(&z, last ? Z_FINISH : Z_SYNC_FLUSH);
        if ((last && rc != Z_STREAM_END) || (!last && rc != Z_OK) || z.avail_in) {
            fo_free(out);
            out = NULL;
        } else *out_len = cap - z.avail_out;
    }
    deflateEnd(&z);
    return out;
}

static zip_int64_t spliced_read(void *ud, void *data, zip_uint64_t n, zip_source_cmd_t cmd)
{
    spliced_src *s = ud;
    switch (cmd) {
    case ZIP_SOURCE_OPEN: s->pos = 0; return 0;
    case ZIP_SOURCE_READ: {
        uint64_t left = s->comp_size - s->pos;
        if (n > left) n = left;
        unsigned char *o = data;
        for (uint64_t done = 0; done < n;) {
            uint64_t at = s->pos + done, k;
            if (at < s->head_len) {
                k = s->head_len - at < n - done ? s->head_len - at : n - done;
                memcpy(o + done, s->head + at, (size_t)k);
            } else if (at < s->head_len + s->rows->packed) {
                uint64_t off = at - s->head_len;
                k = s->rows->packed - off < n - done ? s->rows->packed - off : n - done;
                int e = fo_zip_pread(s->rows->fd, o + done, (size_t)k, off);
                if (e) {
                    zip_error_set(&s->err, ZIP_ER_READ, e);
                    return -1;
                }
            } else {
                uint64_t off = at - s->head_len - s->rows->packed;
                k = s->tail_len - off < n - done ? s->tail_len - off : n - done;
                memcpy(o + done, s->tail + off, (size_t)k);
            }
            done += k;
        }
        s->pos += n;
        return (zip_int64_t)n;
    }
    case ZIP_SOURCE_CLOSE: return 0;
    case ZIP_SOURCE_STAT: return fo_zip_stat_deflated(&s->err, data, n, s->size, s->comp_size, s->crc);
    case ZIP_SOURCE_FREE:
        zip_error_fini(&s->err);
        fo_free(s->head);
        fo_free(s->tail);
        fo_free(s);
        return 0;
    FO_ZIP_SOURCE_OTHER_CASES:
    default: return fo_zip_source_other(&s->err, data, n, cmd);
    }
}

/* Reads entry i of za whole (NUL-terminated); NULL on failure. */
static char *read_entry(zip_t *za, zip_uint64_t i, size_t *len)
{
    zip_stat_t st;
    if (zip_stat_index(za, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_SIZE)) return NULL;
    char *buf = fo_malloc((size_t)st.size + 1);
    zip_file_t *f = buf ? zip_fopen_index(za, i, 0) : NULL;
    if (!f || zip_fread(f, buf, st.size) != (zip_int64_t)st.size) {
        if (f) zip_fclose(f);
        fo_free(buf);
        return NULL;
    }
    zip_fclose(f);
    buf[st.size] = 0;
    *len = (size_t)st.size;
    return buf;
}

/* The source of a spliced sheet from libxlsxwriter's XML of it; NULL when
 * out of memory or when the XML has no header row to put the rows after. */
static zip_source_t *spliced_source(zip_t *dst, const char *xml, size_t len, const fo_xlsx_body_info *rows)
{
    const char *data = strstr(xml, "<sheetData>");
    const char *end = data ? strstr(data, "</row>") : NULL;
    if (!end) return NULL;
    size_t split = (size_t)(end + 6 - xml);
    spliced_src *s = fo_calloc(1, sizeof *s);
    if (!s) return NULL;
    s->rows = rows;
    s->head = deflate_piece(xml, split, false, &s->head_len);
    s->tail = deflate_piece(xml + split, len - split, true, &s->tail_len);
    zip_error_init(&s->err);
    zip_source_t *src = s->head && s->tail ? zip_source_function(dst, spliced_read, s) : NULL;
    if (!src) {
        zip_error_fini(&s->err);
        fo_free(s->head);
        fo_free(s->tail);
        fo_free(s);
        return NULL;
    }
    uint32_t crc = (uint32_t)libdeflate_crc32(0, xml, split);
    crc = (uint32_t)crc32_combine64(crc, rows->crc, (z_off64_t)rows->raw);
    uint32_t tail_crc = (uint32_t)libdeflate_crc32(0, xml + split, len - split);
    s->crc = (uint32_t)crc32_combine64(crc, tail_crc, (z_off64_t)(len - split));
    s->size = split + rows->raw + (len - split);
    s->comp_size = s->head_len + rows->packed + s->tail_len;
    return src;
}

static const fo_xlsx_spliced *spliced_for(const fo_xlsx *x, const char *name)
{
    for (size_t i = 0; i < x->nbodies; i++)
        if (x->bodies[i].done && strcmp(x->bodies[i].entry, name) == 0) return &x->bodies[i];
    return NULL;
}

/* Adds entry i of from to dst: copied deflated, or spliced. */
static bool copy_entry(fo_xlsx *x, zip_t *from, zip_t *dst, zip_uint64_t i)
{
    zip_stat_t st;
    if (zip_stat_index(from, i, 0, &st) < 0 || !(st.valid & ZIP_STAT_NAME)) return false;
    const fo_xlsx_spliced *sp = spliced_for(x, st.name);
    zip_source_t *src;
    if (sp) {
        size_t len = 0;
        char *xml = read_entry(from, i, &len);
        src = xml ? spliced_source(dst, xml, len, &sp->info) : NULL;
        fo_free(xml);
    } else src = zip_source_zip(dst, from, i, ZIP_FL_COMPRESSED, 0, -1);
    if (!src) return false;
    zip_int64_t idx = zip_file_add(dst, st.name, src, ZIP_FL_ENC_UTF_8);
    if (idx < 0) {
        zip_source_free(src);
        return false;
    }
    /* the entry's own time (libxlsxwriter: 1980-01-01), not now */
    return !(st.valid & ZIP_STAT_MTIME) || zip_file_set_mtime(dst, (zip_uint64_t)idx, st.mtime, 0) == 0;
}

fo_status fo_xlsx_repack(fo_xlsx *x, const char *from_path, const char *to, fo_diags *d)
{
    int zerr = 0;
    zip_t *from = zip_open(from_path, ZIP_RDONLY, &zerr);
    if (!from) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot read back the workbook (libzip error %d)",
                     x->dest, zerr);
        return FO_ERR_IO;
    }
    zip_t *dst = fo_pkg__open_dest(to, &zerr);
    if (!dst) {
        zip_close(from);
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot start the archive (libzip error %d)", x->dest,
                     zerr);
        return FO_ERR_IO;
    }
    zip_int64_t n = zip_get_num_entries(from, 0);
    bool ok = n >= 0;
    for (zip_int64_t i = 0; ok && i < n; i++) ok = copy_entry(x, from, dst, (zip_uint64_t)i);
    fo_status st = FO_OK;
    if (!ok) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: cannot splice the rows into the workbook: %s", x->dest,
                     zip_strerror(dst));
        zip_discard(dst);
        st = FO_ERR_IO;
    } else if (zip_close(dst) < 0) {
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: writing the workbook failed: %s", x->dest,
                     zip_strerror(dst));
        zip_discard(dst);
        st = FO_ERR_IO;
    }
    zip_discard(from);
    return st;
}
