/* aclnnNorm and aclnnLinalgVectorNorm (ops-nn norm/lp_norm_v2): the p-norm of self over `dim` (every dim when
 * empty), keepdim. aclnnLinalgVectorNorm first checks out's dtype == its `dtype` argument and refuses complex
 * self / out, and returns at once (zeros into a non-empty out) when self or out is empty; the rest is shared.
 *
 * Checks in the A2 branch's order: NULL (self, pScalar, dim, out); no dtype list on DAV_2201, only that
 * PromoteType(self, out) exists; each dim in [-r, r) (r = max(rank, 1)) and none twice; ranks <= 8; out's shape
 * the reduced shape. Then an empty self fills out with 0. p is pScalar as float; inf (or exactly INT_MAX as a
 * float) is the max of |x|, -inf (or INT_MIN) the min, 0 the count of non-zeros. The kernel (LpNormV2) reads self
 * as float16/float32/bfloat16 and writes out's dtype when out is self's dtype or float32; any other pair goes
 * through float32 (self cast to float32, the norm, a cast to out's dtype): the same path here. */
#include <math.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/reduce_norm.h"

static bool is_half_or_float(aclDataType d) { return d == ACL_FLOAT || d == ACL_FLOAT16 || d == ACL_BF16; }

/* from the dim checks on: dims, ranks, out's shape, p, the executor */
static aclnnStatus norm_tail(int op, const aclTensor *self, const aclScalar *pScalar, const aclIntArray *dim,
                             bool keepdim, aclTensor *out, const char *dname, bool empty_out_noop,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    const int64_t r = self->ndim ? (int64_t)self->ndim : 1;
    uint64_t mask = 0;
    for (uint64_t i = 0; i < dim->size; i++) {
        const int64_t v = dim->v[i];
        ACLNN_CHECK(v >= -r && v < r, ACLNN_ERR_PARAM_INVALID,
                    "%s: provided dim %lld not in the range of input tensor size %lld.", dname, (long long)v,
                    (long long)r);
        const int64_t d = v < 0 ? v + r : v;
        ACLNN_CHECK(!(mask >> d & 1u), ACLNN_ERR_PARAM_INVALID, "%s: dim %lld appears multiple times in the list of dims.",
                    dname, (long long)v);
        mask |= 1ull << d;
    }
    ACLNN_CHECK(self->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, more than 8.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, more than 8.",
                (unsigned long long)out->ndim);
    if (dim->size == 0) mask = self->ndim >= 64 ? ~0ull : (1ull << self->ndim) - 1;
    int64_t want[ACL_MAX_VIEW_RANK];
    int n = 0;
    for (uint64_t k = 0; k < self->ndim; k++) {
        if (!(mask >> k & 1u)) want[n++] = self->dims[k];
        else if (keepdim) want[n++] = 1;
    }
    bool same = out->ndim == (uint64_t)n;
    for (int k = 0; same && k < n; k++) same = out->dims[k] == want[k];
    if (!same) {
        char got[256];
        acl_shape_str(out, got, sizeof got);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out shape %s is not the reduced shape of self.", got);
    }
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    if (empty_out_noop && acl_tensor_empty(out)) return acl_exec_noop(op, workspaceSize, executor);
    double pv = 0;
    acl_convert(pScalar->bytes, pScalar->dtype, 1, &pv, ACL_DOUBLE, 1, 1);
    float pf = (float)pv;
    double p = pf;
    if (pf == INFINITY || pf == 2147483648.0f) p = INFINITY;
    else if (pf == -INFINITY || pf == -2147483648.0f) p = -INFINITY;
    /* LpNormV2 writes out's dtype directly for (f16 -> f16/f32), (f32 -> f32), (bf16 -> bf16/f32) */
    const aclDataType sd = self->dtype, od = out->dtype;
    const bool direct = is_half_or_float(sd) && is_half_or_float(od) && (od == ACL_FLOAT || od == sd);
    return acl_reduce_norm(op, self, mask, keepdim, out, p, direct ? od : ACL_FLOAT, workspaceSize, executor);
}

aclnnStatus opws_Norm(const aclTensor *self, const aclScalar *pScalar, const aclIntArray *dim, bool keepdim,
                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACLNN_CHECK(pScalar != NULL, ACLNN_ERR_PARAM_NULLPTR, "pScalar must not be NULL.");
    ACL_TRY(acl_check_int_array(dim, "dim"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(acl_promote(self->dtype, out->dtype) != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "Input dtype %s (self) and output dtype %s (out) can not promote dtype.", acl_dtype_name(self->dtype),
                acl_dtype_name(out->dtype));
    return norm_tail(ACL_OP_Norm, self, pScalar, dim, keepdim, out, "dim", false, workspaceSize, executor);
}

aclnnStatus opws_LinalgVectorNorm(const aclTensor *self, const aclScalar *ord, const aclIntArray *dims,
                                  bool keepDims, const aclDataType dtype, aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACLNN_CHECK(ord != NULL, ACLNN_ERR_PARAM_NULLPTR, "ord must not be NULL.");
    ACL_TRY(acl_check_int_array(dims, "dims"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the dtype argument %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(dtype));
    ACLNN_CHECK(!acl_dt_is_complex(self->dtype) && !acl_dt_is_complex(out->dtype), ACLNN_ERR_PARAM_INVALID,
                "self / out: the operator does not support the complex number type.");
    ACLNN_CHECK(acl_promote(self->dtype, out->dtype) != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "Input dtype %s (self) and output dtype %s (out) can not promote dtype.", acl_dtype_name(self->dtype),
                acl_dtype_name(out->dtype));
    return norm_tail(ACL_OP_LinalgVectorNorm, self, ord, dims, keepDims, out, "dims", true, workspaceSize, executor);
}
