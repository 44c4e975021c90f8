/* Shared by aclnnGridSampler3D and its backward: the executor params and the NDHWC -> NCDHW view permutation. */
#ifndef PYACLNN_OPS_GRID_SAMPLER3D_PLAN_H
#define PYACLNN_OPS_GRID_SAMPLER3D_PLAN_H

#include "kernels/grid_sampler3d.h"

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

#endif
