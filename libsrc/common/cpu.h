/* The instruction-set level of the hand-vectorised kernel variants (MSDA owner loops, upsample rows, grid sampler
 * lane transposes and F16C conversions). Every variant performs the same IEEE operations in the same order, so the
 * level changes speed, never bytes; PYACLNN_SIMD=off|avx2|avx512 caps it (tests compare the variants). */
#ifndef PYACLNN_COMMON_CPU_H
#define PYACLNN_COMMON_CPU_H

enum {
    ACL_SIMD_PORTABLE = 0, /* plain C */
    ACL_SIMD_AVX2 = 1,     /* AVX2 + F16C */
    ACL_SIMD_AVX512 = 2,   /* AVX2 + F16C + AVX-512 F/BW/VL/DQ */
};

/* The best level this CPU supports, capped by PYACLNN_SIMD; evaluated once. Always ACL_SIMD_PORTABLE off x86-64. */
int acl_simd_level(void);

#endif
