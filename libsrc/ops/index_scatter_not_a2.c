/* The index-family scatters the Atlas A2 (ASCEND910B) does not run: each entry point does what the real one does
 * on the A2, up to and including its refusal (with a message); no executor is created, nothing is written.
 *
 * ScatterMax, ScatterMin, ScatterMul, ScatterDiv (tf.compat.v1.scatter_<op> semantics, hicann/ops-nn
 * index/scatter_<op>):
 * These ops have no op_api source: their aclnn entry points are generated from the OpDef
 * (op_host/scatter_<op>_def.cpp), which configures a kernel for "ascend950" only; the docs list "Atlas A2: not
 * supported". The generated first phase takes its required tensors (a NULL one: 161001, in API order) and then
 * looks for a kernel of the current SoC, which on the A2 does not exist: 161002 with a message. No executor is
 * created and varRef is never written. */
#include "common/dtype.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

static aclnnStatus tf_scatter_refuse(const char *op, const aclTensor *varRef, const aclTensor *indices,
                                     const aclTensor *updates) {
    NN(varRef, "varRef");
    NN(indices, "indices");
    NN(updates, "updates");
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                      "aclnn%s: not supported on Atlas A2 (ASCEND910B): the op's OpDef configures a kernel for "
                      "ascend950 only (varRef %s, indices %s).",
                      op, acl_dtype_name(varRef->dtype), acl_dtype_name(indices->dtype));
}

#define TF_SCATTER_OP(Name)                                                                                        \
    aclnnStatus opws_##Name(aclTensor *varRef, const aclTensor *indices, const aclTensor *updates, bool useLocking, \
                            uint64_t *workspaceSize, aclOpExecutor **executor) {                                   \
        (void)useLocking;                                                                                          \
        (void)workspaceSize;                                                                                       \
        (void)executor;                                                                                            \
        return tf_scatter_refuse(#Name, varRef, indices, updates);                                                 \
    }

TF_SCATTER_OP(ScatterMax)
TF_SCATTER_OP(ScatterMin)
TF_SCATTER_OP(ScatterMul)
TF_SCATTER_OP(ScatterDiv)

/* InplaceQuantScatterV2 (index/quant_update_scatter/op_api/aclnn_quant_scatter_v2.cpp): CheckParams starts with
 * the platform check (regbase NPU archs only, i.e. the 950 series), before the NULL checks: every call on the A2
 * fails with 161002 (the docs: "Atlas A2: not supported"). */
aclnnStatus opws_InplaceQuantScatterV2(aclTensor *selfRef, const aclTensor *indices, const aclTensor *updates,
                                       const aclTensor *quantScales, const aclTensor *quantZeroPoints, int64_t axis,
                                       int64_t quantAxis, int64_t reduction, const char *roundMode,
                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                      "aclnnInplaceQuantScatterV2: support for Ascend910B (Atlas A2) is not implemented: the op "
                      "runs on regbase NPU archs (ascend950) only.");
}
