/* Scalar helpers of the binary math table ops (tools/optable/math_binary.py): PyTorch CPU's integer and floor/
 * remainder semantics, shifts at the input's own width. Integer division by zero gives 0 (PyTorch raises;
 * the NPU returns a value), never a trap. */
#ifndef PYACLNN_OPS_EW_MATH_BINARY_H
#define PYACLNN_OPS_EW_MATH_BINARY_H

#include "common/dtype.h"
#include "common/status.h"
#include "ops/elementwise.h"

/* ---- promotion and check hooks (tools/optable `promote=` / `check=`) ---- */

/* the promoted dtype of the tensor inputs (PromoteType over those that take part) */
static inline aclDataType ew_promote_tensors(const ew_ctx *c) {
    aclDataType t = ACL_DT_UNDEFINED;
    for (int i = 0; i < c->d->nargs; i++) {
        unsigned char k = c->d->kind[i];
        if ((k != EW_ARG_TENSOR && k != EW_ARG_INOUT) || (c->d->no_promote >> i & 1u)) continue;
        aclDataType x = ((const aclTensor *)c->args[i])->dtype;
        t = t == ACL_DT_UNDEFINED ? x : acl_promote(t, x);
    }
    return t;
}

/* bitwise or/xor with a scalar: PromoteType(self, scalar dtype), an INT64 scalar whose value fits int32 counting as
 * INT32 */
static inline aclnnStatus ew_promote_scalar_i32fit(ew_ctx *c) {
    aclDataType t = ew_promote_tensors(c);
    for (int i = 0; i < c->d->nargs; i++) {
        if (c->d->kind[i] != EW_ARG_SCALAR || c->args[i] == NULL) continue;
        const aclScalar *s = c->args[i];
        aclDataType sd = s->dtype;
        if (sd == ACL_INT64) {
            int64_t v = acl_read_i64(s->bytes, sd);
            if (v >= INT32_MIN && v <= INT32_MAX) sd = ACL_INT32;
        }
        t = acl_promote(t, sd);
    }
    c->pdt = t;
    return ACLNN_SUCCESS;
}

static inline const aclScalar *ew_first_scalar(const ew_ctx *c) {
    for (int i = 0; i < c->d->nargs; i++)
        if (c->d->kind[i] == EW_ARG_SCALAR && c->args[i] != NULL) return c->args[i];
    return NULL;
}

/* Eq/Ne with a scalar (the A2 branch): a complex self, or a floating self with a real scalar, keeps its dtype; a
 * bool self or a floating/complex scalar promotes with the scalar's dtype (PromoteType); else self's dtype */
static inline aclnnStatus ew_promote_cmp_scalar(ew_ctx *c) {
    aclDataType t = ew_promote_tensors(c), s = ew_first_scalar(c)->dtype;
    if (acl_dt_is_complex(t) || (acl_dt_is_float(t) && !acl_dt_is_complex(s))) c->pdt = t;
    else if (t == ACL_BOOL || acl_dt_is_float(s) || acl_dt_is_complex(s)) c->pdt = acl_promote(t, s);
    else c->pdt = t;
    return ACLNN_SUCCESS;
}

/* Le with a scalar: a floating self keeps its dtype; a DOUBLE scalar compares as FLOAT; else PromoteType */
static inline aclnnStatus ew_promote_le_scalar(ew_ctx *c) {
    aclDataType t = ew_promote_tensors(c), s = ew_first_scalar(c)->dtype;
    c->pdt = acl_dt_is_float(t) ? t : s == ACL_DOUBLE ? ACL_FLOAT : acl_promote(t, s);
    return ACLNN_SUCCESS;
}

/* Lt with a scalar: the scalar becomes a tensor of self's dtype (a floating self), of FLOAT (a DOUBLE scalar) or of
 * its own dtype, then PromoteType */
static inline aclnnStatus ew_promote_lt_scalar(ew_ctx *c) {
    aclDataType t = ew_promote_tensors(c), s = ew_first_scalar(c)->dtype;
    c->pdt = acl_promote(t, acl_dt_is_float(t) ? t : s == ACL_DOUBLE ? ACL_FLOAT : s);
    return ACLNN_SUCCESS;
}

/* Gt/Ge: PromoteType, a BOOL result compared as INT8 */
static inline aclnnStatus ew_promote_bool_i8(ew_ctx *c) {
    aclDataType t = ew_promote_tensors(c);
    const aclScalar *s = ew_first_scalar(c);
    if (s) t = acl_promote(t, s->dtype);
    c->pdt = t == ACL_BOOL ? ACL_INT8 : t;
    return ACLNN_SUCCESS;
}

/* Gt/Ge with a scalar: as ew_promote_bool_i8, but a DOUBLE scalar with a floating self keeps self's dtype when the
 * scalar, cast to self's dtype (fp32 / fp16; others as double), moves by at most float32's epsilon */
static inline aclnnStatus ew_promote_gt_scalar(ew_ctx *c) {
    ACL_TRY(ew_promote_bool_i8(c));
    aclDataType t = ew_promote_tensors(c);
    const aclScalar *s = ew_first_scalar(c);
    if (s->dtype == ACL_DOUBLE && acl_dt_is_float(t)) {
        double v = acl_read_f64(s->bytes, s->dtype), cast = v;
        if (t == ACL_FLOAT) cast = (double)(float)v;
        else if (t == ACL_FLOAT16) cast = (double)acl_f16_to_f32(acl_f32_to_f16((float)v));
        if (fabs(cast - v) <= 1.1920928955078125e-07) c->pdt = t;
    }
    return ACLNN_SUCCESS;
}

/* PowTensorTensor: a BOOL self with a BOOL exponent is refused */
static inline aclnnStatus ew_check_not_both_bool(ew_ctx *c) {
    const aclTensor *a = c->args[0], *b = c->args[1];
    ACLNN_CHECK(!(a->dtype == ACL_BOOL && b->dtype == ACL_BOOL), ACLNN_ERR_PARAM_INVALID,
                "%s and %s dtype are bool is not supported.", c->d->name[0], c->d->name[1]);
    return ACLNN_SUCCESS;
}

/* ---- aclnnDivMod / aclnnDivMods (mode 0: true division, 1: truncating, 2: flooring), the A2 branches ---- */

static inline int64_t ew_mode_attr(const ew_ctx *c) { return c->attr_i[ew_arg_index(c->d, "mode")]; }

static inline bool ew_div_mix_pair(aclDataType a, aclDataType b) {
    bool fa = a == ACL_FLOAT16 || a == ACL_FLOAT || a == ACL_BF16, fb = b == ACL_FLOAT16 || b == ACL_FLOAT || b == ACL_BF16;
    return fa && fb;
}

/* DivMod: out must take PromoteType(self, other); the division runs in float32 for two fp16/fp32/bf16 inputs (the
 * mixed-dtype kernels); flooring in the promoted dtype (BOOL as FLOAT); true and truncating division in FLOAT
 * unless the promoted dtype is FLOAT, FLOAT16, BF16 or complex, or both inputs are INT32 (truncating then stays in
 * int32; a true int32 division is taken as the real quotient). DOUBLE true/truncating division runs in FLOAT on A2. */
static inline aclnnStatus ew_promote_divmod(ew_ctx *c) {
    const aclTensor *a = c->args[0], *b = c->args[1];
    aclDataType p = acl_promote(a->dtype, b->dtype);
    int64_t mode = ew_mode_attr(c);
    c->pdt = p;
    if (p == ACL_DT_UNDEFINED) return ACLNN_SUCCESS;
    aclDataType k = p;
    if (ew_div_mix_pair(a->dtype, b->dtype)) {
        k = ACL_FLOAT;
    } else if (mode == 2) {
        k = p == ACL_BOOL ? ACL_FLOAT : p;
    } else {
        bool i32 = a->dtype == ACL_INT32 && b->dtype == ACL_INT32;
        bool keep = p == ACL_FLOAT || p == ACL_FLOAT16 || p == ACL_BF16 || acl_dt_is_complex(p) || (i32 && mode == 1);
        k = keep ? p : ACL_FLOAT;
    }
    c->kdt = k;
    return ACLNN_SUCCESS;
}

/* DivMods: out must take self's dtype; the quotient runs in float32 for an fp16/fp32/bf16 self with an
 * fp16/fp32/bf16 scalar; flooring in PromoteType(self, scalar) (BOOL as FLOAT); true/truncating division in self's
 * dtype when it is FLOAT, FLOAT16 or BF16 (or both are INT32 and truncating, or BOOL), else FLOAT; a complex self or
 * scalar in PromoteType(self, scalar). */
static inline aclnnStatus ew_promote_divmods(ew_ctx *c) {
    const aclTensor *a = c->args[0];
    const aclScalar *s = c->args[1];
    aclDataType p = acl_promote(a->dtype, s->dtype), sd = a->dtype;
    int64_t mode = ew_mode_attr(c);
    c->pdt = sd;
    aclDataType k;
    if (ew_div_mix_pair(sd, s->dtype)) {
        k = ACL_FLOAT;
    } else if (mode == 2) {
        k = p == ACL_BOOL ? ACL_FLOAT : p;
    } else {
        bool keep = sd == ACL_FLOAT || sd == ACL_FLOAT16 || sd == ACL_BF16 || p == ACL_BOOL ||
                    (sd == ACL_INT32 && s->dtype == ACL_INT32 && mode == 1);
        k = keep ? sd : ACL_FLOAT;
        if (acl_dt_is_complex(sd) || acl_dt_is_complex(s->dtype)) k = p;
    }
    if (k == ACL_BOOL) k = ACL_FLOAT; /* a true division of bools: the real quotient */
    c->kdt = k;
    return ACLNN_SUCCESS;
}

/* aclnnDiv / aclnnInplaceDiv (A2): out must take PromoteType(self, other); the quotient runs in float32 for two
 * fp16/fp32/bf16 inputs, in the promoted dtype when it is floating or complex, else (integers, bool) as the real
 * quotient in FLOAT. */
static inline aclnnStatus ew_promote_div(ew_ctx *c) {
    const aclTensor *a = c->args[0], *b = c->args[1];
    aclDataType p = acl_promote(a->dtype, b->dtype);
    c->pdt = p;
    c->kdt = ew_div_mix_pair(a->dtype, b->dtype) ? ACL_FLOAT
             : (acl_dt_is_float(p) || acl_dt_is_complex(p)) ? p : ACL_FLOAT;
    return ACLNN_SUCCESS;
}

/* aclnnDivs / aclnnInplaceDivs (A2): out must take self's dtype; the quotient runs in float32 for an fp16/fp32/bf16
 * self with an fp16/fp32/bf16/fp64 scalar, in self's dtype when it is floating or complex (promoted with a complex
 * scalar), else as the real quotient in FLOAT. */
static inline aclnnStatus ew_promote_divs(ew_ctx *c) {
    const aclTensor *a = c->args[0];
    const aclScalar *s = c->args[1];
    aclDataType sd = a->dtype, k;
    c->pdt = sd;
    if ((sd == ACL_FLOAT16 || sd == ACL_FLOAT || sd == ACL_BF16) &&
        (s->dtype == ACL_FLOAT16 || s->dtype == ACL_FLOAT || s->dtype == ACL_BF16 || s->dtype == ACL_DOUBLE))
        k = ACL_FLOAT;
    else
        k = (acl_dt_is_float(sd) || acl_dt_is_complex(sd)) ? sd : ACL_FLOAT;
    if (acl_dt_is_complex(s->dtype)) k = acl_promote(k, s->dtype);
    c->kdt = k;
    return ACLNN_SUCCESS;
}

/* mode in 0..2; a complex quotient can only be a true division */
static inline aclnnStatus ew_check_divmod(ew_ctx *c) {
    int64_t mode = ew_mode_attr(c);
    ACLNN_CHECK(mode >= 0 && mode <= 2, ACLNN_ERR_PARAM_INVALID, "mode should be between 0 and 2, but current is %lld",
                (long long)mode);
    aclDataType k = c->kdt != ACL_DT_UNDEFINED ? c->kdt : c->pdt;
    ACLNN_CHECK(!(mode != 0 && acl_dt_is_complex(k)), ACLNN_ERR_PARAM_INVALID,
                "promoteType do not support DT_COMPLEX128 or DT_COMPLEX64 with mode %lld.", (long long)mode);
    return ACLNN_SUCCESS;
}

/* a tensor argument that must be 0-d (InplaceMaskedFillTensor's value) */
static inline aclnnStatus ew_check_value_0d(ew_ctx *c) {
    int i = ew_arg_index(c->d, "value");
    const aclTensor *v = c->args[i];
    ACLNN_CHECK(v->ndim == 0, ACLNN_ERR_PARAM_INVALID, "value should be a 0-dimensional tensor, but it has %llu dims.",
                (unsigned long long)v->ndim);
    return ACLNN_SUCCESS;
}

static inline int64_t ew_ifloordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return (int64_t)(0 - (uint64_t)a);
    int64_t q = a / b, r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? q - 1 : q;
}
static inline int64_t ew_iremainder(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}
static inline int64_t ew_ifmod(int64_t a, int64_t b) { return (b == 0 || b == -1) ? 0 : a % b; }

/* PyTorch's div_floor for floating types */
static inline double ew_floordiv(double a, double b) {
    if (b == 0) return a / b;
    double mod = fmod(a, b);
    double div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= 1;
    double fl;
    if (div != 0) {
        fl = floor(div);
        if (div - fl > 0.5) fl += 1;
    } else {
        fl = copysign(0.0, a / b);
    }
    return fl;
}
static inline double ew_remainder(double a, double b) {
    double mod = fmod(a, b);
    if (mod != 0 && ((b < 0) != (mod < 0))) mod += b;
    return mod;
}

/* integer power by squaring (wrapping); negative exponents as PyTorch: 1 for base 1, +-1 for -1, else 0 */
static inline int64_t ew_ipow(int64_t a, int64_t b) {
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0);
    uint64_t r = 1, x = (uint64_t)a;
    while (b) {
        if (b & 1) r *= x;
        x *= x;
        b >>= 1;
    }
    return (int64_t)r;
}

static inline int64_t ew_gcd(int64_t a, int64_t b) {
    uint64_t x = a < 0 ? 0 - (uint64_t)a : (uint64_t)a, y = b < 0 ? 0 - (uint64_t)b : (uint64_t)b;
    while (y) {
        uint64_t t = x % y;
        x = y;
        y = t;
    }
    return (int64_t)x;
}

static inline int ew_bits(aclDataType dt) {
    switch (dt) {
    case ACL_INT8: case ACL_UINT8: return 8;
    case ACL_INT16: case ACL_UINT16: return 16;
    case ACL_INT32: case ACL_UINT32: return 32;
    default: return 64;
    }
}
/* a << b at a's width: shifts outside [0, bits) give 0 */
static inline int64_t ew_shl(int64_t a, int64_t b, aclDataType dt) {
    return (b < 0 || b >= ew_bits(dt)) ? 0 : (int64_t)((uint64_t)a << b);
}
/* a >> b at a's width (arithmetic for signed types): shifts outside [0, bits) fill with the sign */
static inline int64_t ew_shr(int64_t a, int64_t b, aclDataType dt) {
    int bits = ew_bits(dt);
    if (b < 0 || b >= bits) b = bits - 1;
    return a >> b;
}

static inline double ew_logaddexp(double a, double b) {
    if (isinf(a) && a == b) return a;
    double m = a > b ? a : b;
    if (isnan(a) || isnan(b)) return a + b;
    return m + log1p(exp(-fabs(a - b)));
}
static inline double ew_logaddexp2(double a, double b) {
    if (isinf(a) && a == b) return a;
    double m = a > b ? a : b;
    if (isnan(a) || isnan(b)) return a + b;
    return m + log1p(exp2(-fabs(a - b))) / 0.69314718055994530942;
}

#endif
