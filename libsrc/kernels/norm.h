/* Shared compute of the norm family (libsrc/ops/norm_*.c): statistics and backward passes over float64 buffers
 * that the ops gather from their views (ops/dense.h) and scatter back with one rounding per output.
 *
 * Determinism: every reduction has a fixed order that depends only on its length (nk_sum: serial blocks of
 * NK_BLOCK elements combined by a fixed pairwise tree), every parallel loop gives each output element to exactly
 * one iteration (rows, groups, or channels/columns for the weight gradients), so the bytes are the same for any
 * OMP_NUM_THREADS. */
#ifndef PYACLNN_KERNELS_NORM_H
#define PYACLNN_KERNELS_NORM_H

#include <stdint.h>

#define NK_BLOCK 64

/* what nk_sum adds up, element i at x[i * s] (and y[i * s]) */
typedef enum { NK_X, NK_SQ, NK_SQDEV, NK_XY } nk_term;

/* sum over i < n of the term: x, x^2, (x - m)^2 or x * y, in the fixed blocked-pairwise order */
double nk_sum(const double *x, const double *y, int64_t n, int64_t s, double m, nk_term t);

/* Statistics of `rows` contiguous rows of length n: mean and biased variance (two passes); var may be NULL. */
void nk_row_moments(const double *x, int64_t rows, int64_t n, double *mean, double *var);
/* mean of squares of each row */
void nk_row_meansq(const double *x, int64_t rows, int64_t n, double *ms);

/* Layer-norm style rows: y[r, j] = (x[r, j] - mean[r]) * rstd[r] * (w ? w[j] : 1) + (b ? b[j] : 0) */
void nk_row_affine(const double *x, int64_t rows, int64_t n, const double *mean, const double *rstd,
                   const double *w, const double *b, double *y);

/* Backward of y = (x - mean) * rstd * w (+ b) over rows of length n, with mean/rstd given per row (mean NULL:
 * the RMS form, no centring):
 *   dx[r, j] = rstd * (g - mean_j(g) - xhat * mean_j(g * xhat)),  g = dy * w, xhat = (x - mean) * rstd
 *   (RMS form: dx = rstd * (g - xhat * mean_j(g * xhat)))
 *   dw[j] = sum_r dy * xhat,  db[j] = sum_r dy   (each column summed over r in increasing order)
 * Any of dx, dw, db may be NULL. Returns 0, or -1 when its scratch cannot be allocated (nothing written). */
int nk_row_backward(const double *dy, const double *x, int64_t rows, int64_t n, const double *mean,
                     const double *rstd, const double *w, double *dx, double *dw, double *db);

/* Channel statistics of an (N, C, S) buffer: mean and biased variance of each channel over N * S elements. */
void nk_channel_moments(const double *x, int64_t N, int64_t C, int64_t S, double *mean, double *var);
/* y = (x - mean[c]) * invstd[c] * w[c] + b[c] over an (N, C, S) buffer (w/b NULL: 1/0) */
void nk_channel_affine(const double *x, int64_t N, int64_t C, int64_t S, const double *mean, const double *invstd,
                       const double *w, const double *b, double *y);
/* per channel: sdy[c] = sum dy, sdyx[c] = sum dy * (x - mean[c]) over (N, S), in a fixed order */
void nk_channel_grad_sums(const double *dy, const double *x, int64_t N, int64_t C, int64_t S, const double *mean,
                          double *sdy, double *sdyx);

/* Group norm over an (N, C, S) buffer with G groups of C/G channels: mean/rstd per (n, g) ([N, G]); 0 or -1 (OOM) */
int nk_group_stats(const double *x, int64_t N, int64_t C, int64_t S, int64_t G, double eps, double *mean,
                    double *rstd);
/* y = (x - mean[n, g]) * rstd[n, g] * gamma[c] + beta[c] (gamma/beta NULL: 1/0) */
void nk_group_affine(const double *x, int64_t N, int64_t C, int64_t S, int64_t G, const double *mean,
                     const double *rstd, const double *gamma, const double *beta, double *y);
/* backward of nk_group_affine given mean/rstd; dx/dgamma/dbeta may be NULL; 0, or -1 out of memory */
int nk_group_backward(const double *dy, const double *x, int64_t N, int64_t C, int64_t S, int64_t G,
                       const double *mean, const double *rstd, const double *gamma, double *dx, double *dgamma,
                       double *dbeta);

#endif
