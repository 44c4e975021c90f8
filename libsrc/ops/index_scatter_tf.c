/* ScatterMax, ScatterMin, ScatterMul, ScatterDiv (tf.compat.v1.scatter_<op> semantics, hicann/ops-nn
 * index/scatter_<op>): not available on the Atlas A2 (ASCEND910B).
 *
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
