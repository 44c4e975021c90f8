/* Element sizes, names and the only fp16/bf16 <-> fp32 conversions of the library (round to nearest even). */
#ifndef PYACLNN_COMMON_DTYPE_H
#define PYACLNN_COMMON_DTYPE_H

#include <stdint.h>
#include <string.h>
#include "acl/acl_base.h"

size_t acl_dtype_size(aclDataType dt);    /* 0 for unknown or sub-byte types */
const char *acl_dtype_name(aclDataType dt);
const char *acl_format_name(aclFormat fmt);

static inline float acl_f16_to_f32(uint16_t h) {
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    uint32_t em = h & 0x7fffu;
    uint32_t bits;
    if (em >= 0x7c00u) {
        bits = 0x7f800000u | ((em & 0x3ffu) << 13);
    } else if (em >= 0x0400u) {
        bits = (em << 13) + 0x38000000u;
    } else {
        float f = (float)em * 5.9604644775390625e-08f; /* em * 2^-24, exact */
        memcpy(&bits, &f, 4);
    }
    bits |= sign;
    float out;
    memcpy(&out, &bits, 4);
    return out;
}

static inline uint16_t acl_f32_to_f16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t ax = x & 0x7fffffffu;
    if (ax >= 0x7f800000u) {
        if (ax == 0x7f800000u) return (uint16_t)(sign | 0x7c00u);
        uint16_t r = (uint16_t)(0x7c00u + ((ax & 0x007fffffu) >> 13)); /* NaN: keep the top payload bits */
        if (r == 0x7c00u) r++;
        return (uint16_t)(sign | r);
    }
    if (ax >= 0x477ff000u) return (uint16_t)(sign | 0x7c00u); /* rounds to infinity */
    if (ax < 0x38800000u) {                                     /* half subnormal or zero */
        float a;
        memcpy(&a, &ax, 4);
        a += 0.5f; /* the FPU rounds to a multiple of 2^-24 with ties to even */
        uint32_t r;
        memcpy(&r, &a, 4);
        return (uint16_t)(sign | (uint16_t)(r - 0x3f000000u));
    }
    uint32_t odd = (ax >> 13) & 1u;
    ax += 0xc8000fffu + odd;
    return (uint16_t)(sign | (uint16_t)(ax >> 13));
}

static inline float acl_bf16_to_f32(uint16_t b) {
    uint32_t bits = (uint32_t)b << 16;
    float out;
    memcpy(&out, &bits, 4);
    return out;
}

static inline uint16_t acl_f32_to_bf16(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    if ((x & 0x7fffffffu) > 0x7f800000u) return (uint16_t)((x >> 16) | 0x40u); /* quiet NaN, sign kept */
    x += 0x7fffu + ((x >> 16) & 1u);
    return (uint16_t)(x >> 16);
}

#endif
