/* aclnnStridedSlice (ops-math conversion/strided_slice) on Atlas A2.
 *
 * The op_api serves this interface on the Ascend 950 (RegBase) architecture only: on ASCEND910B its dtype step
 * refuses every call that passed the NULL checks ("only support ASCEND950", 161002) before any shape, mask or
 * dtype rule is looked at, and its UT case_error_soc expects exactly that on DAV_2201. The emulator is an A2, so
 * this file reproduces that contract and nothing more: there is no A2 behaviour beyond the refusal to emulate. */
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

aclnnStatus opws_StridedSlice(const aclTensor *self, const aclIntArray *begin, const aclIntArray *end,
                              const aclIntArray *strides, int64_t beginMask, int64_t endMask, int64_t ellipsisMask,
                              int64_t newAxisMask, int64_t shrinkAxisMask, aclTensor *out, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    (void)beginMask;
    (void)endMask;
    (void)ellipsisMask;
    (void)newAxisMask;
    (void)shrinkAxisMask;
    (void)workspaceSize;
    (void)executor;
    NN(self, "self");
    ACL_TRY(acl_check_int_array(begin, "begin"));
    ACL_TRY(acl_check_int_array(end, "end"));
    ACL_TRY(acl_check_int_array(strides, "strides"));
    NN(out, "out");
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                      "aclnnStridedSlice supports Ascend 950 only; on Atlas A2 (ASCEND910B) self and out are refused "
                      "whatever their dtype.");
}
