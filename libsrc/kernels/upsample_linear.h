/* Separable linear / cubic resampling kernels shared by the UpsampleLinear1d, UpsampleBilinear2d,
 * UpsampleBicubic2d and UpsampleTrilinear3d ops and their backward passes.
 *
 * Each spatial axis (D, H, W; an absent axis has length 1 and the identity map) is a sparse matrix in CSR form:
 * destination index d reads sources src[ptr[d] .. ptr[d + 1]) with weights w. The forward's matrix holds the
 * interpolation taps; the backward's is its transpose (for each gradient-input index, the gradOutput positions
 * that read it, in ascending order): a gather, so every output element is written by one thread with a fixed
 * summation order (same bytes for any thread count). Weights are built in the compute type (fp32 for
 * fp32/fp16/bf16, double for double) as PyTorch's opmath does. */
#ifndef PYACLNN_KERNELS_UPSAMPLE_LINEAR_H
#define PYACLNN_KERNELS_UPSAMPLE_LINEAR_H

#include <stdint.h>
#include "meta/meta.h"

typedef struct {
    int64_t n_dst, n_src;
    int64_t *ptr; /* n_dst + 1 */
    int64_t *src;
    float *wf;
    double *wd;
    int identity; /* n_dst == n_src and d reads d with weight 1 */
    int k;        /* every destination has exactly k entries at ptr[d] = k * d (1, 2 or 4), else 0 */
    int32_t *src32; /* with k 2 or 4 and n_src <= INT32_MAX: src as int32 (half the index traffic), else NULL */
    /* A transposed map whose forward had fixed k taps keeps them (fk = k, fsrc/fwf/fwd: f->n_dst * k entries): the
     * W pass then scatters each source along the row in ascending order, the same sums in the same order as the
     * gather over the transposed lists. */
    int fk;
    int64_t *fsrc;
    float *fwf;
    double *fwd;
} upl_axis;

enum { UPL_LINEAR = 0, UPL_CUBIC = 1 };

/* (int64_t)v for a double that may be out of range or NaN (absurd scales): saturates, NaN -> INT64_MIN */
static inline int64_t upl_trunc(double v) {
    if (!(v == v)) return INT64_MIN;
    if (v >= 9.2e18) return INT64_MAX;
    if (v <= -9.2e18) return INT64_MIN;
    return (int64_t)v;
}

/* The forward taps of one axis from in_len to out_len. scale: the effective "scales" argument of the op (the
 * forward factor out/in; <= 0 means derive in/out from the sizes). in_len == out_len gives the identity. */
int upl_axis_forward(upl_axis *a, int64_t in_len, int64_t out_len, int mode, int align_corners, double scale,
                     int f64);
/* The antialiased taps of one axis (PyTorch's _upsample_*_aa: a filter of support 1 (triangle) or 2 (Keys cubic,
 * a = -0.5) widened by the ratio when shrinking, normalised per destination). */
int upl_axis_aa(upl_axis *a, int64_t in_len, int64_t out_len, int cubic, int align_corners, double scale, int f64);
/* TensorFlow's legacy nearest neighbour (ResizeNearestNeighborV2, no align_corners, no half-pixel centres):
 * d reads min(floor(d * fp32(in / out)), in - 1) with weight 1. */
int upl_axis_nearest_legacy(upl_axis *a, int64_t in_len, int64_t out_len);
/* The transpose of f (a map from f->n_src to f->n_dst) into t. */
int upl_axis_transpose(upl_axis *t, const upl_axis *f);
/* The identity map of length 1 (an absent axis). */
int upl_axis_unit(upl_axis *a);
void upl_axis_free(upl_axis *a);

/* 5-d views (N, C, D, H, W) in that order (the op permutes NHWC strides and inserts unit dims). */
typedef struct {
    upl_axis ax[3]; /* D, H, W: ax[k].n_src = input extent, ax[k].n_dst = output extent */
} upl_plan;

/* y = A_D A_H A_W x for every (n, c) plane; 0, or ACLNN_ERR_INNER when the per-thread scratch cannot be had. */
int upl_run(const acl_view *x, const acl_view *y, const upl_plan *p);
void upl_plan_free(upl_plan *p);

#endif
