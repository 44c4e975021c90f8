/* aclnnSoftmaxCrossEntropyWithLogits (ops-nn activation/softmax_cross_entropy_with_logits): features and labels of
 * shape (N, C); per row, loss = -sum(labels * log_softmax(features)) and backprop = softmax(features) - labels.
 *
 * Validation follows the op_api source in its order (NULLs, the four dtype lists, loss and backprop with features'
 * dtype, ranks <= 8, features and labels 2-d); the output shapes the op_api leaves to its ViewCopy are checked here:
 * labels as features (a broadcastable labels is accepted, as the kernel's infershape does), loss (N), backprop
 * (N, C). Compute: each row owned by one thread and computed in fp32 by the fixed-lane row passes of
 * kernels/softmax_rows.h (labels first cast to features' dtype; lse = max + log(sum exp(x - max)), loss
 * -sum(labels * (x - lse)), backprop exp(x - lse) - labels), rounded once. The same bytes for any OMP_NUM_THREADS
 * and SIMD level. */
#include <math.h>

#include <omp.h>
#include <stdlib.h>

#include "common/parallel.h"
#include "kernels/softmax_rows.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

static aclnnStatus sce_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *fv = acl_exec_in(ex, 0), *loss = acl_exec_out(ex, 0), *bp = acl_exec_out(ex, 1);
    const acl_view lv = md_broadcast_view(acl_exec_in(ex, 1), fv->dims, fv->ndim);
    const aclDataType dt = fv->dtype;
    const int64_t n = fv->dims[0], c = fv->dims[1];
    const bool par = acl_parallel_worth(n * c) && n > 1;
    const int nthr = par ? acl_max_threads() : 1;
    const size_t per = ((size_t)c * (3 * sizeof(float) + sizeof(uint16_t)) + 127) & ~(size_t)63; /* 64-byte aligned slices */
    double *lo = md_alloc(n, sizeof(double));
    char *scratch = (uint64_t)c < (SIZE_MAX / 16) / (uint64_t)nthr ? acl_team_alloc(nthr, (int64_t)per, 1, 0) : NULL;
    if (!lo || !scratch) {
        free(lo);
        free(scratch);
        return OOM;
    }
    const smr_ops *k = smr_get();
    const size_t fes = acl_dtype_size(dt), les = acl_dtype_size(lv.dtype), bes = acl_dtype_size(bp->dtype);
#pragma omp parallel num_threads(nthr) if (par)
    {
        float *f0 = (float *)(scratch + per * (size_t)omp_get_thread_num()), *f1 = f0 + c, *f2 = f1 + c;
        uint16_t *h = (uint16_t *)(f2 + c);
#pragma omp for schedule(static)
        for (int64_t i = 0; i < n; i++) {
            const float *x = smr_line_in(k, fv->base + i * fv->strides[0] * (int64_t)fes, dt, fv->strides[1], c, dt,
                                         f0, h);
            /* labels cast to features' dtype first */
            const float *y = smr_line_in(k, lv.base + i * lv.strides[0] * (int64_t)les, lv.dtype, lv.strides[1], c,
                                         dt, f1, h);
            const float m = k->max(x, c), s = k->expsum(x, m, NULL, c);
            if (s == s) k->sub2(f2, x, m + logf(s), 0.0f, c); /* log-softmax x - lse */
            else
                for (int64_t j = 0; j < c; j++) f2[j] = NAN;
            lo[i] = -k->dot(y, f2, c);
            k->expscale(f2, f2, 1.0f, c); /* softmax - labels */
            for (int64_t j = 0; j < c; j++) f2[j] -= y[j];
            smr_line_out(k, f2, bp->base + i * bp->strides[0] * (int64_t)bes, bp->dtype, bp->strides[1], c, dt, h);
        }
    }
    md_store(lo, ACL_DOUBLE, loss);
    free(lo);
    free(scratch);
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
