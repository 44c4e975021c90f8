/* Max pooling kernels of the pooling family. Values are compared in fp32 (fp16/bf16/fp32) or double and the
 * chosen element is copied bit-exactly; each output cell is owned by one thread (deterministic). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "kernels/pool.h"
#include "kernels/pool3d.h"

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
    if (oh > 0 && ow > 0 && ih % oh == 0 && iw % ow == 0) {
        /* both axes divide evenly: the windows of kernel = stride = in / out without padding (kernels/pool3d.c),
         * the same cell chosen by the same rule */
        pool_max_params mp = {.lead = {a0, a1}, .sp = {-1, ax->ah, ax->aw}, .idx_mode = POOL_IDX_VIEW,
                              .k = {1, ih / oh, iw / ow}, .s = {1, ih / oh, iw / ow}, .p = {0, 0, 0}, .dl = {1, 1, 1}};
        pool_max_nd(x, y, idx, &mp);
        return;
    }
    if (x->dtype != ACL_DOUBLE) { /* the adaptive 3-D kernel with D absent (its per-row fp32 path) */
        const pool_ad_params ap = {.lead = {a0, a1}, .sp = {-1, ax->ah, ax->aw}};
        pool_adaptive_max3d(x, y, idx, &ap);
        return;
    }
    switch (x->dtype) {
    case ACL_FLOAT: AMAX_BODY(float, float, LOAD_ID); break;
    case ACL_DOUBLE: AMAX_BODY(double, double, LOAD_ID); break;
    case ACL_FLOAT16: AMAX_BODY(uint16_t, float, LOAD_F16); break;
    case ACL_BF16: AMAX_BODY(uint16_t, float, LOAD_BF16); break;
    default: break;
    }
}

/* the windowed max pools' backward (kernels/pool3d.c) with 1-cell windows: the gradient is routed by the indices
 * alone, so it is exactly this op's */
void pool_max2d_backward_by_index(const acl_view *gy, const acl_view *ind, acl_view *gx, const pool_axes *ax) {
    pool_max_params pp = {.lead = {ax->pa[0], ax->pa[1]}, .sp = {-1, ax->ah, ax->aw}, .idx_mode = POOL_IDX_VIEW};
    for (int i = 0; i < 3; i++) {
        pp.k[i] = pp.s[i] = pp.dl[i] = 1;
        pp.p[i] = 0;
    }
    pool_max_nd_backward(gy, ind, gx, &pp);
}
