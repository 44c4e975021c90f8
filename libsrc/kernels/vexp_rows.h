/* Fixed-lane fp32 row primitives for the softmax family and cross entropy: a 16-lane vector type (GCC vector
 * extension) whose operations GCC lowers to one zmm register under AVX-512, two ymm under AVX2, four xmm under
 * SSE2/NEON and plain scalars elsewhere. Every lane performs the same IEEE operations in the same order at every
 * level (no FMA: the build has -ffp-contract=off and nothing here asks for one), so a function written once over
 * `vxf` gives the same bytes whichever instruction set it is compiled for.
 *
 * - vx_exp: kernels/vmath.h's exp (VM_EXP_DEFINE: the same polynomial and operations as the activations' vm_expf);
 *   NaN gives the input NaN quietened, -inf 0, +inf +inf. Max error about 1 ulp.
 * - reductions keep 16 partials (lane j holds the elements i = j mod 16), the row's tail is padded with the
 *   reduction's neutral value and processed as one more full vector, and the 16 partials are combined in a fixed
 *   tree (8, 4, 2, 1). The result depends only on the row, never on the level or the thread count.
 *
 * All helpers are always_inline so they take the instruction set of the function they are inlined into (see
 * kernels/softmax_rows.inc, compiled once per level). */
#ifndef PYACLNN_KERNELS_VEXP_ROWS_H
#define PYACLNN_KERNELS_VEXP_ROWS_H

#include <stdint.h>
#include <string.h>

#include "kernels/vmath.h"

typedef float vxf __attribute__((vector_size(64)));
typedef int32_t vxi __attribute__((vector_size(64)));
typedef uint32_t vxu __attribute__((vector_size(64)));
typedef uint16_t vxh __attribute__((vector_size(32)));

#define VX_N 16
/* The helpers are always inlined: no vector crosses a real call, so GCC's vector-ABI note does not apply (it is
 * emitted at every use, hence disabled for the including file). */
#pragma GCC diagnostic ignored "-Wpsabi"
#define VX_AI static inline __attribute__((always_inline))

VX_AI vxf vx_load(const float *p) {
    vxf v;
    memcpy(&v, p, sizeof v);
    return v;
}
VX_AI void vx_store(float *p, vxf v) { memcpy(p, &v, sizeof v); }
VX_AI vxf vx_splat(float a) { return (vxf){a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a}; }
/* m ? a : b lane by lane (m: all ones or zero) */
VX_AI vxf vx_sel(vxi m, vxf a, vxf b) { return (vxf)((m & (vxi)a) | (~m & (vxi)b)); }
/* the first k (< 16) floats of p, the other lanes `pad` */
VX_AI vxf vx_load_part(const float *p, int64_t k, float pad) {
    float t[VX_N];
    for (int j = 0; j < VX_N; j++) t[j] = pad;
    memcpy(t, p, (size_t)k * sizeof(float));
    return vx_load(t);
}
VX_AI void vx_store_part(float *p, vxf v, int64_t k) {
    float t[VX_N];
    vx_store(t, v);
    memcpy(p, t, (size_t)k * sizeof(float));
}

/* exp over 16 lanes: kernels/vmath.h's polynomial (the one the elementwise activations use), the same operations
 * lane by lane as vm_expf */
#define VX_ASI_(v) ((vxi)(v))
#define VX_ASF_(v) ((vxf)(v))
VM_EXP_DEFINE(vx_exp, VX_AI, vxf, vxi, vxu, vx_sel, vx_splat, VX_ASI_, VX_ASF_, 1)

VX_AI vxf vx_max(vxf a, vxf b) { return vx_sel(b > a, b, a); }

/* the fixed combine trees */
VX_AI float vx_hsum(vxf v) {
    float t[VX_N];
    vx_store(t, v);
    for (int w = VX_N / 2; w; w >>= 1)
        for (int j = 0; j < w; j++) t[j] = t[j] + t[j + w];
    return t[0];
}
VX_AI float vx_hmax(vxf v) {
    float t[VX_N];
    vx_store(t, v);
    for (int w = VX_N / 2; w; w >>= 1)
        for (int j = 0; j < w; j++) t[j] = t[j + w] > t[j] ? t[j + w] : t[j];
    return t[0];
}

#endif
