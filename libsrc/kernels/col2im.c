/* col2im kernels per dtype (col2im.h). */
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/cpu.h"
#include "common/dtype_rules.h"
#include "common/half_rows.h"
#include "common/nan_order.h"
#include "common/parallel.h"
#include "kernels/col2im.h"
#include "kernels/dtype_io.h"

/* Tap row segments of fp16 / bf16 gradOutput added into fp32 sums, widened as they are read: a[i] + widen(v[i])
 * (a2: the even and odd columns from two taps, the k2 s2 interleave), the same float additions as widening the
 * rows into a buffer first, without the buffer's write and re-read (for k3 that is 9 rows of the plane, more than
 * L1 holds). A NaN lane's payload may differ from the scalar widening (F16C quietens), but a plane holding a NaN
 * sum is redone per element under the NaN rule, so only non-NaN sums reach out, and those are exact. */
static inline void c2i_add_f16_port(float *restrict a, const uint16_t *restrict v, int64_t m) {
    int64_t i = 0;
#ifdef ACL_HALF_ROWS_SSE2 /* x86-64 portable: half_rows.h's 8-at-a-time widening, blocks without Inf / NaN */
    for (__m128 lo, hi; i + 8 <= m && acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(v + i)), &lo, &hi);
         i += 8) {
        _mm_storeu_ps(a + i, _mm_add_ps(_mm_loadu_ps(a + i), lo));
        _mm_storeu_ps(a + i + 4, _mm_add_ps(_mm_loadu_ps(a + i + 4), hi));
    }
#endif
    for (; i < m; i++) a[i] = a[i] + acl_f16_to_f32_bf(v[i]);
}
static inline void c2i_add2_f16_port(float *restrict a, const uint16_t *restrict v0, const uint16_t *restrict v1,
                                     int64_t m) {
    int64_t i = 0;
#ifdef ACL_HALF_ROWS_SSE2
    for (__m128 e0, e1, o0, o1; i + 8 <= m &&
                                acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(v0 + i)), &e0, &e1) &&
                                acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(v1 + i)), &o0, &o1);
         i += 8) {
        float *q = a + 2 * i;
        _mm_storeu_ps(q, _mm_add_ps(_mm_loadu_ps(q), _mm_unpacklo_ps(e0, o0)));
        _mm_storeu_ps(q + 4, _mm_add_ps(_mm_loadu_ps(q + 4), _mm_unpackhi_ps(e0, o0)));
        _mm_storeu_ps(q + 8, _mm_add_ps(_mm_loadu_ps(q + 8), _mm_unpacklo_ps(e1, o1)));
        _mm_storeu_ps(q + 12, _mm_add_ps(_mm_loadu_ps(q + 12), _mm_unpackhi_ps(e1, o1)));
    }
#endif
    for (; i < m; i++) {
        a[2 * i] = a[2 * i] + acl_f16_to_f32_bf(v0[i]);
        a[2 * i + 1] = a[2 * i + 1] + acl_f16_to_f32_bf(v1[i]);
    }
}
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define C2I_X86 1
__attribute__((target("avx2,f16c"))) static void c2i_add_f16_avx2(float *restrict a, const uint16_t *restrict v,
                                                                   int64_t m) {
    int64_t i = 0;
    for (; i + 8 <= m; i += 8)
        _mm256_storeu_ps(a + i, _mm256_add_ps(_mm256_loadu_ps(a + i),
                                              _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(v + i)))));
    for (; i < m; i++) a[i] = a[i] + _cvtsh_ss(v[i]);
}
__attribute__((target("avx2,f16c"))) static void c2i_add2_f16_avx2(float *restrict a, const uint16_t *restrict v0,
                                                                    const uint16_t *restrict v1, int64_t m) {
    int64_t i = 0;
    for (; i + 8 <= m; i += 8) {
        const __m256 e = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(v0 + i)));
        const __m256 o = _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(v1 + i)));
        /* (e0 o0 e1 o1 ..) in two vectors: unpack within lanes, then the 128-bit halves in order */
        const __m256 lo = _mm256_unpacklo_ps(e, o), hi = _mm256_unpackhi_ps(e, o);
        const __m256 p0 = _mm256_permute2f128_ps(lo, hi, 0x20), p1 = _mm256_permute2f128_ps(lo, hi, 0x31);
        _mm256_storeu_ps(a + 2 * i, _mm256_add_ps(_mm256_loadu_ps(a + 2 * i), p0));
        _mm256_storeu_ps(a + 2 * i + 8, _mm256_add_ps(_mm256_loadu_ps(a + 2 * i + 8), p1));
    }
    for (; i < m; i++) {
        a[2 * i] = a[2 * i] + _cvtsh_ss(v0[i]);
        a[2 * i + 1] = a[2 * i + 1] + _cvtsh_ss(v1[i]);
    }
}
#endif
static void c2i_add_f16(float *restrict a, const uint16_t *restrict v, int64_t m) {
#ifdef C2I_X86
    if (acl_simd_level() >= ACL_SIMD_AVX2) {
        c2i_add_f16_avx2(a, v, m);
        return;
    }
#endif
    c2i_add_f16_port(a, v, m);
}
static void c2i_add2_f16(float *restrict a, const uint16_t *restrict v0, const uint16_t *restrict v1, int64_t m) {
#ifdef C2I_X86
    if (acl_simd_level() >= ACL_SIMD_AVX2) {
        c2i_add2_f16_avx2(a, v0, v1, m);
        return;
    }
#endif
    c2i_add2_f16_port(a, v0, v1, m);
}
#ifdef ACL_HALF_ROWS_SSE2
/* x86-64's portable level (no F16C): fp16 tap rows summed in a scaled domain. The bits sign << 31 | (h & 0x7fff) << 13
 * read as fp32 are the half's value times 2^-112 exactly (a subnormal half: an fp32 subnormal), 3 integer operations a
 * vector instead of half_rows.h's exact widening. Every partial sum of halves is a multiple of 2^-24: one of
 * magnitude 2^-14 or more is normal in both domains, where rounding commutes with the power-of-two scale, and a
 * smaller one has at most 10 significant bits, exact in both. So the plane's scaled sums times 2^112 are the bits of
 * the real-domain sums (the same additions in the same order). An Inf / NaN half has no scaled image: *bad is set
 * and the caller recomputes the plane per element. */
#define C2I_SCALED 1
static inline float c2i_sc1(uint16_t h) {
    const uint32_t u = ((uint32_t)(h & 0x8000u) << 16) | ((uint32_t)(h & 0x7fffu) << 13);
    float f;
    memcpy(&f, &u, 4);
    return f;
}
/* 8 halves -> their scaled fp32 images (lo: lanes 0-3, hi: 4-7); *mx keeps the largest magnitude's bits */
static inline void c2i_sc8(__m128i h, __m128 *lo, __m128 *hi, __m128i *mx) {
    *mx = _mm_max_epi16(*mx, _mm_and_si128(h, _mm_set1_epi16(0x7fff)));
    /* the upper 16 bits of each fp32: the sign, then (h & 0x7fff) >> 3 (srai copies the sign into bits 14..12:
     * cleared); the lower 16: h's low 3 bits at the top */
    const __m128i top = _mm_and_si128(_mm_srai_epi16(h, 3), _mm_set1_epi16((short)0x8fff)), bot = _mm_slli_epi16(h, 13);
    *lo = _mm_castsi128_ps(_mm_unpacklo_epi16(bot, top));
    *hi = _mm_castsi128_ps(_mm_unpackhi_epi16(bot, top));
}
static void c2i_adds_f16(float *restrict a, const uint16_t *restrict v, int64_t m, int *bad) {
    __m128i mx = _mm_setzero_si128();
    int64_t i = 0;
    for (__m128 lo, hi; i + 8 <= m; i += 8) {
        c2i_sc8(_mm_loadu_si128((const __m128i *)(const void *)(v + i)), &lo, &hi, &mx);
        _mm_storeu_ps(a + i, _mm_add_ps(_mm_loadu_ps(a + i), lo));
        _mm_storeu_ps(a + i + 4, _mm_add_ps(_mm_loadu_ps(a + i + 4), hi));
    }
    int big = _mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)));
    for (; i < m; i++) {
        big |= (v[i] & 0x7fff) > 0x7bff;
        a[i] = a[i] + c2i_sc1(v[i]);
    }
    *bad |= big != 0;
}
static void c2i_adds2_f16(float *restrict a, const uint16_t *restrict v0, const uint16_t *restrict v1, int64_t m,
                          int *bad) {
    __m128i mx = _mm_setzero_si128();
    int64_t i = 0;
    for (__m128 e0, e1, o0, o1; i + 8 <= m; i += 8) {
        c2i_sc8(_mm_loadu_si128((const __m128i *)(const void *)(v0 + i)), &e0, &e1, &mx);
        c2i_sc8(_mm_loadu_si128((const __m128i *)(const void *)(v1 + i)), &o0, &o1, &mx);
        float *q = a + 2 * i;
        _mm_storeu_ps(q, _mm_add_ps(_mm_loadu_ps(q), _mm_unpacklo_ps(e0, o0)));
        _mm_storeu_ps(q + 4, _mm_add_ps(_mm_loadu_ps(q + 4), _mm_unpackhi_ps(e0, o0)));
        _mm_storeu_ps(q + 8, _mm_add_ps(_mm_loadu_ps(q + 8), _mm_unpacklo_ps(e1, o1)));
        _mm_storeu_ps(q + 12, _mm_add_ps(_mm_loadu_ps(q + 12), _mm_unpackhi_ps(e1, o1)));
    }
    int big = _mm_movemask_epi8(_mm_cmpgt_epi16(mx, _mm_set1_epi16(0x7bff)));
    for (; i < m; i++) {
        big |= (v0[i] & 0x7fff) > 0x7bff || (v1[i] & 0x7fff) > 0x7bff;
        a[2 * i] = a[2 * i] + c2i_sc1(v0[i]);
        a[2 * i + 1] = a[2 * i + 1] + c2i_sc1(v1[i]);
    }
    *bad |= big != 0;
}
/* the scaled path is the portable level's (F16C widens exactly at AVX2 and up) */
static bool c2i_scaled_f16(void) {
#ifdef C2I_X86
    return acl_simd_level() < ACL_SIMD_AVX2;
#else
    return true;
#endif
}
#endif

/* bf16 widening is a shift: plain loops */
static void c2i_add_bf16(float *restrict a, const uint16_t *restrict v, int64_t m) {
    for (int64_t i = 0; i < m; i++) a[i] = a[i] + acl_bf16_to_f32_bf(v[i]);
}
static void c2i_add2_bf16(float *restrict a, const uint16_t *restrict v0, const uint16_t *restrict v1, int64_t m) {
    int64_t i = 0;
#ifdef ACL_HALF_ROWS_SSE2 /* the pairs interleaved as 16-bit words, then each word moved to the top of a lane */
    const __m128i z = _mm_setzero_si128();
    for (; i + 8 <= m; i += 8) {
        const __m128i x0 = _mm_loadu_si128((const __m128i *)(const void *)(v0 + i));
        const __m128i x1 = _mm_loadu_si128((const __m128i *)(const void *)(v1 + i));
        const __m128i lo = _mm_unpacklo_epi16(x0, x1), hi = _mm_unpackhi_epi16(x0, x1);
        float *q = a + 2 * i;
        _mm_storeu_ps(q, _mm_add_ps(_mm_loadu_ps(q), _mm_castsi128_ps(_mm_unpacklo_epi16(z, lo))));
        _mm_storeu_ps(q + 4, _mm_add_ps(_mm_loadu_ps(q + 4), _mm_castsi128_ps(_mm_unpackhi_epi16(z, lo))));
        _mm_storeu_ps(q + 8, _mm_add_ps(_mm_loadu_ps(q + 8), _mm_castsi128_ps(_mm_unpacklo_epi16(z, hi))));
        _mm_storeu_ps(q + 12, _mm_add_ps(_mm_loadu_ps(q + 12), _mm_castsi128_ps(_mm_unpackhi_epi16(z, hi))));
    }
#endif
    for (; i < m; i++) {
        a[2 * i] = a[2 * i] + acl_bf16_to_f32_bf(v0[i]);
        a[2 * i + 1] = a[2 * i + 1] + acl_bf16_to_f32_bf(v1[i]);
    }
}
/* fp32: read in place */
static inline void c2i_add_f32(float *restrict a, const float *restrict v, int64_t m) {
    for (int64_t i = 0; i < m; i++) a[i] = a[i] + v[i];
}
static inline void c2i_add2_f32(float *restrict a, const float *restrict v0, const float *restrict v1, int64_t m) {
    for (int64_t i = 0; i < m; i++) {
        a[2 * i] = a[2 * i] + v0[i];
        a[2 * i + 1] = a[2 * i + 1] + v1[i];
    }
}

#define KSUFFIX f32
#define KSUFFIX_IS_F32 1
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#undef KSUFFIX_IS_F32
#define KSUFFIX_IS_F32 0
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#define C2I_SCALED_DT 1
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"
#undef C2I_SCALED_DT

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/col2im.inc"
#include "kernels/dtype_end.h"
