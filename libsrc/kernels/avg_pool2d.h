/* 2-D average pooling (NCHW, or one CHW image): attribute expansion, per-axis index plans, forward and backward
 * kernels. The plan is built in phase 1 and owned by the executor; kernels only read it. */
#ifndef PYACLNN_KERNELS_AVG_POOL2D_H
#define PYACLNN_KERNELS_AVG_POOL2D_H

#include <stdbool.h>
#include <stdint.h>

#include "meta/meta.h"

/* Pooling attributes after expansion (SPEC 5.1). */
typedef struct {
    int64_t kh, kw, sh, sw, ph, pw;
    bool ceil_mode, count_include_pad;
    int64_t divisor_override; /* 0: none */
} avgpool_attrs;

/* Expands kernel (len >= 1), stride (NULL/len 0 -> kernel, len 1, len 2) and padding (len >= 1) per SPEC 5.1.
 * The caller has validated the lengths. */
void avgpool_expand(const aclIntArray *kernel, const aclIntArray *stride, const aclIntArray *padding,
                    avgpool_attrs *a);

/* Output extent of one axis (SPEC 5.4): truncating division, ceil-mode correction; -1 when it overflows. */
int64_t avgpool_out_size(int64_t in, int64_t k, int64_t s, int64_t p, bool ceil_mode);

/* What a kernel needs besides the views.
 * Forward:  lo/hi[o] = clipped input range of output index o; wt[oh*ow + ow] = divisor (as float).
 * Backward: lo/hi[i] = range of output indices whose clipped window covers input index i;
 *           wt[oh*ow + ow] = fp32 reciprocal 1.0f/divisor of that window (0 for windows covering nothing). */
typedef struct {
    int64_t n, c;       /* planes (n = 1 for a rank-3 image) */
    int64_t ih, iw;     /* input (self / gradInput) extent */
    int64_t oh, ow;     /* output (out / gradOutput) extent */
    int64_t *h_lo, *h_hi, *w_lo, *w_hi;
    float *wt;
    int64_t w_begin, w_end; /* the columns the horizontal sums read, [w_begin, w_end) */
    /* The same column ranges as fixed-length index lists (branch-free sums): w_idx[j*m + t], t < m, relative to
     * w_begin; unused slots point at index w_end - w_begin, a zero partial sum. NULL when m is too large. */
    int32_t *w_idx;
    int64_t m;
    /* The backward plane's column sums at AVX-512 (avg_pool2d.c): per 16-column block of gradInput, the first
     * partial it reads and m permutes over the 32 partials from there. NULL when a block spans more than 32. */
    void *e_perm;
    /* The forward's window sums at AVX-512 (avg_pool2d.c): per 16-output block, the first partial it reads and m
     * permutes over the 48 partials from there. NULL when a block spans more than 48. */
    void *f_perm;
    /* The portable (SSE2) level's regular blocks of the same index lists (avg_pool2d.c, ap_reg): the forward's
     * window sums 4 outputs a step, the backward's column sums 8 gradInput columns a step. NULL: the lists. */
    void *f_reg, *e_reg;
    void *mem;              /* the one allocation behind the tables */
} avgpool_plan;

/* Fill the tables of `p` (geometry fields set by the caller). Return false when out of memory. */
bool avgpool_plan_forward(avgpool_plan *p, const avgpool_attrs *a);
/* `global`: the A2 global backward path (every input position receives gradOutput[0,0] / (kH*kW)). */
bool avgpool_plan_backward(avgpool_plan *p, const avgpool_attrs *a, bool global);
/* Adaptive average pooling forward (geometry fields set by the caller; oh, ow > 0). */
bool avgpool_plan_adaptive_forward(avgpool_plan *p);
/* Adaptive average pooling backward (gather form: input cell <- the output cells whose window covers it). */
bool avgpool_plan_adaptive_backward(avgpool_plan *p);
/* Frees the tables and the plan itself (executor free_params). */
void avgpool_plan_free(void *plan);

#define AVGPOOL_DECL(sfx)                                                                          \
    void avgpool2d_fwd_##sfx(const acl_view *x, acl_view *y, const avgpool_plan *p);               \
    void avgpool2d_bwd_##sfx(const acl_view *gy, acl_view *gx, const avgpool_plan *p);
AVGPOOL_DECL(f32)
AVGPOOL_DECL(f16)
AVGPOOL_DECL(bf16)
#undef AVGPOOL_DECL

#endif
