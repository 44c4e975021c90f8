/* aclnnLayerNormQuant (ops-nn norm/layer_norm_quant): layer norm over x's last dim, then a static quantisation
 *   y = (x - mean) / sqrt(var + epsilon) * gamma + beta   (biased variance)
 *   res = round_half_even(y / scale[0] + zeroPointsOptional[0]) saturated to INT8 (NaN -> 0)
 * quantMode must be 0 (static; the dynamic mode 1 is refused by the op_api), so scaleOut is never written.
 * The norm is the shared layer-norm row kernel (kernels/norm.h) in float64; res is rounded once. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps; } lnq_params;

static aclnnStatus lnq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const lnq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *s = nm_load(nm_in(ex, 3), &oom), *z = nm_load(nm_in(ex, 4), &oom);
    const int64_t total = p->rows * p->n, rr = p->rows > 0 ? p->rows : 1;
    double *mean = malloc(sizeof(double) * (size_t)rr), *rstd = malloc(sizeof(double) * (size_t)rr);
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y) {
        rc = OOM;
    } else {
        nk_row_moments(x, p->rows, p->n, mean, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, mean, rstd, g, b, y);
        const double sc = s[0], of = z[0];
        for (int64_t i = 0; i < total; i++) y[i] = y[i] / sc + of;
        if (nq_store(y, total, nm_out(ex, 0))) rc = OOM;
    }
    free(x), free(g), free(b), free(s), free(z), free(mean), free(rstd), free(y);
    return rc;
}

static const aclDataType k_x[] = {ACL_FLOAT16, ACL_BF16};

aclnnStatus opws_LayerNormQuant(const aclTensor *x, const aclTensor *gammma, const aclTensor *beta,
                                const aclTensor *scale, const aclTensor *zeroPointsOptional, int quantMode,
                                double epsilon, aclTensor *res, aclTensor *scaleOut, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    const aclTensor *gamma = gammma, *zp = zeroPointsOptional;
    const int P = ACLNN_ERR_PARAM_INVALID;
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(scale, "scale");
    NN(res, "res");
    if (quantMode == 0) NN(zp, "zeroPointsOptional");
    ACL_TRY(acl_check_dtype_in(x, k_x, 2, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    ACL_TRY(acl_check_same_dtype(beta, "beta", x, "x"));
    ACL_TRY(acl_check_same_dtype(scale, "scale", x, "x"));
    if (zp) ACL_TRY(nm_dtype_is(zp, ACL_INT8, "zeroPointsOptional"));
    ACL_TRY(nm_dtype_is(res, ACL_INT8, "res"));
    ACL_TRY(nm_max_dim(x, 8, "x"));
    ACL_TRY(nm_max_dim(gamma, 2, "gamma"));
    ACLNN_CHECK(quantMode == 0, P, "Only the static quantMode 0 is supported, but quantMode is %d.", quantMode);
    ACLNN_CHECK(x->ndim >= 1 && gamma->ndim >= 1 && x->dims[x->ndim - 1] == gamma->dims[gamma->ndim - 1], P,
                "the last dim of gamma should equal x's last dim.");
    if (nm_same_shape(gamma, "gamma", beta, "beta")) return ACL_REPORT(P, "the shape of beta should be gamma's.");
    ACLNN_CHECK(scale->ndim == 1 && scale->dims[0] == 1, P, "the shape of scale should be [1].");
    ACLNN_CHECK(zp->ndim == scale->ndim, P, "zeroPointsOptional should have scale's dims number.");
    if (nm_same_shape(res, "res", x, "x")) return ACL_REPORT(P, "the shape of res should be x's.");
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_LayerNormQuant, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(acl_tensor_numel(zp) >= 1, T, "zeroPointsOptional should not be empty.");
    const aclTensor *ins[] = {x, gamma, beta, scale, zp}, *outs[] = {res};
    const char *inn[] = {"x", "gamma", "beta", "scale", "zeroPointsOptional"}, *outn[] = {"res"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_LayerNormQuant, lnq_run, sizeof(lnq_params), ins, inn, 5, outs, outn, 1, workspaceSize,
                    executor, &pp));
    lnq_params *p = pp;
    p->n = x->dims[x->ndim - 1];
    p->rows = acl_tensor_numel(x) / p->n;
    p->eps = epsilon;
    (void)scaleOut; /* written only in the dynamic mode, which the op_api refuses */
    return ACLNN_SUCCESS;
}
