/* templates.h — the files under templates/ (themes, the JSON Schemas, OOXML
 * skeleton parts), embedded into the binary at build time by tools/embed.c
 * (build/templates.c defines these). */
#ifndef FO_TEMPLATES_H
#define FO_TEMPLATES_H

#include <stddef.h>

/* The bytes of templates/NAME ("themes/default.json", "docx/styles.xml"),
 * NUL-terminated, with their length in *len (len may be NULL); NULL when
 * there is no such file. Static data:
 * never freed. */
const unsigned char *fo_template_find(const char *name, size_t *len);
/* The i-th embedded name in sorted order, NULL past the end. */
const char *fo_template_name(size_t i);

#endif
