/* aclnnPrecisionCompare (ops-math math/precision_compare): compares golden and realdata element by element and
 * writes the status to the 0-d UINT32 out: 0 when every element is identical, 503 ("precision compare exception")
 * otherwise. The doc's comparison is "identical": elements are compared by their bits (an SDC check of a recomputed
 * tensor), so a NaN matches the same NaN and +0 does not match -0.
 * Upstream order: the SoC check (ASCEND910B passes), NULL golden/realdata/out (161001), golden and realdata of one
 * dtype, golden in FLOAT/FLOAT16/BF16, out UINT32, golden and realdata of one shape, rank <= 8, out 0-d (161002); an
 * empty golden, realdata or out succeeds without writing out. */
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"

#define PC_MAX_DIM 8
#define PC_MISMATCH 503u

/* true when every element of two views of one shape has the same bytes (row-major walk) */
static bool views_equal(const acl_view *a, const acl_view *b, size_t es) {
    const int nd = a->ndim;
    int64_t idx[ACL_MAX_VIEW_RANK] = {0};
    const int64_t n = dn_numel(a);
    int64_t oa = 0, ob = 0;
    for (int64_t k = 0; k < n; k++) {
        if (memcmp(a->base + oa * (int64_t)es, b->base + ob * (int64_t)es, es) != 0) return false;
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < a->dims[d]) {
                oa += a->strides[d];
                ob += b->strides[d];
                break;
            }
            oa -= (a->dims[d] - 1) * a->strides[d];
            ob -= (b->dims[d] - 1) * b->strides[d];
            idx[d] = 0;
        }
    }
    return true;
}

static aclnnStatus pc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *g = acl_exec_in(ex, 0), *r = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const uint32_t status = views_equal(g, r, acl_dtype_size(g->dtype)) ? 0u : PC_MISMATCH;
    memcpy(o->base, &status, sizeof status);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_PrecisionCompare(const aclTensor *golden, const aclTensor *realdata, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(golden, "golden");
    NN(realdata, "realdata");
    NN(out, "out");
    ACLNN_CHECK(golden->dtype == realdata->dtype, ACLNN_ERR_PARAM_INVALID,
                "realdata dtype %s should be the same as golden dtype %s.", acl_dtype_name(realdata->dtype),
                acl_dtype_name(golden->dtype));
    ACL_TRY(acl_check_dtype_in(golden, ACL_DT_LIST_PrecisionCompare, "golden"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_PrecisionCompare_out, "out"));
    ACL_TRY(acl_check_same_shape(golden, "golden", realdata, "realdata"));
    ACLNN_CHECK(golden->ndim <= PC_MAX_DIM, ACLNN_ERR_PARAM_INVALID, "golden has %llu dims; at most %d.",
                (unsigned long long)golden->ndim, PC_MAX_DIM);
    ACLNN_CHECK(out->ndim == 0, ACLNN_ERR_PARAM_INVALID, "out must be 0-d, but has %llu dims.",
                (unsigned long long)out->ndim);
    if (acl_tensor_empty(golden) || acl_tensor_empty(realdata) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_PrecisionCompare, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(golden) >= 0, ACLNN_ERR_PARAM_INVALID, "golden has more elements than int64 holds.");
    const aclTensor *ins[] = {golden, realdata}, *outs[] = {out};
    const char *inn[] = {"golden", "realdata"}, *outn[] = {"out"};
    return dn_exec(ACL_OP_PrecisionCompare, pc_run, sizeof(int), ins, inn, 2, outs, outn, 1, workspaceSize, executor,
                   NULL);
}
