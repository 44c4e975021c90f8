/* grid_sampler_3d kernels: the compute core per compute type (float, double), entry points per dtype. */
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "aclnn/aclnn_base.h"
#include "common/parallel.h"
#include "common/cpu.h"
#include "kernels/dtype_io.h"
#include "kernels/f16_rows.h"
#include "common/half_rows.h"
#include "kernels/grid_sampler3d.h"

static bool gs3_is_contig(const acl_view *v) {
    int64_t s = 1;
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->dims[i] != 1 && v->strides[i] != s) return false;
        s *= v->dims[i];
    }
    return true;
}

/* element offset of row r (all dims but the last, row-major) of a view */
static inline int64_t gs3_row_off(const acl_view *v, int64_t r) {
    int64_t o = 0;
    for (int i = v->ndim - 2; i >= 0; i--) {
        o += (r % v->dims[i]) * v->strides[i];
        r /= v->dims[i];
    }
    return o;
}

/* ---- contiguous rows storage type <-> compute type; exact widening, rounding once on the way back ---- */
static inline bool gs3_f16c(void) {
#ifdef ACL_F16_ROWS_F16C
    return acl_simd_level() >= ACL_SIMD_AVX2;
#else
    return false;
#endif
}
#ifdef ACL_F16_ROWS_F16C
__attribute__((target("avx2,f16c"))) static void gs3_f16c_load(float *d, const uint16_t *s, int64_t n) {
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        _mm256_storeu_ps(d + i, _mm256_cvtph_ps(_mm_loadu_si128((const __m128i *)(const void *)(s + i))));
    for (; i < n; i++) d[i] = acl_f16_to_f32(s[i]);
}
#endif
static void gs3_rowld_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowld_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowld_bf16(float *d, const uint16_t *s, int64_t n) { acl_row_bf16_to_f32(d, s, n); }
static void gs3_rowld_f16(float *d, const uint16_t *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs3_f16c()) { gs3_f16c_load(d, s, n); return; }
#endif
    acl_row_f16_to_f32(d, s, n); /* common/half_rows.h: SSE2 / NEON, the same bits */
}
static void gs3_rowst_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowst_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowst_bf16(uint16_t *d, const float *s, int64_t n) { acl_row_f32_to_bf16(d, s, n); }
static void gs3_rowst_f16(uint16_t *d, const float *s, int64_t n) {
#ifdef ACL_F16_ROWS_F16C
    if (gs3_f16c()) { acl_f32_to_f16_row_f16c(d, s, n); return; }
#endif
    acl_row_f32_to_f16(d, s, n);
}

#define GS_T float
#define GS_SFX f32
#include "kernels/grid_sampler3d_core.inc"
#undef GS_T
#undef GS_SFX

#define GS_T double
#define GS_SFX f64
#include "kernels/grid_sampler3d_core.inc"
#undef GS_T
#undef GS_SFX

#define GS3_CORE f32
#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler3d.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler3d.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler3d.inc"
#include "kernels/dtype_end.h"
#undef GS3_CORE

#define GS3_CORE f64
#define KSUFFIX f64
#include "kernels/dtype_begin.h"
#include "kernels/grid_sampler3d.inc"
#include "kernels/dtype_end.h"
#undef GS3_CORE
