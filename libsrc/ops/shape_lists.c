/* Tensor-list shape ops as copy plans: Cat, Stack (a list in), SplitTensor, SplitWithSize (a list out). */
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

static aclnnStatus check_list(const aclTensorList *l, const char *name) {
    ACLNN_CHECK(l != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    ACLNN_CHECK(acl_reg_is(l, ACL_KIND_TENSOR_LIST), ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensorList.", name);
    for (uint64_t i = 0; i < l->size; i++) ACL_TRY(acl_check_tensor(l->v[i], name));
    return ACLNN_SUCCESS;
}

static bool legacy_empty(const aclTensor *t) { return t->ndim == 1 && t->dims[0] == 0; } /* skipped by cat */

/* Cat and Stack: every input copied into its place of out along dim (stack: a new dim of size 1 per input) */
static aclnnStatus cat_stack(int op, const aclTensorList *tensors, int64_t dim, aclTensor *out, bool stack,
                             uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(check_list(tensors, "tensors"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(ws != NULL && exo != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.");
    ACLNN_CHECK(tensors->size > 0, ACLNN_ERR_PARAM_INVALID, "tensors must not be empty.");
    const aclTensor *ref = NULL;
    for (uint64_t i = 0; i < tensors->size; i++)
        if (!legacy_empty(tensors->v[i]) || stack) { ref = tensors->v[i]; break; }
    if (!ref) ref = tensors->v[0];
    const int64_t r = (int64_t)ref->ndim + (stack ? 1 : 0);
    ACLNN_CHECK(r <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "tensors have too many dims.");
    int64_t d = cp_wrap_dim(dim, r);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range for %lld dims.", (long long)dim, (long long)r);
    int64_t want[ACL_MAX_VIEW_RANK], along = 0;
    for (uint64_t i = 0; i < tensors->size; i++) {
        const aclTensor *t = tensors->v[i];
        ACLNN_CHECK(acl_dtype_size(t->dtype) > 0, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] has an unsupported dtype.",
                    (unsigned long long)i);
        if (!stack && legacy_empty(t)) continue;
        ACLNN_CHECK(t->ndim == ref->ndim, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] has %llu dims, tensors[0] %llu.",
                    (unsigned long long)i, (unsigned long long)t->ndim, (unsigned long long)ref->ndim);
        for (uint64_t k = 0; k < t->ndim; k++) {
            bool catdim = !stack && (int64_t)k == d;
            ACLNN_CHECK(catdim || t->dims[k] == ref->dims[k], ACLNN_ERR_PARAM_INVALID,
                        "tensors[%llu] dim %llu is %lld, expected %lld.", (unsigned long long)i, (unsigned long long)k,
                        (long long)t->dims[k], (long long)ref->dims[k]);
        }
        along += stack ? 1 : t->dims[d];
    }
    for (int64_t k = 0, j = 0; k < r; k++) {
        if (k == d) {
            want[k] = along;
            if (!stack) j++;
        } else {
            want[k] = ref->dims[j++];
        }
    }
    bool same = (int64_t)out->ndim == r;
    for (int64_t k = 0; same && k < r; k++) same = out->dims[k] == want[k];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "out has the wrong shape for this %s.", stack ? "stack" : "cat");
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < tensors->size && !rc; i++)
        rc = acl_exec_add_input(ex, tensors->v[i], "tensors", !acl_tensor_empty(tensors->v[i]));
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    const int n = (int)tensors->size;
    int64_t pos = 0;
    for (int i = 0; i < n && !rc; i++) {
        const acl_view *s = &ex->io[i], *o = &ex->io[n];
        if (!stack && legacy_empty(tensors->v[i])) continue;
        if (acl_tensor_empty(tensors->v[i])) continue;
        int64_t dst[ACL_MAX_VIEW_RANK], dims[ACL_MAX_VIEW_RANK];
        if (stack) {
            for (int64_t k = 0, j = 0; k < r; k++) {
                if (k == d) continue;
                dst[j] = o->strides[k];
                dims[j] = o->dims[k];
                j++;
            }
            rc = cp_add(ex, i, 0, s->strides, n, pos * o->strides[d], dst, dims, s->ndim);
            pos++;
        } else {
            rc = cp_add(ex, i, 0, s->strides, n, pos * o->strides[d], o->strides, s->dims, s->ndim);
            pos += s->dims[d];
        }
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_Cat(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cat_stack(ACL_OP_Cat, tensors, dim, out, false, workspaceSize, executor);
}

aclnnStatus opws_Stack(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cat_stack(ACL_OP_Stack, tensors, dim, out, true, workspaceSize, executor);
}

/* Split: out[i] = self[..., start_i : start_i + size_i, ...] along dim */
static aclnnStatus split(int op, const aclTensor *self, const int64_t *sizes, uint64_t n, int64_t d, aclTensorList *out,
                         uint64_t *ws, aclOpExecutor **exo) {
    ACLNN_CHECK(out->size == n, ACLNN_ERR_PARAM_INVALID, "out has %llu tensors; the split makes %llu.",
                (unsigned long long)out->size, (unsigned long long)n);
    for (uint64_t i = 0; i < n; i++) {
        const aclTensor *t = out->v[i];
        bool same = t->ndim == self->ndim && t->dtype == self->dtype;
        for (uint64_t k = 0; same && k < self->ndim; k++)
            same = t->dims[k] == ((int64_t)k == d ? sizes[i] : self->dims[k]);
        ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "out[%llu] has the wrong shape or dtype.", (unsigned long long)i);
    }
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !acl_tensor_empty(self));
    for (uint64_t i = 0; i < n && !rc; i++) rc = acl_exec_add_output(ex, out->v[i], "out");
    int64_t pos = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        const acl_view *s = &ex->io[0], *o = &ex->io[1 + i];
        if (sizes[i] > 0 && !acl_tensor_empty(out->v[i]))
            rc = cp_add(ex, 0, pos * s->strides[d], s->strides, (int)(1 + i), 0, o->strides, o->dims, o->ndim);
        pos += sizes[i];
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus split_prologue(const aclTensor *self, aclTensorList *out, int64_t dim, int64_t *d, uint64_t *ws,
                                  aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(check_list(out, "out"));
    ACLNN_CHECK(ws != NULL && exo != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.");
    ACLNN_CHECK(self->ndim >= 1 && self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "self must have 1 to %d dims.", ACL_MAX_VIEW_RANK);
    *d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(*d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range.", (long long)dim);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SplitTensor(const aclTensor *self, uint64_t splitSections, int64_t dim,
                             aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    int64_t d = 0;
    ACL_TRY(split_prologue(self, out, dim, &d, workspaceSize, executor));
    ACLNN_CHECK(splitSections > 0, ACLNN_ERR_PARAM_INVALID, "splitSections must be positive.");
    ACLNN_CHECK(self->dims[d] >= 0, ACLNN_ERR_PARAM_INVALID, "self has a negative dim.");
    const uint64_t len = (uint64_t)self->dims[d], sec = splitSections; /* unsigned: sec may exceed INT64_MAX */
    const uint64_t n = len == 0 ? 1 : len / sec + (len % sec != 0);
    ACLNN_CHECK(n <= 4096, ACLNN_ERR_PARAM_INVALID, "the split makes too many tensors.");
    int64_t sizes[4096];
    for (uint64_t i = 0; i < n; i++) sizes[i] = (int64_t)(len - i * sec < sec ? len - i * sec : sec);
    return split(ACL_OP_SplitTensor, self, sizes, n, d, out, workspaceSize, executor);
}

aclnnStatus opws_SplitWithSize(const aclTensor *self, const aclIntArray *splitSize, int64_t dim,
                               aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(splitSize, "splitSize"));
    int64_t d = 0;
    ACL_TRY(split_prologue(self, out, dim, &d, workspaceSize, executor));
    int64_t sum = 0;
    for (uint64_t i = 0; i < splitSize->size; i++) {
        ACLNN_CHECK(splitSize->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "splitSize[%llu] is negative.", (unsigned long long)i);
        sum += splitSize->v[i];
    }
    ACLNN_CHECK(sum == self->dims[d], ACLNN_ERR_PARAM_INVALID, "splitSize sums to %lld; self's dim %lld is %lld.",
                (long long)sum, (long long)d, (long long)self->dims[d]);
    return split(ACL_OP_SplitWithSize, self, splitSize->v, splitSize->size, d, out, workspaceSize, executor);
}
