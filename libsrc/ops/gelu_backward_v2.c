/* aclnnGeluBackwardV2 (ops-nn activation/gelu_grad_v2): the gradient of gelu in its exact ("none", erf) or "tanh"
 * form; gradOutput and self broadcast, computed in their promoted dtype, which gradInput must have.
 *
 * Validation follows the op_api source in its order (NULLs with approximate last, the promotion and its list,
 * gradInput's dtype, the broadcast and gradInput's shape, then the approximate string). Compute: the broadcast
 * views gathered as double after the Cast to the promoted dtype, computed in float (every promoted dtype of the list
 * is f32/f16/bf16), rounded once. One owner per output element: the same bytes for any OMP_NUM_THREADS. */
#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/gelu_math.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

typedef struct {
    bool tanh_mode;
    aclDataType pdt;
} gbv2_params;

static aclnnStatus gbv2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gbv2_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const acl_view gv = md_broadcast_view(acl_exec_in(ex, 0), o->dims, o->ndim);
    const acl_view xv = md_broadcast_view(acl_exec_in(ex, 1), o->dims, o->ndim);
    double *g = md_load_via(&gv, p->pdt, ACL_DOUBLE), *x = md_load_via(&xv, p->pdt, ACL_DOUBLE);
    if (!g || !x) {
        free(g);
        free(x);
        return OOM;
    }
    const int64_t n = md_numel(o);
    const bool th = p->tanh_mode;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(n))
    for (int64_t i = 0; i < n; i++)
        x[i] = (float)g[i] * gelu_grad_f((float)x[i], th);
    aclnnStatus rc = md_store_via(x, ACL_DOUBLE, p->pdt, o);
    free(g);
    free(x);
    return rc;
}

aclnnStatus opws_GeluBackwardV2(const aclTensor *gradOutput, const aclTensor *self, char *approximate,
                                aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(gradInput, "gradInput");
    ACLNN_CHECK(approximate != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "approximate only supports to set none or tanh, but got null.");
    const aclDataType pdt = acl_promote(gradOutput->dtype, self->dtype);
    ACLNN_CHECK(pdt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "gradOutput dtype %s and self dtype %s can not be promoted.", acl_dtype_name(gradOutput->dtype),
                acl_dtype_name(self->dtype));
    ACLNN_CHECK(md_dt_in(pdt, ACL_DT_LIST_GeluBackwardV2), ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s of gradOutput and self is not supported.", acl_dtype_name(pdt));
    ACLNN_CHECK(pdt == gradInput->dtype, ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s of gradOutput and self does not match gradInput dtype %s.",
                acl_dtype_name(pdt), acl_dtype_name(gradInput->dtype));
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int bn = 0;
    ACLNN_CHECK(md_broadcast(gradOutput->dims, (int)gradOutput->ndim, self->dims, (int)self->ndim, bd, &bn),
                ACLNN_ERR_PARAM_INVALID, "the shapes of gradOutput and self can not broadcast.");
    if (!md_shape_is(gradInput, bd, bn)) {
        char a[256];
        acl_shape_str(gradInput, a, sizeof a);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                          "gradInput shape %s should be the broadcast shape of gradOutput and self.", a);
    }
    const bool th = strcmp(approximate, "tanh") == 0;
    ACLNN_CHECK(th || strcmp(approximate, "none") == 0, ACLNN_ERR_PARAM_INVALID,
                "approximate only supports to set none or tanh, but got %s.", approximate);
    if (acl_tensor_empty(self) || acl_tensor_empty(gradOutput))
        return acl_exec_noop(ACL_OP_GeluBackwardV2, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GeluBackwardV2, gbv2_run, sizeof(gbv2_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (!rc) rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(gbv2_params *)ex->params = (gbv2_params){th, pdt};
    return acl_exec_publish(ex, workspaceSize, executor);
}
