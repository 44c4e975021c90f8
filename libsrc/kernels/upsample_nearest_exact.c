/* Nearest-exact 2-D upsampling kernels (see upsample_nearest_exact.h). */
#include "kernels/upsample_nearest_exact.h"

#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "common/parallel.h"

static inline int upnx_thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* the row buffer's floats: two rows (+ a pad each) and, for the portable fp16 row, their pair sums */
static int64_t upnx_buf_floats(const upnx_bwd_plan *p) {
    return 4 * (p->wo + 1) > 4 * p->wi ? 4 * (p->wo + 1) : 4 * p->wi;
}

/* per thread: acc (wi), the row buffer, then the portable fp16 row's cell table (wi int32) */
int64_t upnx_bwd_scratch_floats(const upnx_bwd_plan *p) {
    int64_t n = p->wi + upnx_buf_floats(p) + p->wi;
    return (n + 15) / 16 * 16; /* whole cache lines per thread */
}

/* ---- fp16 rows through the F16C instructions when the CPU has them. The conversions are exact (half to
 * float) and round to nearest even (float to half) like acl_f16_to_f32/acl_f32_to_f16; the only difference, the
 * quieting of a signalling NaN on load, is invisible because every loaded value goes through an fp32 addition
 * (which quiets it) before it is stored. ---- */
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>

static int upnx_have_f16c(void) { return acl_simd_level() >= ACL_SIMD_AVX2; }

__attribute__((target("avx,f16c"))) static void upnx_f16c_load(float *buf, const uint16_t *x, int64_t len) {
    int64_t t = 0;
    for (; t + 8 <= len; t += 8)
        _mm256_storeu_ps(buf + t, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(x + t))));
    for (; t < len; t++) buf[t] = acl_f16_to_f32(x[t]);
}

__attribute__((target("avx,f16c"))) static void upnx_f16c_store(uint16_t *y, const float *v, int64_t len) {
    int64_t t = 0;
    for (; t + 8 <= len; t += 8)
        _mm_storeu_si128((__m128i *)(void *)(y + t), _mm256_cvtps_ph(_mm256_loadu_ps(v + t), _MM_FROUND_TO_NEAREST_INT));
    for (; t < len; t++) y[t] = acl_f32_to_f16(v[t]);
}

static inline int upnx_f16_load_fast(float *buf, const uint16_t *x, int64_t len) {
    if (!upnx_have_f16c()) return 0;
    upnx_f16c_load(buf, x, len);
    return 1;
}

static inline int upnx_f16_store_fast(uint16_t *y, const float *v, int64_t len) {
    if (!upnx_have_f16c()) return 0;
    upnx_f16c_store(y, v, len);
    return 1;
}
#else
static inline int upnx_f16_load_fast(float *buf, const uint16_t *x, int64_t len) { return 0; }
static inline int upnx_f16_store_fast(uint16_t *y, const float *v, int64_t len) { return 0; }
#endif

/* ---- bf16 rows with SSE2: the same bit operations as acl_bf16_to_f32 / acl_f32_to_bf16, four at a time ---- */
#if defined(__SSE2__)
#include <emmintrin.h>
#include "common/half_rows.h"

static inline int upnx_bf16_load_fast(float *buf, const uint16_t *x, int64_t len) {
    const __m128i z = _mm_setzero_si128();
    int64_t t = 0;
    for (; t + 8 <= len; t += 8) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(x + t));
        _mm_storeu_si128((__m128i *)(void *)(buf + t), _mm_unpacklo_epi16(z, v));
        _mm_storeu_si128((__m128i *)(void *)(buf + t + 4), _mm_unpackhi_epi16(z, v));
    }
    for (; t < len; t++) buf[t] = acl_bf16_to_f32(x[t]);
    return 1;
}

static inline int upnx_bf16_store_fast(uint16_t *y, const float *v, int64_t len) {
    acl_row_f32_to_bf16(y, v, len); /* common/half_rows.h: blocks without a NaN in 5 operations a vector */
    return 1;
}

/* The x2 / x2 backward row at the portable level (x86-64: SSE2, its baseline) for fp16 / bf16 with dense rows:
 * out[j] = (0 + (x0[2j] + x0[2j+1])) + (x1[2j] + x1[2j+1]) 8 columns a step, the gradOutput halves widened and the
 * sums narrowed in registers (common/half_rows.h's blocks) instead of two fp32 row buffers and a rounding pass.
 * The same operations, so the same bits, for rows without Inf / NaN gradients: a row with one returns 0 and the
 * caller runs upnx_bwd_row_2x2 (which of two NaN operands an addition returns depends on GCC's operand order). */
static inline __m128 upnx_even_(__m128 a, __m128 b) { return _mm_shuffle_ps(a, b, _MM_SHUFFLE(2, 0, 2, 0)); }
static inline __m128 upnx_odd_(__m128 a, __m128 b) { return _mm_shuffle_ps(a, b, _MM_SHUFFLE(3, 1, 3, 1)); }
static inline int upnx_wide16_f16_(const uint16_t *x, __m128 v[4]) {
    return acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)x), &v[0], &v[1]) &
           acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(x + 8)), &v[2], &v[3]);
}
static inline int upnx_wide16_bf16_(const uint16_t *x, __m128 v[4]) {
    const __m128i z = _mm_setzero_si128();
    const __m128i a = _mm_loadu_si128((const __m128i *)(const void *)x);
    const __m128i b = _mm_loadu_si128((const __m128i *)(const void *)(x + 8));
    v[0] = _mm_castsi128_ps(_mm_unpacklo_epi16(z, a));
    v[1] = _mm_castsi128_ps(_mm_unpackhi_epi16(z, a));
    v[2] = _mm_castsi128_ps(_mm_unpacklo_epi16(z, b));
    v[3] = _mm_castsi128_ps(_mm_unpackhi_epi16(z, b));
    return 1; /* NaN sums are caught below */
}
#define UPNX_2X2_SSE2_FN(name, WIDE16, WIDE1, NARROW1)                                                          \
    static int name(uint16_t *y, const uint16_t *g, int64_t gsh, int64_t i, int64_t wi) {                      \
        const uint16_t *r0 = g + (2 * i) * gsh, *r1 = r0 + gsh;                                                 \
        const __m128 z = _mm_setzero_ps();                                                                      \
        int bad = 0;                                                                                            \
        int64_t j = 0;                                                                                          \
        for (; j + 8 <= wi; j += 8) {                                                                           \
            __m128 a[4], b[4];                                                                                  \
            if (!(WIDE16(r0 + 2 * j, a) & WIDE16(r1 + 2 * j, b))) return 0;                                     \
            const __m128 s0 = _mm_add_ps(_mm_add_ps(z, _mm_add_ps(upnx_even_(a[0], a[1]), upnx_odd_(a[0], a[1]))), \
                                         _mm_add_ps(upnx_even_(b[0], b[1]), upnx_odd_(b[0], b[1])));            \
            const __m128 s1 = _mm_add_ps(_mm_add_ps(z, _mm_add_ps(upnx_even_(a[2], a[3]), upnx_odd_(a[2], a[3]))), \
                                         _mm_add_ps(upnx_even_(b[2], b[3]), upnx_odd_(b[2], b[3])));            \
            bad |= _mm_movemask_ps(_mm_or_ps(_mm_cmpunord_ps(s0, s0), _mm_cmpunord_ps(s1, s1)));                \
            UPNX_NARROW8_(y + j, s0, s1);                                                                       \
        }                                                                                                       \
        for (; j < wi; j++) {                                                                                   \
            const float v = (0.0f + (WIDE1(r0[2 * j]) + WIDE1(r0[2 * j + 1]))) + (WIDE1(r1[2 * j]) + WIDE1(r1[2 * j + 1])); \
            bad |= v != v;                                                                                      \
            y[j] = NARROW1(v);                                                                                  \
        }                                                                                                       \
        return !bad;                                                                                            \
    }
/* fp16 at the portable level: the same additions carried out on the values scaled by 2^-112, which makes the
 * widening a bit placement (sign | em << 13 read as fp32: no product) and the narrowing a rounding of the fp32 bits
 * at bit 13 (no rescaling). Bit-identical: every operand and partial sum of these additions is a multiple of 2^-37
 * (halves are multiples of 2^-24; a rounded sum of magnitude >= 2^-14 has an ulp >= 2^-37; a smaller one is exact),
 * so a result below 2^-14 is exact in both scales (23 bits at most; 2^-37 * 2^-112 = 2^-149 is the fp32 subnormal
 * step) and a larger one is a normal number in both, rounded at the same relative position; and for a scaled sum
 * s, (bits(|s|) rounded to nearest even at bit 13) is the fp16 of s * 2^112, subnormal halves included (bits(|s|)
 * = |s| / 2^-149 there), |s| clamped first to 2^-96 (65536: 0x7c00, infinity, as acl_f32_to_f16 rounds it). Rows
 * with an Inf / NaN gradient (found by the running maximum of |h|) return 0: the caller's row redoes them. */
static inline void upnx_f16s8_(__m128i h, __m128 *lo, __m128 *hi, __m128i *mx) {
    const __m128i em = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    *mx = _mm_max_epi16(*mx, em);
    const __m128i top = _mm_or_si128(_mm_srli_epi16(em, 3), _mm_and_si128(h, _mm_set1_epi16((short)0x8000)));
    const __m128i bot = _mm_slli_epi16(h, 13);
    *lo = _mm_castsi128_ps(_mm_unpacklo_epi16(bot, top));
    *hi = _mm_castsi128_ps(_mm_unpackhi_epi16(bot, top));
}
static inline __m128i upnx_s_to_f16x4_(__m128 s) { /* sign-extended to 32 bits, for _mm_packs_epi32 */
    const __m128i u = _mm_castps_si128(
        _mm_min_ps(_mm_and_ps(s, _mm_castsi128_ps(_mm_set1_epi32(0x7fffffff))), _mm_castsi128_ps(_mm_set1_epi32(0x0f800000))));
    const __m128i r = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(u, _mm_set1_epi32(0xfff)),
                                                   _mm_and_si128(_mm_srli_epi32(u, 13), _mm_set1_epi32(1))), 13);
    return _mm_or_si128(r, _mm_and_si128(_mm_srai_epi32(_mm_castps_si128(s), 16), _mm_set1_epi32((int)0xffff8000u)));
}
static int upnx_2x2_f16_sse2_(uint16_t *y, const uint16_t *g, int64_t gsh, int64_t i, int64_t wi) {
    const uint16_t *r0 = g + (2 * i) * gsh, *r1 = r0 + gsh;
    const __m128 z = _mm_setzero_ps();
    __m128i mx = _mm_setzero_si128();
    int bad = 0;
    int64_t j = 0;
    for (; j + 8 <= wi; j += 8) {
        __m128 a[4], b[4];
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)(r0 + 2 * j)), &a[0], &a[1], &mx);
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)(r0 + 2 * j + 8)), &a[2], &a[3], &mx);
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)(r1 + 2 * j)), &b[0], &b[1], &mx);
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)(r1 + 2 * j + 8)), &b[2], &b[3], &mx);
        const __m128 s0 = _mm_add_ps(_mm_add_ps(z, _mm_add_ps(upnx_even_(a[0], a[1]), upnx_odd_(a[0], a[1]))),
                                     _mm_add_ps(upnx_even_(b[0], b[1]), upnx_odd_(b[0], b[1])));
        const __m128 s1 = _mm_add_ps(_mm_add_ps(z, _mm_add_ps(upnx_even_(a[2], a[3]), upnx_odd_(a[2], a[3]))),
                                     _mm_add_ps(upnx_even_(b[2], b[3]), upnx_odd_(b[2], b[3])));
        _mm_storeu_si128((__m128i *)(void *)(y + j), _mm_packs_epi32(upnx_s_to_f16x4_(s0), upnx_s_to_f16x4_(s1)));
    }
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)))) return 0;
    for (; j < wi; j++) {
        const float v = (0.0f + (acl_f16_to_f32_bf(r0[2 * j]) + acl_f16_to_f32_bf(r0[2 * j + 1]))) +
                        (acl_f16_to_f32_bf(r1[2 * j]) + acl_f16_to_f32_bf(r1[2 * j + 1]));
        bad |= v != v;
        y[j] = acl_f32_to_f16_bf(v);
    }
    return !bad;
}
/* The general row (upsample_nearest_exact.inc's upnx_bwd_row_general: the same additions in the same order) for
 * fp16 at the portable level, in the 2^-112 scale as above: rows widened by the bit placement into the fp32 buffers,
 * the sums narrowed by the rounding of the bits. 0 (nothing stored) for a row reading an Inf / NaN: the caller's
 * general row redoes it. */
static void upnx_f16s_row_(float *buf, const uint16_t *x, int64_t len, __m128i *mxp) {
    int64_t t = 0;
    __m128 lo, hi;
    __m128i m = *mxp, *mx = &m; /* a register, not memory the row stores might alias */
    for (; t + 8 <= len; t += 8) {
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)(x + t)), &lo, &hi, mx);
        _mm_storeu_ps(buf + t, lo);
        _mm_storeu_ps(buf + t + 4, hi);
    }
    if (t < len) {
        uint16_t h[8] = {0};
        float o[8];
        memcpy(h, x + t, (size_t)(len - t) * sizeof *h);
        upnx_f16s8_(_mm_loadu_si128((const __m128i *)(const void *)h), &lo, &hi, mx);
        _mm_storeu_ps(o, lo);
        _mm_storeu_ps(o + 4, hi);
        memcpy(buf + t, o, (size_t)(len - t) * sizeof *o);
    }
    *mxp = m;
}
static void upnx_f16s_store_(uint16_t *y, const float *v, int64_t len) {
    int64_t t = 0;
    for (; t + 8 <= len; t += 8)
        _mm_storeu_si128((__m128i *)(void *)(y + t), _mm_packs_epi32(upnx_s_to_f16x4_(_mm_loadu_ps(v + t)),
                                                                      upnx_s_to_f16x4_(_mm_loadu_ps(v + t + 4))));
    if (t < len) {
        float f[8] = {0};
        uint16_t o[8];
        memcpy(f, v + t, (size_t)(len - t) * sizeof *f);
        _mm_storeu_si128((__m128i *)(void *)o, _mm_packs_epi32(upnx_s_to_f16x4_(_mm_loadu_ps(f)),
                                                               upnx_s_to_f16x4_(_mm_loadu_ps(f + 4))));
        memcpy(y + t, o, (size_t)(len - t) * sizeof *o);
    }
}
/* the cell table of the portable fp16 row, after acc and the row buffer in the thread's scratch */
static inline int32_t *upnx_f16s_kt_(const upnx_bwd_plan *p, float *acc) {
    return (int32_t *)(void *)(acc + p->wi + upnx_buf_floats(p));
}
/* kt[j]: the index into c (see upnx_general_f16s_) of column j's sum (once per thread and call) */
static void upnx_f16s_cells(const upnx_bwd_plan *p, float *acc) {
    int32_t *kt = upnx_f16s_kt_(p, acc);
    const int32_t pad = (int32_t)p->w_hi[p->wi - 1];
    for (int64_t j = 0; j < p->wi; j++) kt[j] = p->w_i1[j] != pad ? pad + 1 + p->w_i0[j] : p->w_i0[j];
}
/* x[need] = the -0 pad, x[need + 1 + w] = x[w] + x[w + 1] for w < need */
static void upnx_f16s_pairs_(float *x, int64_t need) {
    x[need] = -0.0f;
    const float *restrict a = x;
    float *restrict s = x + need + 1;
    int64_t w = 0;
    for (; w + 4 <= need; w += 4) _mm_storeu_ps(s + w, _mm_add_ps(_mm_loadu_ps(a + w), _mm_loadu_ps(a + w + 1)));
    for (; w < need; w++) s[w] = a[w] + a[w + 1];
}
/* columns kt[0..8) of one or two pair-sum rows: 0 + c0[k] (+ c1[k]), in registers */
static inline void upnx_gather8_(const float *c0, const float *c1, int64_t nr, const int32_t *k, __m128 *a, __m128 *b) {
    const __m128 z = _mm_setzero_ps();
    *a = _mm_add_ps(z, _mm_setr_ps(c0[k[0]], c0[k[1]], c0[k[2]], c0[k[3]]));
    *b = _mm_add_ps(z, _mm_setr_ps(c0[k[4]], c0[k[5]], c0[k[6]], c0[k[7]]));
    if (nr == 2) {
        *a = _mm_add_ps(*a, _mm_setr_ps(c1[k[0]], c1[k[1]], c1[k[2]], c1[k[3]]));
        *b = _mm_add_ps(*b, _mm_setr_ps(c1[k[4]], c1[k[5]], c1[k[6]], c1[k[7]]));
    }
}
static int upnx_general_f16s_(uint16_t *y, const uint16_t *g, int64_t gsh, int64_t i, const upnx_bwd_plan *p,
                              float *acc, float *buf) {
    const int64_t wi = p->wi;
    const int64_t need = p->w_hi[wi - 1];
    const int64_t r0 = p->h_lo[i], nr = p->h_hi[i] - r0;
    __m128i mx = _mm_setzero_si128();
    if (p->w_i0 && (nr == 1 || nr == 2)) {
        /* each row r as c = [x (need + the -0 pad) | x[w] + x[w + 1] (need)], one vectorised pass; column j reads
         * c[kt[j]] (upnx_f16s_cells: x[i0] for a range of one column or none, the pair sum for two), one load
         * where the general row makes two and an addition: x[i0] + x[pad] = x[i0] + -0 is x[i0] itself for every
         * finite x (the rows with an Inf / NaN are redone by the caller), so the same values */
        const int32_t *kt = upnx_f16s_kt_(p, acc);
        float *c0 = buf, *c1 = buf + 2 * need + 1;
        upnx_f16s_row_(c0, g + r0 * gsh, need, &mx);
        upnx_f16s_pairs_(c0, need);
        if (nr == 2) {
            upnx_f16s_row_(c1, g + (r0 + 1) * gsh, need, &mx);
            upnx_f16s_pairs_(c1, need);
        }
        if (_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)))) return 0;
        /* 8 columns gathered into registers, summed and narrowed there (no acc round trip) */
        int64_t j = 0;
        for (; j + 8 <= wi; j += 8) {
            __m128 a, b;
            upnx_gather8_(c0, c1, nr, kt + j, &a, &b);
            _mm_storeu_si128((__m128i *)(void *)(y + j), _mm_packs_epi32(upnx_s_to_f16x4_(a), upnx_s_to_f16x4_(b)));
        }
        for (int64_t t = j; t < wi; t++) acc[t] = nr == 1 ? 0.0f + c0[kt[t]] : (0.0f + c0[kt[t]]) + c1[kt[t]];
        upnx_f16s_store_(y + j, acc + j, wi - j);
        return 1;
    } else {
        for (int64_t j = 0; j < wi; j++) acc[j] = 0.0f;
        for (int64_t r = p->h_lo[i]; r < p->h_hi[i]; r++) {
            const float *x = buf;
            upnx_f16s_row_(buf, g + r * gsh, need, &mx);
            if (p->wk == 1) {
                for (int64_t j = 0; j < wi; j++) acc[j] += x[j];
            } else if (p->wk == 2) {
                for (int64_t j = 0; j < wi; j++) acc[j] += x[2 * j] + x[2 * j + 1];
            } else if (p->w_i0) {
                buf[need] = -0.0f;
                const int32_t *i0 = p->w_i0, *i1 = p->w_i1;
                for (int64_t j = 0; j < wi; j++) acc[j] += x[i0[j]] + x[i1[j]];
            } else {
                for (int64_t j = 0; j < wi; j++) {
                    int64_t lo = p->w_lo[j], hi = p->w_hi[j];
                    if (lo >= hi) continue;
                    float s = x[lo];
                    for (int64_t t = lo + 1; t < hi; t++) s += x[t];
                    acc[j] += s;
                }
            }
        }
    }
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)))) return 0;
    upnx_f16s_store_(y, acc, wi);
    return 1;
}
/* The same row for bf16 (the W ranges of at most 2 columns, 1 or 2 gradOutput rows; else 0 and the caller's general
 * row): the rows widened by placing the bits (exact), the cell table and pair sums of upnx_general_f16s_, the sums
 * rounded to nearest even on the bits. A row with an Inf / NaN gradient returns 0 (the general row redoes it); a sum
 * overflowing to Inf rounds to Inf either way, and the only NaN finite rows can make (Inf - Inf from two overflowed
 * rows) is the default NaN, which both roundings map to 0xffc0. */
static void upnx_bf16s_row_(float *buf, const uint16_t *x, int64_t len, __m128i *mxp) {
    const __m128i z = _mm_setzero_si128(), m7 = _mm_set1_epi16(0x7fff);
    __m128i m = *mxp;
    int64_t t = 0;
    for (; t + 8 <= len; t += 8) {
        const __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(x + t));
        m = _mm_max_epi16(m, _mm_and_si128(v, m7));
        _mm_storeu_si128((__m128i *)(void *)(buf + t), _mm_unpacklo_epi16(z, v));
        _mm_storeu_si128((__m128i *)(void *)(buf + t + 4), _mm_unpackhi_epi16(z, v));
    }
    uint16_t e = 0;
    for (; t < len; t++) {
        const uint16_t a = (uint16_t)(x[t] & 0x7fffu);
        e = a > e ? a : e;
        buf[t] = acl_bf16_to_f32(x[t]);
    }
    *mxp = _mm_max_epi16(m, _mm_set1_epi16((short)e));
}
static int upnx_general_bf16s_(uint16_t *y, const uint16_t *g, int64_t gsh, int64_t i, const upnx_bwd_plan *p,
                               float *acc, float *buf) {
    const int64_t wi = p->wi;
    const int64_t need = p->w_hi[wi - 1];
    const int64_t r0 = p->h_lo[i], nr = p->h_hi[i] - r0;
    if (!p->w_i0 || (nr != 1 && nr != 2)) return 0;
    __m128i mx = _mm_setzero_si128();
    const int32_t *kt = upnx_f16s_kt_(p, acc);
    float *c0 = buf, *c1 = buf + 2 * need + 1;
    upnx_bf16s_row_(c0, g + r0 * gsh, need, &mx);
    upnx_f16s_pairs_(c0, need);
    if (nr == 2) {
        upnx_bf16s_row_(c1, g + (r0 + 1) * gsh, need, &mx);
        upnx_f16s_pairs_(c1, need);
    }
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7f7f)))) return 0;
    int64_t j = 0;
    for (; j + 8 <= wi; j += 8) {
        __m128 a, b;
        upnx_gather8_(c0, c1, nr, kt + j, &a, &b);
        _mm_storeu_si128((__m128i *)(void *)(y + j), _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(a)),
                                                                      acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(b))));
    }
    for (; j < wi; j++) y[j] = acl_f32_to_bf16(nr == 1 ? 0.0f + c0[kt[j]] : (0.0f + c0[kt[j]]) + c1[kt[j]]);
    return 1;
}
#define UPNX_NARROW8_(dst, s0, s1)                                                                              \
    _mm_storeu_si128((__m128i *)(void *)(dst), _mm_packs_epi32(acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(s0)), \
                                                               acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(s1))))
UPNX_2X2_SSE2_FN(upnx_2x2_bf16_sse2_, upnx_wide16_bf16_, acl_bf16_to_f32_bf, acl_f32_to_bf16_bf)
#undef UPNX_NARROW8_
#undef UPNX_2X2_SSE2_FN
#define UPNX_2X2_SSE2 1
#else
static inline int upnx_bf16_load_fast(float *buf, const uint16_t *x, int64_t len) { return 0; }
static inline int upnx_bf16_store_fast(uint16_t *y, const float *v, int64_t len) { return 0; }
#endif

/* ---- AVX-512 backward: per 16 gradient-input columns, the W sums of one gradOutput row are two permutes of a
 * 32-element window (see upnx_wblk) and a masked add; the H sum adds those vectors row by row to partial sums
 * that start at +0. These are exactly the operations of upnx_bwd_row_general (each W range has 1 or 2 columns:
 * x[lo] or x[lo] + x[lo + 1]; the row totals are added in ascending row order to +0; an empty range adds
 * nothing, here +0, which changes no value because the accumulator is never -0), so the bytes are identical.
 * PYACLNN_SIMD=avx2 (or off) in the environment turns the path off (tests compare the two). ---- */
static int upnx_have_avx512(void) { return acl_simd_level() >= ACL_SIMD_AVX512; }

int upnx_bwd_blocks(upnx_bwd_plan *p, int64_t es) {
    p->wb = NULL;
    const int64_t wi = p->wi;
    p->nt = p->n * p->c * (p->ho * p->wo + p->hi * wi) * es >= UPNX_NT_BYTES;
    if (wi <= 0 || !upnx_have_avx512()) return 1;
    for (int64_t j = 0; j < wi; j++)
        if (p->w_hi[j] - p->w_lo[j] > 2) return 1;
    const int64_t nb = (wi + 15) / 16;
    upnx_wblk *wb = calloc((size_t)nb, sizeof(upnx_wblk));
    if (!wb) return 0;
    for (int64_t b = 0; b < nb; b++) {
        upnx_wblk *w = wb + b;
        const int64_t j0 = 16 * b, j1 = j0 + 16 < wi ? j0 + 16 : wi;
        const int64_t base = p->w_lo[j0], len = p->w_hi[j1 - 1] - base;
        if (len > 32) { /* cannot happen (the ranges are adjacent), but then the window would not hold them */
            free(wb);
            return 1;
        }
        w->base = base;
        w->lmask = len >= 32 ? 0xffffffffu : (uint32_t)((1u << len) - 1u);
        w->in_row = base + 32 <= p->wo;
        for (int64_t j = j0; j < j1; j++) {
            const int l = (int)(j - j0);
            const int64_t n = p->w_hi[j] - p->w_lo[j];
            w->smask |= (uint16_t)(1u << l);
            if (n >= 1) {
                w->amask |= (uint16_t)(1u << l);
                w->ia[l] = (int32_t)(p->w_lo[j] - base);
            }
            if (n == 2) {
                w->bmask |= (uint16_t)(1u << l);
                w->ib[l] = (int32_t)(p->w_lo[j] + 1 - base);
            }
        }
    }
    p->wb = wb;
    return 1;
}

/* Orders the non-temporal stores of the calling thread before what follows (the end of the parallel region). */
static inline void upnx_store_fence(int nt) {
#if defined(__x86_64__) && defined(__GNUC__)
    if (nt) _mm_sfence();
#endif
}

#if defined(__x86_64__) && defined(__GNUC__)
#define UPNX_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c")))
#define UPNX_AVX512_INLINE static inline __attribute__((always_inline)) UPNX_AVX512

enum { UPNX_K_F32, UPNX_K_F16, UPNX_K_BF16 };

/* a + b with a as the first source operand: when both are NaN, x86 returns a's payload and sign. GCC treats
 * addition as commutative and may swap the operands of _mm512_add_ps (it does when one comes from memory), which
 * would change which NaN survives an Inf - Inf in one row and a NaN in another; the scalar path's order is the
 * running sum first. */
UPNX_AVX512_INLINE __m512 upnx_add_ordered(__m512 a, __m512 b) {
    __m512 r;
    __asm__("vaddps %2, %1, %0" : "=v"(r) : "v"(a), "v"(b));
    return r;
}

/* The 32-element window at x (element size by kind) as two fp32 vectors; elements outside lmask are 0. */
UPNX_AVX512_INLINE void upnx_win(int kind, const void *x, uint32_t lmask, int in_row, __m512 *lo, __m512 *hi) {
    if (kind == UPNX_K_F32 && in_row) { /* the lanes outside lmask are loaded but no lane selects them */
        *lo = _mm512_loadu_ps(x);
        *hi = _mm512_loadu_ps((const float *)x + 16);
        return;
    }
    if (kind == UPNX_K_F32) {
        *lo = _mm512_maskz_loadu_ps((__mmask16)lmask, x);
        *hi = _mm512_maskz_loadu_ps((__mmask16)(lmask >> 16), (const float *)x + 16);
        return;
    }
    const __m512i v = in_row ? _mm512_loadu_si512(x) : _mm512_maskz_loadu_epi16((__mmask32)lmask, x);
    const __m256i a = _mm512_castsi512_si256(v), b = _mm512_extracti64x4_epi64(v, 1);
    if (kind == UPNX_K_F16) { /* exact (a signalling NaN is quieted; every value goes through an add later) */
        *lo = _mm512_cvtph_ps(a);
        *hi = _mm512_cvtph_ps(b);
    } else {
        *lo = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(a), 16));
        *hi = _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(b), 16));
    }
}

/* 16 results to y (stride 1) under smask, rounded once like acl_f32_to_f16 / acl_f32_to_bf16. */
UPNX_AVX512_INLINE void upnx_put(int kind, void *y, __mmask16 smask, __m512 v, int nt) {
    if (kind == UPNX_K_F32) {
        if (nt && smask == 0xffff && ((uintptr_t)y & 63) == 0)
            _mm512_stream_ps(y, v);
        else if (smask == 0xffff)
            _mm512_storeu_ps(y, v);
        else
            _mm512_mask_storeu_ps(y, smask, v);
        return;
    }
    __m256i h;
    if (kind == UPNX_K_F16) {
        /* hardware RNE; a NaN here is quiet (it came out of an add), for which F16C keeps the same payload
         * bits as acl_f32_to_f16 */
        h = _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    } else {
        const __m512i x = _mm512_castps_si512(v);
        const __mmask16 nan =
            _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
        const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
        __m512i r = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), odd);
        r = _mm512_mask_or_epi32(r, nan, x, _mm512_set1_epi32(0x400000));
        h = _mm512_cvtepi32_epi16(_mm512_srli_epi32(r, 16));
    }
    if (nt && smask == 0xffff && ((uintptr_t)y & 31) == 0) /* two consecutive blocks fill a line */
        _mm256_stream_si256(y, h);
    else if (smask == 0xffff)
        _mm256_storeu_si256(y, h);
    else
        _mm256_mask_storeu_epi16(y, smask, h);
}

/* One gradient-input row i: y (stride 1) or, when ys != 1, the fp32 values into acc (returns 0 then). g is the
 * plane's gradOutput (W stride 1, row stride gsh elements). The gradOutput rows are read one after the other,
 * each whole (the partial sums of all blocks wait in acc, 16 * nb <= upnx_bwd_scratch_floats floats): reading
 * the rows of a range interleaved, block by block, halves the speed on AMD Zen 5 (measured 1.9 vs 1.05 ms on the
 * x2 bench shape, one thread). Each lane still adds its row totals to +0 in ascending row order. */
UPNX_AVX512_INLINE int upnx_bwd_row_simd(int kind, void *y, int64_t ys, const void *g, int64_t gsh, int64_t i,
                                         const upnx_bwd_plan *p, float *acc) {
    const int64_t es = kind == UPNX_K_F32 ? 4 : 2;
    const int64_t r0 = p->h_lo[i], r1 = p->h_hi[i], nb = (p->wi + 15) / 16;
    const char *gb = (const char *)g;
    if (r0 >= r1) { /* an empty H range: every value is +0 */
        for (int64_t b = 0; b < nb; b++) {
            if (ys == 1)
                upnx_put(kind, (char *)y + 16 * b * es, p->wb[b].smask, _mm512_setzero_ps(), p->nt);
            else
                _mm512_storeu_ps(acc + 16 * b, _mm512_setzero_ps());
        }
        return ys == 1;
    }
    for (int64_t r = r0; r < r1; r++) {
        const int first = r == r0, last = r + 1 == r1;
        const char *row = gb + r * gsh * es;
        for (int64_t b = 0; b < nb; b++) {
            const upnx_wblk *w = p->wb + b;
            const __m512i ia = _mm512_loadu_si512(w->ia), ib = _mm512_loadu_si512(w->ib);
            __m512 lo, hi;
            upnx_win(kind, row + w->base * es, w->lmask, w->in_row, &lo, &hi);
            const __m512 a = _mm512_maskz_permutex2var_ps(w->amask, lo, ia, hi);
            const __m512 c = _mm512_permutex2var_ps(lo, ib, hi);
            const __m512 t = _mm512_mask_add_ps(a, w->bmask, a, c);
            const __m512 s = upnx_add_ordered(first ? _mm512_setzero_ps() : _mm512_loadu_ps(acc + 16 * b), t);
            if (last && ys == 1)
                upnx_put(kind, (char *)y + 16 * b * es, w->smask, s, p->nt);
            else
                _mm512_storeu_ps(acc + 16 * b, s);
        }
    }
    return ys == 1;
}

static UPNX_AVX512 int upnx_bwd_row_simd_f32(float *y, int64_t ys, const float *g, int64_t gsh, int64_t i,
                                             const upnx_bwd_plan *p, float *acc) {
    return upnx_bwd_row_simd(UPNX_K_F32, y, ys, g, gsh, i, p, acc);
}
static UPNX_AVX512 int upnx_bwd_row_simd_f16(uint16_t *y, int64_t ys, const uint16_t *g, int64_t gsh, int64_t i,
                                             const upnx_bwd_plan *p, float *acc) {
    return upnx_bwd_row_simd(UPNX_K_F16, y, ys, g, gsh, i, p, acc);
}
static UPNX_AVX512 int upnx_bwd_row_simd_bf16(uint16_t *y, int64_t ys, const uint16_t *g, int64_t gsh, int64_t i,
                                              const upnx_bwd_plan *p, float *acc) {
    return upnx_bwd_row_simd(UPNX_K_BF16, y, ys, g, gsh, i, p, acc);
}
#else
/* never called: p->wb stays NULL without AVX-512 */
static int upnx_bwd_row_simd_f32(float *y, int64_t ys, const float *g, int64_t gsh, int64_t i,
                                 const upnx_bwd_plan *p, float *acc) { return 0; }
static int upnx_bwd_row_simd_f16(uint16_t *y, int64_t ys, const uint16_t *g, int64_t gsh, int64_t i,
                                 const upnx_bwd_plan *p, float *acc) { return 0; }
static int upnx_bwd_row_simd_bf16(uint16_t *y, int64_t ys, const uint16_t *g, int64_t gsh, int64_t i,
                                  const upnx_bwd_plan *p, float *acc) { return 0; }
#endif

#define UPNX_LOAD_FAST(buf, x, len) 0
#define UPNX_STORE_FAST(y, v, len) 0
#ifdef UPNX_2X2_SSE2 /* the portable level's fused x2 row (fp16 / bf16), see above */
#define UPNX_2X2_FAST_(fn, y, ys, g, gsw, gsh, i, p, level) \
    ((level) < ACL_SIMD_AVX2 && (ys) == 1 && (gsw) == 1 && fn((y), (g), (gsh), (i), (p)->wi))
#else
#define UPNX_2X2_FAST_(fn, y, ys, g, gsw, gsh, i, p, level) 0
#endif
#define UPNX_2X2_FAST(y, ys, g, gsw, gsh, i, p, level) 0
#define UPNX_GENERAL_FAST(y, ys, g, gsw, gsh, i, p, acc, buf, level) 0
#define UPNX_GENERAL_PREP(p, acc, level) ((void)0) /* per thread, before its rows */
#define KSUFFIX f32
typedef struct { /* one backward call, for acl_simd_run */
    const acl_view *g, *o;
    const upnx_bwd_plan *p;
    float *scratch;
} upnx_bwd_call;

#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"

#undef UPNX_LOAD_FAST
#undef UPNX_STORE_FAST
#define UPNX_LOAD_FAST(buf, x, len) upnx_f16_load_fast(buf, x, len)
#define UPNX_STORE_FAST(y, v, len) upnx_f16_store_fast(y, v, len)
#undef UPNX_2X2_FAST
#define UPNX_2X2_FAST(y, ys, g, gsw, gsh, i, p, level) UPNX_2X2_FAST_(upnx_2x2_f16_sse2_, y, ys, g, gsw, gsh, i, p, level)
#undef UPNX_GENERAL_FAST
#undef UPNX_GENERAL_PREP
#ifdef UPNX_2X2_SSE2
#define UPNX_GENERAL_FAST(y, ys, g, gsw, gsh, i, p, acc, buf, level) \
    ((level) < ACL_SIMD_AVX2 && (ys) == 1 && (gsw) == 1 && upnx_general_f16s_((y), (g), (gsh), (i), (p), (acc), (buf)))
#define UPNX_GENERAL_PREP(p, acc, level)                                                                         \
    if ((level) < ACL_SIMD_AVX2 && (p)->w_i0) upnx_f16s_cells((p), (acc))
#else
#define UPNX_GENERAL_FAST(y, ys, g, gsw, gsh, i, p, acc, buf, level) 0
#endif
#ifndef UPNX_GENERAL_PREP
#define UPNX_GENERAL_PREP(p, acc, level) ((void)0)
#endif
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"
#undef UPNX_LOAD_FAST
#undef UPNX_STORE_FAST
#define UPNX_LOAD_FAST(buf, x, len) upnx_bf16_load_fast(buf, x, len)
#define UPNX_STORE_FAST(y, v, len) upnx_bf16_store_fast(y, v, len)
#undef UPNX_2X2_FAST
#define UPNX_2X2_FAST(y, ys, g, gsw, gsh, i, p, level) UPNX_2X2_FAST_(upnx_2x2_bf16_sse2_, y, ys, g, gsw, gsh, i, p, level)
#undef UPNX_GENERAL_FAST
#undef UPNX_GENERAL_PREP
#ifdef UPNX_2X2_SSE2
/* (at every level: the AVX2 level's general bf16 row has nothing faster) */
#define UPNX_GENERAL_FAST(y, ys, g, gsw, gsh, i, p, acc, buf, level) \
    ((ys) == 1 && (gsw) == 1 && upnx_general_bf16s_((y), (g), (gsh), (i), (p), (acc), (buf)))
#define UPNX_GENERAL_PREP(p, acc, level)                                                                         \
    if ((p)->w_i0) upnx_f16s_cells((p), (acc))
#else
#define UPNX_GENERAL_FAST(y, ys, g, gsw, gsh, i, p, acc, buf, level) 0
#define UPNX_GENERAL_PREP(p, acc, level) ((void)0)
#endif
#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"
#undef UPNX_LOAD_FAST
#undef UPNX_STORE_FAST

/* ---- forward: a gather of raw elements (bit-exact for every dtype of the same width) ---- */

static int upnx_have_avx512_vbmi(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    return upnx_have_avx512() && __builtin_cpu_supports("avx512vbmi");
#else
    return 0;
#endif
}

int upnx_fwd_blocks(upnx_fwd_plan *p, int64_t es) {
    p->fb = NULL;
    p->fb_es = es;
    p->nt = p->n * p->c * (p->ho * p->wo + p->hi * p->wi) * es >= UPNX_NT_BYTES;
    if (p->wo <= 0 || (es != 1 && es != 2 && es != 4)) return 1;
    /* a copy (wk 1) or an exact doubling (wk 2) of a row: the plain loops are as fast for 4-byte elements and
     * 20-50% faster for 1- and 2-byte ones than the permute (measured on AMD Zen 5, bench/ x2 rows, one thread) */
    if (p->wk == 1 || p->wk == 2) return 1;
    if (!(es == 1 ? upnx_have_avx512_vbmi() : upnx_have_avx512())) return 1;
    const int64_t wo = p->wo, lanes = 64 / es;
    const size_t nb = (size_t)((wo + lanes - 1) / lanes);
    for (size_t b = 0; b < nb; b++) { /* sources ascend: each window is [src[j0], src[j_last]] */
        const int64_t j0 = b * lanes, j1 = j0 + lanes < wo ? j0 + lanes : wo;
        if (p->w_src[j1 - 1] - p->w_src[j0] >= 2 * lanes) return 1;
    }
    upnx_fblk *fb = calloc(nb, sizeof(upnx_fblk));
    if (!fb) return 0;
    for (size_t b = 0; b < nb; b++) {
        upnx_fblk *f = fb + b;
        const int64_t j0 = b * lanes, j1 = j0 + lanes < wo ? j0 + lanes : wo;
        const int64_t base = p->w_src[j0], len = p->w_src[j1 - 1] - base + 1;
        f->base = base;
        for (int64_t t = 0; t < len; t++) {
            if (t < lanes)
                f->lmask0 |= 1ull << t;
            else
                f->lmask1 |= 1ull << (t - lanes);
        }
        f->ld0 = base + lanes <= p->wi ? UPNX_LD_PLAIN : UPNX_LD_MASKED;
        f->ld1 = !f->lmask1 ? UPNX_LD_ZERO : base + 2 * lanes <= p->wi ? UPNX_LD_PLAIN : UPNX_LD_MASKED;
        for (int64_t j = j0; j < j1; j++) {
            const int64_t l = j - j0, v = p->w_src[j] - base;
            f->smask |= 1ull << l;
            if (es == 4) {
                const int32_t w = (int32_t)v;
                memcpy(f->idx + 4 * l, &w, 4);
            } else if (es == 2) {
                const int16_t w = (int16_t)v;
                memcpy(f->idx + 2 * l, &w, 2);
            } else {
                f->idx[l] = (uint8_t)v;
            }
        }
    }
    p->fb = fb;
    return 1;
}

#if defined(__x86_64__) && defined(__GNUC__)
/* One output row (stride 1) from one input row (stride 1): two loads (masked only at the row's end) and a
 * two-vector permute per block;
 * whole aligned blocks are streamed past the caches when p->nt. */
static inline __attribute__((always_inline, target("avx512f,avx512bw,avx512vl,avx512vbmi"))) __m512i
upnx_fwd_load(int mode, const char *s, uint64_t mask, int64_t es) {
    if (mode == UPNX_LD_PLAIN) return _mm512_loadu_si512(s);
    if (mode == UPNX_LD_ZERO) return _mm512_setzero_si512();
    if (es == 4) return _mm512_maskz_loadu_epi32((__mmask16)mask, s);
    if (es == 2) return _mm512_maskz_loadu_epi16((__mmask32)mask, s);
    return _mm512_maskz_loadu_epi8((__mmask64)mask, s);
}

static __attribute__((target("avx512f,avx512bw,avx512vl,avx512vbmi"))) void
upnx_fwd_row_simd(char *y, const char *x, const upnx_fwd_plan *p) {
    const int64_t es = p->fb_es, lanes = 64 / es, nb = (p->wo + lanes - 1) / lanes;
    const uint64_t full = es == 1 ? ~0ull : (1ull << lanes) - 1;
    for (int64_t b = 0; b < nb; b++) {
        const upnx_fblk *f = p->fb + b;
        const char *s = x + f->base * es;
        char *d = y + b * 64;
        const __m512i idx = _mm512_loadu_si512(f->idx);
        __m512i v;
        const __m512i lo = upnx_fwd_load(f->ld0, s, f->lmask0, es);
        const __m512i hi = upnx_fwd_load(f->ld1, s + 64, f->lmask1, es);
        if (es == 4)
            v = _mm512_permutex2var_epi32(lo, idx, hi);
        else if (es == 2)
            v = _mm512_permutex2var_epi16(lo, idx, hi);
        else
            v = _mm512_permutex2var_epi8(lo, idx, hi);
        if (p->nt && f->smask == full && ((uintptr_t)d & 63) == 0)
            _mm512_stream_si512((void *)d, v);
        else if (f->smask == full)
            _mm512_storeu_si512(d, v);
        else if (es == 4)
            _mm512_mask_storeu_epi32(d, (__mmask16)f->smask, v);
        else if (es == 2)
            _mm512_mask_storeu_epi16(d, (__mmask32)f->smask, v);
        else
            _mm512_mask_storeu_epi8(d, (__mmask64)f->smask, v);
    }
}
#else
static void upnx_fwd_row_simd(char *y, const char *x, const upnx_fwd_plan *p) {
    /* never called: without x86-64 acl_simd_level() is ACL_SIMD_PORTABLE, so `simd` is false */
}
#endif

#define UPNX_GATHER_ROW(T)                                                                                   \
    static void upnx_gather_row_##T(T *y, int64_t ys, const T *x, int64_t xs, const upnx_fwd_plan *p) {     \
        const int64_t wo = p->wo;                                                                            \
        const int64_t *src = p->w_src;                                                                       \
        if (ys == 1 && xs == 1) {                                                                            \
            if (p->wk == 1) {                                                                                \
                memcpy(y, x, (size_t)wo * sizeof(T));                                                        \
            } else if (p->wk == 2) {                                                                         \
                const int64_t half = wo / 2;                                                                 \
                for (int64_t j = 0; j < half; j++) {                                                         \
                    T v = x[j];                                                                              \
                    y[2 * j] = v;                                                                            \
                    y[2 * j + 1] = v;                                                                        \
                }                                                                                            \
                if (wo & 1) y[wo - 1] = x[src[wo - 1]];                                                      \
            } else {                                                                                         \
                for (int64_t j = 0; j < wo; j++) y[j] = x[src[j]];                                           \
            }                                                                                                \
        } else {                                                                                             \
            for (int64_t j = 0; j < wo; j++) y[j * ys] = x[src[j] * xs];                                     \
        }                                                                                                    \
    }

UPNX_GATHER_ROW(uint8_t)
UPNX_GATHER_ROW(uint16_t)
UPNX_GATHER_ROW(uint32_t)
UPNX_GATHER_ROW(uint64_t)

static void upnx_fwd_gather_at(const acl_view *xv, const acl_view *yv, const upnx_fwd_plan *p, int level) {
    const int64_t C = p->c, Ho = p->ho, wo = p->wo;
    const int64_t rows = p->n * C * Ho;
    const size_t es = acl_dtype_size(xv->dtype);
    const int64_t x0 = xv->strides[0], x1 = xv->strides[1], x2 = xv->strides[2], x3 = xv->strides[3];
    const int64_t y0 = yv->strides[0], y1 = yv->strides[1], y2 = yv->strides[2], y3 = yv->strides[3];
    /* a row may be copied from the previous output row when both are dense and disjoint */
    const int reuse = y3 == 1 && y2 >= wo;
    const int simd = p->fb != NULL && x3 == 1 && y3 == 1 && (int64_t)es == p->fb_es && level >= ACL_SIMD_AVX512;
#pragma omp parallel if (acl_parallel_worth(rows * wo))
    {
        /* a fixed contiguous block of rows per thread; results do not depend on the partition */
        int64_t nt = 1, t = 0;
#ifdef _OPENMP
        nt = omp_get_num_threads();
        t = omp_get_thread_num();
#endif
        const int64_t q0 = rows * t / nt, q1 = rows * (t + 1) / nt;
        for (int64_t q = q0; q < q1; q++) {
            const int64_t plane = q / Ho, yr = q - plane * Ho;
            const int64_t n = plane / C, c = plane - n * C;
            const int64_t xoff = n * x0 + c * x1 + p->h_src[yr] * x2;
            const int64_t yoff = n * y0 + c * y1 + yr * y2;
            if (reuse && !(simd && p->nt) && q > q0 && yr > 0 && p->h_src[yr] == p->h_src[yr - 1]) {
                memcpy(yv->base + yoff * (int64_t)es, yv->base + (yoff - y2) * (int64_t)es, (size_t)wo * es);
                continue;
            }
            if (simd) {
                upnx_fwd_row_simd(yv->base + yoff * (int64_t)es, xv->base + xoff * (int64_t)es, p);
                continue;
            }
            switch (es) {
            case 1:
                upnx_gather_row_uint8_t((uint8_t *)yv->base + yoff, y3, (const uint8_t *)xv->base + xoff, x3, p);
                break;
            case 2:
                upnx_gather_row_uint16_t((uint16_t *)yv->base + yoff, y3, (const uint16_t *)xv->base + xoff, x3, p);
                break;
            case 4:
                upnx_gather_row_uint32_t((uint32_t *)yv->base + yoff, y3, (const uint32_t *)xv->base + xoff, x3, p);
                break;
            default: /* 8 (float64) */
                upnx_gather_row_uint64_t((uint64_t *)yv->base + yoff, y3, (const uint64_t *)xv->base + xoff, x3, p);
                break;
            }
        }
        upnx_store_fence(simd && p->nt);
    }
}

typedef struct {
    const acl_view *x, *y;
    const upnx_fwd_plan *p;
} upnx_fwd_call;

static void upnx_fwd_run(void *ctx, int level) {
    const upnx_fwd_call *c = (const upnx_fwd_call *)ctx;
    upnx_fwd_gather_at(c->x, c->y, c->p, level);
}

void upnx_fwd_gather(const acl_view *xv, const acl_view *yv, const upnx_fwd_plan *p) {
    const int64_t es = (int64_t)acl_dtype_size(xv->dtype);
    const int64_t xs = acl_view_span_bytes(xv, es), ys = acl_view_span_bytes(yv, es);
    const int safe = xs > 0 && ys > 0 && !acl_ranges_overlap(xv->base, xs, yv->base, ys);
    upnx_fwd_call c = {xv, yv, p};
    /* without AVX-512 blocks both levels run the same code: nothing to calibrate */
    acl_simd_run(ACL_SIMD_FAM_UPSAMPLE_NEAREST_FWD, p->n * p->c * (p->ho * p->wo + p->hi * p->wi) * es,
                 safe && p->fb != NULL, upnx_fwd_run, &c);
}
