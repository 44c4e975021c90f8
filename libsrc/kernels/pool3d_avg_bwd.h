/* AvgPool3dBackward's per-plane gather, portable C / AVX2 / AVX-512 by acl_simd_level() (kernels/pool3d.c
 * pool_avg_nd_backward uses it for fp32 / fp16 / bf16 with unit W strides, its own gather and scatter otherwise).
 * The sums are the plain gather's: each gradInput cell adds v = gy / divisor of the outputs holding it to a double
 * from +0, in the outputs' row-major order, from rows expanded along W; rounded to fp32, then to the gradInput
 * dtype. */
#ifndef PYACLNN_KERNELS_POOL3D_AVG_BWD_H
#define PYACLNN_KERNELS_POOL3D_AVG_BWD_H

#include <stdbool.h>
#include <stdint.h>

typedef struct p3ab_plan p3ab_plan;

/* A plan for every plane of one call, or NULL (a dtype is not fp32 / fp16 / bf16, a W stride is not 1, more than 64
 * expanded rows a cell, or out of memory). in / out: D, H, W sizes; ys / xs: gradOutput's / gradInput's element
 * strides of D, H, W; first / last: per axis and input cell, the run of output cells holding it (kernels/pool3d.c
 * avg_inverse; kept by the caller while the plan lives); nd / nk: the longest runs along D and W; divs: every
 * output's divisor (row-major, kept by the caller); gx_bytes: gradInput's size (large: streaming stores). */
p3ab_plan *p3ab_plan_new(int gdt, int xdt, const int64_t in[3], const int64_t out[3], const int64_t ys[3],
                         const int64_t xs[3], const int64_t *const first[3], const int64_t *const last[3], int64_t nd,
                         int64_t nk, const double *divs, int64_t gx_bytes);
void p3ab_plan_free(p3ab_plan *p);

/* A thread's scratch for the plan (NULL: out of memory), freed by p3ab_scratch_free. */
void *p3ab_scratch_new(const p3ab_plan *p);
void p3ab_scratch_free(void *s);

/* One plane: gy at element offset go of gy_base, gradInput at xo of gx_base. False (nothing written) when a
 * gy / divisor is NaN: the caller's scatter keeps the reference's NaN order. */
bool p3ab_plane(const p3ab_plan *p, void *scratch, const void *gy_base, int64_t go, void *gx_base, int64_t xo);

/* Orders this thread's streaming stores before what follows (call once after its last plane). */
void p3ab_fence(const p3ab_plan *p);

#endif
