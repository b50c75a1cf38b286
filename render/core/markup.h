/* markup.h — inline markup of paragraphs, list items and captions -> runs.
 *
 * Syntax: **bold**, *italic* (also _italic_ at word boundaries is NOT special),
 * `code` (no markup inside), [label](url) (label may hold bold/italic; the url
 * holds no spaces or backticks, and its parentheses balance),
 * backslash escapes any ASCII punctuation. Unbalanced markers stay literal
 * text: markup never fails. */
#ifndef FO_MARKUP_H
#define FO_MARKUP_H

#include <stddef.h>
#include "folio.h"

enum { FO_RUN_BOLD = 1, FO_RUN_ITALIC = 2, FO_RUN_CODE = 4 };

typedef struct {
    char *text;      /* UTF-8, owned by the fo_runs */
    size_t len;
    unsigned flags;  /* FO_RUN_* */
    char *url;       /* link target or NULL */
} fo_run;

typedef struct {
    fo_run *runs;
    size_t n;
} fo_runs;

/* Parses src into runs (adjacent runs with equal style are merged).
 * Returns FO_OK or FO_ERR_NOMEM; on error *out is empty. */
fo_status fo_markup_parse(const char *src, fo_runs *out);
void fo_runs_free(fo_runs *r);
/* The text with markup removed (links keep their label). Caller frees with fo_free. */
char *fo_markup_plain(const char *src);

#endif
