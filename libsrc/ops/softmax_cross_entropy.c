/* aclnnSoftmaxCrossEntropyWithLogits (ops-nn activation/softmax_cross_entropy_with_logits): features and labels of
 * shape (N, C); per row, loss = -sum(labels * log_softmax(features)) and backprop = softmax(features) - labels.
 *
 * Validation follows the op_api source in its order (NULLs, the four dtype lists, loss and backprop with features'
 * dtype, ranks <= 8, features and labels 2-d); the output shapes the op_api leaves to its ViewCopy are checked here:
 * labels as features (a broadcastable labels is accepted, as the kernel's infershape does), loss (N), backprop
 * (N, C). Compute: gathered as double, each row owned by one thread and computed in float in a fixed order (labels
 * first cast to features' dtype), rounded once. The same bytes for any OMP_NUM_THREADS. */
#include <math.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

static aclnnStatus sce_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *fv = acl_exec_in(ex, 0), *loss = acl_exec_out(ex, 0), *bp = acl_exec_out(ex, 1);
    const acl_view lv = md_broadcast_view(acl_exec_in(ex, 1), fv->dims, fv->ndim);
    const aclDataType dt = fv->dtype;
    double *f = md_load(fv, ACL_DOUBLE), *l = md_load_via(&lv, dt, ACL_DOUBLE);
    const int64_t n = fv->dims[0], c = fv->dims[1];
    double *lo = md_alloc(n, sizeof(double));
    if (!f || !l || !lo) {
        free(f);
        free(l);
        free(lo);
        return OOM;
    }
#pragma omp parallel for schedule(static) if (acl_parallel_worth(n * c) && n > 1)
    for (int64_t i = 0; i < n; i++) {
        double *x = f + i * c;
        const double *y = l + i * c;
        float m = (float)x[0];
        for (int64_t j = 1; j < c; j++)
            if ((float)x[j] > m || isnan((float)x[j])) m = (float)x[j];
        float s = 0;
        for (int64_t j = 0; j < c; j++) s += expf((float)x[j] - m);
        const float lse = m + logf(s);
        float acc = 0;
        for (int64_t j = 0; j < c; j++) {
            const float lp = (float)x[j] - lse;
            acc -= (float)y[j] * lp;
            x[j] = expf(lp) - (float)y[j];
        }
        lo[i] = acc;
    }
    md_store(lo, ACL_DOUBLE, loss);
    md_store(f, ACL_DOUBLE, bp);
    free(f);
    free(l);
    free(lo);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SoftmaxCrossEntropyWithLogits(const aclTensor *features, aclTensor *labels, aclTensor *loss,
                                               aclTensor *backprop, uint64_t *workspaceSize,
                                               aclOpExecutor **executor) {
    NN(features, "features");
    NN(labels, "labels");
    NN(loss, "loss");
    NN(backprop, "backprop");
    ACL_TRY(acl_check_dtype_in(features, ACL_DT_LIST_SoftmaxCrossEntropyWithLogits, "features"));
    ACL_TRY(acl_check_dtype_in(labels, ACL_DT_LIST_SoftmaxCrossEntropyWithLogits, "labels"));
    ACL_TRY(acl_check_dtype_in(loss, ACL_DT_LIST_SoftmaxCrossEntropyWithLogits, "loss"));
    ACL_TRY(acl_check_dtype_in(backprop, ACL_DT_LIST_SoftmaxCrossEntropyWithLogits, "backprop"));
    ACL_TRY(acl_check_same_dtype(features, "features", loss, "loss"));
    ACL_TRY(acl_check_same_dtype(features, "features", backprop, "backprop"));
    ACL_TRY(md_check_max_dim(features, "features"));
    ACL_TRY(md_check_max_dim(labels, "labels"));
    ACL_TRY(md_check_max_dim(loss, "loss"));
    ACL_TRY(md_check_max_dim(backprop, "backprop"));
    ACLNN_CHECK(features->ndim == 2 && labels->ndim == 2, ACLNN_ERR_PARAM_INVALID,
                "features and labels must be 2-d, but have %llu and %llu dims.",
                (unsigned long long)features->ndim, (unsigned long long)labels->ndim);
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int bn = 0;
    ACLNN_CHECK(md_broadcast(labels->dims, 2, features->dims, 2, bd, &bn) && bd[0] == features->dims[0] &&
                    bd[1] == features->dims[1],
                ACLNN_ERR_PARAM_INVALID, "labels shape should broadcast to features shape.");
    ACLNN_CHECK(md_shape_is(loss, features->dims, 1), ACLNN_ERR_PARAM_INVALID,
                "loss should have shape (%lld).", (long long)features->dims[0]);
    ACL_TRY(acl_check_same_shape(features, "features", backprop, "backprop"));
    if (acl_tensor_empty(features) || acl_tensor_empty(labels))
        return acl_exec_noop(ACL_OP_SoftmaxCrossEntropyWithLogits, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_SoftmaxCrossEntropyWithLogits, sce_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, features, "features", true);
    if (!rc) rc = acl_exec_add_input(ex, labels, "labels", true);
    if (!rc) rc = acl_exec_add_output(ex, loss, "loss");
    if (!rc) rc = acl_exec_add_output(ex, backprop, "backprop");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
