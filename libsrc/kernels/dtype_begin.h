/* Defines KT, KACC, KLOAD, KSTORE, KLOAD_ROW, KSTORE_ROW and KNAME for KSUFFIX (f32, f16, bf16 or f64). No include guard. */
#include "kernels/dtype_io.h"
#define KDT_SEL_(s, x) KDT_##s##_##x
#define KDT_SEL(s, x) KDT_SEL_(s, x)
#define KT KDT_SEL(KSUFFIX, T)
#define KACC KDT_SEL(KSUFFIX, ACC)
#define KLOAD(p) KDT_SEL(KSUFFIX, LOAD)(p)
#define KSTORE(p, v) KDT_SEL(KSUFFIX, STORE)(p, v)
#define KLOAD_ROW(d, s, n) KDT_SEL(KSUFFIX, LOAD_ROW)(d, s, n)
#define KSTORE_ROW(d, s, n) KDT_SEL(KSUFFIX, STORE_ROW)(d, s, n)
#define KNAME(base) KCAT(base, KSUFFIX)
