/* aclnnMseLoss, aclnnL1Loss, aclnnSmoothL1Loss, aclnnSoftMarginLoss and their backwards (ops-nn loss/): each op's
 * checks in its op_api order, the compute in the shared elementwise-loss engine (loss_pointwise.h). */
#include <math.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/loss_pointwise.h"
#include "ops/mx_util.h"

static const aclDataType k_l1_promoted[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT64, ACL_BF16};

static bool is_float(aclDataType d) {
    return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16 || d == ACL_DOUBLE;
}

static aclnnStatus bcast_fail(const char *a, const char *b) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s and %s cannot be broadcast to one shape.", a, b);
}

/* the broadcast shape of a and b (161002 naming both when they do not broadcast) */
static aclnnStatus bcast2(const aclTensor *a, const char *an, const aclTensor *b, const char *bn, lp_params *pp) {
    const aclTensor *ts[] = {a, b};
    if (!lp_broadcast(ts, 2, pp->bd, &pp->nd)) return bcast_fail(an, bn);
    return ACLNN_SUCCESS;
}

/* a backward's shapes: gradOutput with self, then target with that; gradInput must have the result's shape */
static aclnnStatus bcast3(const aclTensor *g, const aclTensor *x, const aclTensor *t, const aclTensor *out,
                          const char *gname, const char *outname, lp_params *pp) {
    ACL_TRY(bcast2(g, gname, x, "self", pp));
    const aclTensor *ts[] = {g, x, t};
    if (!lp_broadcast(ts, 3, pp->bd, &pp->nd)) return bcast_fail("target", "the broadcast gradOutput and self");
    return mx_check_shape(out, outname, pp->bd, pp->nd);
}

static aclnnStatus promote_into(aclDataType p, const aclTensor *out, const char *name) {
    ACLNN_CHECK(acl_can_cast(p, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "result dtype %s can't be cast to the desired output type %s of %s.", acl_dtype_name(p),
                acl_dtype_name(out->dtype), name);
    return ACLNN_SUCCESS;
}

static aclnnStatus promote2(const aclTensor *a, const char *an, const aclTensor *b, const char *bn, aclDataType *p) {
    *p = acl_promote(a->dtype, b->dtype);
    ACLNN_CHECK(*p != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "%s dtype %s and %s dtype %s cannot be promoted.", an,
                acl_dtype_name(a->dtype), bn, acl_dtype_name(b->dtype));
    return ACLNN_SUCCESS;
}

static bool has(aclDataType d, const aclDataType *l, int n) {
    for (int i = 0; i < n; i++)
        if (l[i] == d) return true;
    return false;
}

static aclnnStatus in_list(aclDataType d, const aclDataType *l, int n, const char *what) {
    if (has(d, l, n)) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not in the support list.", what, acl_dtype_name(d));
}

/* a forward after its checks: an empty input gives nothing (none), NaN (mean) or 0 (sum) through a [1] fill copied
 * into out; otherwise the loss, its reduced result copied into out (one element) */
static aclnnStatus forward(int op, lp_params *pp, const aclTensor *self, const aclTensor *target, aclTensor *out,
                           const char *outname, uint64_t *ws, aclOpExecutor **ex) {
    const aclTensor *ins[LR_N] = {NULL, self, target, NULL, NULL};
    const int64_t one = 1;
    if (acl_tensor_empty(self) || acl_tensor_empty(target)) {
        if (pp->reduction == 0) return acl_exec_noop(op, ws, ex);
        ACL_TRY(mx_check_viewcopy(out, outname, &one, 1));
        pp->fill_only = true;
        pp->fill = pp->reduction == 1 ? NAN : 0.0;
        return lp_exec(op, pp, ins, out, outname, ws, ex);
    }
    if (pp->reduction != 0) ACL_TRY(mx_check_viewcopy(out, outname, NULL, 0));
    return lp_exec(op, pp, ins, out, outname, ws, ex);
}

static aclnnStatus backward(int op, lp_params *pp, const aclTensor *g, const aclTensor *self,
                            const aclTensor *target, aclTensor *out, const char *outname, uint64_t *ws,
                            aclOpExecutor **ex) {
    if (acl_tensor_empty(g) || acl_tensor_empty(self) || acl_tensor_empty(target) || acl_tensor_empty(out))
        return acl_exec_noop(op, ws, ex);
    const aclTensor *ins[LR_N] = {g, self, target, NULL, NULL};
    pp->backward = true;
    return lp_exec(op, pp, ins, out, outname, ws, ex);
}

/* ---- MseLoss ---- */

aclnnStatus opws_MseLoss(const aclTensor *self, const aclTensor *target, int64_t reduction, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    const aclDataType pt = acl_promote(self->dtype, target->dtype);
    ACLNN_CHECK(pt != ACL_DT_UNDEFINED && has(pt, ACL_DT_LIST_MseLoss),
                ACLNN_ERR_PARAM_INVALID, "Expected self dtype %s and target dtype %s to promote to a supported dtype.",
                acl_dtype_name(self->dtype), acl_dtype_name(target->dtype));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MseLoss, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_MseLoss, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MseLoss, "out"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_MSE, .reduction = reduction, .cdt = pt};
    ACL_TRY(bcast2(self, "self", target, "target", &pp));
    if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    else ACL_TRY(lp_out_scalar(out, "out"));
    return forward(ACL_OP_MseLoss, &pp, self, target, out, "out", workspaceSize, executor);
}

/* MseLossOut: as MseLoss, but a reduction runs over the first dim only (out: the broadcast shape without it) and an
 * empty input leaves out untouched */
aclnnStatus opws_MseLossOut(const aclTensor *self, const aclTensor *target, int64_t reduction, aclTensor *out,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    const aclDataType pt = acl_promote(self->dtype, target->dtype);
    ACLNN_CHECK(pt != ACL_DT_UNDEFINED && has(pt, ACL_DT_LIST_MseLossOut), ACLNN_ERR_PARAM_INVALID,
                "Expected self dtype %s and target dtype %s to promote to a supported dtype.",
                acl_dtype_name(self->dtype), acl_dtype_name(target->dtype));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MseLossOut, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_MseLossOut, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MseLossOut, "out"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_MSE, .reduction = reduction, .cdt = pt, .reduce_dim0 = reduction != 0};
    ACL_TRY(bcast2(self, "self", target, "target", &pp));
    if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    else ACL_TRY(mx_check_shape(out, "out", pp.bd + 1, pp.nd > 0 ? pp.nd - 1 : 0));
    if (acl_tensor_empty(self) || acl_tensor_empty(target))
        return acl_exec_noop(ACL_OP_MseLossOut, workspaceSize, executor);
    const aclTensor *ins[LR_N] = {NULL, self, target, NULL, NULL};
    return lp_exec(ACL_OP_MseLossOut, &pp, ins, out, "out", workspaceSize, executor);
}

aclnnStatus opws_MseLossBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                 int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                 aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(lp_same_dtype(self, "self", target, "target"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MseLossBackward, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MseLossBackward, "out"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_MSE, .reduction = reduction, .cdt = self->dtype};
    ACL_TRY(bcast3(gradOutput, self, target, out, "gradOutput", "out", &pp));
    return backward(ACL_OP_MseLossBackward, &pp, gradOutput, self, target, out, "out", workspaceSize, executor);
}

/* ---- L1Loss ---- */

aclnnStatus opws_L1Loss(const aclTensor *self, const aclTensor *target, int64_t reduction, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_reduction(reduction, 2));
    /* integer inputs: none needs self floating whenever target is; mean needs one of them floating */
    ACLNN_CHECK(!(reduction == 0 && !is_float(self->dtype) && is_float(target->dtype)), ACLNN_ERR_PARAM_INVALID,
                "self dtype should be floating point when target is, got self %s.", acl_dtype_name(self->dtype));
    ACLNN_CHECK(!(reduction == 1 && !is_float(self->dtype) && !is_float(target->dtype)), ACLNN_ERR_PARAM_INVALID,
                "self or target dtype should be floating point for a mean, got self %s and target %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(target->dtype));
    aclDataType pt;
    ACL_TRY(promote2(self, "self", target, "target", &pt));
    ACL_TRY(in_list(pt, k_l1_promoted, 4, "self and target promoted"));
    ACL_TRY(promote_into(pt, out, "out"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_L1, .reduction = reduction, .cdt = pt};
    ACL_TRY(bcast2(self, "self", target, "target", &pp));
    if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    else ACL_TRY(lp_out_scalar(out, "out"));
    return forward(ACL_OP_L1Loss, &pp, self, target, out, "out", workspaceSize, executor);
}

aclnnStatus opws_L1LossBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                int64_t reduction, aclTensor *gradInput, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(gradInput, "gradInput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_reduction(reduction, 2));
    aclDataType p1, p2;
    ACL_TRY(promote2(gradOutput, "gradOutput", self, "self", &p1));
    p2 = acl_promote(target->dtype, p1);
    ACLNN_CHECK(p2 != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "target dtype %s and the gradOutput/self dtype %s cannot be promoted.", acl_dtype_name(target->dtype),
                acl_dtype_name(p1));
    ACL_TRY(promote_into(p2, gradInput, "gradInput"));
    ACL_TRY(in_list(p2, ACL_DT_LIST_L1LossBackward, "gradOutput, self and target promoted"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(gradInput, "gradInput"));
    lp_params pp = {.kind = LP_L1, .reduction = reduction, .cdt = p2};
    ACL_TRY(bcast3(gradOutput, self, target, gradInput, "gradOutput", "gradInput", &pp));
    return backward(ACL_OP_L1LossBackward, &pp, gradOutput, self, target, gradInput, "gradInput", workspaceSize,
                    executor);
}

/* ---- SmoothL1Loss ---- */

static aclnnStatus check_beta(float beta) {
    ACLNN_CHECK(beta >= 0, ACLNN_ERR_PARAM_INVALID, "beta should be greater than or equal to 0, but got %g.",
                (double)beta);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SmoothL1Loss(const aclTensor *self, const aclTensor *target, int64_t reduction, float beta,
                              aclTensor *result, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(result, "result", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SmoothL1Loss, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_SmoothL1Loss, "target"));
    aclDataType pt;
    ACL_TRY(promote2(self, "self", target, "target", &pt));
    ACL_TRY(promote_into(pt, result, "result"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_SMOOTHL1, .reduction = reduction, .cdt = pt, .beta = beta};
    ACL_TRY(bcast2(self, "self", target, "target", &pp));
    if (reduction == 0) ACL_TRY(mx_check_shape(result, "result", pp.bd, pp.nd));
    ACL_TRY(check_beta(beta));
    return forward(ACL_OP_SmoothL1Loss, &pp, self, target, result, "result", workspaceSize, executor);
}

aclnnStatus opws_SmoothL1LossBackward(const aclTensor *gradOut, const aclTensor *self, const aclTensor *target,
                                      int64_t reduction, float beta, aclTensor *gradInput, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOut, "gradOut", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(gradInput, "gradInput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(gradOut, ACL_DT_LIST_SmoothL1LossBackward, "gradOut"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SmoothL1LossBackward, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_SmoothL1LossBackward, "target"));
    ACL_TRY(acl_check_dtype_in(gradInput, ACL_DT_LIST_SmoothL1LossBackward, "gradInput"));
    ACL_TRY(lp_max_dim(gradOut, "gradOut"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(check_beta(beta));
    aclDataType p1, p2;
    ACL_TRY(promote2(gradOut, "gradOut", self, "self", &p1));
    p2 = acl_promote(p1, target->dtype);
    ACLNN_CHECK(p2 != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "gradOut/self dtype %s and target dtype %s cannot "
                "be promoted.", acl_dtype_name(p1), acl_dtype_name(target->dtype));
    ACL_TRY(in_list(p2, ACL_DT_LIST_SmoothL1LossBackward, "gradOut, self and target promoted"));
    ACL_TRY(promote_into(p2, gradInput, "gradInput"));
    lp_params pp = {.kind = LP_SMOOTHL1, .reduction = reduction, .cdt = p2, .beta = beta};
    ACL_TRY(bcast3(gradOut, self, target, gradInput, "gradOut", "gradInput", &pp));
    return backward(ACL_OP_SmoothL1LossBackward, &pp, gradOut, self, target, gradInput, "gradInput", workspaceSize,
                    executor);
}

/* ---- SoftMarginLoss ---- */

aclnnStatus opws_SoftMarginLoss(const aclTensor *self, const aclTensor *target, int64_t reduction, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SoftMarginLoss, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_SoftMarginLoss, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SoftMarginLoss, "out"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    /* the op_api does not range-check reduction: anything but 0 (none) and 1 (mean) sums */
    lp_params pp = {.kind = LP_SOFTMARGIN, .reduction = reduction == 0 || reduction == 1 ? reduction : 2,
                    .cdt = acl_promote(self->dtype, target->dtype)};
    ACL_TRY(bcast2(self, "self", target, "target", &pp));
    if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    else ACL_TRY(lp_out_scalar(out, "out"));
    return forward(ACL_OP_SoftMarginLoss, &pp, self, target, out, "out", workspaceSize, executor);
}

aclnnStatus opws_SoftMarginLossBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                        int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_SoftMarginLossBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SoftMarginLossBackward, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_SoftMarginLossBackward, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_SoftMarginLossBackward, "out"));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    lp_params pp = {.kind = LP_SOFTMARGIN, .reduction = reduction,
                    .cdt = acl_promote(gradOutput->dtype, acl_promote(self->dtype, target->dtype))};
    ACL_TRY(bcast3(gradOutput, self, target, out, "gradOutput", "out", &pp));
    /* the op_api indexes its reduction names with it unchecked: out of range is refused here */
    ACL_TRY(lp_reduction(reduction, 2));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_SoftMarginLossBackward, workspaceSize, executor);
    return backward(ACL_OP_SoftMarginLossBackward, &pp, gradOutput, self, target, out, "out", workspaceSize,
                    executor);
}
