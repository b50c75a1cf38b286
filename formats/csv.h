/* csv.h — streaming RFC 4180 reader and the one-pass CSV dataset scan.
 *
 * The reader hands out one record at a time from a growable record buffer, so
 * memory stays constant whatever the file size (one 256 KiB read block plus
 * the longest record). Accepted input:
 *   - fields separated by one delimiter byte (, ; TAB |), detected when 0;
 *   - quoted fields with "" escapes and embedded line breaks (kept verbatim);
 *   - CRLF, LF or lone CR line endings, with or without a final one;
 *   - a UTF-8 byte order mark at the start (skipped);
 *   - quotes inside an unquoted field are literal characters (a"b -> a"b);
 *   - text after a closing quote is appended ("ab"c -> abc);
 *   - blank lines (no bytes at all between two line breaks) are skipped;
 *     a record that must hold one empty field is written "" (as Python does).
 * Rejected, with a diagnostic naming the line and the column (1-based field
 * number): invalid UTF-8, NUL bytes, an unterminated quote at end of file
 * (named at the line where the field opened), a record over
 * FO_CSV_MAX_RECORD bytes or FO_CSV_MAX_FIELDS fields. */
#ifndef FO_CSV_H
#define FO_CSV_H

#include "folio.h"
#include "formats/infer.h"
#include "render/core/model.h"

#define FO_CSV_MAX_RECORD ((size_t)64 << 20) /* bytes of one record */
#define FO_CSV_MAX_FIELDS ((size_t)100000)   /* fields of one record */

typedef struct fo_csv fo_csv;

/* Opens path for reading. delimiter 0 = detect from the first lines among
 * , ; TAB | (quoted parts ignored; ',' when nothing fits). Errors (missing or
 * unreadable file) go to d naming path. Caller closes with fo_csv_close. */
fo_status fo_csv_open(const char *path, char delimiter, fo_csv **out, fo_diags *d);
/* The same, with display (borrowed, must outlive the reader; NULL = path)
 * used as the file name in every diagnostic. */
fo_status fo_csv_open_named(const char *path, const char *display, char delimiter,
                            fo_csv **out, fo_diags *d);
/* Reads from memory: buf (borrowed, must outlive the reader) of len bytes;
 * display names it in diagnostics (borrowed; NULL = "<memory>"). */
fo_status fo_csv_open_mem(const char *buf, size_t len, const char *display,
                          char delimiter, fo_csv **out, fo_diags *d);

char fo_csv_delimiter(const fo_csv *c);

/* Next record. *fields[i] is NUL-terminated with (*lens)[i] bytes (a field
 * never contains NUL); all valid until the next call or close.
 * Returns 1 = record, 0 = end of file, -1 = error reported in d.
 * After an error inside a record (invalid UTF-8, NUL byte, too many fields)
 * the record has been consumed and the next call reads the next one; after
 * an unterminated quote, a too-long record or a read error every later call
 * returns -1 again without a new diagnostic. */
int fo_csv_next(fo_csv *c, const char *const **fields, const size_t **lens,
                size_t *nfields, fo_diags *d);
/* 1-based line where the last record started. */
size_t fo_csv_line(const fo_csv *c);
/* fo_csv_close(NULL) is a no-op. */
void fo_csv_close(fo_csv *c);

/* One streaming pass over ds->csv_path (diagnostics name ds->csv_display,
 * or csv_path when that is NULL). Sets ds->delimiter when 0; ds->cols and
 * ds->ncols (names from the header record, or "column 1".. when !ds->header;
 * empty header names become "column N" and duplicates "name (2)", "name (3)"..);
 * each column's type and format are inferred (formats/infer.h) except where
 * hints carry a column of the same name with a type and/or format; and
 * ds->nrows (data records). Everything is allocated in arena a.
 * Errors go to d: missing/unreadable file, empty file, invalid UTF-8, NUL,
 * unterminated quote, a record with more non-empty fields than the header
 * (extra empty fields are ignored; fewer fields are padded with empty cells).
 * Without a header the widest record sets the number of columns. After an
 * error in a later record, ds->cols holds the header's names, untyped
 * (FO_TYPE_AUTO), so a reader can still check the fields a spec names.
 * Returns FO_OK, FO_ERR_INPUT, FO_ERR_IO or FO_ERR_NOMEM. */
fo_status fo_csv_scan(fo_dataset *ds, fo_arena *a, const fo_column *hints, size_t nhints,
                      fo_diags *d);

/* The rows of a CSV dataset (ds->src FO_SRC_CSV, scanned by fo_csv_scan):
 * a reader that loads one sets ds->stream = &fo_csv_stream. */
extern const fo_row_stream fo_csv_stream;

/* The same, with the dataset's notation nt (NULL = default; a hint's own
 * decimal or date order wins for its column), and with a located warning
 * for every column whose cells it does not all read (with a header only):
 * one per column, "file.csv:LINE:COLUMN" of the first such cell, with their
 * count and the first places — cells of a declared type that are not of it,
 * dates that do not fit the column's day/month order; and one when every
 * date of a column fits both orders. *warnings (may be NULL) counts them. */
fo_status fo_csv_scan_n(fo_dataset *ds, fo_arena *a, const fo_column *hints, size_t nhints,
                        const fo_notation *nt, fo_diags *d, int *warnings);

/* ---- private: shared by formats/csv.c, csv_check.c and csv_rows.c ----------- */
/* The second pass of fo_csv_scan_n, over ds (typed) with the first pass's
 * accumulators (one per column): the warnings above. Reads the file again
 * only when a column has something to report. */
fo_status fo_csv__check_cells(const fo_dataset *ds, const fo_infer *inf, fo_diags *d,
                              int *warnings);
/* True after an error that ends reading (every later fo_csv_next is -1). */
bool fo_csv__fatal(const fo_csv *c);
/* Display name used in diagnostics about ds. */
const char *fo_csv__display(const fo_dataset *ds);
/* Opens ds->csv_path with ds->delimiter (detected when 0) and skips the
 * header record when ds->header. */
fo_status fo_csv__open_dataset(const fo_dataset *ds, fo_csv **out, fo_diags *d);
/* Checks a record against ncols columns: returns false (and reports in d)
 * when it has a non-empty field past ncols. */
bool fo_csv__check_width(const fo_csv *c, const char *display, const size_t *lens,
                         size_t nfields, size_t ncols, fo_diags *d);

#endif
