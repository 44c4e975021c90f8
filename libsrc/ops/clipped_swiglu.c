/* ClippedSwiglu (ops-nn activation/clipped_swiglu; no op_api source: the first phase is the one generated from the
 * op definition, then the tiling's checks).
 *
 * x is merged to [pre, H] at dim (pre = the product of the dims before dim, H = the product of dim and the ones
 * after it; a 1-d x is [1, x[0]]). Each row splits into A and B: interleaved -> the even / odd elements of the
 * merged row, else its first / second half. With groupIndexOptional only the first sum(groupIndex) rows are
 * computed (the sum is clamped to [0, pre]; the other rows of out are not written, as the device kernel leaves
 * them). y = min(A, limit) * sigmoid(alpha * min(A, limit)) * (clamp(B, -limit, limit) + bias), in float, rounded
 * once; alpha, limit and bias are the op's float attributes.
 * First phase: NULL x / out 161001; x, groupIndexOptional, out in the definition's dtypes 161002; out empty:
 * nothing to launch; then the tiling in its order, each 561002: dim in [-rank, rank-1], x[dim] even, group index
 * 1-d, out's rank, out[dim] == x[dim] / 2, out's dtype == x's. Rows are owned by one thread each. */
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
} cs_params;

static aclnnStatus cs_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cs_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    int64_t rows = p->pre;
    if (p->group) {
        int64_t *g = md_load(acl_exec_in(ex, 1), ACL_INT64);
        if (!g) return OOM;
        const int64_t ng = md_numel(acl_exec_in(ex, 1));
        int64_t s = 0;
        for (int64_t i = 0; i < ng; i++) {
            if (g[i] > 0) s = (g[i] > p->pre - s) ? p->pre : s + g[i];
        }
        free(g);
        rows = s;
    }
    const int64_t hh = p->h / 2;
    float *xv = md_load(x, ACL_FLOAT), *yv = md_load(o, ACL_FLOAT);
    if (!xv || !yv) {
        free(xv);
        free(yv);
        return OOM;
    }
    ACL_FOR(rows * hh > 65536, r, 0, rows, {
        const float *xr = xv + r * p->h;
        float *yr = yv + r * hh;
        for (int64_t j = 0; j < hh; j++) {
            float a = p->interleaved ? xr[2 * j] : xr[j], b = p->interleaved ? xr[2 * j + 1] : xr[hh + j];
            a = fminf(a, p->limit);
            b = fminf(fmaxf(b, -p->limit), p->limit);
            const float glu = a / (1.0f + expf(-p->alpha * a));
            yr[j] = glu * (b + p->bias);
        }
    });
    md_store(yv, ACL_FLOAT, o);
    free(xv);
    free(yv);
    return ACLNN_SUCCESS;
}

/* the first phase of ClippedSwiglu and of ClippedSwigluV2 (op: the executor's op id) */
static aclnnStatus cs_ws(int op, const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha,
                         double limit, double bias, bool interleaved, const aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    NN(x, "x");
    NN(out, "out");
    if (groupIndexOptional) NN(groupIndexOptional, "groupIndexOptional");
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_ClippedSwiglu, "x"));
    if (groupIndexOptional)
        ACL_TRY(acl_check_dtype_in(groupIndexOptional, ACL_DT_LIST_ClippedSwiglu_groupIndexOptional,
                                   "groupIndexOptional"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_ClippedSwiglu, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(op, workspaceSize, executor);
    const int64_t r = (int64_t)x->ndim;
    TILING(dim <= r - 1 && dim >= -r, "dim should be in [-%lld, %lld], but is %lld.", (long long)r,
           (long long)(r - 1), (long long)dim);
    const int64_t d = dim < 0 ? dim + r : dim;
    TILING(x->dims[d] % 2 == 0, "x[dim] should be divisible by 2, but is %lld.", (long long)x->dims[d]);
    if (groupIndexOptional)
        TILING(groupIndexOptional->ndim == 1, "groupIndexOptional should have 1 dim, but has %llu.",
               (unsigned long long)groupIndexOptional->ndim);
    TILING((int64_t)out->ndim == r, "out should have x's rank %lld, but has %llu.", (long long)r,
           (unsigned long long)out->ndim);
    TILING(out->dims[d] == x->dims[d] / 2, "out[dim] should be x[dim] / 2 = %lld, but is %lld.",
           (long long)(x->dims[d] / 2), (long long)out->dims[d]);
    TILING(out->dtype == x->dtype, "out dtype %s should be x's dtype %s.", acl_dtype_name(out->dtype),
           acl_dtype_name(x->dtype));
    /* not a tiling rule: the other dims of out are x's (the doc's shape rule), so nothing outside out is written */
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(k == d || out->dims[k] == x->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "out dim %lld (%lld) should be x's (%lld).", (long long)k, (long long)out->dims[k],
                    (long long)x->dims[k]);
    cs_params p = {1, 1, groupIndexOptional != NULL, interleaved, (float)alpha, (float)limit, (float)bias};
    for (int64_t k = 0; k < d; k++) p.pre *= x->dims[k];
    for (int64_t k = d; k < r; k++) p.h *= x->dims[k];
    const aclTensor *ins[] = {x, groupIndexOptional}, *outs[] = {out};
    const char *inn[] = {"x", "groupIndexOptional"}, *outn[] = {"out"};
    void *params = NULL;
    aclnnStatus rc = dn_exec(op, cs_run, sizeof p, ins, inn, groupIndexOptional ? 2 : 1, outs, outn,
                             1, workspaceSize, executor, &params);
    if (rc == ACLNN_SUCCESS) memcpy(params, &p, sizeof p);
    return rc;
}

aclnnStatus opws_ClippedSwiglu(const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha,
                               double limit, double bias, bool interleaved, const aclTensor *out,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cs_ws(ACL_OP_ClippedSwiglu, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, out,
                 workspaceSize, executor);
}

/* ClippedSwigluV2 (the same op definition with the clamp_mode attribute): the ASCEND910B tiling never reads
 * clamp_mode (only the ascend950 one does), so on the A2 any clampMode computes the clamp-before-silu formula. */
aclnnStatus opws_ClippedSwigluV2(const aclTensor *x, const aclTensor *groupIndexOptional, int64_t dim, double alpha,
                                 double limit, double bias, bool interleaved, int64_t clampMode, const aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)clampMode;
    return cs_ws(ACL_OP_ClippedSwigluV2, x, groupIndexOptional, dim, alpha, limit, bias, interleaved, out,
                 workspaceSize, executor);
}
