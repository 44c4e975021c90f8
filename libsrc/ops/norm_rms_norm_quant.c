/* aclnnRmsNormQuant (ops-nn norm/rms_norm_quant): RMS norm over x's last dim, then a static quantisation
 *   q = x * rstd * gamma + beta,  rstd = 1 / sqrt(mean(x^2) + epsilon)
 *   y = round_half_even(q / scale[0] + offset[0]) saturated to the output type (NaN -> 0).
 * The norm is the shared RmsNorm row kernel (kernels/norm.h), computed in float64 and rounded once to the
 * integer output. y INT8, or INT32 holding eight int4 values (the low nibble first, y's last dim = x's / 8).
 * Validation order of the op_api on ASCEND910B: the 2-dim gamma/beta reshape, NULLs, dtypes, dims/last dims. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps; } rnq_params;

static aclnnStatus rnq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rnq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *s = nm_load(nm_in(ex, 3), &oom), *o = nm_load(nm_in(ex, 4), &oom);
    const int64_t total = p->rows * p->n;
    double *rstd = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !rstd || !y) {
        rc = OOM;
    } else {
        nk_row_meansq(x, p->rows, p->n, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, NULL, rstd, g, b, y);
        const double sc = s[0], of = o[0];
        for (int64_t i = 0; i < total; i++) y[i] = y[i] / sc + of;
        if (nq_store(y, total, nm_out(ex, 0))) rc = OOM;
    }
    free(x), free(g), free(b), free(s), free(o), free(rstd), free(y);
    return rc;
}

static const aclDataType k_x[] = {ACL_FLOAT16, ACL_BF16};
static const aclDataType k_y[] = {ACL_INT8, ACL_INT4, ACL_INT32};

/* the op_api flattens a 2-dim gamma/beta to its second dim (a copy then a reshape, which fails unless the first
 * dim is 1) */
static aclnnStatus flat_2d(const aclTensor *t, const char *name) {
    if (t && t->ndim == 2)
        ACLNN_CHECK(t->dims[0] == 1, ACLNN_ERR_INNER_NULLPTR, "%s of 2 dims should have a first dim of 1, but has "
                    "%lld (the reshape to its last dim fails).", name, (long long)t->dims[0]);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_RmsNormQuant(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta,
                              const aclTensor *scale, const aclTensor *offset, double epsilon, aclTensor *y,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(flat_2d(gamma, "gamma"));
    ACL_TRY(flat_2d(beta, "beta"));
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(scale, "scale");
    NN(offset, "offset");
    NN(y, "y");
    ACL_TRY(acl_check_dtype_in(x, k_x, 2, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    ACL_TRY(acl_check_same_dtype(beta, "beta", x, "x"));
    ACL_TRY(acl_check_dtype_in(y, k_y, 3, "y"));
    ACL_TRY(acl_check_same_dtype(scale, "scale", x, "x"));
    ACL_TRY(nm_dtype_is(offset, ACL_INT8, "offset"));
    ACL_TRY(nm_max_dim(x, 8, "x"));
    ACL_TRY(nm_max_dim(gamma, 2, "gamma"));
    ACL_TRY(nm_max_dim(beta, 2, "beta"));
    ACL_TRY(nm_max_dim(y, 8, "y"));
    ACL_TRY(nm_min_dim(x, 1, "x"));
    ACL_TRY(nm_min_dim(gamma, 1, "gamma"));
    ACL_TRY(nm_min_dim(beta, 1, "beta"));
    ACL_TRY(nm_min_dim(y, 1, "y"));
    /* (a scale of more than one dim is only logged upstream, not refused) */
    const int64_t n = x->dims[x->ndim - 1], gl = gamma->dims[gamma->ndim - 1], yl = y->dims[y->ndim - 1];
    ACLNN_CHECK(gl == n, ACLNN_ERR_PARAM_INVALID, "the last dim of x (%lld) should equal gamma's and beta's (%lld).",
                (long long)n, (long long)gl);
    if (y->dtype == ACL_INT32)
        ACLNN_CHECK(n == yl * 8, ACLNN_ERR_PARAM_INVALID, "y of INT32 holds 8 int4 values per element: its last dim "
                    "(%lld) should be 1/8 of x's (%lld).", (long long)yl, (long long)n);
    else
        ACLNN_CHECK(n == yl, ACLNN_ERR_PARAM_INVALID, "the last dim of y (%lld) should equal x's (%lld).",
                    (long long)yl, (long long)n);
    {
        /* the reshaped gamma and beta (their last dims) are compared, so only the dims numbers may differ */
        aclnnStatus rc = gamma->ndim == beta->ndim ? nm_same_shape(gamma, "gamma", beta, "beta") : ACLNN_SUCCESS;
        if (rc) return rc;
        ACLNN_CHECK(beta->dims[beta->ndim - 1] == gl, ACLNN_ERR_PARAM_INVALID, "the shape of beta should be gamma's.");
    }
    ACL_TRY(nm_same_shape(scale, "scale", offset, "offset"));
    ACL_TRY(nq_int4_storage(y, "y"));
    /* the kernel's rules (shape inference / tiling) */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    for (uint64_t i = 0; i + 1 < x->ndim || i + 1 < y->ndim; i++)
        ACLNN_CHECK(x->ndim == y->ndim && x->dims[i] == y->dims[i], T, "the shape of y should be x's (the last dim "
                    "divided by 8 for INT32).");
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_RmsNormQuant, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(scale) >= 1, T, "scale should not be empty.");
    const aclTensor *ins[] = {x, gamma, beta, scale, offset}, *outs[] = {y};
    const char *inn[] = {"x", "gamma", "beta", "scale", "offset"}, *outn[] = {"y"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_RmsNormQuant, rnq_run, sizeof(rnq_params), ins, inn, 5, outs, outn, 1, workspaceSize,
                    executor, &pp));
    rnq_params *p = pp;
    p->n = n;
    p->rows = acl_tensor_numel(x) / n;
    p->eps = epsilon;
    return ACLNN_SUCCESS;
}
