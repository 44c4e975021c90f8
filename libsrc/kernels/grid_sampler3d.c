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

/* ---- contiguous rows storage type <-> compute type; exact widening, rounding once on the way back (the fp16 /
 * bf16 rows through the run's fastest converter, kernels/f16_rows.h) ---- */
static void gs3_rowld_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowld_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowld_bf16(float *d, const uint16_t *s, int64_t n) { acl_row_bf16_to_f32_lv(d, s, n); }
static void gs3_rowld_f16(float *d, const uint16_t *s, int64_t n) { acl_row_f16_to_f32_lv(d, s, n); }
static void gs3_rowst_f32(float *d, const float *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowst_f64(double *d, const double *s, int64_t n) { memcpy(d, s, (size_t)n * sizeof *d); }
static void gs3_rowst_bf16(uint16_t *d, const float *s, int64_t n) { acl_row_f32_to_bf16_lv(d, s, n); }
static void gs3_rowst_f16(uint16_t *d, const float *s, int64_t n) { acl_row_f32_to_f16_lv(d, s, n); }

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
