/* ClippedSwigluGrad (ops-nn activation/clipped_swiglu_grad; no op_api source: generated first phase, then the
 * tiling's checks as 561002). The backward of ClippedSwiglu (libsrc/ops/clipped_swiglu.c): x merged to [pre, H] at
 * dim, gradY to [pre, H/2], split even/odd (interleaved) or in halves into x0, x1; x0' = min(x0, l),
 * x1' = clamp(x1, -l, l), s = sigmoid(alpha x0'); grad_x0 = gradY (x1' + bias) s (1 + alpha x0' (1 - s)) [x0 <= l],
 * grad_x1 = gradY x0' s [-l <= x1 <= l], merged back in the same split. With groupIndexOptional the rows from
 * sum(groupIndex) (clamped to [0, pre]) on are written as zeros. In float, rounded once.
 * First phase: NULL gradY / x / gradXOut 161001; gradY, x, groupIndexOptional, gradXOut in the definition's dtypes
 * 161002; out empty: nothing to launch; then the tiling in its order (561002): limit > 0, dim in [-rank, rank-1],
 * x[dim] even, gradY's rank and dims (x's, halved at dim), gradY's dtype, group index 1-d, gradXOut's rank and
 * dtype; gradXOut's dims x's (the doc's shape rule, 161002). Rows are owned by one thread each. */
#include <math.h>

#include "common/parallel.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

typedef struct {
    int64_t pre, h;
    bool group, interleaved;
    float alpha, limit, bias;
} csg_params;

static aclnnStatus csg_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const csg_params *p = ex->params;
    const acl_view *gv = acl_exec_in(ex, 0), *x = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    int64_t rows = p->pre;
    if (p->group) {
        int64_t *g = md_load(acl_exec_in(ex, 2), ACL_INT64);
        if (!g) return OOM;
        const int64_t ng = md_numel(acl_exec_in(ex, 2));
        int64_t s = 0;
        for (int64_t i = 0; i < ng; i++)
            if (g[i] > 0) s = (g[i] > p->pre - s) ? p->pre : s + g[i];
        free(g);
        rows = s;
    }
    const int64_t hh = p->h / 2;
    float *gy = md_load(gv, ACL_FLOAT), *xv = md_load(x, ACL_FLOAT), *yv = md_alloc(p->pre * p->h, sizeof(float));
    if (!gy || !xv || !yv) {
        free(gy);
        free(xv);
        free(yv);
        return OOM;
    }
    const float l = p->limit;
    ACL_FOR(p->pre * hh > 65536, r, 0, p->pre, {
        float *yr = yv + r * p->h;
        if (r >= rows) {
            for (int64_t j = 0; j < p->h; j++) yr[j] = 0.0f;
            continue;
        }
        const float *xr = xv + r * p->h, *gr = gy + r * hh;
        for (int64_t j = 0; j < hh; j++) {
            const int64_t i0 = p->interleaved ? 2 * j : j, i1 = p->interleaved ? 2 * j + 1 : hh + j;
            const float x0 = xr[i0], x1 = xr[i1], dy = gr[j];
            const float a = fminf(x0, l), b = fminf(fmaxf(x1, -l), l);
            const float s = 1.0f / (1.0f + expf(-p->alpha * a));
            yr[i0] = x0 <= l ? dy * (b + p->bias) * s * (1.0f + p->alpha * a * (1.0f - s)) : 0.0f;
            yr[i1] = (x1 >= -l && x1 <= l) ? dy * a * s : 0.0f;
        }
    });
    md_store(yv, ACL_FLOAT, o);
    free(gy);
    free(xv);
    free(yv);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ClippedSwigluGrad(const aclTensor *gradY, const aclTensor *x, const aclTensor *groupIndexOptional,
                                   int64_t dim, double alpha, double limit, double bias, bool interleaved,
                                   const aclTensor *gradXOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradY, "gradY");
    NN(x, "x");
    NN(gradXOut, "gradXOut");
    if (groupIndexOptional) NN(groupIndexOptional, "groupIndexOptional");
    ACL_TRY(acl_check_dtype_in(gradY, ACL_DT_LIST_ClippedSwigluGrad, "gradY"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_ClippedSwigluGrad, "x"));
    if (groupIndexOptional)
        ACL_TRY(acl_check_dtype_in(groupIndexOptional, ACL_DT_LIST_ClippedSwigluGrad_groupIndexOptional,
                                   "groupIndexOptional"));
    ACL_TRY(acl_check_dtype_in(gradXOut, ACL_DT_LIST_ClippedSwigluGrad, "gradXOut"));
    if (acl_tensor_empty(gradXOut)) return acl_exec_noop(ACL_OP_ClippedSwigluGrad, workspaceSize, executor);
    TILING((float)limit > 0.0f, "limit must be > 0, but is %f.", limit);
    const int64_t r = (int64_t)x->ndim;
    TILING(dim <= r - 1 && dim >= -r, "dim should be in [-%lld, %lld], but is %lld.", (long long)r,
           (long long)(r - 1), (long long)dim);
    const int64_t d = dim < 0 ? dim + r : dim;
    TILING(x->dims[d] % 2 == 0, "x[dim] should be divisible by 2, but is %lld.", (long long)x->dims[d]);
    TILING((int64_t)gradY->ndim == r, "gradY rank (%llu) should be x's rank (%lld).",
           (unsigned long long)gradY->ndim, (long long)r);
    for (int64_t k = 0; k < r; k++)
        TILING(gradY->dims[k] == (k == d ? x->dims[d] / 2 : x->dims[k]),
               "gradY dim %lld (%lld) should be %lld (x's, halved at dim).", (long long)k, (long long)gradY->dims[k],
               (long long)(k == d ? x->dims[d] / 2 : x->dims[k]));
    TILING(gradY->dtype == x->dtype, "gradY dtype %s should be x's dtype %s.", acl_dtype_name(gradY->dtype),
           acl_dtype_name(x->dtype));
    if (groupIndexOptional)
        TILING(groupIndexOptional->ndim == 1, "groupIndexOptional should have 1 dim, but has %llu.",
               (unsigned long long)groupIndexOptional->ndim);
    TILING((int64_t)gradXOut->ndim == r, "gradXOut should have x's rank %lld, but has %llu.", (long long)r,
           (unsigned long long)gradXOut->ndim);
    TILING(gradXOut->dtype == x->dtype, "gradXOut dtype %s should be x's dtype %s.", acl_dtype_name(gradXOut->dtype),
           acl_dtype_name(x->dtype));
    ACL_TRY(acl_check_same_shape(x, "x", gradXOut, "gradXOut"));
    csg_params p = {1, 1, groupIndexOptional != NULL, interleaved, (float)alpha, (float)limit, (float)bias};
    for (int64_t k = 0; k < d; k++) p.pre *= x->dims[k];
    for (int64_t k = d; k < r; k++) p.h *= x->dims[k];
    const aclTensor *ins[] = {gradY, x, groupIndexOptional}, *outs[] = {gradXOut};
    const char *inn[] = {"gradY", "x", "groupIndexOptional"}, *outn[] = {"gradXOut"};
    void *params = NULL;
    aclnnStatus rc = dn_exec(ACL_OP_ClippedSwigluGrad, csg_run, sizeof p, ins, inn, groupIndexOptional ? 3 : 2, outs,
                             outn, 1, workspaceSize, executor, &params);
    if (rc == ACLNN_SUCCESS) memcpy(params, &p, sizeof p);
    return rc;
}
