/* gelu and its derivative in float, in the exact (erf) and the tanh form; shared by the hand-written activation
 * ops (gelu_backward_v2.c, glu.c). */
#ifndef PYACLNN_OPS_GELU_MATH_H
#define PYACLNN_OPS_GELU_MATH_H

#include <math.h>
#include <stdbool.h>

static inline float gelu_f(float x, bool tanh_form) {
    return tanh_form ? 0.5f * x * (1 + tanhf(0.7978845608028654f * (x + 0.044715f * x * x * x)))
                     : 0.5f * x * (1 + erff(x * 0.70710678118654752f));
}

/* d gelu / dx */
static inline float gelu_grad_f(float x, bool tanh_form) {
    if (!tanh_form) {
        const float cdf = 0.5f * (1.0f + erff(x * 0.70710678118654752f));
        const float pdf = expf(-0.5f * x * x) * 0.3989422804014327f;
        return cdf + x * pdf;
    }
    const float beta = 0.7978845608028654f, kappa = 0.044715f;
    const float x2 = x * x, t = tanhf(beta * (x + kappa * x2 * x));
    return 0.5f * (1.0f + t) + 0.5f * x * (1.0f - t * t) * beta * (1.0f + 3.0f * kappa * x2);
}

#endif
