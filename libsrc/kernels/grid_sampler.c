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
        for (; i < n; i++)                                                                                       \
            for (int l = 0; l < cb; l++) {                                                                       \
                float v_ = src[i * 8 + l];                                                                       \
                nan |= v_ != v_;                                                                                 \
                gs_row_store_##sfx(dst + l * cs + i, &v_, 1);                                                    \
            }                                                                                                    \
        return nan;                                                                                              \
    }
#endif

#ifdef ACL_F16_ROWS_F16C
#define GS_LD_f32(p) (*(p))
#define GS_LD_f16(p) acl_f16_to_f32(*(p))
#define GS_LD_bf16(p) acl_bf16_to_f32(*(p))
GS_TRANSPOSES(f32, float, GS_LD_f32)
GS_TRANSPOSES(f16, uint16_t, GS_LD_f16)
GS_TRANSPOSES(bf16, uint16_t, GS_LD_bf16)
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
GS_TL_FN(f16, uint16_t)
GS_TL_FN(bf16, uint16_t)
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
