/* aclnnAddLayerNorm (ops-nn norm/add_layer_norm): x = x1 + x2 (+ biasOptional), then a layer norm of x over the
 * trailing gamma.dim() dims:
 *   mean = E[x], rstd = 1 / sqrt(Var[x] + epsilon) (biased), yOut = (x - mean) * rstd * gamma + beta,
 *   meanOut / rstdOut: one value per row (float32), xOut = x when additionalOutput.
 * x is kept in float64 for the statistics (xOut is its one rounding). No op_api source upstream: the first phase is
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
