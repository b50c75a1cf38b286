/* shape.c — bidi, itemizing and HarfBuzz shaping (see shape.h).
 *
 * Steps for one text: decode UTF-8 to code points (controls become U+200B,
 * which HarfBuzz drops as default ignorables); FriBidi resolves embedding
 * levels (UAX #9, with paired brackets); the text is cut into items of one
 * level, one script and one font; items are put in visual order (UAX #9 L2:
 * from the highest level down to the lowest odd one, reverse every sequence
 * at that level or above); each item is shaped by HarfBuzz with the whole
 * text as context, in its direction. Positions come out in font units
 * (fonts are created at scale = units per em) and are scaled to size. */
#include <pthread.h>
#include <string.h>

#include <fribidi.h>
#include <hb.h>
#include <hb-ot.h>

#include "folio.h"
#include "base/buf.h"
#include "render/core/emoji.h"
#include "base/utf8.h"
#include "render/core/fonts.h"
#include "render/core/otlayout.h"
#include "render/core/shape.h"
#include "render/core/text.h"

/* ---- faces ------------------------------------------------------------------ */
typedef struct {
    char *path;
    hb_font_t *font;      /* NULL: could not be loaded */
    double upem;
    uint8_t words;        /* how it is shaped word by word (words_mode): WORDS_*, 0 not yet known */
    /* WORDS_SPACED: the GPOS rules that look past a space (otlayout.h),
       and the table they are read from */
    fo_ot_beyond *beyond;
    size_t nbeyond;
    size_t back;          /* glyphs before the space they read, at most */
    hb_blob_t *gpos;
} hb_entry;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static hb_entry **cache;
static size_t ncache, capcache;

/* The entry for path, loaded on first use; NULL only when out of memory.
 * Caller holds the lock. */
static hb_entry *font_get(const char *path)
{
    for (size_t i = 0; i < ncache; i++)
        if (strcmp(cache[i]->path, path) == 0) return cache[i];
    if (!fo_grow((void **)&cache, &capcache, ncache + 1, 8, sizeof *cache)) return NULL;
    hb_entry *e = fo_calloc(1, sizeof *e);
    if (!e || !(e->path = fo_strdup(path))) { fo_free(e); return NULL; }
    hb_blob_t *blob = hb_blob_create_from_file_or_fail(path);
    if (blob) {
        hb_face_t *face = hb_face_create(blob, 0);
        unsigned upem = hb_face_get_upem(face);
        if (hb_face_get_glyph_count(face) > 0) {
            e->font = hb_font_create(face);
            e->upem = upem ? upem : 1000;
            hb_font_set_scale(e->font, (int)e->upem, (int)e->upem);
        }
        hb_face_destroy(face);
        hb_blob_destroy(blob);
    }
    cache[ncache++] = e;
    return e;
}

static void entry_free(void *p)
{
    hb_entry *e = p;
    hb_blob_destroy(e->gpos);
    fo_free(e->beyond);
    hb_font_destroy(e->font);
    fo_free(e->path);
    fo_free(e);
}


static bool has_glyph(hb_entry *e, uint32_t cp)
{
    hb_codepoint_t g;
    return e && e->font && hb_font_get_nominal_glyph(e->font, cp, &g);
}

/* The font that draws cp: the primary, the script's font (bold for a bold
 * primary, as fo_text_fallback), then the general fallbacks; the primary
 * when none has it (its .notdef is shown). */
static hb_entry *font_search(hb_entry *pri, bool bold, uint32_t cp)
{
    if (has_glyph(pri, cp)) return pri;
    const char *script = fo_fonts_for_char(cp);
    if (script && bold) script = fo_fonts_bold(script);
    const char *chain[] = {script, bold ? FO_TEXT_FALLBACK_BOLD : FO_TEXT_FALLBACK_REGULAR,
                           FO_TEXT_FALLBACK_SYMBOLS, FO_TEXT_FALLBACK_CJK, FO_TEXT_FALLBACK_KOREAN};
    for (size_t k = 0; k < sizeof chain / sizeof *chain; k++) {
        if (!chain[k]) continue;
        hb_entry *e = font_get(chain[k]);
        if (has_glyph(e, cp)) return e;
    }
    return pri;
}

/* font_search's answers, direct-mapped (a slot is overwritten on
 * collision): it depends on the primary, boldness and the character only,
 * and a text's characters are its script's few dozen letters again and
 * again, while a search asks up to five fonts by path (a list compared
 * with strcmp) and for the glyph in each. The mixed-script report searched
 * 547,000 times (callgrind: 45 M instructions, 4% of its PDF). Emptied
 * with the fonts (fo_shape_forget_fonts). Caller holds the lock. */
#define FSLOTS 2048u                   /* power of two */
static struct {
    const hb_entry *pri;           /* NULL: empty */
    uint32_t cp;
    bool bold;
    hb_entry *font;
} found[FSLOTS];

static hb_entry *font_for(hb_entry *pri, bool bold, uint32_t cp)
{
    uint32_t h = (cp * 2654435761u ^ (uint32_t)(uintptr_t)pri >> 4 ^ bold) & (FSLOTS - 1);
    if (found[h].pri == pri && found[h].cp == cp && found[h].bold == bold) return found[h].font;
    hb_entry *f = font_search(pri, bold, cp);
    found[h].pri = pri;
    found[h].cp = cp;
    found[h].bold = bold;
    found[h].font = f;
    return f;
}

/* ---- classification ------------------------------------------------------- */
bool fo_shape_needed(const char *utf8, size_t len)
{
    bool emoji = false;   /* a candidate seen: asked of the colour font at the end */
    for (size_t i = 0; i < len;) {
        if ((unsigned char)utf8[i] < 0xCC) { i++; continue; }   /* below U+0300 */
        uint32_t c = fo_utf8_next(utf8, len, &i);
        emoji = emoji || c == 0xFE0F || fo_emoji_pictograph(c);   /* may be emoji */
        if ((c >= 0x0300 && c <= 0x036F) || (c >= 0x0483 && c <= 0x0489) ||
                    (c >= 0x0590 && c <= 0x1CFF) ||
            (c >= 0x1DC0 && c <= 0x1DFF) || (c >= 0x200C && c <= 0x200F) ||
            (c >= 0x202A && c <= 0x202E) || (c >= 0x2066 && c <= 0x2069) ||
            (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xA8E0 && c <= 0xA8FF) ||
            (c >= 0xFB1D && c <= 0xFDFF) || (c >= 0xFE20 && c <= 0xFE2F) ||
            (c >= 0xFE70 && c <= 0xFEFF) || (c >= 0x10800 && c <= 0x10FFF) ||
            (c >= 0x1F3FB && c <= 0x1F3FF))
            return true;
    }
    /* emoji sequences are shaped on the colour font, one glyph each */
    return emoji && fo_emoji_any(utf8, len);
}

fo_dir fo_shape_direction_of(const char *utf8, size_t len, size_t *i)
{
    FriBidiCharType t = fribidi_get_bidi_type(fo_utf8_next(utf8, len, i));
    return t == FRIBIDI_TYPE_LTR ? FO_DIR_LTR
         : t == FRIBIDI_TYPE_RTL || t == FRIBIDI_TYPE_AL ? FO_DIR_RTL : FO_DIR_AUTO;
}

fo_dir fo_shape_direction(const char *utf8, size_t len)
{
    for (size_t i = 0; utf8 && i < len;) {
        fo_dir d = fo_shape_direction_of(utf8, len, &i);
        if (d != FO_DIR_AUTO) return d;
    }
    return FO_DIR_AUTO;
}

bool fo_shape_has_rtl(const char *utf8, size_t len)
{
    for (size_t i = 0; utf8 && i < len;) {
        if ((unsigned char)utf8[i] < 0xD6) { i++; continue; }   /* below U+0590 */
        uint32_t c = fo_utf8_next(utf8, len, &i);
        FriBidiCharType t = fribidi_get_bidi_type(c);
        if (t == FRIBIDI_TYPE_RTL || t == FRIBIDI_TYPE_AL) return true;
    }
    return false;
}

size_t fo_shape_cluster_end(const char *utf8, size_t len, size_t at)
{
    if (!utf8 || at == 0 || at >= len) return at;
    hb_unicode_funcs_t *uf = hb_unicode_funcs_get_default();
    size_t p = at;
    do p--; while (p > 0 && ((unsigned char)utf8[p] & 0xC0) == 0x80);
    uint32_t prev = fo_utf8_next(utf8, len, &p);
    while (at < len) {
        size_t next = at;
        uint32_t c = fo_utf8_next(utf8, len, &next);
        hb_unicode_general_category_t gc = hb_unicode_general_category(uf, c);
        bool mark = gc == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK ||
                    gc == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK ||
                    gc == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK;
        bool conjunct = gc == HB_UNICODE_GENERAL_CATEGORY_OTHER_LETTER &&
                        hb_unicode_combining_class(uf, prev) == 9;   /* after a virama */
        if (!mark && !conjunct && c != 0x200C && c != 0x200D) break;
        prev = c;
        at = next;
    }
    return at;
}

/* ---- shaping -------------------------------------------------------------- */
typedef struct {
    size_t start, len;    /* code point range */
    FriBidiLevel level;
    hb_script_t script;
    hb_entry *font;
} item;

typedef struct {
    uint32_t *cp;         /* code points */
    uint32_t *off;        /* byte offset of each */
    FriBidiLevel *level;
    hb_entry **font;
    hb_script_t *script;
    item *items;
    FriBidiCharType *types;      /* for text_levels */
    FriBidiBracketType *brackets;
    size_t n, nitems;
    size_t a, b;          /* the code points shaped; the others are context */
    uint32_t base;        /* byte offset of cp[a]: clusters count from it */
    void *mem;            /* every array above, one block: a text is shaped per
                           * word when measuring, so allocations add up */
    unsigned char stack[4096];
} text_t;

static void text_free(text_t *t)
{
    if (t->mem != t->stack) fo_free(t->mem);
}

/* Points the arrays at t->stack, or at one allocation when cap code points
 * do not fit; false when out of memory. */
static bool text_alloc(text_t *t, size_t cap)
{
    size_t per = sizeof *t->items + sizeof *t->font + sizeof *t->cp + sizeof *t->off +
                 sizeof *t->script + sizeof *t->types + sizeof *t->brackets + sizeof *t->level;
    if (cap > (SIZE_MAX - 64) / per) return false;
    t->mem = cap * per + 64 <= sizeof t->stack ? t->stack : fo_malloc(cap * per + 64);
    if (!t->mem) return false;
    /* widest alignment first: every array stays aligned */
    unsigned char *p = t->mem;
    t->items = (item *)p;                p += cap * sizeof *t->items;
    t->font = (hb_entry **)p;            p += cap * sizeof *t->font;
    t->cp = (uint32_t *)p;               p += cap * sizeof *t->cp;
    t->off = (uint32_t *)p;              p += cap * sizeof *t->off;
    t->script = (hb_script_t *)p;        p += cap * sizeof *t->script;
    t->types = (FriBidiCharType *)p;     p += cap * sizeof *t->types;
    t->brackets = (FriBidiBracketType *)p; p += cap * sizeof *t->brackets;
    t->level = (FriBidiLevel *)p;
    return true;
}

static bool text_decode(text_t *t, const char *utf8, size_t len)
{
    if (!text_alloc(t, len ? len : 1)) return false;
    for (size_t i = 0; i < len;) {
        t->off[t->n] = (uint32_t)i;
        uint32_t c = fo_utf8_next(utf8, len, &i);
        t->cp[t->n++] = c < 0x20 || c == 0x7F ? 0x200B : c;
    }
    return true;
}

/* Levels of the shaped code points [a, b), as a paragraph of their own. */
static bool text_levels(text_t *t, fo_dir dir)
{
    FriBidiParType base = dir == FO_DIR_RTL ? FRIBIDI_PAR_RTL
                        : dir == FO_DIR_LTR ? FRIBIDI_PAR_LTR : FRIBIDI_PAR_ON;
    FriBidiStrIndex n = (FriBidiStrIndex)(t->b - t->a);
    fribidi_get_bidi_types(t->cp + t->a, n, t->types + t->a);
    /* nothing right to left, no Arabic number, nothing that embeds or
       isolates, in a paragraph not forced right to left: every level is 0
       (UAX #9 W7 makes European numbers L after sos L). Most texts shaped
       are words measured alone, and FriBidi's full resolution was 4,300
       instructions each (9 M of the mixed-script report's PDF). */
    bool plain = base != FRIBIDI_PAR_RTL;
    for (FriBidiStrIndex i = 0; plain && i < n; i++) {
        FriBidiCharType ty = t->types[t->a + (size_t)i];
        plain = !FRIBIDI_IS_RTL(ty) && !FRIBIDI_IS_ARABIC(ty) && !FRIBIDI_IS_EXPLICIT(ty) &&
                !FRIBIDI_IS_ISOLATE(ty);
    }
    if (plain) {
        memset(t->level + t->a, 0, (size_t)n * sizeof *t->level);
        return true;
    }
    fribidi_get_bracket_types(t->cp + t->a, n, t->types + t->a, t->brackets + t->a);
    return fribidi_get_par_embedding_levels_ex(t->types + t->a, t->brackets + t->a, n, &base,
                                               t->level + t->a) != 0;
}

/* The code points of the emoji sequence at t->cp[i] (emoji.h), given the
 * colour font and the script s; 0 when none starts there. */
static size_t text_emoji(text_t *t, size_t i, hb_script_t s)
{
    size_t m = fo_emoji_sequence(t->cp + i, t->b - i);
    hb_entry *e = m ? font_get(FO_EMOJI_FONT) : NULL;
    if (!e || !e->font) return 0;
    for (size_t k = i; k < i + m; k++) {
        t->font[k] = e;
        t->script[k] = s;
    }
    return m;
}

/* Script and font of every code point; spaces, digits, punctuation and marks
 * (Common, Inherited) take those of the character before them when its font
 * has them, so a phrase stays one item. An emoji sequence is set in the
 * colour font (without it, in Symbola), and what follows it in the font of
 * the text before it (the digits of "🚀 2024" are the text's digits).
 * Invisible controls (fo_text_invisible; HarfBuzz hides them as default
 * ignorables) never ask for a font of their own. */
static void text_fonts(text_t *t, hb_entry *pri, const char *font_file)
{
    hb_unicode_funcs_t *uf = hb_unicode_funcs_get_default();
    hb_script_t cur = HB_SCRIPT_COMMON;
    hb_entry *curf = NULL;
    bool bold = font_file && strstr(font_file, "Bold");
    for (size_t i = t->a; i < t->b; i++) {
        size_t m = text_emoji(t, i, cur);
        if (m) { i += m - 1; continue; }
        uint32_t c = t->cp[i];
        hb_script_t s = hb_unicode_script(uf, c);
        bool weak = s == HB_SCRIPT_COMMON || s == HB_SCRIPT_INHERITED || s == HB_SCRIPT_UNKNOWN;
        if (weak && curf && (has_glyph(curf, c) || fo_text_invisible(c))) {
            t->script[i] = cur;
            t->font[i] = curf;
            continue;
        }
        t->font[i] = font_for(pri, bold, c);
        if (!weak) cur = s;
        t->script[i] = cur;
        /* a symbol only Symbola has (an emoji without the colour font) does
           not lend its font to what follows: "🚀 2024" keeps the text's digits */
        if (!weak || (strcmp(t->font[i]->path, FO_TEXT_FALLBACK_SYMBOLS) != 0 && !fo_text_invisible(c)))
            curf = t->font[i];
    }
    /* leading weak characters take the script of the first strong one */
    size_t k = t->a;
    while (k < t->b && t->script[k] == HB_SCRIPT_COMMON) k++;
    for (size_t i = t->a; i < k && k < t->b; i++) t->script[i] = t->script[k];
}

static void text_items(text_t *t)
{
    for (size_t i = t->a; i < t->b; i++) {
        item *last = t->nitems ? &t->items[t->nitems - 1] : NULL;
        if (last && last->level == t->level[i] && last->script == t->script[i] &&
            last->font == t->font[i]) {
            last->len++;
            continue;
        }
        t->items[t->nitems++] = (item){i, 1, t->level[i], t->script[i], t->font[i]};
    }
}

/* UAX #9 L2 on items. */
static void text_reorder(text_t *t)
{
    int hi = 0, lo_odd = 127;   /* FriBidiLevel is a signed char: levels 0..125 */
    for (size_t i = 0; i < t->nitems; i++) {
        int l = t->items[i].level;
        if (l > hi) hi = l;
        if ((l & 1) && l < lo_odd) lo_odd = l;
    }
    for (int l = hi; l >= lo_odd && l > 0; l--)
        for (size_t i = 0; i < t->nitems;) {
            if (t->items[i].level < l) { i++; continue; }
            size_t j = i;
            while (j < t->nitems && t->items[j].level >= l) j++;
            for (size_t a = i, b = j - 1; a < b; a++, b--) {
                item tmp = t->items[a];
                t->items[a] = t->items[b];
                t->items[b] = tmp;
            }
            i = j;
        }
}

/* ---- shaped texts, in font units, and their cache ------------------------ */

/* A glyph as HarfBuzz gives it, before scaling to a size. */
typedef struct {
    uint32_t gid;
    int32_t x_off, y_off, x_adv;   /* font units */
    uint32_t cluster;              /* byte offset in the text shaped (not its context) */
    uint32_t cp;                   /* the cluster's first code point */
    bool rtl;
    hb_entry *font;
} raw_glyph;

static raw_glyph *raw;             /* the last text shaped (under the lock) */
static size_t nraw, capraw;

/* Shapes t's code points [s, s+n) of item it, appending their glyphs to
 * raw; false when out of memory. HarfBuzz sees the whole of t as context
 * (up to five characters either side: Arabic joining looks across item
 * and piece ends). */
static bool shape_span(const text_t *t, const item *it, size_t s, size_t n, hb_buffer_t *buf)
{
    hb_buffer_clear_contents(buf);
    hb_buffer_add_codepoints(buf, t->cp, (int)t->n, (unsigned)s, (int)n);
    hb_buffer_set_direction(buf, it->level & 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR);
    hb_buffer_set_script(buf, it->script);
    hb_buffer_set_flags(buf, HB_BUFFER_FLAG_REMOVE_DEFAULT_IGNORABLES);
    hb_buffer_guess_segment_properties(buf);
    hb_shape(it->font->font, buf, NULL, 0);
    unsigned count;
    hb_glyph_info_t *gi = hb_buffer_get_glyph_infos(buf, &count);
    hb_glyph_position_t *gp = hb_buffer_get_glyph_positions(buf, &count);
    if (!fo_grow((void **)&raw, &capraw, nraw + count, 64, sizeof *raw)) return false;
    for (unsigned g = 0; g < count; g++)
        raw[nraw++] = (raw_glyph){gi[g].codepoint, gp[g].x_offset, gp[g].y_offset, gp[g].x_advance,
                                  t->off[gi[g].cluster] - t->base, t->cp[gi[g].cluster],
                                  (it->level & 1) != 0,
                                  it->font};
    return true;
}

/* ---- word by word --------------------------------------------------------- */

/* Why words: a line is shaped again when it is drawn, after its words were
 * shaped one by one to measure them, and the same words come back all
 * through a document. When no lookup of a font involves the space glyph,
 * a text cut at its spaces and shaped word by word gives the glyphs the
 * whole text gives, so a line is drawn from the words its measuring
 * shaped (Firefox's word cache and Chromium's word shaper rest on the same
 * test of the font: gfxFont::CheckForFeaturesInvolvingSpace; folio also
 * reads the rules that reach the space by class 0, otlayout.h). A font
 * whose rules see the space only at their edges (the furthest they look)
 * gets each word shaped with the spaces around it, which is all those
 * rules can see (WORDS_SPACED). HarfBuzz's context (the characters either
 * side of a text) only decides Arabic-style joining, where a space joins
 * nothing, as no character does. A cut is never made before a mark or a
 * format character: one after a space sits on the space. Callgrind,
 * mixed-script report: its lines' shaping was 21 % of the PDF's
 * instructions. */

/* How a font is shaped word by word. */
enum {
    WORDS_APART = 1,    /* no lookup involves the space: each word alone */
    WORDS_SPACED,       /* the space is only ever at a rule's edge (otlayout.h):
                         * a word is shaped with the spaces either side of
                         * it (" word ", their glyphs then dropped), all that
                         * those rules can see of what is around it (Noto
                         * Sans Devanagari positions a vowel sign i after a
                         * space, its GPOS lookup 33, and substitutes one
                         * before a space, GSUB lookup 31: 5 % of the mixed-
                         * script report's PDF when its lines were shaped
                         * whole). A GPOS rule that looks past the space
                         * before the word (its lookup 12) is checked against
                         * the glyphs before that space, which GSUB has made
                         * final (words_beyond) */
    WORDS_NEVER,        /* lines are shaped whole */
};

#define BEYOND_MAX 64   /* rules that look past a space, at most */

static const hb_tag_t layout_tables[] = {HB_OT_TAG_GPOS, HB_OT_TAG_GSUB};

/* The context rules of e's GSUB and GPOS, read from their bytes: false
 * when one matches the space anywhere but at its edge or, in GPOS, inside
 * its backtrack (those rules are kept in e); *near set when one matches it
 * at all. */
static bool space_reach(hb_entry *e, hb_codepoint_t space, bool *near)
{
    const hb_tag_t *tables = layout_tables;
    hb_face_t *face = hb_font_get_face(e->font);
    fo_ot_beyond rules[BEYOND_MAX];
    size_t nfound = 0;
    bool ok = true;
    for (size_t k = 0; ok && k < 2; k++) {
        bool gpos = tables[k] == HB_OT_TAG_GPOS;
        hb_blob_t *b = hb_face_reference_table(face, tables[k]);
        unsigned len;
        const char *data = hb_blob_get_data(b, &len);
        fo_ot_reach r = fo_ot_context_reach((const uint8_t *)data, len, gpos, (uint16_t)space,
                                            gpos ? rules : NULL, gpos ? BEYOND_MAX : 0, &nfound);
        ok = r != FO_OT_ANYWHERE;
        *near = *near || r != FO_OT_NOWHERE;
        if (ok && r == FO_OT_BEYOND) {
            ok = (e->beyond = fo_malloc(nfound * sizeof *e->beyond)) != NULL;
            if (ok) memcpy(e->beyond, rules, nfound * sizeof *rules);
            e->nbeyond = nfound;
            for (size_t q = 0; q < nfound; q++) {
                size_t past = (size_t)(rules[q].count - rules[q].from);   /* glyphs read past the space */
                if (past > e->back) e->back = past;
            }
            e->gpos = hb_blob_reference(b);
        }
        hb_blob_destroy(b);
    }
    return ok;
}

/* The glyphs HarfBuzz lists for each lookup of e (any type): false when
 * the space is among those one changes or looks at ahead; *near set when
 * it is among those one looks at behind. */
static bool space_collected(hb_entry *e, hb_codepoint_t space, bool *near)
{
    const hb_tag_t *tables = layout_tables;
    hb_face_t *face = hb_font_get_face(e->font);
    hb_set_t *sets[3] = {NULL, NULL, NULL};   /* before, input, after */
    bool ok = true;
    for (size_t k = 0; ok && k < 3; k++) ok = hb_set_allocation_successful(sets[k] = hb_set_create());
    for (size_t k = 0; ok && k < 2; k++) {
        unsigned n = hb_ot_layout_table_get_lookup_count(face, tables[k]);
        for (unsigned i = 0; ok && i < n; i++) {
            for (size_t q = 0; q < 3; q++) hb_set_clear(sets[q]);
            hb_ot_layout_lookup_collect_glyphs(face, tables[k], i, sets[0], sets[1], sets[2], NULL);
            ok = hb_set_allocation_successful(sets[1]) && hb_set_allocation_successful(sets[2]) &&
                 !hb_set_has(sets[1], space) && !hb_set_has(sets[2], space);
            *near = *near || hb_set_has(sets[0], space);
        }
    }
    for (size_t k = 0; k < 3; k++) hb_set_destroy(sets[k]);
    return ok;
}

/* How the font can be shaped word by word: it needs a space glyph, no
 * legacy kern or AAT table (HarfBuzz applies those without lookups to
 * ask), no GSUB or GPOS lookup with the space among the glyphs it changes
 * or looks at ahead as collect_glyphs lists them (Liberation Sans kerns "A "
 * and " T"), and no context rule that matches the space, by glyph,
 * coverage or class (class 0 too, which collect_glyphs leaves out: Noto
 * Sans Bengali's GSUB lookup 18), anywhere but at its edge or, in GPOS,
 * inside its backtrack (otlayout.h). Found once per font; caller holds the
 * lock. */
static int words_mode(hb_entry *e)
{
    if (e->words) return e->words;
    hb_face_t *face = hb_font_get_face(e->font);
    hb_codepoint_t space;
    bool ok = hb_font_get_nominal_glyph(e->font, ' ', &space), near = false;
    static const hb_tag_t legacy[] = {HB_TAG('k', 'e', 'r', 'n'), HB_TAG('m', 'o', 'r', 'x'),
                                      HB_TAG('m', 'o', 'r', 't'), HB_TAG('k', 'e', 'r', 'x')};
    for (size_t i = 0; ok && i < sizeof legacy / sizeof *legacy; i++) {
        hb_blob_t *b = hb_face_reference_table(face, legacy[i]);
        ok = hb_blob_get_length(b) == 0;
        hb_blob_destroy(b);
    }
    ok = ok && space_reach(e, space, &near) && space_collected(e, space, &near);
    e->words = !ok ? WORDS_NEVER : near ? WORDS_SPACED : WORDS_APART;
    return e->words;
}

/* A word shaped alone, or with the spaces either side of it (WORDS_SPACED):
 * its code points, those spaces included, then its glyphs without theirs
 * (clusters counted from the first code point's byte). */
typedef struct {
    uint32_t hash, n, ng;
    const hb_entry *font;
    hb_script_t script;
    bool rtl;
    uint8_t spaces;       /* SPACE_BEFORE | SPACE_AFTER */
    raw_glyph *g;         /* in the block, after the code points */
    uint32_t cp[];
} word_entry;

enum { SPACE_BEFORE = 1, SPACE_AFTER = 2 };

#define WORD_CPS 64u            /* longer words are not kept */
#define WSLOTS 8192u            /* power of two */
#define WMAX_ENTRIES (WSLOTS / 2)
#define WMAX_BYTES ((size_t)4 << 20)
static word_entry *wslots[WSLOTS];
static size_t nwords, nwbytes;

static uint32_t word_hash(const hb_entry *f, hb_script_t script, bool rtl, unsigned spaces,
                          const uint32_t *cp, size_t n)
{
    uint32_t h = (2166136261u ^ (uint32_t)((uintptr_t)f >> 4)) * 16777619u;
    h = (h ^ (uint32_t)script ^ (uint32_t)rtl << 31 ^ (uint32_t)spaces << 28) * 16777619u;
    for (size_t i = 0; i < n; i++) h = (h ^ cp[i]) * 16777619u;
    return h;
}

static void words_clear(void)
{
    for (size_t i = 0; i < WSLOTS; i++) {
        fo_free(wslots[i]);
        wslots[i] = NULL;
    }
    nwords = nwbytes = 0;
}

/* Is cp[i] kept with the character before it (never cut before)? */
static bool clings(uint32_t c)
{
    hb_unicode_general_category_t g = hb_unicode_general_category(hb_unicode_funcs_get_default(), c);
    return g == HB_UNICODE_GENERAL_CATEGORY_NON_SPACING_MARK ||
           g == HB_UNICODE_GENERAL_CATEGORY_SPACING_MARK ||
           g == HB_UNICODE_GENERAL_CATEGORY_ENCLOSING_MARK ||
           g == HB_UNICODE_GENERAL_CATEGORY_FORMAT || c == 0x200B;
}

/* May the item be cut before t->cp[i]? At a space's either side. */
static bool cut_before(const text_t *t, size_t i)
{
    return (t->cp[i] == ' ' || t->cp[i - 1] == ' ') && !clings(t->cp[i]);
}

/* What shaping a word gives: its glyphs, no memory, or the news that the
 * item must be shaped whole (a space around it whose glyph is not alone). */
enum { WORD_NOMEM, WORD_SHAPED, WORD_WHOLE };

/* Drops a space's glyph from raw[first, nraw): the only glyph of cluster
 * at, at either end. False when it is not so (no lookup takes the space as
 * input, so it always is; a font that broke this would get its item
 * shaped whole). */
static bool drop_space(size_t first, uint32_t at)
{
    size_t same = 0, k = first;
    for (size_t g = first; g < nraw; g++)
        if (raw[g].cluster == at) { same++; k = g; }
    if (same != 1 || (k != first && k != nraw - 1)) return false;
    memmove(raw + k, raw + k + 1, (nraw - k - 1) * sizeof *raw);
    nraw--;
    return true;
}

/* Appends a cached word's glyphs to raw, clusters shifted by shift. */
static bool word_put(const word_entry *w, uint32_t shift)
{
    if (!fo_grow((void **)&raw, &capraw, nraw + w->ng, 64, sizeof *raw)) return false;
    for (uint32_t g = 0; g < w->ng; g++) {
        raw[nraw] = w->g[g];
        raw[nraw++].cluster += shift;
    }
    return true;
}

/* Keeps raw[first, nraw) (clusters shifted by shift) as the word cp[0..n)
 * in the empty slot *at; a failed allocation keeps nothing. */
static void word_keep(word_entry **at, uint32_t h, const item *it, unsigned spaces,
                      const uint32_t *cp, size_t n, size_t first, uint32_t shift)
{
    if (nwords >= WMAX_ENTRIES || nwbytes >= WMAX_BYTES) {
        words_clear();   /* emptied, not evicted entry by entry */
        at = &wslots[h & (WSLOTS - 1)];
    }
    size_t ng = nraw - first;
    size_t head = sizeof(word_entry) + n * sizeof *cp;
    head = (head + _Alignof(raw_glyph) - 1) / _Alignof(raw_glyph) * _Alignof(raw_glyph);
    word_entry *w = fo_malloc(head + ng * sizeof(raw_glyph));
    if (!w) return;
    *w = (word_entry){h, (uint32_t)n, (uint32_t)ng, it->font, it->script, (it->level & 1) != 0,
                      (uint8_t)spaces, (raw_glyph *)((char *)w + head)};
    memcpy(w->cp, cp, n * sizeof *cp);
    for (size_t g = 0; g < ng; g++) {
        w->g[g] = raw[first + g];
        w->g[g].cluster -= shift;
    }
    *at = w;
    nwords++;
    nwbytes += head + ng * sizeof(raw_glyph);
}

/* Shapes the word t->cp[s, s+n) of item it, with the space before it
 * and/or after it (spaces; their glyphs then dropped): from the cache when
 * its context decides nothing (a space or nothing either side, or the word
 * a space); else with its context, as shape_span. */
static int shape_word(const text_t *t, const item *it, size_t s, size_t n, unsigned spaces,
                      hb_buffer_t *buf)
{
    bool before = spaces & SPACE_BEFORE, after = spaces & SPACE_AFTER;
    size_t from = s - before, m = n + before + after;    /* the code points shaped */
    bool rtl = it->level & 1;
    bool alone = (n == 1 && t->cp[s] == ' ') ||
                 ((from == 0 || t->cp[from - 1] == ' ' || before) &&
                  (s + n == t->n || t->cp[s + n] == ' '));
    uint32_t shift = t->off[from] - t->base;
    const uint32_t *cp = t->cp + from;
    uint32_t h = 0;
    word_entry **at = NULL;
    if (alone && m <= WORD_CPS) {
        h = word_hash(it->font, it->script, rtl, spaces, cp, m);
        for (uint32_t i = h & (WSLOTS - 1);; i = (i + 1) & (WSLOTS - 1)) {
            at = &wslots[i];
            const word_entry *w = *at;
            if (!w) break;
            if (w->hash == h && w->n == m && w->font == it->font && w->script == it->script &&
                w->rtl == rtl && w->spaces == spaces && memcmp(w->cp, cp, m * sizeof *cp) == 0)
                return word_put(w, shift) ? WORD_SHAPED : WORD_NOMEM;
        }
    }
    size_t first = nraw;
    if (alone) {
        /* shaped alone: the word's code points the whole text (shape_span
           reads no other field; a copy of *t would copy its 4 KiB stack) */
        text_t word;
        word.cp = t->cp + from;
        word.off = t->off + from;
        word.n = m;
        word.base = t->off[from];
        if (!shape_span(&word, it, 0, m, buf)) return WORD_NOMEM;
        for (size_t g = first; g < nraw; g++) raw[g].cluster += shift;
    } else if (!shape_span(t, it, from, m, buf)) {
        return WORD_NOMEM;
    }
    if ((before && !drop_space(first, shift)) ||
        (after && !drop_space(first, t->off[s + n] - t->base)))
        return WORD_WHOLE;
    if (at) word_keep(at, h, it, spaces, cp, m, first, shift);
    return WORD_SHAPED;
}

/* words_beyond's answers, direct-mapped by the font and the glyphs it
 * read before the space (a slot is overwritten on collision): the same
 * word endings come back all through a text, and each asked every rule
 * (7 M instructions of the mixed-script report's PDF). Emptied with the
 * fonts (fo_shape_forget_fonts). Caller holds the lock. */
#define BEYOND_BACK 8          /* glyphs a rule may read past the space, at most */
#define BSLOTS 1024u           /* power of two */
static struct {
    const hb_entry *font;      /* NULL: empty */
    uint16_t before[BEYOND_BACK];
    uint8_t n;
    bool matches;
} beyond_seen[BSLOTS];

/* Whether a GPOS rule of the item's font that looks past a space (its
 * beyond list) could match across the space t->cp[sp]: the glyphs of the
 * item before that space (raw[first, nraw), in logical order: a
 * left-to-right item) are what one of them asks for. Then the glyphs of
 * the word after it may depend on more than the space, and the item is
 * shaped whole. */
static bool words_beyond(const text_t *t, const item *it, size_t sp, size_t first)
{
    const hb_entry *f = it->font;
    uint32_t at = t->off[sp] - t->base;       /* the space's cluster */
    uint16_t before[BEYOND_BACK];
    size_t n = 0, g = nraw;
    if (f->back > BEYOND_BACK) return true;   /* a rule that reads further back than kept */
    while (g > first && raw[g - 1].cluster >= at) g--;
    while (g > first && n < f->back) before[n++] = (uint16_t)raw[--g].gid;
    uint32_t h = (uint32_t)((uintptr_t)f >> 4) * 2654435761u ^ (uint32_t)n;
    for (size_t k = 0; k < n; k++) h = (h ^ before[k]) * 16777619u;
    __typeof__(beyond_seen[0]) *seen = &beyond_seen[h & (BSLOTS - 1)];
    if (seen->font == f && seen->n == n && memcmp(seen->before, before, n * sizeof *before) == 0)
        return seen->matches;
    unsigned len;
    const uint8_t *data = (const uint8_t *)hb_blob_get_data(f->gpos, &len);
    bool matches = false;
    for (size_t k = 0; k < f->nbeyond && !matches; k++)
        matches = fo_ot_beyond_matches(data, len, &f->beyond[k], before, n);
    seen->font = f;
    seen->n = (uint8_t)n;
    memcpy(seen->before, before, n * sizeof *before);
    seen->matches = matches;
    return matches;
}

/* The spaces shaped with the word t->cp[s, e) of item it in a font shaped
 * WORDS_SPACED: the item's spaces either side of it (none for a space). */
static unsigned spaces_around(const text_t *t, const item *it, size_t s, size_t e)
{
    if (e - s == 1 && t->cp[s] == ' ') return 0;
    return (s > it->start && t->cp[s - 1] == ' ' ? SPACE_BEFORE : 0) |
           (e < it->start + it->len && t->cp[e] == ' ' ? SPACE_AFTER : 0);
}

/* Shapes item it word by word (words_mode), appending the glyphs to raw in
 * visual order; spaced: each word with the spaces around it. */
static int shape_words(const text_t *t, const item *it, bool spaced, hb_buffer_t *buf)
{
    size_t a = it->start, b = it->start + it->len, first = nraw;
    int r = WORD_SHAPED;
    if (spaced && it->font->nbeyond && (it->level & 1)) return WORD_WHOLE;
    if (!(it->level & 1)) {
        for (size_t s = a, e; s < b && r == WORD_SHAPED; s = e) {
            for (e = s + 1; e < b && !cut_before(t, e); e++) {}
            unsigned spaces = spaced ? spaces_around(t, it, s, e) : 0;
            /* the space before the word, or the word's own (a mark on it) */
            size_t sp = spaces & SPACE_BEFORE ? s - 1 : t->cp[s] == ' ' && e - s > 1 ? s : a;
            if (sp > a && it->font->nbeyond && words_beyond(t, it, sp, first)) return WORD_WHOLE;
            r = shape_word(t, it, s, e - s, spaces, buf);
        }
    } else {   /* right to left: the last word's glyphs come first */
        for (size_t e = b, s; e > a && r == WORD_SHAPED; e = s) {
            for (s = e - 1; s > a && !cut_before(t, s); s--) {}
            r = shape_word(t, it, s, e - s, spaced ? spaces_around(t, it, s, e) : 0, buf);
        }
    }
    return r;
}

/* Shapes one item, appending its glyphs to raw in visual order; false when
 * out of memory. */
static bool shape_item(const text_t *t, const item *it, hb_buffer_t *buf)
{
    if (!it->font || !it->font->font) return true;
    int mode = words_mode(it->font);
    if (mode != WORDS_NEVER) {
        size_t first = nraw;
        int r = shape_words(t, it, mode == WORDS_SPACED, buf);
        if (r != WORD_WHOLE) return r == WORD_SHAPED;
        nraw = first;
    }
    return shape_span(t, it, it->start, it->len, buf);
}

/* Shapes utf8[from, from+n) into raw (nraw glyphs), the rest of utf8 its
 * context; false when it could not. lv (may be NULL: resolved from the
 * text shaped, base direction dir) gives the level of each byte of utf8. */
static bool shape_raw(const char *pri_path, const char *font_file, const char *utf8, size_t len,
                      size_t from, size_t n, fo_dir dir, const uint8_t *lv)
{
    text_t t;
    t.mem = t.stack;
    t.n = t.nitems = 0;
    nraw = 0;
    /* one buffer for the process, like the fonts (shape_item clears it) */
    static hb_buffer_t *buf;
    if (!buf) buf = hb_buffer_create();
    hb_entry *pri = font_get(pri_path);
    bool ok = pri && hb_buffer_allocation_successful(buf) && text_decode(&t, utf8, len);
    for (t.a = 0; ok && t.a < t.n && t.off[t.a] < from; t.a++) {}
    for (t.b = t.a; ok && t.b < t.n && t.off[t.b] < from + n; t.b++) {}
    t.base = (uint32_t)from;
    if (ok && lv)
        for (size_t i = t.a; i < t.b; i++) t.level[i] = (FriBidiLevel)(lv[t.off[i]] & 0x7F);
    else ok = ok && text_levels(&t, dir);
    if (ok) {
        text_fonts(&t, pri, font_file);
        text_items(&t);
        text_reorder(&t);
        for (size_t i = 0; ok && i < t.nitems; i++) ok = shape_item(&t, &t.items[i], buf);
    }
    text_free(&t);
    return ok;
}

/* Why a cache: layout measures a text word by word, a table its cells, a
 * chart its labels, and the same words come back all through a document
 * (and at other sizes: the glyphs do not depend on the size). The mixed-
 * script benchmark report shaped 5,308 texts of which 1,890 were distinct;
 * texts longer than SHORT (drawn lines) almost never came back. An entry
 * is one block: the key's strings, then the glyphs. When the table is
 * full (MAX_ENTRIES, or MAX_BYTES of blocks: a process keeps at most
 * ~4 MiB) it is emptied, not evicted entry by entry. */
#define SHORT 128u
#define SLOTS 8192u             /* power of two */
#define MAX_ENTRIES (SLOTS / 2)
#define MAX_BYTES ((size_t)4 << 20)   /* the entries' blocks, at most */
#define CTX_CHARS 5             /* context kept either side (HarfBuzz's own limit) */
#define CTX_BYTES 24            /* and at most this many bytes of it (a uint8_t) */

/* What a shaped text depends on: the font, the direction, the text and
 * the context around it (text[0..pre) and the last post bytes: the text
 * shaped is text[pre, len - post)). */
typedef struct {
    const char *font_file;
    const char *text;
    size_t len, pre, post;
    fo_dir dir;
} shape_key;

typedef struct {
    uint32_t hash;
    uint8_t dir, pre, post;     /* pre, post: context bytes (at most CTX_BYTES) */
    uint32_t len, n;            /* text bytes with its context, glyphs */
    const char *font_file;      /* in the block */
    const char *text;           /* in the block */
    raw_glyph *g;               /* in the block */
} shaped_entry;

static shaped_entry *slots[SLOTS];
static size_t nentries, nbytes;

static uint32_t key_hash(const shape_key *k)
{
    uint32_t h = 2166136261u ^ (uint32_t)k->dir ^ (uint32_t)(k->pre << 8 | k->post << 16);
    for (const char *p = k->font_file ? k->font_file : ""; *p; p++) h = (h ^ (unsigned char)*p) * 16777619u;
    h = (h ^ 0xFF) * 16777619u;
    for (size_t i = 0; i < k->len; i++) h = (h ^ (unsigned char)k->text[i]) * 16777619u;
    return h;
}

/* The slot of the key: its entry, or the empty slot where it would go. */
static shaped_entry **entry_slot(uint32_t h, const shape_key *k)
{
    const char *ff = k->font_file ? k->font_file : "";
    for (uint32_t i = h & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
        shaped_entry *e = slots[i];
        if (!e || (e->hash == h && e->dir == k->dir && e->len == k->len && e->pre == k->pre &&
                   e->post == k->post && memcmp(e->text, k->text, k->len) == 0 &&
                   strcmp(e->font_file, ff) == 0))
            return &slots[i];
    }
}

static void cache_clear(void)
{
    for (size_t i = 0; i < SLOTS; i++) {
        fo_free(slots[i]);
        slots[i] = NULL;
    }
    nentries = nbytes = 0;
}

/* Keeps raw's glyphs in *at for the key (a failed allocation keeps nothing). */
static void cache_put(shaped_entry **at, uint32_t h, const shape_key *k)
{
    const char *ff = k->font_file ? k->font_file : "";
    size_t flen = strlen(ff) + 1;
    size_t head = (sizeof(shaped_entry) + sizeof(raw_glyph) - 1) / sizeof(raw_glyph) * sizeof(raw_glyph);
    size_t bytes = head + nraw * sizeof(raw_glyph) + flen + k->len;
    shaped_entry *e = fo_malloc(bytes);
    if (!e) return;
    nbytes += bytes;
    e->g = (raw_glyph *)((char *)e + head);
    char *str = (char *)(e->g + nraw);
    memcpy(str, ff, flen);
    memcpy(str + flen, k->text, k->len);
    if (nraw) memcpy(e->g, raw, nraw * sizeof *raw);
    *e = (shaped_entry){h, (uint8_t)k->dir, (uint8_t)k->pre, (uint8_t)k->post, (uint32_t)k->len,
                        (uint32_t)nraw, str, str + flen, e->g};
    *at = e;
    nentries++;
}

/* Glyphs g[0..n) set at size, to out (up to cap); returns n. */
static size_t emit(const raw_glyph *g, size_t n, double size, fo_shaped *out, size_t cap,
                   double *width)
{
    double x = 0;
    for (size_t i = 0; i < n; i++) {
        double k = size / g[i].font->upem;
        if (g[i].gid == 0) fo_text_missing_note(g[i].cp);
        if (out && i < cap)
            out[i] = (fo_shaped){g[i].gid, x + g[i].x_off * k, g[i].y_off * k, g[i].x_adv * k,
                                 g[i].cluster, g[i].rtl, g[i].font->path};
        x += g[i].x_adv * k;
    }
    if (width) *width = x;
    return n;
}

/* Shapes the key's text (from the cache when it was shaped before) into
 * out at size; returns the glyph count. */
static size_t shape_keyed(const shape_key *k, double size, fo_shaped *out, size_t cap,
                          double *width)
{
    size_t n = 0, len = k->len - k->pre - k->post;
    if (width) *width = 0;
    const char *pri_path = fo_text_resolve(k->font_file);   /* text.c's lock: not under ours */
    pthread_mutex_lock(&lock);
    uint32_t h = 0;
    shaped_entry **at = NULL;
    if (len <= SHORT) {
        h = key_hash(k);
        at = entry_slot(h, k);
        if (*at) {
            n = emit((*at)->g, (*at)->n, size, out, cap, width);
            goto done;
        }
    }
    if (!shape_raw(pri_path, k->font_file, k->text, k->len, k->pre, len, k->dir, NULL)) goto done;
    n = emit(raw, nraw, size, out, cap, width);
    if (at) {
        if (nentries >= MAX_ENTRIES || nbytes >= MAX_BYTES) {
            cache_clear();
            at = entry_slot(h, k);
        }
        cache_put(at, h, k);
    }
done:
    pthread_mutex_unlock(&lock);
    return n;
}

size_t fo_shape(const char *font_file, double size, const char *utf8, size_t len, fo_dir dir,
                fo_shaped *out, size_t cap, double *width)
{
    if (width) *width = 0;
    if (!utf8 || len == 0) return 0;
    shape_key k = {font_file, utf8, len, 0, 0, dir};
    return shape_keyed(&k, size, out, cap, width);
}

size_t fo_shape_levels(const char *font_file, double size, const char *utf8, size_t len,
                       const uint8_t *levels, fo_shaped *out, size_t cap, double *width)
{
    size_t n = 0;
    if (width) *width = 0;
    if (!utf8 || len == 0) return 0;
    const char *pri_path = fo_text_resolve(font_file);   /* text.c's lock: not under ours */
    pthread_mutex_lock(&lock);
    if (shape_raw(pri_path, font_file, utf8, len, 0, len, FO_DIR_AUTO, levels))
        n = emit(raw, nraw, size, out, cap, width);
    pthread_mutex_unlock(&lock);
    return n;
}

/* Start of the code point that ends before text[at], stepping over
 * continuation bytes (at > 0). */
static size_t cp_back(const char *text, size_t at)
{
    do at--; while (at > 0 && ((unsigned char)text[at] & 0xC0) == 0x80);
    return at;
}

size_t fo_shape_in(const char *font_file, double size, const char *text, size_t len, size_t off,
                   size_t n, fo_dir dir, fo_shaped *out, size_t cap, double *width)
{
    if (width) *width = 0;
    if (!text || n == 0 || off > len || n > len - off) return 0;
    /* HarfBuzz keeps at most HB_BUFFER_CONTEXT_LENGTH (5) characters of
       context either side: only they can change the glyphs, so only they
       are decoded and make the cache key */
    size_t from = off, to = off + n;
    for (int i = 0; i < CTX_CHARS && from > 0 && off - cp_back(text, from) <= CTX_BYTES; i++)
        from = cp_back(text, from);
    for (int i = 0; i < CTX_CHARS && to < len; i++) {
        size_t next = to;
        fo_utf8_next(text, len, &next);
        if (next - (off + n) > CTX_BYTES) break;
        to = next;
    }
    shape_key k = {font_file, text + from, to - from, off - from, to - off - n, dir};
    return shape_keyed(&k, size, out, cap, width);
}

void fo_shape_forget_fonts(void)
{
    pthread_mutex_lock(&lock);
    cache_clear();                 /* shaped texts name the fonts' glyphs */
    words_clear();
    memset(found, 0, sizeof found);
    memset(beyond_seen, 0, sizeof beyond_seen);
    fo_grow_free((void ***)&cache, &ncache, &capcache, entry_free);
    pthread_mutex_unlock(&lock);
}
