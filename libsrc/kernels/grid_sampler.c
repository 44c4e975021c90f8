/* grid_sampler_2d kernels: the compute core per compute type (float, double), entry points per dtype. */
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "aclnn/aclnn_base.h"
#include "common/parallel.h"
#include "kernels/dtype_io.h"
#include "kernels/f16_rows.h"
#include "kernels/grid_sampler.h"

/* a 4-D view laid out densely in row-major order */
static bool gs_is_contig(const acl_view *v) {
    int64_t s = 1;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->dims[i] != 1 && v->strides[i] != s) return false;
        s *= v->dims[i];
    }
    return true;
}

/* channel lanes of the planar path's blocks (grid_sampler_core.inc) */
#define GS_L 8
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define GS_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define GS_CLONES
#endif

/* ---- contiguous row conversions storage type <-> compute type (the planar path's plane copies) ---- */
static int g_gs_f16c; /* 0 unknown, 1 F16C usable, 2 not */

static bool gs_have_f16c(void) {
    int s = __atomic_load_n(&g_gs_f16c, __ATOMIC_RELAXED);
    if (!s) {
#ifdef ACL_F16_ROWS_F16C
        __builtin_cpu_init();
        s = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("f16c") ? 1 : 2;
#else
        s = 2;
#endif
        __atomic_store_n(&g_gs_f16c, s, __ATOMIC_RELAXED);
    }
    return s == 1;
}

#ifdef ACL_F16_ROWS_F16C
/* F16C widening is exact; a signalling NaN comes out quiet, which is invisible here because every loaded value
 * goes through an fp32 multiplication before it is stored */
__attribute__((target("avx2,f16c"))) static void gs_f16c_load(float *dst, const uint16_t *src, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(dst + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(src + i))));
    for (; i < n; i++) dst[i] = acl_f16_to_f32(src[i]);
}
#endif

static inline void gs_row_load_f32(float *restrict d, const float *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_store_f32(float *restrict d, const float *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_load_f64(double *restrict d, const double *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static inline void gs_row_store_f64(double *restrict d, const double *restrict s, int64_t n) {
    memcpy(d, s, (size_t)n * sizeof *d);
}
static void gs_row_load_f16(float *restrict d, const uint16_t *restrict s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs_have_f16c()) {
        gs_f16c_load(d, s, n);
        return;
    }
#endif
    for (int64_t i = 0; i < n; i++) d[i] = acl_f16_to_f32(s[i]);
}
static void gs_row_store_f16(uint16_t *restrict d, const float *restrict s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs_have_f16c()) {
        acl_f32_to_f16_row_f16c(d, s, n);
        return;
    }
#endif
    acl_f32_to_f16_row(d, s, n);
}
static void gs_row_load_bf16(float *restrict d, const uint16_t *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t b = (uint32_t)s[i] << 16;
        memcpy(d + i, &b, 4);
    }
}
static void gs_row_store_bf16(uint16_t *restrict d, const float *restrict s, int64_t n) {
    for (int64_t i = 0; i < n; i++) {
        uint32_t x;
        memcpy(&x, s + i, 4);
        uint32_t r = (x + 0x7fffu + ((x >> 16) & 1u)) >> 16;
        uint32_t q = (x >> 16) | 0x40u; /* NaN: quiet, sign kept (acl_f32_to_bf16) */
        d[i] = (uint16_t)((x & 0x7fffffffu) > 0x7f800000u ? q : r);
    }
}

#define GS_T float
#define GS_SFX f32
#include "kernels/grid_sampler_core.inc"
#undef GS_T
#undef GS_SFX

#define GS_T double
#define GS_SFX f64
#include "kernels/grid_sampler_core.inc"
#undef GS_T
#undef GS_SFX

#define GS_CORE f32
#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"
#undef GS_CORE

#define GS_CORE f64
#define KSUFFIX f64
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler.inc"
#include "kernels/dtype_end.h"
#undef GS_CORE
