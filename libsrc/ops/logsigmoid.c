/* aclnnLogSigmoidForward and aclnnLogSigmoidBackward (ops-nn activation/log_sigmoid, logsigmoid_grad).
 *
 * LogSigmoidForward: upstream runs aclnnLogSigmoid's first phase on self and out; `buffer` is neither checked nor
 * written ("for an intermediate result, unused"). So does this one: the executor is aclnnLogSigmoid's (the table's
 * elementwise entry), relabelled so that only aclnnLogSigmoidForward launches it.
 *
 * LogSigmoidBackward: gradInput = gradOutput * sigmoid(-self) (buffer checked for NULL only, never read), the
 * op_api's checks in order (NULLs, dtype lists, gradOutput and self with gradInput's dtype, equal shapes); gathered
 * as double, computed in float (f32/f16/bf16 only), rounded once. One owner per element: the same bytes for any
 * OMP_NUM_THREADS. */
#include <math.h>

#include "aclnnop/aclnn_logsigmoid.h"
#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"
#include "ops/view_fold.h"

aclnnStatus opws_LogSigmoidForward(const aclTensor *self, aclTensor *out, aclTensor *buffer, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    (void)buffer;
    aclnnStatus rc = aclnnLogSigmoidGetWorkspaceSize(self, out, workspaceSize, executor);
    if (rc == ACLNN_SUCCESS) (*executor)->op = ACL_OP_LogSigmoidForward;
    return rc;
}

static aclnnStatus lsb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *gv = acl_exec_in(ex, 0), *xv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    double *g = md_load(gv, ACL_DOUBLE), *x = md_load(xv, ACL_DOUBLE);
    if (!g || !x) {
        free(g);
        free(x);
        return OOM;
    }
    const int64_t n = md_numel(o);
    ACL_FOR(acl_parallel_worth(n), i, 0, n, x[i] = (float)g[i] / (1.0f + expf((float)x[i])););
    md_store(x, ACL_DOUBLE, o);
    free(g);
    free(x);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_LogSigmoidBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *buffer,
                                    aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(buffer, "buffer");
    NN(gradInput, "gradInput");
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_LogSigmoidBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LogSigmoidBackward, "self"));
    ACL_TRY(acl_check_same_dtype(gradInput, "gradInput", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradInput, "gradInput", self, "self"));
    ACL_TRY(acl_check_same_shape(gradInput, "gradInput", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_shape(gradInput, "gradInput", self, "self"));
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self))
        return acl_exec_noop(ACL_OP_LogSigmoidBackward, workspaceSize, executor);
    /* the op_api has no rank limit: views of more than 8 dims run folded, each on its own (elements pair by their
     * row-major position) */
    aclTensor fold[3];
    const aclTensor *gv, *sv, *ov;
    ACL_TRY(vf_fit(gradOutput, "gradOutput", &fold[0], &gv));
    ACL_TRY(vf_fit(self, "self", &fold[1], &sv));
    ACL_TRY(vf_fit(gradInput, "gradInput", &fold[2], &ov));
    aclOpExecutor *ex = acl_exec_create(ACL_OP_LogSigmoidBackward, lsb_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gv, "gradOutput", true);
    if (!rc) rc = acl_exec_add_input(ex, sv, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, ov, "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
