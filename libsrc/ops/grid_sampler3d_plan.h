/* Shared by aclnnGridSampler3D and its backward: the executor params and the NDHWC -> NCDHW view permutation. */
#ifndef PYACLNN_OPS_GRID_SAMPLER3D_PLAN_H
#define PYACLNN_OPS_GRID_SAMPLER3D_PLAN_H

#include "kernels/grid_sampler3d.h"
#include "ops/ops.h"

typedef struct {
    gs_params g;
    bool ndhwc; /* input format NDHWC: input / out (gradOutput, inputGrad) are [N, D, H, W, C] */
} gs3_params;

/* view an [N, D, H, W, C] tensor as [N, C, D, H, W] (dims and strides only; no copy) */
static inline void gs3_to_ncdhw(acl_view *v) {
    int64_t d = v->dims[4], s = v->strides[4];
    for (int i = 4; i > 1; i--) {
        v->dims[i] = v->dims[i - 1];
        v->strides[i] = v->strides[i - 1];
    }
    v->dims[1] = d;
    v->strides[1] = s;
}

/* paddingMode before interpolationMode, as both op_apis check them */
static inline aclnnStatus gs3_check_modes(int64_t paddingMode, int64_t interpolationMode) {
    ACLNN_CHECK(paddingMode >= 0 && paddingMode <= 2, ACLNN_ERR_PARAM_INVALID,
                "paddingMode %lld should be 0 (zeros), 1 (border) or 2 (reflection).", (long long)paddingMode);
    ACLNN_CHECK(interpolationMode >= 0 && interpolationMode <= 1, ACLNN_ERR_PARAM_INVALID,
                "interpolationMode %lld should be 0 (bilinear) or 1 (nearest).", (long long)interpolationMode);
    return ACLNN_SUCCESS;
}

/* y (out, or gradOutput) against input and grid: one N, input's C, grid's D, H, W (in input's layout) */
static inline aclnnStatus gs3_check_sampled(const aclTensor *input, const aclTensor *grid, const aclTensor *y,
                                            const char *yn) {
    ACLNN_CHECK(input->dims[0] == grid->dims[0] && input->dims[0] == y->dims[0], ACLNN_ERR_PARAM_INVALID,
                "input N %lld, grid N %lld and %s N %lld should be equal.", (long long)input->dims[0],
                (long long)grid->dims[0], yn, (long long)y->dims[0]);
    const bool cl = input->format == ACL_FORMAT_NDHWC;
    const int ci = cl ? 4 : 1, d0 = cl ? 1 : 2;
    ACLNN_CHECK(input->dims[ci] == y->dims[ci], ACLNN_ERR_PARAM_INVALID,
                "%s C %lld should equal input C %lld (dim %d of the %s layout).", yn, (long long)y->dims[ci],
                (long long)input->dims[ci], ci, cl ? "NDHWC" : "NCDHW");
    ACLNN_CHECK(grid->dims[1] == y->dims[d0] && grid->dims[2] == y->dims[d0 + 1] && grid->dims[3] == y->dims[d0 + 2],
                ACLNN_ERR_PARAM_INVALID, "grid dims 1..3 (%lld, %lld, %lld) should equal %s D, H, W (%lld, %lld, "
                "%lld).", (long long)grid->dims[1], (long long)grid->dims[2], (long long)grid->dims[3], yn,
                (long long)y->dims[d0], (long long)y->dims[d0 + 1], (long long)y->dims[d0 + 2]);
    return ACLNN_SUCCESS;
}

#endif
