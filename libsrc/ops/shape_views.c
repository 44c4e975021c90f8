/* Shape ops that are one or a few strided copies of remapped views (copy plans, copy_plan.h): Cast,
 * InplaceCopy, Permute, Expand, Repeat, Flatten, Slice, SliceV2, Roll, ChannelShuffle, Diag, DiagFlat,
 * ConstantPadNd. Each first phase checks what the real op_api checks, in its order and with its codes: NULL
 * (161001; a few ops report 561103), the A2 dtype lists (the op table's ACL_DT_LIST_<Name>), ranks, attributes
 * and shapes (161002), then its early returns (empty tensors), then the copies. A result the real op would hand to
 * l0op::ViewCopy with another shape or dtype than out's is refused with 561103 (ViewCopy returns nullptr). */
#include <stdio.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/copy_plan.h"

/* OP_CHECK_MAX_DIM, plus what the copies need: no negative dim */
static aclnnStatus max_dim(const aclTensor *t, int max, const char *name) {
    ACLNN_CHECK(t->ndim <= (uint64_t)max, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                name, (unsigned long long)t->ndim, max);
    return acl_check_nonneg_dims(t, name);
}

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

static bool shape_is(const aclTensor *t, const int64_t *dims, int nd) {
    if ((int)t->ndim != nd) return false;
    for (int k = 0; k < nd; k++)
        if (t->dims[k] != dims[k]) return false;
    return true;
}

static void dims_str(const int64_t *dims, int nd, char *buf, size_t cap) {
    size_t u = (size_t)snprintf(buf, cap, "[");
    for (int k = 0; k < nd && u < cap - 24; k++) u += (size_t)snprintf(buf + u, cap - u, "%s%lld", k ? ", " : "",
                                                                        (long long)dims[k]);
    snprintf(buf + u, cap - u, "]");
}

/* out must have exactly `dims` (OP_CHECK_SHAPE_NOT_EQUAL and friends) -> code */
static aclnnStatus want_shape(const aclTensor *t, const char *name, const int64_t *dims, int nd, aclnnStatus code) {
    if (shape_is(t, dims, nd)) return ACLNN_SUCCESS;
    char want[256], got[256];
    dims_str(dims, nd, want, sizeof want);
    acl_shape_str(t, got, sizeof got);
    return ACL_REPORT(code, "Shape of %s should be %s, but current is %s.", name, want, got);
}

/* the element count of a tensor's view, false when it does not fit int64 */
static bool numel_of(const aclTensor *t, int64_t *n) { return acl_numel(t->dims, (int64_t)t->ndim, n); }

/* CheckShapeAndScalarSame / CheckReduceOutShape: equal shapes, or one element each */
static bool same_or_scalar(const int64_t *dims, int nd, const aclTensor *out) {
    if (shape_is(out, dims, nd)) return true;
    int64_t a = 1, b = 0;
    return acl_numel(dims, nd, &a) && numel_of(out, &b) && a == 1 && b == 1;
}

static bool dt_in(aclDataType d, const aclDataType *list, int n) {
    for (int i = 0; i < n; i++)
        if (list[i] == d) return true;
    return false;
}

static aclnnStatus publish(aclOpExecutor *ex, aclnnStatus rc, uint64_t *ws, aclOpExecutor **out) {
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, out);
}

/* an executor copying self (slot 0) into out (slot 1) by `remap`'s items */
typedef aclnnStatus (*remap_fn)(aclOpExecutor *ex, const void *ctx);

static aclnnStatus one_copy(int op, const aclTensor *self, const char *sname, aclTensor *out, const char *oname,
                            remap_fn remap, const void *ctx, uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, sname, !acl_tensor_empty(self));
    if (!rc) rc = acl_exec_add_output(ex, out, oname);
    if (!rc) rc = remap(ex, ctx);
    return publish(ex, rc, ws, exo);
}

/* out = self broadcast (same dims, or self with fewer / size-1 dims) */
static aclnnStatus bcast_remap(aclOpExecutor *ex, const void *ctx) {
    (void)ctx;
    return cp_add_broadcast(ex, 0, 1);
}

/* out (any shape) = self's single element */
static aclnnStatus single_remap(aclOpExecutor *ex, const void *ctx) {
    (void)ctx;
    const acl_view *o = &ex->io[1];
    int64_t zero[ACL_MAX_VIEW_RANK] = {0};
    return cp_add(ex, 0, 0, zero, 1, 0, o->strides, o->dims, o->ndim);
}

#define VIEWCOPY_FAIL(name, why)                                                                               \
    ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "%s: the result can not be copied into %s (%s); ViewCopy failed.",   \
               name, name, why)

/* ---------------------------------------------------------------- Cast */
aclnnStatus opws_Cast(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Cast, "self"));
    ACLNN_CHECK(dt_in(dtype, ACL_DT_LIST_Cast), ACLNN_ERR_PARAM_INVALID, "The param dtype %s (%d) is not implemented for aclnnCast.",
                acl_dtype_name(dtype), (int)dtype);
    ACL_TRY(max_dim(self, 8, "self"));
    ACLNN_CHECK(same_shape(self, out), ACLNN_ERR_PARAM_INVALID, "Shape of out should be the shape of self.");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Cast, workspaceSize, executor);
    /* the cast result has dtype `dtype`: ViewCopy into an out of another dtype fails */
    if (out->dtype != dtype) return VIEWCOPY_FAIL("out", "its dtype is not the dtype argument");
    return one_copy(ACL_OP_Cast, self, "self", out, "out", bcast_remap, NULL, workspaceSize, executor);
}

/* ---------------------------------------------------------------- InplaceCopy */
aclnnStatus opws_InplaceCopy(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(selfRef, "selfRef"));
    ACL_TRY(acl_check_tensor(src, "src"));
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_InplaceCopy, "selfRef"));
    ACL_TRY(acl_check_dtype_in(src, ACL_DT_LIST_InplaceCopy, "src"));
    ACL_TRY(max_dim(selfRef, 8, "selfRef"));
    ACL_TRY(max_dim(src, 8, "src"));
    /* src and selfRef broadcast together; the result must be selfRef's shape */
    const int a = (int)selfRef->ndim, b = (int)src->ndim, nd = a > b ? a : b;
    bool same = nd == a;
    for (int k = 0; k < nd; k++) {
        int64_t da = k >= nd - a ? selfRef->dims[k - (nd - a)] : 1, db = k >= nd - b ? src->dims[k - (nd - b)] : 1;
        ACLNN_CHECK(da == db || da == 1 || db == 1, ACLNN_ERR_PARAM_INVALID,
                    "src and selfRef can not broadcast together (dim %d: %lld vs %lld).", k, (long long)db,
                    (long long)da);
        same = same && (da == 1 ? db : da) == da;
    }
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "src broadcast with selfRef gives another shape than selfRef's.");
    if (acl_tensor_empty(selfRef) || acl_tensor_empty(src))
        return acl_exec_noop(ACL_OP_InplaceCopy, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_InplaceCopy);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, src, "src", true);
    if (!rc) rc = acl_exec_add_output(ex, selfRef, "selfRef");
    if (!rc) rc = cp_add_broadcast(ex, 0, 1);
    return publish(ex, rc, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Permute */
static aclnnStatus permute_remap(aclOpExecutor *ex, const void *ctx) {
    const int64_t *perm = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t sst[ACL_MAX_VIEW_RANK];
    for (int k = 0; k < o->ndim; k++) sst[k] = s->strides[perm[k]];
    return cp_add(ex, 0, 0, sst, 1, 0, o->strides, o->dims, o->ndim);
}

aclnnStatus opws_Permute(const aclTensor *self, const aclIntArray *dims, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(dims, "dims"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Permute, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Permute, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(self->ndim == out->ndim, ACLNN_ERR_PARAM_INVALID, "out has %llu dims; self has %lld.",
                (unsigned long long)out->ndim, (long long)r);
    ACLNN_CHECK((int64_t)dims->size == r, ACLNN_ERR_PARAM_INVALID, "dims has %llu entries; self has %lld dims.",
                (unsigned long long)dims->size, (long long)r);
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < i; j++)
            ACLNN_CHECK(dims->v[i] != dims->v[j], ACLNN_ERR_PARAM_INVALID, "dims contains %lld twice.",
                        (long long)dims->v[i]);
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(acl_check_nonneg_dims(out, "out"));
    const int64_t hi = r - 1 > -r ? r - 1 : -r, lo = r - 1 < -r ? r - 1 : -r;
    int64_t perm[ACL_MAX_VIEW_RANK] = {0}, want[ACL_MAX_VIEW_RANK] = {0};
    bool seen[ACL_MAX_VIEW_RANK] = {false};
    for (int64_t k = 0; k < r; k++) {
        const int64_t d = dims->v[k];
        ACLNN_CHECK(d >= lo && d <= hi, ACLNN_ERR_PARAM_INVALID, "The values of dims should be in range [%lld, %lld].",
                    (long long)lo, (long long)hi);
        const int64_t w = d < 0 ? d + r : d;
        ACLNN_CHECK(!seen[w], ACLNN_ERR_PARAM_INVALID, "dims names dim %lld twice.", (long long)w);
        seen[w] = true;
        perm[k] = w;
        want[k] = self->dims[w];
    }
    if (acl_tensor_empty(self)) {
        if (!acl_tensor_empty(out)) return VIEWCOPY_FAIL("out", "self is empty, out is not");
        return acl_exec_noop(ACL_OP_Permute, workspaceSize, executor);
    }
    ACLNN_CHECK(same_or_scalar(want, (int)r, out), ACLNN_ERR_PARAM_INVALID, "out does not have the permuted shape.");
    return one_copy(ACL_OP_Permute, self, "self", out, "out", permute_remap, perm, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Expand */
aclnnStatus opws_Expand(const aclTensor *self, const aclIntArray *size, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(size, "size"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Expand, "self"));
    const uint64_t ns = size->size, nself = self->ndim;
    bool trivial = ns == nself && out->ndim == ns;
    for (uint64_t k = 0; trivial && k < ns; k++) trivial = self->dims[k] == size->v[k] && out->dims[k] == size->v[k];
    if (!trivial) {
        ACLNN_CHECK(ns >= nself, ACLNN_ERR_PARAM_INVALID, "size has %llu entries; self has %llu dims.",
                    (unsigned long long)ns, (unsigned long long)nself);
        const uint64_t off = ns - nself;
        for (uint64_t i = 0; i < nself; i++)
            ACLNN_CHECK(self->dims[i] == size->v[off + i] || self->dims[i] == 1, ACLNN_ERR_PARAM_INVALID,
                        "the self shape does not match size (self dim %llu is %lld, size asks %lld).",
                        (unsigned long long)i, (long long)self->dims[i], (long long)size->v[off + i]);
        /* the expected shape is size itself (a -1 entry stays -1: no out matches it) */
        bool eq = out->ndim == ns;
        for (uint64_t k = 0; eq && k < ns; k++) eq = out->dims[k] == size->v[k];
        ACLNN_CHECK(eq, ACLNN_ERR_PARAM_INVALID, "expect out shape to be the same as size.");
    }
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(max_dim(out, 8, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Expand, workspaceSize, executor);
    return one_copy(ACL_OP_Expand, self, "self", out, "out", bcast_remap, NULL, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Repeat */
/* self goes to out's first block; then each dim (innermost first) is filled by doubling the part already written
 * (out -> out items, run in order, source and destination disjoint): O(log repeats) items per dim. */
typedef struct { int nd; int64_t rep[ACL_MAX_VIEW_RANK]; } repeat_ctx;

static aclnnStatus repeat_remap(aclOpExecutor *ex, const void *ctx) {
    const repeat_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    const int nd = c->nd, lead = nd - s->ndim;
    int64_t sdims[ACL_MAX_VIEW_RANK] = {0}, sst[ACL_MAX_VIEW_RANK] = {0}, cur[ACL_MAX_VIEW_RANK] = {0};
    for (int k = 0; k < nd; k++) {
        sdims[k] = k >= lead ? s->dims[k - lead] : 1;
        sst[k] = k >= lead ? s->strides[k - lead] : 0;
        cur[k] = sdims[k];
    }
    ACL_TRY(cp_add(ex, 0, 0, sst, 1, 0, o->strides, sdims, nd));
    for (int k = nd - 1; k >= 0; k--) {
        const int64_t full = o->dims[k];
        int64_t have = cur[k];
        while (have < full) {
            const int64_t n = full - have < have ? full - have : have;
            cur[k] = n;
            ACL_TRY(cp_add(ex, 1, 0, o->strides, 1, have * o->strides[k], o->strides, cur, nd));
            have += n;
        }
        cur[k] = full;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Repeat(const aclTensor *self, const aclIntArray *repeats, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(repeats, "repeats"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Repeat, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(repeats->size >= self->ndim, ACLNN_ERR_PARAM_INVALID,
                "repeats has %llu entries; it can not have fewer than self's %llu dims.",
                (unsigned long long)repeats->size, (unsigned long long)self->ndim);
    bool zero = false;
    for (uint64_t i = 0; i < repeats->size; i++) {
        ACLNN_CHECK(repeats->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "repeats[%llu] is %lld; it must not be negative.",
                    (unsigned long long)i, (long long)repeats->v[i]);
        zero |= repeats->v[i] == 0;
    }
    ACL_TRY(max_dim(self, 8, "self"));
    ACLNN_CHECK(repeats->size <= 8, ACLNN_ERR_PARAM_INVALID, "repeats has %llu entries; at most 8 are supported.",
                (unsigned long long)repeats->size);
    if (acl_tensor_empty(self) || acl_tensor_empty(out) || zero)
        return acl_exec_noop(ACL_OP_Repeat, workspaceSize, executor);
    ACL_TRY(max_dim(out, 8, "out"));
    if (repeats->size == 0) { /* a 0-d self: ViewCopy(self, out) */
        int64_t n = 0;
        if (!numel_of(out, &n) || n != 1) return VIEWCOPY_FAIL("out", "self is 0-d");
        return one_copy(ACL_OP_Repeat, self, "self", out, "out", single_remap, NULL, workspaceSize, executor);
    }
    repeat_ctx c = {(int)repeats->size, {0}};
    int64_t want[ACL_MAX_VIEW_RANK] = {0};
    const int lead = c.nd - (int)self->ndim;
    for (int k = 0; k < c.nd; k++) {
        c.rep[k] = repeats->v[k];
        ACLNN_CHECK(acl_mul_i64(k >= lead ? self->dims[k - lead] : 1, c.rep[k], &want[k]), ACLNN_ERR_PARAM_INVALID,
                    "repeats[%d] makes a dim larger than int64.", k);
    }
    ACL_TRY(want_shape(out, "out", want, c.nd, ACLNN_ERR_PARAM_INVALID));
    return one_copy(ACL_OP_Repeat, self, "self", out, "out", repeat_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Flatten */
/* out [A, B]: self's dims before axis walk out's rows, the rest its columns (row-major) */
static aclnnStatus flatten_remap(aclOpExecutor *ex, const void *ctx) {
    const int64_t axis = *(const int64_t *)ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t dst[ACL_MAX_VIEW_RANK];
    int64_t acc0 = 1, acc1 = 1;
    for (int k = s->ndim - 1; k >= 0; k--) {
        if (k >= axis) {
            dst[k] = o->strides[1] * acc1;
            acc1 *= s->dims[k];
        } else {
            dst[k] = o->strides[0] * acc0;
            acc0 *= s->dims[k];
        }
    }
    if (s->ndim == 0) return single_remap(ex, NULL);
    return cp_add(ex, 0, 0, s->strides, 1, 0, dst, s->dims, s->ndim);
}

aclnnStatus opws_Flatten(const aclTensor *self, int64_t axis, aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Flatten, "self"));
    ACL_TRY(max_dim(self, 8, "self"));
    const int64_t r = (int64_t)self->ndim;
    const int64_t w = axis < 0 ? axis + (r > 0 ? r : 1) : axis;
    ACLNN_CHECK(!(r <= 1 && w > 0), ACLNN_ERR_PARAM_INVALID,
                "axis %lld is out of range (expected to be in range of [-1, 0]).", (long long)axis);
    ACLNN_CHECK(w >= 0 && !(r > 1 && w >= r), ACLNN_ERR_PARAM_INVALID,
                "axis %lld is out of range (expected to be in range of [-%lld, %lld]).", (long long)axis,
                (long long)r, (long long)(r - 1));
    int64_t want[2] = {1, 1};
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(acl_mul_i64(want[k < w ? 0 : 1], self->dims[k], &want[k < w ? 0 : 1]), ACLNN_ERR_PARAM_INVALID,
                    "The output shape of self exceeds the int64_t data range.");
    ACL_TRY(want_shape(out, "out", want, 2, ACLNN_ERR_PARAM_INVALID));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Flatten, workspaceSize, executor);
    return one_copy(ACL_OP_Flatten, self, "self", out, "out", flatten_remap, &w, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Slice / SliceV2 */
typedef struct { int64_t start[ACL_MAX_VIEW_RANK], step[ACL_MAX_VIEW_RANK]; } slice_ctx;

static aclnnStatus slice_remap(aclOpExecutor *ex, const void *ctx) {
    const slice_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t sst[ACL_MAX_VIEW_RANK], off = 0;
    for (int k = 0; k < s->ndim; k++) {
        /* step * (len - 1) < dim: no overflow when out has more than one element along k (else unused) */
        sst[k] = o->dims[k] > 1 ? s->strides[k] * c->step[k] : 0;
        off += c->start[k] * s->strides[k];
    }
    if (s->ndim == 0) return single_remap(ex, NULL);
    return cp_add(ex, 0, off, sst, 1, 0, o->strides, o->dims, o->ndim);
}

/* start/end made non-negative (start < 0 -> start + n, likewise end) then clamped to [0, n], end >= start; the
 * length is (end - start + step - 1) / step evaluated as the host code does, in wrapping int64 (a step near
 * INT64_MAX wraps the numerator negative: the length is then 0 or negative, never more than the real count) */
static int64_t slice_len(int64_t n, int64_t *start, int64_t end, int64_t step) {
    int64_t s = *start < 0 ? *start + n : *start, e = end < 0 ? end + n : end;
    s = s < 0 ? 0 : (s >= n ? n : s);
    e = e < s ? s : (e >= n ? n : e);
    *start = s;
    const int64_t num = (int64_t)((uint64_t)(e - s) + (uint64_t)step - 1u);
    return num / step;
}

aclnnStatus opws_Slice(const aclTensor *self, int64_t dim, int64_t start, int64_t end, int64_t step,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Slice, "self"));
    ACL_TRY(max_dim(self, 8, "self"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(r > 0, ACLNN_ERR_PARAM_INVALID, "self has 0 dims; aclnnSlice needs at least one.");
    ACLNN_CHECK(dim >= -r && dim <= r - 1, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    ACLNN_CHECK(step > 0, ACLNN_ERR_PARAM_INVALID, "step %lld must be positive.", (long long)step);
    const int64_t d = dim < 0 ? dim + r : dim;
    slice_ctx c;
    int64_t want[ACL_MAX_VIEW_RANK] = {0};
    for (int64_t k = 0; k < r; k++) {
        c.start[k] = 0;
        c.step[k] = 1;
        want[k] = self->dims[k];
    }
    c.start[d] = start;
    c.step[d] = step;
    want[d] = slice_len(self->dims[d], &c.start[d], end, step);
    ACL_TRY(want_shape(out, "out", want, (int)r, ACLNN_ERR_PARAM_INVALID));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Slice, workspaceSize, executor);
    return one_copy(ACL_OP_Slice, self, "self", out, "out", slice_remap, &c, workspaceSize, executor);
}

aclnnStatus opws_SliceV2(const aclTensor *self, const aclIntArray *starts, const aclIntArray *ends,
                         const aclIntArray *axes, const aclIntArray *steps, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self")); /* the real order: self, out, starts, ends, axes, steps */
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_int_array(starts, "starts"));
    ACL_TRY(acl_check_int_array(ends, "ends"));
    ACL_TRY(acl_check_int_array(axes, "axes"));
    ACL_TRY(acl_check_int_array(steps, "steps"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_SliceV2, "self"));
    ACL_TRY(max_dim(self, 8, "self"));
    const int64_t r = (int64_t)self->ndim;
    bool seen[ACL_MAX_VIEW_RANK] = {false};
    for (uint64_t i = 0; i < axes->size; i++) {
        const int64_t a = axes->v[i];
        ACLNN_CHECK(a < r && a >= -r, ACLNN_ERR_PARAM_INVALID, "axes[%llu] = %lld is not in the range of self's %lld "
                    "dims.", (unsigned long long)i, (long long)a, (long long)r);
        const int64_t w = a < 0 ? a + r : a;
        ACLNN_CHECK(!seen[w], ACLNN_ERR_PARAM_INVALID, "axes names dim %lld more than once.", (long long)w);
        seen[w] = true;
    }
    ACLNN_CHECK(starts->size == axes->size, ACLNN_ERR_PARAM_INVALID, "starts has %llu entries; axes has %llu.",
                (unsigned long long)starts->size, (unsigned long long)axes->size);
    ACLNN_CHECK(ends->size == axes->size, ACLNN_ERR_PARAM_INVALID, "ends has %llu entries; axes has %llu.",
                (unsigned long long)ends->size, (unsigned long long)axes->size);
    for (uint64_t i = 0; i < steps->size; i++)
        ACLNN_CHECK(steps->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "steps[%llu] = %lld must be positive.",
                    (unsigned long long)i, (long long)steps->v[i]);
    /* the host code walks steps' entries with axes/starts/ends of the same index: other lengths read past them */
    ACLNN_CHECK(steps->size == axes->size, ACLNN_ERR_PARAM_INVALID, "steps has %llu entries; axes has %llu.",
                (unsigned long long)steps->size, (unsigned long long)axes->size);
    slice_ctx c;
    int64_t want[ACL_MAX_VIEW_RANK] = {0};
    for (int64_t k = 0; k < r; k++) {
        c.start[k] = 0;
        c.step[k] = 1;
        want[k] = self->dims[k];
    }
    for (uint64_t i = 0; i < steps->size; i++) {
        const int64_t d = axes->v[i] < 0 ? axes->v[i] + r : axes->v[i];
        c.start[d] = starts->v[i];
        c.step[d] = steps->v[i];
        want[d] = slice_len(self->dims[d], &c.start[d], ends->v[i], steps->v[i]);
    }
    ACL_TRY(want_shape(out, "out", want, (int)r, ACLNN_ERR_PARAM_INVALID));
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_SliceV2, workspaceSize, executor);
    return one_copy(ACL_OP_SliceV2, self, "self", out, "out", slice_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Roll */
/* per rolled dim (shift in [1, n)): [0, n - sh) -> [sh, n) and [n - sh, n) -> [0, sh): 2^k pieces */
typedef struct { int n; int64_t dim[ACL_MAX_VIEW_RANK], shift[ACL_MAX_VIEW_RANK]; } roll_ctx;

static aclnnStatus roll_remap(aclOpExecutor *ex, const void *ctx) {
    const roll_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    for (int p = 0; p < (1 << c->n); p++) {
        int64_t dims[ACL_MAX_VIEW_RANK], soff = 0, doff = 0;
        for (int k = 0; k < s->ndim; k++) dims[k] = s->dims[k];
        for (int i = 0; i < c->n; i++) {
            const int64_t d = c->dim[i], n = s->dims[d], sh = c->shift[i];
            if ((p >> i) & 1) { /* the wrapped tail */
                dims[d] = sh;
                soff += (n - sh) * s->strides[d];
            } else {
                dims[d] = n - sh;
                doff += sh * o->strides[d];
            }
        }
        ACL_TRY(cp_add(ex, 0, soff, s->strides, 1, doff, o->strides, dims, s->ndim));
    }
    return ACLNN_SUCCESS;
}

/* the roll of the flattened tensor (dims empty): out_flat[(j + shift) mod N] = x_flat[j], any rank; chunks of the
 * flat output owned by one thread each, both multi-indices stepped as odometers */
static void odo_set(int64_t f, const acl_view *v, int64_t *idx, int64_t *off) {
    *off = 0;
    for (int k = v->ndim - 1; k >= 0; k--) {
        idx[k] = f % v->dims[k];
        f /= v->dims[k];
        *off += idx[k] * v->strides[k];
    }
}

static void odo_next(const acl_view *v, int64_t *idx, int64_t *off) {
    for (int k = v->ndim - 1; k >= 0; k--) {
        if (++idx[k] < v->dims[k]) {
            *off += v->strides[k];
            return;
        }
        idx[k] = 0;
        *off -= (v->dims[k] - 1) * v->strides[k];
    }
}

static void rollflat_kernel(const cp_plan *p, const acl_view *io) {
    const acl_view *s = &io[0], *o = &io[1];
    const int64_t N = acl_view_numel(o), sh = p->iparam[0], CH = 4096, nch = (N + CH - 1) / CH;
    const size_t es = acl_dtype_size(o->dtype);
    ACL_FOR(acl_parallel_worth(N), c, 0, nch, {
        const int64_t j0 = c * CH, j1 = j0 + CH < N ? j0 + CH : N;
        int64_t si[ACL_MAX_VIEW_RANK], di[ACL_MAX_VIEW_RANK], soff, doff;
        int64_t f = j0 - sh < 0 ? j0 - sh + N : j0 - sh; /* the source of out_flat[j0] */
        odo_set(f, s, si, &soff);
        odo_set(j0, o, di, &doff);
        for (int64_t j = j0; j < j1; j++) {
            memcpy(o->base + doff * (int64_t)es, s->base + soff * (int64_t)es, es);
            odo_next(o, di, &doff);
            if (++f == N) {
                f = 0;
                odo_set(0, s, si, &soff);
            } else {
                odo_next(s, si, &soff);
            }
        }
    });
}

/* ((a mod n) + (b mod n)) mod n without overflow, n > 0, result in [0, n) */
static int64_t mod_n(int64_t a, int64_t n) {
    int64_t m = a % n;
    return m < 0 ? m + n : m;
}
static int64_t add_mod(int64_t acc, int64_t v, int64_t n) { return (int64_t)(((uint64_t)acc + (uint64_t)v) % (uint64_t)n); }

aclnnStatus opws_Roll(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims,
                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_int_array(shifts, "shifts"));
    ACL_TRY(acl_check_int_array(dims, "dims"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_Roll, "x"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Roll, "out"));
    ACL_TRY(acl_check_same_dtype(x, "x", out, "out"));
    ACLNN_CHECK(same_shape(x, out), ACLNN_ERR_PARAM_INVALID, "Shape of out should be the shape of x.");
    ACLNN_CHECK(shifts->size == dims->size || dims->size == 0, ACLNN_ERR_PARAM_INVALID,
                "The size of shifts and dims should be the same when the size of dims is not 0.");
    ACLNN_CHECK(dims->size != 0 || shifts->size == 1, ACLNN_ERR_PARAM_INVALID,
                "The size of shifts must be 1 if the size of dims is 0.");
    ACL_TRY(max_dim(x, 8, "x"));
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_Roll, workspaceSize, executor);
    const int64_t r = (int64_t)x->ndim;
    if (r == 0) {
        ACLNN_CHECK(dims->size == 0 && shifts->size == 1, ACLNN_ERR_PARAM_INVALID,
                    "When tensor x has no dimensions, shifts should be size 1, dims should be size 0.");
        return one_copy(ACL_OP_Roll, x, "x", out, "out", single_remap, NULL, workspaceSize, executor);
    }
    const int64_t hi = r - 1, lo = -r;
    for (uint64_t i = 0; i < dims->size; i++)
        ACLNN_CHECK(dims->v[i] >= lo && dims->v[i] <= hi, ACLNN_ERR_PARAM_INVALID,
                    "The values of dims should be in range [%lld, %lld].", (long long)lo, (long long)hi);
    if (dims->size == 0 && r > 1) {
        aclOpExecutor *ex = cp_exec_create(ACL_OP_Roll);
        if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
        if (!rc) rc = acl_exec_add_output(ex, out, "out");
        if (!rc) {
            cp_of(ex)->kernel = rollflat_kernel;
            cp_of(ex)->iparam[0] = mod_n(shifts->v[0], acl_view_numel(&ex->io[1]));
        }
        return publish(ex, rc, workspaceSize, executor);
    }
    /* one shift per distinct dim: repeated dims compose (their shifts add, mod the dim). The device squeezes a
     * [1, N] x rolled along dim 1 and rolls it once by the int64 sum of those shifts (wrapping), as here. */
    int64_t total[ACL_MAX_VIEW_RANK] = {0};
    if (dims->size == 0) {
        total[0] = mod_n(shifts->v[0], x->dims[0]);
    } else if (r == 2 && x->dims[0] == 1) {
        uint64_t sum = 0;
        bool has1 = false;
        for (uint64_t i = 0; i < dims->size; i++)
            if ((dims->v[i] < 0 ? dims->v[i] + r : dims->v[i]) == 1) {
                has1 = true;
                sum += (uint64_t)shifts->v[i];
            }
        total[1] = has1 ? mod_n((int64_t)sum, x->dims[1]) : 0;
    } else {
        for (uint64_t i = 0; i < dims->size; i++) {
            const int64_t d = dims->v[i] < 0 ? dims->v[i] + r : dims->v[i];
            total[d] = add_mod(total[d], mod_n(shifts->v[i], x->dims[d]), x->dims[d]);
        }
    }
    roll_ctx c = {0, {0}, {0}};
    for (int64_t d = 0; d < r; d++)
        if (total[d] != 0) {
            c.dim[c.n] = d;
            c.shift[c.n++] = total[d];
        }
    return one_copy(ACL_OP_Roll, x, "x", out, "out", roll_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- ChannelShuffle */
static aclnnStatus shuffle_remap(aclOpExecutor *ex, const void *ctx) {
    const int64_t g = *(const int64_t *)ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    /* self viewed as [N, g, C/g, ...] with dims 1 and 2 swapped: out channel j * g + i = self channel i * C/g + j */
    const int64_t cg = s->dims[1] / g;
    int64_t dims[ACL_MAX_VIEW_RANK], sst[ACL_MAX_VIEW_RANK], dstt[ACL_MAX_VIEW_RANK];
    int nd = 0;
    dims[nd] = s->dims[0]; sst[nd] = s->strides[0]; dstt[nd] = o->strides[0]; nd++;
    dims[nd] = cg; sst[nd] = s->strides[1]; dstt[nd] = o->strides[1] * g; nd++;
    dims[nd] = g; sst[nd] = s->strides[1] * cg; dstt[nd] = o->strides[1]; nd++;
    for (int k = 2; k < s->ndim; k++) {
        dims[nd] = s->dims[k]; sst[nd] = s->strides[k]; dstt[nd] = o->strides[k]; nd++;
    }
    return cp_add(ex, 0, 0, sst, 1, 0, dstt, dims, nd);
}

aclnnStatus opws_ChannelShuffle(const aclTensor *self, int64_t groups, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ChannelShuffle, "self"));
    ACLNN_CHECK(groups > 0, ACLNN_ERR_PARAM_INVALID,
                "Number of groups to divide channels in must be positive. Value of groups: %lld.", (long long)groups);
    /* channels is self's dim 1; a self of fewer dims fails the rank check below */
    ACLNN_CHECK(self->ndim < 2 || self->dims[1] % groups == 0, ACLNN_ERR_PARAM_INVALID,
                "Number of channels must be divisible by groups. Got %lld channels and %lld groups.",
                (long long)(self->ndim < 2 ? 0 : self->dims[1]), (long long)groups);
    ACLNN_CHECK(same_shape(self, out), ACLNN_ERR_PARAM_INVALID, "Shape of out should be the shape of self.");
    ACL_TRY(max_dim(self, 7, "self"));
    ACLNN_CHECK(self->ndim >= 3, ACLNN_ERR_PARAM_INVALID, "self has %llu dims; at least 3 are needed.",
                (unsigned long long)self->ndim);
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_ChannelShuffle, workspaceSize, executor);
    return one_copy(ACL_OP_ChannelShuffle, self, "self", out, "out", shuffle_remap, &groups, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Diag / DiagFlat */
/* the k-th diagonal of a square out [L, L] (zeros elsewhere) takes self's elements in row-major order; for Diag of
 * a matrix, out [n] takes its k-th diagonal. out may be any single-element shape where the result is one element. */
typedef struct { int64_t diag; bool to_matrix; bool single; } diag_ctx;

static aclnnStatus diag_remap(aclOpExecutor *ex, const void *ctx) {
    const diag_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    const int64_t k = c->diag;
    if (c->to_matrix) {
        cp_of(ex)->fill_slot = 1;
        cp_of(ex)->fill_value = 0;
        if (c->single) return single_remap(ex, NULL); /* [1, 1] result, diagonal 0 */
        const int64_t dd = o->strides[0] + o->strides[1];
        const int64_t doff = k >= 0 ? k * o->strides[1] : -k * o->strides[0];
        int64_t dst[ACL_MAX_VIEW_RANK], acc = 1;
        for (int d = s->ndim - 1; d >= 0; d--) {
            dst[d] = dd * acc;
            acc *= s->dims[d];
        }
        return cp_add(ex, 0, 0, s->strides, 1, doff, dst, s->dims, s->ndim);
    }
    const int64_t soff = k >= 0 ? k * s->strides[1] : -k * s->strides[0];
    if (c->single) {
        int64_t zero[ACL_MAX_VIEW_RANK] = {0};
        return cp_add(ex, 0, soff, zero, 1, 0, o->strides, o->dims, o->ndim);
    }
    int64_t n = o->dims[0], sst = s->strides[0] + s->strides[1];
    return cp_add(ex, 0, soff, &sst, 1, 0, o->strides, &n, 1);
}

/* side of the square result of a vector of n elements on diagonal k: n + |k|, refused when out could not be
 * indexed (the device would compute a wrapped shape) */
static aclnnStatus flat_side(int64_t n, int64_t k, int64_t *side) {
    const __int128 s = (__int128)n + (k < 0 ? -(__int128)k : (__int128)k);
    ACLNN_CHECK(s <= 3037000499 /* floor(sqrt(INT64_MAX)) */, ACLNN_ERR_PARAM_INVALID, "diagonal %lld makes a result too large to index.",
                (long long)k);
    *side = (int64_t)s;
    return ACLNN_SUCCESS;
}

/* an executor filling out with zeros (Diag of an empty self off the main diagonal) */
static aclnnStatus zeros_exec(int op, const aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    cp_of(ex)->fill_slot = 0;
    cp_of(ex)->fill_value = 0;
    return publish(ex, rc, ws, exo);
}

aclnnStatus opws_Diag(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Diag, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(max_dim(self, 2, "self"));
    const bool empty = acl_tensor_empty(self);
    if ((empty && diagonal == 0) ||
        (self->ndim == 2 && ((diagonal > 0 && self->dims[1] == diagonal) || (diagonal < 0 && diagonal == -self->dims[0]))))
        return acl_exec_noop(ACL_OP_Diag, workspaceSize, executor);
    ACL_TRY(max_dim(out, 8, "out"));
    if (empty) { /* diagonal != 0: out (whatever its shape) is filled with zeros */
        ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Diag_out, "out"));
        if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Diag, workspaceSize, executor);
        return zeros_exec(ACL_OP_Diag, out, workspaceSize, executor);
    }
    int64_t want[2] = {0, 0};
    int nd;
    diag_ctx c = {diagonal, self->ndim < 2, false};
    if (self->ndim < 2) {
        ACL_TRY(flat_side(self->ndim ? self->dims[0] : 1, diagonal, &want[0]));
        want[1] = want[0];
        nd = 2;
    } else {
        const int64_t R = self->dims[0], C = self->dims[1];
        if (diagonal > 0) want[0] = diagonal >= C ? 0 : (R < C - diagonal ? R : C - diagonal);
        else want[0] = -(__int128)diagonal >= R ? 0 : (R + diagonal < C ? R + diagonal : C);
        nd = 1;
    }
    ACLNN_CHECK(same_or_scalar(want, nd, out), ACLNN_ERR_PARAM_INVALID,
                "The out tensor's shape is not equal with the inferred shape.");
    c.single = !shape_is(out, want, nd);
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Diag, workspaceSize, executor);
    return one_copy(ACL_OP_Diag, self, "self", out, "out", diag_remap, &c, workspaceSize, executor);
}

aclnnStatus opws_DiagFlat(const aclTensor *self, int64_t diagonal, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the real CheckParams returns ACLNN_ERR_INNER_NULLPTR for a NULL self or out */
    ACLNN_CHECK(self != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Tensor but got null for argument self.");
    ACLNN_CHECK(out != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Tensor but got null for argument out.");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_DiagFlat, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_DiagFlat, "out"));
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(max_dim(out, 8, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_DiagFlat, workspaceSize, executor);
    int64_t n = 0, want[2] = {0, 0};
    ACLNN_CHECK(numel_of(self, &n), ACLNN_ERR_PARAM_INVALID, "self has more elements than int64 can count.");
    ACL_TRY(flat_side(n, diagonal, &want[0]));
    want[1] = want[0];
    if (!shape_is(out, want, 2)) return VIEWCOPY_FAIL("out", "its shape is not [numel + |diagonal|] twice");
    diag_ctx c = {diagonal, true, false};
    return one_copy(ACL_OP_DiagFlat, self, "self", out, "out", diag_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- ConstantPadNd */
typedef struct { int64_t lo[ACL_MAX_VIEW_RANK]; } pad_ctx;

static aclnnStatus pad_remap(aclOpExecutor *ex, const void *ctx) {
    const pad_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t dims[ACL_MAX_VIEW_RANK], soff = 0, doff = 0;
    for (int k = 0; k < s->ndim; k++) {
        const int64_t lo = c->lo[k]; /* validated: -dims[k] <= lo <= out dims[k] */
        const int64_t s0 = lo < 0 ? -lo : 0, d0 = lo > 0 ? lo : 0;
        int64_t n = s->dims[k] - s0;
        if (n > o->dims[k] - d0) n = o->dims[k] - d0;
        if (n <= 0) return ACLNN_SUCCESS; /* nothing of self survives: only the fill */
        dims[k] = n;
        soff += s0 * s->strides[k];
        doff += d0 * o->strides[k];
    }
    if (s->ndim == 0) return single_remap(ex, NULL);
    return cp_add(ex, 0, soff, s->strides, 1, doff, o->strides, dims, s->ndim);
}

aclnnStatus opws_ConstantPadNd(const aclTensor *self, const aclIntArray *pad, const aclScalar *value,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(pad, "pad"));
    ACLNN_CHECK(value != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Scalar but got null for argument value.");
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ConstantPadNd, "self"));
    ACLNN_CHECK(self->format == out->format || self->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID,
                "If self's format is not ND, it should be out's format (self %s, out %s).",
                acl_format_name(self->format), acl_format_name(out->format));
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(max_dim(out, 8, "out"));
    const uint64_t nd = self->ndim, plen = pad->size, cover = plen / 2;
    ACLNN_CHECK(nd == out->ndim, ACLNN_ERR_PARAM_INVALID, "Dim of self[%llu] and out[%llu] can't be different.",
                (unsigned long long)nd, (unsigned long long)out->ndim);
    ACLNN_CHECK(plen % 2 == 0, ACLNN_ERR_PARAM_INVALID, "pad length %llu must be divisible by 2.",
                (unsigned long long)plen);
    ACLNN_CHECK(cover <= nd, ACLNN_ERR_PARAM_INVALID, "pad length %llu is more than twice self's %llu dims.",
                (unsigned long long)plen, (unsigned long long)nd);
    /* the host checks in wrapping int64 as it computes them; a pad the wrapped sums let through but the exact ones
     * do not (|pad| near 2^63) is refused: the device would pad by those amounts */
    bool pos = false, neg = false, zero = false, exact = true;
    pad_ctx c;
    for (uint64_t i = 0; i < nd; i++) {
        const uint64_t d = nd - 1 - i;
        const int64_t cur = self->dims[d];
        const int64_t b = 2 * i < plen ? pad->v[2 * i] : 0, e = 2 * i + 1 < plen ? pad->v[2 * i + 1] : 0;
        const int64_t be = (int64_t)((uint64_t)b + (uint64_t)e);
        const int64_t ns = (int64_t)((uint64_t)cur + (uint64_t)be);
        int64_t mn = b < e ? b : e;
        mn = mn < be ? mn : be;
        ACLNN_CHECK((int64_t)((uint64_t)cur + (uint64_t)mn) >= 0, ACLNN_ERR_PARAM_INVALID,
                    "The input size %lld plus padding %lld and %lld resulted in a negative output size (pad, dim "
                    "%llu of self).", (long long)cur, (long long)b, (long long)e, (unsigned long long)d);
        pos |= b > 0 || e > 0;
        neg |= b < 0 || e < 0;
        ACLNN_CHECK(ns == out->dims[d], ACLNN_ERR_PARAM_INVALID,
                    "out dim %llu is %lld; self with pad gives %lld.", (unsigned long long)d,
                    (long long)out->dims[d], (long long)ns);
        zero |= i < cover && ns == 0;
        exact = exact && (__int128)cur + b + e == ns;
        c.lo[d] = b;
    }
    ACLNN_CHECK(!(zero && pos), ACLNN_ERR_PARAM_INVALID,
                "out would have a zero dim with positive padding, which is invalid (pad).");
    ACLNN_CHECK(exact, ACLNN_ERR_PARAM_INVALID, "pad is too large: self's dims plus pad overflow int64.");
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_ConstantPadNd, workspaceSize, executor);
    if (!pos && !neg) /* no padding: a copy */
        return one_copy(ACL_OP_ConstantPadNd, self, "self", out, "out", bcast_remap, NULL, workspaceSize, executor);
    /* the value is converted to out's dtype (ConvertToTensor) */
    if (!acl_dt_known(value->dtype))
        return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "value has dtype %s, which can not be converted to %s.",
                          acl_dtype_name(value->dtype), acl_dtype_name(out->dtype));
    aclOpExecutor *ex = cp_exec_create(ACL_OP_ConstantPadNd);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    cp_plan *pl = cp_of(ex);
    pl->fill_slot = 1;
    pl->fill_exact = true;
    acl_convert(value->bytes, value->dtype, 1, pl->fill_bytes, out->dtype, 1, 1);
    const bool se = acl_tensor_empty(self);
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !se);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc && !se) rc = pad_remap(ex, &c);
    return publish(ex, rc, workspaceSize, executor);
}
