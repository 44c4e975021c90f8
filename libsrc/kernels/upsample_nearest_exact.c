/* Nearest-exact 2-D upsampling kernels (see upsample_nearest_exact.h). */
#include "kernels/upsample_nearest_exact.h"

#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"

static inline int upnx_thread_num(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

int64_t upnx_bwd_scratch_floats(const upnx_bwd_plan *p) {
    int64_t buf = p->wo > 4 * p->wi ? p->wo : 4 * p->wi;
    int64_t n = p->wi + buf;
    return (n + 15) / 16 * 16; /* whole cache lines per thread */
}

#define UPNX_DIRECT 1
#define KSUFFIX f32
#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"
#undef UPNX_DIRECT

#define UPNX_DIRECT 0
#define KSUFFIX f16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"

#define KSUFFIX bf16
#include "kernels/dtype_begin.h"
#include "kernels/upsample_nearest_exact.inc"
#include "kernels/dtype_end.h"
#undef UPNX_DIRECT

/* ---- forward: a gather of raw elements (bit-exact for every dtype of the same width) ---- */

#define UPNX_GATHER_ROW(T)                                                                                   \
    static void upnx_gather_row_##T(T *y, int64_t ys, const T *x, int64_t xs, const upnx_fwd_plan *p) {     \
        const int64_t wo = p->wo;                                                                            \
        const int64_t *src = p->w_src;                                                                       \
        if (ys == 1 && xs == 1) {                                                                            \
            if (p->wk == 1) {                                                                                \
                memcpy(y, x, (size_t)wo * sizeof(T));                                                        \
            } else if (p->wk == 2) {                                                                         \
                const int64_t half = wo / 2;                                                                 \
                for (int64_t j = 0; j < half; j++) {                                                         \
                    T v = x[j];                                                                              \
                    y[2 * j] = v;                                                                            \
                    y[2 * j + 1] = v;                                                                        \
                }                                                                                            \
                if (wo & 1) y[wo - 1] = x[src[wo - 1]];                                                      \
            } else {                                                                                         \
                for (int64_t j = 0; j < wo; j++) y[j] = x[src[j]];                                           \
            }                                                                                                \
        } else {                                                                                             \
            for (int64_t j = 0; j < wo; j++) y[j * ys] = x[src[j] * xs];                                     \
        }                                                                                                    \
    }

UPNX_GATHER_ROW(uint8_t)
UPNX_GATHER_ROW(uint16_t)
UPNX_GATHER_ROW(uint32_t)

void upnx_fwd_gather(const acl_view *xv, const acl_view *yv, const upnx_fwd_plan *p) {
    const int64_t C = p->c, Ho = p->ho, wo = p->wo;
    const int64_t rows = p->n * C * Ho;
    const size_t es = acl_dtype_size(xv->dtype);
    const int64_t x0 = xv->strides[0], x1 = xv->strides[1], x2 = xv->strides[2], x3 = xv->strides[3];
    const int64_t y0 = yv->strides[0], y1 = yv->strides[1], y2 = yv->strides[2], y3 = yv->strides[3];
    /* a row may be copied from the previous output row when both are dense and disjoint */
    const int reuse = y3 == 1 && y2 >= wo;
#pragma omp parallel if (acl_parallel_worth(rows * wo))
    {
        /* a fixed contiguous block of rows per thread; results do not depend on the partition */
        int64_t nt = 1, t = 0;
#ifdef _OPENMP
        nt = omp_get_num_threads();
        t = omp_get_thread_num();
#endif
        const int64_t q0 = rows * t / nt, q1 = rows * (t + 1) / nt;
        for (int64_t q = q0; q < q1; q++) {
            const int64_t plane = q / Ho, yr = q - plane * Ho;
            const int64_t n = plane / C, c = plane - n * C;
            const int64_t xoff = n * x0 + c * x1 + p->h_src[yr] * x2;
            const int64_t yoff = n * y0 + c * y1 + yr * y2;
            if (reuse && q > q0 && yr > 0 && p->h_src[yr] == p->h_src[yr - 1]) {
                memcpy(yv->base + yoff * (int64_t)es, yv->base + (yoff - y2) * (int64_t)es, (size_t)wo * es);
                continue;
            }
            switch (es) {
            case 1:
                upnx_gather_row_uint8_t((uint8_t *)yv->base + yoff, y3, (const uint8_t *)xv->base + xoff, x3, p);
                break;
            case 2:
                upnx_gather_row_uint16_t((uint16_t *)yv->base + yoff, y3, (const uint16_t *)xv->base + xoff, x3, p);
                break;
            default:
                upnx_gather_row_uint32_t((uint32_t *)yv->base + yoff, y3, (const uint32_t *)xv->base + xoff, x3, p);
                break;
            }
        }
    }
}
