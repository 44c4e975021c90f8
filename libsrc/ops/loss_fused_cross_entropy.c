/* aclnnFusedCrossEntropyLossWithMaxSum (ops-nn loss/fused_cross_entropy_loss_with_max_sum): from a vocab-parallel
 * cross entropy's row maxima logitsMax [BT], sums of exponentials sumExpLogits [BT] and target logits
 * predictedLogits [BT]: lossOut = log(sumExpLogits) - predictedLogits, and with vocabParallelLogitsOptional [BT, V]
 * softMaxOutOptional = exp(v - logitsMax[:, None]) / sumExpLogits[:, None]. Computed in double, rounded once to f32.
 * The op_api leaves vocab's first dim unchecked against BT (its kernel's business); it is checked here so that
 * nothing is read outside logitsMax/sumExpLogits. inputOptional / weightOptional are accepted and unused (as the
 * op_api: labelSmoothing must be 0). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

typedef struct {
    int64_t BT, V;
    bool has_vocab;
} fce_params;

static aclnnStatus fce_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fce_params *p = ex->params;
    const int64_t BT = p->BT, V = p->has_vocab ? p->V : 0;
    double *m = malloc(sizeof(double) * (size_t)(BT + 1)), *s = malloc(sizeof(double) * (size_t)(BT + 1));
    double *pl = malloc(sizeof(double) * (size_t)(BT + 1)), *v = malloc(sizeof(double) * (size_t)(BT * V + 1));
    bool ok = m && s && pl && v;
    if (ok) {
        const acl_view *a = acl_exec_in(ex, 0), *b = acl_exec_in(ex, 1), *c = acl_exec_in(ex, 2);
        mx_load_bcast(a, a->dims, a->ndim, ACL_DOUBLE, m);
        mx_load_bcast(b, b->dims, b->ndim, ACL_DOUBLE, s);
        mx_load_bcast(c, c->dims, c->ndim, ACL_DOUBLE, pl);
        for (int64_t i = 0; i < BT; i++) pl[i] = log(s[i]) - pl[i];
        ok = mx_store_via(pl, ACL_DOUBLE, ACL_FLOAT, acl_exec_out(ex, 0));
        if (ok && p->has_vocab) {
            const acl_view *vv = acl_exec_in(ex, 3);
            mx_load_bcast(vv, vv->dims, vv->ndim, ACL_DOUBLE, v);
            for (int64_t i = 0; i < BT; i++)
                for (int64_t j = 0; j < V; j++) v[i * V + j] = exp(v[i * V + j] - m[i]) / s[i];
            ok = mx_store_via(v, ACL_DOUBLE, ACL_FLOAT, acl_exec_out(ex, 1));
        }
    }
    free(m);
    free(s);
    free(pl);
    free(v);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus not_null(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus same_shape(const aclTensor *t, const char *name, const aclTensor *ref) {
    return mx_check_shape(t, name, ref->dims, (int)ref->ndim);
}

aclnnStatus opws_FusedCrossEntropyLossWithMaxSum(const aclTensor *logitsMax, const aclTensor *sumExpLogits,
                                                 const aclTensor *predictedLogits, float labelSmoothing,
                                                 const aclTensor *inputOptional, const aclTensor *weightOptional,
                                                 const aclTensor *vocabParallelLogitsOptional, aclTensor *lossOut,
                                                 aclTensor *softMaxOutOptional, uint64_t *workspaceSize,
                                                 aclOpExecutor **executor) {
    (void)inputOptional;
    (void)weightOptional;
    const aclTensor *vocab = vocabParallelLogitsOptional, *sm = softMaxOutOptional;
    ACL_TRY(not_null(logitsMax, "logitsMax"));
    ACL_TRY(not_null(sumExpLogits, "sumExpLogits"));
    ACL_TRY(not_null(predictedLogits, "predictedLogits"));
    ACL_TRY(not_null(lossOut, "lossOut"));
    if (vocab) ACL_TRY(not_null(sm, "softMaxOutOptional"));
#define FL ACL_DT_LIST_FusedCrossEntropyLossWithMaxSum
    ACL_TRY(acl_check_dtype_in(logitsMax, FL, "logitsMax"));
    ACL_TRY(acl_check_dtype_in(sumExpLogits, FL, "sumExpLogits"));
    ACL_TRY(acl_check_dtype_in(predictedLogits, FL, "predictedLogits"));
    ACL_TRY(acl_check_dtype_in(lossOut, FL, "lossOut"));
    if (vocab) {
        ACL_TRY(acl_check_dtype_in(vocab, ACL_DT_LIST_FusedCrossEntropyLossWithMaxSum_vocabParallelLogitsOptional,
                                   "vocabParallelLogitsOptional"));
        ACL_TRY(acl_check_dtype_in(sm, FL, "softMaxOutOptional"));
    }
#undef FL
    ACLNN_CHECK(logitsMax->ndim == 1, ACLNN_ERR_PARAM_INVALID, "logitsMax must be 1-D, but has %llu dims.",
                (unsigned long long)logitsMax->ndim);
    ACL_TRY(same_shape(sumExpLogits, "sumExpLogits", logitsMax));
    ACL_TRY(same_shape(predictedLogits, "predictedLogits", logitsMax));
    ACL_TRY(same_shape(lossOut, "lossOut", logitsMax));
    if (vocab) {
        ACLNN_CHECK(vocab->ndim == 2, ACLNN_ERR_PARAM_INVALID, "vocabParallelLogitsOptional must be 2-D.");
        ACL_TRY(same_shape(sm, "softMaxOutOptional", vocab));
    }
    ACLNN_CHECK(labelSmoothing == 0, ACLNN_ERR_PARAM_INVALID, "Currently, only labelSmoothing=0 is supported.");
    if (vocab)
        ACLNN_CHECK(vocab->dims[0] == logitsMax->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "vocabParallelLogitsOptional's first dim must be logitsMax's length.");
    if (acl_tensor_empty(logitsMax)) return acl_exec_noop(ACL_OP_FusedCrossEntropyLossWithMaxSum, workspaceSize,
                                                          executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_FusedCrossEntropyLossWithMaxSum, fce_run, sizeof(fce_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, logitsMax, "logitsMax", true);
    if (!rc) rc = acl_exec_add_input(ex, sumExpLogits, "sumExpLogits", true);
    if (!rc) rc = acl_exec_add_input(ex, predictedLogits, "predictedLogits", true);
    if (!rc && vocab) rc = acl_exec_add_input(ex, vocab, "vocabParallelLogitsOptional", true);
    if (!rc) rc = acl_exec_add_output(ex, lossOut, "lossOut");
    if (!rc && vocab) rc = acl_tensor_empty(sm) ? acl_exec_add_output_nodata(ex, sm, "softMaxOutOptional")
                                                : acl_exec_add_output(ex, sm, "softMaxOutOptional");
    if (rc) return acl_exec_discard(ex, rc);
    *(fce_params *)ex->params = (fce_params){.BT = logitsMax->dims[0], .V = vocab ? vocab->dims[1] : 0,
                                             .has_vocab = vocab != NULL && !acl_tensor_empty(vocab)};
    return acl_exec_publish(ex, workspaceSize, executor);
}
