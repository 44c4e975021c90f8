/* col2im (the gradient of im2col, torch.nn.functional.fold) in gather form. */
#ifndef PYACLNN_KERNELS_COL2IM_H
#define PYACLNN_KERNELS_COL2IM_H

#include "meta/meta.h"

typedef struct {
    int64_t C, H, W;    /* output channels and spatial size */
    int64_t kh, kw, dh, dw, ph, pw, sh, sw;
    int64_t lh, lw;     /* number of kernel positions along H and W (L = lh * lw) */
} col2im_params;

/* go: [N, C*kh*kw, L] view (a rank-2 gradOutput is given a leading 1), out: [N, C, H, W] view of any float dtype.
 * Every output element is the sum over the kernel taps that cover it, in (ki, kj) order, computed in the
 * compute type of go's dtype and rounded once to go's dtype, then converted to out's dtype. Returns 0 or -1
 * (out of memory). */
#define C2I_DECL(sfx) int acl_col2im_##sfx(const acl_view *go, const acl_view *out, const col2im_params *p);
C2I_DECL(f32)
C2I_DECL(f16)
C2I_DECL(bf16)
#undef C2I_DECL

#endif
