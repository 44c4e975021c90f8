/* Direct / transposed N-d convolution (1-d, 2-d, 3-d as D x H x W with missing axes of extent 1) through an
 * implicit-GEMM: per (batch, group, tile of output positions) the input is gathered into an fp32 column matrix
 * col[k][p] (k = (ci, kd, kh, kw) in that order), which is multiplied by the packed fp32 weights. Every output
 * element is one dot product over k in ascending order, computed by one owner, so the bytes never depend on the
 * thread count. f32 / f16 / bf16 inputs, weights, bias and output in any mix: loaded exactly to fp32, the result
 * rounded once to the output dtype. The plan is built in phase 1 and owned by the executor. */
#ifndef PYACLNN_KERNELS_CONV_H
#define PYACLNN_KERNELS_CONV_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/meta.h"

typedef struct {
    bool transposed;
    int64_t n, ci, co, groups; /* batch, input channels, output channels */
    int64_t in[3], out[3], k[3], s[3], p[3], d[3]; /* D, H, W (extent 1 / stride 1 / pad 0 for missing axes) */
    /* positions in the view of the axes N, C, D, H, W (input / output) and O, I, D, H, W (weight: dim 0, dim 1,
     * spatial); -1 for a missing axis */
    int xpos[5], wpos[5], ypos[5];
    bool has_bias;
    /* tab[a][kk * out[a] + o]: the input index feeding output index o through kernel tap kk on axis a, or -1 */
    int64_t *tab[3];
    int64_t kdim, cig, cog, cogp; /* K = cig * kD*kH*kW, channels per group, cog rounded up to the block */
    int64_t pt;                   /* positions per tile (a multiple of CONV_PB) */
    void *mem;
} conv_plan;

/* Fills tab/kdim/pt (geometry set by the caller); false when out of memory or the buffers would be too large. */
bool conv_plan_build(conv_plan *p);
void conv_plan_free(void *plan);
/* Runs the convolution; bias may be NULL. Returns 0, or ACLNN_ERR_INNER (with a message) when out of memory. */
int conv_forward(const conv_plan *p, const acl_view *x, const acl_view *w, const acl_view *bias, acl_view *y);

#endif
