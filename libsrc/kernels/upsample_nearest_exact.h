/* Nearest-exact 2-D upsampling kernels: the backward (an owner-computes gather over per-axis inverse-range
 * tables) and the forward (a pure gather over per-axis source-index tables). The tables are built once in the
 * first phase (see libsrc/ops/upsample_nearest_exact2d*.c) and are read-only here. */
#ifndef PYACLNN_KERNELS_UPSAMPLE_NEAREST_EXACT_H
#define PYACLNN_KERNELS_UPSAMPLE_NEAREST_EXACT_H

#include <stdint.h>
#include "meta/meta.h"

/* Backward plan. For gradient-input row i the gradOutput rows [h_lo[i], h_hi[i]) are summed, for column j the
 * columns [w_lo[j], w_hi[j]). hk/wk > 0 when the ranges are uniform blocks [k*i, k*i + k) (fast paths). */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int64_t *h_lo, *h_hi, *w_lo, *w_hi; /* one allocation, h_lo owns it */
    int64_t hk, wk;
    /* When every W range has at most 2 columns (and wk is 0): the columns summed for j are i0[j] and i1[j], a
     * missing one being w_hi[wi - 1] (where the kernel puts a -0.0 pad). NULL otherwise. In the same allocation. */
    int32_t *w_i0, *w_i1;
} upnx_bwd_plan;

/* Forward plan: out[.., y, x] = in[.., h_src[y], w_src[x]]. wk == 2 when w_src[x] == x / 2 for all x. */
typedef struct {
    int64_t n, c, hi, wi, ho, wo;
    int64_t *h_src, *w_src; /* one allocation, h_src owns it */
    int64_t wk;
    int nhwc; /* views are (N, H, W, C) instead of (N, C, H, W) */
} upnx_fwd_plan;

/* Backward per dtype. g and o are (N, C, Ho, Wo) / (N, C, Hi, Wi) views; scratch holds
 * upnx_bwd_scratch_floats(p) floats per thread for acl_max_threads() threads. */
int64_t upnx_bwd_scratch_floats(const upnx_bwd_plan *p);
void upnx_bwd_f32(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);
void upnx_bwd_f16(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);
void upnx_bwd_bf16(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, float *scratch);

/* Forward: a bit-exact gather of elements of 1, 2 or 4 bytes. x and y are in canonical (N, C, H, W) order
 * (the op permutes NHWC views before calling). */
void upnx_fwd_gather(const acl_view *x, const acl_view *y, const upnx_fwd_plan *p);

#endif
