/* See avg_pool_exec.h. */
#include "ops/avg_pool_exec.h"

#include "common/status.h"

static aclnnStatus run_fwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const avgpool_plan *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    acl_view *y = acl_exec_out(ex, 0);
    switch (y->dtype) {
    case ACL_FLOAT: avgpool2d_fwd_f32(x, y, p); break;
    case ACL_FLOAT16: avgpool2d_fwd_f16(x, y, p); break;
    case ACL_BF16: avgpool2d_fwd_bf16(x, y, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unexpected dtype %d", (int)y->dtype);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus run_bwd(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const avgpool_plan *p = ex->params;
    const acl_view *gy = acl_exec_in(ex, 0);
    acl_view *gx = acl_exec_out(ex, 0);
    switch (gx->dtype) {
    case ACL_FLOAT: avgpool2d_bwd_f32(gy, gx, p); break;
    case ACL_FLOAT16: avgpool2d_bwd_f16(gy, gx, p); break;
    case ACL_BF16: avgpool2d_bwd_bf16(gy, gx, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unexpected dtype %d", (int)gx->dtype);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus avgpool_exec_create(int op, bool backward, const aclTensor *in, const char *in_name,
                                const aclTensor *shape_only, const char *shape_only_name, aclTensor *out,
                                const char *out_name, const aclTensor *big, const aclTensor *small,
                                aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, backward ? run_bwd : run_fwd, sizeof(avgpool_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = avgpool_plan_free;
    aclnnStatus rc = acl_exec_add_input(ex, in, in_name, true);
    if (rc == 0 && shape_only) rc = acl_exec_add_input(ex, shape_only, shape_only_name, false);
    if (rc == 0) rc = acl_exec_add_output(ex, out, out_name);
    if (rc) return acl_exec_discard(ex, rc);
    const int off = (int)big->ndim - 3;
    avgpool_plan *p = ex->params;
    p->n = off ? big->dims[0] : 1;
    p->c = big->dims[off];
    p->ih = big->dims[off + 1];
    p->iw = big->dims[off + 2];
    p->oh = small->dims[off + 1];
    p->ow = small->dims[off + 2];
    *exo = ex;
    return ACLNN_SUCCESS;
}
