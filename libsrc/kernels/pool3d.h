/* Windowed max pooling over up to three spatial axes (D, H, W) with kernel/stride/padding/dilation, the argmax
 * of each window and the gradient through it (MaxPool2dWithIndices/WithMask, MaxPool3dWithArgmax and backwards). */
#ifndef PYACLNN_KERNELS_POOL3D_H
#define PYACLNN_KERNELS_POOL3D_H

#include <stdint.h>

#include "meta/meta.h"

/* Where the argmax lives. */
enum {
    POOL_IDX_VIEW = 0,  /* an int32/int64 tensor of the output's shape (element strides of its view) */
    POOL_IDX_RAW32 = 1, /* int32 argmax written flat (plane-major, row-major) from the start of an int8 buffer */
    POOL_IDX_UNIT = 2,  /* 1x1 windows: the forward marks each output's single cell, the backward ignores it */
    POOL_IDX_NONE = 3,  /* values only (MaxPool): idx is NULL */
};

typedef struct {
    int lead[2];                  /* plane axes (lead[1] = -1 for one) */
    int sp[3];                    /* spatial axes D, H, W of the views (-1: absent, size 1) */
    int64_t k[3], s[3], p[3], dl[3]; /* p: the leading padding (the trailing one only sizes the output) */
    int idx_mode;
    int64_t mask_plane;           /* POOL_IDX_UNIT: uint16 elements per plane in the mask buffer */
} pool_max_params;

/* PyTorch's pooled size: floor or ceil of (in + 2p - dl*(k-1) - 1)/s + 1, the last ceil window starting inside
 * the input or left padding. */
int64_t pool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, int64_t dl, bool ceil_mode);

/* y = max of each window (padding never wins), idx = d*H*W + h*W + w of the chosen cell within its plane: the first
 * maximum, a NaN wins (the last NaN of the window, as PyTorch's CPU kernel). Compared in fp32 (double for f64). */
void pool_max_nd(const acl_view *x, acl_view *y, acl_view *idx, const pool_max_params *pp);

/* gx = sum of gy over the cells whose argmax is each input cell: per-plane owner, each plane's gy cells in
 * row-major order (fp32 accumulation, double for f64, rounded once); indices outside the plane are skipped. */
void pool_max_nd_backward(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_max_params *pp);

/* Average pooling over D, H, W (AvgPool3d and its backward), PyTorch's rules: window [o*s - p, o*s - p + k) cut
 * at in + p for the padded count and at [0, in) for the cells summed; divisor = divisorOverride when non-zero,
 * else the padded count (countIncludePad) or the in-range count (a product of per-axis counts). */
typedef struct {
    int lead[2];
    int sp[3];
    int64_t k[3], s[3], p[3];
    bool count_include_pad;
    int64_t divisor;
} pool_avg_params;

/* y = mean of each window (each window row summed in fp32, the rows in double, rounded once) */
void pool_avg_nd(const acl_view *x, acl_view *y, const pool_avg_params *pp);
/* per-plane owner: every output cell adds gy/divisor to its window in a double plane buffer (row-major output
 * order), stored once; gy, gx may have different dtypes */
void pool_avg_nd_backward(const acl_view *gy, acl_view *gx, const pool_avg_params *pp);

/* Adaptive pooling over D, H, W: output cell o of an axis averages / maxes input cells
 * [floor(o*in/out), ceil((o+1)*in/out)). */
typedef struct {
    int lead[2];
    int sp[3];
} pool_ad_params;

void pool_adaptive_avg3d(const acl_view *x, acl_view *y, const pool_ad_params *pp);
/* gather form, gx[i] = sum over the windows holding i of gy / window size */
void pool_adaptive_avg3d_backward(const acl_view *gy, acl_view *gx, const pool_ad_params *pp);
/* the first maximum (a NaN wins, the last NaN), idx = d*H*W + h*W + w within the plane (int32 or int64) */
void pool_adaptive_max3d(const acl_view *x, acl_view *y, acl_view *idx, const pool_ad_params *pp);
#endif
