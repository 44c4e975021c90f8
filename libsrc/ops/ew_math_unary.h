/* Scalar helpers of the unary math table ops (tools/optable/math_unary.py), used by their generated loops. */
#ifndef PYACLNN_OPS_EW_MATH_UNARY_H
#define PYACLNN_OPS_EW_MATH_UNARY_H

#include "ops/elementwise.h"

/* digamma(x) in double: reflection for x < 0, recurrence up to x >= 10, then the asymptotic series. PyTorch's
 * conventions: poles (0, negative integers) give -inf at 0 (+-0: -+inf as torch) and nan at negative integers. */
static inline double ew_digamma(double x) {
    if (x == 0) return signbit(x) ? INFINITY : -INFINITY;
    if (isnan(x)) return x;
    if (x < 0) {
        if (x == floor(x)) return NAN;
        /* psi(1 - x) - pi / tan(pi x) */
        const double pi = 3.14159265358979323846;
        return ew_digamma(1 - x) - pi / tan(pi * x);
    }
    double r = 0;
    while (x < 10) {
        r -= 1 / x;
        x += 1;
    }
    const double f = 1 / (x * x);
    const double t =
        f * (-1.0 / 12 + f * (1.0 / 120 + f * (-1.0 / 252 + f * (1.0 / 240 + f * (-1.0 / 132 + f * (691.0 / 32760))))));
    return r + log(x) - 0.5 / x + t;
}

/* torch.round(x, decimals): scale by 10^|d|, round half to even, scale back */
static inline double ew_round_decimals(double a, double d) {
    const double p = pow(10.0, fabs(d));
    return d >= 0 ? nearbyint(a * p) / p : nearbyint(a / p) * p;
}

#endif
