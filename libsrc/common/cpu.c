#include "common/cpu.h"

#include <stdlib.h>
#include <string.h>

static int g_level = -1;

static int detect(void) {
    int level = ACL_SIMD_PORTABLE;
#if defined(__x86_64__) && defined(__GNUC__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c")) level = ACL_SIMD_AVX2;
    if (level == ACL_SIMD_AVX2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq"))
        level = ACL_SIMD_AVX512;
#endif
    const char *cap = getenv("PYACLNN_SIMD");
    if (cap && (strcmp(cap, "off") == 0 || strcmp(cap, "portable") == 0)) level = ACL_SIMD_PORTABLE;
    if (cap && strcmp(cap, "avx2") == 0 && level > ACL_SIMD_AVX2) level = ACL_SIMD_AVX2;
    return level;
}

int acl_simd_level(void) {
    int l = __atomic_load_n(&g_level, __ATOMIC_RELAXED);
    if (l < 0) {
        l = detect(); /* idempotent: racing threads compute the same value */
        __atomic_store_n(&g_level, l, __ATOMIC_RELAXED);
    }
    return l;
}
