/* Fixed-lane fp32 row primitives for the softmax family and cross entropy: a 16-lane vector type (GCC vector
 * extension) whose operations GCC lowers to one zmm register under AVX-512, two ymm under AVX2, four xmm under
 * SSE2/NEON and plain scalars elsewhere. Every lane performs the same IEEE operations in the same order at every
 * level (no FMA: the build has -ffp-contract=off and nothing here asks for one), so a function written once over
 * `vxf` gives the same bytes whichever instruction set it is compiled for.
 *
 * - vx_exp: one exp polynomial (Cody-Waite reduction by ln 2 in two parts, a degree-6 polynomial on
 *   [-ln2/2, ln2/2], the scale 2^k applied in two exact halves so subnormal results are rounded once); NaN gives
 *   the input NaN quietened, -inf 0, +inf +inf. Max error about 1 ulp.
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

VX_AI vxf vx_exp(vxf x) {
    const vxf lo = vx_splat(-104.0f), hi = vx_splat(100.0f); /* e^-104 < 2^-150 rounds to 0; e^100 = inf */
    vxf xc = vx_sel(x < lo, lo, x);
    xc = vx_sel(xc > hi, hi, xc); /* a NaN lane stays NaN */
    /* k = round(x / ln 2): adding 1.5 * 2^23 leaves k in the low mantissa bits */
    const vxf t = xc * 1.44269504088896341f + 12582912.0f;
    const vxi k = (vxi)(((vxu)t & 0x7fffffu) - 0x400000u);
    const vxf kf = t - 12582912.0f;
    vxf r = xc - kf * 0.693359375f;
    r = r - kf * -2.12194440e-4f;
    vxf p = vx_splat(1.9875691500e-4f);
    p = p * r + 1.3981999507e-3f;
    p = p * r + 8.3334519073e-3f;
    p = p * r + 4.1665795894e-2f;
    p = p * r + 1.6666665459e-1f;
    p = p * r + 5.0000001201e-1f;
    p = p * (r * r) + r + 1.0f;
    /* 2^k as 2^k1 * 2^k2, both normal for k in [-150, 144] */
    const vxi k1 = k >> 1, k2 = k - k1;
    const vxf s1 = (vxf)((vxu)(k1 + 127) << 23), s2 = (vxf)((vxu)(k2 + 127) << 23);
    const vxf y = (p * s1) * s2;
    return vx_sel(x == x, y, x + x);
}

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
