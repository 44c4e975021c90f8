/* The nearest / nearest-exact resampling family (1-D and 2-D, forward and backward): the per-axis index tables
 * shared by every op of the family (the seed nearest-exact 2-D ops included) and the float64 backward. The
 * gather and the fp32-accumulating backward kernels themselves are those of upsample_nearest_exact.h: a 1-D op
 * runs them as a 2-D op with one row (H = 1). */
#ifndef PYACLNN_KERNELS_UPSAMPLE_NEAREST_H
#define PYACLNN_KERNELS_UPSAMPLE_NEAREST_H

#include <stdint.h>
#include "kernels/upsample_nearest_exact.h"

/* Forward source index of every destination index along one axis: src[d] = min(floor(fp32(pos) * r), in - 1)
 * with pos = d + 0.5 (exact) or d (nearest), r an fp32 ratio input/output. Returns 1 when the map is the identity,
 * 2 when it is d / 2, else 0. */
int64_t upn_axis_sources(int64_t *src, int64_t in_len, int64_t out_len, float r, int exact);
/* The fp32 ratio input/output of a forward axis: 1 when the lengths are equal, else fp32(1 / scales) when
 * scales > 0, else fp32(in) / fp32(out). */
float upn_fwd_ratio(int64_t in_len, int64_t out_len, double scales);

/* Backward ranges, as the Ascend kernel evaluates them from an fp32 scale s (output/input): gradient-input index
 * i sums gradOutput positions [lo, hi) with lo = min(ceil(fp32(i * s) [- 0.5 when exact]), out_len) and hi the
 * same for i + 1. Returns k when every range is [k*i, k*i + k), else 0. */
int64_t upn_axis_ranges(int64_t *lo, int64_t *hi, int64_t in_len, int64_t out_len, float s, int exact);
/* Backward ranges of the transposed forward map: position r of gradOutput goes to src[r] (non-decreasing, as
 * every table of upn_axis_sources is), so index i sums [lo[i], hi[i]) = { r : src[r] == i }. Returns k as above. */
int64_t upn_ranges_from_sources(int64_t *lo, int64_t *hi, int64_t in_len, int64_t out_len, const int64_t *src);
/* The branch-free W tables of p (see upnx_bwd_plan) in tab (2 * p->wi int32), when they apply. */
void upn_pair_tables(upnx_bwd_plan *p, int32_t *tab);

/* acc[j] += the left fold (from its first element) of row x over the W range of gradient-input column j, j < p->wi.
 * With the pair tables (p->w_i0) x holds w_hi[wi - 1] + 1 elements, the last one -0.0 (the pad they point at). */
void upn_fold_row_f32(float *restrict acc, const float *restrict x, const upnx_bwd_plan *p);
void upn_fold_row_f64(double *restrict acc, const double *restrict x, const upnx_bwd_plan *p);

/* Float64 backward over the plan's tables: the same owner-computes gather and summation order as the fp32
 * kernels, accumulated in double, a whole row at a time. g and o are (N, C, Ho, Wo) / (N, C, Hi, Wi) views. */
void upn_bwd_f64(const acl_view *g, const acl_view *o, const upnx_bwd_plan *p, double *scratch);
/* doubles of upn_bwd_f64's scratch per thread (acl_max_threads() threads) */
int64_t upn_bwd_f64_scratch(const upnx_bwd_plan *p);

#endif
