/* Index tables and the float64 backward of the nearest / nearest-exact family (see upsample_nearest.h). */
#include "kernels/upsample_nearest.h"

#include <math.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "common/parallel.h"

float upn_fwd_ratio(int64_t in_len, int64_t out_len, double scales) {
    if (in_len == out_len) return 1.0f;
    if (scales > 0) return (float)(1.0 / scales);
    return (float)in_len / (float)out_len;
}

int64_t upn_axis_sources(int64_t *src, int64_t in_len, int64_t out_len, float r, int exact) {
    int id = 1, half = 1;
    for (int64_t d = 0; d < out_len; d++) {
        const float pos = exact ? (float)d + 0.5f : (float)d; /* exact below 2^23 */
        const float v = floorf(pos * r);
        const int64_t s = v >= (float)(in_len - 1) ? in_len - 1 : (v <= 0 ? 0 : (int64_t)v);
        src[d] = s;
        id = id && s == d;
        half = half && s == d / 2;
    }
    return id ? 1 : (half ? 2 : 0);
}

/* k when every range is [k*i, k*i + k), else 0 */
static int64_t uniform_k(const int64_t *lo, const int64_t *hi, int64_t in_len) {
    int64_t k = 0;
    if (in_len > 0 && hi[0] > lo[0] && lo[0] == 0) {
        k = hi[0];
        for (int64_t i = 0; i < in_len && k; i++)
            if (lo[i] != k * i || hi[i] != k * i + k) k = 0;
    }
    return k;
}

int64_t upn_axis_ranges(int64_t *lo, int64_t *hi, int64_t in_len, int64_t out_len, float s, int exact) {
    const float off = exact ? 0.5f : 0.0f;
    for (int64_t i = 0; i < in_len; i++) {
        const float a = (float)i * s, b = (float)(i + 1) * s; /* fp32 products (no contraction) */
        const float fa = ceilf(a - off), fb = ceilf(b - off);
        lo[i] = fa <= 0 ? 0 : (fa >= (float)out_len ? out_len : (int64_t)fa);
        hi[i] = fb <= 0 ? 0 : (fb >= (float)out_len ? out_len : (int64_t)fb);
    }
    return uniform_k(lo, hi, in_len);
}

int64_t upn_ranges_from_sources(int64_t *lo, int64_t *hi, int64_t in_len, int64_t out_len, const int64_t *src) {
    int64_t r = 0;
    for (int64_t i = 0; i < in_len; i++) {
        while (r < out_len && src[r] < i) r++;
        lo[i] = r;
        while (r < out_len && src[r] == i) r++;
        hi[i] = r;
    }
    return uniform_k(lo, hi, in_len);
}

void upn_pair_tables(upnx_bwd_plan *p, int32_t *tab) {
    const int64_t pad = p->w_hi[p->wi - 1];
    if (p->wk == 1 || p->wk == 2 || pad >= INT32_MAX) return;
    for (int64_t j = 0; j < p->wi; j++)
        if (p->w_hi[j] - p->w_lo[j] > 2) return;
    p->w_i0 = tab;
    p->w_i1 = tab + p->wi;
    for (int64_t j = 0; j < p->wi; j++) {
        const int64_t len = p->w_hi[j] - p->w_lo[j];
        p->w_i0[j] = (int32_t)(len >= 1 ? p->w_lo[j] : pad);
        p->w_i1[j] = (int32_t)(len == 2 ? p->w_lo[j] + 1 : pad);
    }
}

/* acc[j] += the left fold of x over the W range of j, for every j (see upsample_nearest.h) */
#define UPN_FOLD_BODY(T)                                                                                         \
    do {                                                                                                         \
        const int64_t wi = p->wi;                                                                                \
        if (p->wk == 1) {                                                                                        \
            for (int64_t j = 0; j < wi; j++) acc[j] += x[j];                                                     \
        } else if (p->wk == 2) {                                                                                 \
            for (int64_t j = 0; j < wi; j++) acc[j] += x[2 * j] + x[2 * j + 1];                                  \
        } else if (p->w_i0) {                                                                                    \
            const int32_t *i0 = p->w_i0, *i1 = p->w_i1;                                                          \
            for (int64_t j = 0; j < wi; j++) acc[j] += x[i0[j]] + x[i1[j]];                                      \
        } else {                                                                                                 \
            for (int64_t j = 0; j < wi; j++) {                                                                   \
                const int64_t lo = p->w_lo[j], hi = p->w_hi[j];                                                  \
                if (lo >= hi) continue;                                                                          \
                T s = x[lo];                                                                                     \
                for (int64_t t = lo + 1; t < hi; t++) s += x[t];                                                 \
                acc[j] += s;                                                                                     \
            }                                                                                                    \
        }                                                                                                        \
    } while (0)

void upn_fold_row_f32(float *restrict acc, const float *restrict x, const upnx_bwd_plan *p) { UPN_FOLD_BODY(float); }
void upn_fold_row_f64(double *restrict acc, const double *restrict x, const upnx_bwd_plan *p) { UPN_FOLD_BODY(double); }

int64_t upn_bwd_f64_scratch(const upnx_bwd_plan *p) {
    return (p->wi + p->w_hi[p->wi - 1] + 1 + 7) / 8 * 8; /* whole cache lines per thread */
}

void upn_bwd_f64(const acl_view *gv, const acl_view *ov, const upnx_bwd_plan *p, double *scratch) {
    const int64_t C = p->c, Hi = p->hi, wi = p->wi, need = p->w_hi[wi - 1];
    const int64_t rows = p->n * C * Hi;
    const double *g = (const double *)gv->base;
    double *o = (double *)ov->base;
    const int64_t g0 = gv->strides[0], g1 = gv->strides[1], g2 = gv->strides[2], g3 = gv->strides[3];
    const int64_t o0 = ov->strides[0], o1 = ov->strides[1], o2 = ov->strides[2], o3 = ov->strides[3];
    const int64_t work = p->n * C * (p->ho * p->wo + Hi * wi);
    /* one gradient-input row per work unit, owned by one thread; per element: for each gradOutput row of the H
     * range (ascending) the left fold of its W range is added to an accumulator starting at +0 (rows copied into
     * dense rows folded a whole row at a time: 8x512 2048 -> 1024, 2 threads, 4.8 -> 2.35 ms) */
#pragma omp parallel if (acl_parallel_worth(work))
    {
        int t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        double *const tacc = scratch + t * upn_bwd_f64_scratch(p), *const buf = tacc + wi;
        buf[need] = -0.0; /* the pair tables' pad */
#pragma omp for schedule(static)
        for (int64_t q = 0; q < rows; q++) {
            const int64_t plane = q / Hi, i = q - plane * Hi;
            const int64_t n = plane / C, c = plane - n * C;
            const double *gp = g + n * g0 + c * g1;
            double *yp = o + n * o0 + c * o1 + i * o2;
            double *acc = o3 == 1 ? yp : tacc; /* a dense row is summed in place */
            for (int64_t j = 0; j < wi; j++) acc[j] = 0.0;
            for (int64_t r = p->h_lo[i]; r < p->h_hi[i]; r++) {
                const double *x = gp + r * g2;
                if (g3 != 1 || p->w_i0) { /* a dense copy, with the pad after it */
                    for (int64_t t2 = 0; t2 < need; t2++) buf[t2] = x[t2 * g3];
                    x = buf;
                }
                upn_fold_row_f64(acc, x, p);
            }
            if (acc != yp)
                for (int64_t j = 0; j < wi; j++) yp[j * o3] = acc[j];
        }
    }
}
