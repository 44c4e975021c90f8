/* Promotion hooks of the arithmetic table ops (tools/optable/math_arith.py). */
#ifndef PYACLNN_OPS_EW_MATH_ARITH_H
#define PYACLNN_OPS_EW_MATH_ARITH_H

#include "common/dtype.h"
#include "common/status.h"
#include "ops/elementwise.h"

/* aclnnAddV3 (A2): with a complex operand PromoteType(other, self); a floating other computes in FLOAT; a DOUBLE
 * self with a FLOAT out in FLOAT; a floating self or a BOOL other PromoteType(other, self); else other's dtype. */
static inline aclnnStatus ew_promote_addv3(ew_ctx *c) {
    const aclScalar *self = c->args[0];
    const aclTensor *other = c->args[1], *out = c->args[c->iout];
    aclDataType s = self->dtype, o = other->dtype;
    if (acl_dt_is_complex(o) || acl_dt_is_complex(s)) c->pdt = acl_promote(o, s);
    else if (acl_dt_is_float(o)) c->pdt = ACL_FLOAT;
    else if (s == ACL_DOUBLE && out->dtype == ACL_FLOAT) c->pdt = ACL_FLOAT;
    else if (acl_dt_is_float(s) || o == ACL_BOOL) c->pdt = acl_promote(o, s);
    else c->pdt = o;
    return ACLNN_SUCCESS;
}

#endif
