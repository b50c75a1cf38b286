/* sha256.c — SHA-256 as specified in FIPS 180-4, for manifests and --json.
 *
 * The state is the eight working words h[], the total message length in
 * bytes, and a partial block buf[0..nbuf). Invariant between calls:
 * nbuf < 64, and every full block seen so far has been compressed.
 *
 * Blocks are compressed with the x86 SHA extensions where the processor has
 * them (compress_ni: ~150 instructions a block where the portable code takes
 * ~4,000; a render hashes its spec, 9.2 M instructions for the 145 KB
 * report spec of bench-pptx), else by the portable code. Both give the
 * same digest (t_sha256 checks the vectors both ways). */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#if defined(__x86_64__) && defined(__GNUC__)
#include <cpuid.h>
#include <immintrin.h>
#define HAVE_SHA_NI 1
#endif

#include "base/sha256.h"

/* FIPS 180-4 §4.2.2: first 32 bits of the fractional parts of the cube
 * roots of the first 64 primes. */
static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

static uint32_t rotr(uint32_t x, unsigned n) { return (x >> n) | (x << (32 - n)); }

/* §6.2.2: compresses one 64-byte block into the state. */
static void compress(uint32_t h[8], const unsigned char *p)
{
    uint32_t w[64];
    for (int t = 0; t < 16; t++)
        w[t] = (uint32_t)p[4 * t] << 24 | (uint32_t)p[4 * t + 1] << 16 |
               (uint32_t)p[4 * t + 2] << 8 | (uint32_t)p[4 * t + 3];
    for (int t = 16; t < 64; t++) {
        uint32_t s0 = rotr(w[t - 15], 7) ^ rotr(w[t - 15], 18) ^ (w[t - 15] >> 3);
        uint32_t s1 = rotr(w[t - 2], 17) ^ rotr(w[t - 2], 19) ^ (w[t - 2] >> 10);
        w[t] = w[t - 16] + s0 + w[t - 7] + s1;
    }
    uint32_t a = h[0], b = h[1], c = h[2], d = h[3];
    uint32_t e = h[4], f = h[5], g = h[6], k = h[7];
    for (int t = 0; t < 64; t++) {
        uint32_t S1 = rotr(e, 6) ^ rotr(e, 11) ^ rotr(e, 25);
        uint32_t ch = (e & f) ^ (~e & g);
        uint32_t t1 = k + S1 + ch + K[t] + w[t];
        uint32_t S0 = rotr(a, 2) ^ rotr(a, 13) ^ rotr(a, 22);
        uint32_t maj = (a & b) ^ (a & c) ^ (b & c);
        uint32_t t2 = S0 + maj;
        k = g; g = f; f = e; e = d + t1;
        d = c; c = b; b = a; a = t1 + t2;
    }
    h[0] += a; h[1] += b; h[2] += c; h[3] += d;
    h[4] += e; h[5] += f; h[6] += g; h[7] += k;
}

#ifdef HAVE_SHA_NI
/* The same rounds with the SHA extensions, n blocks at p. The state lives
 * in two registers as ABEF and CDGH; W holds the last four groups of four
 * message words (group i in W[i % 4]). */
static __attribute__((target("sha,sse4.1,ssse3"))) void compress_ni(uint32_t h[8], const unsigned char *p,
                                                                    size_t n)
{
    const __m128i bswap = _mm_set_epi64x(0x0c0d0e0f08090a0bLL, 0x0405060700010203LL);
    __m128i tmp = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[0]), 0xB1); /* CDAB */
    __m128i st1 = _mm_shuffle_epi32(_mm_loadu_si128((const __m128i *)&h[4]), 0x1B); /* EFGH */
    __m128i st0 = _mm_alignr_epi8(tmp, st1, 8);                                     /* ABEF */
    st1 = _mm_blend_epi16(st1, tmp, 0xF0);                                          /* CDGH */
    for (; n; n--, p += 64) {
        __m128i abef = st0, cdgh = st1, w[4];
        for (int i = 0; i < 16; i++) {
            __m128i m;
            if (i < 4) {
                m = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), bswap);
            } else { /* w[i&3]: group i-4, then i-3, i-2, i-1 round the ring */
                m = _mm_sha256msg1_epu32(w[i & 3], w[(i + 1) & 3]);
                m = _mm_add_epi32(m, _mm_alignr_epi8(w[(i + 3) & 3], w[(i + 2) & 3], 4));
                m = _mm_sha256msg2_epu32(m, w[(i + 3) & 3]);
            }
            w[i & 3] = m;
            __m128i k = _mm_add_epi32(m, _mm_loadu_si128((const __m128i *)&K[4 * i]));
            st1 = _mm_sha256rnds2_epu32(st1, st0, k);
            st0 = _mm_sha256rnds2_epu32(st0, st1, _mm_shuffle_epi32(k, 0x0E));
        }
        st0 = _mm_add_epi32(st0, abef);
        st1 = _mm_add_epi32(st1, cdgh);
    }
    tmp = _mm_shuffle_epi32(st0, 0x1B);                                  /* FEBA */
    st1 = _mm_shuffle_epi32(st1, 0xB1);                                  /* DCHG */
    _mm_storeu_si128((__m128i *)&h[0], _mm_blend_epi16(tmp, st1, 0xF0)); /* DCBA */
    _mm_storeu_si128((__m128i *)&h[4], _mm_alignr_epi8(st1, tmp, 8));    /* HGFE */
}

/* 1: the processor has the SHA extensions (and SSSE3, SSE4.1); 0: not;
 * -1: not asked yet. Every thread computes the same answer. */
static int sha_ni = -1;
#endif

static bool portable_only;

void fo_sha256__force_portable(bool on) { portable_only = on; }

/* Compresses n blocks at p into h. */
static void compress_blocks(uint32_t h[8], const unsigned char *p, size_t n)
{
#ifdef HAVE_SHA_NI
    int ni = __atomic_load_n(&sha_ni, __ATOMIC_RELAXED);
    if (ni < 0) {
        unsigned a, b, c, d;
        ni = __get_cpuid(1, &a, &b, &c, &d) && (c & bit_SSSE3) && (c & bit_SSE4_1) &&
             __get_cpuid_count(7, 0, &a, &b, &c, &d) && (b & bit_SHA);
        __atomic_store_n(&sha_ni, ni, __ATOMIC_RELAXED);
    }
    if (ni && !portable_only) {
        compress_ni(h, p, n);
        return;
    }
#endif
    for (; n; n--, p += 64) compress(h, p);
}

void fo_sha256_init(fo_sha256 *s)
{
    /* §5.3.3: first 32 bits of the fractional parts of the square roots of
     * the first 8 primes. */
    static const uint32_t H0[8] = {
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
        0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
    };
    memcpy(s->h, H0, sizeof H0);
    s->len = 0;
    s->nbuf = 0;
}

void fo_sha256_update(fo_sha256 *s, const void *data, size_t len)
{
    const unsigned char *p = data;
    s->len += len;
    if (s->nbuf > 0) {
        size_t take = 64 - s->nbuf < len ? 64 - s->nbuf : len;
        memcpy(s->buf + s->nbuf, p, take);
        s->nbuf += take;
        p += take;
        len -= take;
        if (s->nbuf < 64) return;
        compress_blocks(s->h, s->buf, 1);
        s->nbuf = 0;
    }
    compress_blocks(s->h, p, len / 64);
    p += len / 64 * 64;
    len %= 64;
    memcpy(s->buf, p, len);
    s->nbuf = len;
}

/* §5.1.1: append 0x80, zeros, and the message length in bits (big endian)
 * so that the padded message is a multiple of 64 bytes. */
void fo_sha256_final(fo_sha256 *s, unsigned char out[32])
{
    uint64_t bits = s->len * 8;
    unsigned char pad[72] = {0x80};
    size_t npad = s->nbuf < 56 ? 56 - s->nbuf : 120 - s->nbuf;
    for (int i = 0; i < 8; i++) pad[npad + (size_t)i] = (unsigned char)(bits >> (56 - 8 * i));
    fo_sha256_update(s, pad, npad + 8);
    for (int i = 0; i < 8; i++) {
        out[4 * i] = (unsigned char)(s->h[i] >> 24);
        out[4 * i + 1] = (unsigned char)(s->h[i] >> 16);
        out[4 * i + 2] = (unsigned char)(s->h[i] >> 8);
        out[4 * i + 3] = (unsigned char)s->h[i];
    }
}

static void to_hex(const unsigned char d[32], char out[65])
{
    static const char hex[] = "0123456789abcdef";
    for (int i = 0; i < 32; i++) {
        out[2 * i] = hex[d[i] >> 4];
        out[2 * i + 1] = hex[d[i] & 15];
    }
    out[64] = '\0';
}

void fo_sha256_hex(const void *data, size_t len, char out[65])
{
    fo_sha256 s;
    unsigned char d[32];
    fo_sha256_init(&s);
    fo_sha256_update(&s, data, len);
    fo_sha256_final(&s, d);
    to_hex(d, out);
}

int fo_sha256_file_hex(const char *path, char out[65])
{
    FILE *fp = fopen(path, "rb");
    if (!fp) return 0;
    fo_sha256 s;
    unsigned char chunk[65536], d[32];
    size_t n;
    fo_sha256_init(&s);
    while ((n = fread(chunk, 1, sizeof chunk, fp)) > 0) fo_sha256_update(&s, chunk, n);
    int ok = !ferror(fp);
    fclose(fp);
    if (!ok) return 0;
    fo_sha256_final(&s, d);
    to_hex(d, out);
    return 1;
}
