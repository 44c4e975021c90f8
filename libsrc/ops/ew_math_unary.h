/* Scalar helpers of the unary math table ops (tools/optable/math_unary.py), used by their generated loops. */
#ifndef PYACLNN_OPS_EW_MATH_UNARY_H
#define PYACLNN_OPS_EW_MATH_UNARY_H

#include "common/dtype.h"
#include "common/status.h"
#include "ops/elementwise.h"

/* ---- check hooks (tools/optable `check=`) ---- */

/* clamp bounds given as two aclScalars: min <= max, compared as integers when min is integral, as doubles when it is
 * floating */
static inline aclnnStatus ew_check_min_le_max(ew_ctx *c) {
    const aclScalar *lo = NULL, *hi = NULL;
    for (int i = 0; i < c->d->nargs; i++) {
        if (c->d->kind[i] != EW_ARG_SCALAR) continue;
        if (!lo) lo = c->args[i];
        else hi = c->args[i];
    }
    if (!lo || !hi) return ACLNN_SUCCESS;
    if (acl_dt_is_int(lo->dtype)) {
        int64_t a = acl_read_i64(lo->bytes, lo->dtype), b = acl_read_i64(hi->bytes, hi->dtype);
        ACLNN_CHECK(a <= b, ACLNN_ERR_PARAM_INVALID, "min must less than max or equal to max, but min is %lld and "
                    "max is %lld.", (long long)a, (long long)b);
    } else if (acl_dt_is_float(lo->dtype)) {
        double a = acl_read_f64(lo->bytes, lo->dtype), b = acl_read_f64(hi->bytes, hi->dtype);
        ACLNN_CHECK(!(a > b), ACLNN_ERR_PARAM_INVALID, "min must less than max or equal to max, but min is %f and max "
                    "is %f.", a, b);
    }
    return ACLNN_SUCCESS;
}

/* aclnnSign: result has self's dtype, except for a BF16 self (outside the support list, let through without an
 * out dtype check) */
static inline aclnnStatus ew_check_sign(ew_ctx *c) {
    const aclTensor *self = c->args[0], *out = c->args[c->iout];
    if (self->dtype == ACL_BF16) return ACLNN_SUCCESS;
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID,
                "self dtype should be same as result dtype. self [%s], result [%s].", acl_dtype_name(self->dtype),
                acl_dtype_name(out->dtype));
    return ACLNN_SUCCESS;
}

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
