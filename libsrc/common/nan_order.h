/* Arithmetic whose NaN result does not depend on the instruction set or on how the compiler orders operands.
 *
 * When two NaNs with different payloads meet in an addition or a product, x86 keeps the first source operand's
 * payload, and which operand is "first" is the compiler's choice for commutative operations (and differs between
 * the FMA forms). A kernel whose vector paths and portable loop combine the same values in the same order can still
 * produce different NaN bytes at different SIMD levels. The rule the library uses instead, at every level:
 *
 *   the result of  a op b  (written order) is  a quietened  if a is NaN, else  b quietened  if b is NaN, else the
 *   hardware's  a op b  (which gives the default NaN for Inf - Inf, 0 * Inf, ...).
 *
 * fma(a, b, c) = a * b + c follows the rule for the product first, then for the sum. Kernels keep their fast paths
 * for NaN-free results and recompute an output element whose fast result is NaN with these functions, in the
 * scalar reference's operation order. */
#ifndef PYACLNN_NAN_ORDER_H
#define PYACLNN_NAN_ORDER_H

#include <stdint.h>
#include <string.h>

static inline int no_isnan_f(float a) {
    uint32_t u;
    memcpy(&u, &a, 4);
    return (u & 0x7fffffffu) > 0x7f800000u;
}
static inline float no_quiet_f(float a) {
    uint32_t u;
    memcpy(&u, &a, 4);
    u |= 0x00400000u;
    memcpy(&a, &u, 4);
    return a;
}
static inline int no_isnan_d(double a) {
    uint64_t u;
    memcpy(&u, &a, 8);
    return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
}
static inline double no_quiet_d(double a) {
    uint64_t u;
    memcpy(&u, &a, 8);
    u |= 0x0008000000000000ull;
    memcpy(&a, &u, 8);
    return a;
}

static inline float no_add_f(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a + b;
}
static inline float no_sub_f(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a - b;
}
static inline float no_mul_f(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a * b;
}
static inline float no_div_f(float a, float b) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    return a / b;
}
/* a * b + c: the product's rule first (an invalid 0 * Inf is the default NaN whatever c is), then the sum's;
 * one rounding when the caller's fast path fuses it (fused = 1), two otherwise */
static inline float no_fma_f(float a, float b, float c, int fused) {
    if (no_isnan_f(a)) return no_quiet_f(a);
    if (no_isnan_f(b)) return no_quiet_f(b);
    float p = a * b;
    if (no_isnan_f(p)) return p;
    if (no_isnan_f(c)) return no_quiet_f(c);
    return fused ? __builtin_fmaf(a, b, c) : p + c;
}
static inline double no_add_d(double a, double b) {
    if (no_isnan_d(a)) return no_quiet_d(a);
    if (no_isnan_d(b)) return no_quiet_d(b);
    return a + b;
}
static inline double no_mul_d(double a, double b) {
    if (no_isnan_d(a)) return no_quiet_d(a);
    if (no_isnan_d(b)) return no_quiet_d(b);
    return a * b;
}

#endif
