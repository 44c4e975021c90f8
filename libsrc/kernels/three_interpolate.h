/* three_interpolate backward: grad_y[b, c, idx[b, n, i]] += grad_x[b, c, n] * weight[b, n, i], owned per (b, c). */
#ifndef PYACLNN_KERNELS_THREE_INTERPOLATE_H
#define PYACLNN_KERNELS_THREE_INTERPOLATE_H

#include "meta/meta.h"

/* gx [B, C, N] and gy [B, C, M] views of grad_x's dtype KT (a trailing 1 already dropped), idx [B, N, 3] (int32 or
 * int64), w [B, N, 3] (f32 or f16). Sums in fp32, points in order, rounded once; an index outside [0, M) is
 * skipped. Returns 0 or -1 (out of memory). */
int acl_three_interp_bwd_f32(const acl_view *gx, const acl_view *idx, const acl_view *w, const acl_view *gy);
int acl_three_interp_bwd_f16(const acl_view *gx, const acl_view *idx, const acl_view *w, const acl_view *gy);

#endif
