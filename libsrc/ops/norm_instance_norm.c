/* aclnnInstanceNorm (ops-nn norm/instance_norm_v3). Its op_api serves the Atlas inference series (Ascend310P)
 * only: after the parameter checks (NULL, dataFormat, the 310P dtype list FLOAT / FLOAT16 with every other tensor in
 * x's dtype, at most 8 dims) it refuses every other SoC with ACLNN_ERR_PARAM_INVALID, and its doc marks the Atlas A2
 * series unsupported. The emulated SoC is an Atlas A2 (Ascend910B), so a call that passes those checks gets 161002,
 * as on the hardware. */
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16};

static aclnnStatus dt_match(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_InstanceNorm(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta, const char *dataFormat,
                              double eps, aclTensor *y, aclTensor *mean, aclTensor *variance, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(y, "y");
    NN(mean, "mean");
    NN(variance, "variance");
    ACLNN_CHECK(dataFormat != NULL, ACLNN_ERR_PARAM_NULLPTR, "dataFormat must not be NULL.");
    const bool nhwc = strncmp(dataFormat, "NHWC", 4) == 0;
    ACLNN_CHECK(nhwc || strncmp(dataFormat, "NCHW", 4) == 0, ACLNN_ERR_PARAM_INVALID,
                "dataFormat should be NHWC or NCHW, but got %.16s.", dataFormat);
    ACL_TRY(acl_check_dtype_in(x, k_dt, ACL_COUNT_OF(k_dt), "x"));
    ACL_TRY(dt_match(gamma, x->dtype, "gamma"));
    ACL_TRY(dt_match(beta, x->dtype, "beta"));
    ACL_TRY(dt_match(y, x->dtype, "y"));
    ACL_TRY(dt_match(mean, x->dtype, "mean"));
    ACL_TRY(dt_match(variance, x->dtype, "variance"));
    ACL_TRY(nm_max_dim(x, 8, "x"));
    (void)eps, (void)workspaceSize, (void)executor;
    ACLNN_CHECK(false, ACLNN_ERR_PARAM_INVALID,
                "aclnnInstanceNorm supports only Ascend310P; the emulated SoC is an Atlas A2, Ascend910B (x, gamma, beta, y, mean "
                "and variance passed the parameter checks).");
    return ACLNN_ERR_PARAM_INVALID;
}
