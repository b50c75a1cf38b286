/* docx.c — the .docx renderer: which parts a WordprocessingML package holds,
 * how they relate, in what order they are written; and the small parts
 * (styles from templates/docx/styles.xml with the theme's fonts, sizes and
 * colors; numbering with one restarted instance per ordered list; settings;
 * footer/header with PAGE and NUMPAGES fields), each in schema order.
 *
 * Package layout (entry order is the order of the calls below):
 *   docProps/core.xml, docProps/app.xml       fo_pkg_add_core/app_props
 *   word/header1.xml, word/footer1.xml         theme header/footer text
 *   word/media/image1.png|jpeg                 the theme logo, related from the header
 *   word/media/imageN.png|jpeg                 picture.c, while the body is written
 *   word/charts/chartN.xml                     picture.c (render/chartxml), likewise,
 *   word/embeddings/Microsoft_Excel_WorksheetN.xlsx   each chart's data (related from it)
 *   word/document.xml                          document.c, streamed to a temp file
 *   word/styles.xml, numbering.xml, settings.xml, theme/theme1.xml
 * Relationships of word/document.xml: styles, numbering, settings, theme
 * first (rId1-rId4), then header/footer, then pictures, charts and hyperlinks
 * in document order. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "render/core/words.h"
#include "render/docx/docx_internal.h"
#include "render/render.h"

/* ---- word/styles.xml ----------------------------------------------------------- */

static void half_points(double pt, char out[16]) { snprintf(out, 16, "%ld", lround(pt * 2)); }

void fo_docx_styles_add(fo_docx_ctx *c)
{
    const fo_theme *t = c->t;
    char body[16], title[16], mono[16], small[16], h[6][16];
    half_points(t->body_size, body);
    half_points(t->title_size, title);
    half_points(t->mono_size, mono);
    half_points(t->body_size > 9 ? t->body_size - 1 : t->body_size, small);
    for (int i = 0; i < 6; i++) half_points(t->heading_size[i], h[i]);
    char text[7], head[7], accent[7], muted[7], link[7], code[7], thf[7], tht[7], band[7], border[7];
    fo_rgb_hex(t->text, text);
    fo_rgb_hex(t->heading_color, head);
    fo_rgb_hex(t->accent, accent);
    fo_rgb_hex(t->muted, muted);
    fo_rgb_hex(t->link, link);
    fo_rgb_hex(t->code_fill, code);
    fo_rgb_hex(t->table.header_fill, thf);
    fo_rgb_hex(t->table.header_text, tht);
    fo_rgb_hex(t->table.band_fill, band);
    fo_rgb_hex(t->table.border, border);
    fo_lang_ooxml lang = fo_lang_for_ooxml(c->doc->lang);
    const char *subst[] = {
        "BODY_FONT", t->body.family, "HEADING_FONT", t->heading.family,
        "EA_FONT", lang.ea_font ? lang.ea_font : t->body.family,
        "CS_FONT", lang.cs_font ? lang.cs_font : t->body.family,
        "LANG", lang.latin, "LANG_EA", lang.east_asia, "LANG_BIDI", lang.bidi,
        "MONO_FONT", t->mono.family,
        "BODY_SZ", body, "TITLE_SZ", title, "MONO_SZ", mono, "SMALL_SZ", small,
        "H1_SZ", h[0], "H2_SZ", h[1], "H3_SZ", h[2], "H4_SZ", h[3], "H5_SZ", h[4], "H6_SZ", h[5],
        "TEXT", text, "HEADING_COLOR", head, "ACCENT", accent, "MUTED", muted, "LINK", link,
        "CODE_FILL", code, "TH_FILL", thf, "TH_TEXT", tht, "BAND_FILL", band, "BORDER", border,
        NULL
    };
    if (!c->tpl) {
        fo_pkg_add_template(c->pkg, "word/styles.xml", FO_CT_DOCX_STYLES, "docx/styles.xml", subst);
        return;
    }
    size_t len = 0;
    char *folio = fo_template_expand("docx/styles.xml", subst, &len);
    if (!folio) { fo_docx_fail(c, NULL, FO_ERR_NOMEM, "out of memory"); return; }
    fo_docx_tpl_styles(c, folio, len);
    fo_free(folio);
}

/* ---- word/numbering.xml ----------------------------------------------------------- */

static void level(fo_xml *x, int ilvl, bool ordered)
{
    static const char *const bullets[3] = {"\xE2\x80\xA2", "\xE2\x97\xA6", "\xE2\x96\xAA"};
    static const char *const formats[3] = {"decimal", "lowerLetter", "lowerRoman"};
    char text[16];
    if (ordered) snprintf(text, sizeof text, "%%%d.", ilvl + 1);
    fo_xml_open(x, "w:lvl", NULL);
    fo_xml_attr_int(x, "w:ilvl", ilvl);
    fo_xml_leaf(x, "w:start", "w:val", "1", NULL);
    fo_xml_leaf(x, "w:numFmt", "w:val", ordered ? formats[ilvl % 3] : "bullet", NULL);
    fo_xml_leaf(x, "w:lvlText", "w:val", ordered ? text : bullets[ilvl % 3], NULL);
    fo_xml_leaf(x, "w:lvlJc", "w:val", "left", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_open(x, "w:ind", NULL);
    fo_xml_attr_int(x, "w:left", 360L * (ilvl + 1));
    fo_xml_attr_int(x, "w:hanging", 360);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_close(x);
}

static void abstract_num(fo_xml *x, unsigned id, bool ordered)
{
    fo_xml_open(x, "w:abstractNum", NULL);
    fo_xml_attr_int(x, "w:abstractNumId", id);
    fo_xml_leaf(x, "w:multiLevelType", "w:val", "multilevel", NULL);
    for (int i = 0; i < 9; i++) level(x, i, ordered);
    fo_xml_close(x);
}

void fo_docx_numbering_add(fo_docx_ctx *c)
{
    fo_xml *x = fo_xml_new_memory();
    /* with a template, folio's ids follow the template's own */
    const unsigned abs = fo_docx_tpl_abs_base(c->tpl), base = fo_docx_tpl_num_base(c->tpl);
    fo_xml_open(x, "w:numbering", "xmlns:w", FO_NS_W, NULL);
    abstract_num(x, abs, false);
    abstract_num(x, abs + 1, true);
    for (unsigned n = 1; n <= c->nnums; n++) {
        fo_xml_open(x, "w:num", NULL);
        fo_xml_attr_int(x, "w:numId", base + n);
        fo_xml_open(x, "w:abstractNumId", NULL);
        fo_xml_attr_int(x, "w:val", abs + (n == FO_DOCX_NUM_BULLET ? 0 : 1));
        fo_xml_close(x);
        if (n > FO_DOCX_NUM_DECIMAL) /* each ordered list starts at 1 */
            for (int i = 0; i < 9; i++) {
                fo_xml_open(x, "w:lvlOverride", NULL);
                fo_xml_attr_int(x, "w:ilvl", i);
                fo_xml_leaf(x, "w:startOverride", "w:val", "1", NULL);
                fo_xml_close(x);
            }
        fo_xml_close(x);
    }
    fo_xml_close(x);
    if (!fo_docx_tpl_has_numbering(c->tpl)) {
        fo_pkg_add_xml(c->pkg, "word/numbering.xml", FO_CT_DOCX_NUMBERING, x);
        return;
    }
    size_t len;
    const char *folio = fo_xml_memory(x, &len);
    if (folio) fo_docx_tpl_numbering(c, folio, len);
    else fo_docx_fail(c, NULL, fo_xml_status(x) ? fo_xml_status(x) : FO_ERR_NOMEM, "out of memory");
    fo_xml_free(x);
}

/* ---- word/settings.xml --------------------------------------------------------------- */

void fo_docx_settings_add(fo_docx_ctx *c, bool update_fields)
{
    fo_xml *x = fo_xml_new_memory();
    fo_xml_open(x, "w:settings", "xmlns:w", FO_NS_W, NULL);
    fo_xml_leaf(x, "w:zoom", "w:percent", "100", NULL);
    fo_xml_leaf(x, "w:defaultTabStop", "w:val", "708", NULL);
    fo_xml_leaf(x, "w:characterSpacingControl", "w:val", "doNotCompress", NULL);
    if (update_fields) fo_xml_leaf(x, "w:updateFields", "w:val", "true", NULL);
    fo_xml_open(x, "w:compat", NULL);
    fo_xml_leaf(x, "w:compatSetting", "w:name", "compatibilityMode",
                "w:uri", "http://schemas.microsoft.com/office/word", "w:val", "15", NULL);
    fo_xml_close(x);
    fo_lang_ooxml lang = fo_lang_for_ooxml(c->doc->lang);
    if (c->doc->lang)
        fo_xml_leaf(x, "w:themeFontLang", "w:val", lang.latin, "w:eastAsia", lang.east_asia,
                    "w:bidi", lang.bidi, NULL);
    else fo_xml_leaf(x, "w:themeFontLang", "w:val", lang.latin, NULL);
    fo_xml_leaf(x, "w:clrSchemeMapping", "w:bg1", "light1", "w:t1", "dark1", "w:bg2", "light2",
                "w:t2", "dark2", "w:accent1", "accent1", "w:accent2", "accent2",
                "w:accent3", "accent3", "w:accent4", "accent4", "w:accent5", "accent5",
                "w:accent6", "accent6", "w:hyperlink", "hyperlink",
                "w:followedHyperlink", "followedHyperlink", NULL);
    fo_xml_leaf(x, "w:decimalSymbol", "w:val", ".", NULL);
    fo_xml_leaf(x, "w:listSeparator", "w:val", ",", NULL);
    fo_xml_close(x);
    fo_pkg_add_xml(c->pkg, "word/settings.xml", FO_CT_DOCX_SETTINGS, x);
}

/* ---- footer and header ------------------------------------------------------------------ */

/* Runs for a theme text with {page} {pages} {title} {date}; other braces stay. */
static void placeholder_runs(fo_docx_ctx *c, fo_xml *x, const char *s)
{
    fo_xml *saved = c->x;
    c->x = x; /* the run writers write to ctx->x */
    const char *lit = s;
    while (*s) {
        const char *field = NULL, *value = NULL;
        size_t skip = 0;
        if (strncmp(s, "{page}", 6) == 0) { field = " PAGE "; skip = 6; }
        else if (strncmp(s, "{pages}", 7) == 0) { field = " NUMPAGES "; skip = 7; }
        else if (strncmp(s, "{title}", 7) == 0) { value = c->doc->title; skip = 7; }
        else if (strncmp(s, "{date}", 6) == 0) { value = c->doc->date; skip = 6; }
        if (!skip) { s++; continue; }
        if (s > lit) fo_docx_run(c, lit, (size_t)(s - lit), NULL, false, false);
        if (field) fo_docx_field(c, field, "1");
        if (value) fo_docx_run(c, value, strlen(value), NULL, false, false);
        s += skip;
        lit = s;
    }
    if (s > lit) fo_docx_run(c, lit, (size_t)(s - lit), NULL, false, false);
    c->x = saved;
}

/* Header with the theme logo: one paragraph, the text at the left, the
 * picture at a right tab on the margin (the Header style is right-aligned:
 * the logo takes the corner, the text moves to the other side). */
static void logo_paragraph(fo_docx_ctx *c, fo_xml *x, const char *part, const char *text)
{
    fo_xml_open(x, "w:p", NULL);
    fo_xml_open(x, "w:pPr", NULL);
    fo_xml_leaf(x, "w:pStyle", "w:val", "Header", NULL);
    fo_xml_open(x, "w:tabs", NULL);
    fo_xml_open(x, "w:tab", "w:val", "right", NULL);
    fo_xml_attr_int(x, "w:pos", c->text_width);
    fo_xml_close(x);
    fo_xml_close(x);
    fo_xml_leaf(x, "w:jc", "w:val", text[0] ? "left" : "right", NULL);
    fo_xml_close(x);
    if (text[0]) {
        placeholder_runs(c, x, text);
        fo_xml_open(x, "w:r", NULL);
        fo_xml_leaf(x, "w:tab", NULL);
        fo_xml_close(x);
    }
    fo_docx_logo_run(c, x, part);
    fo_xml_close(x);
}

static void hdrftr(fo_docx_ctx *c, bool footer, const char *text, char *rid, size_t ridcap)
{
    const char *root = footer ? "w:ftr" : "w:hdr";
    const char *part = footer ? "word/footer1.xml" : "word/header1.xml";
    bool logo = !footer && c->t->logo[0];
    fo_xml *x = fo_xml_new_memory();
    if (logo)
        fo_xml_open(x, root, "xmlns:w", FO_NS_W, "xmlns:r", FO_NS_R, "xmlns:wp", FO_NS_WP,
                    "xmlns:a", FO_NS_A, "xmlns:pic", FO_NS_PIC, NULL);
    else fo_xml_open(x, root, "xmlns:w", FO_NS_W, "xmlns:r", FO_NS_R, NULL);
    if (logo) {
        logo_paragraph(c, x, part, text);
    } else {
        fo_xml_open(x, "w:p", NULL);
        fo_xml_open(x, "w:pPr", NULL);
        fo_xml_leaf(x, "w:pStyle", "w:val", footer ? "Footer" : "Header", NULL);
        if (c->doc->rtl) fo_xml_leaf(x, "w:bidi", NULL); /* "Page 1 of 3" read right to left */
        fo_xml_close(x);
        placeholder_runs(c, x, text);
        fo_xml_close(x);
    }
    fo_xml_close(x);
    fo_pkg_add_xml(c->pkg, part, footer ? FO_CT_DOCX_FOOTER : FO_CT_DOCX_HEADER, x);
    snprintf(rid, ridcap, "%s",
             fo_pkg_add_rel(c->pkg, FO_DOCX_DOCUMENT, footer ? FO_REL_DOCX_FOOTER : FO_REL_DOCX_HEADER,
                            footer ? "footer1.xml" : "header1.xml", false));
}

void fo_docx_header_footer_add(fo_docx_ctx *c)
{
    if (c->template_hdrftr) return; /* the template's letterhead wins */
    if (c->t->header[0] || c->t->logo[0]) hdrftr(c, false, c->t->header, c->header_rid, sizeof c->header_rid);
    if (c->t->footer[0]) hdrftr(c, true, c->t->footer, c->footer_rid, sizeof c->footer_rid);
}

/* ---- the package ------------------------------------------------------------- */

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
    if (c->opts_template) {
        fo_status st = fo_docx_tpl_load(c, c->opts_template);
        if (st != FO_OK) return st;
    }
    c->text_width = fo_docx_text_width(c); /* the header's logo tab needs it */
    fo_docx_header_footer_add(c);
    if (c->err != FO_OK) return c->err;

    c->x = fo_xml_new_file();
    if (!c->x) return FO_ERR_NOMEM;
    fo_docx_document_write(c);
    if (c->err != FO_OK) return c->err;
    fo_pkg_add_xml(p, FO_DOCX_DOCUMENT, FO_CT_DOCX_DOCUMENT, c->x); /* takes c->x */
    c->x = NULL;

    fo_docx_styles_add(c);
    fo_docx_numbering_add(c);
    fo_docx_settings_add(c, has_toc(c->doc));
    if (!fo_docx_tpl_theme(c)) fo_pkg_add_theme(p, "word/theme/theme1.xml", c->t, NULL);
    return c->err;
}

fo_status fo_docx_render(const fo_doc *doc, const char *dest, fo_outset *out,
                         const fo_render_opts *opts, fo_diags *d)
{
    const char *tmp = fo_outset_add(out, dest, "docx", d);
    if (!tmp) return FO_ERR_IO;
    fo_docx_ctx c = {0};
    fo_theme paper; /* Word prints no page background: a dark theme's light variant */
    fo_theme_on_paper(&doc->theme, &paper);
    c.doc = doc;
    c.t = &paper;
    c.d = d;
    c.nnums = FO_DOCX_NUM_DECIMAL;
    c.opts_template = opts ? opts->template_path : NULL; /* a .docx: fo_render's rule */
    c.pkg = fo_pkg_new(tmp);
    c.links = fo_docx_links_new();
    fo_status st = FO_ERR_NOMEM;
    if (c.pkg && c.links) {
        st = assemble(&c);
        if (st == FO_OK) fo_pkg_add_custom_props(c.pkg, doc, opts);
        if (st == FO_OK) st = fo_pkg_close(c.pkg, d);
    }
    fo_xml_free(c.x);
    fo_docx_links_free(c.links);
    fo_docx_tpl_free(c.tpl);
    fo_pkg_free(c.pkg);
    if (st == FO_ERR_NOMEM && d->n == 0) fo_diags_add(d, NULL, 0, 0, NULL, NULL, "%s: out of memory", dest);
    return st;
}
