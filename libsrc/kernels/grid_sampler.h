/* grid_sampler_2d forward and backward kernels (SPEC section 2.3/2.4). */
#ifndef PYACLNN_KERNELS_GRID_SAMPLER_H
#define PYACLNN_KERNELS_GRID_SAMPLER_H

#include <stdbool.h>
#include "meta/meta.h"

typedef struct {
    int interp;  /* 0 bilinear, 1 nearest, 2 bicubic */
    int padding; /* 0 zeros, 1 border, 2 reflection */
    bool align;
    bool mask_input, mask_grid; /* backward: which outputs are written */
} gs_params;

/* Each returns 0, or ACLNN_ERR_INNER when scratch memory runs out (outputs then undefined).
 * Backward: gin / ggrid are NULL when masked off. */
#define GS_DECL(sfx)                                                                                          \
    int acl_grid_sampler2d_fwd_##sfx(const acl_view *in, const acl_view *grid, const acl_view *out,           \
                                     const gs_params *p);                                                     \
    int acl_grid_sampler2d_bwd_##sfx(const acl_view *go, const acl_view *in, const acl_view *grid,            \
                                     const acl_view *gin, const acl_view *ggrid, const gs_params *p);
GS_DECL(f32)
GS_DECL(f16)
GS_DECL(bf16)
GS_DECL(f64)
#undef GS_DECL

#endif
