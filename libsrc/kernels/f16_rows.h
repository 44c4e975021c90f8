/* A branch-free fp32 -> fp16 conversion for contiguous rows, so the compiler can vectorise it. Bit-identical to
 * acl_f32_to_f16 (common/dtype.h) for every fp32 bit pattern, NaN payloads included: checked exhaustively over
 * all 2^32 inputs when it was written (a 13 s loop comparing the two). Candidate for common/dtype.h. */
#ifndef PYACLNN_KERNELS_F16_ROWS_H
#define PYACLNN_KERNELS_F16_ROWS_H

#include <stdint.h>
#include <string.h>

static inline uint16_t acl_f32_to_f16_nb(float f) {
    uint32_t w;
    memcpy(&w, &f, 4);
    const int32_t aw = (int32_t)(w & 0x7fffffffu);
    /* Scale so the fp32 adder rounds at the fp16 mantissa position (to nearest even): multiplying by 2^112 and
     * then 2^-110 saturates out-of-range values to infinity and leaves in-range values exact. */
    float af;
    memcpy(&af, &aw, 4);
    float base = (af * 0x1.0p+112f) * 0x1.0p-110f;
    int32_t half_bias = aw & 0x7f800000; /* the exponent field */
    half_bias += (0x38800000 - half_bias) & -(int32_t)(half_bias < 0x38800000); /* max(., 0x38800000) */
    const int32_t bb = half_bias + 0x07800000;
    float bf;
    memcpy(&bf, &bb, 4);
    base = bf + base;
    int32_t bits;
    memcpy(&bits, &base, 4);
    const int32_t nonsign = ((bits >> 13) & 0x7c00) + (bits & 0x0fff);
    const int32_t payload = (aw & 0x007fffff) >> 13;
    const int32_t nan = 0x7c00 + payload + (int32_t)(payload == 0);
    const int32_t r = nonsign ^ ((nonsign ^ nan) & -(int32_t)(aw > 0x7f800000)); /* NaN ? nan : nonsign */
    return (uint16_t)((int32_t)((w >> 16) & 0x8000u) | r);
}

static inline void acl_f32_to_f16_row(uint16_t *dst, const float *src, int64_t n) {
    for (int64_t i = 0; i < n; i++) dst[i] = acl_f32_to_f16_nb(src[i]);
}

#endif
