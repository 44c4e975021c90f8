/* Max pooling kernels of the pooling family (adaptive windows), one instance per dtype. */
#ifndef PYACLNN_KERNELS_POOL_H
#define PYACLNN_KERNELS_POOL_H

#include <stdint.h>

#include "meta/meta.h"

/* Geometry: the plane axes (pa[0], pa[1]; pa[1] = -1 for none) and the pooled axes (ah, aw) of the views. */
typedef struct {
    int pa[2];
    int ah, aw;
} pool_axes;

/* Adaptive max pooling: y/idx[.., o, p] = max over the adaptive window of x, idx = h*W + w of the chosen cell
 * (the first maximum; a NaN wins and the last NaN of the window is taken, as PyTorch's CPU kernel). */
void pool_adaptive_max2d(const acl_view *x, acl_view *y, acl_view *idx, const pool_axes *ax);



/* Max pooling gradient by argmax, per-plane owner: each gradInput plane is zeroed, then every gradOutput cell of
 * the plane (row-major, a fixed order) adds its value at its index (fp32 accumulation for fp16/bf16, double for
 * double, rounded once). Indices outside [0, H*W) are skipped. */
void pool_max2d_backward_by_index(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_axes *ax);

/* Adaptive average pooling over (ah, aw), fp16 (PyTorch adaptive_avg_pool2d): out = (0 + the window's column sums
 * added left to right) / the window's cell count, each column sum 0 + x[a][j] + ... + x[b-1][j] in fp32, rounded
 * once - avg_pool2d.c's order and bits. _fits: whether the row buffers hold iw inputs and ow outputs. */
bool pool_adaptive_avg2d_f16_fits(int64_t iw, int64_t ow);
bool pool_adaptive_avg2d_f16(const acl_view *x, acl_view *y, const pool_axes *ax); /* false: out of memory */

/* Its gradient, fp16, the avg_pool2d kernels' backward bits (kernels/avg_pool2d.inc: gradInput = 0 + the covering
 * rows' (0 + the covering columns' gradOutput * (1.0f / count)), in fp32, rounded once; a NaN product: every sum
 * by common/nan_order.h's rule in that order). gy's pooled dims are the outputs, gx's the inputs; the same axes.
 * _fits: the shapes whose operation order is the avg_pool2d plane path's and fit this kernel's buffers. */
bool pool_adaptive_avg2d_backward_f16_fits(int64_t ih, int64_t iw, int64_t oh, int64_t ow);
bool pool_adaptive_avg2d_backward_f16(const acl_view *gy, acl_view *gx, const pool_axes *ax); /* false: no memory */
#endif
