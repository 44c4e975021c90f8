/* Dtype categories, promotion, cast rules and the one generic element converter. */
#include "common/dtype_rules.h"

#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "kernels/f16_rows.h"
#include "common/half_rows.h"

typedef float complex c64_t;
typedef double complex c128_t;

/* acl_f16_to_f32 without branches (same bits for every input), so conversion loops vectorise. */
static inline float f16_to_f32_nb(uint16_t h) {
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t em = h & 0x7fffu;
    const uint32_t normal = (em << 13) + 0x38000000u;
    const uint32_t infnan = 0x7f800000u | ((em & 0x3ffu) << 13);
    const float sub = (float)(int32_t)em * 5.9604644775390625e-08f; /* em * 2^-24, exact */
    uint32_t subb;
    memcpy(&subb, &sub, 4);
    uint32_t bits = em >= 0x7c00u ? infnan : (em >= 0x0400u ? normal : subb);
    bits |= sign;
    float out;
    memcpy(&out, &bits, 4);
    return out;
}

bool acl_dt_is_float(aclDataType d) {
    return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_DOUBLE;
}
bool acl_dt_is_int(aclDataType d) {
    return d == ACL_INT8 || d == ACL_INT16 || d == ACL_INT32 || d == ACL_INT64 || d == ACL_UINT8 ||
           d == ACL_UINT16 || d == ACL_UINT32 || d == ACL_UINT64;
}
bool acl_dt_is_complex(aclDataType d) { return d == ACL_COMPLEX64 || d == ACL_COMPLEX128 || d == ACL_COMPLEX32; }
bool acl_dt_known(aclDataType d) {
    return acl_dt_is_float(d) || acl_dt_is_int(d) || d == ACL_BOOL || d == ACL_COMPLEX64 || d == ACL_COMPLEX128;
}

/* PyTorch's promotion lattice over u8 i8 i16 i32 i64 f16 f32 f64 c32(->c64) c64 c128 bool bf16 (c10 ScalarType.cpp),
 * plus u16/u32/u64 promoting to themselves with unsigned peers and to the next signed/float type otherwise. */
enum { P_U8, P_I8, P_I16, P_I32, P_I64, P_F16, P_F32, P_F64, P_C64, P_C128, P_B, P_BF, P_N };
static int pidx(aclDataType d) {
    switch (d) {
    case ACL_UINT8: return P_U8; case ACL_INT8: return P_I8; case ACL_INT16: return P_I16;
    case ACL_INT32: return P_I32; case ACL_INT64: return P_I64; case ACL_FLOAT16: return P_F16;
    case ACL_FLOAT: return P_F32; case ACL_DOUBLE: return P_F64; case ACL_COMPLEX64: return P_C64;
    case ACL_COMPLEX128: return P_C128; case ACL_BOOL: return P_B; case ACL_BF16: return P_BF;
    default: return -1;
    }
}
static const aclDataType k_pdt[P_N] = {ACL_UINT8, ACL_INT8, ACL_INT16, ACL_INT32, ACL_INT64, ACL_FLOAT16,
                                       ACL_FLOAT, ACL_DOUBLE, ACL_COMPLEX64, ACL_COMPLEX128, ACL_BOOL, ACL_BF16};
#define u1 P_U8
#define i1 P_I8
#define i2 P_I16
#define i4 P_I32
#define i8 P_I64
#define f2 P_F16
#define f4 P_F32
#define f8 P_F64
#define c8 P_C64
#define cF P_C128
#define b1 P_B
#define bf P_BF
static const signed char k_promote[P_N][P_N] = {
    /*        u1  i1  i2  i4  i8  f2  f4  f8  c8  cF  b1  bf */
    /* u1 */ {u1, i2, i2, i4, i8, f2, f4, f8, c8, cF, u1, bf},
    /* i1 */ {i2, i1, i2, i4, i8, f2, f4, f8, c8, cF, i1, bf},
    /* i2 */ {i2, i2, i2, i4, i8, f2, f4, f8, c8, cF, i2, bf},
    /* i4 */ {i4, i4, i4, i4, i8, f2, f4, f8, c8, cF, i4, bf},
    /* i8 */ {i8, i8, i8, i8, i8, f2, f4, f8, c8, cF, i8, bf},
    /* f2 */ {f2, f2, f2, f2, f2, f2, f4, f8, c8, cF, f2, f4},
    /* f4 */ {f4, f4, f4, f4, f4, f4, f4, f8, c8, cF, f4, f4},
    /* f8 */ {f8, f8, f8, f8, f8, f8, f8, f8, cF, cF, f8, f8},
    /* c8 */ {c8, c8, c8, c8, c8, c8, c8, cF, c8, cF, c8, c8},
    /* cF */ {cF, cF, cF, cF, cF, cF, cF, cF, cF, cF, cF, cF},
    /* b1 */ {u1, i1, i2, i4, i8, f2, f4, f8, c8, cF, b1, bf},
    /* bf */ {bf, bf, bf, bf, bf, f4, f4, f8, c8, cF, bf, bf},
};
#undef u1
#undef i1
#undef i2
#undef i4
#undef i8
#undef f2
#undef f4
#undef f8
#undef c8
#undef cF
#undef b1
#undef bf

aclDataType acl_promote(aclDataType a, aclDataType b) {
    if (a == b && acl_dt_known(a)) return a;
    int ia = pidx(a), ib = pidx(b);
    if (ia < 0 || ib < 0) return ACL_DT_UNDEFINED;
    return k_pdt[(int)k_promote[ia][ib]];
}

static int cat_of(aclDataType d) { /* bool < int < float < complex */
    return d == ACL_BOOL ? 0 : acl_dt_is_int(d) ? 1 : acl_dt_is_float(d) ? 2 : acl_dt_is_complex(d) ? 3 : -1;
}

bool acl_can_cast(aclDataType from, aclDataType to) {
    int cf = cat_of(from), ct = cat_of(to);
    if (cf < 0 || ct < 0) return false;
    if (cf == 3 && ct != 3) return false;
    if (cf == 2 && ct < 2) return false;
    if (cf != 0 && ct == 0) return false;
    return true;
}

aclDataType acl_to_complex(aclDataType d) {
    if (d == ACL_DOUBLE || d == ACL_COMPLEX128) return ACL_COMPLEX128;
    return ACL_COMPLEX64;
}
aclDataType acl_to_real(aclDataType d) {
    return d == ACL_COMPLEX64 ? ACL_FLOAT : d == ACL_COMPLEX128 ? ACL_DOUBLE : d;
}

/* ---- element conversion ---- */

/* Reads element i of a source of dtype D into the variable `v` of a wide form: */
#define RD_CASES(SRC, SS, i, AS_F, AS_I, AS_C)                                                                 \
    switch (sdt) {                                                                                             \
    case ACL_FLOAT: AS_F(((const float *)SRC)[(i) * SS]); break;                                              \
    case ACL_DOUBLE: AS_F(((const double *)SRC)[(i) * SS]); break;                                            \
    case ACL_FLOAT16: AS_F(acl_f16_to_f32(((const uint16_t *)SRC)[(i) * SS])); break;                         \
    case ACL_BF16: AS_F(acl_bf16_to_f32(((const uint16_t *)SRC)[(i) * SS])); break;                           \
    case ACL_INT8: AS_I(((const int8_t *)SRC)[(i) * SS]); break;                                              \
    case ACL_INT16: AS_I(((const int16_t *)SRC)[(i) * SS]); break;                                            \
    case ACL_INT32: AS_I(((const int32_t *)SRC)[(i) * SS]); break;                                            \
    case ACL_INT64: AS_I(((const int64_t *)SRC)[(i) * SS]); break;                                            \
    case ACL_UINT8: AS_I(((const uint8_t *)SRC)[(i) * SS]); break;                                            \
    case ACL_UINT16: AS_I(((const uint16_t *)SRC)[(i) * SS]); break;                                          \
    case ACL_UINT32: AS_I(((const uint32_t *)SRC)[(i) * SS]); break;                                          \
    case ACL_UINT64: AS_I((int64_t)((const uint64_t *)SRC)[(i) * SS]); break;                                 \
    case ACL_BOOL: AS_I(((const uint8_t *)SRC)[(i) * SS] != 0); break;                                        \
    case ACL_COMPLEX64: AS_C(((const c64_t *)SRC)[(i) * SS]); break;                                          \
    case ACL_COMPLEX128: AS_C(((const c128_t *)SRC)[(i) * SS]); break;                                        \
    default: break;                                                                                            \
    }

/* A value in one of three wide forms, written to a destination of any dtype. */
typedef struct { int form; double f; int64_t i; c128_t c; } wide;

static inline void put(void *dst, aclDataType ddt, int64_t k, const wide *w) {
    double f = w->form == 0 ? w->f : w->form == 1 ? (double)w->i : creal(w->c);
    switch (ddt) {
    case ACL_FLOAT: ((float *)dst)[k] = w->form == 1 ? (float)w->i : (float)f; break;
    case ACL_DOUBLE: ((double *)dst)[k] = f; break;
    case ACL_FLOAT16: ((uint16_t *)dst)[k] = acl_f32_to_f16(w->form == 1 ? (float)w->i : (float)f); break;
    case ACL_BF16: ((uint16_t *)dst)[k] = acl_f32_to_bf16(w->form == 1 ? (float)w->i : (float)f); break;
    case ACL_BOOL:
        ((uint8_t *)dst)[k] = w->form == 1 ? w->i != 0 : w->form == 0 ? f != 0 : (w->c != 0);
        break;
    case ACL_COMPLEX64: ((c64_t *)dst)[k] = w->form == 2 ? (c64_t)w->c : w->form == 1 ? (float)w->i : (float)f; break;
    case ACL_COMPLEX128: ((c128_t *)dst)[k] = w->form == 2 ? w->c : w->form == 1 ? (double)w->i : f; break;
    default: {
        int64_t v;
        if (w->form == 1) v = w->i;
        else if (ddt == ACL_INT64 || ddt == ACL_UINT64 || ddt == ACL_UINT32) v = acl_f2i64(f);
        else v = acl_f2i32(f);
        switch (ddt) {
        case ACL_INT8: ((int8_t *)dst)[k] = (int8_t)v; break;
        case ACL_INT16: ((int16_t *)dst)[k] = (int16_t)v; break;
        case ACL_INT32: ((int32_t *)dst)[k] = (int32_t)v; break;
        case ACL_INT64: ((int64_t *)dst)[k] = v; break;
        case ACL_UINT8: ((uint8_t *)dst)[k] = (uint8_t)v; break;
        case ACL_UINT16: ((uint16_t *)dst)[k] = (uint16_t)v; break;
        case ACL_UINT32: ((uint32_t *)dst)[k] = (uint32_t)v; break;
        case ACL_UINT64: ((uint64_t *)dst)[k] = (uint64_t)v; break;
        default: break;
        }
    }
    }
}

void acl_convert(const void *src, aclDataType sdt, int64_t ss, void *dst, aclDataType ddt, int64_t ds, int64_t n) {
    /* memmove: an output the caller aliased onto an input (undefined on a device) must still not be UB here */
    if (sdt == ddt && ss == 1 && ds == 1) {
        memmove(dst, src, (size_t)n * acl_dtype_size(sdt));
        return;
    }
    if (sdt == ddt && sdt != ACL_BOOL) { /* a strided copy (ss 0: a broadcast fill), by element size */
#define COPY(T)                                                                      \
    do {                                                                             \
        const T *s_ = (const T *)src;                                                \
        T *d_ = (T *)dst;                                                            \
        for (int64_t i = 0; i < n; i++) d_[i * ds] = s_[i * ss];                     \
        return;                                                                      \
    } while (0)
        switch (acl_dtype_size(sdt)) {
        case 1: COPY(uint8_t);
        case 2: COPY(uint16_t);
        case 4: COPY(uint32_t);
        case 8: COPY(uint64_t);
        case 16: COPY(c128_t);
        default: break;
        }
#undef COPY
    }
    /* the pairs the elementwise engine meets most: plain loops the compiler vectorises */
#ifdef ACL_F16_ROWS_F16C
    if (sdt == ACL_FLOAT16 && ddt == ACL_FLOAT && ss == 1 && ds == 1 && acl_simd_level() >= ACL_SIMD_AVX2) {
        acl_f16_to_f32_row_f16c((float *)dst, (const uint16_t *)src, n);
        return;
    }
    if (sdt == ACL_FLOAT16 && ddt == ACL_DOUBLE && ss == 1 && ds == 1 && acl_simd_level() >= ACL_SIMD_AVX2) {
        float tmp[256];
        for (int64_t i = 0; i < n; i += 256) {
            int64_t m = n - i < 256 ? n - i : 256;
            acl_f16_to_f32_row_f16c(tmp, (const uint16_t *)src + i, m);
            for (int64_t k = 0; k < m; k++) ((double *)dst)[i + k] = tmp[k];
        }
        return;
    }
    if (sdt == ACL_FLOAT && ddt == ACL_FLOAT16 && ss == 1 && ds == 1 && acl_simd_level() >= ACL_SIMD_AVX2) {
        acl_f32_to_f16_row_f16c((uint16_t *)dst, (const float *)src, n);
        return;
    }
#endif
    /* contiguous, non-overlapping fp16/bf16 <-> fp32 rows: common/half_rows.h (SSE2 / NEON, the same bits) */
    if (ss == 1 && ds == 1 && n > 0 &&
        ((const char *)dst >= (const char *)src + n * (int64_t)acl_dtype_size(sdt) ||
         (const char *)src >= (const char *)dst + n * (int64_t)acl_dtype_size(ddt))) {
        if (sdt == ACL_FLOAT16 && ddt == ACL_FLOAT) { acl_row_f16_to_f32((float *)dst, (const uint16_t *)src, n); return; }
        if (sdt == ACL_FLOAT && ddt == ACL_FLOAT16) { acl_row_f32_to_f16((uint16_t *)dst, (const float *)src, n); return; }
        if (sdt == ACL_BF16 && ddt == ACL_FLOAT) { acl_row_bf16_to_f32((float *)dst, (const uint16_t *)src, n); return; }
        if (sdt == ACL_FLOAT && ddt == ACL_BF16) { acl_row_f32_to_bf16((uint16_t *)dst, (const float *)src, n); return; }
    }
#define FAST(SD, ST, DD, DT, EXPR)                                                      \
    if (sdt == SD && ddt == DD) {                                                       \
        const ST *s_ = (const ST *)src;                                                 \
        DT *d_ = (DT *)dst;                                                             \
        for (int64_t i = 0; i < n; i++) { ST x = s_[i * ss]; d_[i * ds] = (EXPR); }     \
        return;                                                                         \
    }
    FAST(ACL_FLOAT16, uint16_t, ACL_FLOAT, float, f16_to_f32_nb(x))
    FAST(ACL_BF16, uint16_t, ACL_FLOAT, float, acl_bf16_to_f32(x))
    FAST(ACL_FLOAT, float, ACL_FLOAT16, uint16_t, acl_f32_to_f16_nb(x))
    FAST(ACL_FLOAT, float, ACL_BF16, uint16_t, acl_f32_to_bf16(x))
    FAST(ACL_INT32, int32_t, ACL_INT64, int64_t, (int64_t)x)
    FAST(ACL_INT64, int64_t, ACL_INT32, int32_t, (int32_t)x)
    FAST(ACL_FLOAT, float, ACL_FLOAT, float, x)
    FAST(ACL_DOUBLE, double, ACL_DOUBLE, double, x)
    FAST(ACL_INT64, int64_t, ACL_INT64, int64_t, x)
    FAST(ACL_INT32, int32_t, ACL_FLOAT, float, (float)x)
    FAST(ACL_FLOAT, float, ACL_DOUBLE, double, (double)x)
    FAST(ACL_DOUBLE, double, ACL_FLOAT, float, (float)x)
    FAST(ACL_FLOAT16, uint16_t, ACL_DOUBLE, double, (double)f16_to_f32_nb(x))
    FAST(ACL_BF16, uint16_t, ACL_DOUBLE, double, (double)acl_bf16_to_f32(x))
    FAST(ACL_INT32, int32_t, ACL_DOUBLE, double, (double)x)
    FAST(ACL_INT64, int64_t, ACL_DOUBLE, double, (double)x)
    FAST(ACL_UINT8, uint8_t, ACL_BOOL, uint8_t, (uint8_t)(x != 0))
    FAST(ACL_BOOL, uint8_t, ACL_BOOL, uint8_t, (uint8_t)(x != 0))
#undef FAST
    for (int64_t i = 0; i < n; i++) {
        wide w = {0, 0, 0, 0};
#define AS_F(x) (w.form = 0, w.f = (double)(x))
#define AS_I(x) (w.form = 1, w.i = (int64_t)(x))
#define AS_C(x) (w.form = 2, w.c = (c128_t)(x))
        RD_CASES(src, ss, i, AS_F, AS_I, AS_C)
#undef AS_F
#undef AS_I
#undef AS_C
        put(dst, ddt, i * ds, &w);
    }
}

double acl_read_f64(const void *p, aclDataType dt) {
    double v = 0;
    acl_convert(p, dt, 1, &v, ACL_DOUBLE, 1, 1);
    return v;
}
int64_t acl_read_i64(const void *p, aclDataType dt) {
    int64_t v = 0;
    acl_convert(p, dt, 1, &v, ACL_INT64, 1, 1);
    return v;
}
double complex acl_read_c128(const void *p, aclDataType dt) {
    c128_t v = 0;
    acl_convert(p, dt, 1, &v, ACL_COMPLEX128, 1, 1);
    return v;
}
