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

/* True when `work` (roughly, element operations) justifies forking threads. */
static inline int acl_parallel_worth(int64_t work) { return work >= ACL_PARALLEL_GRAIN && acl_max_threads() > 1; }

#endif
