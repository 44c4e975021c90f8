/* Norm family kernels (norm.h). */
#include "kernels/norm.h"

#include <math.h>
#include <stdlib.h>

#include "common/parallel.h"

static inline double term(const double *x, const double *y, int64_t i, int64_t s, double m, nk_term t) {
    double v = x[i * s];
    switch (t) {
    case NK_SQ: return v * v;
    case NK_SQDEV: return (v - m) * (v - m);
    case NK_XY: return v * y[i * s];
    default: return v;
    }
}

double nk_sum(const double *x, const double *y, int64_t n, int64_t s, double m, nk_term t) {
    if (n <= NK_BLOCK) {
        double acc = 0;
        for (int64_t i = 0; i < n; i++) acc += term(x, y, i, s, m, t);
        return acc;
    }
    /* split at a multiple of the block so the tree depends on n only */
    int64_t blocks = (n + NK_BLOCK - 1) / NK_BLOCK;
    int64_t h = (blocks / 2) * NK_BLOCK;
    return nk_sum(x, y, h, s, m, t) + nk_sum(x + h * s, y ? y + h * s : NULL, n - h, s, m, t);
}

void nk_row_moments(const double *x, int64_t rows, int64_t n, double *mean, double *var) {
    ACL_FOR(acl_parallel_worth(rows * n), r, 0, rows, {
        const double *xr = x + r * n;
        double m = nk_sum(xr, NULL, n, 1, 0, NK_X) / (double)n;
        mean[r] = m;
        if (var) var[r] = nk_sum(xr, NULL, n, 1, m, NK_SQDEV) / (double)n;
    });
}

void nk_row_meansq(const double *x, int64_t rows, int64_t n, double *ms) {
    ACL_FOR(acl_parallel_worth(rows * n), r, 0, rows, ms[r] = nk_sum(x + r * n, NULL, n, 1, 0, NK_SQ) / (double)n;);
}

void nk_row_affine(const double *x, int64_t rows, int64_t n, const double *mean, const double *rstd,
                   const double *w, const double *b, double *y) {
    ACL_FOR(acl_parallel_worth(rows * n), r, 0, rows, {
        const double m = mean ? mean[r] : 0, rs = rstd[r];
        for (int64_t j = 0; j < n; j++) {
            double v = (x[r * n + j] - m) * rs;
            if (w) v *= w[j];
            if (b) v += b[j];
            y[r * n + j] = v;
        }
    });
}

int nk_row_backward(const double *dy, const double *x, int64_t rows, int64_t n, const double *mean,
                     const double *rstd, const double *w, double *dx, double *dw, double *db) {
    if (dx) {
        int nt = acl_max_threads();
        const int64_t blk = acl_team_block(2 * n, sizeof(double));
        double *scratch = acl_team_alloc(nt, 2 * n, sizeof(double), 0); /* whole lines a thread */
        if (!scratch) return -1;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(rows * n))
        for (int64_t r = 0; r < rows; r++) {
#ifdef _OPENMP
            double *g = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
            double *g = scratch;
#endif
            double *xh = g + n;
            const double m = mean ? mean[r] : 0, rs = rstd[r];
            for (int64_t j = 0; j < n; j++) {
                g[j] = dy[r * n + j] * (w ? w[j] : 1.0);
                xh[j] = (x[r * n + j] - m) * rs;
            }
            const double mg = mean ? nk_sum(g, NULL, n, 1, 0, NK_X) / (double)n : 0;
            const double mgx = nk_sum(g, xh, n, 1, 0, NK_XY) / (double)n;
            for (int64_t j = 0; j < n; j++) dx[r * n + j] = rs * (g[j] - mg - xh[j] * mgx);
        }
        free(scratch);
    }
    if (dw || db) {
        /* each column j is owned by one iteration and summed over the rows in increasing order */
        ACL_FOR(acl_parallel_worth(rows * n), j, 0, n, {
            double sw = 0, sb = 0;
            for (int64_t r = 0; r < rows; r++) {
                const double d = dy[r * n + j];
                sw += d * (x[r * n + j] - (mean ? mean[r] : 0)) * rstd[r];
                sb += d;
            }
            if (dw) dw[j] = sw;
            if (db) db[j] = sb;
        });
    }
    return 0;
}

void nk_channel_moments(const double *x, int64_t N, int64_t C, int64_t S, double *mean, double *var) {
    const double cnt = (double)N * (double)S;
    ACL_FOR(acl_parallel_worth(N * C * S), c, 0, C, {
        double s = 0;
        for (int64_t b = 0; b < N; b++) s += nk_sum(x + (b * C + c) * S, NULL, S, 1, 0, NK_X);
        const double m = s / cnt;
        double q = 0;
        for (int64_t b = 0; b < N; b++) q += nk_sum(x + (b * C + c) * S, NULL, S, 1, m, NK_SQDEV);
        mean[c] = m;
        var[c] = q / cnt;
    });
}

void nk_channel_affine(const double *x, int64_t N, int64_t C, int64_t S, const double *mean, const double *invstd,
                       const double *w, const double *b, double *y) {
    ACL_FOR(acl_parallel_worth(N * C * S), bc, 0, N * C, {
        const int64_t c = bc % C;
        const double m = mean[c], k = invstd[c] * (w ? w[c] : 1.0), o = b ? b[c] : 0.0;
        for (int64_t s = 0; s < S; s++) y[bc * S + s] = (x[bc * S + s] - m) * k + o;
    });
}

void nk_channel_grad_sums(const double *dy, const double *x, int64_t N, int64_t C, int64_t S, const double *mean,
                          double *sdy, double *sdyx) {
    ACL_FOR(acl_parallel_worth(N * C * S), c, 0, C, {
        double a = 0, q = 0;
        for (int64_t b = 0; b < N; b++) {
            const double *d = dy + (b * C + c) * S, *xx = x + (b * C + c) * S;
            a += nk_sum(d, NULL, S, 1, 0, NK_X);
            double p = 0;
            for (int64_t s0 = 0; s0 < S; s0 += NK_BLOCK) {
                double blk = 0;
                int64_t e = s0 + NK_BLOCK < S ? s0 + NK_BLOCK : S;
                for (int64_t s = s0; s < e; s++) blk += d[s] * (xx[s] - mean[c]);
                p += blk;
            }
            q += p;
        }
        sdy[c] = a;
        sdyx[c] = q;
    });
}

int nk_group_stats(const double *x, int64_t N, int64_t C, int64_t S, int64_t G, double eps, double *mean,
                    double *rstd) {
    const int64_t len = C / G * S;
    double *var = malloc(sizeof(double) * (size_t)(N * G > 0 ? N * G : 1));
    if (!var) return -1;
    nk_row_moments(x, N * G, len, mean, var); /* the (n, g) blocks are contiguous rows of C/G * S elements */
    for (int64_t i = 0; i < N * G; i++) rstd[i] = 1.0 / sqrt(var[i] + eps);
    free(var);
    return 0;
}

void nk_group_affine(const double *x, int64_t N, int64_t C, int64_t S, int64_t G, const double *mean,
                     const double *rstd, const double *gamma, const double *beta, double *y) {
    const int64_t cg = C / G;
    ACL_FOR(acl_parallel_worth(N * C * S), bc, 0, N * C, {
        const int64_t b = bc / C, c = bc % C, g = b * G + c / cg;
        const double k = rstd[g] * (gamma ? gamma[c] : 1.0), o = beta ? beta[c] : 0.0, m = mean[g];
        for (int64_t s = 0; s < S; s++) y[bc * S + s] = (x[bc * S + s] - m) * k + o;
    });
}

int nk_group_backward(const double *dy, const double *x, int64_t N, int64_t C, int64_t S, int64_t G,
                       const double *mean, const double *rstd, const double *gamma, double *dx, double *dgamma,
                       double *dbeta) {
    const int64_t cg = C / G, len = cg * S;
    if (dx) {
        const int nt = acl_max_threads();
        const int64_t blk = acl_team_block(2 * len, sizeof(double));
        double *scratch = acl_team_alloc(nt, 2 * len, sizeof(double), 0); /* whole lines a thread */
        if (!scratch) return -1;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(N * C * S))
        for (int64_t ng = 0; ng < N * G; ng++) {
#ifdef _OPENMP
            double *gg = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
            double *gg = scratch;
#endif
            double *xh = gg + len;
            const int64_t base = ng * len, c0 = (ng % G) * cg;
            const double m = mean[ng], rs = rstd[ng];
            for (int64_t i = 0; i < len; i++) {
                gg[i] = dy[base + i] * (gamma ? gamma[c0 + i / S] : 1.0);
                xh[i] = (x[base + i] - m) * rs;
            }
            const double mg = nk_sum(gg, NULL, len, 1, 0, NK_X) / (double)len;
            const double mgx = nk_sum(gg, xh, len, 1, 0, NK_XY) / (double)len;
            for (int64_t i = 0; i < len; i++) dx[base + i] = rs * (gg[i] - mg - xh[i] * mgx);
        }
        free(scratch);
    }
    if (dgamma || dbeta) {
        ACL_FOR(acl_parallel_worth(N * C * S), c, 0, C, {
            double sg = 0, sb = 0;
            for (int64_t b = 0; b < N; b++) {
                const int64_t g = b * G + c / cg;
                const double *d = dy + (b * C + c) * S, *xx = x + (b * C + c) * S;
                double pg = 0;
                for (int64_t s = 0; s < S; s++) pg += d[s] * (xx[s] - mean[g]);
                sg += pg * rstd[g];
                sb += nk_sum(d, NULL, S, 1, 0, NK_X);
            }
            if (dgamma) dgamma[c] = sg;
            if (dbeta) dbeta[c] = sb;
        });
    }
    return 0;
}
