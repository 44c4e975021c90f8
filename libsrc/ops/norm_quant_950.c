/* Quantised norms of ops-nn with no Atlas A2 (ASCEND910B) path; this emulator models the A2, so their first phase
 * fails as the real one does there.
 * aclnnAddLayerNormQuant (norm/add_layer_norm_quant): its op_api's first check refuses every arch that is not
 *   regbase (ascend950), before the NULL checks: 161002.
 * aclnnRmsNormGradQuant (norm/rms_norm_grad_quant): the op_api checks the NULLs (161001), returns an empty executor
 *   when gamma has a zero dimension, and otherwise queues a kernel that only ascend950 has: 561103. */
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

aclnnStatus opws_AddLayerNormQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                   const aclTensor *beta, const aclTensor *biasOptional,
                                   const aclTensor *scales1Optional, const aclTensor *scales2Optional,
                                   const aclTensor *zeroPoints1Optional, const aclTensor *zeroPoints2Optional,
                                   const char *quantMode, double epsilon, bool additionalOutput, bool divMode,
                                   aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut, aclTensor *outScales1Out,
                                   aclTensor *outScales2Out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "AddLayerNormQuant is not implemented for this npu arch (ASCEND910B, "
                      "Atlas A2): the op supports regbase archs (ascend950) only; use AddLayerNormQuantV2 on the A2.");
}

aclnnStatus opws_RmsNormGradQuant(const aclTensor *dy, const aclTensor *x, const aclTensor *rstd,
                                  const aclTensor *gamma, const aclTensor *scalesX, const aclTensor *offsetXOptional,
                                  const char *quantMode, bool divMode, aclTensor *dxOut, aclTensor *dgammaOut,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(dy, "dy");
    NN(x, "x");
    NN(rstd, "rstd");
    NN(gamma, "gamma");
    NN(scalesX, "scalesX");
    NN(dxOut, "dxOut");
    NN(dgammaOut, "dgammaOut");
    for (uint64_t i = 0; i < gamma->ndim; i++)
        if (gamma->dims[i] == 0) return acl_exec_noop(ACL_OP_RmsNormGradQuant, workspaceSize, executor);
    return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "RmsNormGradQuant has no kernel on this SoC (ASCEND910B; the op is "
                      "built for ascend950 only): adding it to the launch list failed.");
}
