/* docx.c — the .docx renderer: which parts a WordprocessingML package holds,
 * how they relate, and in what order they are written.
 *
 * Package layout (entry order is the order of the calls below):
 *   docProps/core.xml, docProps/app.xml       fo_pkg_add_core/app_props
 *   word/header1.xml, word/footer1.xml         parts.c (theme header/footer text)
 *   word/media/imageN.png|jpeg                 picture.c, while the body is written
 *   word/document.xml                          document.c, streamed to a temp file
 *   word/styles.xml, numbering.xml, settings.xml, theme/theme1.xml
 * Relationships of word/document.xml: styles, numbering, settings, theme
 * first (rId1-rId4), then header/footer, then pictures and hyperlinks in
 * document order. */
#include <string.h>

#include "render/docx/docx_internal.h"
#include "render/render.h"

static bool has_toc(const fo_doc *doc)
{
    for (size_t i = 0; i < doc->nblocks; i++)
        if (doc->blocks[i].kind == FO_BLOCK_TOC) return true;
    return false;
}

static fo_status assemble(fo_docx_ctx *c)
{
    fo_pkg *p = c->pkg;
    fo_pkg_add_rel(p, "", FO_REL_OFFICE_DOCUMENT, FO_DOCX_DOCUMENT, false);
    fo_pkg_add_core_props(p, c->doc);
    fo_pkg_add_app_props(p, NULL);

    fo_pkg_add_rel(p, FO_DOCX_DOCUMENT, FO_REL_DOCX_STYLES, "styles.xml", false);
    fo_pkg_add_rel(p, FO_DOCX_DOCUMENT, FO_REL_DOCX_NUMBERING, "numbering.xml", false);
    fo_pkg_add_rel(p, FO_DOCX_DOCUMENT, FO_REL_DOCX_SETTINGS, "settings.xml", false);
    fo_pkg_add_rel(p, FO_DOCX_DOCUMENT, FO_REL_THEME, "theme/theme1.xml", false);
    fo_docx_header_footer_add(c);

    c->x = fo_xml_new_file();
    if (!c->x) return FO_ERR_NOMEM;
    fo_docx_document_write(c);
    if (c->err != FO_OK) return c->err;
    fo_pkg_add_xml(p, FO_DOCX_DOCUMENT, FO_CT_DOCX_DOCUMENT, c->x); /* takes c->x */
    c->x = NULL;

    fo_docx_styles_add(c);
    fo_docx_numbering_add(c);
    fo_docx_settings_add(c, has_toc(c->doc));
    fo_pkg_add_theme(p, "word/theme/theme1.xml", c->t);
    return c->err;
}

fo_status fo_docx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d)
{
    (void)opts;
    const char *tmp = fo_outset_add(out, dest, "docx", d);
    if (!tmp) return FO_ERR_IO;
    fo_docx_ctx c = {0};
    c.doc = doc;
    c.t = &doc->theme;
    c.d = d;
    c.nnums = FO_DOCX_NUM_DECIMAL;
    c.pkg = fo_pkg_new(tmp);
    c.links = fo_docx_links_new();
    fo_status st = FO_ERR_NOMEM;
    if (c.pkg && c.links) {
        st = assemble(&c);
        if (st == FO_OK) st = fo_pkg_close(c.pkg, d);
    }
    fo_xml_free(c.x);
    fo_docx_links_free(c.links);
    fo_pkg_free(c.pkg);
    if (st == FO_ERR_NOMEM && d->n == 0)
        fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: out of memory", dest);
    return st;
}
