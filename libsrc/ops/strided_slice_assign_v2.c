/* aclnnStridedSliceAssignV2 (ops-math conversion/strided_slice_assign_v2): varRef[begin : end : strides] =
 * inputValue, in place.
 *
 * Its aclnn interface is generated from the op definition, so the first phase checks what that interface checks -
 * NULL required arguments (161001), the dtype combinations of the definition (varRef in the list, inputValue the
 * same dtype: 161002) - and then what the tiling checks, which fail the first phase with 561002: rank of varRef
 * equal to inputValue's and in [1, 8]; axes in [-rank, rank) without duplicates; begin/end/strides (index i of
 * axes, or of the dims without axes; missing entries are 0 as in the tiling's zeroed arrays) with begin and end
 * wrapped once and clamped to [0, dim], inputValue's dim i == max(0, ceil((end - begin) / stride)); the last
 * dim's stride 1. The docs require positive strides (the tiling divides by them; the kernel steps by them): a
 * stride <= 0 is refused with 561002 too. An empty varRef is an early success (nothing to write). */
#include "common/shape.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

#define SSA_TILING 561002 /* ACLNN_ERR_INNER_TILING_ERROR */

static int64_t at(const aclIntArray *a, uint64_t i) { return a && i < a->size ? a->v[i] : 0; }

static int64_t clamp_index(int64_t v, int64_t dim) {
    if (v < 0) v = v < -dim ? 0 : v + dim; /* v + dim without overflow: v >= -dim here */
    return v < 0 ? 0 : (v > dim ? dim : v);
}

aclnnStatus opws_StridedSliceAssignV2(aclTensor *varRef, const aclTensor *inputValue, const aclIntArray *begin,
                                      const aclIntArray *end, const aclIntArray *strides,
                                      const aclIntArray *axesOptional, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    NN(varRef, "varRef");
    NN(inputValue, "inputValue");
    ACL_TRY(acl_check_int_array(begin, "begin"));
    ACL_TRY(acl_check_int_array(end, "end"));
    ACL_TRY(acl_check_int_array(strides, "strides"));
    ACL_TRY(acl_check_dtype_in(varRef, ACL_DT_LIST_StridedSliceAssignV2, "varRef"));
    ACL_TRY(acl_check_dtype_in(inputValue, ACL_DT_LIST_StridedSliceAssignV2, "inputValue"));
    ACL_TRY(acl_check_same_dtype(varRef, "varRef", inputValue, "inputValue"));
    if (acl_tensor_empty(varRef)) return acl_exec_noop(ACL_OP_StridedSliceAssignV2, workspaceSize, executor);
    const int64_t nd = (int64_t)varRef->ndim;
    ACLNN_CHECK(nd == (int64_t)inputValue->ndim, SSA_TILING, "varRef has %lld dims, inputValue %llu: they must match.",
                (long long)nd, (unsigned long long)inputValue->ndim);
    ACLNN_CHECK(nd >= 1 && nd <= 8, SSA_TILING, "varRef must have 1 to 8 dims, has %lld.", (long long)nd);
    /* the tiling copies begin/end/strides into 8-entry arrays: a longer one would overrun them */
    ACLNN_CHECK(begin->size <= 8 && end->size <= 8 && strides->size <= 8, ACLNN_ERR_PARAM_INVALID,
                "begin, end and strides have at most 8 entries (%llu, %llu, %llu).", (unsigned long long)begin->size,
                (unsigned long long)end->size, (unsigned long long)strides->size);
    int64_t b[8], e[8], s[8], want[8];
    if (axesOptional) {
        bool used[8] = {false};
        for (int64_t d = 0; d < nd; d++) {
            b[d] = 0;
            e[d] = varRef->dims[d];
            s[d] = 1;
        }
        for (uint64_t i = 0; i < axesOptional->size; i++) {
            int64_t ax = axesOptional->v[i], a = ax < 0 ? ax + nd : ax;
            ACLNN_CHECK(ax >= -nd && ax < nd, SSA_TILING, "axesOptional[%llu] = %lld is out of range [-%lld, %lld).",
                        (unsigned long long)i, (long long)ax, (long long)nd, (long long)nd);
            ACLNN_CHECK(!used[a], SSA_TILING, "axesOptional[%llu] = %lld is duplicated.", (unsigned long long)i,
                        (long long)ax);
            used[a] = true;
            b[a] = at(begin, i);
            e[a] = at(end, i);
            s[a] = at(strides, i);
        }
    } else {
            for (int64_t d = 0; d < nd; d++) {
            b[d] = at(begin, (uint64_t)d);
            e[d] = at(end, (uint64_t)d);
            s[d] = at(strides, (uint64_t)d);
        }
    }
    for (int64_t d = 0; d < nd; d++) {
        const int64_t n = varRef->dims[d];
        ACLNN_CHECK(s[d] > 0, SSA_TILING, "strides of dim %lld is %lld: strides must be positive.", (long long)d,
                    (long long)s[d]);
        b[d] = clamp_index(b[d], n);
        e[d] = clamp_index(e[d], n);
        want[d] = e[d] > b[d] ? (e[d] - b[d] - 1) / s[d] + 1 : 0;
        ACLNN_CHECK(inputValue->dims[d] == want[d], SSA_TILING,
                    "inputValue dim %lld is %lld; the slice [%lld:%lld:%lld] of varRef has %lld.", (long long)d,
                    (long long)inputValue->dims[d], (long long)b[d], (long long)e[d], (long long)s[d],
                    (long long)want[d]);
    }
    ACLNN_CHECK(s[nd - 1] == 1, SSA_TILING, "the stride of the last dim must be 1, got %lld.", (long long)s[nd - 1]);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_StridedSliceAssignV2);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    /* io: inputs in API order (varRef is read and written: its only slot is the output), then varRef */
    aclnnStatus rc = acl_exec_add_input(ex, inputValue, "inputValue", !acl_tensor_empty(inputValue));
    if (!rc) rc = acl_exec_add_output(ex, varRef, "varRef");
    if (!rc && !acl_tensor_empty(inputValue)) {
        const acl_view *iv = &ex->io[0], *vr = &ex->io[1];
        int64_t doff = 0, dst[ACL_MAX_VIEW_RANK];
        for (int d = 0; d < (int)nd; d++) {
            doff += b[d] * vr->strides[d]; /* b < dim: within the view */
            /* (want - 1) * s + b < dim: the step stays within the view (a single element needs no step) */
            dst[d] = want[d] > 1 ? vr->strides[d] * s[d] : 0;
        }
        rc = cp_add(ex, 0, 0, iv->strides, 1, doff, dst, iv->dims, iv->ndim);
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
