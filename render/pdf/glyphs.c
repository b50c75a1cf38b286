/* glyphs.c — shaped glyphs drawn by glyph id in libharu's embedded
 * TrueType (CID) fonts, with a text layer that gives back the characters.
 *
 * libharu shows text only through its UTF-8 encoder: a content code is a
 * BMP code point (CID = code point) and the font's /CIDToGIDMap sends it to
 * the glyph the font's cmap has for that character. The glyphs a shaper
 * picks (Arabic contextual forms, Indic conjuncts and reordered vowel signs,
 * ligatures) have no code point. So each such glyph gets a code of its own:
 * the lowest code that the font's cmap does not cover and that no text has
 * shown in it (for Noto Sans Arabic, U+0001.. and the gaps below U+0600), so
 * /CIDToGIDMap stays short. (They were U+D800.. first: every font's map then
 * ran to U+D800, 17 maps of 110 KB of zeros in the mixed-script report whose
 * compression was 7% of its render.) A character no installed font has is
 * shown in the text's own font as .notdef, by its code point; should that
 * code already stand for a shaped glyph, fo_pdf_mark_codes gives the
 * character a code of its own as it gives a glyph one (.notdef, its width,
 * its text). Before the file is saved fo_pdf_glyphs_finish completes the
 * font around libharu:
 *   /CIDToGIDMap   code -> glyph id (the map rewritten up to the last code),
 *   /W             the glyph's advance for the code,
 *   subset flags   the glyph is embedded (then fo_pdf_close_glyphs adds the
 *                  components of composite glyphs),
 *   /ToUnicode     code -> the characters of its cluster (fix_to_unicode,
 *                  which leaves these codes out of its identity ranges).
 * Glyphs are written in visual order, as every PDF producer writes them;
 * readers (pdftotext, Acrobat) apply the bidi algorithm to give back the
 * logical text. A cluster of several glyphs (a vowel sign drawn before its
 * consonant) maps its first glyph to the cluster's characters and the others
 * to nothing.
 *
 * A code is keyed by (glyph, text): the same glyph standing for different
 * characters gets different codes. At most 2,048 codes per font; past that,
 * for a font whose cmap leaves too few codes free, or for a font libharu
 * cannot load, the caller draws outlines. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hpdf.h>
#include <hpdf_encoder.h>
#include <hpdf_font.h>
#include <hpdf_fontdef.h>
#include <hpdf_pages.h>
#include <hpdf_streams.h>

#include "base/utf8.h"
#include "render/pdf/pdf_int.h"
#include "render/core/text.h"

#define MAX_CODES 2048u
#define HASH 4096u              /* power of two, > 2 * MAX_CODES */

struct fo_pdf_gmap {
    uint16_t code[MAX_CODES];   /* the content code of entry k */
    uint16_t gid[MAX_CODES];
    int16_t adv[MAX_CODES];     /* its /W: the distance to the next glyph, 1/1000 em */
    char *text[MAX_CODES];      /* UTF-8, owned; "" for a cluster's later glyphs */
    uint16_t slot[HASH];        /* entry index + 1; 0 = empty */
    uint8_t taken[0x10000 / 8]; /* 1 bit per code: an entry's */
    uint32_t next;              /* where the search for a free code goes on */
    uint32_t top;               /* one past the highest code of an entry */
    size_t n;
};

static bool surrogate(uint32_t u) { return u >= 0xD800 && u <= 0xDFFF; }

static bool code_used(const fo_pdf_font *f, uint32_t u)
{
    return f->used && (f->used[u >> 3] >> (u & 7) & 1);
}

bool fo_pdf_code_taken(const fo_pdf_font *f, uint32_t u)
{
    return f->gmap && u < f->gmap->top && (f->gmap->taken[u >> 3] >> (u & 7) & 1);
}

uint32_t fo_pdf_taken_top(const fo_pdf_font *f)
{
    return f->gmap ? f->gmap->top : 0;
}

/* Whether code u is free for a shaped glyph of f: no text shows it in f
 * and f's cmap does not cover it (so no text will show it, but a character
 * no font has: fo_pdf_mark_codes), and it is no surrogate (flow.c draws
 * those as U+FFFD). The search starts at 1, never 0 (a C string's end for
 * libharu), and goes on from where it stopped (codes below are taken). */
static bool code_free(fo_pdf_font *f, uint32_t u)
{
    return !surrogate(u) && !code_used(f, u) && !fo_pdf_font_has(f, u);
}

static uint32_t first_candidate(const fo_pdf_font *f)
{
    return f->gmap && f->gmap->next ? f->gmap->next : 1;
}

/* The lowest free code from the last one found on; 0 when none is left. */
static uint32_t free_code(fo_pdf_font *f, struct fo_pdf_gmap *m)
{
    uint32_t u = first_candidate(f);
    while (u < 0x10000 && !code_free(f, u)) u++;
    if (u >= 0x10000) return 0;
    m->next = u + 1;
    return u;
}

static uint32_t key_hash(uint16_t gid, int16_t adv, const char *text)
{
    uint32_t h = (2166136261u ^ gid) * 16777619u ^ (uint16_t)adv;
    for (const unsigned char *p = (const unsigned char *)text; *p; p++) h = (h ^ *p) * 16777619u;
    return h;
}

/* The code of (gid, advance, text) in font f, assigned on first use; 0
 * when f has no room left or memory ran out. The advance is part of the key
 * so that /W places the next glyph where the shaper put it (a kerned pair,
 * a mark of no width): one string of codes needs no repositioning, and
 * readers see no gap that would split a word. */
static uint32_t code_for(fo_pdf_font *f, uint16_t gid, int16_t adv, const char *text)
{
    if (!f->gmap && !(f->gmap = fo_calloc(1, sizeof *f->gmap))) return 0;
    struct fo_pdf_gmap *m = f->gmap;
    uint32_t h = key_hash(gid, adv, text) & (HASH - 1);
    for (; m->slot[h]; h = (h + 1) & (HASH - 1)) {
        size_t k = m->slot[h] - 1u;
        if (m->gid[k] == gid && m->adv[k] == adv && strcmp(m->text[k], text) == 0) return m->code[k];
    }
    uint32_t u;
    if (m->n == MAX_CODES || !(u = free_code(f, m))) return 0;
    if (!(m->text[m->n] = fo_strdup(text))) return 0;
    m->code[m->n] = (uint16_t)u;
    m->gid[m->n] = gid;
    m->adv[m->n] = adv;
    m->slot[h] = (uint16_t)(m->n + 1);
    m->taken[u >> 3] |= (uint8_t)(1u << (u & 7));
    if (u >= m->top) m->top = u + 1;
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)f->def->attr;
    if (gid < a->num_glyphs) a->glyph_tbl.flgs[gid] = 1;   /* embed it */
    m->n++;
    return u;
}

void fo_pdf_gmap_free(fo_pdf_font *f)
{
    if (!f || !f->gmap) return;
    for (size_t i = 0; i < f->gmap->n; i++) fo_free(f->gmap->text[i]);
    fo_free(f->gmap);
    f->gmap = NULL;
}

bool fo_pdf_glyph_codes_left(fo_pdf_font *f, size_t n)
{
    if ((f->gmap ? f->gmap->n : 0) + n > MAX_CODES) return false;
    /* and n codes the font lacks are still free (a font whose cmap covers
       nearly all of the BMP may have fewer): counted, not taken */
    size_t left = 0;
    for (uint32_t u = first_candidate(f); left < n && u < 0x10000; u++) left += code_free(f, u);
    return left == n;
}

/* UTF-16BE hex of utf8 into out (room for 4 hex digits per byte + 1). */
static void utf16_hex(const char *utf8, char *out)
{
    size_t len = strlen(utf8), o = 0;
    for (size_t i = 0; i < len;) {
        uint32_t cp = fo_utf8_next(utf8, len, &i);
        if (cp > 0xFFFF) {
            cp -= 0x10000;
            o += (size_t)sprintf(out + o, "%04X%04X", 0xD800 + (cp >> 10), 0xDC00 + (cp & 0x3FF));
        } else {
            o += (size_t)sprintf(out + o, "%04X", cp);
        }
    }
    out[o] = 0;
}

/* ---- drawing --------------------------------------------------------------- */

/* Appends code as the four hex digits of its two bytes, as
 * libharu writes a UTF-8 font's text (hpdf_page_operator.c,
 * InternalWriteText: the encoder's big-endian bytes, upper-case hex). */
static size_t put_code(char *o, uint32_t code)
{
    static const char hex[] = "0123456789ABCDEF";
    for (int k = 0; k < 4; k++) o[k] = hex[code >> (12 - 4 * k) & 0xF];
    return 4;
}

/* Writes "<codes> Tj" into the page's content stream, as
 * HPDF_Page_ShowText(p, text) writes it for these codes. Why not through
 * libharu: ShowText measures the text first (per code: the encoder, the
 * font's cmap, the glyph's width), only to move a text position nobody
 * reads (HPDF_Page_GetCurrentTextPos); every glyph run sets its own text
 * matrix. That measuring was 7% of the mixed-script report's PDF
 * (callgrind). hex holds the digits, "<" before them and room after. */
static void show_codes(HPDF_Page p, char *hex, size_t n)
{
    memcpy(hex + 1 + n, "> Tj\012", 6);
    HPDF_Stream_WriteStr(((HPDF_PageAttr)p->attr)->stream, hex);
}

/* Opens a marked-content span whose text is utf8 (readers take it instead
 * of the glyphs' own), written straight into the page's content stream:
 * libharu has no call for it. */
void fo_pdf_actual_open(HPDF_Page p, const char *utf8)
{
    HPDF_Stream s = ((HPDF_PageAttr)p->attr)->stream;
    char *hex = fo_malloc(strlen(utf8) * 4 + 8);
    if (!hex) return;
    utf16_hex(utf8, hex);
    HPDF_Stream_WriteStr(s, "/Span <</ActualText <FEFF");
    HPDF_Stream_WriteStr(s, hex);
    HPDF_Stream_WriteStr(s, ">>> BDC\n");
    fo_free(hex);
}

void fo_pdf_actual_close(HPDF_Page p)
{
    HPDF_Stream_WriteStr(((HPDF_PageAttr)p->attr)->stream, "EMC\n");
}

void fo_pdf_glyph_run(fo_pdf *c, fo_pdf_font *f, double size, double x, double y,
                      const fo_pdf_glyph *g, size_t n)
{
    HPDF_Page p = c->page;
    char buf[1 + 4 * 64 + 6] = "<";   /* "<", the codes' hex digits, "> Tj\n" */
    size_t o = 0;            /* hex digits in buf */
    double pen = 0;          /* where the PDF's pen is after the codes in buf */
    fo_pdf_set_font(c, f, size);
    if (!f->font) return;    /* libharu would refuse the text too */
    for (size_t i = 0; i <= n; i++) {
        bool span_edge = i < n && (g[i].actual == 1 || (g[i].actual == 0 && i > 0 && g[i - 1].actual));
        bool flow = i < n && o > 0 && o + 4 <= 4 * 64 && g[i].dy == 0 && !span_edge &&
                    __builtin_fabs(x + g[i].x - pen) < 0.02;
        if (o > 0 && (i == n || !flow)) {
            show_codes(p, buf, o);
            o = 0;
        }
        if (i < n ? span_edge && i > 0 && g[i - 1].actual : n > 0 && g[n - 1].actual) fo_pdf_actual_close(p);
        if (i == n) break;
        if (g[i].actual == 1) fo_pdf_actual_open(p, g[i].text);
        double a = __builtin_round(g[i].adv * 1000 / size);
        int16_t adv = (int16_t)(a < -32000 ? -32000 : a > 32000 ? 32000 : a);
        uint32_t code = code_for(f, (uint16_t)g[i].gid, adv, g[i].actual ? "" : g[i].text);
        if (!code) continue;
        if (o == 0) {   /* positions are exact here (not snapped): a glyph is not a line */
            pen = x + g[i].x;
            HPDF_Page_SetTextMatrix(p, 1, 0, 0, 1, (HPDF_REAL)pen, (HPDF_REAL)(y + g[i].dy));
        }
        o += put_code(buf + 1 + o, code);
        pen += adv * size / 1000.0;
    }
}

/* ---- completing the font before saving ---------------------------------- */

/* HPDF_GetFont with the UTF-8 encoder builds the descendant font's /W and
 * /CIDToGIDMap over all 65,536 code points (hpdf_font_cid.c,
 * CIDFontType2_New: a glyph lookup, a width and a two-byte copy per code,
 * a PDF number per width): ~8 M instructions a font, 10% of the mixed-
 * script report's PDF (17 fonts). fo_pdf_glyphs_finish rewrites both from
 * the codes shown before the file is saved, so libharu's are thrown away.
 * For the call, the encoder takes the path libharu has for table-driven
 * encoders (HPDF_CMapEncoder_ToUnicode: only the codes its cid_map lists)
 * with a map of one code, so the pair still exists, small, for
 * fo_pdf_glyphs_finish to fill; the encoder is put back at once. The saved
 * PDF is the same bytes. (Saving and restoring the whole 128 KiB map per
 * font cost 1 ms of copying in that report: only the one entry is.) */
HPDF_Font fo_pdf_get_font(HPDF_Doc pdf, const char *name)
{
    HPDF_Encoder e = HPDF_GetEncoder(pdf, "UTF-8");
    HPDF_CMapEncoderAttr a = e && e->type == HPDF_ENCODER_TYPE_DOUBLE_BYTE ? e->attr : NULL;
    /* libharu's UTF-8 encoder converts by rule and leaves its cid_map
       empty, but for its parser's state in the first bytes
       (hpdf_encoder_utf.c: 10 bytes at cid_map[0]); that state is put
       aside and back, and one entry set for the call and cleared after */
    enum { STATE = 8 };                      /* cid_map[0][0..7]: 16 bytes */
    const unsigned char *m = a ? (const unsigned char *)a->cid_map + 2 * STATE : NULL;
    size_t rest = a ? sizeof a->cid_map - 2 * STATE : 0;
    if (!m || m[0] || memcmp(m, m + 1, rest - 1) != 0)
        return HPDF_GetFont(pdf, name, "UTF-8");             /* the long way */
    HPDF_UINT16 state[STATE];
    memcpy(state, a->cid_map[0], sizeof state);
    memset(a->cid_map[0], 0, sizeof state);
    HPDF_Encoder_ToUnicode_Func fn = e->to_unicode_fn;
    HPDF_UNICODE space = a->unicode_map[0][' '];
    a->cid_map[0][' '] = ' ';
    a->unicode_map[0][' '] = ' ';
    e->to_unicode_fn = HPDF_CMapEncoder_ToUnicode;
    HPDF_Font f = HPDF_GetFont(pdf, name, "UTF-8");
    e->to_unicode_fn = fn;
    a->unicode_map[0][' '] = space;
    a->cid_map[0][' '] = 0;
    memcpy(a->cid_map[0], state, sizeof state);
    return f;
}

const char *fo_pdf_mark_codes(fo_pdf *c, fo_pdf_font *f, const char *s)
{
    if (!f->used && !(f->used = fo_calloc(0x10000 / 8, 1))) {
        fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
        return s;
    }
    char *out = NULL;        /* s with its taken codes given codes of their own */
    size_t o = 0;
    /* as libharu's UTF-8 encoder reads it: one code per character of up to
       three bytes (folio gives it nothing longer) */
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        const unsigned char *start = p;
        uint32_t u;
        if (*p < 0x80) u = *p++;
        else if ((*p & 0xE0) == 0xC0 && p[1]) { u = (p[0] & 0x1Fu) << 6 | (p[1] & 0x3Fu); p += 2; }
        else if ((*p & 0xF0) == 0xE0 && p[1] && p[2]) {
            u = (p[0] & 0x0Fu) << 12 | (p[1] & 0x3Fu) << 6 | (p[2] & 0x3Fu);
            p += 3;
        } else { p++; continue; }
        if (fo_pdf_code_taken(f, u)) {
            /* a character no font has, whose code stands for a shaped
               glyph: .notdef under a code of its own, read back as itself */
            if (!out) {
                /* a code of one to three bytes stands for a character of
                   one to three: at most three bytes for each byte of s */
                size_t len = strlen(s);
                if (!(out = fo_malloc(3 * len + 1))) {
                    fo_pdf_fail(c, FO_ERR_NOMEM, "pdf: out of memory");
                    return s;
                }
                o = (size_t)((const char *)start - s);
                memcpy(out, s, o);
            }
            char one[5] = {0};
            fo_utf8_put(one, u);
            double w = __builtin_round(fo_pdf_glyph_width(f, u));
            uint32_t k = code_for(f, 0, (int16_t)(w > 32000 ? 32000 : w < -32000 ? -32000 : w), one);
            if (k) o += fo_utf8_put(out + o, k);   /* else (no code left) it is dropped */
            continue;
        }
        if (out) {
            memcpy(out + o, start, (size_t)(p - start));
            o += (size_t)(p - start);
        }
        if (surrogate(u)) continue;   /* never text (flow.c) */
        f->used[u >> 3] |= (uint8_t)(1u << (u & 7));
        if (u >= f->used_top) f->used_top = u + 1;
    }
    if (!out) return s;
    out[o] = 0;
    fo_free(c->marked);
    c->marked = out;
    return out;
}

void fo_pdf_glyphs_flag(fo_pdf_font *f)
{
    HPDF_TTFontDefAttr a = (HPDF_TTFontDefAttr)f->def->attr;
    memset(a->glyph_tbl.flgs, 0, a->num_glyphs);
    a->glyph_tbl.flgs[0] = 1;                           /* .notdef */
    for (uint32_t u = 0; u < f->used_top; u++) {
        if (!code_used(f, u)) continue;
        HPDF_UINT16 g = HPDF_TTFontDef_GetGlyphid(f->def, (HPDF_UINT16)u);
        if (g < a->num_glyphs) a->glyph_tbl.flgs[g] = 1;
    }
    for (size_t i = 0; f->gmap && i < f->gmap->n; i++)
        if (f->gmap->gid[i] < a->num_glyphs) a->glyph_tbl.flgs[f->gmap->gid[i]] = 1;
}

/* /CIDToGIDMap for codes [0, top): the glyph of each character shown and
 * of each shaped glyph's code, zero for every other code; glyph numbers as
 * the subset has them (subset.c). */
static void write_map(fo_pdf_font *f, HPDF_FontAttr fa, uint32_t top)
{
    HPDF_BYTE *b = fo_calloc(top, 2);
    if (!b) return;
    for (uint32_t u = 0; u < top && u < f->used_top; u++) {   /* U+E000 on too: ，（）！ */
        if (!code_used(f, u)) continue;
        HPDF_UINT16 gid = fo_pdf_subset_gid(f, HPDF_TTFontDef_GetGlyphid(f->def, (HPDF_UINT16)u));
        b[2 * u] = (HPDF_BYTE)(gid >> 8);
        b[2 * u + 1] = (HPDF_BYTE)gid;
    }
    for (size_t i = 0; f->gmap && i < f->gmap->n; i++) {
        HPDF_UINT16 gid = fo_pdf_subset_gid(f, f->gmap->gid[i]);
        b[2 * f->gmap->code[i]] = (HPDF_BYTE)(gid >> 8);
        b[2 * f->gmap->code[i] + 1] = (HPDF_BYTE)gid;
    }
    HPDF_Stream s = fa->map_stream->stream;
    HPDF_MemStream_FreeData(s);
    HPDF_Stream_Write(s, b, (HPDF_UINT)top * 2);
    fo_free(b);
}

/* /W for the codes [0, top) shown, as libharu writes it: runs of
 * consecutive codes whose advance is not the default, [first [w w ...]]; a
 * shaped glyph's code has its entry's advance. */
static void write_widths(fo_pdf_font *f, HPDF_FontAttr fa, uint32_t top)
{
    HPDF_Array w = HPDF_Dict_GetItem(fa->descendant_font, "W", HPDF_OCLASS_ARRAY);
    if (!w) return;
    HPDF_Array_Clear(w);
    uint16_t *entry = NULL;           /* code -> entry index + 1 */
    if (f->gmap && f->gmap->n) {
        if (!(entry = fo_calloc(top, sizeof *entry))) return;
        for (size_t i = 0; i < f->gmap->n; i++) entry[f->gmap->code[i]] = (uint16_t)(i + 1);
    }
    HPDF_Array run = NULL;
    HPDF_INT16 dw = f->def->missing_width;
    for (uint32_t u = 0; u < top; u++) {
        HPDF_INT16 adv = entry && entry[u] ? f->gmap->adv[entry[u] - 1]
            : code_used(f, u) ? HPDF_TTFontDef_GetGidWidth(f->def, HPDF_TTFontDef_GetGlyphid(f->def, (HPDF_UINT16)u))
            : dw;
        if (adv == dw) { run = NULL; continue; }
        if (!run) {
            if (!(run = HPDF_Array_New(w->mmgr))) break;
            HPDF_Array_AddNumber(w, (HPDF_INT32)u);
            HPDF_Array_Add(w, run);
        }
        HPDF_Array_AddNumber(run, adv);
    }
    fo_free(entry);
}

void fo_pdf_glyphs_finish(fo_pdf *c, fo_pdf_font *f)
{
    if (c->st != FO_OK || !f || !f->font) return;
    HPDF_FontAttr fa = (HPDF_FontAttr)f->font->attr;
    if (!fa || !fa->descendant_font || !fa->map_stream) return;
    uint32_t top = 1;
    if (f->used_top > top) top = f->used_top;
    if (f->gmap && f->gmap->top > top) top = f->gmap->top;
    write_map(f, fa, top);
    write_widths(f, fa, top);
}

void fo_pdf_glyphs_to_unicode(const fo_pdf_font *f, HPDF_Stream s)
{
    if (!f->gmap) return;
    size_t n = f->gmap->n;
    for (size_t i = 0; i < n; i += 100) {
        size_t k = n - i < 100 ? n - i : 100;
        char line[64];
        snprintf(line, sizeof line, "%zu beginbfchar\n", k);
        HPDF_Stream_WriteStr(s, line);
        for (size_t j = i; j < i + k; j++) {
            const char *t = f->gmap->text[j];
            char *hex = fo_malloc(strlen(t) * 4 + 8);
            if (!hex) return;
            utf16_hex(t, hex);
            snprintf(line, sizeof line, "<%04X> <", (unsigned)f->gmap->code[j]);
            HPDF_Stream_WriteStr(s, line);
            HPDF_Stream_WriteStr(s, hex);
            HPDF_Stream_WriteStr(s, ">\n");
            fo_free(hex);
        }
        HPDF_Stream_WriteStr(s, "endbfchar\n");
    }
}
