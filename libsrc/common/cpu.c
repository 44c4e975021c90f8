#define _POSIX_C_SOURCE 199309L
#include "common/cpu.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

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

static int env_on(const char *name);

/* The families with one variant per level, each at the highest level it has a variant for (min with the CPU's;
 * grid_sampler, avg_pool2d, conv and upsample_linear: plain C compiled once per level, common/level_fn.h):
 * there the highest is the fastest in every bench row on the CPUs measured (see bench/run.py --simd-levels). */
static const struct {
    const char *name;
    int top;
} g_rule_fams[] = {{"msda", ACL_SIMD_AVX512},        {"gemm", ACL_SIMD_AVX512},  {"grid_sampler", ACL_SIMD_AVX2},
                   {"avg_pool2d", ACL_SIMD_AVX2}, {"f16_casts", ACL_SIMD_AVX2}, {"conv", ACL_SIMD_AVX2},
                   {"upsample_linear", ACL_SIMD_AVX2}};

static void report_level(int l) {
    fprintf(stderr, "pyaclnn simd: level %s (%s)\n", acl_simd_level_name(l),
            getenv("PYACLNN_SIMD") ? "capped by PYACLNN_SIMD" : "the best this CPU supports");
    for (size_t i = 0; i < sizeof g_rule_fams / sizeof g_rule_fams[0]; i++)
        fprintf(stderr, "pyaclnn simd: %s -> %s (rule)\n", g_rule_fams[i].name,
                acl_simd_level_name(l < g_rule_fams[i].top ? l : g_rule_fams[i].top));
}

int acl_simd_level(void) {
    int l = __atomic_load_n(&g_level, __ATOMIC_RELAXED);
    if (l < 0) {
        l = detect(); /* idempotent: racing threads compute the same value */
        int expected = -1;
        if (__atomic_compare_exchange_n(&g_level, &expected, l, 0, __ATOMIC_RELAXED, __ATOMIC_RELAXED) &&
            env_on("PYACLNN_SIMD_REPORT"))
            report_level(l);
    }
    return l;
}

const char *acl_simd_level_name(int level) {
    return level == ACL_SIMD_AVX512 ? "avx512" : level == ACL_SIMD_AVX2 ? "avx2" : "portable";
}

/* ---- per-family calibration ---- */

static const char *const g_fam_name[ACL_SIMD_FAM_COUNT] = {
    "upsample_nearest_bwd", "upsample_nearest_fwd"};
static int g_fam_level[ACL_SIMD_FAM_COUNT] = {-1, -1}; /* decided level, -1 while undecided */
static pthread_mutex_t g_fam_lock = PTHREAD_MUTEX_INITIALIZER;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static int env_off(const char *name) {
    const char *v = getenv(name);
    return v && (strcmp(v, "off") == 0 || strcmp(v, "0") == 0);
}

static int env_on(const char *name) {
    const char *v = getenv(name);
    return v && *v && strcmp(v, "off") != 0 && strcmp(v, "0") != 0;
}

void acl_simd_run(acl_simd_family fam, int64_t bytes, int rerun_safe, acl_simd_run_fn fn, void *ctx) {
    const int top = acl_simd_level();
    int l = __atomic_load_n(&g_fam_level[fam], __ATOMIC_ACQUIRE);
    if (l >= 0 || top < ACL_SIMD_AVX512) { /* decided, or a single candidate (the AVX2 variant is the lower one) */
        if (l < 0) {
            int expected = -1;
            if (__atomic_compare_exchange_n(&g_fam_level[fam], &expected, top, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE) && env_on("PYACLNN_SIMD_REPORT"))
                fprintf(stderr, "pyaclnn simd: %s -> %s (the only candidate)\n", g_fam_name[fam],
                        acl_simd_level_name(top));
        }
        fn(ctx, l >= 0 ? l : top);
        return;
    }
    if (!rerun_safe || bytes < ACL_SIMD_CALIBRATE_BYTES || env_off("PYACLNN_SIMD_CALIBRATE") ||
        pthread_mutex_trylock(&g_fam_lock) != 0) { /* another thread is calibrating: run at the rule's level */
        fn(ctx, top);
        return;
    }
    if (__atomic_load_n(&g_fam_level[fam], __ATOMIC_ACQUIRE) >= 0) { /* decided while we waited for the lock */
        pthread_mutex_unlock(&g_fam_lock);
        fn(ctx, g_fam_level[fam]);
        return;
    }
    /* Candidates: the top level and the one below it (never the portable one on a CPU with AVX2: it is slower in
     * every bench row). Three rounds, each timing one run of both (every run writes the same bytes); the lower
     * level is kept only when it is at least 3% faster in every round, so a busy machine, which makes single
     * timings noisy, leaves the top level in place rather than picking at random. */
    const int cand[2] = {ACL_SIMD_AVX512, ACL_SIMD_AVX2};
    double best[2] = {1e30, 1e30};
    int lower_wins = 1;
    for (int round = 0; round < 3; round++) {
        double t[2];
        for (int c = 0; c < 2; c++) {
            const double t0 = now_s();
            fn(ctx, cand[c]);
            t[c] = now_s() - t0;
            if (t[c] < best[c]) best[c] = t[c];
        }
        if (!(t[1] < 0.97 * t[0])) lower_wins = 0;
    }
    const int win = lower_wins ? 1 : 0;
    __atomic_store_n(&g_fam_level[fam], cand[win], __ATOMIC_RELEASE);
    pthread_mutex_unlock(&g_fam_lock);
    if (env_on("PYACLNN_SIMD_REPORT"))
        fprintf(stderr, "pyaclnn simd: %s -> %s (calibrated on a %.1f MiB call: avx512 %.3f ms, avx2 %.3f ms)\n",
                g_fam_name[fam], acl_simd_level_name(cand[win]), (double)bytes / (1 << 20), best[0] * 1e3,
                best[1] * 1e3);
}

int acl_ranges_overlap(const void *a, int64_t na, const void *b, int64_t nb) {
    const uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na > 0 && nb > 0 && x < y + (uintptr_t)nb && y < x + (uintptr_t)na;
}
