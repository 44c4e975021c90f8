/* Per-level variants of a plain-C kernel function, chosen at each call from acl_simd_level() (common/cpu.h), so
 * PYACLNN_SIMD caps them like every hand-vectorised kernel. (GCC's target_clones picked its clone once at load
 * time from the CPU alone, so PYACLNN_SIMD=off still ran the AVX2 clone and the level tests never saw the
 * portable one.)
 *
 *   ACL_LEVEL_FN(attrs, name, (params), (args)) { body }
 *
 * defines `static void name(params)`: the body is compiled twice, once for the baseline target and once with
 * target("avx2") (no FMA: the same IEEE operations in the same order, so both give the same bytes; -ffp-contract
 * is off everywhere), and `name` calls the AVX2 one when the level is at least ACL_SIMD_AVX2. `attrs`: extra
 * attributes of every copy (e.g. optimize(...)), may be empty. `name` may be a macro call (S(fn)). Off x86-64
 * (or with clang) it is just the function. */
#ifndef PYACLNN_COMMON_LEVEL_FN_H
#define PYACLNN_COMMON_LEVEL_FN_H

#include "common/cpu.h"

#define ACL_LV_CAT_(a, b) a##b
#define ACL_LV_CAT(a, b) ACL_LV_CAT_(a, b)

/* Not in sanitizer builds (-O1): there GCC may order the operands of a commutative add differently in the two
 * copies, so which NaN payload survives a NaN + NaN differed between them (found by test_portable_rows under
 * `make asan`); the target_clones this replaces were off there too. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_ADDRESS__)
#define ACL_LEVEL_FN_X86 1
#define ACL_LEVEL_FN(attrs, name, params, args)                                                                  \
    attrs __attribute__((always_inline)) static inline void ACL_LV_CAT(name, _lv_body) params;                   \
    attrs __attribute__((noinline, target("avx2"))) static void ACL_LV_CAT(name, _lv_avx2) params {              \
        ACL_LV_CAT(name, _lv_body) args;                                                                         \
    }                                                                                                            \
    attrs __attribute__((noinline)) static void ACL_LV_CAT(name, _lv_base) params { ACL_LV_CAT(name, _lv_body) args; } \
    static inline void name params {                                                                             \
        if (acl_simd_level() >= ACL_SIMD_AVX2)                                                                   \
            ACL_LV_CAT(name, _lv_avx2) args;                                                                     \
        else                                                                                                     \
            ACL_LV_CAT(name, _lv_base) args;                                                                     \
    }                                                                                                            \
    attrs __attribute__((always_inline)) static inline void ACL_LV_CAT(name, _lv_body) params
#else
#define ACL_LEVEL_FN(attrs, name, params, args) attrs static void name params
#endif

#endif
