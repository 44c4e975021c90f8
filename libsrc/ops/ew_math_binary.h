/* Scalar helpers of the binary math table ops (tools/optable/math_binary.py): PyTorch CPU's integer and floor/
 * remainder semantics, shifts at the input's own width. Integer division by zero gives 0 (PyTorch raises;
 * the NPU returns a value), never a trap. */
#ifndef PYACLNN_OPS_EW_MATH_BINARY_H
#define PYACLNN_OPS_EW_MATH_BINARY_H

#include "ops/elementwise.h"

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
