/* fp32 row kernels of the norm family (norm_f32.h). */
#include "kernels/norm_f32.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/half_rows.h"
#include "common/parallel.h"

#define NF_L 16       /* lanes of every row reduction */
#define NF_CHUNK 1024 /* elements summed in the inner lanes before they fold into the outer ones */

static inline float nf_tree(float *a) {
    for (int w = NF_L / 2; w; w >>= 1)
        for (int l = 0; l < w; l++) a[l] += a[l + w];
    return a[0];
}

/* S1 = sum of E1, S2 = sum of E2 over i < N (E1/E2 expressions of i), in the fixed lane structure */
#define NF_REDUCE2(N, S1, E1, S2, E2)                                                                                \
    do {                                                                                                             \
        float o1_[NF_L] = {0}, o2_[NF_L] = {0};                                                                      \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            float a1_[NF_L] = {0}, a2_[NF_L] = {0};                                                                  \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L)                                                                              \
                for (int l_ = 0; l_ < NF_L; l_++) {                                                                  \
                    const int64_t i = b_ + l_;                                                                       \
                    a1_[l_] += (E1);                                                                                 \
                    a2_[l_] += (E2);                                                                                 \
                }                                                                                                    \
            for (int l_ = 0; l_ < NF_L; l_++) o1_[l_] += a1_[l_], o2_[l_] += a2_[l_];                                \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            o1_[l_] += (E1);                                                                                         \
            o2_[l_] += (E2);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(o1_);                                                                                           \
        S2 = nf_tree(o2_);                                                                                           \
    } while (0)

#define NF_REDUCE1(N, S1, E1)                                                                                        \
    do {                                                                                                             \
        float o1_[NF_L] = {0};                                                                                       \
        int64_t b_ = 0;                                                                                              \
        const int64_t full_ = (N) / NF_L * NF_L;                                                                     \
        while (b_ < full_) {                                                                                         \
            float a1_[NF_L] = {0};                                                                                   \
            const int64_t e_ = b_ + NF_CHUNK < full_ ? b_ + NF_CHUNK : full_;                                        \
            for (; b_ < e_; b_ += NF_L)                                                                              \
                for (int l_ = 0; l_ < NF_L; l_++) {                                                                  \
                    const int64_t i = b_ + l_;                                                                       \
                    a1_[l_] += (E1);                                                                                 \
                }                                                                                                    \
            for (int l_ = 0; l_ < NF_L; l_++) o1_[l_] += a1_[l_];                                                    \
        }                                                                                                            \
        for (int l_ = 0; b_ + l_ < (N); l_++) {                                                                      \
            const int64_t i = b_ + l_;                                                                               \
            o1_[l_] += (E1);                                                                                         \
        }                                                                                                            \
        S1 = nf_tree(o1_);                                                                                           \
    } while (0)

static float nf_sum(const float *x, int64_t n) {
    float s;
    NF_REDUCE1(n, s, x[i]);
    return s;
}
static float nf_sumsq(const float *x, int64_t n) {
    float s;
    NF_REDUCE1(n, s, x[i] * x[i]);
    return s;
}
static float nf_sumsqdev(const float *x, int64_t n, float m) {
    float s;
    NF_REDUCE1(n, s, (x[i] - m) * (x[i] - m));
    return s;
}

/* ---- row access: a FLOAT row is used in place, a half row widened into scratch */

static inline const float *row_in(nf_buf b, int64_t off, int64_t n, float *scr) {
    switch (b.dt) {
    case ACL_FLOAT: return (const float *)b.p + off;
    case ACL_FLOAT16: acl_row_f16_to_f32(scr, (const uint16_t *)b.p + off, n); return scr;
    default: acl_row_bf16_to_f32(scr, (const uint16_t *)b.p + off, n); return scr;
    }
}
/* where to compute an output row: the FLOAT row itself, else scratch (then row_put) */
static inline float *row_dst(nf_buf b, int64_t off, float *scr) {
    return b.dt == ACL_FLOAT ? (float *)b.p + off : scr;
}
static inline void row_put(nf_buf b, int64_t off, int64_t n, const float *src) {
    switch (b.dt) {
    case ACL_FLOAT:
        if ((const float *)b.p + off != src) memcpy((float *)b.p + off, src, sizeof(float) * (size_t)n);
        break;
    case ACL_FLOAT16: acl_row_f32_to_f16((uint16_t *)b.p + off, src, n); break;
    default: acl_row_f32_to_bf16((uint16_t *)b.p + off, src, n); break;
    }
}

static inline int nf_tid(void) {
#ifdef _OPENMP
    return omp_get_thread_num();
#else
    return 0;
#endif
}

/* ------------------------------------------------------------------ rows: forward */

static void affine_row(const float *xr, int64_t n, float m, float rs, const float *w, const float *b, float *yd) {
    if (w && b)
        for (int64_t j = 0; j < n; j++) yd[j] = (xr[j] - m) * rs * w[j] + b[j];
    else if (w)
        for (int64_t j = 0; j < n; j++) yd[j] = (xr[j] - m) * rs * w[j];
    else if (b)
        for (int64_t j = 0; j < n; j++) yd[j] = (xr[j] - m) * rs + b[j];
    else
        for (int64_t j = 0; j < n; j++) yd[j] = (xr[j] - m) * rs;
}

int nf_rows_fwd(nf_buf x, nf_buf x2, int64_t rows, int64_t n, const float *w, const float *b, double eps, bool centre,
                nf_buf y, nf_buf y2, nf_buf xs, float *mean, float *rstd) {
    const int nt = acl_max_threads();
    const size_t per = (size_t)4 * (size_t)n;
    float *scratch = malloc(sizeof(float) * per * (size_t)nt);
    if (!scratch) return -1;
#pragma omp parallel if (acl_parallel_worth(rows * n))
    {
        float *s0 = scratch + per * (size_t)nf_tid(), *s1 = s0 + n, *s2 = s1 + n, *s3 = s2 + n;
#pragma omp for schedule(static)
        for (int64_t r = 0; r < rows; r++) {
            const int64_t off = r * n;
            const float *xr;
            if (x2.p) {
                const float *a = row_in(x, off, n, s0), *c = row_in(x2, off, n, s1);
                for (int64_t j = 0; j < n; j++) s2[j] = a[j] + c[j];
                xr = s2;
            } else {
                xr = row_in(x, off, n, s0);
            }
            float m = 0, var;
            if (centre) {
                m = nf_sum(xr, n) / (float)n;
                var = nf_sumsqdev(xr, n, m) / (float)n;
            } else {
                var = nf_sumsq(xr, n) / (float)n;
            }
            const float rs = (float)(1.0 / sqrt((double)var + eps));
            if (mean) mean[r] = m;
            if (rstd) rstd[r] = rs;
            /* the output row may be x's own (in place): each element is read before it is written */
            float *yd = y.p ? row_dst(y, off, s3) : s3;
            affine_row(xr, n, m, rs, w, b, yd);
            if (y.p) row_put(y, off, n, yd);
            if (y2.p) row_put(y2, off, n, yd);
            if (xs.p) row_put(xs, off, n, xr);
        }
    }
    free(scratch);
    return 0;
}

/* ------------------------------------------------------------------ rows: backward */

/* the fixed row blocks of the weight gradients: a function of the shape only */
static int64_t grad_blocks(int64_t rows, int64_t n) {
    int64_t nb = rows < 64 ? rows : 64;
    const int64_t cap = ((int64_t)1 << 23) / (n > 0 ? n : 1); /* at most 2 x 32 MiB of partials */
    if (nb > cap) nb = cap;
    return nb > 0 ? nb : 1;
}

int nf_rows_bwd(nf_buf dy, nf_buf x, int64_t rows, int64_t n, const float *mean, const float *rstd, const float *w,
                nf_buf dx, double *dw, double *db) {
    const int nt = acl_max_threads();
    const size_t per = (size_t)3 * (size_t)n;
    const int64_t nb = (dw || db) ? grad_blocks(rows, n) : 1, rpb = (rows + nb - 1) / nb;
    const bool parts = dw || db;
    float *scratch = malloc(sizeof(float) * per * (size_t)nt);
    float *pw = parts ? calloc((size_t)(2 * nb) * (size_t)n, sizeof(float)) : NULL;
    if (!scratch || (parts && !pw)) {
        free(scratch);
        free(pw);
        return -1;
    }
    const float invn = 1.0f / (float)n;
#pragma omp parallel if (acl_parallel_worth(rows * n))
    {
        float *s0 = scratch + per * (size_t)nf_tid(), *s1 = s0 + n, *s2 = s1 + n;
#pragma omp for schedule(static)
        for (int64_t k = 0; k < nb; k++) {
            float *bw = parts ? pw + (size_t)(2 * k) * (size_t)n : NULL, *bb = parts ? bw + n : NULL;
            const int64_t r1 = (k + 1) * rpb < rows ? (k + 1) * rpb : rows;
            for (int64_t r = k * rpb; r < r1; r++) {
                const int64_t off = r * n;
                const float *d = row_in(dy, off, n, s0), *xr = row_in(x, off, n, s1);
                const float m = mean ? mean[r] : 0.0f, rs = rstd[r];
                if (parts)
                    for (int64_t j = 0; j < n; j++) {
                        bw[j] += d[j] * ((xr[j] - m) * rs);
                        bb[j] += d[j];
                    }
                if (!dx.p) continue;
                float sg, sgx;
                if (w)
                    NF_REDUCE2(n, sg, d[i] * w[i], sgx, d[i] * w[i] * (xr[i] - m));
                else
                    NF_REDUCE2(n, sg, d[i], sgx, d[i] * (xr[i] - m));
                const float mg = mean ? sg * invn : 0.0f, mgx = sgx * rs * invn;
                float *o = row_dst(dx, off, s2);
                if (w)
                    for (int64_t j = 0; j < n; j++) o[j] = rs * (d[j] * w[j] - mg - (xr[j] - m) * rs * mgx);
                else
                    for (int64_t j = 0; j < n; j++) o[j] = rs * (d[j] - mg - (xr[j] - m) * rs * mgx);
                row_put(dx, off, n, o);
            }
        }
    }
    if (parts) {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(nb * n))
        for (int64_t j = 0; j < n; j++) {
            double a = 0, c = 0;
            for (int64_t k = 0; k < nb; k++) {
                a += pw[(size_t)(2 * k) * (size_t)n + (size_t)j];
                c += pw[(size_t)(2 * k + 1) * (size_t)n + (size_t)j];
            }
            if (dw) dw[j] = a;
            if (db) db[j] = c;
        }
    }
    free(scratch);
    free(pw);
    return 0;
}

/* ------------------------------------------------------------------ group norm */

int nf_group_fwd(nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *gamma, const float *beta,
                 double eps, bool act, double scale, nf_buf y, float *mean, float *rstd) {
    const int64_t cg = C / G, len = cg * S;
    const int nt = acl_max_threads();
    const size_t per = (size_t)2 * (size_t)len;
    float *scratch = malloc(sizeof(float) * per * (size_t)nt);
    if (!scratch) return -1;
#pragma omp parallel if (acl_parallel_worth(N * C * S))
    {
        float *s0 = scratch + per * (size_t)nf_tid(), *s1 = s0 + len;
#pragma omp for schedule(static)
        for (int64_t ng = 0; ng < N * G; ng++) {
            const int64_t off = ng * len, c0 = (ng % G) * cg;
            const float *xr = row_in(x, off, len, s0);
            const float m = nf_sum(xr, len) / (float)len;
            const float var = nf_sumsqdev(xr, len, m) / (float)len;
            const float rs = (float)(1.0 / sqrt((double)var + eps));
            mean[ng] = m;
            rstd[ng] = rs;
            float *yd = row_dst(y, off, s1);
            for (int64_t c = 0; c < cg; c++) {
                const float k = gamma ? rs * gamma[c0 + c] : rs, o = beta ? beta[c0 + c] : 0.0f;
                const float *xc = xr + c * S;
                float *yc = yd + c * S;
                for (int64_t s = 0; s < S; s++) yc[s] = (xc[s] - m) * k + o;
            }
            if (act)
                for (int64_t i = 0; i < len; i++) yd[i] = (float)((double)yd[i] / (1.0 + exp(-scale * yd[i])));
            row_put(y, off, len, yd);
        }
    }
    free(scratch);
    return 0;
}

int nf_group_bwd(nf_buf dy, nf_buf x, int64_t N, int64_t C, int64_t S, int64_t G, const float *mean,
                 const float *rstd, const float *gamma, nf_buf dx, double *dgamma, double *dbeta) {
    const int64_t cg = C / G, len = cg * S;
    const int nt = acl_max_threads();
    const size_t per = (size_t)3 * (size_t)len;
    float *scratch = malloc(sizeof(float) * per * (size_t)nt);
    double *sd = malloc(sizeof(double) * (size_t)(2 * N * C)); /* per (n, c): sum dy, sum dy * xhat */
    if (!scratch || !sd) {
        free(scratch);
        free(sd);
        return -1;
    }
#pragma omp parallel if (acl_parallel_worth(N * C * S))
    {
        float *s0 = scratch + per * (size_t)nf_tid(), *s1 = s0 + len, *s2 = s1 + len;
#pragma omp for schedule(static)
        for (int64_t ng = 0; ng < N * G; ng++) {
            const int64_t off = ng * len, c0 = (ng % G) * cg, n0 = ng / G;
            const float *d = row_in(dy, off, len, s0), *xr = row_in(x, off, len, s1);
            const float m = mean[ng], rs = rstd[ng];
            double sg = 0, sgx = 0;
            for (int64_t c = 0; c < cg; c++) {
                const float *dc = d + c * S, *xc = xr + c * S;
                float a, q;
                NF_REDUCE2(S, a, dc[i], q, dc[i] * (xc[i] - m));
                const float gm = gamma ? gamma[c0 + c] : 1.0f;
                sd[2 * (n0 * C + c0 + c)] = a;
                sd[2 * (n0 * C + c0 + c) + 1] = (double)q * rs;
                sg += (double)gm * a;
                sgx += (double)gm * q;
            }
            if (!dx.p) continue;
            const float mg = (float)(sg / (double)len), mgx = (float)(sgx * rs / (double)len);
            float *o = row_dst(dx, off, s2);
            for (int64_t c = 0; c < cg; c++) {
                const float gm = gamma ? gamma[c0 + c] : 1.0f;
                const float *dc = d + c * S, *xc = xr + c * S;
                float *oc = o + c * S;
                for (int64_t s = 0; s < S; s++) oc[s] = rs * (dc[s] * gm - mg - (xc[s] - m) * rs * mgx);
            }
            row_put(dx, off, len, o);
        }
    }
    if (dgamma || dbeta)
        for (int64_t c = 0; c < C; c++) {
            double a = 0, q = 0;
            for (int64_t b = 0; b < N; b++) {
                a += sd[2 * (b * C + c)];
                q += sd[2 * (b * C + c) + 1];
            }
            if (dgamma) dgamma[c] = q;
            if (dbeta) dbeta[c] = a;
        }
    free(scratch);
    free(sd);
    return 0;
}
