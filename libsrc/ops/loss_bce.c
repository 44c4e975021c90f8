/* aclnnBinaryCrossEntropy, aclnnBinaryCrossEntropyWithLogits and their backwards (ops-nn loss/): each op's checks in
 * its op_api order, the compute in the shared elementwise-loss engine (loss_pointwise.h). */
#include <math.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/loss_pointwise.h"
#include "ops/mx_util.h"
#include "ops/view_fold.h"

static aclnnStatus dtype_match(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    return lp_same_dtype(a, an, b, bn);
}

static aclnnStatus same_shape(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    return mx_check_shape(b, bn, a->dims, (int)a->ndim) == ACLNN_SUCCESS
               ? ACLNN_SUCCESS
               : ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s and %s must have the same shape.", an, bn);
}

static aclnnStatus same_format(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    ACLNN_CHECK(a->format == b->format, ACLNN_ERR_PARAM_INVALID, "Format of %s and %s can't be different: %s, %s.",
                an, bn, acl_format_name(a->format), acl_format_name(b->format));
    return ACLNN_SUCCESS;
}

/* t broadcast with `self` must give self's shape */
static aclnnStatus bcast_to_self(const aclTensor *self, const aclTensor *t, const char *name) {
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int nd = 0;
    ACLNN_CHECK(mx_broadcast(self->dims, (int)self->ndim, t->dims, (int)t->ndim, bd, &nd), ACLNN_ERR_PARAM_INVALID,
                "self and %s cannot be broadcast to one shape.", name);
    ACLNN_CHECK(mx_shape_is(self, bd, nd), ACLNN_ERR_PARAM_INVALID, "%s must broadcast to self's shape.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus promote_step(aclDataType *p, const aclTensor *t, const char *name) {
    aclDataType q = acl_promote(*p, t->dtype);
    ACLNN_CHECK(q != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "%s dtype %s and dtype %s cannot be promoted.", name,
                acl_dtype_name(t->dtype), acl_dtype_name(*p));
    *p = q;
    return ACLNN_SUCCESS;
}

static aclnnStatus cast_to_out(aclDataType p, const aclTensor *out) {
    ACLNN_CHECK(acl_can_cast(p, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "result dtype %s can't be cast to the desired output type %s of out.", acl_dtype_name(p),
                acl_dtype_name(out->dtype));
    return ACLNN_SUCCESS;
}

/* an empty input: out (any shape) filled with NaN for a mean, else 0; nothing to do for none when out is empty */
static aclnnStatus fill_out(int op, lp_params *pp, const aclTensor *const *ins, aclTensor *out, uint64_t *ws,
                            aclOpExecutor **ex) {
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, ex);
    pp->fill_only = true;
    pp->fill = pp->reduction == 1 ? NAN : 0.0;
    return lp_exec(op, pp, ins, out, "out", ws, ex);
}

/* ---- BinaryCrossEntropy ---- */

aclnnStatus opws_BinaryCrossEntropy(const aclTensor *self, const aclTensor *target, const aclTensor *weight,
                                    int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                    aclOpExecutor **executor) {
    /* this op_api reports its NULL tensors as an inner error */
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_BinaryCrossEntropy, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_BinaryCrossEntropy, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_BinaryCrossEntropy, "out"));
    if (weight) ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_BinaryCrossEntropy, "weight"));
    ACL_TRY(dtype_match(self, "self", target, "target"));
    if (weight) ACL_TRY(dtype_match(self, "self", weight, "weight"));
    ACL_TRY(dtype_match(self, "self", out, "out"));
    ACL_TRY(same_shape(self, "self", target, "target"));
    ACL_TRY(lp_reduction(reduction, 2));
    lp_params pp = {.kind = LP_BCE, .reduction = reduction, .cdt = self->dtype};
    const aclTensor *ins[LR_N] = {NULL, self, target, weight, NULL};
    if (acl_tensor_empty(self)) return fill_out(ACL_OP_BinaryCrossEntropy, &pp, ins, out, workspaceSize, executor);
    if (weight) ACL_TRY(bcast_to_self(self, weight, "weight"));
    /* the result (self's shape, or [] for a reduction) must have out's shape or both hold one element */
    const bool one = acl_tensor_numel(out) == 1 && (reduction != 0 || acl_tensor_numel(self) == 1);
    if (!one) {
        if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", self->dims, (int)self->ndim));
        else ACL_TRY(mx_check_shape(out, "out", NULL, 0));
    }
    /* the op_api has no rank limit: more than 8 dims run as the joint folded views in self's index space (out with
     * them when it has self's shape, else - one element - folded on its own); the order of the elements, and so of
     * a reduction's sum, is unchanged */
    const bool out_like_self = reduction == 0 && mx_shape_is(out, self->dims, (int)self->ndim);
    const aclTensor *jt[4] = {self, target, weight, out_like_self ? out : NULL}, *use[4];
    aclTensor fold[5];
    ACL_TRY(vf_fit_joint(jt, 4, self->dims, (int)self->ndim, "self, target, weight and out", fold, use));
    const aclTensor *outv = out_like_self ? use[3] : out;
    if (!out_like_self) ACL_TRY(vf_fit(out, "out", &fold[4], &outv));
    ins[1] = use[0];
    ins[2] = use[1];
    ins[3] = use[2];
    const aclTensor *ts[] = {use[0], use[1], use[2]};
    ACLNN_CHECK(lp_broadcast(ts, 3, pp.bd, &pp.nd), ACLNN_ERR_PARAM_INVALID, "weight must broadcast to self.");
    return lp_exec(ACL_OP_BinaryCrossEntropy, &pp, ins, (aclTensor *)outv, "out", workspaceSize, executor);
}

aclnnStatus opws_BinaryCrossEntropyBackward(const aclTensor *gradOutput, const aclTensor *self,
                                            const aclTensor *target, const aclTensor *weightOptional,
                                            int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                            aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    if (weightOptional) ACL_TRY(lp_max_dim(weightOptional, "weightOptional"));
    ACL_TRY(lp_max_dim(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_BinaryCrossEntropyBackward, "self"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_BinaryCrossEntropyBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_BinaryCrossEntropyBackward, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_BinaryCrossEntropyBackward, "out"));
    if (weightOptional)
        ACL_TRY(acl_check_dtype_in(weightOptional, ACL_DT_LIST_BinaryCrossEntropyBackward, "weightOptional"));
    ACL_TRY(same_format(self, "self", target, "target"));
    if (weightOptional) ACL_TRY(same_format(self, "self", weightOptional, "weightOptional"));
    if (!acl_tensor_empty(self)) {
        ACL_TRY(same_shape(self, "self", out, "out"));
        ACL_TRY(bcast_to_self(self, target, "target"));
        if (weightOptional) ACL_TRY(bcast_to_self(self, weightOptional, "weightOptional"));
        ACL_TRY(bcast_to_self(self, gradOutput, "gradOutput"));
    }
    ACL_TRY(lp_reduction(reduction, 2));
    aclDataType pt = self->dtype;
    ACL_TRY(promote_step(&pt, target, "target"));
    ACL_TRY(promote_step(&pt, gradOutput, "gradOutput"));
    if (weightOptional) ACL_TRY(promote_step(&pt, weightOptional, "weightOptional"));
    ACL_TRY(cast_to_out(pt, out));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_BinaryCrossEntropyBackward, workspaceSize, executor);
    lp_params pp = {.kind = LP_BCE, .backward = true, .reduction = reduction, .cdt = pt};
    const aclTensor *ts[] = {self};
    (void)lp_broadcast(ts, 1, pp.bd, &pp.nd);
    const aclTensor *ins[LR_N] = {gradOutput, self, target, weightOptional, NULL};
    return lp_exec(ACL_OP_BinaryCrossEntropyBackward, &pp, ins, out, "out", workspaceSize, executor);
}

/* ---- BinaryCrossEntropyWithLogits ---- */

aclnnStatus opws_BinaryCrossEntropyWithLogits(const aclTensor *self, const aclTensor *target,
                                              const aclTensor *weightOptional, const aclTensor *posWeightOptional,
                                              int64_t reduction, aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_BinaryCrossEntropyWithLogits, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_BinaryCrossEntropyWithLogits, "target"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_BinaryCrossEntropyWithLogits, "out"));
    ACL_TRY(dtype_match(target, "target", out, "out"));
    ACL_TRY(lp_reduction(reduction, 2));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    if (weightOptional) ACL_TRY(lp_max_dim(weightOptional, "weightOptional"));
    if (posWeightOptional) ACL_TRY(lp_max_dim(posWeightOptional, "posWeightOptional"));
    ACL_TRY(same_shape(self, "self", target, "target"));
    lp_params pp = {.kind = LP_BCEL, .reduction = reduction, .cdt = acl_promote(self->dtype, target->dtype)};
    const aclTensor *ins[LR_N] = {NULL, self, target, weightOptional, posWeightOptional};
    if (!acl_tensor_empty(target)) {
        const aclTensor *w[] = {weightOptional, target}, *pw[] = {posWeightOptional, target};
        ACLNN_CHECK(!weightOptional || lp_broadcast(w, 2, pp.bd, &pp.nd), ACLNN_ERR_PARAM_INVALID,
                    "weightOptional and target cannot be broadcast to one shape.");
        ACLNN_CHECK(!posWeightOptional || lp_broadcast(pw, 2, pp.bd, &pp.nd), ACLNN_ERR_PARAM_INVALID,
                    "posWeightOptional and target cannot be broadcast to one shape.");
    }
    if (acl_tensor_empty(self)) {
        if (reduction == 0) return acl_exec_noop(ACL_OP_BinaryCrossEntropyWithLogits, workspaceSize, executor);
        return fill_out(ACL_OP_BinaryCrossEntropyWithLogits, &pp, ins, out, workspaceSize, executor);
    }
    const aclTensor *ts[] = {self, target, weightOptional, posWeightOptional};
    ACLNN_CHECK(lp_broadcast(ts, 4, pp.bd, &pp.nd), ACLNN_ERR_PARAM_INVALID, "the operands cannot be broadcast.");
    if (reduction == 0) {
        ACL_TRY(mx_check_shape(out, "out", pp.bd, pp.nd));
    } else {
        const int64_t one = 1;
        ACL_TRY(mx_check_viewcopy(out, "out", &one, 0));
    }
    return lp_exec(ACL_OP_BinaryCrossEntropyWithLogits, &pp, ins, out, "out", workspaceSize, executor);
}

aclnnStatus opws_BinaryCrossEntropyWithLogitsBackward(const aclTensor *gradOutput, const aclTensor *self,
                                                      const aclTensor *target, const aclTensor *weightOptional,
                                                      const aclTensor *posWeightOptional, int64_t reduction,
                                                      aclTensor *out, uint64_t *workspaceSize,
                                                      aclOpExecutor **executor) {
    ACL_TRY(lp_null(gradOutput, "gradOutput", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(target, "target", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_null(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(lp_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(lp_max_dim(self, "self"));
    ACL_TRY(lp_max_dim(target, "target"));
    if (weightOptional) ACL_TRY(lp_max_dim(weightOptional, "weightOptional"));
    if (posWeightOptional) ACL_TRY(lp_max_dim(posWeightOptional, "posWeightOptional"));
    ACL_TRY(lp_max_dim(out, "out"));
#define BL ACL_DT_LIST_BinaryCrossEntropyWithLogitsBackward
    ACL_TRY(acl_check_dtype_in(gradOutput, BL, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, BL, "self"));
    ACL_TRY(acl_check_dtype_in(target, BL, "target"));
    if (weightOptional) ACL_TRY(acl_check_dtype_in(weightOptional, BL, "weightOptional"));
    if (posWeightOptional) ACL_TRY(acl_check_dtype_in(posWeightOptional, BL, "posWeightOptional"));
    ACL_TRY(acl_check_dtype_in(out, BL, "out"));
#undef BL
    ACL_TRY(dtype_match(target, "target", out, "out"));
    ACL_TRY(same_format(self, "self", target, "target"));
    ACL_TRY(same_format(self, "self", out, "out"));
    if (!acl_tensor_empty(self)) {
        ACL_TRY(same_shape(self, "self", target, "target"));
        ACL_TRY(same_shape(self, "self", out, "out"));
        ACL_TRY(bcast_to_self(self, gradOutput, "gradOutput"));
        if (weightOptional) ACL_TRY(bcast_to_self(self, weightOptional, "weightOptional"));
        if (posWeightOptional) ACL_TRY(bcast_to_self(self, posWeightOptional, "posWeightOptional"));
    }
    ACL_TRY(lp_reduction(reduction, 2));
    if (acl_tensor_empty(self))
        return acl_exec_noop(ACL_OP_BinaryCrossEntropyWithLogitsBackward, workspaceSize, executor);
    aclDataType pt = self->dtype;
    ACL_TRY(promote_step(&pt, target, "target"));
    ACL_TRY(promote_step(&pt, gradOutput, "gradOutput"));
    if (weightOptional) ACL_TRY(promote_step(&pt, weightOptional, "weightOptional"));
    if (posWeightOptional) ACL_TRY(promote_step(&pt, posWeightOptional, "posWeightOptional"));
    ACL_TRY(cast_to_out(pt, out));
    lp_params pp = {.kind = LP_BCEL, .backward = true, .reduction = reduction, .cdt = pt};
    const aclTensor *ts[] = {self};
    (void)lp_broadcast(ts, 1, pp.bd, &pp.nd);
    const aclTensor *ins[LR_N] = {gradOutput, self, target, weightOptional, posWeightOptional};
    return lp_exec(ACL_OP_BinaryCrossEntropyWithLogitsBackward, &pp, ins, out, "out", workspaceSize, executor);
}
