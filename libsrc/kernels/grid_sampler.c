/* grid_sampler_2d kernels: the compute core per compute type (float, double), entry points per dtype. */
#include <stdlib.h>
#include <string.h>
#include <tgmath.h>

#include "aclnn/aclnn_base.h"
#include "common/parallel.h"
#include "kernels/dtype_io.h"
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
