/* Load/store of one element per supported floating dtype, used to instantiate kernel templates (.inc files).
 * A template body is written once against:
 *   KT          the storage type (float, uint16_t for fp16/bf16, double)
 *   KACC        the compute type (float for f32/f16/bf16, double for f64)
 *   KLOAD(p)    read *p as KACC
 *   KSTORE(p,v) write KACC v to *p, rounding once (round to nearest even)
 *   KNAME(base) base##_<suffix>
 *   KLOAD_ROW(dst, src, n)   n contiguous elements into a KACC row (vectorised, bit-identical to KLOAD)
 *   KSTORE_ROW(dst, src, n)  a KACC row into n contiguous elements (vectorised, bit-identical to KSTORE)
 * and included once per dtype with ACL_KERNEL_DTYPE_<SUFFIX> helpers below, e.g.
 *   #define KSUFFIX f16
 *   #include "kernels/dtype_begin.h"
 *   #include "kernels/my_family.inc"
 *   #include "kernels/dtype_end.h"
 */
#ifndef PYACLNN_KERNELS_DTYPE_IO_H
#define PYACLNN_KERNELS_DTYPE_IO_H

#include <stdint.h>
#include "common/dtype.h"
#include "common/half_rows.h"

#define KCAT_(a, b) a##_##b
#define KCAT(a, b) KCAT_(a, b)

/* f32 */
#define KDT_f32_T float
#define KDT_f32_ACC float
#define KDT_f32_LOAD(p) (*(p))
#define KDT_f32_STORE(p, v) (*(p) = (v))
/* a plain loop, as the kernels had it: a memcpy call per short row measured slower (upsample x2 backward) */
#define KDT_COPY_ROW_(d, s, n)                                     \
    do {                                                           \
        for (int64_t i_ = 0; i_ < (n); i_++) (d)[i_] = (s)[i_];    \
    } while (0)
#define KDT_f32_LOAD_ROW(d, s, n) KDT_COPY_ROW_(d, s, n)
#define KDT_f32_STORE_ROW(d, s, n) KDT_COPY_ROW_(d, s, n)
/* f16 */
#define KDT_f16_T uint16_t
#define KDT_f16_ACC float
#define KDT_f16_LOAD(p) acl_f16_to_f32(*(p))
#define KDT_f16_STORE(p, v) (*(p) = acl_f32_to_f16(v))
#define KDT_f16_LOAD_ROW(d, s, n) acl_row_f16_to_f32((d), (s), (n))
#define KDT_f16_STORE_ROW(d, s, n) acl_row_f32_to_f16((d), (s), (n))
/* bf16 */
#define KDT_bf16_T uint16_t
#define KDT_bf16_ACC float
#define KDT_bf16_LOAD(p) acl_bf16_to_f32(*(p))
#define KDT_bf16_STORE(p, v) (*(p) = acl_f32_to_bf16(v))
#define KDT_bf16_LOAD_ROW(d, s, n) acl_row_bf16_to_f32((d), (s), (n))
#define KDT_bf16_STORE_ROW(d, s, n) acl_row_f32_to_bf16((d), (s), (n))
/* f64 */
#define KDT_f64_T double
#define KDT_f64_ACC double
#define KDT_f64_LOAD(p) (*(p))
#define KDT_f64_STORE(p, v) (*(p) = (v))
#define KDT_f64_LOAD_ROW(d, s, n) KDT_COPY_ROW_(d, s, n)
#define KDT_f64_STORE_ROW(d, s, n) KDT_COPY_ROW_(d, s, n)

#endif
