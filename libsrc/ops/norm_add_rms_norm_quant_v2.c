/* aclnnAddRmsNormQuantV2 (ops-nn norm/add_rms_norm_quant_v2): AddRmsNormQuant with a bias and the norm output
 *   x = x1 + x2 (xOut),  rmsNormOut = x * rstd * gamma,  y = rmsNormOut + beta (beta NULL: 0)
 *   y1Out = round_half_even(y / scales1 + zeroPoints1)   (divMode; y * scales1 + zeroPoints1 otherwise), INT8
 *   y2Out the same with scales2 / zeroPoints2, written only when scales2Optional is given.
 * The A2 (ASCEND910B) op_api has two paths, chosen after the NULL checks and the empty-tensor return:
 *  - the V2 kernel, taken when divMode, no scales2/zeroPoints2, gamma [N] or [1, N] (N = x1's last dim), scales1
 *    and zeroPoints1 of shape [1] (one scale / zero point for every element), and either (beta, xOut, no
 *    rmsNormOut) or (rmsNormOut, no beta, no xOut); y2Out is then not written;
 *  - otherwise, when xOut is given, the AddRmsNormQuant kernel (its checks: rmsNormOut must be NULL, scales and
 *    zero points of gamma's shape, beta too); with xOut NULL the call fails with 161001.
 * A FLOAT16 scales1 is cast to FLOAT and an INT8 zeroPoints1Optional to INT32 before any dtype check.
 * The norm is computed in float64 (kernels/norm.h rows, as the other quantised norms) and rounded once. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"
#include "ops/ops.h"

typedef struct { nm_io io; int64_t rows, n; double eps; bool div, per_tensor; } arq2_params;

static aclnnStatus arq2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const arq2_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom), *g = nm_load(nm_in(ex, 2), &oom);
    double *s1 = nm_load(nm_in(ex, 3), &oom), *s2 = nm_load(nm_in(ex, 4), &oom);
    double *z1 = nm_load(nm_in(ex, 5), &oom), *z2 = nm_load(nm_in(ex, 6), &oom), *b = nm_load(nm_in(ex, 7), &oom);
    const int64_t total = p->rows * p->n;
    const size_t nt = (size_t)(total > 0 ? total : 1);
    double *rstd = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * nt), *q = malloc(sizeof(double) * nt);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !rstd || !y || !q) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        nk_row_meansq(x, p->rows, p->n, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, NULL, rstd, g, NULL, y);
        nm_store(y, nm_out(ex, 3)); /* rmsNormOut: without beta */
        if (b)
            for (int64_t r = 0; r < p->rows; r++)
                for (int64_t j = 0; j < p->n; j++) y[r * p->n + j] += b[j];
        nq_static(y, p->rows, p->n, s1, z1, p->div, p->per_tensor, q);
        if (nq_store(q, total, nm_out(ex, 0))) rc = OOM;
        if (!rc && s2 && nm_out(ex, 1)) {
            nq_static(y, p->rows, p->n, s2, z2, p->div, p->per_tensor, q);
            if (nq_store(q, total, nm_out(ex, 1))) rc = OOM;
        }
        nm_store(x, nm_out(ex, 2));
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(z1), free(z2), free(b), free(rstd), free(y), free(q);
    return rc;
}

#define F32 ACL_FLOAT
#define F16 ACL_FLOAT16
#define BF ACL_BF16
static const aclDataType k_x[] = {F16, BF};          /* x1, x2, gamma, beta, xOut, rmsNormOut */
static const aclDataType k_scale[] = {F32, BF};      /* scales1 (after FLOAT16 -> FLOAT), scales2 */
static const aclDataType k_zp[] = {ACL_INT32, BF};   /* zero points (zeroPoints1: after INT8 -> INT32) */

/* a dtype as the op_api sees it after its casts (FLOAT16 scales1 -> FLOAT, INT8 zeroPoints1 -> INT32) */
static aclnnStatus dtype_in_cast(const aclTensor *t, const aclDataType *l, int n, const char *name, aclDataType from,
                                 aclDataType to) {
    if (!t) return ACLNN_SUCCESS;
    const aclDataType d = t->dtype == from ? to : t->dtype;
    for (int i = 0; i < n; i++)
        if (d == l[i]) return ACLNN_SUCCESS;
    return acl_check_dtype_in(t, l, n, name);
}

/* every dim at most INT32_MAX */
static aclnnStatus dims_i32(const aclTensor *t, const char *name) {
    for (uint64_t i = 0; t && i < t->ndim; i++)
        ACLNN_CHECK(t->dims[i] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s's shape cannot be larger than %d.", name,
                    INT32_MAX);
    return ACLNN_SUCCESS;
}
static aclnnStatus dims_1_8(const aclTensor *t, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    ACL_TRY(nm_max_dim(t, 8, name));
    ACL_TRY(nm_min_dim(t, 1, name));
    return dims_i32(t, name);
}
static bool is_1(const aclTensor *t) { return t && t->ndim == 1 && t->dims[0] == 1; }
static aclnnStatus same_shape_opt(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    return b ? nm_same_shape(a, an, b, bn) : ACLNN_SUCCESS;
}

/* the AddRmsNormQuant kernel's path (ComputeAddRmsNormQuantV1 of the op_api), its checks in order */
static aclnnStatus check_v1(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, const aclTensor *s1,
                            const aclTensor *s2, const aclTensor *z1, const aclTensor *z2, const aclTensor *beta,
                            const aclTensor *y1, const aclTensor *y2, const aclTensor *xOut, const aclTensor *res) {
    ACLNN_CHECK(res == NULL, ACLNN_ERR_PARAM_NULLPTR, "rmsNormOut should be NULL on the AddRmsNormQuant path (taken "
                "when scales2/zeroPoints2 are given, divMode is false, or scales1/zeroPoints1 are not of shape [1]).");
    const aclTensor *in4[] = {x2, x1, s1, gamma};
    const char *in4n[] = {"x2", "x1", "scales1", "gamma"};
    for (int i = 0; i < 4; i++) ACL_TRY(nm_max_dim(in4[i], 8, in4n[i]));
    for (int i = 0; i < 4; i++) ACL_TRY(nm_min_dim(in4[i], 1, in4n[i]));
    for (int i = 0; i < 4; i++) ACL_TRY(dims_i32(in4[i], in4n[i]));
    ACL_TRY(dims_1_8(z2, "zeroPoints2Optional"));
    ACL_TRY(dims_1_8(z1, "zeroPoints1Optional"));
    ACL_TRY(dims_1_8(s2, "scales2Optional"));
    ACL_TRY(dims_1_8(beta, "betaOptional"));
    const aclTensor *o3[] = {xOut, y2, y1};
    const char *o3n[] = {"xOut", "y2Out", "y1Out"};
    for (int i = 0; i < 3; i++) ACL_TRY(nm_max_dim(o3[i], 8, o3n[i]));
    for (int i = 0; i < 3; i++) ACL_TRY(nm_min_dim(o3[i], 1, o3n[i]));
    ACL_TRY(dims_i32(xOut, "xOut"));
    ACL_TRY(dims_i32(y1, "y1Out"));
    ACL_TRY(dims_i32(y2, "y2Out"));
    ACL_TRY(dtype_in_cast(s1, k_scale, 2, "scales1", F16, F32));
    ACL_TRY(dtype_in_cast(z2, k_zp, 2, "zeroPoints2Optional", ACL_INT32, ACL_INT32));
    ACL_TRY(dtype_in_cast(z1, k_zp, 2, "zeroPoints1Optional", ACL_INT8, ACL_INT32));
    ACL_TRY(dtype_in_cast(s2, k_scale, 2, "scales2Optional", F32, F32));
    ACL_TRY(acl_check_dtype_in(gamma, k_x, 2, "gamma"));
    ACL_TRY(acl_check_dtype_in(x1, k_x, 2, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_x, 2, "x2"));
    if (beta) ACL_TRY(acl_check_dtype_in(beta, k_x, 2, "betaOptional"));
    ACL_TRY(acl_check_dtype_in(xOut, k_x, 2, "xOut"));
    ACL_TRY(nm_dtype_is(y2, ACL_INT8, "y2Out"));
    ACL_TRY(nm_dtype_is(y1, ACL_INT8, "y1Out"));
    ACL_TRY(nm_same_shape(x2, "x2", x1, "x1"));
    ACL_TRY(nm_same_shape(y1, "y1Out", x1, "x1"));
    ACL_TRY(nm_same_shape(y2, "y2Out", x1, "x1"));
    ACL_TRY(nm_same_shape(xOut, "xOut", x1, "x1"));
    ACL_TRY(nm_same_shape(s1, "scales1", gamma, "gamma"));
    ACL_TRY(same_shape_opt(gamma, "gamma", s2, "scales2Optional"));
    ACL_TRY(same_shape_opt(gamma, "gamma", z1, "zeroPoints1Optional"));
    ACL_TRY(same_shape_opt(gamma, "gamma", z2, "zeroPoints2Optional"));
    ACL_TRY(same_shape_opt(gamma, "gamma", beta, "betaOptional"));
    ACLNN_CHECK(gamma->ndim <= x1->ndim, ACLNN_ERR_PARAM_INVALID, "gamma's dim %llu should not be greater than x1's "
                "dim %llu.", (unsigned long long)gamma->ndim, (unsigned long long)x1->ndim);
    const uint64_t off = x1->ndim - gamma->ndim;
    for (uint64_t i = 0; i < gamma->ndim; i++)
        ACLNN_CHECK(gamma->dims[i] == x1->dims[off + i], ACLNN_ERR_PARAM_INVALID, "gamma's shape dim %llu is %lld, "
                    "not equal to x1's %lld.", (unsigned long long)i, (long long)gamma->dims[i],
                    (long long)x1->dims[off + i]);
    return ACLNN_SUCCESS;
}

/* the V2 kernel's path (CheckParamsV2 of the op_api), its checks in order */
static aclnnStatus check_v2(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, const aclTensor *s1,
                            const aclTensor *z1, const aclTensor *beta, const aclTensor *y1, const aclTensor *y2,
                            const aclTensor *xOut, const aclTensor *res, int64_t n) {
    ACL_TRY(acl_check_dtype_in(x1, k_x, 2, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_x, 2, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, k_x, 2, "gamma"));
    ACL_TRY(dtype_in_cast(s1, k_scale, 2, "scales1", F16, F32));
    if (beta) ACL_TRY(acl_check_dtype_in(beta, k_x, 2, "betaOptional"));
    ACL_TRY(dtype_in_cast(z1, k_zp, 2, "zeroPoints1Optional", ACL_INT8, ACL_INT32));
    ACL_TRY(acl_check_same_dtype(x1, "x1", x2, "x2"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", gamma, "gamma"));
    ACL_TRY(nm_dtype_is(y1, ACL_INT8, "y1Out"));
    ACL_TRY(nm_dtype_is(y2, ACL_INT8, "y2Out"));
    if (res) ACL_TRY(acl_check_dtype_in(res, k_x, 2, "rmsNormOut"));
    if (xOut) ACL_TRY(acl_check_dtype_in(xOut, k_x, 2, "xOut"));
    ACL_TRY(nm_max_dim(x1, 8, "x1"));
    ACL_TRY(nm_max_dim(x2, 8, "x2"));
    ACL_TRY(nm_max_dim(gamma, 8, "gamma"));
    ACL_TRY(nm_max_dim(s1, 8, "scales1"));
    if (beta) ACL_TRY(nm_max_dim(beta, 8, "betaOptional"));
    if (z1) ACL_TRY(nm_max_dim(z1, 8, "zeroPoints1Optional"));
    ACL_TRY(nm_max_dim(y1, 8, "y1Out"));
    ACL_TRY(nm_same_shape(x1, "x1", y1, "y1Out"));
    ACL_TRY(nm_same_shape(x1, "x1", y2, "y2Out"));
    if (res) {
        ACL_TRY(nm_max_dim(res, 8, "rmsNormOut"));
        ACL_TRY(nm_same_shape(x1, "x1", res, "rmsNormOut"));
    }
    if (xOut) {
        ACL_TRY(nm_max_dim(xOut, 8, "xOut"));
        ACL_TRY(nm_same_shape(x1, "x1", xOut, "xOut"));
    }
    /* the kernel's rules (its shape inference / tiling): x2 has x1's shape, beta gamma's N elements */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    if (nm_same_shape(x2, "x2", x1, "x1")) return ACL_REPORT(T, "the shape of x2 should be x1's.");
    if (beta && acl_tensor_numel(beta) != n)
        return ACL_REPORT(T, "betaOptional should have gamma's %lld elements.", (long long)n);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormQuantV2(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                   const aclTensor *scales1, const aclTensor *scales2Optional,
                                   const aclTensor *zeroPoints1Optional, const aclTensor *zeroPoints2Optional,
                                   const aclTensor *betaOptional, int64_t axis, double epsilon, bool divMode,
                                   aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut, aclTensor *rmsNormOut,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *s2 = scales2Optional, *z1 = zeroPoints1Optional, *z2 = zeroPoints2Optional, *b = betaOptional;
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(scales1, "scales1");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out))
        return acl_exec_noop(ACL_OP_AddRmsNormQuantV2, workspaceSize, executor);
    const aclTensor *opt[] = {s2, z1, z2, b, xOut, rmsNormOut};
    const char *optn[] = {"scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional", "betaOptional", "xOut",
                          "rmsNormOut"};
    for (int i = 0; i < 6; i++)
        if (opt[i]) ACL_TRY(acl_check_tensor(opt[i], optn[i]));
    /* which kernel (CheckSupportV2 on the A2) */
    const int64_t last = x1->ndim ? x1->dims[x1->ndim - 1] : 1;
    bool v2 = !z2 && !s2 && divMode;
    if (v2 && gamma->ndim == 1 && gamma->dims[0] == 1 && !b && !rmsNormOut) v2 = false;
    const bool gamma_ok = (gamma->ndim == 2 && gamma->dims[0] == 1 && gamma->dims[1] == last) ||
                          (gamma->ndim == 1 && gamma->dims[0] == last);
    const bool beta_ok = (!b && rmsNormOut && !xOut) || (b && !rmsNormOut && xOut);
    v2 = v2 && gamma_ok && is_1(scales1) && is_1(z1) && beta_ok;
    int64_t n;
    if (v2) {
        n = last;
        ACL_TRY(check_v2(x1, x2, gamma, scales1, z1, b, y1Out, y2Out, xOut, rmsNormOut, n));
    } else {
        ACLNN_CHECK(xOut != NULL, ACLNN_ERR_PARAM_NULLPTR, "xOut should not be NULL unless the V2 kernel is taken "
                    "(divMode, no scales2/zeroPoints2, scales1 and zeroPoints1 of shape [1], gamma [N] or [1, N], "
                    "and rmsNormOut given without betaOptional, or betaOptional and xOut without rmsNormOut).");
        ACL_TRY(check_v1(x1, x2, gamma, scales1, s2, z1, z2, b, y1Out, y2Out, xOut, rmsNormOut));
        n = nm_prod(gamma, 0, gamma->ndim);
    }
    const aclTensor *ins[] = {x1, x2, gamma, scales1, s2, z1, z2, b};
    const aclTensor *outs[] = {y1Out, s2 ? y2Out : NULL, xOut, rmsNormOut};
    const char *inn[] = {"x1", "x2", "gamma", "scales1", "scales2Optional", "zeroPoints1Optional",
                         "zeroPoints2Optional", "betaOptional"};
    const char *outn[] = {"y1Out", "y2Out", "xOut", "rmsNormOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormQuantV2, arq2_run, sizeof(arq2_params), ins, inn, 8, outs, outn, 4,
                    workspaceSize, executor, &pp));
    arq2_params *p = pp;
    p->n = n;
    p->rows = acl_tensor_numel(x1) / n;
    p->eps = epsilon;
    p->div = divMode;
    p->per_tensor = v2;
    (void)axis; /* only -1 is supported and other values have no effect (docs) */
    return ACLNN_SUCCESS;
}
