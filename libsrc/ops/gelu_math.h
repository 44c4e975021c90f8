/* gelu and its derivative in float, in the exact (erf) and the tanh form, over the fp32 polynomials of
 * kernels/vmath.h (the same functions the table activations use); shared by the hand-written activation ops
 * (gelu_backward_v2.c, glu.c). */
#ifndef PYACLNN_OPS_GELU_MATH_H
#define PYACLNN_OPS_GELU_MATH_H

#include <stdbool.h>

#include "kernels/vmath.h"

/* the tanh form through 0.5 (1 + tanh(z)) = 1 / (1 + e^(-2z)): one exp, one division; -2z = x (-2 beta - 2 beta
 * kappa x^2) (beta = sqrt(2 / pi), kappa = 0.044715) */
static inline float gelu_f(float x, bool tanh_form) {
    if (tanh_form) {
        /* -2z clamped to [-86, 89]: below, 1 + e^(-2z) is 1 in float; above, e^(-2z) rounds to +inf (x / inf) */
        float u = x * (-1.5957691216057308f + -0.0713548162726f * (x * x));
        u = u < -86.0f ? -86.0f : u;
        u = u > 89.0f ? 89.0f : u;
        return x / (1.0f + vm_expf_big(u));
    }
    return 0.5f * x * (1.0f + vm_erff(x * 0.70710678118654752f));
}

/* d gelu / dx */
static inline float gelu_grad_f(float x, bool tanh_form) {
    if (!tanh_form) {
        const float cdf = 0.5f * (1.0f + vm_erff(x * 0.70710678118654752f));
        const float pdf = vm_expf_sm5(-0.5f * x * x) * 0.3989422804014327f;
        return cdf + x * pdf;
    }
    /* 0.5 (1 + t) + 0.5 x (1 - t^2) beta (1 + 3 kappa x^2) with t = tanh(z): s = 0.5 (1 + t) = 1 / (1 + e),
     * e = e^(-2z), and 0.25 (1 - t^2) = s (1 - s) = e s^2 (no cancellation); e capped at e^80 (s^2 e -> 0, not
     * inf * 0; a NaN x comes back through x) and at e^-87 below (s = 1 and x e s^2 under 1e-30 there). Beyond
     * |x| = 20 the derivative is s (0 or 1 in float) and the second term is dropped (a huge x made x^2 and its last
     * factor infinite); an infinite x gives NaN through x - x, as PyTorch's (+0 otherwise; the sum is never -0). No
     * clamp of x itself: GCC threads a clamp's constants through the whole formula. */
    const float x2 = x * x;
    float u = x * (-1.5957691216057308f + -0.0713548162726f * x2);
    u = u < 80.0f ? u : 80.0f;
    u = u < -87.0f ? -87.0f : u;
    const float e = vm_expf_mid5(u), s = 1.0f / (1.0f + e);
    const float d = x * (e * s * s) * 1.5957691216057308f * (1.0f + 0.134145f * x2);
    return (s + (fabsf(x) > 20.0f ? 0.0f : d)) + (x - x);
}

#endif
