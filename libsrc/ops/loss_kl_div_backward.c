/* aclnnKlDivBackward and aclnnKlDivTargetBackward (ops-nn loss/): the gradient of KlDiv with respect to self or to
 * target over the broadcast shape, summed down to that operand's shape; the compute in the shared elementwise-loss
 * engine (loss_pointwise.h). Reductions: 0 none, 1 mean (over the broadcast element count), 2 sum, 3 batchmean (over
 * the broadcast shape's first dim); any other value is taken as none, as both op_api sources do. */
#include <math.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/loss_pointwise.h"
#include "ops/mx_util.h"

/* gradOutput must broadcast to self (x) target's broadcast shape without enlarging it */
static aclnnStatus kl_shapes(const aclTensor *g, const aclTensor *self, const aclTensor *target, lp_params *pp) {
    const aclTensor *st[] = {self, target};
    ACLNN_CHECK(lp_broadcast(st, 2, pp->bd, &pp->nd), ACLNN_ERR_PARAM_INVALID,
                "self and target cannot be broadcast to one shape.");
    int64_t gd[ACL_MAX_TENSOR_DIMS];
    int gn = 0;
    ACLNN_CHECK(mx_broadcast(g->dims, (int)g->ndim, pp->bd, pp->nd, gd, &gn) && gn == pp->nd &&
                    memcmp(gd, pp->bd, sizeof(int64_t) * (size_t)gn) == 0,
                ACLNN_ERR_PARAM_INVALID, "gradOutput must broadcast to the shape of self and target.");
    return ACLNN_SUCCESS;
}

static void kl_params(lp_params *pp, int64_t reduction, bool logTarget, const aclTensor *g, const aclTensor *self,
                      const aclTensor *target, aclDataType cdt) {
    (void)g;
    (void)self;
    (void)target;
    pp->kind = LP_KLDIV;
    pp->backward = true;
    pp->log_target = logTarget;
    pp->reduction = reduction >= 0 && reduction <= 3 ? reduction : 0;
    pp->cdt = cdt;
    int64_t n = 1;
    for (int k = 0; k < pp->nd; k++) n *= pp->bd[k];
    pp->div = pp->reduction == 3 ? (double)(pp->nd ? pp->bd[0] : 1) : (double)n;
}

aclnnStatus opws_KlDivBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                               int64_t reduction, bool logTarget, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACLNN_CHECK(acl_can_cast(self->dtype, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "self dtype %s can't be cast to the desired output type %s of out.", acl_dtype_name(self->dtype),
                acl_dtype_name(out->dtype));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_KlDivBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_KlDivBackward, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_KlDivBackward, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_KlDivBackward, "out"));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    ACL_TRY(lp_max_dim(out, "out"));
    lp_params pp = {0};
    ACL_TRY(kl_shapes(gradOutput, self, target, &pp));
    ACLNN_CHECK(mx_shape_is(out, self->dims, (int)self->ndim), ACLNN_ERR_PARAM_INVALID,
                "out must have self's shape.");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_KlDivBackward, workspaceSize, executor);
    /* f16 throughout stays f16, anything else is computed as f32 */
    const bool h = gradOutput->dtype == ACL_FLOAT16 && self->dtype == ACL_FLOAT16 && target->dtype == ACL_FLOAT16;
    kl_params(&pp, reduction, logTarget, gradOutput, self, target, h ? ACL_FLOAT16 : ACL_FLOAT);
    const aclTensor *ins[LR_N] = {gradOutput, self, target, NULL, NULL};
    return lp_exec(ACL_OP_KlDivBackward, &pp, ins, out, "out", workspaceSize, executor);
}

aclnnStatus opws_KlDivTargetBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                     int64_t reduction, bool logTarget, aclTensor *gradTarget,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(gradTarget, "gradTarget", ACLNN_ERR_PARAM_NULLPTR));
    ACLNN_CHECK(acl_can_cast(self->dtype, gradTarget->dtype), ACLNN_ERR_PARAM_INVALID,
                "self dtype %s can't be cast to the desired output type %s of gradTarget.",
                acl_dtype_name(self->dtype), acl_dtype_name(gradTarget->dtype));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_KlDivTargetBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_KlDivTargetBackward, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_KlDivTargetBackward, "target"));
    ACL_TRY(acl_check_dtype_in(gradTarget, ACL_DT_LIST_KlDivTargetBackward, "gradTarget"));
    ACL_TRY(lp_same_dtype(target, "target", gradTarget, "gradTarget"));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    ACL_TRY(lp_max_dim(gradTarget, "gradTarget"));
    lp_params pp = {0};
    ACL_TRY(kl_shapes(gradOutput, self, target, &pp));
    ACLNN_CHECK(mx_shape_is(gradTarget, target->dims, (int)target->ndim), ACLNN_ERR_PARAM_INVALID,
                "gradTarget must have target's shape.");
    const aclTensor *all[] = {gradOutput, self, target, gradTarget};
    const char *names[] = {"gradOutput", "self", "target", "gradTarget"};
    for (int i = 0; i < 4; i++)
        ACLNN_CHECK(!acl_format_is_private(all[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "%s format %s is not supported (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, NCL).", names[i],
                    acl_format_name(all[i]->format));
    if (acl_tensor_empty(self) || acl_tensor_empty(target))
        return acl_exec_noop(ACL_OP_KlDivTargetBackward, workspaceSize, executor);
    kl_params(&pp, reduction, logTarget, gradOutput, self, target, ACL_FLOAT);
    pp.wrt_target = true;
    const aclTensor *ins[LR_N] = {gradOutput, self, target, NULL, NULL};
    return lp_exec(ACL_OP_KlDivTargetBackward, &pp, ins, gradTarget, "gradTarget", workspaceSize, executor);
}
