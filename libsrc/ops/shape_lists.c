/* Tensor-list shape ops as copy plans (copy_plan.h): Cat, Stack (a list in), SplitTensor, SplitWithSize (a list
 * out). Validation follows each real op_api in order and codes; a result the real op would ViewCopy into an out of
 * another shape is refused with 561103, as l0op::ViewCopy returns nullptr. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/copy_plan.h"

static aclnnStatus max_dim(const aclTensor *t, int max, const char *name) {
    ACLNN_CHECK(t->ndim <= (uint64_t)max, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                name, (unsigned long long)t->ndim, max);
    return acl_check_nonneg_dims(t, name);
}

static bool shape_is(const aclTensor *t, const int64_t *dims, int nd) {
    if ((int)t->ndim != nd) return false;
    for (int k = 0; k < nd; k++)
        if (t->dims[k] != dims[k]) return false;
    return true;
}

/* CheckShapeAndScalarSame: equal shapes, or one element each */
static bool same_or_scalar(const int64_t *dims, int nd, const aclTensor *out) {
    if (shape_is(out, dims, nd)) return true;
    int64_t a = 1, b = 0;
    return acl_numel(dims, nd, &a) && acl_numel(out->dims, (int64_t)out->ndim, &b) && a == 1 && b == 1;
}


#define VIEWCOPY_FAIL(name, why)                                                                               \
    ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "%s: the result can not be copied into it (%s); ViewCopy failed.", name, \
               why)

/* out (one element) = the single element of io slot src */
static aclnnStatus single_item(aclOpExecutor *ex, int src, int dst) {
    const acl_view *o = &ex->io[dst];
    int64_t zero[ACL_MAX_VIEW_RANK] = {0};
    return cp_add(ex, src, 0, zero, dst, 0, o->strides, o->dims, o->ndim);
}

/* ---------------------------------------------------------------- Cat / Stack */
/* The listed tensors (inputs 0..n-1, non-empty) go to their places of out along d; `stack` inserts d. `mid`: the
 * promoted dtype every input is cast to before the result is cast to out's (ACL_DT_UNDEFINED: directly). `exact`:
 * out has the result's shape (else both are one element). */
static aclnnStatus list_exec(int op, const aclTensor *const *ts, int n, int64_t d, aclTensor *out, bool stack,
                             aclDataType mid, bool exact, uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    cp_of(ex)->mid = mid;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < n && !rc; i++) rc = acl_exec_add_input(ex, ts[i], "tensors", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc && !exact) rc = single_item(ex, 0, n);
    int64_t pos = 0;
    for (int i = 0; i < n && !rc && exact; i++) {
        const acl_view *s = &ex->io[i], *o = &ex->io[n];
        if (stack) {
            int64_t dst[ACL_MAX_VIEW_RANK];
            for (int k = 0, j = 0; k < o->ndim; k++)
                if (k != d) dst[j++] = o->strides[k];
            rc = cp_add(ex, i, 0, s->strides, n, pos * o->strides[d], dst, s->dims, s->ndim);
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
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper TensorList but got null for tensors.");
    for (uint64_t i = 0; i < tensors->size; i++) /* the host reads every shape first */
        ACLNN_CHECK(tensors->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors[%llu] is null.", (unsigned long long)i);
    /* 1-d tensors of size 0 are dropped first; nothing left: success (out is not looked at) */
    const aclTensor **ts = malloc(sizeof *ts * (tensors->size ? tensors->size : 1));
    if (!ts) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory");
    int n = 0;
    for (uint64_t i = 0; i < tensors->size; i++)
        if (!(tensors->v[i]->ndim == 1 && tensors->v[i]->dims[0] == 0)) ts[n++] = tensors->v[i];
    aclnnStatus rc = ACLNN_SUCCESS;
    if (n == 0) {
        rc = acl_exec_noop(ACL_OP_Cat, workspaceSize, executor);
        free(ts);
        return rc;
    }
#define CAT_CHECK(cond, code, ...)                   \
    do {                                             \
        if (!(cond)) {                               \
            rc = ACL_REPORT((code), __VA_ARGS__);    \
            goto done;                               \
        }                                            \
    } while (0)
#define CAT_TRY(expr)                                \
    do {                                             \
        if ((rc = (expr)) != ACLNN_SUCCESS) goto done; \
    } while (0)
    CAT_CHECK(out != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Tensor but got null for argument out.");
    for (int i = 0; i < n; i++) CAT_TRY(acl_check_dtype_in(ts[i], ACL_DT_LIST_Cat, "tensors"));
    CAT_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Cat, "out"));
    aclDataType pt = ts[0]->dtype;
    for (int i = 1; i < n; i++) {
        pt = acl_promote(ts[i]->dtype, pt);
        CAT_CHECK(pt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "tensors %d dtype %s can not promote with the "
                  "others.", i, acl_dtype_name(ts[i]->dtype));
        CAT_CHECK(pt != ACL_COMPLEX128, ACLNN_ERR_PARAM_INVALID, "tensors promote to COMPLEX128, which is not "
                  "implemented.");
    }
    CAT_CHECK(acl_can_cast(pt, out->dtype), ACLNN_ERR_PARAM_INVALID,
              "tensors' promoted dtype %s can not be cast to out's dtype %s.", acl_dtype_name(pt),
              acl_dtype_name(out->dtype));
    CAT_CHECK(!acl_format_is_private(ts[0]->format), ACLNN_ERR_PARAM_INVALID,
              "Format of tensors only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW, got %s.",
              acl_format_name(ts[0]->format));
    for (int i = 1; i < n; i++)
        CAT_CHECK(ts[i]->format == ts[0]->format, ACLNN_ERR_PARAM_INVALID, "Format of tensors should be equal, "
                  "tensor %d [%s], tensor 0 [%s].", i, acl_format_name(ts[i]->format), acl_format_name(ts[0]->format));
    CAT_CHECK(out->format == ts[0]->format, ACLNN_ERR_PARAM_INVALID, "Format of out [%s] should be the format of "
              "tensors [%s].", acl_format_name(out->format), acl_format_name(ts[0]->format));
    CAT_TRY(max_dim(ts[0], 8, "tensors"));
    const int64_t r = (int64_t)ts[0]->ndim;
    const int64_t d = dim < 0 ? dim + r : dim;
    CAT_CHECK(d >= 0 && d < r, ACLNN_ERR_PARAM_INVALID, "dim %lld exceeds the dim range of the tensors (%lld dims).",
              (long long)dim, (long long)r);
    for (int i = 1; i < n; i++) {
        CAT_CHECK((int64_t)ts[i]->ndim == r, ACLNN_ERR_PARAM_INVALID, "tensors %d has %llu dims; tensor 0 has %lld.",
                  i, (unsigned long long)ts[i]->ndim, (long long)r);
        CAT_TRY(acl_check_nonneg_dims(ts[i], "tensors"));
        for (int64_t k = 0; k < r; k++)
            CAT_CHECK(k == d || ts[i]->dims[k] == ts[0]->dims[k], ACLNN_ERR_PARAM_INVALID,
                      "dim %lld of tensors %d is %lld, should be equal to tensor 0's %lld.", (long long)k, i,
                      (long long)ts[i]->dims[k], (long long)ts[0]->dims[k]);
    }
    {
        /* empty tensors are skipped; one left: cast and ViewCopy; more: concat in the promoted dtype */
        int m = 0;
        int64_t want[ACL_MAX_VIEW_RANK], along = 0;
        for (int i = 0; i < n; i++)
            if (!acl_tensor_empty(ts[i])) {
                CAT_CHECK(acl_add_i64(along, ts[i]->dims[d], &along), ACLNN_ERR_PARAM_INVALID,
                          "the concatenated dim overflows int64 (tensors).");
                ts[m++] = ts[i];
            }
        if (m == 0) {
            rc = acl_exec_noop(ACL_OP_Cat, workspaceSize, executor);
            goto done;
        }
        for (int64_t k = 0; k < r; k++) want[k] = k == d ? along : ts[0]->dims[k];
        CAT_TRY(acl_check_nonneg_dims(out, "out"));
        if (m == 1) {
            if (!shape_is(out, want, (int)r)) {
                rc = VIEWCOPY_FAIL("out", "its shape is not the result's");
                goto done;
            }
            rc = list_exec(ACL_OP_Cat, ts, 1, d, out, false, ACL_DT_UNDEFINED, true, workspaceSize, executor);
            goto done;
        }
        CAT_CHECK(same_or_scalar(want, (int)r, out), ACLNN_ERR_PARAM_INVALID,
                  "out's shape is not the shape of the concatenation.");
        rc = list_exec(ACL_OP_Cat, ts, m, d, out, false, pt, shape_is(out, want, (int)r), workspaceSize, executor);
    }
done:
    free(ts);
    return rc;
#undef CAT_CHECK
#undef CAT_TRY
}

aclnnStatus opws_Stack(const aclTensorList *tensors, int64_t dim, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the real CheckParams reports ACLNN_ERR_INNER_NULLPTR for a NULL list or out */
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_INNER_NULLPTR, "Input of aclnnStack should not be null (tensors).");
    ACLNN_CHECK(out != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Tensor but got null for argument out.");
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i] != NULL, ACLNN_ERR_INNER_NULLPTR, "tensors[%llu] is null.", (unsigned long long)i);
    const aclTensor *const *ts = (const aclTensor *const *)tensors->v;
    const uint64_t n = tensors->size;
    for (uint64_t i = 0; i < n; i++) ACL_TRY(acl_check_dtype_in(ts[i], ACL_DT_LIST_Stack, "tensors"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Stack, "out"));
    ACLNN_CHECK(n > 0, ACLNN_ERR_PARAM_INVALID, "tensors is empty; aclnnStack needs at least one tensor.");
    aclDataType pt = ts[0]->dtype;
    for (uint64_t i = 1; i < n; i++) {
        pt = acl_promote(ts[i]->dtype, pt);
        ACLNN_CHECK(pt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "tensors %llu dtype %s can not promote with the "
                    "others.", (unsigned long long)i, acl_dtype_name(ts[i]->dtype));
    }
    ACLNN_CHECK(acl_can_cast(pt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "tensors' promoted dtype %s can not be cast to out's dtype %s.", acl_dtype_name(pt),
                acl_dtype_name(out->dtype));
    ACL_TRY(max_dim(ts[0], 8, "tensors"));
    const int64_t r = (int64_t)ts[0]->ndim;
    const int64_t d = dim < 0 ? dim + r + 1 : dim;
    ACLNN_CHECK(d >= 0 && d <= r, ACLNN_ERR_PARAM_INVALID, "dim %lld exceeds the range [%lld, %lld].", (long long)dim,
                (long long)-(r + 1), (long long)r);
    for (uint64_t i = 1; i < n; i++) {
        bool same = (int64_t)ts[i]->ndim == r;
        for (int64_t k = 0; same && k < r; k++) same = ts[i]->dims[k] == ts[0]->dims[k];
        ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "tensors %llu has another shape than tensor 0.",
                    (unsigned long long)i);
    }
    if (acl_tensor_empty(ts[0])) return acl_exec_noop(ACL_OP_Stack, workspaceSize, executor); /* all are */
    int64_t want[ACL_MAX_VIEW_RANK + 1];
    for (int64_t k = 0, j = 0; k <= r; k++) want[k] = k == d ? (int64_t)n : ts[0]->dims[j++];
    ACL_TRY(acl_check_nonneg_dims(out, "out"));
    ACLNN_CHECK(same_or_scalar(want, (int)r + 1, out), ACLNN_ERR_PARAM_INVALID,
                "out's shape is not the shape of the stack.");
    ACLNN_CHECK(n < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "tensors has %llu tensors; at most %d are supported.",
                (unsigned long long)n, ACL_EXEC_MAX_IO - 1);
    return list_exec(ACL_OP_Stack, ts, (int)n, d, out, true, n > 1 ? pt : ACL_DT_UNDEFINED,
                     shape_is(out, want, (int)r + 1), workspaceSize, executor);
}

/* ---------------------------------------------------------------- SplitTensor / SplitWithSize */
/* out[i] = self[..., start_i : start_i + sizes[i], ...] along d, cast to out[i]'s dtype; an out[i] of another shape
 * (validated: one element like its part) takes that element */
static aclnnStatus split_exec(int op, const aclTensor *self, const int64_t *sizes, uint64_t n, int64_t d,
                              aclTensorList *out, uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    for (uint64_t i = 0; i < n && !rc; i++) rc = acl_exec_add_output(ex, out->v[i], "out");
    int64_t pos = 0;
    for (uint64_t i = 0; i < n && !rc; i++) {
        const acl_view *s = &ex->io[0], *o = &ex->io[1 + i];
        if (sizes[i] > 0 && acl_view_numel(o) > 0) {
            bool same = o->ndim == s->ndim;
            for (int k = 0; same && k < s->ndim; k++) same = o->dims[k] == (k == d ? sizes[i] : s->dims[k]);
            if (same) {
                rc = cp_add(ex, 0, pos * s->strides[d], s->strides, (int)(1 + i), 0, o->strides, o->dims, o->ndim);
            } else {
                int64_t zero[ACL_MAX_VIEW_RANK] = {0};
                rc = cp_add(ex, 0, pos * s->strides[d], zero, (int)(1 + i), 0, o->strides, o->dims, o->ndim);
            }
        }
        pos += sizes[i];
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

/* each part's shape against its out (CheckShapeAndScalarSame) */
static aclnnStatus split_shapes(const aclTensor *self, const int64_t *sizes, uint64_t n, int64_t d,
                                const aclTensorList *out) {
    int64_t want[ACL_MAX_VIEW_RANK];
    for (uint64_t i = 0; i < n; i++) {
        for (uint64_t k = 0; k < self->ndim; k++) want[k] = (int64_t)k == d ? sizes[i] : self->dims[k];
        ACLNN_CHECK(same_or_scalar(want, (int)self->ndim, out->v[i]), ACLNN_ERR_PARAM_INVALID,
                    "out[%llu] does not have the shape of its part (%lld along dim %lld).", (unsigned long long)i,
                    (long long)sizes[i], (long long)d);
    }
    return ACLNN_SUCCESS;
}

/* the common checks after NULL: dtypes of self and every out, ranks, dim */
static aclnnStatus split_common(const aclTensor *self, const aclTensorList *out, const aclDataType *list, int nlist,
                                bool same_out_dtype) {
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    for (uint64_t i = 0; i < out->size; i++) ACL_TRY(acl_check_dtype_in(out->v[i], list, nlist, "out"));
    for (uint64_t i = 1; same_out_dtype && i < out->size; i++)
        ACLNN_CHECK(out->v[i]->dtype == out->v[0]->dtype, ACLNN_ERR_PARAM_INVALID,
                    "out[%llu] dtype %s should be the same as out[0] dtype %s.", (unsigned long long)i,
                    acl_dtype_name(out->v[i]->dtype), acl_dtype_name(out->v[0]->dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus split_shape_common(const aclTensor *self, const aclTensorList *out, int64_t dim, int64_t *d) {
    ACL_TRY(max_dim(self, 8, "self"));
    ACLNN_CHECK(self->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "self has 0 dims; at least 1 is needed.");
    for (uint64_t i = 0; i < out->size; i++) ACL_TRY(max_dim(out->v[i], 8, "out"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(dim < r && dim >= -r, ACLNN_ERR_PARAM_INVALID, "dim %lld is not in range [%lld, %lld).",
                (long long)dim, (long long)-r, (long long)r);
    *d = dim < 0 ? dim + r : dim;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_SplitTensor(const aclTensor *self, uint64_t splitSections, int64_t dim,
                             aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACLNN_CHECK(out != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper TensorList but got null for out.");
    for (uint64_t i = 0; i < out->size; i++) /* the host reads every out's dtype */
        ACLNN_CHECK(out->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "out[%llu] is null.", (unsigned long long)i);
    int64_t d = 0;
    ACL_TRY(split_common(self, out, ACL_DT_LIST_SplitTensor, true));
    ACL_TRY(split_shape_common(self, out, dim, &d));
    const int64_t len = self->dims[d];
    ACLNN_CHECK(!(len != 0 && splitSections == 0), ACLNN_ERR_PARAM_INVALID,
                "splitSections must not be zero while the split dim size %lld is not zero.", (long long)len);
    ACLNN_CHECK(!(len == 0 && splitSections != 0), ACLNN_ERR_PARAM_INVALID,
                "splitSections must be zero while the split dim size is zero, got %llu.",
                (unsigned long long)splitSections);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_SplitTensor, workspaceSize, executor);
    if ((uint64_t)len == splitSections) { /* one part: cast and ViewCopy into out[0] */
        ACLNN_CHECK(out->size >= 1, ACLNN_ERR_PARAM_INVALID, "out is empty; it needs one tensor.");
        if (!shape_is(out->v[0], self->dims, (int)self->ndim)) return VIEWCOPY_FAIL("out", "out[0] is not self's shape");
        return split_exec(ACL_OP_SplitTensor, self, &len, 1, d, out, workspaceSize, executor);
    }
    /* a section larger than the dim leaves one part of the whole dim (computed unsigned: no wrap for a huge
     * splitSections, where the host's int64 arithmetic would go negative) */
    const uint64_t sec = splitSections, ulen = (uint64_t)len;
    const uint64_t n = ulen / sec + (ulen % sec != 0);
    ACLNN_CHECK(n <= out->size, ACLNN_ERR_PARAM_INVALID, "the split makes %llu parts; out has %llu tensors.",
                (unsigned long long)n, (unsigned long long)out->size);
    int64_t *sizes = malloc(sizeof *sizes * n);
    if (!sizes) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory");
    for (uint64_t i = 0; i < n; i++) sizes[i] = (int64_t)(ulen - i * sec < sec ? ulen - i * sec : sec);
    aclnnStatus rc = split_shapes(self, sizes, n, d, out);
    if (!rc) rc = split_exec(ACL_OP_SplitTensor, self, sizes, n, d, out, workspaceSize, executor);
    free(sizes);
    return rc;
}

aclnnStatus opws_SplitWithSize(const aclTensor *self, const aclIntArray *splitSize, int64_t dim,
                               aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(splitSize, "splitSize"));
    ACLNN_CHECK(out != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper TensorList but got null for out.");
    for (uint64_t i = 0; i < out->size; i++)
        ACLNN_CHECK(out->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "out[%llu] is null.", (unsigned long long)i);
    int64_t d = 0;
    ACL_TRY(split_common(self, out, ACL_DT_LIST_SplitWithSize, false));
    ACL_TRY(split_shape_common(self, out, dim, &d));
    uint64_t sum = 0; /* the host sums in (wrapping) int64 */
    for (uint64_t i = 0; i < splitSize->size; i++) sum += (uint64_t)splitSize->v[i];
    ACLNN_CHECK((int64_t)sum == self->dims[d], ACLNN_ERR_PARAM_INVALID,
                "splitSize sums to %lld; self's split dim %lld is %lld.", (long long)(int64_t)sum, (long long)d,
                (long long)self->dims[d]);
    ACLNN_CHECK(splitSize->size == out->size, ACLNN_ERR_PARAM_INVALID, "splitSize has %llu entries; out has %llu "
                "tensors.", (unsigned long long)splitSize->size, (unsigned long long)out->size);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_SplitWithSize, workspaceSize, executor);
    if (splitSize->size == 1) {
        if (!shape_is(out->v[0], self->dims, (int)self->ndim)) return VIEWCOPY_FAIL("out", "out[0] is not self's shape");
        return split_exec(ACL_OP_SplitWithSize, self, splitSize->v, 1, d, out, workspaceSize, executor);
    }
    /* SplitV infers no part below 0 or beyond the dim (a negative size, or sizes whose sum wrapped) */
    for (uint64_t i = 0; i < splitSize->size; i++)
        if (splitSize->v[i] < 0 || splitSize->v[i] > self->dims[d])
            return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "splitSize[%llu] = %lld is not a part of dim %lld (%lld): "
                              "SplitV failed.", (unsigned long long)i, (long long)splitSize->v[i], (long long)d,
                              (long long)self->dims[d]);
    ACL_TRY(split_shapes(self, splitSize->v, splitSize->size, d, out));
    return split_exec(ACL_OP_SplitWithSize, self, splitSize->v, splitSize->size, d, out, workspaceSize, executor);
}
