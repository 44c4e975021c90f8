/* aclnnLogSigmoidForward (ops-nn activation/log_sigmoid): upstream runs aclnnLogSigmoid's first phase on self and
 * out; `buffer` is neither checked nor written ("for an intermediate result, unused"). So does this one: the
 * executor is aclnnLogSigmoid's (the table's elementwise entry), relabelled so that only aclnnLogSigmoidForward
 * launches it. */
#include "aclnnop/aclnn_logsigmoid.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

aclnnStatus opws_LogSigmoidForward(const aclTensor *self, aclTensor *out, aclTensor *buffer, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    (void)buffer;
    aclnnStatus rc = aclnnLogSigmoidGetWorkspaceSize(self, out, workspaceSize, executor);
    if (rc == ACLNN_SUCCESS) (*executor)->op = ACL_OP_LogSigmoidForward;
    return rc;
}
