/* Check hooks of the complex-number table ops (tools/optable/math_complex.py). */
#ifndef PYACLNN_OPS_EW_MATH_COMPLEX_H
#define PYACLNN_OPS_EW_MATH_COMPLEX_H

#include "common/dtype.h"
#include "common/status.h"
#include "ops/elementwise.h"

/* aclnnComplex: out is the complex dtype of the parts' dtype (fp16 -> COMPLEX32, fp32 -> COMPLEX64,
 * fp64 -> COMPLEX128) */
static inline aclnnStatus ew_check_complex_pair(ew_ctx *c) {
    const aclTensor *real = c->args[0], *out = c->args[c->iout];
    aclDataType want = real->dtype == ACL_FLOAT16 ? ACL_COMPLEX32 : real->dtype == ACL_FLOAT ? ACL_COMPLEX64
                                                                                             : ACL_COMPLEX128;
    ACLNN_CHECK(out->dtype == want, ACLNN_ERR_PARAM_INVALID,
                "Input dtype and out dtype must be paired. Current dtype is %s and %s.", acl_dtype_name(real->dtype),
                acl_dtype_name(out->dtype));
    return ACLNN_SUCCESS;
}

#endif
