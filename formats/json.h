/* json.h — a JSON document that remembers where each value came from.
 *
 * jansson parses (UTF-8 validation, escapes, duplicate keys, numbers) but its
 * DOM keeps no positions. fo_json keeps the source text too, and locates a
 * JSON Pointer on demand: the first locate builds line:column checkpoints
 * (every 4 KiB) and each container along a located path is indexed once
 * (its children's offsets), so N errors cost one pass plus N pointer walks,
 * not N rescans. A spec with no errors pays nothing. Columns count
 * characters, not bytes. */
#ifndef FO_JSON_H
#define FO_JSON_H

#include <jansson.h>
#include "folio.h"
#include "base/buf.h"      /* fo_json_ptr_push: the pointers diagnostics name */

typedef struct fo_json fo_json;

/* Reads and parses path. display is the name used in messages (NULL = path).
 * On a syntax error: FO_ERR_INPUT with the line and column in d. */
fo_status fo_json_load(const char *path, const char *display, fo_json **out, fo_diags *d);
/* Parses a buffer (copied). */
fo_status fo_json_parse(const char *text, size_t len, const char *display, fo_json **out, fo_diags *d);
void fo_json_free(fo_json *j);

json_t *fo_json_root(const fo_json *j);     /* borrowed */
/* Lowercase hex SHA-256 of the text as read: a loaded file's every byte. */
const char *fo_json_sha256(const fo_json *j);

/* NaN, Infinity and -Infinity (what Python's json.dumps writes for missing
 * or infinite floats) are read as null. Returns how many there were, and
 * the line and column of the first (only set when there was one). */
size_t fo_json_nonfinite(const fo_json *j, int *line, int *column);
const char *fo_json_display(const fo_json *j);

/* What the value at pointer was written as when the JSON reader took it
 * for null: FO_JSON_NAN, FO_JSON_INF or FO_JSON_NEG_INF; 0 for anything
 * else (a real null, another value, no such pointer). */
enum { FO_JSON_NAN = 1, FO_JSON_INF, FO_JSON_NEG_INF };
int fo_json_nonfinite_kind(const fo_json *j, const char *pointer);

/* Line and column (1-based) of the value at pointer ("" = root), or of the
 * member's key when key is true. Falls back to the nearest ancestor that
 * exists; returns false only if even the root cannot be found. */
bool fo_json_locate(const fo_json *j, const char *pointer, bool key, int *line, int *column);

/* Positions of the first n items of the array at pointer, in one pass over
 * the text (locating them one by one would rescan from the start each time).
 * Items not found get 0:0. */
void fo_json_locate_items(const fo_json *j, const char *pointer, size_t n, int *lines, int *columns);


#endif
