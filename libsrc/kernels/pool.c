/* Max pooling kernels of the pooling family. Values are compared in fp32 (fp16/bf16/fp32) or double and the
 * chosen element is copied bit-exactly; each output cell is owned by one thread (deterministic). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "kernels/pool.h"

static void adaptive_range(int64_t o, int64_t in, int64_t out, int64_t *lo, int64_t *hi) {
    *lo = (int64_t)(((__int128)o * in) / out);
    *hi = (int64_t)((((__int128)o + 1) * in + out - 1) / out);
}

#define AMAX_BODY(T, CT, LOAD)                                                                                   \
    do {                                                                                                         \
        const T *xb = (const T *)x->base;                                                                        \
        T *yb = (T *)y->base;                                                                                    \
        int64_t *ib = (int64_t *)idx->base;                                                                      \
        _Pragma("omp parallel for schedule(static)") for (int64_t pl = 0; pl < planes; pl++) {                   \
            int64_t p0 = pl / n1, p1 = pl % n1;                                                                  \
            int64_t xo = p0 * xs0 + p1 * xs1, yo = p0 * ys0 + p1 * ys1, io = p0 * is0 + p1 * is1;               \
            for (int64_t o = 0; o < oh; o++) {                                                                   \
                int64_t h0, h1;                                                                                  \
                adaptive_range(o, ih, oh, &h0, &h1);                                                             \
                for (int64_t q = 0; q < ow; q++) {                                                               \
                    int64_t w0, w1;                                                                              \
                    adaptive_range(q, iw, ow, &w0, &w1);                                                         \
                    int64_t best = h0 * iw + w0, bo = xo + h0 * xsh + w0 * xsw;                                  \
                    CT m = -INFINITY;                                                                            \
                    for (int64_t h = h0; h < h1; h++)                                                            \
                        for (int64_t w = w0; w < w1; w++) {                                                      \
                            int64_t off = xo + h * xsh + w * xsw;                                                \
                            CT v = LOAD(xb[off]);                                                                \
                            if (v > m || isnan(v)) {                                                             \
                                m = v;                                                                           \
                                best = h * iw + w;                                                               \
                                bo = off;                                                                        \
                            }                                                                                    \
                        }                                                                                        \
                    yb[yo + o * ysh + q * ysw] = xb[bo];                                                         \
                    ib[io + o * ish + q * isw] = best;                                                           \
                }                                                                                                \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

#define LOAD_ID(v) (v)
#define LOAD_F16(v) acl_f16_to_f32(v)
#define LOAD_BF16(v) acl_bf16_to_f32(v)

void pool_adaptive_max2d(const acl_view *x, acl_view *y, acl_view *idx, const pool_axes *ax) {
    const int a0 = ax->pa[0], a1 = ax->pa[1];
    const int64_t n0 = x->dims[a0], n1 = a1 >= 0 ? x->dims[a1] : 1, planes = n0 * n1;
    const int64_t xs0 = x->strides[a0], xs1 = a1 >= 0 ? x->strides[a1] : 0;
    const int64_t ys0 = y->strides[a0], ys1 = a1 >= 0 ? y->strides[a1] : 0;
    const int64_t is0 = idx->strides[a0], is1 = a1 >= 0 ? idx->strides[a1] : 0;
    const int64_t ih = x->dims[ax->ah], iw = x->dims[ax->aw], oh = y->dims[ax->ah], ow = y->dims[ax->aw];
    const int64_t xsh = x->strides[ax->ah], xsw = x->strides[ax->aw];
    const int64_t ysh = y->strides[ax->ah], ysw = y->strides[ax->aw];
    const int64_t ish = idx->strides[ax->ah], isw = idx->strides[ax->aw];
    switch (x->dtype) {
    case ACL_FLOAT: AMAX_BODY(float, float, LOAD_ID); break;
    case ACL_DOUBLE: AMAX_BODY(double, double, LOAD_ID); break;
    case ACL_FLOAT16: AMAX_BODY(uint16_t, float, LOAD_F16); break;
    case ACL_BF16: AMAX_BODY(uint16_t, float, LOAD_BF16); break;
    default: break;
    }
}

#define BWD_BODY(T, LOAD, STORE)                                                                                 \
    do {                                                                                                         \
        const T *gb = (const T *)gy->base;                                                                       \
        T *xb = (T *)gx->base;                                                                                   \
        _Pragma("omp parallel") {                                                                                \
            float *acc = malloc((size_t)(ih * iw) * sizeof(float));                                              \
            _Pragma("omp for schedule(static)") for (int64_t pl = 0; pl < planes; pl++) {                        \
                if (!acc) continue;                                                                              \
                int64_t p0 = pl / n1, p1 = pl % n1;                                                              \
                int64_t go = p0 * gs0 + p1 * gs1, io = p0 * is0 + p1 * is1, xo = p0 * xs0 + p1 * xs1;           \
                for (int64_t k = 0; k < ih * iw; k++) acc[k] = 0.0f;                                             \
                for (int64_t o = 0; o < oh; o++)                                                                 \
                    for (int64_t q = 0; q < ow; q++) {                                                           \
                        int64_t k = load_index(ind, io + o * ish + q * isw);                                     \
                        if (k >= 0 && k < ih * iw) acc[k] += LOAD(gb[go + o * gsh + q * gsw]);                   \
                    }                                                                                            \
                for (int64_t h = 0; h < ih; h++)                                                                 \
                    for (int64_t w = 0; w < iw; w++) xb[xo + h * xsh + w * xsw] = STORE(acc[h * iw + w]);        \
            }                                                                                                    \
            free(acc);                                                                                           \
        }                                                                                                        \
    } while (0)

static inline int64_t load_index(const acl_view *v, int64_t off) {
    return v->dtype == ACL_INT32 ? ((const int32_t *)v->base)[off] : ((const int64_t *)v->base)[off];
}

#define STORE_ID(v) (v)
#define STORE_F16(v) acl_f32_to_f16(v)
#define STORE_BF16(v) acl_f32_to_bf16(v)

void pool_max2d_backward_by_index(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_axes *ax) {
    const int a0 = ax->pa[0], a1 = ax->pa[1];
    const int64_t n1 = a1 >= 0 ? gx->dims[a1] : 1, planes = gx->dims[a0] * n1;
    const int64_t gs0 = gy->strides[a0], gs1 = a1 >= 0 ? gy->strides[a1] : 0;
    const int64_t is0 = ind->strides[a0], is1 = a1 >= 0 ? ind->strides[a1] : 0;
    const int64_t xs0 = gx->strides[a0], xs1 = a1 >= 0 ? gx->strides[a1] : 0;
    const int64_t ih = gx->dims[ax->ah], iw = gx->dims[ax->aw], oh = gy->dims[ax->ah], ow = gy->dims[ax->aw];
    const int64_t gsh = gy->strides[ax->ah], gsw = gy->strides[ax->aw];
    const int64_t ish = ind->strides[ax->ah], isw = ind->strides[ax->aw];
    const int64_t xsh = gx->strides[ax->ah], xsw = gx->strides[ax->aw];
    switch (gx->dtype) {
    case ACL_FLOAT: BWD_BODY(float, LOAD_ID, STORE_ID); break;
    case ACL_FLOAT16: BWD_BODY(uint16_t, LOAD_F16, STORE_F16); break;
    case ACL_BF16: BWD_BODY(uint16_t, LOAD_BF16, STORE_BF16); break;
    default: break;
    }
}
