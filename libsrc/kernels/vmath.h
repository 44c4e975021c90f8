/* fp32 exp / log1p / tanh / erf as branch-free polynomials that GCC vectorises (every branch is a select, no libm
 * call, no table). One implementation for every path: the scalar tail, the portable loops and the AVX2 / AVX-512
 * variants compile the same IEEE operations in the same order (no FMA: the library builds with
 * -ffp-contract=off and nothing here calls fma), so a result never depends on the SIMD level or the thread count.
 *
 * Accuracy (measured against double libm on a dense grid): exp 0.8 ULP, tanh 2.5, log1p on [0, 1] 1.9, softplus
 * 2.9, erf about 4e-7 absolute; the coefficients are least-squares fits made for this file (float32-rounded), the
 * range reductions the usual ones (exp: n = round(x / ln2) with ln2 split in a short exact head and a tail; log: the
 * exponent and a mantissa in [sqrt(1/2), sqrt(2))).
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

static inline float vm_u2f(uint32_t i) {
    union { uint32_t i; float f; } u = {.i = i};
    return u.f;
}

static inline int32_t vm_f2i(float f) {
    union { float f; int32_t i; } u = {.f = f};
    return u.i;
}

/* c ? a : b through the bits: a formula whose tensor operand is only used on one side of a select (a backward's
 * gradient) otherwise becomes an AVX-512 masked load, which on Zen 5 costs about a cache miss even with every mask
 * bit set; this select reads both sides unconditionally */
static inline float vm_selectf(int c, float a, float b) {
    const uint32_t m = -(uint32_t)c;
    return vm_u2f(((uint32_t)vm_f2i(a) & m) | ((uint32_t)vm_f2i(b) & ~m));
}

/* C99 fmin/fmax semantics (a NaN operand gives the other one) as selects */
static inline float vm_fminf(float a, float b) { return a != a ? b : (b != b ? a : (b < a ? b : a)); }
static inline float vm_fmaxf(float a, float b) { return a != a ? b : (b != b ? a : (b > a ? b : a)); }

/* The exp polynomial, written once for the scalar float and for the 16-lane vector of kernels/vexp_rows.h (the
 * softmax rows): T the value type, TI / TU its signed / unsigned 32-bit lane types, SEL(m, a, b) a lane select,
 * SPLAT(c) a constant of type T, ASI / ASF the bit casts float -> int and unsigned -> float.
 * x is clamped to [-104, 89] (HI = 0: to -104 only); a NaN x is returned as it is (a NaN computed from it could come out with another
 * sign, and the operand order of a later commutative operation meeting two NaNs may differ between levels). n = round(x / ln2) from
 * the 1.5 * 2^23 shift (its low mantissa bits are n), r = x - n ln2 in two parts (the head's product is exact),
 * e^r = 1 + r + r^2 P(r) (degree 6 in all; P a weighted least-squares fit made for this file, about 0.8 ULP on
 * [-ln2/2, ln2/2]), and 2^n applied as two normal factors so a subnormal result is rounded once. */
#define VM_EXP_DEFINE(NAME, ATTR, T, TI, TU, SEL, SPLAT, ASI, ASF, HI)                                              \
    ATTR T NAME(T x) {                                                                                              \
        T xc = SEL(x < SPLAT(-104.0f), SPLAT(-104.0f), x);                                                          \
        if (HI) xc = SEL(xc > SPLAT(89.0f), SPLAT(89.0f), xc);                                                      \
        const T t = xc * 1.44269504f + 12582912.0f;                                                                 \
        const T n = t - 12582912.0f;                                                                                \
        T r = xc - n * 0.693359375f;                                                                                \
        r = r - n * -2.12194440e-4f;                                                                                \
        const T r2 = r * r; /* P in Estrin's order: a shorter dependency chain than Horner's */                   \
        const T pa = r * 1.66665211e-1f + 4.99999940e-1f, pb = r * 8.36871285e-3f + 4.16683890e-2f;                 \
        const T p = (r2 * 1.38145918e-3f + pb) * r2 + pa;                                                           \
        const T y = (p * r2 + r) + 1.0f;                                                                            \
        const TI k = ASI(t) - 0x4B400000, k1 = k >> 1, k2 = k - k1;                                                 \
        return SEL(x == x, (y * ASF((TU)(k1 + 127) << 23)) * ASF((TU)(k2 + 127) << 23), x);                         \
    }

#define VM_SEL_(m, a, b) ((m) ? (a) : (b))
#define VM_SPLAT_(c) (c)
VM_EXP_DEFINE(vm_expf, static inline, float, int32_t, uint32_t, VM_SEL_, VM_SPLAT_, vm_f2i, vm_u2f, 1)
/* the same exp for an x the caller knows to be <= 88 (or NaN): no upper clamp (GCC threads each clamp's constant
 * through the polynomial and keeps both results, a dozen mask operations per clamp) */
VM_EXP_DEFINE(vm_expf_lo, static inline, float, int32_t, uint32_t, VM_SEL_, VM_SPLAT_, vm_f2i, vm_u2f, 0)

/* Cheaper exp forms for callers that bound their argument (the activations' hot loops). The same reduction and
 * polynomial as VM_EXP_DEFINE, in the same order, but 2^n built in one integer operation: t = x log2e + 1.5 * 2^23 +
 * B keeps n + B in its low 9 mantissa bits, so t's bits shifted left by 23 are the float 2^(n + B - 127) when
 * n + B is in [1, 254] (no clamp of n, no split into two factors). q = e^r - 1 = r + r^2 P(r). */
#define VM_EXP_REDUCE_(x, SHIFT, t, r)                                                                              \
    const float t = (x) * 1.44269504f + (SHIFT);                                                                    \
    float r;                                                                                                        \
    {                                                                                                               \
        const float n_ = t - (SHIFT);                                                                               \
        r = (x) - n_ * 0.693359375f;                                                                                \
        r = r - n_ * -2.12194440e-4f;                                                                               \
    }

static inline float vm_expm1_poly_(float r) {
    const float r2 = r * r;
    const float pa = r * 1.66665211e-1f + 4.99999940e-1f, pb = r * 8.36871285e-3f + 4.16683890e-2f;
    const float p = (r2 * 1.38145918e-3f + pb) * r2 + pa;
    return p * r2 + r;
}

/* q = e^r - 1 with the degree-5 fit of vm_log1pexpmf (about 1e-7 against 3e-9: for the activations whose result
 * does not carry e^x's relative error whole, two operations fewer) */
static inline float vm_expm1_poly5_(float r) {
    const float r2 = r * r;
    const float p5 = r2 * (r * 8.31252150e-3f + 4.18901481e-2f) + (r * 1.66671142e-1f + 4.99992311e-1f);
    return p5 * r2 + r;
}

static inline float vm_exp_scale_(float t) { return vm_u2f((uint32_t)vm_f2i(t) << 23); }

/* e^x for x <= 43 (or NaN), clamped below at -104: 2^(n + 64) (B = 191), then 2^-64, so a subnormal result is
 * rounded once, as vm_expf's */
static inline float vm_expf_sm(float x) {
    const float xc = x < -104.0f ? -104.0f : x; /* a NaN stays NaN */
    VM_EXP_REDUCE_(xc, 12583103.0f, t, r)
    return ((vm_expm1_poly_(r) + 1.0f) * vm_exp_scale_(t)) * 5.42101086e-20f;
}

/* the same with the degree-5 polynomial */
static inline float vm_expf_sm5(float x) {
    const float xc = x < -104.0f ? -104.0f : x; /* a NaN stays NaN */
    VM_EXP_REDUCE_(xc, 12583103.0f, t, r)
    return ((vm_expm1_poly5_(r) + 1.0f) * vm_exp_scale_(t)) * 5.42101086e-20f;
}

/* e^x for x in [-87, 88] (the caller clamps; NaN passes): one factor 2^n (B = 127) */
static inline float vm_expf_mid(float x) {
    VM_EXP_REDUCE_(x, 12583039.0f, t, r)
    return (vm_expm1_poly_(r) + 1.0f) * vm_exp_scale_(t);
}

/* the same with the degree-5 polynomial */
static inline float vm_expf_mid5(float x) {
    VM_EXP_REDUCE_(x, 12583039.0f, t, r)
    return (vm_expm1_poly5_(r) + 1.0f) * vm_exp_scale_(t);
}

/* e^x for x in [-86, 89] (the caller clamps; NaN passes): 2y 2^(n-1) (B = 126), so e^x above FLT_MAX rounds once to
 * +inf; the degree-5 polynomial */
static inline float vm_expf_big(float x) {
    VM_EXP_REDUCE_(x, 12583038.0f, t, r)
    const float y = vm_expm1_poly5_(r) + 1.0f; /* 1 / (1 + e^x) and x / (1 + e^x) (gelu tanh): degree 5 */
    return (y + y) * vm_exp_scale_(t);
}

/* e^x - 1 for x in [-87, 88] (the caller clamps; NaN passes): 2^n q + (2^n - 1), no cancellation near 0 */
static inline float vm_expm1f_mid(float x) {
    VM_EXP_REDUCE_(x, 12583039.0f, t, r)
    const float s = vm_exp_scale_(t);
    return s * vm_expm1_poly_(r) + (s - 1.0f);
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

/* log1p(t) for t in [0, 1] (softplus's and log_sigmoid's e^-|y|): log(1 + t) = 2 atanh(s) with s = t / (2 + t) in
 * [0, 1/3], written with s2 = 2s = 2t / (2 + t) as s2 + s2^3 P(s2^2) (P a weighted least-squares fit made for this
 * file; about 2 ULP): one division, no exponent extraction, and 1 + t is never rounded. NaN in -> NaN out. */
static inline float vm_log1p01f(float t) {
    const float s2 = (t + t) / (2.0f + t), w = s2 * s2;
    float p = w * 5.47110511e-4f + 2.18763971e-3f;
    p = p * w + 1.25067281e-2f;
    p = p * w + 8.33330229e-2f;
    return (s2 * w) * p + s2;
}

/* log1p(e^-u) for u >= 0 (or NaN): T = 2^65 e^-u (a normal float up to u = 104, where u is clamped; B = 192), then
 * vm_log1p01f's s2 = 2t / (2 + t) as T / (2^65 + T / 2): the same value as from t = e^-u where t is normal, rounded
 * once where it is subnormal (no scaling back to t, no t + t). The reduction is vm_expf's negated (rho = -r, exact),
 * so -u is never formed; e^r = 1 + r + r^2 P5(r) with a degree-5 fit (about 1e-7) and log1p's P of degree 2 in w
 * (a fit made for this file, 1.9e-7 relative): 5.3 ULP at most against 2.6 with degree 6 / 3, four operations fewer. */
static inline float vm_log1pexpmf(float u) {
    const float uc = u > 104.0f ? 104.0f : u; /* a NaN stays NaN */
    const float t = uc * -1.44269504f + 12583104.0f;
    const float n = t - 12583104.0f;
    float rho = uc + n * 0.693359375f;
    rho = rho + n * -2.12194440e-4f;
    const float r2 = rho * rho;
    const float p5 = r2 * (rho * -8.31252150e-3f + 4.18901481e-2f) + (rho * -1.66671142e-1f + 4.99992311e-1f);
    const float T = ((p5 * r2 - rho) + 1.0f) * vm_exp_scale_(t);
    const float Th = vm_u2f((uint32_t)vm_f2i(T) - 0x00800000u); /* T / 2 (T >= 2^-86; a NaN T gives a number) */
    const float s2 = T / (0x1p65f + Th), w = s2 * s2;
    const float p = (w * 2.65495270e-3f + 1.23862475e-2f) * w + 8.33418518e-2f;
    return (s2 * w) * p + s2;
}

/* softplus(y) = log(1 + e^y) = max(y, 0) + log1p(e^-|y|) */
static inline float vm_softplusf(float y) { return (y > 0.0f ? y : 0.0f) + vm_log1pexpmf(fabsf(y)); }

/* tanh(x) = sign(x) (-m) / (2 + m) with m = e^(-2|x|) - 1 computed as an expm1 from the exp polynomial (no
 * cancellation near 0: m = 2^n (r + r^2 P(r)) + (2^n - 1), n = 0 there), -2|x| clamped to -20 (tanh = 1 beyond);
 * the sign is copied back from x, so -0 stays -0 and a NaN comes back with x's sign. */
static inline float vm_tanhf(float x) {
    float v = fabsf(x) * -2.0f;
    v = v < -20.0f ? -20.0f : v; /* a NaN stays NaN */
    const float t = v * 1.44269504f + 12582912.0f;
    const float n = t - 12582912.0f;
    float r = v - n * 0.693359375f;
    r = r - n * -2.12194440e-4f;
    const float r2 = r * r;
    const float pa = r * 1.66665211e-1f + 4.99999940e-1f, pb = r * 8.36871285e-3f + 4.16683890e-2f;
    const float q = ((r2 * 1.38145918e-3f + pb) * r2 + pa) * r2 + r;
    const float s = vm_u2f((uint32_t)(vm_f2i(t) - (0x4B400000 - 127)) << 23); /* 2^n, n in [-29, 0] */
    const float m = s * q + (s - 1.0f);
    const float u = fabsf(m / (-2.0f - m)); /* m = +0 at x = +-0 gives -0 */
    return vm_u2f((uint32_t)vm_f2i(u) | ((uint32_t)vm_f2i(x) & 0x80000000u));
}

/* erf(x) = sign(x) |x| P(x^2) / Q(x^2) for |x| <= 4 (a rational least-squares fit made for this file; erfc(4) is
 * below half an ULP of 1), |x| clamped to 4 and the result to 1 (the fit exceeds 1 by a few ULP near 3.95); one
 * division instead of a second polynomial and an exp. The sign is copied back from x (-0 stays -0, a NaN flows
 * through with x's sign). */
static inline float vm_erff(float x) {
    const float ax = fabsf(x);
    const float xc = ax > 4.0f ? 4.0f : ax; /* a NaN stays NaN */
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
    r = r > 1.0f ? 1.0f : r;
    return vm_u2f((uint32_t)vm_f2i(r) | ((uint32_t)vm_f2i(x) & 0x80000000u));
}

#endif
