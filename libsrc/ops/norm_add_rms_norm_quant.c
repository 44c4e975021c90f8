/* aclnnAddRmsNormQuant (ops-nn norm/add_rms_norm_quant): x = x1 + x2 (xOut), the RMS norm of x over gamma's dims
 *   y = x * rstd * gamma,  rstd = 1 / sqrt(mean(x^2) + epsilon)
 * then per element of the norm axis (scales/zero points have gamma's shape, broadcast over the rows; or shape [1],
 * the tiling's per-tensor mode, one scale for every element)
 *   y1Out = round_half_even(y / scales1 + zeroPoints1)  (divMode; y * scales1 + zeroPoints1 otherwise), INT8
 *   y2Out the same with scales2/zeroPoints2, written only when scales2Optional is given.
 * The norm is the shared RmsNorm row kernel (kernels/norm.h) in float64; the quantised values are rounded once.
 * The op_api checks the regbase dtype lists on every SoC; the ASCEND910B kernel writes INT8 only (docs' A2 table):
 * another y dtype of the op_api list fails at the kernel (561002). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps; bool div, per_tensor; } arq_params;

static aclnnStatus arq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const arq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom), *g = nm_load(nm_in(ex, 2), &oom);
    double *s1 = nm_load(nm_in(ex, 3), &oom), *s2 = nm_load(nm_in(ex, 4), &oom);
    double *z1 = nm_load(nm_in(ex, 5), &oom), *z2 = nm_load(nm_in(ex, 6), &oom);
    const int64_t total = p->rows * p->n;
    double *rstd = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *q = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !rstd || !y || !q) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        nk_row_meansq(x, p->rows, p->n, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, NULL, rstd, g, NULL, y);
        nq_static(y, p->rows, p->n, s1, z1, p->div, p->per_tensor, q);
        if (nq_store(q, total, nm_out(ex, 0))) rc = OOM;
        if (!rc && s2) {
            nq_static(y, p->rows, p->n, s2, z2, p->div, p->per_tensor, q);
            if (nq_store(q, total, nm_out(ex, 1))) rc = OOM;
        }
        nm_store(x, nm_out(ex, 2));
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(z1), free(z2), free(rstd), free(y), free(q);
    return rc;
}

static const aclDataType k_xs[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_zp[] = {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_y[] = {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_HIFLOAT8, ACL_INT8};

/* 1..8 dims, each dim at most INT32_MAX */
static aclnnStatus dims_1_8(const aclTensor *t, const char *name) {
    ACL_TRY(nm_max_dim(t, 8, name));
    ACL_TRY(nm_min_dim(t, 1, name));
    for (uint64_t i = 0; i < t->ndim; i++)
        ACLNN_CHECK(t->dims[i] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s's shape cannot be larger than %d.", name,
                    INT32_MAX);
    return ACLNN_SUCCESS;
}

/* the kernel's rule: t (optional) has the shape of ref (gamma's, or scales1's [1] in the per-tensor mode) */
static aclnnStatus like_ref(const aclTensor *t, const char *name, const aclTensor *ref, const char *refname) {
    if (t && nm_same_shape(t, name, ref, refname))
        return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "the shape of %s should be %s's.", name, refname);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                 const aclTensor *scales1, const aclTensor *scales2Optional,
                                 const aclTensor *zeroPoints1Optional, const aclTensor *zeroPoints2Optional,
                                 int64_t axis, double epsilon, bool divMode, aclTensor *y1Out, aclTensor *y2Out,
                                 aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *s2 = scales2Optional, *z1 = zeroPoints1Optional, *z2 = zeroPoints2Optional;
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(scales1, "scales1");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(xOut, "xOut");
    ACL_TRY(acl_check_dtype_in(x1, k_xs, 3, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_xs, 3, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, k_xs, 3, "gamma"));
    ACL_TRY(acl_check_dtype_in(scales1, k_xs, 3, "scales1"));
    if (s2) ACL_TRY(acl_check_dtype_in(s2, k_xs, 3, "scales2Optional"));
    if (z1) ACL_TRY(acl_check_dtype_in(z1, k_zp, 4, "zeroPoints1Optional"));
    if (z2) ACL_TRY(acl_check_dtype_in(z2, k_zp, 4, "zeroPoints2Optional"));
    ACL_TRY(acl_check_dtype_in(y1Out, k_y, 4, "y1Out"));
    ACL_TRY(acl_check_dtype_in(y2Out, k_y, 4, "y2Out"));
    ACL_TRY(acl_check_same_dtype(y1Out, "y1Out", y2Out, "y2Out"));
    ACL_TRY(acl_check_dtype_in(xOut, k_xs, 3, "xOut"));
    ACL_TRY(dims_1_8(x1, "x1"));
    ACL_TRY(dims_1_8(x2, "x2"));
    ACL_TRY(dims_1_8(gamma, "gamma"));
    ACL_TRY(dims_1_8(scales1, "scales1"));
    if (s2) ACL_TRY(dims_1_8(s2, "scales2Optional"));
    if (z1) ACL_TRY(dims_1_8(z1, "zeroPoints1Optional"));
    if (z2) ACL_TRY(dims_1_8(z2, "zeroPoints2Optional"));
    ACL_TRY(dims_1_8(y1Out, "y1Out"));
    ACL_TRY(dims_1_8(y2Out, "y2Out"));
    ACL_TRY(dims_1_8(xOut, "xOut"));
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out))
        return acl_exec_noop(ACL_OP_AddRmsNormQuant, workspaceSize, executor);
    /* the kernel's rules (shape inference / tiling) */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(y1Out->dtype == ACL_INT8, T, "y1Out should be INT8 on this SoC (ASCEND910B), but is %s.",
                acl_dtype_name(y1Out->dtype));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    ACLNN_CHECK(gamma->ndim <= x1->ndim, T, "gamma should have at most x1's %llu dims, but has %llu.",
                (unsigned long long)x1->ndim, (unsigned long long)gamma->ndim);
    const uint64_t off = x1->ndim - gamma->ndim;
    for (uint64_t i = 0; i < gamma->ndim; i++)
        ACLNN_CHECK(gamma->dims[i] == x1->dims[off + i], T, "gamma should be x1's trailing dims (dim %llu: %lld vs "
                    "%lld).", (unsigned long long)i, (long long)gamma->dims[i], (long long)x1->dims[off + i]);
    const aclTensor *same[] = {x2, y1Out, y2Out, xOut};
    const char *samen[] = {"x2", "y1Out", "y2Out", "xOut"};
    for (int i = 0; i < 4; i++)
        if (nm_same_shape(same[i], samen[i], x1, "x1"))
            return ACL_REPORT(T, "the shape of %s should be x1's.", samen[i]);
    /* the A2 tiling's per-tensor mode: scales1 of shape [1] (one scale and zero point for every element); the
     * other quantisation parameters then have scales1's shape */
    const bool per_tensor = scales1->ndim == 1 && scales1->dims[0] == 1;
    const aclTensor *ref = per_tensor ? scales1 : gamma;
    const char *refname = per_tensor ? "scales1" : "gamma";
    if (!per_tensor) ACL_TRY(like_ref(scales1, "scales1", gamma, "gamma"));
    ACL_TRY(like_ref(s2, "scales2Optional", ref, refname));
    ACL_TRY(like_ref(z1, "zeroPoints1Optional", ref, refname));
    ACL_TRY(like_ref(z2, "zeroPoints2Optional", ref, refname));
    const aclTensor *ins[] = {x1, x2, gamma, scales1, s2, z1, z2}, *outs[] = {y1Out, y2Out, xOut};
    const char *inn[] = {"x1", "x2", "gamma", "scales1", "scales2Optional", "zeroPoints1Optional",
                         "zeroPoints2Optional"};
    const char *outn[] = {"y1Out", "y2Out", "xOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormQuant, arq_run, sizeof(arq_params), ins, inn, 7, outs, outn, 3, workspaceSize,
                    executor, &pp));
    arq_params *p = pp;
    p->n = nm_prod(gamma, 0, gamma->ndim);
    p->rows = acl_tensor_numel(x1) / p->n;
    p->eps = epsilon;
    p->div = divMode;
    p->per_tensor = per_tensor;
    (void)axis; /* only -1 is supported and other values have no effect (docs) */
    return ACLNN_SUCCESS;
}
