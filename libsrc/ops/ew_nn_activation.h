/* Check hooks and scalar helpers of the ops-nn activation table ops (tools/optable/nn_activation.py). */
#ifndef PYACLNN_OPS_EW_NN_ACTIVATION_H
#define PYACLNN_OPS_EW_NN_ACTIVATION_H

#include <math.h>

#include "common/status.h"
#include "ops/elementwise.h"
#include "ops/gelu_math.h"

/* fp32 helpers of the `f32` formulas (tools/optable/nn_activation.py), over kernels/vmath.h */
/* tanh(softplus(x)) = n / (n + 2) with n = e^x (e^x + 2): one exp, one division; x >= 20 gives 1 (a NaN x returns
 * through the caller's x) */
static inline float ew_tanh_softplusf(float x) {
    const float e = vm_expf_sm(x < 20.0f ? x : 20.0f);
    const float n = e * (e + 2.0f);
    return n / (n + 2.0f);
}

/* e^v - 1 for the ELU family's negative side (v <= 0; a positive v only reaches lanes the select drops): v clamped to
 * [-20, 0] (e^v - 1 is -1 in float below -17), a NaN passes */
static inline float ew_expm1_negf(float v) {
    v = v > 0.0f ? 0.0f : v;
    v = v < -20.0f ? -20.0f : v;
    return vm_expm1f_mid(v);
}

/* d mish / dx = tanh(softplus(x)) + x sigmoid(x) (1 - tanh(softplus(x))^2), both from one e = e^min(x, 20):
 * tanh(softplus(x)) = n / (n + 2) with n = e (e + 2), sigmoid(x) = e / (1 + e) (1 in float beyond 20) */
static inline float ew_mish_gradf(float x) {
    const float e = vm_expf_sm(x < 20.0f ? x : 20.0f);
    const float n = e * (e + 2.0f);
    const float t = n / (n + 2.0f);
    return t + x * (1.0f - t * t) * (e / (1.0f + e));
}

/* Backward ops whose A2 op_api does not broadcast: every tensor input has out's shape exactly */
static inline aclnnStatus ew_check_no_broadcast(ew_ctx *c) {
    const aclTensor *out = c->args[c->iout];
    for (int i = 0; i < c->d->nargs; i++) {
        if (c->d->kind[i] != EW_ARG_TENSOR) continue;
        const aclTensor *t = c->args[i];
        bool same = t->ndim == out->ndim;
        for (uint64_t k = 0; same && k < t->ndim; k++) same = t->dims[k] == out->dims[k];
        if (!same) {
            char a[256], b[256];
            acl_shape_str(t, a, sizeof a);
            acl_shape_str(out, b, sizeof b);
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s should be the same as %s shape %s.",
                              c->d->name[i], a, c->d->name[c->iout], b);
        }
    }
    return ACLNN_SUCCESS;
}

/* the first aclScalar argument (alpha, lambd) as float, as the op_api reads it (aclScalar::ToFloat) */
static inline const aclScalar *ew_first_scalar(ew_ctx *c, int skip) {
    for (int i = 0; i < c->d->nargs; i++)
        if (c->d->kind[i] == EW_ARG_SCALAR && skip-- == 0) return c->args[i];
    return NULL;
}

/* aclnnCelu: alpha != 0 */
static inline aclnnStatus ew_check_celu_alpha(ew_ctx *c) {
    const aclScalar *s = ew_first_scalar(c, 0);
    const float a = (float)acl_read_f64(s->bytes, s->dtype);
    ACLNN_CHECK(a > 0 || a < 0, ACLNN_ERR_PARAM_INVALID, "alpha cannot be 0 for CELU.");
    return ACLNN_SUCCESS;
}

/* aclnnSoftshrink / aclnnSoftshrinkBackward: lambd >= 0 */
static inline aclnnStatus ew_check_lambd_nonneg(ew_ctx *c) {
    const aclScalar *s = ew_first_scalar(c, 0);
    const float l = (float)acl_read_f64(s->bytes, s->dtype);
    ACLNN_CHECK(!(l < 0.0f), ACLNN_ERR_PARAM_INVALID, "lambd should be greater or equal to 0, but found to be [%f].",
                (double)l);
    return ACLNN_SUCCESS;
}

/* the first plain attribute (a bool such as selfIsResult / isResult) */
static inline int64_t ew_first_attr(ew_ctx *c) {
    for (int i = 0; i < c->d->nargs; i++)
        if (c->d->kind[i] == EW_ARG_ATTR) return c->attr_i[i];
    return 0;
}

/* aclnnLeakyReluBackward: selfIsResult with a negative slope is refused */
static inline aclnnStatus ew_check_leaky_is_result(ew_ctx *c) {
    const aclScalar *s = ew_first_scalar(c, 0);
    const double slope = acl_read_f64(s->bytes, s->dtype);
    ACLNN_CHECK(!(ew_first_attr(c) && slope < 0.0), ACLNN_ERR_PARAM_INVALID,
                "selfIsResult is true with a negative negativeSlope %e (the in-place forward with a negative slope "
                "cannot be differentiated).", slope);
    return ACLNN_SUCCESS;
}

/* aclnnEluBackward: equal shapes, then isResult with a negative alpha is refused */
static inline aclnnStatus ew_check_elu_backward(ew_ctx *c) {
    ACL_TRY(ew_check_no_broadcast(c));
    const aclScalar *s = ew_first_scalar(c, 0);
    const float alpha = (float)acl_read_f64(s->bytes, s->dtype);
    ACLNN_CHECK(!(ew_first_attr(c) && alpha < 0), ACLNN_ERR_PARAM_INVALID,
                "isResult is true with a negative alpha %f (the in-place forward with a negative alpha cannot be "
                "differentiated).", (double)alpha);
    return ACLNN_SUCCESS;
}

/* erfinv(y) in double: a rational first guess refined by two Newton steps on erf */
static inline double ew_erfinv(double y) {
    if (isnan(y) || y < -1 || y > 1) return NAN;
    if (y == 1) return INFINITY;
    if (y == -1) return -INFINITY;
    if (y == 0) return y;
    const double w = -log((1.0 - y) * (1.0 + y));
    double x;
    if (w < 6.25) { /* Giles' single-precision approximation as the starting point */
        const double t = w - 3.125;
        x = -3.6444120640178196996e-21;
        x = -1.685059138182016589e-19 + x * t;
        x = 1.2858480715256400167e-18 + x * t;
        x = 1.115787767802518096e-17 + x * t;
        x = -1.333171662854620906e-16 + x * t;
        x = 2.0972767875968561637e-17 + x * t;
        x = 6.6376381343583238325e-15 + x * t;
        x = -4.0545662729752068639e-14 + x * t;
        x = -8.1519341976054721522e-14 + x * t;
        x = 2.6335093153082322977e-12 + x * t;
        x = -1.2975133253453532498e-11 + x * t;
        x = -5.4154120542946279317e-11 + x * t;
        x = 1.051212273321532285e-09 + x * t;
        x = -4.1126339803469836976e-09 + x * t;
        x = -2.9070369957882005086e-08 + x * t;
        x = 4.2347877827932403518e-07 + x * t;
        x = -1.3654692000834678645e-06 + x * t;
        x = -1.3882523362786468719e-05 + x * t;
        x = 0.0001867342080340571352 + x * t;
        x = -0.00074070253416626697512 + x * t;
        x = -0.0060336708714301490533 + x * t;
        x = 0.24015818242558961693 + x * t;
        x = 1.6536545626831027356 + x * t;
    } else if (w < 16.0) {
        const double t = sqrt(w) - 3.25;
        x = 2.2137376921775787049e-09;
        x = 9.0756561938885390979e-08 + x * t;
        x = -2.7517406297064545428e-07 + x * t;
        x = 1.8239629214389227755e-08 + x * t;
        x = 1.5027403968909827627e-06 + x * t;
        x = -4.013867526981545969e-06 + x * t;
        x = 2.9234449089955446044e-06 + x * t;
        x = 1.2475304481671778723e-05 + x * t;
        x = -4.7318229009055733981e-05 + x * t;
        x = 6.8284851459573175448e-05 + x * t;
        x = 2.4031110387097893999e-05 + x * t;
        x = -0.0003550375203628474796 + x * t;
        x = 0.00095328937973738049703 + x * t;
        x = -0.0016882755560235047313 + x * t;
        x = 0.0024914420961078508066 + x * t;
        x = -0.0037512085075692412107 + x * t;
        x = 0.005370914553590063617 + x * t;
        x = 1.0052589676941592334 + x * t;
        x = 3.0838856104922207635 + x * t;
    } else {
        const double t = sqrt(w) - 5.0;
        x = -2.7109920616438573243e-11;
        x = -2.5556418169965252055e-10 + x * t;
        x = 1.5076572693500548083e-09 + x * t;
        x = -3.7894654401267369937e-09 + x * t;
        x = 7.6157012080783393804e-09 + x * t;
        x = -1.4960026627149240478e-08 + x * t;
        x = 2.9147953450901080826e-08 + x * t;
        x = -6.7711997758452339498e-08 + x * t;
        x = 2.2900482228026654717e-07 + x * t;
        x = -9.9298272942317002539e-07 + x * t;
        x = 4.5260625972231537039e-06 + x * t;
        x = -1.9681778105531670567e-05 + x * t;
        x = 7.5995277030017761139e-05 + x * t;
        x = -0.00021503011930044477347 + x * t;
        x = -0.00013871931833623122026 + x * t;
        x = 1.0103004648645343977 + x * t;
        x = 4.8499064014085844221 + x * t;
    }
    x *= y;
    for (int k = 0; k < 2; k++) { /* Newton on erf(x) - y */
        const double e = erf(x) - y;
        x -= e / (1.1283791670955125739 * exp(-x * x));
    }
    return x;
}

#endif
