/* grid_sampler_3d forward and backward kernels (gs_params of grid_sampler.h; interp 0 trilinear, 1 nearest). */
#ifndef PYACLNN_KERNELS_GRID_SAMPLER3D_H
#define PYACLNN_KERNELS_GRID_SAMPLER3D_H

#include "kernels/grid_sampler.h"

/* Views in NCDHW order (input, out / gradOutput, gradInput) and [N, D, H, W, 3] (grid, gridGrad). Each returns
 * 0, or ACLNN_ERR_INNER when scratch memory runs out. Backward: gin / ggrid are NULL when masked off. */
#define GS3_DECL(sfx)                                                                                         \
    int acl_grid_sampler3d_fwd_##sfx(const acl_view *in, const acl_view *grid, const acl_view *out,           \
                                     const gs_params *p);                                                     \
    int acl_grid_sampler3d_bwd_##sfx(const acl_view *go, const acl_view *in, const acl_view *grid,            \
                                     const acl_view *gin, const acl_view *ggrid, const gs_params *p);
GS3_DECL(f32)
GS3_DECL(f16)
GS3_DECL(bf16)
GS3_DECL(f64)
#undef GS3_DECL

#endif
