/* SituGluGrad (ops-nn activation/situ_glu_grad; no op_api source: generated first phase, then the tiling's checks,
 * which the doc lists as 161002). The backward of SituGlu (libsrc/ops/situ_glu.c): x merged to [pre, H] at dim,
 * gradY to [pre, H/2]; per element, t = tanh(gate/beta), s = sigmoid(gate), situ_a = beta t s, up' = linearBeta
 * tanh(up/linearBeta) when linearBeta > 0 else up; grad_gate = gradY up' s ((1 - t^2) + beta t (1 - s)),
 * grad_up = gradY situ_a (times 1 - tanh^2(up/linearBeta) when linearBeta > 0); out = [grad_gate | grad_up] in
 * activateLeft's order. In float, rounded once.
 * First phase: NULL gradY / x / out 161001; their dtypes 161002; out empty: nothing to launch; then (161002) dim in
 * [-rank, rank-1], x[dim] even, gradY's rank, gradY[dim] == x[dim] / 2, gradY's dtype == x's; out x's shape and
 * dtype (the doc's rule for out). Rows are owned by one thread each. */
#include <math.h>

#include "common/parallel.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

typedef struct {
    int64_t pre, h;
    bool left;
    float beta, lbeta;
} sgg_params;

static aclnnStatus sgg_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sgg_params *p = ex->params;
    const acl_view *gv = acl_exec_in(ex, 0), *x = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const int64_t hh = p->h / 2;
    float *gy = md_load(gv, ACL_FLOAT), *xv = md_load(x, ACL_FLOAT), *yv = md_load(o, ACL_FLOAT);
    if (!gy || !xv || !yv) {
        free(gy);
        free(xv);
        free(yv);
        return OOM;
    }
    ACL_FOR(p->pre * hh > 65536, r, 0, p->pre, {
        const float *xr = xv + r * p->h, *gr = gy + r * hh;
        float *yr = yv + r * p->h;
        for (int64_t j = 0; j < hh; j++) {
            const int64_t gi = p->left ? j : hh + j, ui = p->left ? hh + j : j;
            const float g = xr[gi], u = xr[ui], dy = gr[j];
            const float t = tanhf(g / p->beta), s = 1.0f / (1.0f + expf(-g)), sa = p->beta * t * s;
            float up = u, dup = 1.0f;
            if (p->lbeta > 0.0f) {
                const float tu = tanhf(u / p->lbeta);
                up = p->lbeta * tu;
                dup = 1.0f - tu * tu;
            }
            yr[gi] = dy * up * s * ((1.0f - t * t) + p->beta * t * (1.0f - s));
            yr[ui] = dy * sa * dup;
        }
    });
    md_store(yv, ACL_FLOAT, o);
    free(gy);
    free(xv);
    free(yv);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SituGluGrad(const aclTensor *gradY, const aclTensor *x, int64_t dim, double beta, double linearBeta,
                             bool activateLeft, const aclTensor *out, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    NN(gradY, "gradY");
    NN(x, "x");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(gradY, ACL_DT_LIST_SituGluGrad, "gradY"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_SituGluGrad, "x"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SituGluGrad, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_SituGluGrad, workspaceSize, executor);
    const int64_t r = (int64_t)x->ndim;
    ACLNN_CHECK(dim <= r - 1 && dim >= -r, ACLNN_ERR_PARAM_INVALID, "dim should be in [-%lld, %lld], but is %lld.",
                (long long)r, (long long)(r - 1), (long long)dim);
    const int64_t d = dim < 0 ? dim + r : dim;
    ACLNN_CHECK(x->dims[d] % 2 == 0, ACLNN_ERR_PARAM_INVALID, "x[dim] should be divisible by 2, but is %lld.",
                (long long)x->dims[d]);
    ACLNN_CHECK((int64_t)gradY->ndim == r, ACLNN_ERR_PARAM_INVALID, "gradY should have x's rank %lld, but has %llu.",
                (long long)r, (unsigned long long)gradY->ndim);
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(gradY->dims[k] == (k == d ? x->dims[d] / 2 : x->dims[k]), ACLNN_ERR_PARAM_INVALID,
                    "gradY dim %lld (%lld) should be %lld (x's, halved at dim).", (long long)k,
                    (long long)gradY->dims[k], (long long)(k == d ? x->dims[d] / 2 : x->dims[k]));
    ACLNN_CHECK(gradY->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID, "gradY dtype %s should be x's dtype %s.",
                acl_dtype_name(gradY->dtype), acl_dtype_name(x->dtype));
    ACL_TRY(acl_check_same_shape(x, "x", out, "out"));
    ACL_TRY(acl_check_same_dtype(out, "out", x, "x"));
    sgg_params p = {1, 1, activateLeft, (float)beta, (float)linearBeta};
    for (int64_t k = 0; k < d; k++) p.pre *= x->dims[k];
    for (int64_t k = d; k < r; k++) p.h *= x->dims[k];
    const aclTensor *ins[] = {gradY, x}, *outs[] = {out};
    const char *inn[] = {"gradY", "x"}, *outn[] = {"out"};
    void *params = NULL;
    aclnnStatus rc = dn_exec(ACL_OP_SituGluGrad, sgg_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize,
                             executor, &params);
    if (rc == ACLNN_SUCCESS) memcpy(params, &p, sizeof p);
    return rc;
}
