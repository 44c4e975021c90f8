/* Fixed-lane fp32 row primitives for the softmax family and cross entropy. A row is walked in blocks of 16 lanes
 * (VX_N); each SIMD level holds a block in native vectors of W lanes (W = 16: one zmm under AVX-512, 8: two ymm under
 * AVX2, 4: four xmm under SSE2 / NEON for the portable build), so GCC never lowers a vector wider than the target
 * (a 64-byte compare or select under AVX2 or SSE2 becomes 16 scalar operations). Every lane performs the same IEEE
 * operations in the same order at every level (no FMA: the build has -ffp-contract=off and nothing here asks for
 * one), so a pass written once over a block gives the same bytes whichever width it is compiled for.
 *
 * - vx_exp<W>: kernels/vmath.h's exp (VM_EXP_DEFINE: the same polynomial and operations as the activations' vm_expf);
 *   NaN gives the input NaN, -inf 0, +inf +inf. Max error about 1 ulp.
 * - reductions keep 16 partials (block lane j holds the elements i = j mod 16; lane j is lane j % W of the block's
 *   vector j / W), the row's tail is padded with the reduction's neutral value and processed as one more full block,
 *   and the 16 partials are combined in a fixed tree (8, 4, 2, 1). The result depends only on the row, never on the
 *   level or the thread count.
 *
 * All helpers are always_inline so they take the instruction set of the function they are inlined into (see
 * kernels/softmax_rows.inc, compiled once per level with its width). */
#ifndef PYACLNN_KERNELS_VEXP_ROWS_H
#define PYACLNN_KERNELS_VEXP_ROWS_H

#include <stdint.h>
#include <string.h>

#include "kernels/vmath.h"

#define VX_N 16
/* The helpers are always inlined: no vector crosses a real call, so GCC's vector-ABI note does not apply (it is
 * emitted at every use, hence disabled for the including file). */
#pragma GCC diagnostic ignored "-Wpsabi"
#define VX_AI static inline __attribute__((always_inline))

/* the native vector types and helpers of width W (B bytes): vf<W>, vi<W>, vu<W>, vx_load<W>, vx_store<W>,
 * vx_splat<W>, vx_sel<W> (m ? a : b lane by lane, m all ones or zero), vx_exp<W>, vx_max<W> (a NaN b is skipped) */
#define VX_DEFINE_W_(W, B)                                                                                           \
    typedef float vf##W __attribute__((vector_size(B)));                                                            \
    typedef int32_t vi##W __attribute__((vector_size(B)));                                                          \
    typedef uint32_t vu##W __attribute__((vector_size(B)));                                                         \
    VX_AI vf##W vx_load##W(const float *p) {                                                                        \
        vf##W v;                                                                                                    \
        memcpy(&v, p, sizeof v);                                                                                    \
        return v;                                                                                                   \
    }                                                                                                               \
    VX_AI void vx_store##W(float *p, vf##W v) { memcpy(p, &v, sizeof v); }                                          \
    VX_AI vf##W vx_splat##W(float a) {                                                                              \
        vf##W v;                                                                                                    \
        for (int j = 0; j < W; j++) v[j] = a;                                                                       \
        return v;                                                                                                   \
    }                                                                                                               \
    VX_AI vf##W vx_sel##W(vi##W m, vf##W a, vf##W b) { return (vf##W)((m & (vi##W)a) | (~m & (vi##W)b)); }         \
    VM_EXP_DEFINE(vx_exp##W, VX_AI, vf##W, vi##W, vu##W, vx_sel##W, vx_splat##W, VX_ASI##W##_, VX_ASF##W##_, 1)     \
    VX_AI vf##W vx_max##W(vf##W a, vf##W b) { return vx_sel##W(b > a, b, a); }

#define VX_ASI16_(v) ((vi16)(v))
#define VX_ASF16_(v) ((vf16)(v))
#define VX_ASI8_(v) ((vi8)(v))
#define VX_ASF8_(v) ((vf8)(v))
#define VX_ASI4_(v) ((vi4)(v))
#define VX_ASF4_(v) ((vf4)(v))
VX_DEFINE_W_(16, 64)
VX_DEFINE_W_(8, 32)
VX_DEFINE_W_(4, 16)

/* 8 and 16 bf16 bit patterns */
typedef uint16_t vxh8 __attribute__((vector_size(16)));
typedef uint16_t vxh16 __attribute__((vector_size(32)));

/* the fixed combine trees over a block's 16 partials t[16] */
VX_AI float vx_tree_sum(float *t) {
    for (int w = VX_N / 2; w; w >>= 1)
        for (int j = 0; j < w; j++) t[j] = t[j] + t[j + w];
    return t[0];
}
VX_AI float vx_tree_max(float *t) {
    for (int w = VX_N / 2; w; w >>= 1)
        for (int j = 0; j < w; j++) t[j] = t[j + w] > t[j] ? t[j + w] : t[j];
    return t[0];
}

#endif
