/* rle.c — the PNG's zlib stream: run-length deflate, one dynamic-Huffman
 * block (see png_encode.h, fo_png_zlib_rle).
 *
 * Why not libdeflate's level 1 (used until issue 39): an "Up"-filtered chart
 * is mostly zero bytes, yet a general LZ77 match finder hashes its way
 * through every one of them. On 20 charts of each kind (callgrind,
 * 2026-12-06) it was ~15 M instructions of a line chart's ~25 M (1.2 MB of
 * RGB rows) and ~5 M of a bar chart's ~9.4 M. Here the only matches are
 * runs: of one byte (distance 1, what zlib's Z_RLE strategy finds) and of
 * one RGB pixel difference (distance 3: a colored horizontal edge is one
 * pixel and a copy); everything else is a literal. encode.c knows where
 * they are (the pixels unlike the one above, and those like their left
 * neighbour) and says so (fo_rle_put's zero count, fo_rle_repeat); only
 * fo_rle_put's bytes are searched for runs, 16 bytes at a time. Files, 20
 * charts of each kind vs libdeflate level 1: bar -2%, scatter +1%, pie +1%,
 * line +6.5%, area +8%.
 *
 * The stream: zlib header 78 01, one final block with dynamic Huffman codes
 * (literal/length codes from this image's counts, at most 15 bits; two
 * one-bit distance codes, for distances 1 and 3), Adler-32.
 * Deterministic: the codes depend only on the bytes. */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "render/png/png_encode.h"

#define MIN_RUN 3 /* deflate's shortest match */
#define MAX_MATCH 258
#define NLITLEN 286 /* literal/length symbols 0..285 */
#define NCLEN 19    /* code length symbols */

/* the length symbol (257..285), its extra bits and their value, by length */
typedef struct {
    uint16_t sym;
    uint8_t nextra;
    uint8_t extra;
} lencode;

static lencode lencodes[MAX_MATCH + 1];

static void lencodes_init(void)
{
    static const uint16_t base[29] = {3,  4,  5,  6,  7,  8,  9,  10, 11,  13,  15,  17,  19,  23, 27,
                                      31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258};
    static const uint8_t nextra[29] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2,
                                       2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0};
    for (int c = 0; c < 29; c++) {
        int end = c == 28 ? MAX_MATCH : base[c + 1] - 1;
        for (int len = base[c]; len <= end; len++)
            lencodes[len] = (lencode){(uint16_t)(257 + c), nextra[c], (uint8_t)(len - base[c])};
    }
}

/* The next match length of a run of n >= MIN_RUN bytes: at most 258, and
 * never leaving a tail shorter than MIN_RUN. */
static uint32_t run_piece(uint32_t n)
{
    if (n <= MAX_MATCH) return n;
    return n - MAX_MATCH < MIN_RUN ? n - MIN_RUN : MAX_MATCH;
}

/* Length of the run of bytes equal to v at p[0..n). */
static size_t run_of(const unsigned char *p, size_t n, unsigned char v)
{
    size_t j = 0;
#if defined(__SSE2__)
    __m128i b = _mm_set1_epi8((char)v);
    while (j + 16 <= n) {
        __m128i a = _mm_loadu_si128((const __m128i *)(const void *)(p + j));
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(a, b)) ^ 0xFFFFu;
        if (m) return j + (size_t)__builtin_ctz(m);
        j += 16;
    }
#endif
    while (j < n && p[j] == v) j++;
    return j;
}

#define ADLER_MOD 65521u
/* The sums are reduced once this many bytes have come since the last time,
 * checked at the end of each run and at each fo_rle_put call of at most
 * PUT_MAX bytes: s1 < 2^25 and s2 < 2^48 in between. */
#define ADLER_EVERY 32768u
#define PUT_MAX 4096u

static bool grow_lit(fo_rle *r, size_t more);

static void adler_reduce(fo_rle *r)
{
    r->s1 %= ADLER_MOD;
    r->s2 %= ADLER_MOD;
    r->since = 0;
}

/* Counts the length symbols of a match of len >= MIN_RUN bytes: run_piece's
 * pieces at once (a row of zeros is ten), whole ones of 258 while at least
 * 261 are left, then what is left (3..260) as one piece, or as two when
 * more than 258. */
static void count_pieces(fo_rle *r, uint32_t len)
{
    uint32_t whole = len >= 261 ? (len - 3) / MAX_MATCH : 0, left = len - whole * MAX_MATCH;
    r->freq[lencodes[MAX_MATCH].sym] += whole;
    if (left > MAX_MATCH) {
        r->freq[lencodes[left - MIN_RUN].sym]++;
        left = MIN_RUN;
    }
    r->freq[lencodes[left].sym]++;
}

/* Ends the open sequence with a match of len bytes at distance dist (1 or 3). */
static void add_match(fo_rle *r, uint32_t len, uint32_t dist)
{
    if (r->ns == r->scap && !fo_grow((void **)&r->seqs, &r->scap, r->ns + 1, 1024, sizeof *r->seqs)) {
        r->failed = true;
        return;
    }
    r->seqs[r->ns++] = (fo_rle_seq){(uint32_t)r->lit0, (uint32_t)(r->nlit - r->lit0), len, dist};
    r->lit0 = r->nlit;
    count_pieces(r, len);
}

/* Ends the pending run of r->run copies of r->last: a match when at least
 * MIN_RUN long (a sequence closes there), else literals. */
static void close_run(fo_rle *r)
{
    uint64_t k = r->run, v = r->last;
    if (k == 0) return;
    r->run = 0;
    if (k < 65536) /* the sums stay far below 2^64 between reductions */
        r->s2 += k * r->s1 + v * (k * (k + 1) / 2);
    else r->s2 += (k % ADLER_MOD) * r->s1 + v * ((k * (k + 1) / 2) % ADLER_MOD);
    r->s1 += k * v;
    r->since += k;
    if (k < MIN_RUN) {
        if (r->nlit + k > r->litcap && !grow_lit(r, k)) return;
        for (uint64_t i = 0; i < k; i++) r->lit[r->nlit++] = (unsigned char)v;
        r->freq[v] += (uint32_t)k;
    } else {
        add_match(r, (uint32_t)k, 1);
    }
    if (r->since >= ADLER_EVERY) adler_reduce(r);
}

void fo_rle_repeat(fo_rle *r, const unsigned char *pat, size_t bpp, size_t times)
{
    if (r->failed || times == 0) return;
    if (times > (UINT32_MAX - r->total) / bpp) {
        r->failed = true;
        return;
    }
    if (bpp == 1) { /* a run of the last byte */
        r->total += times;
        r->run += times;
        return;
    }
    close_run(r);
    if (r->failed) return;
    uint64_t k = times, a = pat[0], b = pat[1], c = pat[2], sum = a + b + c;
    if (k >= 16384) { /* keep the sums small: in pieces */
        for (; times >= 8192; times -= 8192) fo_rle_repeat(r, pat, 3, 8192);
        fo_rle_repeat(r, pat, 3, times);
        return;
    }
    /* each copy adds sum to s1, and 3 s1 + 3a + 2b + c to s2 */
    r->s2 += k * 3 * r->s1 + k * (3 * a + 2 * b + c) + 3 * sum * (k * (k - 1) / 2);
    r->s1 += k * sum;
    r->since += 3 * k;
    r->total += 3 * k;
    r->last = pat[2];
    add_match(r, (uint32_t)(3 * k), 3);
    if (r->since >= ADLER_EVERY) adler_reduce(r);
}

/* Room for more literals; false (r->failed) when out of memory. */
static bool grow_lit(fo_rle *r, size_t more)
{
    if (fo_grow((void **)&r->lit, &r->litcap, r->nlit + more, 65536, 1)) return true;
    r->failed = true;
    return false;
}

bool fo_rle_reserve(fo_rle *r, size_t lits, size_t seqs)
{
    if (r->failed) return false;
    if (lits > r->litcap) {
        unsigned char *l = fo_realloc(r->lit, lits);
        if (!l) return r->failed = true, false;
        r->lit = l;
        r->litcap = lits;
    }
    if (seqs > r->scap) {
        if (seqs > SIZE_MAX / sizeof *r->seqs) return r->failed = true, false;
        fo_rle_seq *q = fo_realloc(r->seqs, seqs * sizeof *q);
        if (!q) return r->failed = true, false;
        r->seqs = q;
        r->scap = seqs;
    }
    return true;
}

static pthread_once_t lencodes_once = PTHREAD_ONCE_INIT;

void fo_rle_init(fo_rle *r)
{
    pthread_once(&lencodes_once, lencodes_init);
    memset(r, 0, sizeof *r);
    r->s1 = 1;
    r->last = 256; /* no byte yet */
}

/* What fo_rle_put and fo_rle_lits do first: counts zeros + n bytes
 * (failing past 4 GiB), appends the zeros (a run when the byte before is
 * a zero, else a literal zero and a run) and makes room for n literals.
 * False when r failed. */
static bool put_start(fo_rle *r, size_t zeros, size_t n)
{
    if (r->failed) return false;
    if (zeros > UINT32_MAX - r->total || n > UINT32_MAX - r->total - zeros) {
        r->failed = true; /* the sequences count in 32 bits */
        return false;
    }
    r->total += zeros + n;
    if (zeros) {
        if (r->last == 0) {
            r->run += zeros;
        } else {
            close_run(r);
            if (r->failed || (r->nlit == r->litcap && !grow_lit(r, 1))) return false;
            r->lit[r->nlit++] = 0;
            r->freq[0]++;
            r->s2 += r->s1;
            r->since++;
            r->last = 0;
            r->run = zeros - 1;
        }
    }
    if (r->since >= ADLER_EVERY) adler_reduce(r);
    return r->nlit + n <= r->litcap || grow_lit(r, n);
}

/* Appends n literals, with room for them: their bytes, their counts, the
   running sums; the last one remembered. */
static inline void append_lits(fo_rle *r, const unsigned char *p, size_t n)
{
    uint64_t s1 = r->s1, s2 = r->s2;
    unsigned char *o = r->lit + r->nlit;

    for (size_t i = 0; i < n; i++) {
        unsigned char b = p[i];
        o[i] = b;
        r->freq[b]++;
        s1 += b;
        s2 += s1;
    }
    r->nlit += n;
    r->s1 = s1;
    r->s2 = s2;
    r->last = p[n - 1];
}

/* fo_rle_lits in the common case, in one go: at least MIN_RUN + 1 zeros
 * (fewer than 2^16) after a byte that is not zero with no run pending, then
 * 1..PUT_MAX literals, with room for them and a sequence. The same bytes,
 * sequences and counts as put_start and close_run would give (a literal
 * zero, a match of the other zeros, the literals); the sums reduced once
 * at the end (the same value modulo 65521, far from overflowing). False,
 * nothing done, in any other case. Issue 39: put_start and two close_runs
 * were ~190 instructions a stretch of changed pixels, ~0.5 M of a line or
 * area chart. */
static bool lits_fast(fo_rle *r, size_t zeros, const unsigned char *p, size_t n)
{
    if (r->failed || r->run || r->last == 0 || zeros <= MIN_RUN || zeros >= 65536 || n == 0 || n > PUT_MAX ||
        r->ns == r->scap || r->nlit + 1 + n > r->litcap || zeros + n > UINT32_MAX - r->total)
        return false;
    r->total += zeros + n;
    r->lit[r->nlit] = 0;
    r->freq[0]++;
    uint64_t s1 = r->s1, s2 = r->s2 + s1, k = zeros - 1; /* the zero, then k more: s1 stays */
    s2 += k * s1;
    r->nlit++;
    r->seqs[r->ns++] = (fo_rle_seq){(uint32_t)r->lit0, (uint32_t)(r->nlit - r->lit0), (uint32_t)k, 1};
    r->lit0 = r->nlit;
    count_pieces(r, (uint32_t)k);
    r->s1 = s1;
    r->s2 = s2;
    append_lits(r, p, n);
    r->since += zeros + n;
    if (r->since >= ADLER_EVERY) adler_reduce(r);
    return true;
}

void fo_rle_lits(fo_rle *r, size_t zeros, const unsigned char *p, size_t n)
{
    if (lits_fast(r, zeros, p, n)) return;
    for (; n > PUT_MAX; p += PUT_MAX, n -= PUT_MAX) {
        fo_rle_lits(r, zeros, p, PUT_MAX);
        zeros = 0;
    }
    if (!put_start(r, zeros, n) || n == 0) return;
    close_run(r);
    if (r->failed || (r->nlit + n > r->litcap && !grow_lit(r, n))) return;
    append_lits(r, p, n);
    r->since += n;
}

void fo_rle_put(fo_rle *r, size_t zeros, const unsigned char *p, size_t n)
{
    for (; n > PUT_MAX; p += PUT_MAX, n -= PUT_MAX) {
        fo_rle_put(r, zeros, p, PUT_MAX);
        zeros = 0;
    }
    if (!put_start(r, zeros, n)) return;
    uint64_t s1 = r->s1, s2 = r->s2;
    unsigned last = r->last;
    for (size_t i = 0; i < n;) {
        unsigned char b = p[i];
        if (b == last) { /* the run goes on */
            size_t k = i + 1 < n && p[i + 1] == b ? 1 + run_of(p + i + 1, n - i - 1, b) : 1;
            r->run += k;
            i += k;
            continue;
        }
        if (r->run) {
            r->s1 = s1;
            r->s2 = s2;
            r->last = last;
            close_run(r);
            if (r->failed) return;
            if (r->nlit + n - i > r->litcap && !grow_lit(r, n - i)) return;
            s1 = r->s1;
            s2 = r->s2;
        }
        r->lit[r->nlit++] = b;
        r->freq[b]++;
        s1 += b;
        s2 += s1;
        last = b;
        i++;
    }
    r->s1 = s1;
    r->s2 = s2;
    r->last = last;
    r->since += n;
}

void fo_rle_free(fo_rle *r)
{
    fo_free(r->lit);
    fo_free(r->seqs);
    r->lit = NULL;
    r->seqs = NULL;
}

/* ---- Huffman codes ------------------------------------------------------------ */

/* A leaf of the code tree: its weight above, its symbol in the low 9 bits
 * (weights are below 2^33: counts of at most 2^32), so leaves order by
 * weight, then symbol, as plain integers. */
#define LEAF_SYM_BITS 9

/* Sorts k[0..n) ascending: Shell's sort with Ciura's gaps, no calls per
 * compare (qsort's were most of building the codes, ~0.1 M instructions
 * a chart). The keys are distinct, so the order is the only one. */
static void sort_keys(uint64_t *k, int n)
{
    static const int gaps[] = {132, 57, 23, 10, 4, 1};
    for (size_t g = 0; g < sizeof gaps / sizeof *gaps; g++)
        for (int i = gaps[g]; i < n; i++) {
            uint64_t v = k[i];
            int j = i;
            for (; j >= gaps[g] && k[j - gaps[g]] > v; j -= gaps[g]) k[j] = k[j - gaps[g]];
            k[j] = v;
        }
}

/* Code lengths len[0..n) (n <= NLITLEN) of a Huffman code for the counts
 * freq, none longer than limit: the counts are halved until the tree is
 * shallow enough. At least two symbols must have counts. */
static void huff_lengths(const uint32_t *freq, int n, int limit, uint8_t *len)
{
    uint64_t f[NLITLEN];
    for (int i = 0; i < n; i++) f[i] = freq[i];
    for (;;) {
        uint64_t lv[NLITLEN];
        uint64_t w[2 * NLITLEN];
        int parent[2 * NLITLEN], depth[2 * NLITLEN], m = 0;
        for (int i = 0; i < n; i++)
            if (f[i]) lv[m++] = f[i] << LEAF_SYM_BITS | (uint64_t)i;
        sort_keys(lv, m);
        for (int k = 0; k < m; k++) w[k] = lv[k] >> LEAF_SYM_BITS;
        /* two queues: leaves by weight, then inner nodes in the order made */
        int li = 0, ii = m, next = m;
        while (next < 2 * m - 1) {
            int a = li < m && (ii >= next || w[li] <= w[ii]) ? li++ : ii++;
            int b = li < m && (ii >= next || w[li] <= w[ii]) ? li++ : ii++;
            w[next] = w[a] + w[b];
            parent[a] = parent[b] = next++;
        }
        depth[2 * m - 2] = 0;
        int deepest = 0;
        for (int k = 2 * m - 3; k >= 0; k--) {
            depth[k] = depth[parent[k]] + 1;
            if (depth[k] > deepest) deepest = depth[k];
        }
        if (deepest <= limit) {
            memset(len, 0, (size_t)n);
            for (int k = 0; k < m; k++) len[lv[k] & ((1u << LEAF_SYM_BITS) - 1)] = (uint8_t)depth[k];
            return;
        }
        for (int i = 0; i < n; i++)
            if (f[i]) f[i] = (f[i] + 1) / 2;
    }
}

/* Canonical codes of lengths len[0..n), bit-reversed for LSB-first output. */
static void huff_codes(const uint8_t *len, int n, uint16_t *code)
{
    int count[16] = {0}, next[16];
    for (int i = 0; i < n; i++) count[len[i]]++;
    count[0] = 0;
    next[0] = 0;
    for (int b = 1; b < 16; b++) next[b] = (next[b - 1] + count[b - 1]) << 1;
    for (int i = 0; i < n; i++) {
        if (!len[i]) {
            code[i] = 0;
            continue;
        }
        /* the 16 bits reversed by swapping halves, then the top len[i]
           taken: bit by bit was ~30 k instructions a chart (issue 39) */
        unsigned c = (unsigned)next[len[i]]++;
        c = (c & 0x5555u) << 1 | (c >> 1 & 0x5555u);
        c = (c & 0x3333u) << 2 | (c >> 2 & 0x3333u);
        c = (c & 0x0F0Fu) << 4 | (c >> 4 & 0x0F0Fu);
        c = (c & 0x00FFu) << 8 | (c >> 8 & 0x00FFu);
        code[i] = (uint16_t)(c >> (16 - len[i]));
    }
}

/* ---- bits ------------------------------------------------------------------------ */

typedef struct {
    unsigned char *o;
    uint64_t acc;
    int cnt;
} bits;

/* Appends the low n (<= 32) bits of v, first bit first. */
static inline void put(bits *b, uint32_t v, int n)
{
    b->acc |= (uint64_t)v << b->cnt;
    b->cnt += n;
    if (b->cnt >= 32) {
        b->o[0] = (unsigned char)b->acc;
        b->o[1] = (unsigned char)(b->acc >> 8);
        b->o[2] = (unsigned char)(b->acc >> 16);
        b->o[3] = (unsigned char)(b->acc >> 24);
        b->o += 4;
        b->acc >>= 32;
        b->cnt -= 32;
    }
}

static void flush(bits *b)
{
    while (b->cnt > 0) {
        *b->o++ = (unsigned char)b->acc;
        b->acc >>= 8;
        b->cnt -= 8;
    }
    b->cnt = 0;
}

/* ---- the block header ------------------------------------------------------------- */

/* The code lengths all[0..n) as code length symbols (16: repeat the last
 * 3-6 times, 17: 3-10 zeros, 18: 11-138 zeros), symbol | extra << 8. */
static int clen_symbols(const uint8_t *all, int n, uint16_t *out)
{
    int k = 0;
    for (int i = 0; i < n;) {
        int v = all[i], run = 1;
        while (i + run < n && all[i + run] == v) run++;
        i += run;
        if (v == 0) {
            while (run >= 11) {
                int r = run > 138 ? 138 : run;
                out[k++] = (uint16_t)(18 | (r - 11) << 8);
                run -= r;
            }
            if (run >= 3) {
                out[k++] = (uint16_t)(17 | (run - 3) << 8);
                run = 0;
            }
        } else {
            out[k++] = (uint16_t)v;
            run--;
            while (run >= 3) {
                int r = run > 6 ? 6 : run;
                out[k++] = (uint16_t)(16 | (r - 3) << 8);
                run -= r;
            }
        }
        while (run-- > 0) out[k++] = (uint16_t)v;
    }
    return k;
}

/* Writes BFINAL, BTYPE = dynamic and the code tables. */
static void block_header(bits *b, const uint8_t *litlen, int nlit)
{
    static const uint8_t order[NCLEN] = {16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15};
    static const uint8_t nextra[3] = {2, 3, 7};
    uint8_t all[NLITLEN + 3];
    memcpy(all, litlen, (size_t)nlit);
    all[nlit] = 1; /* distance code 0: distance 1 (code bit 0) */
    all[nlit + 1] = 0;
    all[nlit + 2] = 1; /* distance code 2: distance 3, a pixel back (code bit 1) */
    uint16_t sym[NLITLEN + 3];
    int nsym = clen_symbols(all, nlit + 3, sym);
    uint32_t freq[NCLEN] = {0};
    for (int i = 0; i < nsym; i++) freq[sym[i] & 0xFF]++;
    int used = 0;
    for (int i = 0; i < NCLEN; i++) used += freq[i] != 0;
    if (used < 2) freq[freq[0] ? 1 : 0]++; /* a code needs two symbols */
    uint8_t len[NCLEN];
    uint16_t code[NCLEN];
    huff_lengths(freq, NCLEN, 7, len);
    huff_codes(len, NCLEN, code);
    int nclen = NCLEN;
    while (nclen > 4 && len[order[nclen - 1]] == 0) nclen--;
    put(b, 1 | 2 << 1, 3); /* final block, dynamic codes */
    put(b, (uint32_t)(nlit - 257), 5);
    put(b, 3 - 1, 5); /* distance codes 0..2 */
    put(b, (uint32_t)(nclen - 4), 4);
    for (int i = 0; i < nclen; i++) put(b, len[order[i]], 3);
    for (int i = 0; i < nsym; i++) {
        int s = sym[i] & 0xFF;
        put(b, code[s], len[s]);
        if (s >= 16) put(b, sym[i] >> 8, nextra[s - 16]);
    }
}

/* ---- the stream -------------------------------------------------------------------- */

fo_status fo_rle_finish(fo_rle *r, fo_buf *out)
{
    close_run(r);
    if (!r->failed && r->nlit == 0) return FO_ERR_INTERNAL; /* nothing put */
    if (!r->failed && r->ns == r->scap &&
        !fo_grow((void **)&r->seqs, &r->scap, r->ns + 1, 1024, sizeof *r->seqs))
        r->failed = true;
    if (r->failed) return FO_ERR_NOMEM;
    r->seqs[r->ns++] = (fo_rle_seq){(uint32_t)r->lit0, (uint32_t)(r->nlit - r->lit0), 0, 1};
    adler_reduce(r);
    uint32_t *freq = r->freq;
    freq[256] = 1; /* end of block */
    uint8_t len[NLITLEN];
    uint16_t code[NLITLEN];
    huff_lengths(freq, NLITLEN, 15, len); /* EOB and the first byte: >= 2 symbols */
    huff_codes(len, NLITLEN, code);
    int nlit = NLITLEN;
    while (len[nlit - 1] == 0) nlit--;
    /* room: the coded symbols, their extra bits (<= 5) and distance bit,
     * the header (< 320 symbols of <= 7 + 7 bits, plus 76 bits) and the
     * zlib wrapping */
    uint64_t nbits = 0;
    for (int i = 0; i < NLITLEN; i++) nbits += (uint64_t)freq[i] * (len[i] + (i > 256 ? 6 : 0));
    size_t room = (size_t)(nbits / 8) + 640 + 16;
    if (!fo_buf_reserve(out, room)) return FO_ERR_NOMEM;
    unsigned char *start = (unsigned char *)out->data + out->len;
    start[0] = 0x78;
    start[1] = 0x01;
    bits b = {start + 2, 0, 0};
    block_header(&b, len, nlit < 257 ? 257 : nlit);
    for (size_t k = 0; k < r->ns; k++) {
        const unsigned char *p = r->lit + r->seqs[k].lit, *e = p + r->seqs[k].nlit;
        for (; p + 1 < e; p += 2) { /* two codes of <= 15 bits at once */
            uint32_t l0 = len[p[0]];
            put(&b, code[p[0]] | (uint32_t)code[p[1]] << l0, (int)(l0 + len[p[1]]));
        }
        if (p < e) put(&b, code[*p], len[*p]);
        uint32_t dbit = r->seqs[k].dist == 3;
        for (uint32_t left = r->seqs[k].nrun; left;) {
            uint32_t piece = run_piece(left);
            const lencode *c = &lencodes[piece];
            /* length code, its extra bits, the one-bit distance code */
            put(&b, code[c->sym] | (uint32_t)c->extra << len[c->sym] | dbit << (len[c->sym] + c->nextra),
                len[c->sym] + c->nextra + 1);
            left -= piece;
        }
    }
    put(&b, code[256], len[256]);
    flush(&b);
    uint32_t adler = (uint32_t)(r->s2 << 16 | r->s1);
    for (int i = 3; i >= 0; i--) *b.o++ = (unsigned char)(adler >> (8 * i));
    out->len = (size_t)(b.o - (unsigned char *)out->data);
    out->data[out->len] = 0;
    return FO_OK;
}

fo_status fo_png_zlib_rle(const unsigned char *src, size_t n, fo_buf *out)
{
    if (n == 0) return FO_ERR_INTERNAL;
    fo_rle r;
    fo_rle_init(&r);
    fo_rle_put(&r, 0, src, n);
    fo_status st = fo_rle_finish(&r, out);
    fo_rle_free(&r);
    return st;
}
