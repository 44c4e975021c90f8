/* OpenMP conventions: static schedules over an owning index only, so results never depend on the team size. */
#ifndef PYACLNN_COMMON_PARALLEL_H
#define PYACLNN_COMMON_PARALLEL_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

/* Minimum number of scalar operations worth a parallel region. */
#define ACL_PARALLEL_GRAIN 32768

static inline int acl_max_threads(void) {
#ifdef _OPENMP
    return omp_get_max_threads();
#else
    return 1;
#endif
}

/* Inside an active team (a kernel running per unit of an outer region) no kernel forks again: with nesting enabled
 * (importing PyTorch raises max-active-levels) an inner region would oversubscribe the cores. */
static inline int acl_in_team(void) {
#ifdef _OPENMP
    return omp_in_parallel();
#else
    return 0;
#endif
}

/* True when `work` (roughly, element operations) justifies forking threads. */
static inline int acl_parallel_worth(int64_t work) {
    return work >= ACL_PARALLEL_GRAIN && acl_max_threads() > 1 && !acl_in_team();
}

/* Per-family grains. A family whose cost per element is far from the default's counts its work in its own unit
 * (said per entry: what its call sites pass to acl_parallel_worth_in) and runs on the calling thread below its
 * grain. Each grain is the work of about ACL_FORK_BUDGET_US of serial time, from single-thread timings of the
 * family (bench/crossover.py prints serial and parallel times over a size sweep): below that, a fork can cost as
 * much as it saves - an OpenMP fork/join is ~0.5 us when the team is still spinning, but ~30 us when its threads
 * have gone to sleep (back-to-back calls after a pause) and milliseconds when the other cores are busy. */
#define ACL_FORK_BUDGET_US 64
enum {
    ACL_FAM_DEFAULT,    /* element operations (ACL_PARALLEL_GRAIN) */
    ACL_FAM_GRID2D_FWD, /* grid_sampler 2-D forward: output points * (32 + C); ~0.1 ns each (3.1 ns a point + 0.1 a
                         * channel, planar path, bilinear) */
    ACL_FAM_GRID2D_BWD, /* grid_sampler 2-D backward: output points * (3 + C); ~1.8 ns each (5.3 ns a point + 1.8 a
                         * channel) */
    ACL_FAM_COUNT
};
static const int64_t acl_family_grain[ACL_FAM_COUNT] = {
    [ACL_FAM_DEFAULT] = ACL_PARALLEL_GRAIN,
    [ACL_FAM_GRID2D_FWD] = ACL_FORK_BUDGET_US * 10000, /* 0.1 ns a unit */
    [ACL_FAM_GRID2D_BWD] = ACL_FORK_BUDGET_US * 1000 * 10 / 18, /* 1.8 ns a unit */
};

/* acl_parallel_worth for a family of the table above, `work` in the family's unit. */
static inline int acl_parallel_worth_in(int family, int64_t work) {
    return work >= acl_family_grain[family] && acl_max_threads() > 1 && !acl_in_team();
}

/* for (int64_t I = LO; I < HI; I++) { BODY }: over a static OpenMP schedule when PAR, else on the calling thread with
 * no OpenMP region at all - a region whose `if` clause is false still builds a team of one, which cost 0.25-0.66 us
 * a call on the 2-core VM (Softmax (2, 8): 1.22 -> 0.56 us without it). The iterations are independent, so the
 * bytes do not depend on PAR. BODY may use omp_get_thread_num() (0 on the serial path). */
#define ACL_FOR(PAR, I, LO, HI, ...)                                                                            \
    do {                                                                                                        \
        const int64_t acl_for_lo_ = (LO), acl_for_hi_ = (HI);                                                   \
        if (PAR) {                                                                                              \
            _Pragma("omp parallel for schedule(static)") for (int64_t I = acl_for_lo_; I < acl_for_hi_; I++) { \
                __VA_ARGS__                                                                                     \
            }                                                                                                   \
        } else {                                                                                                \
            for (int64_t I = acl_for_lo_; I < acl_for_hi_; I++) { __VA_ARGS__ }                                 \
        }                                                                                                       \
    } while (0)

/* ---- per-thread scratch carved from one allocation ----
 * Thread t's block starts at t * acl_team_block(n, es) elements: n elements of es bytes rounded up to whole 64-byte
 * lines, and acl_team_alloc's memory starts on a line, so no cache line holds two threads' blocks. (Blocks cut
 * from a plain malloc at n-element offsets shared their boundary lines, and the writes to them ping-ponged between
 * the cores whenever malloc's address happened to fall mid-line: UpsampleNearest3dBackward bf16 x2 at 2 threads took
 * 0.57 or 1.8-2.0 ms per process, by the luck of the address.) */
static inline int64_t acl_team_block(int64_t n, size_t es) {
    size_t g = es ? es : 1, b = 64; /* q = 64 / gcd(es, 64) elements make a whole number of lines */
    while (b) {
        const size_t r = g % b;
        g = b;
        b = r;
    }
    const int64_t q = (int64_t)(64 / g);
    if (n > INT64_MAX - q) return -1; /* (acl_team_alloc fails) */
    return n <= 0 ? q : (n + q - 1) / q * q;
}

/* nthr blocks of acl_team_block(n, es) elements, line-aligned, zeroed when zero; NULL if the size overflows or the
 * memory is not there. Released with free(). */
static inline void *acl_team_alloc(int64_t nthr, int64_t n, size_t es, int zero) {
    const int64_t b = acl_team_block(n, es), t = nthr > 0 ? nthr : 1;
    if (es == 0 || b < 0 || (uint64_t)b > SIZE_MAX / es / (uint64_t)t) return NULL;
    const size_t bytes = (size_t)b * es * (size_t)t; /* a multiple of 64 */
    void *p = aligned_alloc(64, bytes);
    if (p && zero) memset(p, 0, bytes);
    return p;
}

#endif
