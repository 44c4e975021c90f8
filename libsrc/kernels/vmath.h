/* fp32 exp / log1p / tanh / erf as branch-free polynomials that GCC vectorises (every branch is a select, no libm
 * call, no table). One implementation for every path: the scalar tail, the portable loops and the AVX2 / AVX-512
 * variants compile the same IEEE operations in the same order (no FMA: the library builds with
 * -ffp-contract=off and nothing here calls fma), so a result never depends on the SIMD level or the thread count.
 *
 * Accuracy (measured against double libm on a dense grid): a few ULP; the coefficients are least-squares fits made
 * for this file (float32-rounded), the range reductions the usual ones (exp: n = round(x / ln2) with ln2 split in a
 * short exact head and a tail; log: the exponent and a mantissa in [sqrt(1/2), sqrt(2))).
 * Special values: exp(+inf) = inf, exp(-inf) = 0, log1p(-1) = -inf, log1p(x < -1) = NaN, tanh(+-inf) = +-1,
 * erf(+-inf) = +-1, NaN in -> NaN out; subnormal results of exp are rounded once (two-step scaling). */
#ifndef PYACLNN_KERNELS_VMATH_H
#define PYACLNN_KERNELS_VMATH_H

#include <math.h>
#include <stdint.h>

static inline float vm_i2f(int32_t i) {
    union { int32_t i; float f; } u = {.i = i};
    return u.f;
}

static inline int32_t vm_f2i(float f) {
    union { float f; int32_t i; } u = {.f = f};
    return u.i;
}

/* C99 fmin/fmax semantics (a NaN operand gives the other one) as selects */
static inline float vm_fminf(float a, float b) { return a != a ? b : (b != b ? a : (b < a ? b : a)); }
static inline float vm_fmaxf(float a, float b) { return a != a ? b : (b != b ? a : (b > a ? b : a)); }

static inline float vm_expf(float x) {
    /* clamped to [-104, 89] (NaN -> -104, restored at the end): n = round(x / ln2) stays in [-150, 129] */
    float xc = x > -104.0f ? x : -104.0f;
    xc = xc < 89.0f ? xc : 89.0f;
    const float n = (xc * 1.44269504f + 12582912.0f) - 12582912.0f;
    float r = xc - n * 0.693359375f; /* n * head is exact */
    r = r - n * -2.12194440e-4f;
    float p = 1.98993963e-4f;
    p = p * r + 1.39337324e-3f;
    p = p * r + 8.33329838e-3f;
    p = p * r + 4.16664630e-2f;
    p = p * r + 1.66666672e-1f;
    p = p * r + 0.5f;
    const float y = 1.0f + (r + r * r * p);
    const int32_t k = (int32_t)n, k1 = k >> 1, k2 = k - k1; /* 2^k as two normal factors */
    const float res = y * vm_i2f((k1 + 127) << 23) * vm_i2f((k2 + 127) << 23);
    return x != x ? x : res;
}

static inline float vm_log1pf(float x) {
    const float u = 1.0f + x;
    const float uc = (u >= 1.17549435e-38f && u <= 3.40282347e38f) ? u : 1.0f; /* specials: fixed at the end */
    const float c = (x - (uc - 1.0f)) / uc; /* the rounding of 1 + x, to first order */
    const int32_t bits = vm_f2i(uc);
    const int32_t e0 = (bits >> 23) - 126; /* uc = m * 2^e0, m in [0.5, 1) */
    const float m = vm_i2f((bits & 0x007fffff) | 0x3f000000);
    const int lo = m < 0.707106781f;
    const int32_t e = lo ? e0 - 1 : e0;
    const float f = lo ? (m + m) - 1.0f : m - 1.0f; /* log(uc) = e ln2 + log1p(f), f in [-0.293, 0.414] */
    const float z = f * f;
    float p = 7.15003684e-2f;
    p = p * f + -1.15712367e-1f;
    p = p * f + 1.16614111e-1f;
    p = p * f + -1.24110445e-1f;
    p = p * f + 1.42499492e-1f;
    p = p * f + -1.66684806e-1f;
    p = p * f + 2.00007066e-1f;
    p = p * f + -2.49999896e-1f;
    p = p * f + 3.33333313e-1f;
    const float ef = (float)e;
    float y = f * z * p + ef * -2.12194440e-4f;
    y = y - 0.5f * z;
    y = y + c;
    float r = (f + y) + ef * 0.693359375f;
    r = u == 0.0f ? -INFINITY : r;
    r = u < 0.0f ? NAN : r;
    r = u > 3.40282347e38f ? u : r; /* +inf */
    return (x != x || x == 0.0f) ? x : r; /* NaN, and -0 keeps its sign */
}

/* log1p(t) for t in [0, 1] (softplus's e^-|y|): 1 + t in [1, 2] needs no exponent extraction, and the rounding
 * correction (t - (u - 1)) / u takes 1 / u from a line exact at u = 1 and 2 (the correction is below an ULP, so its
 * few-percent error is not seen); NaN in -> NaN out */
static inline float vm_log1p01f(float t) {
    const float u = 1.0f + t;
    const int hi = u > 1.41421356f;
    const float f = hi ? u * 0.5f - 1.0f : u - 1.0f; /* exact */
    const float c = (t - (u - 1.0f)) * (1.5f - 0.5f * u);
    const float z = f * f;
    float p = 7.15003684e-2f;
    p = p * f + -1.15712367e-1f;
    p = p * f + 1.16614111e-1f;
    p = p * f + -1.24110445e-1f;
    p = p * f + 1.42499492e-1f;
    p = p * f + -1.66684806e-1f;
    p = p * f + 2.00007066e-1f;
    p = p * f + -2.49999896e-1f;
    p = p * f + 3.33333313e-1f;
    const float e = hi ? 1.0f : 0.0f;
    float y = f * z * p + e * -2.12194440e-4f;
    y = y - 0.5f * z;
    y = y + c;
    return (f + y) + e * 0.693359375f;
}

/* softplus(y) = log(1 + e^y) = max(y, 0) + log1p(e^-|y|) */
static inline float vm_softplusf(float y) { return (y > 0.0f ? y : 0.0f) + vm_log1p01f(vm_expf(-fabsf(y))); }

static inline float vm_tanhf(float x) {
    const float ax = fabsf(x), z = x * x;
    float p = 2.20719399e-3f;
    p = p * z + -8.25265143e-3f;
    p = p * z + 2.17335969e-2f;
    p = p * z + -5.39533123e-2f;
    p = p * z + 1.33332625e-1f;
    p = p * z + -3.33333313e-1f;
    const float small = x + x * z * p;
    const float e = vm_expf(ax + ax); /* inf for large |x|: 1 - 0 */
    const float big = 1.0f - 2.0f / (e + 1.0f);
    return ax < 0.625f ? (x == 0.0f ? x : small) : (x < 0.0f ? -big : big); /* -0 keeps its sign */
}

/* erf(x) = x P(x^2) / Q(x^2) on [-4, 4] (a rational least-squares fit made for this file; erfc(4) is below half an
 * ULP of 1), clamped to [-1, 1]; one division instead of a second polynomial and an exp */
static inline float vm_erff(float x) {
    const float xc = x > -4.0f ? (x < 4.0f ? x : 4.0f) : -4.0f; /* NaN -> -4, restored at the end */
    const float z = xc * xc;
    float p = -1.05429283e-8f;
    p = p * z + 4.20705237e-6f;
    p = p * z + 3.61021637e-4f;
    p = p * z + 3.74130136e-3f;
    p = p * z + 5.37300520e-2f;
    p = p * z + 1.83782682e-1f;
    p = p * z + 1.12837923f;
    float q = 5.86444803e-5f;
    q = q * z + 1.26088632e-3f;
    q = q * z + 1.51786404e-2f;
    q = q * z + 1.13018654e-1f;
    q = q * z + 4.96206611e-1f;
    q = q * z + 1.0f;
    float r = xc * p / q;
    r = r < 1.0f ? (r > -1.0f ? r : -1.0f) : 1.0f;
    return x != x ? x : r;
}

#endif
