/* SituGlu (ops-nn activation/situ_glu; no op_api source: the first phase is generated from the op definition, then
 * the tiling's checks, which the doc lists as 161002).
 *
 * x is merged to [pre, H] at dim (pre = the product of the dims before dim, H = the product of dim and the ones
 * after it; a 1-d x is [1, x[0]]); each row splits in halves: activateLeft -> gate = first half, up = second half,
 * else the other way round. y = beta * tanh(gate / beta) * sigmoid(gate) * up', up' = linearBeta *
 * tanh(up / linearBeta) when linearBeta > 0, else up; in float, rounded once (beta, linearBeta are the op's float
 * attributes).
 * First phase: NULL x / out 161001; x, out in the definition's dtypes 161002; out empty: nothing to launch; then
 * (161002, as the doc's table lists them) dim in [-rank, rank-1], x[dim] even, out's rank, out[dim] == x[dim] / 2,
 * out's dtype == x's. Rows are owned by one thread each. */
#include <math.h>

#include "common/parallel.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

typedef struct {
    int64_t pre, h;
    bool left;
    float beta, lbeta;
} sg_params;

static aclnnStatus sg_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sg_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const int64_t hh = p->h / 2;
    float *xv = md_load(x, ACL_FLOAT), *yv = md_load(o, ACL_FLOAT);
    if (!xv || !yv) {
        free(xv);
        free(yv);
        return OOM;
    }
    ACL_FOR(p->pre * hh > 65536, r, 0, p->pre, {
        const float *xr = xv + r * p->h;
        float *yr = yv + r * hh;
        for (int64_t j = 0; j < hh; j++) {
            const float g = p->left ? xr[j] : xr[hh + j];
            float u = p->left ? xr[hh + j] : xr[j];
            if (p->lbeta > 0.0f) u = p->lbeta * tanhf(u / p->lbeta);
            const float sa = p->beta * tanhf(g / p->beta) * (1.0f / (1.0f + expf(-g)));
            yr[j] = sa * u;
        }
    });
    md_store(yv, ACL_FLOAT, o);
    free(xv);
    free(yv);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SituGlu(const aclTensor *x, int64_t dim, double beta, double linearBeta, bool activateLeft,
                         const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_SituGlu, "x"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SituGlu, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_SituGlu, workspaceSize, executor);
    const int64_t r = (int64_t)x->ndim;
    ACLNN_CHECK(dim <= r - 1 && dim >= -r, ACLNN_ERR_PARAM_INVALID, "dim should be in [-%lld, %lld], but is %lld.",
                (long long)r, (long long)(r - 1), (long long)dim);
    const int64_t d = dim < 0 ? dim + r : dim;
    ACLNN_CHECK(x->dims[d] % 2 == 0, ACLNN_ERR_PARAM_INVALID, "x[dim] should be divisible by 2, but is %lld.",
                (long long)x->dims[d]);
    ACLNN_CHECK((int64_t)out->ndim == r, ACLNN_ERR_PARAM_INVALID, "out should have x's rank %lld, but has %llu.",
                (long long)r, (unsigned long long)out->ndim);
    ACLNN_CHECK(out->dims[d] == x->dims[d] / 2, ACLNN_ERR_PARAM_INVALID,
                "out[dim] should be x[dim] / 2 = %lld, but is %lld.", (long long)(x->dims[d] / 2),
                (long long)out->dims[d]);
    ACLNN_CHECK(out->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be x's dtype %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(x->dtype));
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(k == d || out->dims[k] == x->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "out dim %lld (%lld) should be x's (%lld).", (long long)k, (long long)out->dims[k],
                    (long long)x->dims[k]);
    sg_params p = {1, 1, activateLeft, (float)beta, (float)linearBeta};
    for (int64_t k = 0; k < d; k++) p.pre *= x->dims[k];
    for (int64_t k = d; k < r; k++) p.h *= x->dims[k];
    const aclTensor *ins[] = {x}, *outs[] = {out};
    const char *inn[] = {"x"}, *outn[] = {"out"};
    void *params = NULL;
    aclnnStatus rc = dn_exec(ACL_OP_SituGlu, sg_run, sizeof p, ins, inn, 1, outs, outn, 1, workspaceSize, executor,
                             &params);
    if (rc == ACLNN_SUCCESS) memcpy(params, &p, sizeof p);
    return rc;
}
