/* Row converters between fp16/bf16 and fp32 for the portable paths (every non-x86 build, and PYACLNN_SIMD=off).
 *
 * Each element function is bit-identical to its scalar twin of common/dtype.h (acl_f16_to_f32, acl_f32_to_f16,
 * acl_bf16_to_f32, acl_f32_to_bf16) for EVERY input: round to nearest even, overflow to infinity, subnormals,
 * and NaN payloads as those give them (a signalling fp16 NaN stays signalling when widened; a narrowed NaN keeps
 * its top payload bits, 0x7c01 when they are all zero; a narrowed bf16 NaN is quietened). tests/c/half_rows_check.c
 * compares them over all 65536 halves / bf16s and all 2^32 floats (tests/test_half_rows.py runs it).
 *
 * The element functions have no branches, so loops over them vectorise at -O3 (GCC reports "loop vectorized"
 * under -fopt-info-vec, with SSE2 and with NEON). On aarch64 the fp16 pair uses the hardware conversion
 * (fcvt/fcvtl/fcvtn through _Float16) and only NaN lanes are patched to the scalar functions' bits; on x86-64 the
 * row functions are SSE2 intrinsics (the baseline instruction set, so no run-time dispatch), the same operations
 * eight elements a step; define PYACLNN_NO_SSE2_ROWS to get the plain loops there too (the C test does both). */
#ifndef PYACLNN_COMMON_HALF_ROWS_H
#define PYACLNN_COMMON_HALF_ROWS_H

#include <stdint.h>
#include <string.h>

#include "common/dtype.h"

#if defined(__aarch64__) && defined(__GNUC__) && !defined(PYACLNN_NO_NATIVE_HALF)
#define ACL_HALF_ROWS_NATIVE_F16 1 /* _Float16 <-> float is one instruction (IEEE, round to nearest even) */
#endif

static inline uint32_t acl_hr_bits_(float f) {
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}
static inline float acl_hr_float_(uint32_t u) {
    float f;
    memcpy(&f, &u, 4);
    return f;
}

/* fp16 -> fp32, = acl_f16_to_f32. */
static inline float acl_f16_to_f32_bf(uint16_t h) {
    const uint32_t em = h & 0x7fffu, sign = (uint32_t)(h & 0x8000u) << 16;
#ifdef ACL_HALF_ROWS_NATIVE_F16
    /* the hardware widening is exact for every finite and infinite half but quietens signalling NaNs, so the NaN
     * lanes (and only they) take the bits rebuilt by integer operations: exponent 31 -> 255, payload kept */
    _Float16 hv;
    memcpy(&hv, &h, 2);
    const uint32_t hw = acl_hr_bits_((float)hv);
    const uint32_t nan = 0u - (uint32_t)(em > 0x7c00u);
    return acl_hr_float_((hw & ~nan) | ((((em << 13) + 0x70000000u) | sign) & nan));
#else
    /* (em << 13) read as fp32 is the half's value times 2^-112 (a subnormal fp32 for a subnormal half): the
     * product by 2^112 is exact and normalises it. Inf/NaN come out with exponent 143, a finite value that the
     * multiplication cannot quieten, and get their all-ones exponent by OR. */
    const uint32_t special = 0u - (uint32_t)(em >= 0x7c00u); /* Inf/NaN */
    const float scaled = acl_hr_float_(em << 13) * 0x1p112f;
    return acl_hr_float_(acl_hr_bits_(scaled) | (special & 0x7f800000u) | sign);
#endif
}

/* fp32 -> fp16, = acl_f32_to_f16. */
static inline uint16_t acl_f32_to_f16_bf(float f) {
    const uint32_t w = acl_hr_bits_(f);
    const uint32_t aw = w & 0x7fffffffu;
    /* NaN: 0x7c00 + the top 10 payload bits, 0x7c01 when those are zero; the sign kept */
    const uint32_t payload = (aw & 0x007fffffu) >> 13;
    const uint32_t nanh = 0x7c00u + payload + (uint32_t)(payload == 0);
    const uint32_t is_nan = 0u - (uint32_t)(aw > 0x7f800000u);
#ifdef ACL_HALF_ROWS_NATIVE_F16
    const _Float16 hv = (_Float16)f;
    uint16_t hb;
    memcpy(&hb, &hv, 2);
    const uint32_t r = ((uint32_t)hb & ~is_nan) | ((((w >> 16) & 0x8000u) | nanh) & is_nan);
    return (uint16_t)r;
#else
    /* Scale so the fp32 adder rounds at the fp16 mantissa position (ties to even): the product by 2^112 then
     * 2^-110 saturates values past the fp16 range to infinity and leaves the others exact; adding a power of two
     * of the value's exponent (at least 2^-14's, the subnormal step) makes the sum's low bits the half's. */
    const float base = (acl_hr_float_(aw) * 0x1.0p+112f) * 0x1.0p-110f;
    uint32_t e = aw & 0x7f800000u;
    e = e < 0x38800000u ? 0x38800000u : e;
    const uint32_t bits = acl_hr_bits_(acl_hr_float_(e + 0x07800000u) + base); /* e + 15 << 23 (wraps for Inf/NaN) */
    const uint32_t fin = ((bits >> 13) & 0x7c00u) + (bits & 0x0fffu);
    return (uint16_t)(((w >> 16) & 0x8000u) | (fin & ~is_nan) | (nanh & is_nan));
#endif
}

/* bf16 -> fp32, = acl_bf16_to_f32 (a shift). */
static inline float acl_bf16_to_f32_bf(uint16_t b) { return acl_hr_float_((uint32_t)b << 16); }

/* fp32 -> bf16, = acl_f32_to_bf16. */
static inline uint16_t acl_f32_to_bf16_bf(float f) {
    const uint32_t x = acl_hr_bits_(f);
    const uint32_t is_nan = 0u - (uint32_t)((x & 0x7fffffffu) > 0x7f800000u);
    const uint32_t rne = x + 0x7fffu + ((x >> 16) & 1u);
    const uint32_t qnan = x | 0x00400000u;
    return (uint16_t)(((rne & ~is_nan) | (qnan & is_nan)) >> 16);
}

#if defined(__SSE2__) && !defined(ACL_HALF_ROWS_NATIVE_F16) && !defined(PYACLNN_NO_SSE2_ROWS)
/* x86-64 (SSE2 is its baseline): GCC widens u16 -> u32 and narrows back with long shuffle chains, so the row
 * loops are written with SSE2 intrinsics: the same operations as the element functions, 8 elements a step. */
#include <emmintrin.h>
#define ACL_HALF_ROWS_SSE2 1

/* 4 halves held in the upper 16 bits of each lane -> fp32 bits (as acl_f16_to_f32_bf) */
static inline __m128i acl_hr_f16x4_(__m128i v) {
    const __m128i sign = _mm_and_si128(v, _mm_set1_epi32((int)0x80000000u));
    const __m128i em13 = _mm_srli_epi32(_mm_and_si128(v, _mm_set1_epi32(0x7fff0000)), 3); /* em << 13 */
    const __m128 scaled = _mm_mul_ps(_mm_castsi128_ps(em13), _mm_set1_ps(0x1p112f));
    const __m128i special = _mm_and_si128(_mm_cmpgt_epi32(em13, _mm_set1_epi32(0x7bff << 13)),
                                          _mm_set1_epi32(0x7f800000));
    return _mm_or_si128(_mm_or_si128(_mm_castps_si128(scaled), special), sign);
}

/* 4 fp32 -> the halves, sign-extended to 32 bits (as acl_f32_to_f16_bf for non-NaN inputs); *nan collects a
 * mask of NaN lanes, whose blocks the caller redoes with the element function */
static inline __m128i acl_hr_f32x4_to_f16_(__m128i w, int *nan) {
    const __m128i aw = _mm_and_si128(w, _mm_set1_epi32(0x7fffffff));
    const __m128 base = _mm_mul_ps(_mm_mul_ps(_mm_castsi128_ps(aw), _mm_set1_ps(0x1p112f)), _mm_set1_ps(0x1p-110f));
    /* max(exponent, 2^-14's) as fp32 (both finite or +Inf, never NaN), then + 15 << 23 */
    const __m128 e = _mm_max_ps(_mm_castsi128_ps(_mm_and_si128(aw, _mm_set1_epi32(0x7f800000))), _mm_set1_ps(0x1p-14f));
    const __m128i bias = _mm_add_epi32(_mm_castps_si128(e), _mm_set1_epi32(0x07800000));
    const __m128i bits = _mm_castps_si128(_mm_add_ps(_mm_castsi128_ps(bias), base));
    const __m128i fin = _mm_add_epi32(_mm_and_si128(_mm_srli_epi32(bits, 13), _mm_set1_epi32(0x7c00)),
                                      _mm_and_si128(bits, _mm_set1_epi32(0x0fff)));
    *nan |= _mm_movemask_epi8(_mm_cmpgt_epi32(aw, _mm_set1_epi32(0x7f800000)));
    return _mm_or_si128(fin, _mm_and_si128(_mm_srai_epi32(w, 16), _mm_set1_epi32((int)0xffff8000u)));
}

/* 4 fp32 -> bf16, sign-extended to 32 bits (as acl_f32_to_bf16_bf): the rounding increment is dropped and the
 * quiet bit set on the NaN lanes (an unordered compare finds them in one operation) */
static inline __m128i acl_hr_f32x4_to_bf16_(__m128i x) {
    const __m128i is_nan = _mm_castps_si128(_mm_cmpunord_ps(_mm_castsi128_ps(x), _mm_castsi128_ps(x)));
    const __m128i odd = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(1));
    const __m128i inc = _mm_andnot_si128(is_nan, _mm_add_epi32(odd, _mm_set1_epi32(0x7fff)));
    const __m128i qnan = _mm_and_si128(is_nan, _mm_set1_epi32((int)0x00400000u));
    return _mm_srai_epi32(_mm_or_si128(_mm_add_epi32(x, inc), qnan), 16);
}

/* the last n % 8 elements of a row: one more 8-element step on a zero-padded copy (the same operations per
 * element, so the same bits as the element functions) */
#define ACL_HR_TAIL_(fn, ST, DT)                                                                                  \
    if (i < n) {                                                                                                  \
        ST t_[8] = {0};                                                                                           \
        DT o_[8];                                                                                                 \
        memcpy(t_, src + i, (size_t)(n - i) * sizeof(ST));                                                        \
        fn(o_, t_, 8);                                                                                            \
        memcpy(dst + i, o_, (size_t)(n - i) * sizeof(DT));                                                        \
    }
/* 8 halves -> 8 fp32 (as acl_f16_to_f32_bf) in two vectors, when none is Inf/NaN (else false and the caller uses
 * acl_hr_f16x4_): each 32-bit lane is built as sign | em << 13 from 16-bit lane operations on all 8 at once (the
 * upper word sign | em >> 3, the lower h << 13), then the product by 2^112 (exact; normalises subnormals, keeps
 * the sign) - 11 operations for 8 instead of 18. */
static inline int acl_hr_f16x8_(__m128i h, __m128 *lo, __m128 *hi) {
    const __m128i em = _mm_and_si128(h, _mm_set1_epi16(0x7fff));
    const int special = _mm_movemask_epi8(_mm_cmpgt_epi16(em, _mm_set1_epi16(0x7bff)));
    const __m128i top = _mm_or_si128(_mm_srli_epi16(em, 3), _mm_and_si128(h, _mm_set1_epi16((short)0x8000)));
    const __m128i bot = _mm_slli_epi16(h, 13);
    *lo = _mm_mul_ps(_mm_castsi128_ps(_mm_unpacklo_epi16(bot, top)), _mm_set1_ps(0x1p112f));
    *hi = _mm_mul_ps(_mm_castsi128_ps(_mm_unpackhi_epi16(bot, top)), _mm_set1_ps(0x1p112f));
    return !special;
}
static inline void acl_row_f16_to_f32(float *restrict dst, const uint16_t *restrict src, int64_t n) {
    const __m128i z = _mm_setzero_si128();
    const int64_t n8 = n > 0 ? n - n % 8 : 0;
    int64_t i = 0;
    for (; i < n8; i += 8) {
        const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        __m128 lo, hi;
        if (acl_hr_f16x8_(h, &lo, &hi)) {
            _mm_storeu_ps(dst + i, lo);
            _mm_storeu_ps(dst + i + 4, hi);
            continue;
        }
        _mm_storeu_si128((__m128i *)(void *)(dst + i), acl_hr_f16x4_(_mm_unpacklo_epi16(z, h)));
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 4), acl_hr_f16x4_(_mm_unpackhi_epi16(z, h)));
    }
    ACL_HR_TAIL_(acl_row_f16_to_f32, uint16_t, float);
}
/* 8 fp32 (two vectors of bits) -> the 8 halves, as acl_f32_to_f16_bf for non-NaN inputs; *nan collects a mask of
 * NaN lanes, whose blocks the caller redoes with the element function. The common case, 8 normal halves
 * (2^-14 <= |x| < 65280), takes 22 operations: the upper 16 bits of the 8 inputs packed into one vector (sign,
 * exponent, 7 mantissa bits) give the signs and a range test on all 8 at once (one biased signed compare; the top
 * binade [65280, 65520) is left to the exact path, whose overflow boundary lies inside it), and each magnitude is
 * rounded to nearest even at mantissa bit 13 (an odd kept bit adds one to the 0xfff bias) and rebiased, 6
 * integer operations a lane group. Otherwise acl_hr_f32x4_to_f16_ (every finite and infinite input). */
/* (the common case alone: *h set and true when all 8 are normal halves, else false and *h untouched) */
static inline int acl_hr_f32x8_to_f16_normal_(__m128i w0, __m128i w1, __m128i *h) {
    const __m128i top = _mm_packs_epi32(_mm_srai_epi32(w0, 16), _mm_srai_epi32(w1, 16));
    const __m128i a16 = _mm_and_si128(top, _mm_set1_epi16(0x7fff));
    /* bad: a16 - 0x3880 outside [0, 0x0efe] as unsigned 16 bits, i.e. a16 + 0x8000 - 0x3880 > 0x8efe signed */
    const __m128i bad = _mm_cmpgt_epi16(_mm_add_epi16(a16, _mm_set1_epi16(0x4780)), _mm_set1_epi16((short)0x8efe));
    if (!_mm_movemask_epi8(bad)) {
        const __m128i abs = _mm_set1_epi32(0x7fffffff), one = _mm_set1_epi32(1);
        const __m128i bias = _mm_set1_epi32((int)(0xfffu - (112u << 23)));
        const __m128i a0 = _mm_and_si128(w0, abs), a1 = _mm_and_si128(w1, abs);
        const __m128i m0 = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(a0, bias), _mm_and_si128(_mm_srli_epi32(a0, 13), one)), 13);
        const __m128i m1 = _mm_srli_epi32(_mm_add_epi32(_mm_add_epi32(a1, bias), _mm_and_si128(_mm_srli_epi32(a1, 13), one)), 13);
        *h = _mm_or_si128(_mm_packs_epi32(m0, m1), _mm_and_si128(top, _mm_set1_epi16((short)0x8000)));
        return 1;
    }
    return 0;
}
static inline __m128i acl_hr_f32x8_to_f16_(__m128i w0, __m128i w1, int *nan) {
    __m128i h;
    if (acl_hr_f32x8_to_f16_normal_(w0, w1, &h)) return h;
    const __m128i a = acl_hr_f32x4_to_f16_(w0, nan), b = acl_hr_f32x4_to_f16_(w1, nan);
    return _mm_packs_epi32(a, b);
}
static inline void acl_row_f32_to_f16(uint16_t *restrict dst, const float *restrict src, int64_t n) {
    const int64_t n8 = n > 0 ? n - n % 8 : 0;
    int64_t i = 0;
    for (; i < n8; i += 8) {
        int nan = 0;
        const __m128i h = acl_hr_f32x8_to_f16_(_mm_loadu_si128((const __m128i *)(const void *)(src + i)),
                                               _mm_loadu_si128((const __m128i *)(const void *)(src + i + 4)), &nan);
        if (nan) {
            for (int64_t k = i; k < i + 8; k++) dst[k] = acl_f32_to_f16_bf(src[k]);
        } else {
            _mm_storeu_si128((__m128i *)(void *)(dst + i), h);
        }
    }
    ACL_HR_TAIL_(acl_row_f32_to_f16, float, uint16_t);
}
static inline void acl_row_bf16_to_f32(float *restrict dst, const uint16_t *restrict src, int64_t n) {
    const __m128i z = _mm_setzero_si128();
    const int64_t n8 = n > 0 ? n - n % 8 : 0;
    int64_t i = 0;
    for (; i < n8; i += 8) {
        const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(src + i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_unpacklo_epi16(z, h));
        _mm_storeu_si128((__m128i *)(void *)(dst + i + 4), _mm_unpackhi_epi16(z, h));
    }
    ACL_HR_TAIL_(acl_row_bf16_to_f32, uint16_t, float);
}
/* 4 fp32 without NaN -> bf16 sign-extended (round to nearest even on the bits: 5 operations) */
static inline __m128i acl_hr_f32x4_to_bf16_rne_(__m128i x) {
    const __m128i odd = _mm_and_si128(_mm_srli_epi32(x, 16), _mm_set1_epi32(1));
    return _mm_srai_epi32(_mm_add_epi32(_mm_add_epi32(x, _mm_set1_epi32(0x7fff)), odd), 16);
}
static inline void acl_row_f32_to_bf16(uint16_t *restrict dst, const float *restrict src, int64_t n) {
    const int64_t n8 = n > 0 ? n - n % 8 : 0;
    int64_t i = 0;
    for (; i < n8; i += 8) {
        const __m128 v0 = _mm_loadu_ps(src + i), v1 = _mm_loadu_ps(src + i + 4);
        __m128i a, b;
        if (!_mm_movemask_ps(_mm_or_ps(_mm_cmpunord_ps(v0, v0), _mm_cmpunord_ps(v1, v1)))) { /* no NaN: */
            a = acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v0));
            b = acl_hr_f32x4_to_bf16_rne_(_mm_castps_si128(v1));
        } else {
            a = acl_hr_f32x4_to_bf16_(_mm_castps_si128(v0));
            b = acl_hr_f32x4_to_bf16_(_mm_castps_si128(v1));
        }
        _mm_storeu_si128((__m128i *)(void *)(dst + i), _mm_packs_epi32(a, b));
    }
    ACL_HR_TAIL_(acl_row_f32_to_bf16, float, uint16_t);
}
#else
/* Elsewhere (aarch64: NEON), plain loops over the element functions, which GCC vectorises at -O3 - except the
 * narrowing (_Float16)float, which GCC 12 does not vectorise: on aarch64 that row is fcvtn by intrinsics. */
static inline void acl_row_f16_to_f32(float *restrict dst, const uint16_t *restrict src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_f16_to_f32_bf(src[i]);
}
#if defined(ACL_HALF_ROWS_NATIVE_F16) && defined(__ARM_NEON)
#include <arm_neon.h>
static inline void acl_row_f32_to_f16(uint16_t *restrict dst, const float *restrict src, int64_t n) {
    const int64_t n8 = n > 0 ? n - n % 8 : 0;
    int64_t i = 0;
    for (; i < n8; i += 8) {
        const float32x4_t a = vld1q_f32(src + i), b = vld1q_f32(src + i + 4);
        const uint32x4_t inf = vdupq_n_u32(0x7f800000u), abs = vdupq_n_u32(0x7fffffffu);
        const uint32x4_t nan = vorrq_u32(vcgtq_u32(vandq_u32(vreinterpretq_u32_f32(a), abs), inf),
                                         vcgtq_u32(vandq_u32(vreinterpretq_u32_f32(b), abs), inf));
        if (vmaxvq_u32(nan)) { /* a NaN: its payload rule, element by element */
            for (int64_t k = i; k < i + 8; k++) dst[k] = acl_f32_to_f16_bf(src[k]);
            continue;
        }
        /* fcvtn rounds to nearest even (the default FPCR mode), overflows to Inf, rounds subnormals exactly */
        vst1q_u16(dst + i, vreinterpretq_u16_f16(vcvt_high_f16_f32(vcvt_f16_f32(a), b)));
    }
    for (; i < n; i++) dst[i] = acl_f32_to_f16_bf(src[i]);
}
#else
static inline void acl_row_f32_to_f16(uint16_t *restrict dst, const float *restrict src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_f32_to_f16_bf(src[i]);
}
#endif
static inline void acl_row_bf16_to_f32(float *restrict dst, const uint16_t *restrict src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_bf16_to_f32_bf(src[i]);
}
static inline void acl_row_f32_to_bf16(uint16_t *restrict dst, const float *restrict src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_f32_to_bf16_bf(src[i]);
}
#endif

#endif
