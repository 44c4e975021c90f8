/* aclnnFlip (ops-nn index/reverse_v2): out = self reversed along `dims`, one copy-plan item whose source walks the
 * flipped dims backwards (offset at the last element, negated stride). Checks in the op_api's order: NULL
 * (self, dims, out), out's dtype == self's, self's dtype in the A2 list, out's shape == self's, rank <= 8, every
 * dim in [-r, r) (r = max(rank, 1)) and none twice; then the empty early return. */
#include "common/dtype.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

aclnnStatus opws_Flip(const aclTensor *self, const aclIntArray *dims, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(dims, "dims"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as self's %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(self->dtype));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Flip, "self"));
    ACL_TRY(acl_check_same_shape(out, "out", self, "self"));
    ACLNN_CHECK(self->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "self has %llu dims; at most 8 are supported.",
                (unsigned long long)self->ndim);
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    const int64_t r = self->ndim ? (int64_t)self->ndim : 1;
    uint64_t mask = 0;
    for (uint64_t i = 0; i < dims->size; i++) {
        const int64_t v = dims->v[i];
        ACLNN_CHECK(v >= -r && v < r, ACLNN_ERR_PARAM_INVALID,
                    "dims[%llu] = %lld is out of range (expected to be in range of [%lld, %lld]).",
                    (unsigned long long)i, (long long)v, (long long)-r, (long long)(r - 1));
        const int64_t d = v < 0 ? v + r : v;
        ACLNN_CHECK(!(mask >> d & 1u), ACLNN_ERR_PARAM_INVALID, "dims: dim %lld appears multiple times.",
                    (long long)d);
        mask |= 1ull << d;
    }
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Flip, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_Flip);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) {
        const acl_view *s = &ex->io[0], *o = &ex->io[1];
        int64_t sst[ACL_MAX_VIEW_RANK], soff = 0;
        for (int k = 0; k < s->ndim; k++) {
            const bool f = (mask >> k & 1u) && s->dims[k] > 1;
            sst[k] = f ? -s->strides[k] : s->strides[k];
            if (f) soff += (s->dims[k] - 1) * s->strides[k];
        }
        rc = cp_add(ex, 0, soff, sst, 1, 0, o->strides, o->dims, o->ndim);
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
