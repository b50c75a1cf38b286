/* t_theme.c — the default theme and the spec's enums, each defined once,
 * tied to the files users read: templates/themes/default.json (read here
 * with jansson, independently of formats/theme.c) and the spec's JSON
 * Schema (templates/schema/spec.schema.json, what `folio schema` prints).
 * Run from the repository root (make unit does). */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "formats/theme.h"
#include "render/core/model.h"
#include "tests/check_run.h"

static json_t *load(const char *path)
{
    json_error_t e;
    json_t *j = json_load_file(path, 0, &e);
    ck_assert_msg(j != NULL, "%s: %s", path, e.text);
    return j;
}

static fo_rgb rgb(json_t *v)
{
    ck_assert(json_is_string(v));
    return (fo_rgb)strtoul(json_string_value(v) + 1, NULL, 16);
}

static double num(json_t *v)
{
    ck_assert(json_is_number(v));
    return json_number_value(v);
}

START_TEST(test_default_theme_is_its_json)
{
    json_t *j = load("templates/themes/default.json");
    fo_theme t;
    fo_theme_default(&t);
    ck_assert_str_eq(t.name, json_string_value(json_object_get(j, "name")));
    json_t *fonts = json_object_get(j, "fonts");
    ck_assert_str_eq(t.heading.family, json_string_value(json_object_get(fonts, "heading")));
    ck_assert_str_eq(t.body.family, json_string_value(json_object_get(fonts, "body")));
    ck_assert_str_eq(t.mono.family, json_string_value(json_object_get(fonts, "mono")));
    ck_assert_ptr_nonnull(strstr(t.body.regular, ".ttf"));
    json_t *sizes = json_object_get(j, "sizes");
    ck_assert_double_eq(t.body_size, num(json_object_get(sizes, "body")));
    ck_assert_double_eq(t.title_size, num(json_object_get(sizes, "title")));
    ck_assert_double_eq(t.mono_size, num(json_object_get(sizes, "mono")));
    for (size_t i = 0; i < 6; i++)
        ck_assert_double_eq(t.heading_size[i], num(json_array_get(json_object_get(sizes, "headings"), i)));
    json_t *colors = json_object_get(j, "colors");
    ck_assert_uint_eq(t.text, rgb(json_object_get(colors, "text")));
    ck_assert_uint_eq(t.background, rgb(json_object_get(colors, "background")));
    ck_assert_uint_eq(t.accent, rgb(json_object_get(colors, "accent")));
    ck_assert_uint_eq(t.heading_color, rgb(json_object_get(colors, "heading")));
    ck_assert_uint_eq(t.muted, rgb(json_object_get(colors, "muted")));
    ck_assert_uint_eq(t.link, rgb(json_object_get(colors, "link")));
    ck_assert_uint_eq(t.code_fill, rgb(json_object_get(colors, "code_fill")));
    json_t *pal = json_object_get(colors, "palette");
    ck_assert_uint_eq(t.npalette, json_array_size(pal));
    for (size_t i = 0; i < t.npalette; i++) ck_assert_uint_eq(t.palette[i], rgb(json_array_get(pal, i)));
    json_t *page = json_object_get(j, "page");
    ck_assert_str_eq(t.page.size, json_string_value(json_object_get(page, "size")));
    ck_assert(!t.page.landscape);
    ck_assert_double_eq_tol(t.page.width, 595.276, 1e-3); /* A4 portrait */
    json_t *mm = json_object_get(page, "margins_mm");
    ck_assert_double_eq_tol(t.page.margin_top, num(json_object_get(mm, "top")) * 72 / 25.4, 0.01);
    ck_assert_double_eq_tol(t.page.margin_left, num(json_object_get(mm, "left")) * 72 / 25.4, 0.01);
    ck_assert_str_eq(t.footer, json_string_value(json_object_get(j, "footer")));
    ck_assert_str_eq(t.header, json_string_value(json_object_get(j, "header")));
    json_t *table = json_object_get(j, "table");
    ck_assert_uint_eq(t.table.header_fill, rgb(json_object_get(table, "header_fill")));
    ck_assert_uint_eq(t.table.band_fill, rgb(json_object_get(table, "band_fill")));
    ck_assert_uint_eq(t.table.border, rgb(json_object_get(table, "border")));
    ck_assert(t.table.banding == json_is_true(json_object_get(table, "banding")));
    ck_assert_double_eq(t.slide_width, 960); /* "16:9" */
    json_decref(j);
}
END_TEST

/* Loading the built-in "default" by name gives exactly fo_theme_default. */
START_TEST(test_default_by_name_is_the_default)
{
    fo_theme a, b;
    fo_diags d;
    fo_diags_init(&d);
    fo_theme_default(&a);
    ck_assert_int_eq(fo_theme_load("default", &b, &d), FO_OK);
    ck_assert_int_eq(memcmp(&a, &b, sizeof a), 0);
    fo_diags_free(&d);
}
END_TEST

/* names: the model's NULL-terminated list; want: a schema enum (any order). */
static void same_set(const char *const *names, json_t *want, const char *what)
{
    ck_assert_msg(json_is_array(want), "%s: no enum in the schema", what);
    size_t n = 0;
    for (; names[n]; n++) {
        bool found = false;
        for (size_t i = 0; i < json_array_size(want); i++)
            found |= strcmp(names[n], json_string_value(json_array_get(want, i))) == 0;
        ck_assert_msg(found, "%s: \"%s\" is not in the schema", what, names[n]);
    }
    ck_assert_msg(n == json_array_size(want), "%s: the schema has %zu, the model %zu", what,
                  json_array_size(want), n);
}

static json_t *at(json_t *j, const char *path)
{
    char buf[256], *save = NULL;
    snprintf(buf, sizeof buf, "%s", path);
    for (char *k = strtok_r(buf, "/", &save); k && j; k = strtok_r(NULL, "/", &save))
        j = json_is_array(j) ? json_array_get(j, strtoul(k, NULL, 10)) : json_object_get(j, k);
    return j;
}

START_TEST(test_spec_enums_are_the_schema)
{
    json_t *s = load("templates/schema/spec.schema.json");
    same_set(fo_type_names + 1, at(s, "$defs/type/enum"), "column types"); /* "auto" is never written */
    same_set(fo_block_kind_names, at(s, "$defs/block/properties/type/enum"), "block types");
    json_t *all = at(s, "$defs/block/allOf");
    json_t *table = NULL, *chart = NULL;
    for (size_t i = 0; i < json_array_size(all); i++) {
        const char *c = json_string_value(at(json_array_get(all, i), "if/properties/type/const"));
        if (c && !strcmp(c, "table")) table = json_array_get(all, i);
        if (c && !strcmp(c, "chart")) chart = json_array_get(all, i);
    }
    same_set(fo_total_names, at(table, "then/properties/totals/additionalProperties/enum"), "totals");
    const char *kinds[FO_CHART_NKINDS + 1];
    fo_chart_kind_names(kinds);
    same_set(kinds, at(chart, "then/properties/kind/enum"), "chart kinds");
    same_set(fo_legend_names, at(chart, "then/properties/legend/enum"), "legend positions");
    json_decref(s);
}
END_TEST

int main(void)
{
    const TTest *const tests[] = {
        test_default_theme_is_its_json,
        test_default_by_name_is_the_default,
        test_spec_enums_are_the_schema,
        NULL,
    };
    return fo_check_tests("theme", 0, tests);
}
