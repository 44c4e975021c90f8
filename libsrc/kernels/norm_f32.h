/* fp32 row kernels of the norm family (layer/rms norm forward and backward, group norm forward and backward) over
 * contiguous row-major buffers of FLOAT, FLOAT16 or BF16 (each half row widened to fp32, computed, rounded once).
 *
 * Reductions: every row sum uses 16 fp32 lanes (element i of a row adds into lane i % 16; lanes restart every
 * 1024 elements and fold into 16 outer lanes, the tail adds into the outer lanes), combined by the fixed tree
 * 8, 4, 2, 1. The code is plain C compiled once per level (16 lanes as 1 zmm, 2 ymm or 4 xmm / NEON vectors) and
 * the library builds with -ffp-contract=off, so the bytes are the same at every PYACLNN_SIMD level; each row (or
 * (n, group) block) has one owner, and the weight gradients are summed per FIXED block of rows (the block count
 * depends on the shape only) and the blocks combined in increasing order, so the bytes do not depend on
 * OMP_NUM_THREADS either.
 *
 * BF16 rows (contiguous BF16 in and out) are read and rounded in registers: no widened scratch copy of the input,
 * the rounding to bf16 (acl_f32_to_bf16, NaN lanes included) on 16 results at a time, and the last pass prefetches
 * the next row. At SSE2 and AVX2 the 16 bf16 of a step are widened as their even and odd elements (one shift or one
 * mask of a 16 or 32-byte load); sums put their lanes back in element order before the tail and the tree, fp32 rows
 * the kernel reads elementwise (w, b, the weight-gradient partials) are kept in that lane order, and the widened
 * rows are kept in aligned scratch for the later passes. Every such form computes each lane's sum from the same
 * elements in the same order, and each element with the same operations, so all give the same bytes as the
 * FLOAT rows of the widened inputs rounded once. */
#ifndef PYACLNN_KERNELS_NORM_F32_H
#define PYACLNN_KERNELS_NORM_F32_H

#include <stdbool.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"

/* a contiguous row-major buffer of ACL_FLOAT / ACL_FLOAT16 / ACL_BF16 (p NULL: not given) */
typedef struct { void *p; aclDataType dt; } nf_buf;

/* Forward of rows of length n: x (+ x2 when x2.p), statistics mean/var (centre) or mean of squares (!centre),
 * rstd = 1 / sqrt(var + eps), y = (x - mean) * rstd * w + b (w / b NULL: 1 / 0); y2 (if given) receives y too
 * (rounded from y's fp32 value), xs (if given) the sum x + x2. mean / rstd (may be NULL) get the M statistics.
 * Returns 0, or -1 when scratch memory is missing. */
int nf_rows_fwd(nf_buf x, nf_buf x2, int64_t rows, int64_t n, const float *w, const float *b, double eps, bool centre,
                nf_buf y, nf_buf y2, nf_buf xs, float *mean, float *rstd);

/* Backward with the given statistics (mean NULL: the RMS form): dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
 * g = dy * w, xhat = (x - mean) * rstd; dw[j] = sum_r dy * xhat, db[j] = sum_r dy (dx.p / dw / db may be NULL). */
int nf_rows_bwd(nf_buf dy, nf_buf x, int64_t rows, int64_t n, const float *mean, const float *rstd, const float *w,
                nf_buf dx, double *dw, double *db);

/* Group norm over (N, C, S) with G groups: mean / rstd per (n, g); y = (x - mean) * rstd * gamma[c] + beta[c],
 * then y * sigmoid(scale * y) when act. */
int nf_group_fwd(nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *gamma, const float *beta,
                 double eps, bool act, double scale, nf_buf y, float *mean, float *rstd);
/* its backward given mean / rstd (dx.p / dgamma / dbeta may be NULL) */
int nf_group_bwd(nf_buf dy, nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *mean,
                 const float *rstd, const float *gamma, nf_buf dx, double *dgamma, double *dbeta);

#endif
