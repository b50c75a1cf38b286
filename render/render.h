/* render.h — the renderer interface and registry (one module per format).
 *
 * A renderer turns a loaded fo_doc into one destination (PNG: one file per
 * chart, named from dest). It stages every file through the fo_outset and
 * reports problems in d; it never prints. */
#ifndef FO_RENDER_H
#define FO_RENDER_H

#include "render/core/model.h"
#include "render/output.h"

typedef fo_status (*fo_render_fn)(const fo_doc *doc, const char *dest, fo_outset *out,
                                  const fo_render_opts *opts, fo_diags *d);

typedef struct {
    const char *ext;     /* "xlsx" */
    const char *format;  /* name in --json output */
    fo_render_fn render; /* NULL: not supported yet */
    bool templated;      /* a --template of this format lends it its look */
} fo_renderer;

/* Forgets every font file the renderers loaded (text measuring, shaping,
 * PNG faces): they are read once per process and kept by path, so a process
 * that renders again after its font files changed calls this in between,
 * with no render running. The fuzz targets do. */
void fo_render_forget_fonts(void);
void fo_png_forget_fonts(void);

/* Renderer for the extension of path (case-insensitive), or NULL. */
const fo_renderer *fo_renderer_for(const char *path);

fo_status fo_xlsx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d);
fo_status fo_pdf_render(const fo_doc *doc, const char *dest, fo_outset *out,
                        const fo_render_opts *opts, fo_diags *d);
fo_status fo_png_render(const fo_doc *doc, const char *dest, fo_outset *out,
                        const fo_render_opts *opts, fo_diags *d);
fo_status fo_docx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d);
fo_status fo_pptx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d);

#endif
