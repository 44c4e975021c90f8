/* Dtype categories, type promotion (PyTorch's promoteTypes, which CANN's PromoteType follows), the "can cast"
 * rule for results, and strided element conversion between any two supported dtypes. */
#ifndef PYACLNN_COMMON_DTYPE_RULES_H
#define PYACLNN_COMMON_DTYPE_RULES_H

#include <complex.h>
#include <stdbool.h>
#include <stdint.h>
#include "acl/acl_base.h"

bool acl_dt_is_float(aclDataType d);    /* f16, bf16, f32, f64 */
bool acl_dt_is_int(aclDataType d);      /* signed and unsigned integers, not bool */
bool acl_dt_is_complex(aclDataType d);  /* complex64, complex128 (complex32 too) */
bool acl_dt_known(aclDataType d);       /* one of the 15 numeric dtypes the kernels convert */
/* PromoteType(a, b): ACL_DT_UNDEFINED when there is none (e.g. an unknown dtype). */
aclDataType acl_promote(aclDataType a, aclDataType b);
/* PyTorch's canCast: no complex -> real, no float -> integer, no non-bool -> bool. */
bool acl_can_cast(aclDataType from, aclDataType to);
/* The complex dtype holding `d`'s values (f16 -> complex32 is mapped to complex64 here). */
aclDataType acl_to_complex(aclDataType d);
aclDataType acl_to_real(aclDataType d); /* complex64 -> float, complex128 -> double, others unchanged */

/* An aclScalar's value (any dtype) in the compute forms. */
typedef struct {
    double d;          /* real part as double */
    double di;         /* imaginary part */
    int64_t i;         /* as int64 (floats truncated as a C++ static_cast would on x86) */
} acl_scalar_value;

/* float -> integer as x86 cvtt does (NaN and out-of-range give INT_MIN of the 32-/64-bit form), then truncated. */
static inline int64_t acl_f2i64(double v) {
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0) ? (int64_t)v : INT64_MIN;
}
static inline int32_t acl_f2i32(double v) {
    return (v > -2147483649.0 && v < 2147483648.0) ? (int32_t)v : INT32_MIN;
}

/* Strided conversion of n elements: src (dtype sdt, element stride ss) -> dst (dtype ddt, element stride ds).
 * Numeric dtypes only (acl_dt_known); values convert as a C++ static_cast (PyTorch's c10::convert) does:
 * float -> int truncates, -> bool is "!= 0", complex -> real keeps the real part, f16/bf16 round to nearest even. */
void acl_convert(const void *src, aclDataType sdt, int64_t ss, void *dst, aclDataType ddt, int64_t ds, int64_t n);

/* One element read as double / int64 / complex double (for scalars and small tables). */
double acl_read_f64(const void *p, aclDataType dt);
int64_t acl_read_i64(const void *p, aclDataType dt);
double complex acl_read_c128(const void *p, aclDataType dt);

#endif
