/* aclnnAddLayerNorm (ops-nn norm/add_layer_norm): x = x1 + x2 (+ biasOptional), then a layer norm of x over the
 * trailing gamma.dim() dims:
 *   mean = E[x], rstd = 1 / sqrt(Var[x] + epsilon) (biased), yOut = (x - mean) * rstd * gamma + beta,
 *   meanOut / rstdOut: one value per row (float32), xOut = x when additionalOutput.
 * x is kept in float64 for the statistics (xOut is its one rounding).
 * aclnnAddLayerNormGrad (norm/add_layer_norm_grad), with the given mean / rstd of x = x1 + x2:
 *   dxOut = rstd * (g - mean(g) - xhat * mean(g * xhat)) + dsumOptional, g = dy * gamma, xhat = (x - mean) * rstd;
 *   dgammaOut[j] = sum_rows dy * xhat, dbetaOut[j] = sum_rows dy. No op_api source upstream: the first phase is
 * the generated one (NULL 161001, the docs' A2 dtype table 161002, shape rules 561002, all outputs empty ->
 * nothing to launch). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

#define F32 ACL_FLOAT
#define F16 ACL_FLOAT16
#define B16 ACL_BF16

typedef struct { nm_io io; int64_t rows, n; double eps; bool extra, bias_full; } aln_params;

static aclnnStatus aln_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const aln_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom);
    double *g = nm_load(nm_in(ex, 2), &oom), *b = nm_load(nm_in(ex, 3), &oom), *bias = nm_load(nm_in(ex, 4), &oom);
    const int64_t rows = p->rows, n = p->n;
    double *mean = malloc(sizeof(double) * (size_t)rows), *rstd = malloc(sizeof(double) * (size_t)rows);
    double *y = malloc(sizeof(double) * (size_t)(rows * n));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < rows * n; i++) {
            x[i] += x2[i];
            if (bias) x[i] += bias[p->bias_full ? i : i % n];
        }
        nk_row_moments(x, rows, n, mean, rstd);
        for (int64_t r = 0; r < rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, rows, n, mean, rstd, g, b, y);
        nm_store(y, nm_out(ex, 0));
        nm_store(mean, nm_out(ex, 1));
        nm_store(rstd, nm_out(ex, 2));
        if (p->extra) nm_store(x, nm_out(ex, 3));
    }
    free(x), free(x2), free(g), free(b), free(bias), free(mean), free(rstd), free(y);
    return rc;
}

/* x1, x2, gamma, beta, bias, y, mean, rstd, x */
static const aclDataType k_rows[] = {
    F32, F16, F32, F32, F32, F32, F32, F32, F32,  F32, B16, F32, F32, F32, F32, F32, F32, F32,
    F16, F32, F32, F32, F32, F32, F32, F32, F32,  B16, F32, F32, F32, F32, F32, F32, F32, F32,
    F16, F16, F32, F32, F16, F16, F32, F32, F16,  B16, B16, F32, F32, B16, B16, F32, F32, B16,
    F16, F16, F16, F16, F16, F16, F32, F32, F16,  B16, B16, B16, B16, B16, B16, F32, F32, B16,
    F32, F32, F32, F32, F32, F32, F32, F32, F32};

aclnnStatus opws_AddLayerNorm(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, const aclTensor *beta,
                              const aclTensor *biasOptional, double epsilon, bool additionalOutput,
                              const aclTensor *yOut, const aclTensor *meanOut, const aclTensor *rstdOut,
                              const aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(yOut, "yOut");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    NN(xOut, "xOut");
    const aclTensor *ts[] = {x1, x2, gamma, beta, biasOptional, yOut, meanOut, rstdOut, xOut};
    const char *names[] = {"x1", "x2", "gamma", "beta", "biasOptional", "yOut", "meanOut", "rstdOut", "xOut"};
    ACL_TRY(nm_combo(k_rows, 9, 9, ts, names));
    if (acl_tensor_empty(yOut) && acl_tensor_empty(meanOut) && acl_tensor_empty(rstdOut) && acl_tensor_empty(xOut))
        return acl_exec_noop(ACL_OP_AddLayerNorm, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1->ndim >= 1 && x1->ndim <= 8, T, "x1 should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1->ndim);
    ACLNN_CHECK(!acl_tensor_empty(x1), T, "x1 should not have a zero dim.");
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    if (nm_same_shape(x2, "x2", x1, "x1")) return ACL_REPORT(T, "the shape of x2 should be the shape of x1.");
    ACLNN_CHECK(gamma->ndim >= 1 && gamma->ndim <= x1->ndim, T, "gamma should have 1 to %llu dims.",
                (unsigned long long)x1->ndim);
    const uint64_t off = x1->ndim - gamma->ndim;
    for (uint64_t i = 0; i < gamma->ndim; i++)
        ACLNN_CHECK(gamma->dims[i] == x1->dims[off + i], T, "gamma dim %llu (%lld) should equal x1 dim %llu (%lld).",
                    (unsigned long long)i, (long long)gamma->dims[i], (unsigned long long)(off + i),
                    (long long)x1->dims[off + i]);
    if (nm_same_shape(beta, "beta", gamma, "gamma")) return ACL_REPORT(T, "the shape of beta should be gamma's.");
    bool bias_full = false;
    if (biasOptional) {
        bias_full = nm_same_shape(biasOptional, "biasOptional", x1, "x1") == 0;
        if (!bias_full && nm_same_shape(biasOptional, "biasOptional", gamma, "gamma"))
            return ACL_REPORT(T, "the shape of biasOptional should be the shape of gamma or of x1.");
    }
    if (nm_same_shape(yOut, "yOut", x1, "x1")) return ACL_REPORT(T, "the shape of yOut should be the shape of x1.");
    if (nm_same_shape(xOut, "xOut", x1, "x1")) return ACL_REPORT(T, "the shape of xOut should be the shape of x1.");
    const int64_t rows = nm_prod(x1, 0, off), n = nm_prod(x1, off, x1->ndim);
    ACLNN_CHECK(acl_tensor_numel(meanOut) == rows, T, "meanOut should have %lld elements.", (long long)rows);
    ACLNN_CHECK(acl_tensor_numel(rstdOut) == rows, T, "rstdOut should have %lld elements.", (long long)rows);
    const aclTensor *ins[] = {x1, x2, gamma, beta, biasOptional};
    const char *inn[] = {"x1", "x2", "gamma", "beta", "biasOptional"};
    const aclTensor *outs[] = {yOut, meanOut, rstdOut, additionalOutput ? xOut : NULL};
    const char *outn[] = {"yOut", "meanOut", "rstdOut", "xOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddLayerNorm, aln_run, sizeof(aln_params), ins, inn, 5, outs, outn, 4, workspaceSize,
                    executor, &pp));
    aln_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->extra = additionalOutput;
    p->bias_full = bias_full;
    return ACLNN_SUCCESS;
}

/* in: dy, x1, x2, rstd, mean, gamma, dsum; out: dx, dgamma, dbeta */
static aclnnStatus alng_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const aln_params *p = ex->params;
    const int64_t rows = p->rows, n = p->n;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom), *x2 = nm_load(nm_in(ex, 2), &oom);
    double *rstd = nm_load(nm_in(ex, 3), &oom), *mean = nm_load(nm_in(ex, 4), &oom), *g = nm_load(nm_in(ex, 5), &oom);
    double *dsum = nm_load(nm_in(ex, 6), &oom);
    double *dx = malloc(sizeof(double) * (size_t)(rows * n)), *dg = malloc(sizeof(double) * (size_t)n);
    double *db = malloc(sizeof(double) * (size_t)n);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !dx || !dg || !db) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < rows * n; i++) x[i] += x2[i];
        if (nk_row_backward(dy, x, rows, n, mean, rstd, g, dx, dg, db)) rc = OOM;
        if (dsum && !rc)
            for (int64_t i = 0; i < rows * n; i++) dx[i] += dsum[i];
        if (!rc) {
            nm_store(dx, nm_out(ex, 0));
            nm_store(dg, nm_out(ex, 1));
            nm_store(db, nm_out(ex, 2));
        }
    }
    free(dy), free(x), free(x2), free(rstd), free(mean), free(g), free(dsum), free(dx), free(dg), free(db);
    return rc;
}

aclnnStatus opws_AddLayerNormGrad(const aclTensor *dy, const aclTensor *x1, const aclTensor *x2, const aclTensor *rstd,
                                  const aclTensor *mean, const aclTensor *gamma, const aclTensor *dsumOptional,
                                  const aclTensor *dxOut, const aclTensor *dgammaOut, const aclTensor *dbetaOut,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(dy, "dy");
    NN(x1, "x1");
    NN(x2, "x2");
    NN(rstd, "rstd");
    NN(mean, "mean");
    NN(gamma, "gamma");
    NN(dxOut, "dxOut");
    NN(dgammaOut, "dgammaOut");
    NN(dbetaOut, "dbetaOut");
    static const aclDataType dl[] = {F32, F16, B16};
    ACL_TRY(acl_check_dtype_in(dy, dl, 3, "dy"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", dy, "dy"));
    ACL_TRY(acl_check_same_dtype(x2, "x2", dy, "dy"));
    ACL_TRY(nm_dtype_is(rstd, F32, "rstd"));
    ACL_TRY(nm_dtype_is(mean, F32, "mean"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", dy, "dy"));
    if (dsumOptional) ACL_TRY(acl_check_same_dtype(dsumOptional, "dsumOptional", dy, "dy"));
    ACL_TRY(acl_check_same_dtype(dxOut, "dxOut", dy, "dy"));
    ACL_TRY(nm_dtype_is(dgammaOut, F32, "dgammaOut"));
    ACL_TRY(nm_dtype_is(dbetaOut, F32, "dbetaOut"));
    if (acl_tensor_empty(dxOut) && acl_tensor_empty(dgammaOut) && acl_tensor_empty(dbetaOut))
        return acl_exec_noop(ACL_OP_AddLayerNormGrad, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(dy->ndim >= 1 && dy->ndim <= 8, T, "dy should have 1 to 8 dims, but has %llu.",
                (unsigned long long)dy->ndim);
    ACLNN_CHECK(!acl_tensor_empty(dy), T, "dy should not have a zero dim.");
    ACLNN_CHECK(acl_tensor_numel(dy) >= 0, T, "dy has more elements than int64 holds.");
    const aclTensor *same[] = {x1, x2, dsumOptional, dxOut};
    const char *samen[] = {"x1", "x2", "dsumOptional", "dxOut"};
    for (int i = 0; i < 4; i++)
        if (same[i] && nm_same_shape(same[i], samen[i], dy, "dy"))
            return ACL_REPORT(T, "the shape of %s should be the shape of dy.", samen[i]);
    ACLNN_CHECK(gamma->ndim >= 1 && gamma->ndim <= dy->ndim, T, "gamma should have 1 to %llu dims.",
                (unsigned long long)dy->ndim);
    const uint64_t off = dy->ndim - gamma->ndim;
    for (uint64_t i = 0; i < gamma->ndim; i++)
        ACLNN_CHECK(gamma->dims[i] == dy->dims[off + i], T, "gamma dim %llu (%lld) should equal dy dim %llu (%lld).",
                    (unsigned long long)i, (long long)gamma->dims[i], (unsigned long long)(off + i),
                    (long long)dy->dims[off + i]);
    if (nm_same_shape(dgammaOut, "dgammaOut", gamma, "gamma")) return ACL_REPORT(T, "dgammaOut should be gamma's shape.");
    if (nm_same_shape(dbetaOut, "dbetaOut", gamma, "gamma")) return ACL_REPORT(T, "dbetaOut should be gamma's shape.");
    const int64_t rows = nm_prod(dy, 0, off), n = nm_prod(dy, off, dy->ndim);
    ACLNN_CHECK(acl_tensor_numel(mean) == rows, T, "mean should have %lld elements.", (long long)rows);
    ACLNN_CHECK(acl_tensor_numel(rstd) == rows, T, "rstd should have %lld elements.", (long long)rows);
    const aclTensor *ins[] = {dy, x1, x2, rstd, mean, gamma, dsumOptional}, *outs[] = {dxOut, dgammaOut, dbetaOut};
    const char *inn[] = {"dy", "x1", "x2", "rstd", "mean", "gamma", "dsumOptional"};
    const char *outn[] = {"dxOut", "dgammaOut", "dbetaOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddLayerNormGrad, alng_run, sizeof(aln_params), ins, inn, 7, outs, outn, 3, workspaceSize,
                    executor, &pp));
    aln_params *p = pp;
    p->rows = rows;
    p->n = n;
    return ACLNN_SUCCESS;
}
