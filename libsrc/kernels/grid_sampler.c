/* grid_sampler_2d kernels: the compute core per compute type (float, double), entry points per dtype. */
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "aclnn/aclnn_base.h"
#include "common/parallel.h"
#include "kernels/dtype_io.h"
#include "common/cpu.h"
#include "common/level_fn.h"
#include "kernels/f16_rows.h"
#include "common/half_rows.h"
#include "kernels/grid_sampler.h"
#include "common/nan_order.h"

/* common/nan_order.h's rule on the compute type (float or double) of the NaN redo (grid_sampler.inc) */
#define GS_NO_ADD(a, b) _Generic((a), double: no_add_d, default: no_add_f)((a), (b))
#define GS_NO_MUL(a, b) _Generic((a), double: no_mul_d, default: no_mul_f)((a), (b))
#ifdef __SSE2__
#include <emmintrin.h>
#endif

/* a 4-D view laid out densely in row-major order */
static bool gs_is_contig(const acl_view *v) {
    int64_t s = 1;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->dims[i] != 1 && v->strides[i] != s) return false;
        s *= v->dims[i];
    }
    return true;
}

/* channel lanes of the planar path's blocks (grid_sampler_core.inc) */
#define GS_L 8
/* the narrow planar path (plain planes, no lane blocks) takes C up to these; it costs about one plane pass per
 * channel while a lane block costs the same for 1..8 channels, so it pays only for very few channels (measured
 * on 2 threads, N8 64x64: forward wins at C = 1 only, backward at C <= 2, loses from C = 3) */
#define GSN_FWD_MAXC 1
#define GSN_BWD_MAXC 2
/* The one-pass few-channel paths (grid_sampler.inc gs_bwd_few / gs_fwd_few: one work item per batch item, taps
 * per chunk, no N x P tables, one work-shared loop) take C up to these when there are at least as many batch items
 * as threads (else the planar paths above). Measured 1 thread, N8 64x64 -> 64x64 fp32, against the paths above:
 * bilinear backward C = 1 0.138 -> 0.087 ms, C = 2 0.204 -> 0.156, C = 3 0.271 -> 0.222, C = 4 0.266 -> 0.274
 * (the lane block catches up), so C <= 3; nearest and bicubic backward were slower (their taps are per point,
 * bicubic C = 4 1.31 -> 2.39 ms), so bilinear only. Forward: C = 1 0.057 -> 0.047 ms, C = 3 0.099 -> 0.122
 * (the lane block wins), so C = 1. */
#define GSF_MAXC 3
#define GSF_FWD_MAXC 1

/* ---- contiguous row conversions storage type <-> compute type (the planar path's plane copies) ---- */
static inline bool gs_have_f16c(void) {
#ifdef ACL_F16_ROWS_F16C
    return acl_simd_level() >= ACL_SIMD_AVX2;
#else
    return false;
#endif
}

#ifdef ACL_F16_ROWS_F16C
/* F16C widening is exact; a signalling NaN comes out quiet, which is invisible here because every loaded value
 * goes through an fp32 multiplication before it is stored */
__attribute__((target("avx2,f16c"))) static void gs_f16c_load(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    for (; i < n; i++) dst[i] = acl_f16_to_f32(src[i]);
}
#endif

static inline void gs_row_load_f32(float *restrict d, const float *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_store_f32(float *restrict d, const float *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_load_f64(double *restrict d, const double *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_store_f64(double *restrict d, const double *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static void gs_row_load_f16(float *restrict d, const uint16_t *restrict s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs_have_f16c()) {
        gs_f16c_load(d, s, n);
        return;
    }
#endif
    acl_row_f16_to_f32(d, s, n); /* common/half_rows.h: SSE2 / NEON, the same bits */
}
static void gs_row_store_f16(uint16_t *restrict d, const float *restrict s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs_have_f16c()) {
        acl_f32_to_f16_row_f16c(d, s, n);
        return;
    }
#endif
    acl_row_f32_to_f16(d, s, n);
}
static void gs_row_load_bf16(float *restrict d, const uint16_t *restrict s, int64_t n) { acl_row_bf16_to_f32(d, s, n); }
static void gs_row_store_bf16(uint16_t *restrict d, const float *restrict s, int64_t n) { acl_row_f32_to_bf16(d, s, n); }

/* ---- 8-channel lane transposes for 4-byte-or-narrower dtypes (exact copies / exact conversions, so every
 * implementation gives the same bits). gs_tl_<sfx>: cb rows (cs apart) of n elements -> dst[n][8] fp32 with
 * lanes >= cb zero; gs_fl_<sfx>: the inverse, rounding once. Return false when not handled (no AVX2). ---- */
#ifdef ACL_F16_ROWS_F16C
#define GS_AVX2 __attribute__((target("avx2,f16c")))
GS_AVX2 static inline void gs_tr8(__m256 r[8]) {
    __m256 t0 = _mm256_unpacklo_ps(r[0], r[1]), t1 = _mm256_unpackhi_ps(r[0], r[1]);
    __m256 t2 = _mm256_unpacklo_ps(r[2], r[3]), t3 = _mm256_unpackhi_ps(r[2], r[3]);
    __m256 t4 = _mm256_unpacklo_ps(r[4], r[5]), t5 = _mm256_unpackhi_ps(r[4], r[5]);
    __m256 t6 = _mm256_unpacklo_ps(r[6], r[7]), t7 = _mm256_unpackhi_ps(r[6], r[7]);
    __m256 u0 = _mm256_shuffle_ps(t0, t2, 0x44), u1 = _mm256_shuffle_ps(t0, t2, 0xEE);
    __m256 u2 = _mm256_shuffle_ps(t1, t3, 0x44), u3 = _mm256_shuffle_ps(t1, t3, 0xEE);
    __m256 u4 = _mm256_shuffle_ps(t4, t6, 0x44), u5 = _mm256_shuffle_ps(t4, t6, 0xEE);
    __m256 u6 = _mm256_shuffle_ps(t5, t7, 0x44), u7 = _mm256_shuffle_ps(t5, t7, 0xEE);
    r[0] = _mm256_permute2f128_ps(u0, u4, 0x20); r[1] = _mm256_permute2f128_ps(u1, u5, 0x20);
    r[2] = _mm256_permute2f128_ps(u2, u6, 0x20); r[3] = _mm256_permute2f128_ps(u3, u7, 0x20);
    r[4] = _mm256_permute2f128_ps(u0, u4, 0x31); r[5] = _mm256_permute2f128_ps(u1, u5, 0x31);
    r[6] = _mm256_permute2f128_ps(u2, u6, 0x31); r[7] = _mm256_permute2f128_ps(u3, u7, 0x31);
}
/* 8 elements of each dtype <-> one __m256; *ok = false when the exact scalar conversion is needed (NaN) */
GS_AVX2 static inline __m256 gs_ld8_f32(const float *p, bool *ok) { (void)ok; return _mm256_loadu_ps(p); }
GS_AVX2 static inline void gs_st8_f32(float *p, __m256 v, bool *ok) { (void)ok; _mm256_storeu_ps(p, v); }
GS_AVX2 static inline __m256 gs_ld8_bf16(const uint16_t *p, bool *ok) {
    (void)ok;
    __m256i w = _mm256_cvtepu16_epi32(_mm_loadu_si128((const __m128i *)(const void *)p));
    return _mm256_castsi256_ps(_mm256_slli_epi32(w, 16));
}
/* acl_f32_to_bf16 on 8 lanes: round to nearest even, NaN -> quiet NaN with the sign kept */
GS_AVX2 static inline void gs_st8_bf16(uint16_t *p, __m256 v, bool *ok) {
    (void)ok;
    const __m256i x = _mm256_castps_si256(v);
    const __m256i hi = _mm256_srli_epi32(x, 16);
    __m256i r = _mm256_add_epi32(x, _mm256_add_epi32(_mm256_set1_epi32(0x7fff), _mm256_and_si256(hi, _mm256_set1_epi32(1))));
    r = _mm256_srli_epi32(r, 16);
    const __m256i q = _mm256_or_si256(hi, _mm256_set1_epi32(0x40));
    const __m256i nan = _mm256_cmpgt_epi32(_mm256_and_si256(x, _mm256_set1_epi32(0x7fffffff)), _mm256_set1_epi32(0x7f800000));
    r = _mm256_blendv_epi8(r, q, nan);
    r = _mm256_permute4x64_epi64(_mm256_packus_epi32(r, r), 0x08);
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_castsi256_si128(r));
}
GS_AVX2 static inline __m256 gs_ld8_f16(const uint16_t *p, bool *ok) {
    __m128i h = _mm_loadu_si128((const __m128i *)(const void *)p);
    /* NaN (exponent all ones, mantissa nonzero): F16C would quiet a signalling one */
    __m128i a = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    if (_mm_movemask_epi8(_mm_cmpgt_epi16(a, _mm_set1_epi16(0x7c00)))) *ok = false;
    return _mm256_cvtph_ps(h);
}
GS_AVX2 static inline void gs_st8_f16(uint16_t *p, __m256 v, bool *ok) {
    __m256i a = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
    __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000));
    if (!_mm256_testz_si256(nan, nan)) {
        float t[8];
        _mm256_storeu_ps(t, v);
        for (int i = 0; i < 8; i++) p[i] = acl_f32_to_f16(t[i]);
        return;
    }
    _mm_storeu_si128((__m128i *)(void *)p, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}

/* the last n - i points of a lane store, element by element; returns nan or'ed with "a NaN was stored" */
#define GS_FL_TAIL(sfx, KT_)                                                                                    \
    static inline int gs_fl_tail_##sfx(KT_ *restrict dst, int64_t cs, int cb, const float *restrict src, int64_t i, \
                                       int64_t n, int nan) {                                                     \
        for (; i < n; i++)                                                                                       \
            for (int l = 0; l < cb; l++) {                                                                       \
                float v_ = src[i * 8 + l];                                                                       \
                nan |= v_ != v_;                                                                                 \
                gs_row_store_##sfx(dst + l * cs + i, &v_, 1);                                                    \
            }                                                                                                    \
        return nan;                                                                                              \
    }
GS_FL_TAIL(f32, float)
GS_FL_TAIL(f16, uint16_t)
GS_FL_TAIL(bf16, uint16_t)

#define GS_TRANSPOSES(sfx, KT_, LOADS)                                                                          \
    GS_AVX2 static void gs_tl_avx2_##sfx(float *restrict dst, const KT_ *restrict src, int64_t cs, int cb,      \
                                         int64_t n) {                                                            \
        int64_t i = 0;                                                                                           \
        for (; i + 8 <= n; i += 8) {                                                                             \
            __m256 r[8];                                                                                         \
            bool ok = true;                                                                                      \
            for (int l = 0; l < 8; l++) r[l] = l < cb ? gs_ld8_##sfx(src + l * cs + i, &ok) : _mm256_setzero_ps(); \
            if (!ok)                                                                                             \
                for (int l = 0; l < cb; l++) {                                                                   \
                    float t[8];                                                                                  \
                    for (int j = 0; j < 8; j++) t[j] = LOADS(src + l * cs + i + j);                              \
                    r[l] = _mm256_loadu_ps(t);                                                                   \
                }                                                                                                \
            gs_tr8(r);                                                                                           \
            for (int j = 0; j < 8; j++) _mm256_storeu_ps(dst + (i + j) * 8, r[j]);                               \
        }                                                                                                        \
        for (; i < n; i++)                                                                                       \
            for (int l = 0; l < 8; l++) dst[i * 8 + l] = l < cb ? LOADS(src + l * cs + i) : 0.0f;                \
    }                                                                                                            \
    GS_AVX2 static int gs_fl_avx2_##sfx(KT_ *restrict dst, int64_t cs, int cb, const float *restrict src,       \
                                        int64_t n) {                                                             \
        int64_t i = 0;                                                                                           \
        __m256 un = _mm256_setzero_ps(); /* NaN lanes seen (unordered compares), for the caller's NaN redo */  \
        for (; i + 8 <= n; i += 8) {                                                                             \
            __m256 r[8];                                                                                         \
            for (int j = 0; j < 8; j++) {                                                                        \
                r[j] = _mm256_loadu_ps(src + (i + j) * 8);                                                       \
                un = _mm256_or_ps(un, _mm256_cmp_ps(r[j], r[j], _CMP_UNORD_Q));                                  \
            }                                                                                                    \
            gs_tr8(r);                                                                                           \
            bool ok = true;                                                                                      \
            for (int l = 0; l < cb; l++) gs_st8_##sfx(dst + l * cs + i, r[l], &ok);                              \
        }                                                                                                        \
        int nan = _mm256_movemask_ps(un) != 0;                                                                   \
        return gs_fl_tail_##sfx(dst, cs, cb, src, i, n, nan);                                                    \
    }
#endif

#ifdef ACL_F16_ROWS_F16C
#define GS_LD_f32(p) (*(p))
#define GS_LD_f16(p) acl_f16_to_f32(*(p))
#define GS_LD_bf16(p) acl_bf16_to_f32(*(p))
GS_TRANSPOSES(f32, float, GS_LD_f32)
GS_TRANSPOSES(f16, uint16_t, GS_LD_f16)
GS_TRANSPOSES(bf16, uint16_t, GS_LD_bf16)

/* AVX-512 lane transposes for the 16-bit dtypes: the 8 x 8 block is transposed as 16-bit values (two vpermt2w on
 * two registers) on the narrow side of the conversion instead of as floats (24 shuffles on eight registers), and
 * converted 16 values an instruction. The conversions are the AVX2 ones' (F16C, round to nearest even; bf16 the
 * same integer rounding), so the same bits. Loads: a block holding a fp16 NaN goes through the exact scalar
 * conversion (as gs_ld8_f16). Stores: a NaN is stored as some NaN and reported, the caller's NaN redo then writes
 * the reference value (as the AVX2 path's scalar NaN stores are overwritten by it). */
#define GS_AVX512 __attribute__((target("avx512f,avx512bw,avx512vl,avx512dq,avx2,f16c")))
/* vpermt2w tables over the 64 16-bit values of two registers: lane-major [8 lanes][8 points] <-> point-major
 * [8 points][8 lanes]; _lo / _hi give the first / second 32 results */
static const uint16_t gs_tw_pm[64] = { /* point-major result j = p*8+l takes lane-major l*8+p */
    0, 8, 16, 24, 32, 40, 48, 56, 1, 9, 17, 25, 33, 41, 49, 57, 2, 10, 18, 26, 34, 42, 50, 58, 3, 11, 19, 27, 35, 43, 51, 59,
    4, 12, 20, 28, 36, 44, 52, 60, 5, 13, 21, 29, 37, 45, 53, 61, 6, 14, 22, 30, 38, 46, 54, 62, 7, 15, 23, 31, 39, 47, 55, 63};
/* (the permutation is an involution: the same table maps point-major back to lane-major) */
GS_AVX512 static inline __m512i gs_ld_tab(int half) {
    return _mm512_loadu_si512((const void *)(gs_tw_pm + 32 * half));
}
GS_AVX512 static inline __m512 gs_wd16_f16(__m256i h) { return _mm512_cvtph_ps(h); }
GS_AVX512 static inline __m512 gs_wd16_bf16(__m256i h) {
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
}
GS_AVX512 static inline __m256i gs_nr16_f16(__m512 v) {
    return _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
}
/* gs_st8_bf16 on 16 lanes */
GS_AVX512 static inline __m256i gs_nr16_bf16(__m512 v) {
    const __m512i x = _mm512_castps_si512(v);
    const __m512i hi = _mm512_srli_epi32(x, 16);
    __m512i r = _mm512_add_epi32(x, _mm512_add_epi32(_mm512_set1_epi32(0x7fff), _mm512_and_si512(hi, _mm512_set1_epi32(1))));
    r = _mm512_srli_epi32(r, 16);
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)), _mm512_set1_epi32(0x7f800000));
    r = _mm512_mask_or_epi32(r, nan, hi, _mm512_set1_epi32(0x40));
    return _mm512_cvtepi32_epi16(r);
}
#define GS_TRANSPOSES512(sfx, LOADS, NANH)                                                                     \
    GS_AVX512 static void gs_tl_avx512_##sfx(float *restrict dst, const uint16_t *restrict src, int64_t cs, int cb, \
                                             int64_t n) {                                                        \
        const __m512i t0 = gs_ld_tab(0), t1 = gs_ld_tab(1), mag = _mm512_set1_epi16(0x7fff);                      \
        int64_t i = 0;                                                                                           \
        for (; i + 8 <= n; i += 8) {                                                                             \
            __m128i r[8];                                                                                        \
            for (int l = 0; l < 8; l++)                                                                          \
                r[l] = l < cb ? _mm_loadu_si128((const __m128i *)(const void *)(src + l * cs + i)) : _mm_setzero_si128(); \
            const __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(r[1], r[0])),           \
                                                 _mm256_set_m128i(r[3], r[2]), 1);                               \
            const __m512i b = _mm512_inserti64x4(_mm512_castsi256_si512(_mm256_set_m128i(r[5], r[4])),           \
                                                 _mm256_set_m128i(r[7], r[6]), 1);                               \
            if (NANH && (_mm512_cmpgt_epu16_mask(_mm512_and_si512(a, mag), _mm512_set1_epi16(0x7c00)) |         \
                         _mm512_cmpgt_epu16_mask(_mm512_and_si512(b, mag), _mm512_set1_epi16(0x7c00)))) {        \
                for (int j = 0; j < 8; j++)                                                                      \
                    for (int l = 0; l < 8; l++) dst[(i + j) * 8 + l] = l < cb ? LOADS(src + l * cs + i + j) : 0.0f; \
                continue;                                                                                        \
            }                                                                                                    \
            const __m512i p0 = _mm512_permutex2var_epi16(a, t0, b), p1 = _mm512_permutex2var_epi16(a, t1, b);    \
            _mm512_storeu_ps(dst + i * 8, gs_wd16_##sfx(_mm512_castsi512_si256(p0)));                           \
            _mm512_storeu_ps(dst + i * 8 + 16, gs_wd16_##sfx(_mm512_extracti64x4_epi64(p0, 1)));                \
            _mm512_storeu_ps(dst + i * 8 + 32, gs_wd16_##sfx(_mm512_castsi512_si256(p1)));                      \
            _mm512_storeu_ps(dst + i * 8 + 48, gs_wd16_##sfx(_mm512_extracti64x4_epi64(p1, 1)));                \
        }                                                                                                        \
        for (; i < n; i++)                                                                                       \
            for (int l = 0; l < 8; l++) dst[i * 8 + l] = l < cb ? LOADS(src + l * cs + i) : 0.0f;                \
    }                                                                                                            \
    GS_AVX512 static int gs_fl_avx512_##sfx(uint16_t *restrict dst, int64_t cs, int cb, const float *restrict src, \
                                            int64_t n) {                                                         \
        const __m512i t0 = gs_ld_tab(0), t1 = gs_ld_tab(1), mag = _mm512_set1_epi16(0x7fff);                      \
        __m512i mx = _mm512_setzero_si512(); /* largest magnitude stored: a NaN when above the infinity */       \
        int64_t i = 0;                                                                                           \
        for (; i + 8 <= n; i += 8) {                                                                             \
            const __m256i h0 = gs_nr16_##sfx(_mm512_loadu_ps(src + i * 8));                                      \
            const __m256i h1 = gs_nr16_##sfx(_mm512_loadu_ps(src + i * 8 + 16));                                 \
            const __m256i h2 = gs_nr16_##sfx(_mm512_loadu_ps(src + i * 8 + 32));                                 \
            const __m256i h3 = gs_nr16_##sfx(_mm512_loadu_ps(src + i * 8 + 48));                                 \
            const __m512i a = _mm512_inserti64x4(_mm512_castsi256_si512(h0), h1, 1);                            \
            const __m512i b = _mm512_inserti64x4(_mm512_castsi256_si512(h2), h3, 1);                            \
            mx = _mm512_max_epu16(mx, _mm512_max_epu16(_mm512_and_si512(a, mag), _mm512_and_si512(b, mag)));     \
            const __m512i q0 = _mm512_permutex2var_epi16(a, t0, b), q1 = _mm512_permutex2var_epi16(a, t1, b);    \
            uint16_t *d = dst + i;                                                                               \
            switch (cb) {                                                                                        \
            case 8: _mm_storeu_si128((__m128i *)(void *)(d + 7 * cs), _mm512_extracti32x4_epi32(q1, 3)); /* fallthrough */ \
            case 7: _mm_storeu_si128((__m128i *)(void *)(d + 6 * cs), _mm512_extracti32x4_epi32(q1, 2)); /* fallthrough */ \
            case 6: _mm_storeu_si128((__m128i *)(void *)(d + 5 * cs), _mm512_extracti32x4_epi32(q1, 1)); /* fallthrough */ \
            case 5: _mm_storeu_si128((__m128i *)(void *)(d + 4 * cs), _mm512_castsi512_si128(q1)); /* fallthrough */ \
            case 4: _mm_storeu_si128((__m128i *)(void *)(d + 3 * cs), _mm512_extracti32x4_epi32(q0, 3)); /* fallthrough */ \
            case 3: _mm_storeu_si128((__m128i *)(void *)(d + 2 * cs), _mm512_extracti32x4_epi32(q0, 2)); /* fallthrough */ \
            case 2: _mm_storeu_si128((__m128i *)(void *)(d + 1 * cs), _mm512_extracti32x4_epi32(q0, 1)); /* fallthrough */ \
            default: _mm_storeu_si128((__m128i *)(void *)d, _mm512_castsi512_si128(q0));                        \
            }                                                                                                    \
        }                                                                                                        \
        int nan = _mm512_cmpgt_epu16_mask(mx, _mm512_set1_epi16((short)(NANH ? 0x7c00 : 0x7f80))) != 0;          \
        return gs_fl_tail_##sfx(dst, cs, cb, src, i, n, nan);                                                    \
    }
GS_TRANSPOSES512(f16, GS_LD_f16, 1)
GS_TRANSPOSES512(bf16, GS_LD_bf16, 0)
#endif
/* dispatch: true when done */
#define GS_TL_FN(sfx, KT_)                                                                                      \
    static inline bool gs_tl_##sfx(float *dst, const KT_ *src, int64_t cs, int cb, int64_t n) {                 \
        GS_TL_BODY(gs_tl_avx2_##sfx(dst, src, cs, cb, n))                                                        \
    }                                                                                                            \
    static inline bool gs_fl_##sfx(KT_ *dst, int64_t cs, int cb, const float *src, int64_t n, int *nan) {       \
        GS_TL_BODY(*nan |= gs_fl_avx2_##sfx(dst, cs, cb, src, n))                                                \
    }
#ifdef ACL_F16_ROWS_F16C
#define GS_TL_BODY(call) if (!gs_have_f16c()) return false; call; return true;
#else
#define GS_TL_BODY(call) return false;
#endif
GS_TL_FN(f32, float)
#ifdef ACL_F16_ROWS_F16C
/* fp16 / bf16: the AVX-512 variant at that level */
#define GS_TL_FN16(sfx)                                                                                         \
    static inline bool gs_tl_##sfx(float *dst, const uint16_t *src, int64_t cs, int cb, int64_t n) {            \
        const int lv = acl_simd_level();                                                                         \
        if (lv >= ACL_SIMD_AVX512) gs_tl_avx512_##sfx(dst, src, cs, cb, n);                                      \
        else if (lv >= ACL_SIMD_AVX2) gs_tl_avx2_##sfx(dst, src, cs, cb, n);                                     \
        else return false;                                                                                       \
        return true;                                                                                             \
    }                                                                                                            \
    static inline bool gs_fl_##sfx(uint16_t *dst, int64_t cs, int cb, const float *src, int64_t n, int *nan) {  \
        const int lv = acl_simd_level();                                                                         \
        if (lv >= ACL_SIMD_AVX512) *nan |= gs_fl_avx512_##sfx(dst, cs, cb, src, n);                              \
        else if (lv >= ACL_SIMD_AVX2) *nan |= gs_fl_avx2_##sfx(dst, cs, cb, src, n);                             \
        else return gs_fl_base_##sfx(dst, cs, cb, src, n, nan);                                                  \
        return true;                                                                                             \
    }
#ifdef ACL_HALF_ROWS_SSE2
/* the portable fp16 narrowing side (SSE2): each point's 8 lanes narrowed first (common/half_rows.h's 8-value
 * conversion, the row store's bits; a block with a NaN through the element function, as the row store), then
 * the 8 x 8 block transposed as 16-bit values (24 unpacks) and stored a row of 8 points at a time, instead of
 * the fp32 transpose through a scratch block and a second pass converting its rows */
static bool gs_fl_base_f16(uint16_t *restrict dst, int64_t cs, int cb, const float *restrict src, int64_t n, int *nan) {
    int64_t i = 0;
    int any = 0;
    for (; i + 8 <= n; i += 8) {
        __m128i h[8];
        for (int p = 0; p < 8; p++) {
            const float *s = src + (i + p) * 8;
            int nn = 0;
            h[p] = acl_hr_f32x8_to_f16_(_mm_loadu_si128((const __m128i *)(const void *)s),
                                        _mm_loadu_si128((const __m128i *)(const void *)(s + 4)), &nn);
            if (nn) {
                uint16_t t[8];
                for (int l = 0; l < 8; l++) t[l] = acl_f32_to_f16_bf(s[l]);
                h[p] = _mm_loadu_si128((const __m128i *)(const void *)t);
                any = 1;
            }
        }
        const __m128i t0 = _mm_unpacklo_epi16(h[0], h[1]), t1 = _mm_unpackhi_epi16(h[0], h[1]);
        const __m128i t2 = _mm_unpacklo_epi16(h[2], h[3]), t3 = _mm_unpackhi_epi16(h[2], h[3]);
        const __m128i t4 = _mm_unpacklo_epi16(h[4], h[5]), t5 = _mm_unpackhi_epi16(h[4], h[5]);
        const __m128i t6 = _mm_unpacklo_epi16(h[6], h[7]), t7 = _mm_unpackhi_epi16(h[6], h[7]);
        const __m128i u0 = _mm_unpacklo_epi32(t0, t2), u1 = _mm_unpackhi_epi32(t0, t2);
        const __m128i u2 = _mm_unpacklo_epi32(t4, t6), u3 = _mm_unpackhi_epi32(t4, t6);
        const __m128i u4 = _mm_unpacklo_epi32(t1, t3), u5 = _mm_unpackhi_epi32(t1, t3);
        const __m128i u6 = _mm_unpacklo_epi32(t5, t7), u7 = _mm_unpackhi_epi32(t5, t7);
        __m128i r[8];
        r[0] = _mm_unpacklo_epi64(u0, u2); r[1] = _mm_unpackhi_epi64(u0, u2);
        r[2] = _mm_unpacklo_epi64(u1, u3); r[3] = _mm_unpackhi_epi64(u1, u3);
        r[4] = _mm_unpacklo_epi64(u4, u6); r[5] = _mm_unpackhi_epi64(u4, u6);
        r[6] = _mm_unpacklo_epi64(u5, u7); r[7] = _mm_unpackhi_epi64(u5, u7);
        for (int l = 0; l < cb; l++) _mm_storeu_si128((__m128i *)(void *)(dst + l * cs + i), r[l]);
    }
    for (; i < n; i++)
        for (int l = 0; l < cb; l++) {
            const float v_ = src[i * 8 + l];
            any |= v_ != v_;
            dst[l * cs + i] = acl_f32_to_f16_bf(v_);
        }
    *nan |= any;
    return true;
}
#else
static inline bool gs_fl_base_f16(uint16_t *dst, int64_t cs, int cb, const float *src, int64_t n, int *nan) { return false; }
#endif
static inline bool gs_fl_base_bf16(uint16_t *dst, int64_t cs, int cb, const float *src, int64_t n, int *nan) { return false; }
GS_TL_FN16(f16)
GS_TL_FN16(bf16)
#else
GS_TL_FN(f16, uint16_t)
GS_TL_FN(bf16, uint16_t)
#endif
static inline bool gs_tl_f64(double *dst, const double *src, int64_t cs, int cb, int64_t n) { return false; }
static inline bool gs_fl_f64(double *dst, int64_t cs, int cb, const double *src, int64_t n, int *nan) { return false; }

/* the scalar lane transposes of gs_to_lanes / gs_from_lanes (grid_sampler.inc, paths without the AVX2 ones):
 * rows t[l][i] (l < GS_L, row stride ld) <-> lanes d[i][GS_L], i < m; exact copies. x86-64's baseline SSE2 does
 * float 4 x 4 blocks (GCC's scalar loop was a third of the portable backward's time). */
static inline void gs_tr_to8_f32(float *restrict d, const float *restrict t, int64_t ld, int64_t m) {
    int64_t i = 0;
#ifdef __SSE2__
    for (; i + 4 <= m; i += 4)
        for (int l = 0; l < GS_L; l += 4) {
            __m128 r0 = _mm_loadu_ps(t + l * ld + i), r1 = _mm_loadu_ps(t + (l + 1) * ld + i);
            __m128 r2 = _mm_loadu_ps(t + (l + 2) * ld + i), r3 = _mm_loadu_ps(t + (l + 3) * ld + i);
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(d + i * GS_L + l, r0);
            _mm_storeu_ps(d + (i + 1) * GS_L + l, r1);
            _mm_storeu_ps(d + (i + 2) * GS_L + l, r2);
            _mm_storeu_ps(d + (i + 3) * GS_L + l, r3);
        }
#endif
    for (; i < m; i++)
        for (int l = 0; l < GS_L; l++) d[i * GS_L + l] = t[l * ld + i];
}
/* (returns 1 when a value is NaN) */
static inline int gs_tr_from8_f32(float *restrict t, int64_t ld, const float *restrict s, int64_t m) {
    int64_t i = 0;
    int nan = 0;
#ifdef __SSE2__
    __m128 un[GS_L / 4] = {_mm_setzero_ps(), _mm_setzero_ps()}; /* one chain per 4-lane column */
    for (; i + 4 <= m; i += 4)
        for (int l = 0; l < GS_L; l += 4) {
            __m128 r0 = _mm_loadu_ps(s + i * GS_L + l), r1 = _mm_loadu_ps(s + (i + 1) * GS_L + l);
            __m128 r2 = _mm_loadu_ps(s + (i + 2) * GS_L + l), r3 = _mm_loadu_ps(s + (i + 3) * GS_L + l);
            /* a running sum per lane: NaN when a value is (or, rarely, after infinities: the caller's redo then
             * finds no NaN element and changes nothing); cheaper than an unordered compare per vector */
            un[l >> 2] = _mm_add_ps(un[l >> 2], _mm_add_ps(_mm_add_ps(r0, r1), _mm_add_ps(r2, r3)));
            _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
            _mm_storeu_ps(t + l * ld + i, r0);
            _mm_storeu_ps(t + (l + 1) * ld + i, r1);
            _mm_storeu_ps(t + (l + 2) * ld + i, r2);
            _mm_storeu_ps(t + (l + 3) * ld + i, r3);
        }
    const __m128 u = _mm_add_ps(un[0], un[1]);
    nan = _mm_movemask_ps(_mm_cmpunord_ps(u, u)) != 0;
#endif
    for (; i < m; i++)
        for (int l = 0; l < GS_L; l++) {
            t[l * ld + i] = s[i * GS_L + l];
            nan |= s[i * GS_L + l] != s[i * GS_L + l];
        }
    return nan;
}
static inline void gs_tr_to8_f64(double *restrict d, const double *restrict t, int64_t ld, int64_t m) {
    for (int64_t i = 0; i < m; i++)
        for (int l = 0; l < GS_L; l++) d[i * GS_L + l] = t[l * ld + i];
}
static inline int gs_tr_from8_f64(double *restrict t, int64_t ld, const double *restrict s, int64_t m) {
    int nan = 0;
    for (int64_t i = 0; i < m; i++)
        for (int l = 0; l < GS_L; l++) {
            t[l * ld + i] = s[i * GS_L + l];
            nan |= s[i * GS_L + l] != s[i * GS_L + l];
        }
    return nan;
}

#define GS_T float
#define GS_SFX f32
#define GS_IS_F32 1
#include "kernels/grid_sampler_core.inc"
#undef GS_IS_F32
#undef GS_T
#undef GS_SFX

#define GS_T double
#define GS_SFX f64
#define GS_IS_F32 0
#include "kernels/grid_sampler_core.inc"
#undef GS_IS_F32
#undef GS_T
#undef GS_SFX

#define GS_CORE f32
#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"
#undef GS_CORE

#define GS_CORE f64
#define KSUFFIX f64
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"
#undef GS_CORE
