/* aclnnRmsNormDynamicQuant (ops-nn norm/rms_norm_dynamic_quant): the RMS norm of each row (x's last dim)
 *   y = x * rstd * gamma (+ beta),  rstd = 1 / sqrt(mean(x^2) + epsilon)
 * then a dynamic per-row quantisation: v = y * smoothScales (when given), scaleOut[r] = max|v| / 127,
 *   yOut = round_half_even(v / scaleOut[r]) (INT8; a row of zeros or NaN gives 0).
 * Float64 throughout, rounded once (yOut to INT8, scaleOut to FLOAT). No op_api source upstream: the generated
 * first phase (NULL 161001, the op definition's dtype rows 161002), then the tiling's rules (561002). dstType is
 * not read: the tiling takes the output type from yOut (INT8 on ASCEND910B). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps; } rdq_params;

static aclnnStatus rdq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rdq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom);
    double *sm = nm_load(nm_in(ex, 2), &oom), *b = nm_load(nm_in(ex, 3), &oom);
    const int64_t total = p->rows * p->n;
    double *rstd = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *sc = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !rstd || !sc || !y) {
        rc = OOM;
    } else {
        nk_row_meansq(x, p->rows, p->n, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, NULL, rstd, g, b, y);
        nq_dynamic(y, p->rows, p->n, sm, 127.0, sc);
        if (nq_store(y, total, nm_out(ex, 0))) rc = OOM;
        nm_store(sc, nm_out(ex, 1));
    }
    free(x), free(g), free(sm), free(b), free(rstd), free(sc), free(y);
    return rc;
}

static const aclDataType k_x[] = {ACL_FLOAT16, ACL_BF16};

aclnnStatus opws_RmsNormDynamicQuant(const aclTensor *x, const aclTensor *gamma, const aclTensor *smoothScalesOptional,
                                     const aclTensor *betaOptional, double epsilon, int64_t dstType,
                                     const aclTensor *yOut, const aclTensor *scaleOut, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    const aclTensor *sm = smoothScalesOptional, *b = betaOptional;
    NN(x, "x");
    NN(gamma, "gamma");
    NN(yOut, "yOut");
    NN(scaleOut, "scaleOut");
    ACL_TRY(acl_check_dtype_in(x, k_x, 2, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    if (sm) ACL_TRY(acl_check_same_dtype(sm, "smoothScalesOptional", x, "x"));
    if (b) ACL_TRY(acl_check_same_dtype(b, "betaOptional", x, "x"));
    ACL_TRY(nm_dtype_is(yOut, ACL_INT8, "yOut"));
    ACL_TRY(nm_dtype_is(scaleOut, ACL_FLOAT, "scaleOut"));
    /* the tiling's rules */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(epsilon > 0, T, "epsilon (%g) should be greater than 0.", epsilon);
    ACLNN_CHECK(x->ndim >= 1 && x->ndim <= 8, T, "x should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x->ndim);
    ACLNN_CHECK(acl_tensor_numel(x) > 0, T, "x cannot be an empty tensor.");
    ACLNN_CHECK(gamma->ndim == 1, T, "gamma should be 1D, but has %llu dims.", (unsigned long long)gamma->ndim);
    const int64_t n = x->dims[x->ndim - 1];
    ACLNN_CHECK(gamma->dims[0] == n, T, "the shape of gamma (%lld) should be x's last dim (%lld).",
                (long long)gamma->dims[0], (long long)n);
    if (sm && acl_tensor_numel(sm) > 0 && nm_same_shape(sm, "smoothScalesOptional", gamma, "gamma"))
        return ACL_REPORT(T, "the shapes of smoothScalesOptional and gamma should be the same.");
    if (b && acl_tensor_numel(b) > 0 && nm_same_shape(b, "betaOptional", gamma, "gamma"))
        return ACL_REPORT(T, "the shapes of betaOptional and gamma should be the same.");
    if (nm_same_shape(yOut, "yOut", x, "x")) return ACL_REPORT(T, "the shape of yOut should be x's.");
    const int64_t rows = acl_tensor_numel(x) / n;
    ACLNN_CHECK(scaleOut->ndim == x->ndim - 1 && nm_prod(scaleOut, 0, scaleOut->ndim) == rows &&
                (x->ndim == 1 || nm_prod(x, 0, x->ndim - 1) == rows), T,
                "the shape of scaleOut should be x's without its last dim.");
    for (uint64_t i = 0; i + 1 < x->ndim; i++)
        ACLNN_CHECK(scaleOut->dims[i] == x->dims[i], T, "the shape of scaleOut should be x's without its last dim.");
    if (sm && acl_tensor_numel(sm) == 0) sm = NULL; /* an empty optional input counts as absent */
    if (b && acl_tensor_numel(b) == 0) b = NULL;
    const aclTensor *ins[] = {x, gamma, sm, b}, *outs[] = {yOut, scaleOut};
    const char *inn[] = {"x", "gamma", "smoothScalesOptional", "betaOptional"}, *outn[] = {"yOut", "scaleOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_RmsNormDynamicQuant, rdq_run, sizeof(rdq_params), ins, inn, 4, outs, outn, 2,
                    workspaceSize, executor, &pp));
    rdq_params *p = pp;
    p->n = n;
    p->rows = rows;
    p->eps = epsilon;
    (void)dstType;
    return ACLNN_SUCCESS;
}
