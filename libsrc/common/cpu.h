/* The instruction-set level of the hand-vectorised kernel variants (MSDA owner loops, upsample rows, grid sampler
 * lane transposes and F16C conversions). Every variant performs the same IEEE operations in the same order, so the
 * level changes speed, never bytes; PYACLNN_SIMD=off|avx2|avx512 caps it (tests compare the variants). */
#ifndef PYACLNN_COMMON_CPU_H
#define PYACLNN_COMMON_CPU_H

#include <stdint.h>

enum {
    ACL_SIMD_PORTABLE = 0, /* plain C */
    ACL_SIMD_AVX2 = 1,     /* AVX2 + F16C */
    ACL_SIMD_AVX512 = 2,   /* AVX2 + F16C + AVX-512 F/BW/VL/DQ */
};

/* The best level this CPU supports, capped by PYACLNN_SIMD; evaluated once. Always ACL_SIMD_PORTABLE off x86-64. */
int acl_simd_level(void);
const char *acl_simd_level_name(int level);

/* Kernel families whose AVX-512 variant differs from their AVX2 one in how it moves memory (window loads and
 * permutes instead of the plain loops). Which of the two is faster depends on the CPU generation (masked loads
 * and the prefetchers differ between them), so the level of such a family
 * is measured once per process: the first call of the family that moves at least ACL_SIMD_CALIBRATE_BYTES and
 * whose output does not overlap its inputs runs once at each candidate level (every level gives the same bytes,
 * so the extra runs only cost time) and the fastest level is kept. Until then, and with
 * PYACLNN_SIMD_CALIBRATE=off, a family runs at acl_simd_level(). PYACLNN_SIMD_REPORT=1 prints each decision to
 * stderr (`python -m pyaclnn info` shows them). */
typedef enum {
    ACL_SIMD_FAM_UPSAMPLE_NEAREST_BWD,
    ACL_SIMD_FAM_UPSAMPLE_NEAREST_FWD,
    ACL_SIMD_FAM_COUNT
} acl_simd_family;

#define ACL_SIMD_CALIBRATE_BYTES ((int64_t)4 << 20)

/* Runs fn(ctx, level) once at the family's level, or, when this call calibrates the family, once per candidate
 * level (the last run at the level kept). `bytes`: what the call reads and writes; `rerun_safe`: the output does
 * not overlap an input, so running the call again gives the same bytes. */
typedef void (*acl_simd_run_fn)(void *ctx, int level);
void acl_simd_run(acl_simd_family fam, int64_t bytes, int rerun_safe, acl_simd_run_fn fn, void *ctx);

/* Whether the byte ranges [a, a + na) and [b, b + nb) share a byte. */
int acl_ranges_overlap(const void *a, int64_t na, const void *b, int64_t nb);

#endif
