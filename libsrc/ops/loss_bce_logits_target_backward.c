/* aclnnBinaryCrossEntropyWithLogitsTargetBackward (ops-nn activation/log_sigmoid): the gradient of
 * binary_cross_entropy_with_logits with respect to its target
 *   gradTarget = gradOutput * (logsigmoid(-self) - posWeight * logsigmoid(self)) * weight   (/ numel for mean)
 * gradOutput, weightOptional and posWeightOptional broadcast to self's shape (NULL weights: 1); the sum and none
 * reductions give the same elementwise value. Computed in float64 per element, rounded once to gradTarget's dtype
 * (the op_api computes in the promoted dtype, FLOAT for FLOAT16/BF16). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/ops.h"
#include "common/parallel.h"

typedef struct {
    nm_io io;
    int nd;
    int64_t dims[ACL_MAX_TENSOR_DIMS], st[3][ACL_MAX_TENSOR_DIMS]; /* broadcast strides of gradOutput, w, pw */
    double scale;
} bt_params;

static double log_sigmoid(double x) { return (x < 0 ? x : 0.0) - log1p(exp(-fabs(x))); }

static aclnnStatus bt_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const bt_params *p = ex->params;
    bool oom = false;
    double *go = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom);
    double *w = nm_load(nm_in(ex, 3), &oom), *pw = nm_load(nm_in(ex, 4), &oom);
    int64_t total = 1;
    for (int d = 0; d < p->nd; d++) total *= p->dims[d];
    double *r = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !r || !go || !x) {
        rc = OOM;
    } else {
        ACL_FOR(total > 65536, i, 0, total, {
            int64_t rem = i, k[3] = {0, 0, 0};
            for (int d = p->nd - 1; d >= 0; d--) {
                const int64_t c = rem % p->dims[d];
                rem /= p->dims[d];
                for (int t = 0; t < 3; t++) k[t] += c * p->st[t][d];
            }
            const double v = x[i], pwv = pw ? pw[k[2]] : 1.0, wv = w ? w[k[1]] : 1.0;
            r[i] = go[k[0]] * (log_sigmoid(-v) - pwv * log_sigmoid(v)) * wv * p->scale;
        });
        nm_store(r, nm_out(ex, 0));
    }
    free(go), free(x), free(w), free(pw), free(r);
    return rc;
}

static const aclDataType k_dt[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};

/* t broadcasts with self to exactly self's shape (right-aligned, dims 1 or equal); its strides into its own
 * contiguous copy, 0 on broadcast dims */
static aclnnStatus bcast_to_self(const aclTensor *t, const char *name, const aclTensor *self, int64_t *st) {
    if (!t) return ACLNN_SUCCESS;
    bool ok = t->ndim <= self->ndim;
    for (uint64_t i = 0; ok && i < t->ndim; i++) {
        const int64_t a = t->dims[t->ndim - 1 - i], b = self->dims[self->ndim - 1 - i];
        ok = a == b || a == 1;
    }
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "%s's shape should broadcast to self's shape (the broadcast result must "
                "be self's shape).", name);
    int64_t s = 1;
    for (uint64_t i = 0; i < self->ndim; i++) {
        const uint64_t d = self->ndim - 1 - i;
        if (i < t->ndim) {
            const int64_t a = t->dims[t->ndim - 1 - i];
            st[d] = a == 1 ? 0 : s;
            s *= a;
        } else {
            st[d] = 0;
        }
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_BinaryCrossEntropyWithLogitsTargetBackward(const aclTensor *gradOutput, const aclTensor *self,
                                                            const aclTensor *target, const aclTensor *weightOptional,
                                                            const aclTensor *posWeightOptional, int64_t reduction,
                                                            aclTensor *gradTarget, uint64_t *workspaceSize,
                                                            aclOpExecutor **executor) {
    const aclTensor *w = weightOptional, *pw = posWeightOptional;
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(target, "target");
    NN(gradTarget, "gradTarget");
    if (w) NN(w, "weightOptional");
    if (pw) NN(pw, "posWeightOptional");
    /* the op_api's rank check applies to its one non-const tensor, gradTarget */
    ACL_TRY(nm_max_dim(gradTarget, 8, "gradTarget"));
    ACL_TRY(acl_check_dtype_in(gradOutput, k_dt, 3, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, k_dt, 3, "self"));
    ACL_TRY(acl_check_dtype_in(target, k_dt, 3, "target"));
    if (w) ACL_TRY(acl_check_dtype_in(w, k_dt, 3, "weightOptional"));
    if (pw) ACL_TRY(acl_check_dtype_in(pw, k_dt, 3, "posWeightOptional"));
    ACL_TRY(acl_check_dtype_in(gradTarget, k_dt, 3, "gradTarget"));
    ACLNN_CHECK(gradTarget->dtype == target->dtype, ACLNN_ERR_PARAM_INVALID, "gradTarget's dtype %s should be "
                "target's %s.", acl_dtype_name(gradTarget->dtype), acl_dtype_name(target->dtype));
    ACLNN_CHECK(self->format == target->format, ACLNN_ERR_PARAM_INVALID, "the formats of self and target should be "
                "the same.");
    ACLNN_CHECK(self->format == gradTarget->format, ACLNN_ERR_PARAM_INVALID, "the formats of self and gradTarget "
                "should be the same.");
    bt_params tmp = {0};
    if (!acl_tensor_empty(self)) {
        ACL_TRY(nm_same_shape(target, "target", self, "self"));
        ACL_TRY(nm_same_shape(gradTarget, "gradTarget", self, "self"));
        ACL_TRY(bcast_to_self(gradOutput, "gradOutput", self, tmp.st[0]));
        ACL_TRY(bcast_to_self(w, "weightOptional", self, tmp.st[1]));
        ACL_TRY(bcast_to_self(pw, "posWeightOptional", self, tmp.st[2]));
    }
    ACLNN_CHECK(reduction >= 0 && reduction <= 2, ACLNN_ERR_PARAM_INVALID, "reduction should be between 0 and 2, but "
                "is %lld.", (long long)reduction);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_BinaryCrossEntropyWithLogitsTargetBackward,
                                                     workspaceSize, executor);
    const aclTensor *ins[] = {gradOutput, self, target, w, pw}, *outs[] = {gradTarget};
    const char *inn[] = {"gradOutput", "self", "target", "weightOptional", "posWeightOptional"};
    const char *outn[] = {"gradTarget"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BinaryCrossEntropyWithLogitsTargetBackward, bt_run, sizeof(bt_params), ins, inn, 5, outs,
                    outn, 1, workspaceSize, executor, &pp));
    bt_params *p = pp;
    p->nd = (int)self->ndim;
    for (int d = 0; d < p->nd; d++) {
        p->dims[d] = self->dims[d];
        for (int t = 0; t < 3; t++) p->st[t][d] = tmp.st[t][d];
    }
    p->scale = reduction == 1 ? 1.0 / (double)acl_tensor_numel(target) : 1.0;
    return ACLNN_SUCCESS;
}
