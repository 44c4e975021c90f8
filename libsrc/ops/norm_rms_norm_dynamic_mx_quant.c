/* aclnnRmsNormDynamicMxQuant and aclnnAddRmsNormDynamicMxQuant (ops-nn norm/rms_norm_dynamic_mx_quant,
 * norm/add_rms_norm_dynamic_mx_quant): MX-format quantisation, with a kernel for ascend950 only (the op
 * definitions' only AI Core config). Their op_api checks the NULLs (161001) and returns success for an empty batch; otherwise queuing the kernel fails on ASCEND910B and
 * the first phase returns ACLNN_ERR_INNER_NULLPTR (561103). This emulator models the A2, so that is what it does. */
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

/* the leading dims of x (those before gamma's) hold a zero: the op_api's empty path */
static bool batch_empty(const aclTensor *x, const aclTensor *gamma) {
    for (uint64_t i = 0; i + gamma->ndim < x->ndim; i++)
        if (x->dims[i] == 0) return true;
    return false;
}

static aclnnStatus no_kernel(const char *op) {
    return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "%s has no kernel on this SoC (ASCEND910B; the op is built for "
                      "ascend950 only): adding it to the launch list failed.", op);
}

aclnnStatus opws_RmsNormDynamicMxQuant(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta,
                                       double epsilon, int64_t scaleAlg, char *roundMode, int64_t dstType,
                                       bool outputRstd, aclTensor *yOut, aclTensor *mxscaleOut, aclTensor *rstdOut,
                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(yOut, "yOut");
    NN(mxscaleOut, "mxscaleOut");
    if (outputRstd) NN(rstdOut, "rstdOut");
    if (batch_empty(x, gamma)) return acl_exec_noop(ACL_OP_RmsNormDynamicMxQuant, workspaceSize, executor);
    return no_kernel("RmsNormDynamicMxQuant");
}

aclnnStatus opws_AddRmsNormDynamicMxQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                          const aclTensor *beta, double epsilon, int64_t scaleAlg, char *roundMode,
                                          int64_t dstType, bool outputRstd, aclTensor *yOut, aclTensor *xOut,
                                          aclTensor *mxscaleOut, aclTensor *rstdOut, uint64_t *workspaceSize,
                                          aclOpExecutor **executor) {
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(yOut, "yOut");
    NN(xOut, "xOut");
    NN(mxscaleOut, "mxscaleOut");
    if (outputRstd) NN(rstdOut, "rstdOut");
    if (batch_empty(x1, gamma)) return acl_exec_noop(ACL_OP_AddRmsNormDynamicMxQuant, workspaceSize, executor);
    return no_kernel("AddRmsNormDynamicMxQuant");
}
