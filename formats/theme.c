/* theme.c — theme files: JSON → fo_theme, every problem located (file,
 * line:column, JSON Pointer, hint), the same way specs are checked.
 *
 * A theme names fonts by family; families folio knows map to TrueType files
 * from Debian's font packages (for PDF and PNG). An unknown family is still
 * used by name in Office files, with Liberation files for PDF/PNG, unless the
 * theme gives "files" of its own. */
#include <limits.h>
#include <pthread.h>
#include <libgen.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/image.h"
#include "formats/json.h"
#include "formats/path.h"
#include "formats/spec_internal.h"
#include "formats/theme.h"
#include "render/core/words.h"
#include "render/core/templates.h"


/* A theme is read with the spec reader's context and helpers: the same
 * located errors, the same key check with "did you mean", the same cap on
 * how many are listed. Its folder (base_real) is where its files resolve. */
typedef fo_spec_ctx ctx;

/* obj's member key (NULL when absent), its pointer (ptr + "/" + key) in p. */
static json_t *member(json_t *obj, const char *ptr, const char *key, char p[FO_PTR_MAX])
{
    fo_spec_ptr(p, ptr, key);
    return json_object_get(obj, key);
}

static bool parse_color(const char *s, fo_rgb *out)
{
    if (!s || s[0] != '#' || strlen(s) != 7) return false;
    char *end;
    unsigned long v = strtoul(s + 1, &end, 16);
    if (*end) return false;
    *out = (fo_rgb)v;
    return true;
}

static void color(ctx *c, json_t *obj, const char *ptr, const char *key, fo_rgb *out)
{
    char p[FO_PTR_MAX];
    json_t *v = member(obj, ptr, key, p);
    if (!v) return;
    if (!json_is_string(v) || !parse_color(json_string_value(v), out))
        fo_spec_error(c, p, false, "colors are \"#RRGGBB\", e.g. \"#2F5597\"", "invalid color");
}

static void number(ctx *c, json_t *obj, const char *ptr, const char *key, double lo, double hi, double *out)
{
    char p[FO_PTR_MAX], hint[64];
    json_t *v = member(obj, ptr, key, p);
    if (!v) return;
    snprintf(hint, sizeof hint, "a number from %g to %g", lo, hi);
    if (!json_is_number(v) || json_number_value(v) < lo || json_number_value(v) > hi)
        fo_spec_error(c, p, false, hint, "invalid \"%s\"", key);
    else *out = json_number_value(v);
}

static void text(ctx *c, json_t *obj, const char *ptr, const char *key, char *out, size_t cap)
{
    char p[FO_PTR_MAX];
    json_t *v = member(obj, ptr, key, p);
    if (!v) return;
    if (!json_is_string(v)) fo_spec_error(c, p, false, NULL, "\"%s\" must be a string", key);
    else snprintf(out, cap, "%s", json_string_value(v));
}

/* ---- fonts ------------------------------------------------------------------*/
typedef struct { const char *family, *dir, *regular, *bold, *italic, *bold_italic; } known_font;

#define LIB "/usr/share/fonts/truetype/liberation/"
#define DJV "/usr/share/fonts/truetype/dejavu/"
static const known_font known_fonts[] = {
    {"Liberation Sans", LIB, "LiberationSans-Regular", "LiberationSans-Bold", "LiberationSans-Italic", "LiberationSans-BoldItalic"},
    {"Liberation Serif", LIB, "LiberationSerif-Regular", "LiberationSerif-Bold", "LiberationSerif-Italic", "LiberationSerif-BoldItalic"},
    {"Liberation Mono", LIB, "LiberationMono-Regular", "LiberationMono-Bold", "LiberationMono-Italic", "LiberationMono-BoldItalic"},
    {"DejaVu Sans", DJV, "DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSans-BoldOblique"},
    {"DejaVu Serif", DJV, "DejaVuSerif", "DejaVuSerif-Bold", "DejaVuSerif-Italic", "DejaVuSerif-BoldItalic"},
    {"DejaVu Sans Mono", DJV, "DejaVuSansMono", "DejaVuSansMono-Bold", "DejaVuSansMono-Oblique", "DejaVuSansMono-BoldOblique"},
};

static void set_known(fo_font *f, const known_font *k)
{
    snprintf(f->family, sizeof f->family, "%s", k->family);
    snprintf(f->regular, sizeof f->regular, "%s%s.ttf", k->dir, k->regular);
    snprintf(f->bold, sizeof f->bold, "%s%s.ttf", k->dir, k->bold);
    snprintf(f->italic, sizeof f->italic, "%s%s.ttf", k->dir, k->italic);
    snprintf(f->bold_italic, sizeof f->bold_italic, "%s%s.ttf", k->dir, k->bold_italic);
}

/* A file the theme names, resolved inside the theme's folder (path.h) into
 * out; false (reported at ptr, prefixed with what) when refused. */
static bool theme_file(ctx *c, const char *ptr, const char *what, const char *rel, uint64_t max_bytes,
                       char *out, size_t cap)
{
    char msg[512];
    const char *hint;
    fo_path_status st = fo_path_inside(c->base_real, rel, max_bytes, out, cap);
    if (st == FO_PATH_OK) return true;
    out[0] = '\0';
    fo_path_message(st, rel, max_bytes, msg, sizeof msg, &hint);
    fo_spec_error(c, ptr, false, hint, "%s: %s", what, msg);
    return false;
}

static void font_file(ctx *c, json_t *files, const char *ptr, const char *key, char *out, size_t cap)
{
    char p[FO_PTR_MAX];
    json_t *v = member(files, ptr, key, p);
    if (!v) return;
    if (!json_is_string(v)) { fo_spec_error(c, p, false, NULL, "a font file must be a path"); return; }
    theme_file(c, p, "font file", json_string_value(v), FO_THEME_FONT_MAX_BYTES, out, cap);
}

static void font(ctx *c, json_t *fonts, const char *key, fo_font *f)
{
    static const char *const keys[] = {"family", "files", NULL};
    static const char *const file_keys[] = {"regular", "bold", "italic", "bold_italic", NULL};
    json_t *v = json_object_get(fonts, key);
    if (!v) return;
    char p[256] = "/fonts";
    fo_json_ptr_push(p, sizeof p, key);
    json_t *files = NULL;
    const char *family;
    if (json_is_string(v)) family = json_string_value(v);
    else if (json_is_object(v)) {
        fo_spec_check_keys(c, v, p, keys);
        json_t *fam = json_object_get(v, "family");
        family = json_is_string(fam) ? json_string_value(fam) : NULL;
        files = json_object_get(v, "files");
        if (!family) { fo_spec_error(c, p, false, "e.g. {\"family\": \"Inter\", \"files\": {\"regular\": \"Inter.ttf\"}}", "missing \"family\""); return; }
    } else {
        fo_spec_error(c, p, false, "a family name, or {\"family\", \"files\"}", "invalid font");
        return;
    }
    const known_font *k = NULL;
    for (size_t i = 0; i < sizeof known_fonts / sizeof *known_fonts; i++)
        if (!strcmp(known_fonts[i].family, family)) k = &known_fonts[i];
    set_known(f, k ? k : &known_fonts[key[0] == 'm' ? 2 : 0]);
    snprintf(f->family, sizeof f->family, "%s", family);
    if (files) {
        char fp[256];
        snprintf(fp, sizeof fp, "%s/files", p);
        if (!json_is_object(files)) { fo_spec_error(c, fp, false, NULL, "\"files\" must be an object"); return; }
        fo_spec_check_keys(c, files, fp, file_keys);
        font_file(c, files, fp, "regular", f->regular, sizeof f->regular);
        snprintf(f->bold, sizeof f->bold, "%s", f->regular);
        snprintf(f->italic, sizeof f->italic, "%s", f->regular);
        snprintf(f->bold_italic, sizeof f->bold_italic, "%s", f->regular);
        font_file(c, files, fp, "bold", f->bold, sizeof f->bold);
        font_file(c, files, fp, "italic", f->italic, sizeof f->italic);
        font_file(c, files, fp, "bold_italic", f->bold_italic, sizeof f->bold_italic);
    }
}

/* ---- the theme ---------------------------------------------------------------*/
static void apply(ctx *c, json_t *root, fo_theme *t)
{
    static const char *const top[] = {"folio_theme", "name", "description", "fonts", "sizes", "colors", "page",
                                      "header", "footer", "logo", "table", "slide", "$schema", NULL};
    static const char *const font_keys[] = {"heading", "body", "mono", NULL};
    static const char *const size_keys[] = {"body", "title", "headings", "mono", NULL};
    static const char *const color_keys[] = {"text", "background", "accent", "heading", "muted", "link", "code_fill", "palette", NULL};
    static const char *const page_keys[] = {"size", "orientation", "margins_mm", NULL};
    static const char *const margin_keys[] = {"top", "right", "bottom", "left", NULL};
    static const char *const table_keys[] = {"header_fill", "header_text", "band_fill", "border", "banding", NULL};
    static const char *const slide_keys[] = {"size", NULL};
    if (!json_is_object(root)) { fo_spec_error(c, "", false, "{\"folio_theme\": 1, ...}", "a theme must be a JSON object"); return; }
    fo_spec_check_keys(c, root, "", top);
    json_t *v = json_object_get(root, "folio_theme");
    if (!v || !json_is_number(v) || json_number_value(v) != 1)
        fo_spec_error(c, v ? "/folio_theme" : "", false, "start the theme with \"folio_theme\": 1", "missing or unsupported \"folio_theme\" version");
    text(c, root, "", "name", t->name, sizeof t->name);
    json_t *o;
    if ((o = json_object_get(root, "fonts")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/fonts", font_keys);
        font(c, o, "heading", &t->heading);
        font(c, o, "body", &t->body);
        font(c, o, "mono", &t->mono);
    }
    if ((o = json_object_get(root, "sizes")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/sizes", size_keys);
        number(c, o, "/sizes", "body", 5, 40, &t->body_size);
        number(c, o, "/sizes", "title", 8, 96, &t->title_size);
        number(c, o, "/sizes", "mono", 5, 40, &t->mono_size);
        json_t *h = json_object_get(o, "headings");
        if (h && (!json_is_array(h) || json_array_size(h) != 6))
            fo_spec_error(c, "/sizes/headings", false, "six sizes in points, for heading levels 1 to 6", "invalid \"headings\"");
        else if (h)
            for (size_t i = 0; i < 6; i++) {
                double x = json_number_value(json_array_get(h, i));
                if (x >= 5 && x <= 96) t->heading_size[i] = x;
                else fo_spec_error(c, "/sizes/headings", false, "sizes from 5 to 96 points", "invalid heading size");
            }
    }
    if ((o = json_object_get(root, "colors")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/colors", color_keys);
        color(c, o, "/colors", "text", &t->text);
        color(c, o, "/colors", "background", &t->background);
        color(c, o, "/colors", "accent", &t->accent);
        color(c, o, "/colors", "heading", &t->heading_color);
        color(c, o, "/colors", "muted", &t->muted);
        color(c, o, "/colors", "link", &t->link);
        color(c, o, "/colors", "code_fill", &t->code_fill);
        json_t *pal = json_object_get(o, "palette");
        if (pal && (!json_is_array(pal) || json_array_size(pal) == 0 || json_array_size(pal) > FO_PALETTE_MAX)) {
            fo_spec_error(c, "/colors/palette", false, "1 to 12 colors \"#RRGGBB\"", "invalid palette");
        } else if (pal) {
            t->npalette = json_array_size(pal);
            for (size_t i = 0; i < t->npalette; i++) {
                char p[64];
                snprintf(p, sizeof p, "/colors/palette/%zu", i);
                json_t *e = json_array_get(pal, i);
                if (!json_is_string(e) || !parse_color(json_string_value(e), &t->palette[i]))
                    fo_spec_error(c, p, false, "colors are \"#RRGGBB\"", "invalid color");
            }
        }
    }
    if ((o = json_object_get(root, "page")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/page", page_keys);
        text(c, o, "/page", "size", t->page.size, sizeof t->page.size);
        char orient[16] = "";
        text(c, o, "/page", "orientation", orient, sizeof orient);
        if (orient[0] && strcmp(orient, "portrait") && strcmp(orient, "landscape"))
            fo_spec_error(c, "/page/orientation", false, "portrait or landscape", "unknown orientation \"%s\"", orient);
        else if (orient[0]) t->page.landscape = !strcmp(orient, "landscape");
        if (!fo_theme_page_apply(t))
            fo_spec_error(c, "/page/size", false, "A4 or Letter", "unknown page size \"%s\"", t->page.size);
        json_t *m = json_object_get(o, "margins_mm");
        if (m && json_is_object(m)) {
            fo_spec_check_keys(c, m, "/page/margins_mm", margin_keys);
            double mm[4] = {t->page.margin_top / 2.8346, t->page.margin_right / 2.8346,
                            t->page.margin_bottom / 2.8346, t->page.margin_left / 2.8346};
            for (int i = 0; i < 4; i++) number(c, m, "/page/margins_mm", margin_keys[i], 0, 100, &mm[i]);
            t->page.margin_top = mm[0] * 2.8346;
            t->page.margin_right = mm[1] * 2.8346;
            t->page.margin_bottom = mm[2] * 2.8346;
            t->page.margin_left = mm[3] * 2.8346;
        }
    }
    text(c, root, "", "header", t->header, sizeof t->header);
    text(c, root, "", "footer", t->footer, sizeof t->footer);
    char logo[512] = "";
    text(c, root, "", "logo", logo, sizeof logo);
    fo_image_info info = {0};
    const char *why;
    if (logo[0] && theme_file(c, "/logo", "logo", logo, FO_IMAGE_MAX_BYTES, t->logo, sizeof t->logo)) {
        if ((why = fo_image_check(t->logo, &info)) != NULL) {
            fo_spec_error(c, "/logo", false, "a PNG or JPEG file of at most 50 megapixels", "logo \"%s\" cannot be used: %s", logo, why);
            t->logo[0] = '\0';
        }
        t->logo_is_png = info.is_png; /* the writers' size: no writer probes */
        t->logo_width = info.width;
        t->logo_height = info.height;
    }
    if ((o = json_object_get(root, "table")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/table", table_keys);
        color(c, o, "/table", "header_fill", &t->table.header_fill);
        color(c, o, "/table", "header_text", &t->table.header_text);
        color(c, o, "/table", "band_fill", &t->table.band_fill);
        color(c, o, "/table", "border", &t->table.border);
        json_t *b = json_object_get(o, "banding");
        if (b) t->table.banding = json_is_true(b);
    }
    if ((o = json_object_get(root, "slide")) && json_is_object(o)) {
        fo_spec_check_keys(c, o, "/slide", slide_keys);
        char size[16] = "";
        text(c, o, "/slide", "size", size, sizeof size);
        if (!strcmp(size, "16:9")) { t->slide_width = 960; t->slide_height = 540; }
        else if (!strcmp(size, "4:3")) { t->slide_width = 720; t->slide_height = 540; }
        else if (size[0]) fo_spec_error(c, "/slide/size", false, "16:9 or 4:3", "unknown slide size \"%s\"", size);
    }
}

/* The built-in default, parsed once per process (every spec starts from it;
 * it was a seventh of a small workbook's render in a `folio serve` child,
 * which now finds it parsed by the zygote's warm-up). It reads only the
 * built-in JSON and the font files it names, which do not change while a
 * process runs. */
static fo_theme default_theme;
static pthread_once_t default_once = PTHREAD_ONCE_INIT;

static void load_default(void)
{
    fo_theme *t = &default_theme;
    memset(t, 0, sizeof *t);
    ctx c;
    memset(&c, 0, sizeof c);
    fo_diags d;
    fo_diags_init(&d);
    c.d = &d;
    c.file = "themes/default.json";
    snprintf(c.base_real, sizeof c.base_real, "/");
    size_t len;
    const unsigned char *s = fo_template_find(c.file, &len);
    /* built in and tested (tests/formats/t_theme.c): it parses and applies cleanly */
    if (s && fo_json_parse((const char *)s, len, c.file, &c.json, &d) == FO_OK)
        apply(&c, fo_json_root(c.json), t);
    fo_json_free(c.json);
    fo_diags_free(&d);
}

void fo_theme_default(fo_theme *t)
{
    pthread_once(&default_once, load_default);
    *t = default_theme;
}

const char *fo_theme_builtin(size_t i, char *buf, size_t cap)
{
    size_t k = 0;
    for (size_t n = 0; fo_template_name(n); n++) {
        const char *name = fo_template_name(n);
        if (strncmp(name, "themes/", 7) || !strstr(name, ".json")) continue;
        if (k++ == i) {
            snprintf(buf, cap, "%.*s", (int)(strlen(name) - 12), name + 7);
            return buf;
        }
    }
    return NULL;
}

const char *fo_theme_description(const char *name, char *buf, size_t cap)
{
    char path[128];
    snprintf(path, sizeof path, "themes/%s.json", name);
    size_t len;
    const unsigned char *s = fo_template_find(path, &len);
    buf[0] = '\0';
    json_t *root = s ? json_loadb((const char *)s, len, 0, NULL) : NULL;
    json_t *d = json_object_get(root, "description");
    if (json_is_string(d)) snprintf(buf, cap, "%s", json_string_value(d));
    json_decref(root);
    return buf;
}

fo_status fo_theme_load(const char *name_or_path, fo_theme *t, fo_diags *d)
{
    ctx c;
    memset(&c, 0, sizeof c);
    c.d = d;
    c.file = name_or_path;
    fo_theme_default(t);
    size_t n = strlen(name_or_path);
    fo_status st;
    if (n > 5 && !strcmp(name_or_path + n - 5, ".json")) {
        char tmp[PATH_MAX];
        snprintf(tmp, sizeof tmp, "%s", name_or_path);
        if (!realpath(dirname(tmp), c.base_real)) snprintf(c.base_real, sizeof c.base_real, ".");
        st = fo_json_load(name_or_path, name_or_path, &c.json, d);
    } else {
        char path[128];
        snprintf(path, sizeof path, "themes/%s.json", name_or_path);
        size_t len;
        const unsigned char *s = strchr(name_or_path, '/') ? NULL : fo_template_find(path, &len);
        if (!s) {
            char list[256] = "", name[64];
            size_t k = 0;
            for (size_t i = 0; fo_theme_builtin(i, name, sizeof name); i++)
                k += (size_t)snprintf(list + k, sizeof list - k, "%s%s", i ? ", " : "", name);
            char hint[320];
            const char *names[16] = {0};
            char store[16][64];
            for (size_t i = 0; i < 15 && fo_theme_builtin(i, store[i], sizeof store[i]); i++) names[i] = store[i];
            const char *best = fo_spec_suggest(name_or_path, names);
            if (best) snprintf(hint, sizeof hint, "did you mean '%s'? built-in themes: %s", best, list);
            else snprintf(hint, sizeof hint, "built-in themes: %s; or give a theme FILE.json", list);
            fo_diags_add(d, NULL, 0, 0, NULL, hint, "unknown theme \"%s\"", name_or_path);
            return FO_ERR_INPUT;
        }
        snprintf(c.base_real, sizeof c.base_real, "/");
        st = fo_json_parse((const char *)s, len, path, &c.json, d);
    }
    if (st != FO_OK) return st;
    apply(&c, fo_json_root(c.json), t);
    fo_json_free(c.json);
    fo_spec_finish(&c);   /* counts and places of repeated messages; frees the groups */
    return c.errors ? FO_ERR_INPUT : FO_OK;
}

void fo_theme_localize(fo_theme *t, const char *lang)
{
    if (!lang || strcmp(t->footer, fo_word(NULL, FO_W_PAGE_OF)) != 0) return;
    snprintf(t->footer, sizeof t->footer, "%s", fo_word(lang, FO_W_PAGE_OF));
}

fo_status fo_doc_set_theme(fo_doc *doc, const char *name_or_path, fo_diags *d)
{
    fo_status st = fo_theme_load(name_or_path, &doc->theme, d);
    fo_theme_localize(&doc->theme, doc->lang);
    return st;
}

const char *fo_schema(const char *which, size_t *len)
{
    const char *name = !strcmp(which, "spec") ? "schema/spec.schema.json"
                     : !strcmp(which, "theme") ? "schema/theme.schema.json" : NULL;
    return name ? (const char *)fo_template_find(name, len) : NULL;
}
