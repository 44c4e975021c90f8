/* aclnnAddLayerNormQuantV2 (ops-nn norm/add_layer_norm_quant_v2), the Atlas A2 path (static quantisation only):
 *   x = x1 + x2 (+ biasOptional, of gamma's or x1's shape)                       -> xOut
 *   y = (x - E[x]) / sqrt(Var[x] + epsilon) * gamma + beta over x's last dim    -> layernormRes
 *   y1Out = round_half_even(y / scales1 + zeroPoints1) (divMode; y * scales1 + zeroPoints1 otherwise), INT8,
 *   y2Out the same with scales2/zeroPoints2 when scales2Optional is given (norm_quant.c's nq_static/nq_store).
 * scales1 per channel (gamma's shape) or per tensor (gamma [1, H] and a one-element 1-D scales1). outScales1Out /
 * outScales2Out mean nothing in the static mode and are not written. Float64 throughout (x and y kept unrounded
 * for the norm and the quantisation), each output rounded once.
 * Validation in the order of op_api aclnn_add_layer_norm_quant_v2.cpp on a non-regbase arch: NULLs (quantMode too,
 * 161001); quantMode "static" (161002); dtypes (x1 FLOAT/FLOAT16/BF16, x2/gamma/beta/bias/xOut/layernormRes x1's,
 * y1Out/y2Out INT8, outScales FLOAT, scales1 FLOAT/FLOAT16/BF16 with scales2/zeroPoints of its dtype); ranks <= 8,
 * beta gamma's shape, the per-channel/per-tensor rule; x1/x2/xOut/y1Out/layernormRes (y2Out when dual) one shape,
 * zeroPoints their scales' shape, bias gamma's or x1's shape (all 161002); an empty x1/gamma/y2Out/outScales
 * launches nothing. Then the kernel's rules (561002): x1 at least 1-D, gamma holding x1's last dim, scales2 the
 * size of scales1. One owner per row, serial within it: the same bytes for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps; bool div, per_tensor, bias_full; } alq_params;

/* in: x1, x2, gamma, beta, bias, scales1, scales2, zeroPoints1, zeroPoints2; out: y1, y2, x, layernormRes */
static aclnnStatus alq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const alq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom);
    double *g = nm_load(nm_in(ex, 2), &oom), *b = nm_load(nm_in(ex, 3), &oom), *bias = nm_load(nm_in(ex, 4), &oom);
    double *s1 = nm_load(nm_in(ex, 5), &oom), *s2 = nm_load(nm_in(ex, 6), &oom);
    double *z1 = nm_load(nm_in(ex, 7), &oom), *z2 = nm_load(nm_in(ex, 8), &oom);
    const int64_t rows = p->rows, n = p->n, total = rows * n;
    double *mean = malloc(sizeof(double) * (size_t)rows), *rstd = malloc(sizeof(double) * (size_t)rows);
    double *y = malloc(sizeof(double) * (size_t)total), *q = malloc(sizeof(double) * (size_t)total);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y || !q) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) {
            x[i] += x2[i];
            if (bias) x[i] += bias[p->bias_full ? i : i % n];
        }
        nk_row_moments(x, rows, n, mean, rstd);
        for (int64_t r = 0; r < rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, rows, n, mean, rstd, g, b, y);
        nq_static(y, rows, n, s1, z1, p->div, p->per_tensor, q);
        if (nq_store(q, total, nm_out(ex, 0))) rc = OOM;
        if (!rc && s2) {
            nq_static(y, rows, n, s2, z2, p->div, p->per_tensor, q);
            if (nq_store(q, total, nm_out(ex, 1))) rc = OOM;
        }
        nm_store(x, nm_out(ex, 2));
        nm_store(y, nm_out(ex, 3));
    }
    free(x), free(x2), free(g), free(b), free(bias), free(s1), free(s2), free(z1), free(z2);
    free(mean), free(rstd), free(y), free(q);
    return rc;
}

static const aclDataType k_stc[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

static aclnnStatus alq_dt(const aclTensor *t, aclDataType dt, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

/* opt (when given) has ref's view shape */
static bool alq_like(const aclTensor *opt, const aclTensor *ref) {
    if (!opt) return true;
    if (opt->ndim != ref->ndim) return false;
    for (uint64_t i = 0; i < ref->ndim; i++)
        if (opt->dims[i] != ref->dims[i]) return false;
    return true;
}

aclnnStatus opws_AddLayerNormQuantV2(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                     const aclTensor *beta, const aclTensor *biasOptional,
                                     const aclTensor *scales1Optional, const aclTensor *scales2Optional,
                                     const aclTensor *zeroPoints1Optional, const aclTensor *zeroPoints2Optional,
                                     const char *quantMode, double epsilon, bool additionalOutput, bool divMode,
                                     aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut, aclTensor *layernormRes,
                                     aclTensor *outScales1Out, aclTensor *outScales2Out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    const aclTensor *bias = biasOptional, *s1 = scales1Optional, *s2 = scales2Optional;
    const aclTensor *z1 = zeroPoints1Optional, *z2 = zeroPoints2Optional;
    (void)additionalOutput; /* xOut is copied out whatever it says */
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(xOut, "xOut");
    NN(layernormRes, "layernormRes");
    NN(outScales1Out, "outScales1Out");
    NN(outScales2Out, "outScales2Out");
    ACLNN_CHECK(quantMode, ACLNN_ERR_PARAM_NULLPTR, "quantMode must not be NULL.");
    ACLNN_CHECK(strncmp(quantMode, "static", 6) == 0, ACLNN_ERR_PARAM_INVALID,
                "quantMode \"%s\" is not \"static\" (the only mode on ASCEND910B).", quantMode);
    ACL_TRY(acl_check_dtype_in(x1, k_stc, 3, "x1"));
    ACL_TRY(alq_dt(x2, x1->dtype, "x2"));
    ACL_TRY(alq_dt(gamma, x1->dtype, "gamma"));
    ACL_TRY(alq_dt(beta, x1->dtype, "beta"));
    ACL_TRY(alq_dt(bias, x1->dtype, "biasOptional"));
    ACL_TRY(alq_dt(y1Out, ACL_INT8, "y1Out"));
    ACL_TRY(alq_dt(y2Out, ACL_INT8, "y2Out"));
    ACL_TRY(alq_dt(xOut, x1->dtype, "xOut"));
    ACL_TRY(alq_dt(layernormRes, x1->dtype, "layernormRes"));
    ACL_TRY(alq_dt(outScales1Out, ACL_FLOAT, "outScales1Out"));
    ACL_TRY(alq_dt(outScales2Out, ACL_FLOAT, "outScales2Out"));
    if (s1) {
        ACL_TRY(acl_check_dtype_in(s1, k_stc, 3, "scales1Optional"));
        ACL_TRY(alq_dt(s2, s1->dtype, "scales2Optional"));
        ACL_TRY(alq_dt(z1, s1->dtype, "zeroPoints1Optional"));
        ACL_TRY(alq_dt(z2, s1->dtype, "zeroPoints2Optional"));
    }
    ACL_TRY(nm_max_dim(x1, 8, "x1"));
    ACL_TRY(nm_max_dim(gamma, 8, "gamma"));
    ACLNN_CHECK(alq_like(beta, gamma), ACLNN_ERR_PARAM_INVALID, "beta shape must be gamma's.");
    const bool per_tensor = s1 && gamma->ndim == 2 && gamma->dims[0] == 1 && x1->ndim >= 1 &&
                            gamma->dims[1] == x1->dims[x1->ndim - 1] && s1->ndim == 1 && s1->dims[0] == 1;
    ACLNN_CHECK(per_tensor || (s1 && alq_like(s1, gamma)), ACLNN_ERR_PARAM_INVALID,
                "scales1Optional: invalid gamma/scales1 shape combination for static quantization (scales1 of "
                "gamma's shape, or gamma [1, H] with a one-element 1-D scales1).");
    const bool dual = s2 != NULL;
    ACLNN_CHECK(alq_like(x2, x1) && alq_like(xOut, x1) && alq_like(y1Out, x1) && alq_like(layernormRes, x1) &&
                (!dual || alq_like(y2Out, x1)), ACLNN_ERR_PARAM_INVALID,
                "x1/x2/y1Out/y2Out/xOut/layernormRes should have one shape.");
    ACLNN_CHECK(alq_like(z1, s1), ACLNN_ERR_PARAM_INVALID, "zeroPoints1Optional shape should be scales1Optional's.");
    ACLNN_CHECK(!s2 ? !z2 || alq_like(z2, s1) : alq_like(z2, s2), ACLNN_ERR_PARAM_INVALID,
                "zeroPoints2Optional shape should be scales2Optional's.");
    const bool bias_full = bias && alq_like(bias, x1);
    ACLNN_CHECK(!bias || bias_full || alq_like(bias, gamma), ACLNN_ERR_PARAM_INVALID,
                "biasOptional shape should be gamma's or x1's.");
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out) ||
        acl_tensor_empty(outScales1Out) || acl_tensor_empty(outScales2Out))
        return acl_exec_noop(ACL_OP_AddLayerNormQuantV2, workspaceSize, executor);
    /* the kernel's rules */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1->ndim >= 1, T, "x1 should have at least 1 dim.");
    const int64_t n = x1->dims[x1->ndim - 1], rows = acl_tensor_numel(x1) / n;
    ACLNN_CHECK(acl_tensor_numel(gamma) == n, T, "gamma should hold x1's last dim (%lld) elements, but holds %lld.",
                (long long)n, (long long)acl_tensor_numel(gamma));
    if (s2)
        ACLNN_CHECK(acl_tensor_numel(s2) == acl_tensor_numel(s1), T,
                    "scales2Optional should hold as many elements as scales1Optional.");
    const aclTensor *ins[] = {x1, x2, gamma, beta, bias, s1, s2, z1, s2 ? z2 : NULL};
    const aclTensor *outs[] = {y1Out, s2 ? y2Out : NULL, xOut, layernormRes};
    const char *inn[] = {"x1", "x2", "gamma", "beta", "biasOptional", "scales1Optional", "scales2Optional",
                         "zeroPoints1Optional", "zeroPoints2Optional"};
    const char *outn[] = {"y1Out", "y2Out", "xOut", "layernormRes"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddLayerNormQuantV2, alq_run, sizeof(alq_params), ins, inn, 9, outs, outn, 4,
                    workspaceSize, executor, &pp));
    alq_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = (float)epsilon;
    p->div = divMode;
    p->per_tensor = per_tensor;
    p->bias_full = bias_full && !alq_like(bias, gamma);
    return ACLNN_SUCCESS;
}
