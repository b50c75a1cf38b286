/* spec_internal.h — shared by the spec reader's files (spec.c, spec_data.c,
 * spec_util.c); not part of the library's API.
 *
 * The reader validates everything it can and keeps going after an error, so
 * one run reports every problem of a spec. Each error is located: file,
 * line:column of the offending value (or key), and its JSON Pointer. */
#ifndef FO_SPEC_INTERNAL_H
#define FO_SPEC_INTERNAL_H

#include <limits.h>
#include "formats/json.h"
#include "render/core/model.h"

#define FO_PTR_MAX 512

/* Sizes a spec may not exceed (bytes unless said): every writer handles
 * these, and beyond them some cannot (libharu's strings stop at 65,535
 * bytes, its page tree near 32,767 pages). Documented in README. */
#define FO_SPEC_TEXT_MAX (1u << 20)   /* a paragraph, list item or code block */
#define FO_SPEC_NAME_MAX 4096u        /* titles, headings, captions, labels, paths */
#define FO_SPEC_FORMULA_MAX 8192u     /* Excel's formula length */
#define FO_SPEC_CODE_LINES 100000u    /* lines of one code block */

/* Errors reported one by one per spec (or theme); the rest are counted and
 * summed up in one last line: "... and 39,900 more errors". */
#define FO_SPEC_MAX_ERRORS 100

/* One message reported at several places: listed once, with the count
 * and the first places (fo_spec_finish writes them into the message). */
typedef struct {
    size_t diag;            /* index of its one diagnostic in d */
    int count;              /* places, the first included */
    char *places[3];        /* pointers of the 2nd, 3rd, 4th (owned) */
} fo_spec_group;

typedef struct {
    fo_json *json;
    fo_diags *d;
    fo_doc *doc;
    const char *file;       /* display name of the spec */
    char base_real[PATH_MAX]; /* realpath of the spec's folder */
    int errors;             /* all of them, reported or not */
    int warnings;           /* likewise */
    int listed_errors, listed_warnings; /* distinct messages (a group counts once) */
    int nan;                /* "nan": how NaN / Infinity cells are read (FO_SPEC_NAN_*) */
    bool nan_given;         /* the spec said it: no warning about them */
    fo_spec_group *groups;  /* owned; fo_spec_finish frees */
    size_t ngroups, capgroups;
} fo_spec_ctx;

enum { FO_SPEC_NAN_BLANK = 0, FO_SPEC_NAN_TEXT, FO_SPEC_NAN_ERROR };

/* Ends a reading: repeated messages get their count and places, and the
 * closing "... and N more" lines are added. Frees the groups. */
void fo_spec_finish(fo_spec_ctx *c);

/* Reports a problem at pointer (at its key when key is true). */
void fo_spec_error(fo_spec_ctx *c, const char *pointer, bool key, const char *hint,
                   const char *fmt, ...) __attribute__((format(printf, 5, 6)));

/* Reports a warning at pointer: printed like an error, but the spec stays
 * valid (a refused link: the text is kept without it). */
void fo_spec_warn(fo_spec_ctx *c, const char *pointer, const char *hint,
                  const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* True when url may be a link (render/core/policy.h); else warns at ptr. */
bool fo_spec_check_link(fo_spec_ctx *c, const char *url, const char *ptr);
/* Warns at ptr for each link of inline markup text the policy refuses (the
 * writers drop those links and keep their labels). */
void fo_spec_check_markup(fo_spec_ctx *c, const char *text, const char *ptr);

/* The closing "... and N more errors" line when n (of what: "error",
 * "warning") went over FO_SPEC_MAX_ERRORS (nothing otherwise). */
void fo_spec_more_errors(fo_diags *d, const char *file, int n, const char *what);

/* Checks that obj has only allowed keys; reports each unknown one with a
 * suggestion. allowed is NULL-terminated. */
void fo_spec_check_keys(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *const *allowed);
/* Closest candidate within edit distance, or NULL. */
const char *fo_spec_suggest(const char *word, const char *const *candidates);

/* Typed getters: NULL/false when absent; report a type error when present
 * but wrong, or when required and absent. ptr is the object's pointer. */
const char *fo_spec_string(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, bool required);
bool fo_spec_bool(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, bool dflt);
/* Integer in [lo, hi]; returns dflt when absent or invalid. */
long fo_spec_int(fo_spec_ctx *c, json_t *obj, const char *ptr, const char *key, long lo, long hi, long dflt);
const char *fo_spec_json_type(const json_t *v);
/* The string v, or NULL (reported at ptr) when it is over cap bytes. */
const char *fo_spec_capped(fo_spec_ctx *c, json_t *v, const char *ptr, size_t cap);
/* A long text (FO_SPEC_TEXT_MAX) as a string; "" when refused. */
const char *fo_spec_text_value(fo_spec_ctx *c, json_t *v, const char *ptr);

/* dst = base + "/" + key (dst holds FO_PTR_MAX bytes). */
void fo_spec_ptr(char *dst, const char *base, const char *key);

/* Copies into the doc's arena. */
char *fo_spec_strdup(fo_spec_ctx *c, const char *s);

/* Resolves a relative path inside the spec's folder (formats/path.h: no
 * links, regular files of at most max_bytes); NULL (reported at ptr) if it
 * is absolute, escapes the folder, does not exist or is refused. */
char *fo_spec_resolve(fo_spec_ctx *c, const char *path, const char *ptr, uint64_t max_bytes);

/* Validates an Excel format code; reports at ptr when invalid. */
bool fo_spec_check_format(fo_spec_ctx *c, const char *code, const char *ptr);

/* Datasets (spec_data.c). */
void fo_spec_read_datasets(fo_spec_ctx *c, json_t *data);
/* A block's "data": a dataset name or an inline dataset object. */
fo_dataset *fo_spec_block_data(fo_spec_ctx *c, json_t *block, const char *ptr, const char *label);
/* Index of column name in ds, or reports (with suggestion) and returns -1. */
long fo_spec_field(fo_spec_ctx *c, const fo_dataset *ds, const char *name, const char *ptr);
/* Converts one JSON cell value; reports problems. */
bool fo_spec_cell(fo_spec_ctx *c, json_t *v, const char *ptr, fo_value *out);

#endif
