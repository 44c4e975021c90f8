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

/* One sub-problem of the product: the output sub-grid o = o0 + os * j (j < out) along each axis and the kernel
 * taps that can reach it (a transposed convolution splits into one sub-problem per stride phase, each with only
 * its contributing taps; a forward convolution is one sub-problem with every tap). */
typedef struct {
    int64_t out[3], o0[3], os[3], ntap[3];
    int64_t *tap[3]; /* tap[a][t]: kernel index of the t-th tap */
    int64_t *tab[3]; /* tab[a][t * out[a] + j]: input index, or -1 */
    int64_t kdim, pt; /* K = cig * the taps' product; positions per tile */
} conv_sub;

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
    int nsub;                     /* the sub-problems conv_forward runs */
    conv_sub *subs;
    void *submem;
} conv_plan;

/* Fills tab/kdim/pt (geometry set by the caller); false when out of memory or the buffers would be too large. */
bool conv_plan_build(conv_plan *p);
void conv_plan_free(void *plan);
/* Runs the convolution; bias may be NULL. Returns 0, or ACLNN_ERR_INNER (with a message) when out of memory. */
int conv_forward(const conv_plan *p, const acl_view *x, const acl_view *w, const acl_view *bias, acl_view *y);

/* Weight gradient: gw[g*cog + a][b][k] = sum over n (ascending), positions (ascending) of gm[n][g*cog + a][pos] *
 * img[n][g*cig + b][gathered through the forward tables]. The plan is a forward plan whose input is img and whose
 * output is gm (xpos/ypos/wpos: img, gm, gw). Per-(n, group) partial sums, then the batch sum in a fixed order. */
int conv_grad_weight(const conv_plan *p, const acl_view *img, const acl_view *gm, acl_view *gw);
/* gb[c] = sum over n, then D, H, W (ascending) of gy; pos: gy's axis positions, sp: its D, H, W extents. */
void conv_grad_bias(const acl_view *gy, const int pos[5], int64_t n, int64_t c, const int64_t sp[3], acl_view *gb);
/* Writes +0 to every element of a floating view. */
void conv_fill_zero(acl_view *v);
/* Writes `value` (rounded once) to every element of a floating view. */
void conv_fill_value(acl_view *v, float value);
/* v[..., i (on `axis`), ...] = bias[i], rounded once to v's dtype. */
void conv_fill_bias(acl_view *v, const acl_view *bias, int axis);


/* Deformable sampling (aclnnDeformableConv2d): the geometry of x (N, C, H, W) and offset (N, 3 * dg * kH * kW,
 * oH, oW): x offsets, then y offsets, then masks, channel dg_index * kH * kW + kh * kW + kw of each block. */
typedef struct {
    int64_t n, c, h, w, oh, ow, kh, kw, sh, sw, ph, pw, dh, dw, dg;
} conv_deform;
/* dst (N, C, oH * kH, oW * kW) fp32, contiguous: the masked bilinear samples (corners outside x weigh 0). */
void conv_deform_gather(const acl_view *x, const acl_view *off, const conv_deform *g, float *dst);
/* Writes the contiguous fp32 4-d image src into the 4-d view v (rounded once). */
void conv_store_view(const float *src, acl_view *v);

/* Quantized convolution (aclnnQuantConvolution): int8 x int8 summed exactly in integers, then
 * y = (float)sum * scale[co] + bias[co] in fp32, rounded once to y's dtype (bias NULL: 0). */
void conv_quant_forward(const conv_plan *p, const acl_view *x, const acl_view *w, const acl_view *scale,
                        const acl_view *bias, acl_view *y);

#endif
