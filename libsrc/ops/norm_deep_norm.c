/* aclnnDeepNorm (ops-nn norm/deep_norm) and aclnnDeepNormGrad (norm/deep_norm_grad).
 *
 * x' = alpha * x + gx, normalised over the trailing gamma.dim() dims:
 *   mean = E[x'], rstd = 1 / sqrt(Var[x'] + epsilon) (biased), y = (x' - mean) * rstd * gamma + beta.
 * Backward with the given mean / rstd (the doc's tmpone / tmptwo / dvar / dmean expanded):
 *   dgx = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = dy * gamma, xhat = (x' - mean) * rstd;
 *   dx = alpha * dgx;  dgamma[j] = sum_rows dy * xhat;  dbeta[j] = sum_rows dy.
 * No op_api source upstream: the generated first phase (NULL 161001, dtype rules 161002, shape rules 561002, all
 * outputs empty -> nothing to launch). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
#define K_DT k_dt, ACL_COUNT_OF(k_dt)

typedef struct { nm_io io; int64_t rows, n; double alpha, eps; } dn_params;

/* the norm dims are gamma's: its shape must be x's trailing dims (561002); rows / n through the pointers */
static aclnnStatus tail_of(const aclTensor *x, const aclTensor *g, const char *gn, int64_t *rows, int64_t *n) {
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x->ndim >= 2 && x->ndim <= 8, T, "x should have 2 to 8 dims, but has %llu.",
                (unsigned long long)x->ndim);
    ACLNN_CHECK(g->ndim >= 1 && g->ndim < x->ndim, T, "%s should have 1 to %llu dims, but has %llu.", gn,
                (unsigned long long)(x->ndim - 1), (unsigned long long)g->ndim);
    const uint64_t off = x->ndim - g->ndim;
    for (uint64_t i = 0; i < g->ndim; i++)
        ACLNN_CHECK(g->dims[i] == x->dims[off + i], T, "%s dim %llu (%lld) should equal x dim %llu (%lld).", gn,
                    (unsigned long long)i, (long long)g->dims[i], (unsigned long long)(off + i),
                    (long long)x->dims[off + i]);
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    *rows = nm_prod(x, 0, off);
    *n = nm_prod(x, off, x->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus same_as(const aclTensor *t, const char *tn, const aclTensor *ref, const char *rn) {
    if (nm_same_shape(t, tn, ref, rn))
        return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "the shape of %s should be the shape of %s.", tn, rn);
    return ACLNN_SUCCESS;
}

static aclnnStatus dn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const dn_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *gx = nm_load(nm_in(ex, 1), &oom);
    double *b = nm_load(nm_in(ex, 2), &oom), *g = nm_load(nm_in(ex, 3), &oom);
    double *mean = malloc(sizeof(double) * (size_t)p->rows), *rstd = malloc(sizeof(double) * (size_t)p->rows);
    double *y = malloc(sizeof(double) * (size_t)(p->rows * p->n));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < p->rows * p->n; i++) x[i] = p->alpha * x[i] + gx[i];
        nk_row_moments(x, p->rows, p->n, mean, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, mean, rstd, g, b, y);
        nm_store(mean, nm_out(ex, 0));
        nm_store(rstd, nm_out(ex, 1));
        nm_store(y, nm_out(ex, 2));
    }
    free(x), free(gx), free(b), free(g), free(mean), free(rstd), free(y);
    return rc;
}

aclnnStatus opws_DeepNorm(const aclTensor *x, const aclTensor *gx, const aclTensor *beta, const aclTensor *gamma,
                          double alpha, double epsilon, const aclTensor *meanOut, const aclTensor *rstdOut,
                          const aclTensor *yOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    NN(gx, "gx");
    NN(beta, "beta");
    NN(gamma, "gamma");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    NN(yOut, "yOut");
    ACL_TRY(acl_check_dtype_in(x, K_DT, "x"));
    ACL_TRY(acl_check_same_dtype(gx, "gx", x, "x"));
    ACL_TRY(acl_check_same_dtype(beta, "beta", x, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    ACL_TRY(nm_dtype_is(meanOut, ACL_FLOAT, "meanOut"));
    ACL_TRY(nm_dtype_is(rstdOut, ACL_FLOAT, "rstdOut"));
    ACL_TRY(acl_check_same_dtype(yOut, "yOut", x, "x"));
    if (acl_tensor_empty(meanOut) && acl_tensor_empty(rstdOut) && acl_tensor_empty(yOut))
        return acl_exec_noop(ACL_OP_DeepNorm, workspaceSize, executor);
    int64_t rows, n;
    ACL_TRY(tail_of(x, gamma, "gamma", &rows, &n));
    ACL_TRY(same_as(gx, "gx", x, "x"));
    ACL_TRY(same_as(beta, "beta", gamma, "gamma"));
    ACL_TRY(same_as(yOut, "yOut", x, "x"));
    ACLNN_CHECK(acl_tensor_numel(meanOut) == rows, ACLNN_ERR_INNER_TILING_ERROR, "meanOut should have %lld elements.",
                (long long)rows);
    ACLNN_CHECK(acl_tensor_numel(rstdOut) == rows, ACLNN_ERR_INNER_TILING_ERROR, "rstdOut should have %lld elements.",
                (long long)rows);
    const aclTensor *ins[] = {x, gx, beta, gamma}, *outs[] = {meanOut, rstdOut, yOut};
    const char *inn[] = {"x", "gx", "beta", "gamma"}, *outn[] = {"meanOut", "rstdOut", "yOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_DeepNorm, dn_run, sizeof(dn_params), ins, inn, 4, outs, outn, 3, workspaceSize, executor,
                    &pp));
    dn_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->alpha = alpha;
    p->eps = epsilon;
    return ACLNN_SUCCESS;
}

static aclnnStatus dng_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const dn_params *p = ex->params;
    const int64_t rows = p->rows, n = p->n;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom), *gx = nm_load(nm_in(ex, 2), &oom);
    double *g = nm_load(nm_in(ex, 3), &oom), *mean = nm_load(nm_in(ex, 4), &oom), *rstd = nm_load(nm_in(ex, 5), &oom);
    double *dgx = malloc(sizeof(double) * (size_t)(rows * n > 0 ? rows * n : 1));
    double *db = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1)), *dg = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !dgx || !db || !dg) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < rows * n; i++) x[i] = p->alpha * x[i] + gx[i];
        if (nk_row_backward(dy, x, rows, n, mean, rstd, g, dgx, dg, db)) rc = OOM;
    }
    if (!rc) {
        nm_store(dgx, nm_out(ex, 1));
        for (int64_t i = 0; i < rows * n; i++) dgx[i] *= p->alpha;
        nm_store(dgx, nm_out(ex, 0));
        nm_store(db, nm_out(ex, 2));
        nm_store(dg, nm_out(ex, 3));
    }
    free(dy), free(x), free(gx), free(g), free(mean), free(rstd), free(dgx), free(db), free(dg);
    return rc;
}

aclnnStatus opws_DeepNormGrad(const aclTensor *dy, const aclTensor *x, const aclTensor *gx, const aclTensor *gamma,
                              const aclTensor *mean, const aclTensor *rstd, double alpha, const aclTensor *dxOut,
                              const aclTensor *dgxOut, const aclTensor *dbetaOut, const aclTensor *dgammaOut,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(dy, "dy");
    NN(x, "x");
    NN(gx, "gx");
    NN(gamma, "gamma");
    NN(mean, "mean");
    NN(rstd, "rstd");
    NN(dxOut, "dxOut");
    NN(dgxOut, "dgxOut");
    NN(dbetaOut, "dbetaOut");
    NN(dgammaOut, "dgammaOut");
    ACL_TRY(acl_check_dtype_in(x, K_DT, "x"));
    ACL_TRY(acl_check_same_dtype(dy, "dy", x, "x"));
    ACL_TRY(acl_check_same_dtype(gx, "gx", x, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    ACL_TRY(nm_dtype_is(mean, ACL_FLOAT, "mean"));
    ACL_TRY(nm_dtype_is(rstd, ACL_FLOAT, "rstd"));
    ACL_TRY(acl_check_same_dtype(dxOut, "dxOut", x, "x"));
    ACL_TRY(acl_check_same_dtype(dgxOut, "dgxOut", x, "x"));
    ACL_TRY(nm_dtype_is(dbetaOut, ACL_FLOAT, "dbetaOut"));
    ACL_TRY(nm_dtype_is(dgammaOut, ACL_FLOAT, "dgammaOut"));
    if (acl_tensor_empty(dxOut) && acl_tensor_empty(dgxOut) && acl_tensor_empty(dbetaOut) &&
        acl_tensor_empty(dgammaOut))
        return acl_exec_noop(ACL_OP_DeepNormGrad, workspaceSize, executor);
    int64_t rows, n;
    ACL_TRY(tail_of(x, gamma, "gamma", &rows, &n));
    ACL_TRY(same_as(dy, "dy", x, "x"));
    ACL_TRY(same_as(gx, "gx", x, "x"));
    ACL_TRY(same_as(rstd, "rstd", mean, "mean"));
    ACLNN_CHECK(acl_tensor_numel(mean) == rows, ACLNN_ERR_INNER_TILING_ERROR, "mean should have %lld elements.",
                (long long)rows);
    ACL_TRY(same_as(dxOut, "dxOut", x, "x"));
    ACL_TRY(same_as(dgxOut, "dgxOut", x, "x"));
    ACL_TRY(same_as(dbetaOut, "dbetaOut", gamma, "gamma"));
    ACL_TRY(same_as(dgammaOut, "dgammaOut", gamma, "gamma"));
    const aclTensor *ins[] = {dy, x, gx, gamma, mean, rstd}, *outs[] = {dxOut, dgxOut, dbetaOut, dgammaOut};
    const char *inn[] = {"dy", "x", "gx", "gamma", "mean", "rstd"};
    const char *outn[] = {"dxOut", "dgxOut", "dbetaOut", "dgammaOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_DeepNormGrad, dng_run, sizeof(dn_params), ins, inn, 6, outs, outn, 4, workspaceSize,
                    executor, &pp));
    dn_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->alpha = alpha;
    return ACLNN_SUCCESS;
}
