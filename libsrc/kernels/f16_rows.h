/* A branch-free fp32 -> fp16 conversion for contiguous rows, so the compiler can vectorise it. Bit-identical to
 * acl_f32_to_f16 (common/dtype.h) for every fp32 bit pattern, NaN payloads included: checked exhaustively over
 * all 2^32 inputs when it was written (a 13 s loop comparing the two). Candidate for common/dtype.h. */
#ifndef PYACLNN_KERNELS_F16_ROWS_H
#define PYACLNN_KERNELS_F16_ROWS_H

#include <stdint.h>
#include <string.h>

#include "common/cpu.h"
#include "common/half_rows.h"
#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define ACL_F16_ROWS_F16C 1
#endif

static inline uint16_t acl_f32_to_f16_nb(float f) {
    uint32_t w;
    memcpy(&w, &f, 4);
    const int32_t aw = (int32_t)(w & 0x7fffffffu);
    /* Scale so the fp32 adder rounds at the fp16 mantissa position (to nearest even): multiplying by 2^112 and
     * then 2^-110 saturates out-of-range values to infinity and leaves in-range values exact. */
    float af;
    memcpy(&af, &aw, 4);
    float base = (af * 0x1.0p+112f) * 0x1.0p-110f;
    int32_t half_bias = aw & 0x7f800000; /* the exponent field */
    half_bias += (0x38800000 - half_bias) & -(int32_t)(half_bias < 0x38800000); /* max(., 0x38800000) */
    const uint32_t bb = (uint32_t)half_bias + 0x07800000u; /* wraps for Inf/NaN inputs: unsigned, not UB */
    float bf;
    memcpy(&bf, &bb, 4);
    base = bf + base;
    int32_t bits;
    memcpy(&bits, &base, 4);
    const int32_t nonsign = ((bits >> 13) & 0x7c00) + (bits & 0x0fff);
    const int32_t payload = (aw & 0x007fffff) >> 13;
    const int32_t nan = 0x7c00 + payload + (int32_t)(payload == 0);
    const int32_t r = nonsign ^ ((nonsign ^ nan) & -(int32_t)(aw > 0x7f800000)); /* NaN ? nan : nonsign */
    return (uint16_t)((int32_t)((w >> 16) & 0x8000u) | r);
}

static inline void acl_f32_to_f16_row(uint16_t *dst, const float *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_f32_to_f16_nb(src[i]);
}

#ifdef ACL_F16_ROWS_F16C
/* The same conversion with the F16C instruction (IEEE round to nearest even, which is what acl_f32_to_f16 does
 * for every non-NaN input); a block holding a NaN is redone by acl_f32_to_f16_nb to keep its payload rule. */
/* (A row's last n % 8 elements go through an 8-lane block too, zero-padded: the same conversion per element.) */
__attribute__((target("avx2,f16c"))) static inline void acl_f32_to_f16_block_f16c_(uint16_t *dst, const float *src) {
    const __m256 v = _mm256_loadu_ps(src);
    const __m256i a = _mm256_and_si256(_mm256_castps_si256(v), _mm256_set1_epi32(0x7fffffff));
    const __m256i nan = _mm256_cmpgt_epi32(a, _mm256_set1_epi32(0x7f800000));
    if (!_mm256_testz_si256(nan, nan)) {
        for (int j = 0; j < 8; j++) dst[j] = acl_f32_to_f16_nb(src[j]);
        return;
    }
    _mm_storeu_si128((__m128i *)(void *)dst, _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
}
__attribute__((target("avx2,f16c"))) static inline void acl_f32_to_f16_row_f16c(uint16_t *dst, const float *src,
                                                                                  int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) acl_f32_to_f16_block_f16c_(dst + i, src + i);
    if (i < n) {
        float t[8] = {0};
        uint16_t o[8];
        memcpy(t, src + i, (size_t)(n - i) * sizeof *t);
        acl_f32_to_f16_block_f16c_(o, t);
        memcpy(dst + i, o, (size_t)(n - i) * sizeof *o);
    }
}

/* fp16 -> fp32 rows with F16C (exact for every non-NaN input); a block holding a NaN is converted by
 * acl_f16_to_f32_bf (common/half_rows.h), which keeps signalling NaNs' bits as acl_f16_to_f32 does (F16C would
 * quieten them), so the result is bit-identical to the scalar conversion. */
__attribute__((target("avx2,f16c"))) static inline void acl_f16_to_f32_block_f16c_(float *dst, const uint16_t *src) {
    const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)src);
    const __m128i nan = _mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7c00));
    if (!_mm_testz_si128(nan, nan)) {
        for (int j = 0; j < 8; j++) dst[j] = acl_f16_to_f32_bf(src[j]);
        return;
    }
    _mm256_storeu_ps(dst, _mm256_cvtph_ps(h));
}
__attribute__((target("avx2,f16c"))) static inline void acl_f16_to_f32_row_f16c(float *dst, const uint16_t *src,
                                                                                  int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8) acl_f16_to_f32_block_f16c_(dst + i, src + i);
    if (i < n) {
        uint16_t t[8] = {0};
        float o[8];
        memcpy(t, src + i, (size_t)(n - i) * sizeof *t);
        acl_f16_to_f32_block_f16c_(o, t);
        memcpy(dst + i, o, (size_t)(n - i) * sizeof *o);
    }
}

/* The same rows 16 lanes a step with AVX-512 (F + BW for the masks; caller checks ACL_SIMD_AVX512): blocks holding
 * a NaN go through the 8-lane functions above, so every result bit is theirs. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static inline void
acl_f32_to_f16_row_avx512(uint16_t *dst, const float *src, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(src + i);
        if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) {
            acl_f32_to_f16_block_f16c_(dst + i, src + i);
            acl_f32_to_f16_block_f16c_(dst + i + 8, src + i + 8);
            continue;
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
    if (i < n) { /* the last n % 16 under a mask (short rows: no zero-padded copy); a NaN: the 8-lane path */
        const __mmask16 k = (__mmask16)((1u << (n - i)) - 1);
        const __m512 v = _mm512_maskz_loadu_ps(k, src + i);
        if (_mm512_cmp_ps_mask(v, v, _CMP_UNORD_Q)) {
            acl_f32_to_f16_row_f16c(dst + i, src + i, n - i);
            return;
        }
        _mm256_mask_storeu_epi16(dst + i, k, _mm512_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
    }
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx2,f16c"))) static inline void
acl_f16_to_f32_row_avx512(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(src + i));
        const __m256i a = _mm256_and_si256(h, _mm256_set1_epi16(0x7fff));
        if (_mm256_cmpgt_epi16_mask(a, _mm256_set1_epi16(0x7c00))) {
            acl_f16_to_f32_block_f16c_(dst + i, src + i);
            acl_f16_to_f32_block_f16c_(dst + i + 8, src + i + 8);
            continue;
        }
        _mm512_storeu_ps(dst + i, _mm512_cvtph_ps(h));
    }
    if (i < n) acl_f16_to_f32_row_f16c(dst + i, src + i, n - i);
}

/* fp32 -> bf16 rows (= acl_f32_to_bf16 for every input: round to nearest even on the integer bits, a NaN
 * quietened with its sign and top payload kept), the same integer operations 8 lanes a step with AVX2 and 16 with
 * AVX-512 (F + BW; caller checks ACL_SIMD_AVX512), the last n % 8 by the branch-free element function. GCC's own
 * AVX2 loop over the scalar conversion costs about 2 instructions an element (a blend and two permutes per
 * 16); AVX-512 narrows with one vpmovdw and merges the NaN lanes under a mask. (The AVX512_BF16 instruction
 * flushes subnormal inputs to zero, so it is not used.) */
__attribute__((target("avx2"))) static inline __m256i acl_bf16x8_avx2_(__m256 v) {
    const __m256i x = _mm256_castps_si256(v);
    const __m256i nan = _mm256_castps_si256(_mm256_cmp_ps(v, v, _CMP_UNORD_Q));
    const __m256i odd = _mm256_and_si256(_mm256_srli_epi32(x, 16), _mm256_set1_epi32(1));
    const __m256i inc = _mm256_andnot_si256(nan, _mm256_add_epi32(odd, _mm256_set1_epi32(0x7fff)));
    const __m256i q = _mm256_and_si256(nan, _mm256_set1_epi32((int)0x00400000u));
    return _mm256_srli_epi32(_mm256_or_si256(_mm256_add_epi32(x, inc), q), 16);
}
__attribute__((target("avx2"))) static inline void acl_f32_to_bf16_row_avx2(uint16_t *dst, const float *src,
                                                                             int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m256i p = _mm256_packus_epi32(acl_bf16x8_avx2_(_mm256_loadu_ps(src + i)),
                                              acl_bf16x8_avx2_(_mm256_loadu_ps(src + i + 8)));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm256_permute4x64_epi64(p, 0xd8));
    }
    if (i + 8 <= n) {
        const __m256i r = acl_bf16x8_avx2_(_mm256_loadu_ps(src + i));
        _mm_storeu_si128((__m128i *)(void *)(dst + i),
                         _mm_packus_epi32(_mm256_castsi256_si128(r), _mm256_extracti128_si256(r, 1)));
        i += 8;
    }
    for (; i < n; i++) dst[i] = acl_f32_to_bf16_bf(src[i]);
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) static inline __m512i acl_bf16x16_avx512_(__m512i x) {
    const __mmask16 nan = _mm512_cmpgt_epi32_mask(_mm512_and_si512(x, _mm512_set1_epi32(0x7fffffff)),
                                                  _mm512_set1_epi32(0x7f800000));
    const __m512i odd = _mm512_and_si512(_mm512_srli_epi32(x, 16), _mm512_set1_epi32(1));
    const __m512i rne = _mm512_add_epi32(_mm512_add_epi32(x, _mm512_set1_epi32(0x7fff)), odd);
    return _mm512_mask_or_epi32(rne, nan, x, _mm512_set1_epi32((int)0x00400000u)); /* bf16 in the upper halves */
}
__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) static inline void
acl_f32_to_bf16_row_avx512(uint16_t *dst, const float *src, int64_t n) {
    /* the upper 16-bit halves of two vectors gathered into one (a full 64-byte store) */
    const __m512i odd_words = _mm512_set_epi16(63, 61, 59, 57, 55, 53, 51, 49, 47, 45, 43, 41, 39, 37, 35, 33, 31, 29,
                                               27, 25, 23, 21, 19, 17, 15, 13, 11, 9, 7, 5, 3, 1);
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        const __m512i a = acl_bf16x16_avx512_(_mm512_loadu_si512((const void *)(src + i)));
        const __m512i b = acl_bf16x16_avx512_(_mm512_loadu_si512((const void *)(src + i + 16)));
        _mm512_storeu_si512((void *)(dst + i), _mm512_permutex2var_epi16(a, odd_words, b));
    }
    if (i + 16 <= n) {
        const __m512i a = acl_bf16x16_avx512_(_mm512_loadu_si512((const void *)(src + i)));
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), _mm512_cvtepi32_epi16(_mm512_srli_epi32(a, 16)));
        i += 16;
    }
    if (i < n) acl_f32_to_bf16_row_avx2(dst + i, src + i, n - i);
}
/* With AVX512_BF16 (caller checks the CPU): vcvtneps2bf16 rounds to nearest even and quietens NaNs exactly as
 * acl_f32_to_bf16 does, but flushes subnormal inputs to zero: a 16-block holding one goes through the AVX2 row. */
__attribute__((target("avx512f,avx512bw,avx512vl,avx512bf16,avx2"))) static inline void
acl_f32_to_bf16_row_avx512bf16(uint16_t *dst, const float *src, int64_t n) {
    const __m512i abs = _mm512_set1_epi32(0x7fffffff), one = _mm512_set1_epi32(1), sub = _mm512_set1_epi32(0x007fffff);
    int64_t i = 0;
    for (; i + 16 <= n; i += 16) {
        const __m512 v = _mm512_loadu_ps(src + i);
        const __m512i a = _mm512_and_si512(_mm512_castps_si512(v), abs);
        if (_mm512_cmplt_epu32_mask(_mm512_sub_epi32(a, one), sub)) { /* |x| in [1, 0x7fffff]: a subnormal */
            acl_f32_to_bf16_row_avx2(dst + i, src + i, 16);
            continue;
        }
        _mm256_storeu_si256((__m256i *)(void *)(dst + i), (__m256i)_mm512_cvtneps_pbh(v));
    }
    if (i < n) acl_f32_to_bf16_row_avx2(dst + i, src + i, n - i);
}
/* bf16 -> fp32 rows (a shift), 16 lanes a step */
__attribute__((target("avx512f,avx512bw,avx512vl,avx2"))) static inline void
acl_bf16_to_f32_row_avx512(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 16 <= n; i += 16)
        _mm512_storeu_si512((void *)(dst + i),
                            _mm512_slli_epi32(_mm512_cvtepu16_epi32(_mm256_loadu_si256((const __m256i *)(const void *)(src + i))), 16));
    for (; i < n; i++) dst[i] = acl_bf16_to_f32_bf(src[i]);
}
#endif

/* ---- rows through the fastest converter the run's SIMD level allows (PYACLNN_SIMD caps it; every converter
 * gives the same bits, so the level changes speed only) ---- */
static inline void acl_row_f32_to_f16_lv(uint16_t *dst, const float *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) { acl_f32_to_f16_row_avx512(dst, src, n); return; }
    if (lv >= ACL_SIMD_AVX2) { acl_f32_to_f16_row_f16c(dst, src, n); return; }
#endif
    acl_row_f32_to_f16(dst, src, n);
}
static inline void acl_row_f16_to_f32_lv(float *dst, const uint16_t *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) { acl_f16_to_f32_row_avx512(dst, src, n); return; }
    if (lv >= ACL_SIMD_AVX2) { acl_f16_to_f32_row_f16c(dst, src, n); return; }
#endif
    acl_row_f16_to_f32(dst, src, n);
}
static inline void acl_row_f32_to_bf16_lv(uint16_t *dst, const float *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) {
        /* vcvtneps2bf16 where the CPU has it */
        if (__builtin_cpu_supports("avx512bf16")) acl_f32_to_bf16_row_avx512bf16(dst, src, n);
        else acl_f32_to_bf16_row_avx512(dst, src, n);
        return;
    }
    if (lv >= ACL_SIMD_AVX2) { acl_f32_to_bf16_row_avx2(dst, src, n); return; }
#endif
    acl_row_f32_to_bf16(dst, src, n);
}
static inline void acl_row_bf16_to_f32_lv(float *dst, const uint16_t *src, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (acl_simd_level() >= ACL_SIMD_AVX512) { acl_bf16_to_f32_row_avx512(dst, src, n); return; }
#endif
    acl_row_bf16_to_f32(dst, src, n);
}

#endif
