/* The shared GEMM engine of the matmul family (aclnnMm, aclnnMatmul, aclnnBatchMatMul, aclnnMv, aclnnEinsum):
 *   C[b][i][j] = sum_k A[b][i][k] * B[b][k][j]
 * over any batch of strided operands of any numeric dtype (A and B may differ), written to a strided C of any
 * dtype. Floating inputs of f32/f16/bf16 are converted to f32 while packing (optionally rounded through f16/bf16
 * first, for cubeMathType USE_FP16) and summed in f32; f64 in f64; integers in int64 (wrapping). Each output
 * element is one fused multiply-add chain over k = 0..K-1 starting from 0, rounded once to C's dtype, whatever the
 * blocking, the thread count or the SIMD level (the AVX-512, AVX2 and portable micro-kernels all use correctly
 * rounded fma in that order), so the bytes never depend on OMP_NUM_THREADS or the CPU. Threads own output tiles
 * (row blocks, or whole batches), never a part of a K-sum. K = 0 gives zeros. */
#ifndef PYACLNN_KERNELS_GEMM_H
#define PYACLNN_KERNELS_GEMM_H

#include <stdint.h>

#include "acl/acl_base.h"

#define GEMM_MAX_BATCH_DIMS 8

typedef struct {
    int64_t M, N, K;
    int nbd;                             /* batch dims (0: one matrix) */
    int64_t bshape[GEMM_MAX_BATCH_DIMS]; /* batch extents */
    int64_t bsa[GEMM_MAX_BATCH_DIMS], bsb[GEMM_MAX_BATCH_DIMS], bsc[GEMM_MAX_BATCH_DIMS]; /* batch strides (elems) */
    const void *a; aclDataType adt; int64_t ars, acs; /* A (M x K): element strides of rows and columns */
    const void *b; aclDataType bdt; int64_t brs, bcs; /* B (K x N) */
    void *c; aclDataType cdt; int64_t crs, ccs;       /* C (M x N) */
    aclDataType round_to; /* ACL_DT_UNDEFINED, or ACL_FLOAT16 / ACL_BF16: inputs rounded through it (f32 path) */
    aclDataType mid;      /* ACL_DT_UNDEFINED, or ACL_FLOAT16 / ACL_BF16: the f32 sums rounded through it before C's
                             dtype (a device kernel that writes half precision, then casts) */
} gemm_problem;

/* Runs the product; 0 on success, -1 when a buffer cannot be allocated (C untouched then). */
int gemm_run(const gemm_problem *p);

#endif
