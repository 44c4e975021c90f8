/* OpenMP conventions: static schedules over an owning index only, so results never depend on the team size. */
#ifndef PYACLNN_COMMON_PARALLEL_H
#define PYACLNN_COMMON_PARALLEL_H

#include <stdint.h>
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

#endif
