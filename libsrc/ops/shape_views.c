/* Shape ops that are one or a few strided copies of remapped views (copy_plan.h): Cast, InplaceCopy, Permute,
 * Expand, Repeat, Flatten, Slice, SliceV2, Roll, ChannelShuffle, Diag, DiagFlat, ConstantPadNd. Each first phase
 * validates in the real op's order (NULL -> 161001; dtype, rank, attribute and shape rules -> 161002), then
 * describes the copies. */
#include <stdio.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

static const aclDataType k_all[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                    ACL_INT64, ACL_UINT8, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128, ACL_UINT16,
                                    ACL_UINT32, ACL_UINT64};
#define ALL_N ACL_COUNT_OF(k_all)
#define CHECK_OUT(ws, ex)                                                                                       \
    do {                                                                                                        \
        ACLNN_CHECK((ws) != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");                  \
        ACLNN_CHECK((ex) != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");                       \
    } while (0)

static aclnnStatus check_rank(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                name, (unsigned long long)t->ndim, ACL_MAX_VIEW_RANK);
    return acl_check_nonneg_dims(t, name);
}

static aclnnStatus check_shape_is(const aclTensor *t, const char *name, const int64_t *dims, int nd) {
    bool same = (int)t->ndim == nd;
    for (int k = 0; same && k < nd; k++) same = t->dims[k] == dims[k];
    if (same) return ACLNN_SUCCESS;
    char want[256], got[256];
    size_t u = (size_t)snprintf(want, sizeof want, "[");
    for (int k = 0; k < nd && u < sizeof want - 24; k++) u += (size_t)snprintf(want + u, sizeof want - u, "%s%lld", k ? ", " : "", (long long)dims[k]);
    snprintf(want + u, sizeof want - u, "]");
    acl_shape_str(t, got, sizeof got);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "Shape of %s should be %s, but current is %s.", name, want, got);
}

/* phase-1 tail shared by every op here: empty -> no-op executor; else executor with io added by `add` */
static aclnnStatus publish(aclOpExecutor *ex, aclnnStatus rc, uint64_t *ws, aclOpExecutor **out) {
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, out);
}

/* ---------------------------------------------------------------- Cast */
aclnnStatus opws_Cast(const aclTensor *self, const aclDataType dtype, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACLNN_CHECK(acl_dt_known(dtype), ACLNN_ERR_PARAM_INVALID, "dtype %d is not supported.", (int)dtype);
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the dtype argument %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(dtype));
    ACL_TRY(check_rank(self, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Cast, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_Cast);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) rc = cp_add_broadcast(ex, 0, 1);
    return publish(ex, rc, workspaceSize, executor);
}

/* ---------------------------------------------------------------- InplaceCopy */
aclnnStatus opws_InplaceCopy(aclTensor *selfRef, const aclTensor *src, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(selfRef, "selfRef"));
    ACL_TRY(acl_check_tensor(src, "src"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(selfRef, k_all, ALL_N, "selfRef"));
    ACL_TRY(acl_check_dtype_in(src, k_all, ALL_N, "src"));
    ACL_TRY(check_rank(selfRef, "selfRef"));
    ACL_TRY(check_rank(src, "src"));
    ACLNN_CHECK(src->ndim <= selfRef->ndim, ACLNN_ERR_PARAM_INVALID, "src has more dims than selfRef: it can not be "
                "broadcast to selfRef's shape.");
    for (uint64_t k = 0; k < src->ndim; k++) {
        int64_t s = src->dims[k], d = selfRef->dims[selfRef->ndim - src->ndim + k];
        ACLNN_CHECK(s == d || s == 1, ACLNN_ERR_PARAM_INVALID, "src shape can not be broadcast to selfRef's shape "
                    "(dim %llu: %lld vs %lld).", (unsigned long long)k, (long long)s, (long long)d);
    }
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceCopy, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_InplaceCopy);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, src, "src", true);
    if (!rc) rc = acl_exec_add_output(ex, selfRef, "selfRef");
    if (!rc) rc = cp_add_broadcast(ex, 0, 1);
    return publish(ex, rc, workspaceSize, executor);
}

/* a plain (self -> out) op whose copy is one remapped item, built by `remap` from self's view */
typedef aclnnStatus (*remap_fn)(aclOpExecutor *ex, const void *ctx);

static aclnnStatus one_copy(int op, const aclTensor *self, aclTensor *out, remap_fn remap, const void *ctx,
                            uint64_t *ws, aclOpExecutor **exo) {
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = cp_exec_create(op);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !acl_tensor_empty(self));
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) rc = remap(ex, ctx);
    return publish(ex, rc, ws, exo);
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
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK((int64_t)dims->size == r, ACLNN_ERR_PARAM_INVALID, "dims has %llu entries; self has %lld dims.",
                (unsigned long long)dims->size, (long long)r);
    int64_t perm[ACL_MAX_VIEW_RANK], want[ACL_MAX_VIEW_RANK];
    bool seen[ACL_MAX_VIEW_RANK] = {false};
    for (int64_t k = 0; k < r; k++) {
        int64_t d = cp_wrap_dim(dims->v[k], r);
        ACLNN_CHECK(d >= 0 && !seen[d], ACLNN_ERR_PARAM_INVALID, "dims is not a permutation of self's dims "
                    "(entry %lld is %lld).", (long long)k, (long long)dims->v[k]);
        seen[d] = true;
        perm[k] = d;
        want[k] = self->dims[d];
    }
    ACL_TRY(check_shape_is(out, "out", want, (int)r));
    return one_copy(ACL_OP_Permute, self, out, permute_remap, perm, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Expand */
static aclnnStatus bcast_remap(aclOpExecutor *ex, const void *ctx) {
    (void)ctx;
    return cp_add_broadcast(ex, 0, 1);
}

aclnnStatus opws_Expand(const aclTensor *self, const aclIntArray *size, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(size, "size"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    ACLNN_CHECK(size->size >= self->ndim && size->size <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "size has %llu entries; it needs at least self's %llu and at most %d.", (unsigned long long)size->size,
                (unsigned long long)self->ndim, ACL_MAX_VIEW_RANK);
    int64_t want[ACL_MAX_VIEW_RANK];
    const int nd = (int)size->size, lead = nd - (int)self->ndim;
    for (int k = 0; k < nd; k++) {
        int64_t s = size->v[k], have = k >= lead ? self->dims[k - lead] : 1;
        if (s == -1) {
            ACLNN_CHECK(k >= lead, ACLNN_ERR_PARAM_INVALID, "size[%d] is -1 for a new leading dim.", k);
            s = have;
        }
        ACLNN_CHECK(s >= 0 && (have == s || have == 1), ACLNN_ERR_PARAM_INVALID,
                    "self can not be expanded to size: dim %d is %lld, size asks %lld.", k, (long long)have,
                    (long long)size->v[k]);
        want[k] = s;
    }
    ACL_TRY(check_shape_is(out, "out", want, nd));
    return one_copy(ACL_OP_Expand, self, out, bcast_remap, NULL, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Repeat */
typedef struct { int nd; int64_t rep[ACL_MAX_VIEW_RANK]; } repeat_ctx;

static aclnnStatus repeat_remap(aclOpExecutor *ex, const void *ctx) {
    const repeat_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    const int lead = c->nd - s->ndim;
    /* one item per block: the blocks are the product of the repeats; each copies the whole input */
    int64_t blocks = 1;
    for (int k = 0; k < c->nd; k++) blocks *= c->rep[k];
    int64_t sdims[ACL_MAX_VIEW_RANK], sst[ACL_MAX_VIEW_RANK];
    for (int k = 0; k < c->nd; k++) {
        sdims[k] = k >= lead ? s->dims[k - lead] : 1;
        sst[k] = k >= lead ? s->strides[k - lead] : 0;
    }
    for (int64_t b = 0; b < blocks; b++) {
        int64_t rem = b, doff = 0;
        for (int k = c->nd - 1; k >= 0; k--) {
            int64_t i = rem % c->rep[k];
            rem /= c->rep[k];
            doff += i * sdims[k] * o->strides[k];
        }
        ACL_TRY(cp_add(ex, 0, 0, sst, 1, doff, o->strides, sdims, c->nd));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Repeat(const aclTensor *self, const aclIntArray *repeats, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(repeats, "repeats"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    ACLNN_CHECK(repeats->size >= self->ndim && repeats->size <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "repeats has %llu entries; it needs at least self's %llu dims and at most %d.",
                (unsigned long long)repeats->size, (unsigned long long)self->ndim, ACL_MAX_VIEW_RANK);
    repeat_ctx c = {(int)repeats->size, {0}};
    int64_t want[ACL_MAX_VIEW_RANK], blocks = 1;
    const int lead = c.nd - (int)self->ndim;
    for (int k = 0; k < c.nd; k++) {
        ACLNN_CHECK(repeats->v[k] >= 0, ACLNN_ERR_PARAM_INVALID, "repeats[%d] is negative.", k);
        c.rep[k] = repeats->v[k];
        int64_t d = k >= lead ? self->dims[k - lead] : 1;
        ACLNN_CHECK(!__builtin_mul_overflow(d, c.rep[k], &want[k]), ACLNN_ERR_PARAM_INVALID, "repeats overflow.");
        ACLNN_CHECK(!__builtin_mul_overflow(blocks, c.rep[k] ? c.rep[k] : 1, &blocks), ACLNN_ERR_PARAM_INVALID,
                    "repeats overflow.");
    }
    ACLNN_CHECK(blocks <= (1 << 20), ACLNN_ERR_PARAM_INVALID, "repeats make %lld blocks; at most 2^20 are supported.",
                (long long)blocks);
    ACL_TRY(check_shape_is(out, "out", want, c.nd));
    return one_copy(ACL_OP_Repeat, self, out, repeat_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Flatten (and any reshape-copy) */
/* out (dims od[no], strides os) seen with self's dims: split each out dim into the run of self dims it covers */
static aclnnStatus reshape_remap(aclOpExecutor *ex, const void *ctx) {
    (void)ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t dst[ACL_MAX_VIEW_RANK];
    int j = o->ndim - 1;
    int64_t acc = 1; /* product of the self dims already mapped into out dim j (from the inner end) */
    for (int k = s->ndim - 1; k >= 0; k--) {
        while (j > 0 && acc == o->dims[j] && s->dims[k] != 1) {
            j--;
            acc = 1;
        }
        dst[k] = j >= 0 ? o->strides[j] * acc : 0;
        acc *= s->dims[k];
    }
    return cp_add(ex, 0, 0, s->strides, 1, 0, dst, s->dims, s->ndim);
}

aclnnStatus opws_Flatten(const aclTensor *self, int64_t axis, aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(axis >= -r && axis <= r, ACLNN_ERR_PARAM_INVALID, "axis %lld is out of range [%lld, %lld].",
                (long long)axis, (long long)-r, (long long)r);
    if (axis < 0) axis += r;
    int64_t want[2] = {1, 1};
    for (int64_t k = 0; k < r; k++) want[k < axis ? 0 : 1] *= self->dims[k];
    ACL_TRY(check_shape_is(out, "out", want, 2));
    return one_copy(ACL_OP_Flatten, self, out, reshape_remap, NULL, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Slice / SliceV2 */
typedef struct { int64_t start[ACL_MAX_VIEW_RANK], step[ACL_MAX_VIEW_RANK]; } slice_ctx;

static aclnnStatus slice_remap(aclOpExecutor *ex, const void *ctx) {
    const slice_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    int64_t sst[ACL_MAX_VIEW_RANK], off = 0;
    for (int k = 0; k < s->ndim; k++) {
        sst[k] = s->strides[k] * c->step[k];
        off += c->start[k] * s->strides[k];
    }
    return cp_add(ex, 0, off, sst, 1, 0, o->strides, o->dims, o->ndim);
}

/* PyTorch's slice length with clamped start/end (step > 0) */
static int64_t slice_len(int64_t n, int64_t *start, int64_t end, int64_t step) {
    int64_t s = *start, e = end;
    if (s < 0) s += n;
    if (e < 0) e += n;
    s = s < 0 ? 0 : (s > n ? n : s);
    e = e < 0 ? 0 : (e > n ? n : e);
    *start = s;
    return e > s ? (e - s + step - 1) / step : 0;
}

aclnnStatus opws_Slice(const aclTensor *self, int64_t dim, int64_t start, int64_t end, int64_t step,
                       aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    ACLNN_CHECK(self->ndim > 0, ACLNN_ERR_PARAM_INVALID, "self must have at least one dim.");
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range for self's %llu dims.", (long long)dim,
                (unsigned long long)self->ndim);
    ACLNN_CHECK(step > 0, ACLNN_ERR_PARAM_INVALID, "step %lld must be positive.", (long long)step);
    slice_ctx c;
    int64_t want[ACL_MAX_VIEW_RANK];
    for (uint64_t k = 0; k < self->ndim; k++) {
        c.start[k] = 0;
        c.step[k] = 1;
        want[k] = self->dims[k];
    }
    c.start[d] = start;
    c.step[d] = step;
    want[d] = slice_len(self->dims[d], &c.start[d], end, step);
    ACL_TRY(check_shape_is(out, "out", want, (int)self->ndim));
    return one_copy(ACL_OP_Slice, self, out, slice_remap, &c, workspaceSize, executor);
}

aclnnStatus opws_SliceV2(const aclTensor *self, const aclIntArray *starts, const aclIntArray *ends,
                         const aclIntArray *axes, const aclIntArray *steps, aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(starts, "starts"));
    ACL_TRY(acl_check_int_array(ends, "ends"));
    ACL_TRY(acl_check_int_array(axes, "axes"));
    ACL_TRY(acl_check_int_array(steps, "steps"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    const uint64_t n = starts->size;
    ACLNN_CHECK(ends->size == n && axes->size == n && steps->size == n, ACLNN_ERR_PARAM_INVALID,
                "starts, ends, axes and steps must have the same length.");
    slice_ctx c;
    int64_t want[ACL_MAX_VIEW_RANK];
    for (uint64_t k = 0; k < self->ndim; k++) {
        c.start[k] = 0;
        c.step[k] = 1;
        want[k] = self->dims[k];
    }
    for (uint64_t i = 0; i < n; i++) {
        int64_t d = cp_wrap_dim(axes->v[i], (int64_t)self->ndim);
        ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "axes[%llu] = %lld is out of range.", (unsigned long long)i,
                    (long long)axes->v[i]);
        ACLNN_CHECK(steps->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "steps[%llu] must be positive.", (unsigned long long)i);
        c.start[d] = starts->v[i];
        c.step[d] = steps->v[i];
        want[d] = slice_len(self->dims[d], &c.start[d], ends->v[i], steps->v[i]);
    }
    ACL_TRY(check_shape_is(out, "out", want, (int)self->ndim));
    return one_copy(ACL_OP_SliceV2, self, out, slice_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Roll */
typedef struct { int n; int64_t dim[ACL_MAX_VIEW_RANK], shift[ACL_MAX_VIEW_RANK]; bool flat; } roll_ctx;

static aclnnStatus roll_remap(aclOpExecutor *ex, const void *ctx) {
    const roll_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    /* each rolled dim splits into two pieces: [0, n - sh) -> [sh, n) and [n - sh, n) -> [0, sh) */
    const int pieces = 1 << c->n;
    for (int p = 0; p < pieces; p++) {
        int64_t dims[ACL_MAX_VIEW_RANK], soff = 0, doff = 0;
        bool empty = false;
        for (int k = 0; k < s->ndim; k++) dims[k] = s->dims[k];
        for (int i = 0; i < c->n; i++) {
            int64_t d = c->dim[i], n = s->dims[d], sh = c->shift[i];
            if ((p >> i) & 1) { /* the wrapped tail */
                dims[d] = sh;
                soff += (n - sh) * s->strides[d];
            } else {
                dims[d] = n - sh;
                doff += sh * o->strides[d];
            }
            empty |= dims[d] == 0;
        }
        if (!empty) ACL_TRY(cp_add(ex, 0, soff, s->strides, 1, doff, o->strides, dims, s->ndim));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Roll(const aclTensor *x, const aclIntArray *shifts, const aclIntArray *dims,
                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_int_array(shifts, "shifts"));
    ACL_TRY(acl_check_int_array(dims, "dims"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(x, k_all, ALL_N, "x"));
    ACL_TRY(acl_check_same_dtype(x, "x", out, "out"));
    ACL_TRY(check_rank(x, "x"));
    ACL_TRY(acl_check_same_shape(x, "x", out, "out"));
    roll_ctx c = {0, {0}, {0}, false};
    if (dims->size == 0) {
        /* roll of the flattened tensor: only for 1-d views here (a flat roll of an n-d view is not a view copy) */
        ACLNN_CHECK(shifts->size == 1, ACLNN_ERR_PARAM_INVALID, "without dims, shifts must have one entry.");
        ACLNN_CHECK(x->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "a roll without dims is supported for 1-d x only here.");
        if (x->ndim == 1) {
            c.n = 1;
            c.dim[0] = 0;
            c.shift[0] = shifts->v[0];
        }
    } else {
        ACLNN_CHECK(shifts->size == dims->size, ACLNN_ERR_PARAM_INVALID, "shifts and dims must have the same length.");
        ACLNN_CHECK(dims->size <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "too many dims.");
        c.n = (int)dims->size;
        for (int i = 0; i < c.n; i++) {
            int64_t d = cp_wrap_dim(dims->v[i], (int64_t)x->ndim);
            ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dims[%d] = %lld is out of range.", i, (long long)dims->v[i]);
            c.dim[i] = d;
            c.shift[i] = shifts->v[i];
        }
    }
    for (int i = 0; i < c.n; i++) {
        int64_t n = x->dims[c.dim[i]];
        c.shift[i] = n ? ((c.shift[i] % n) + n) % n : 0;
    }
    return one_copy(ACL_OP_Roll, x, out, roll_remap, &c, workspaceSize, executor);
}

/* ---------------------------------------------------------------- ChannelShuffle */
static aclnnStatus shuffle_remap(aclOpExecutor *ex, const void *ctx) {
    const int64_t g = *(const int64_t *)ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    /* out[n, c * g + i, ...] = self[n, i * (C / g) + c, ...]: iterate (n, c' = C/g, i = g, rest) */
    const int64_t C = s->dims[1], cg = C / g;
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
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    ACLNN_CHECK(self->ndim >= 3 && self->ndim <= 7, ACLNN_ERR_PARAM_INVALID, "self must have 3 to 7 dims, has %llu.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(groups > 0, ACLNN_ERR_PARAM_INVALID, "groups %lld must be positive.", (long long)groups);
    ACLNN_CHECK(self->dims[1] % groups == 0, ACLNN_ERR_PARAM_INVALID,
                "the channel count %lld must be divisible by groups %lld.", (long long)self->dims[1], (long long)groups);
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    return one_copy(ACL_OP_ChannelShuffle, self, out, shuffle_remap, &groups, workspaceSize, executor);
}

/* ---------------------------------------------------------------- Diag / DiagFlat */
typedef struct { int64_t diag; bool flat; } diag_ctx;

static aclnnStatus diag_remap(aclOpExecutor *ex, const void *ctx) {
    const diag_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    const int64_t k = c->diag;
    if (c->flat || s->ndim <= 1) { /* vector -> the k-th diagonal of a square matrix (zeros elsewhere) */
        cp_of(ex)->fill_slot = 1;
        int64_t n = 1;
        for (int d = 0; d < s->ndim; d++) n *= s->dims[d];
        int64_t doff = k >= 0 ? k * o->strides[1] : -k * o->strides[0];
        int64_t dd = o->strides[0] + o->strides[1];
        if (s->ndim <= 1) {
            int64_t sst = s->ndim ? s->strides[0] : 0;
            return cp_add(ex, 0, 0, &sst, 1, doff, &dd, &n, 1);
        }
        /* DiagFlat of an n-d input: its elements in row-major order along the diagonal */
        int64_t dst[ACL_MAX_VIEW_RANK], acc = 1;
        for (int d = s->ndim - 1; d >= 0; d--) {
            dst[d] = dd * acc;
            acc *= s->dims[d];
        }
        return cp_add(ex, 0, 0, s->strides, 1, doff, dst, s->dims, s->ndim);
    }
    /* matrix -> its k-th diagonal */
    int64_t n = o->dims[0];
    if (n == 0) return ACLNN_SUCCESS; /* |k| may be beyond the matrix: nothing to copy, no offset to form */
    int64_t soff = k >= 0 ? k * s->strides[1] : -k * s->strides[0];
    int64_t sst = s->strides[0] + s->strides[1];
    return cp_add(ex, 0, soff, &sst, 1, 0, o->strides, &n, 1);
}

static aclnnStatus diag_common(int op, const aclTensor *self, int64_t diagonal, aclTensor *out, bool flat,
                               uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    int64_t want[2];
    int nd;
    if (flat || self->ndim <= 1) {
        int64_t n = 1;
        ACLNN_CHECK(acl_numel(self->dims, (int64_t)self->ndim, &n), ACLNN_ERR_PARAM_INVALID,
                    "self has more elements than int64 can count.");
        /* the result is (n + |diagonal|) square: it must be countable */
        const __int128 side = (__int128)n + (diagonal < 0 ? -(__int128)diagonal : (__int128)diagonal);
        ACLNN_CHECK(side <= INT64_MAX && side * side <= INT64_MAX, ACLNN_ERR_PARAM_INVALID,
                    "diagonal %lld makes a result too large to index.", (long long)diagonal);
        want[0] = want[1] = (int64_t)side;
        nd = 2;
    } else {
        ACLNN_CHECK(self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "self must be 1-d or 2-d, has %llu dims.",
                    (unsigned long long)self->ndim);
        const __int128 r = self->dims[0], c = self->dims[1], k = diagonal;
        const __int128 n = k >= 0 ? (c - k < r ? c - k : r) : (r + k < c ? r + k : c);
        want[0] = n > 0 ? (int64_t)n : 0;
        nd = 1;
    }
    ACL_TRY(check_shape_is(out, "out", want, nd));
    diag_ctx c = {diagonal, flat};
    if (acl_tensor_empty(self) && !acl_tensor_empty(out)) {
        aclOpExecutor *ex = cp_exec_create(op);
        if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
        aclnnStatus rc = acl_exec_add_input(ex, self, "self", false);
        if (!rc) rc = acl_exec_add_output(ex, out, "out");
        cp_of(ex)->fill_slot = 1;
        return publish(ex, rc, ws, exo);
    }
    return one_copy(op, self, out, diag_remap, &c, ws, exo);
}

aclnnStatus opws_Diag(const aclTensor *self, int64_t diagonal, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return diag_common(ACL_OP_Diag, self, diagonal, out, false, workspaceSize, executor);
}

aclnnStatus opws_DiagFlat(const aclTensor *self, int64_t diagonal, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    return diag_common(ACL_OP_DiagFlat, self, diagonal, out, true, workspaceSize, executor);
}

/* ---------------------------------------------------------------- ConstantPadNd */
typedef struct { int n; int64_t lo[ACL_MAX_VIEW_RANK]; } pad_ctx;

static aclnnStatus pad_remap(aclOpExecutor *ex, const void *ctx) {
    const pad_ctx *c = ctx;
    const acl_view *s = &ex->io[0], *o = &ex->io[1];
    cp_of(ex)->fill_slot = 1;
    int64_t dims[ACL_MAX_VIEW_RANK], soff = 0, doff = 0;
    for (int k = 0; k < s->ndim; k++) {
        int64_t lo = c->lo[k];
        int64_t s0 = lo < 0 ? -lo : 0, d0 = lo > 0 ? lo : 0;
        int64_t n = s->dims[k] - s0;
        if (n > o->dims[k] - d0) n = o->dims[k] - d0;
        if (n <= 0) return ACLNN_SUCCESS; /* nothing of self survives: only the fill */
        dims[k] = n;
        soff += s0 * s->strides[k];
        doff += d0 * o->strides[k];
    }
    return cp_add(ex, 0, soff, s->strides, 1, doff, o->strides, dims, s->ndim);
}

aclnnStatus opws_ConstantPadNd(const aclTensor *self, const aclIntArray *pad, const aclScalar *value,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(pad, "pad"));
    ACLNN_CHECK(value != NULL, ACLNN_ERR_PARAM_NULLPTR, "value must not be NULL.");
    ACL_TRY(acl_check_tensor(out, "out"));
    CHECK_OUT(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_all, ALL_N, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_rank(self, "self"));
    ACLNN_CHECK(pad->size % 2 == 0 && pad->size / 2 <= self->ndim, ACLNN_ERR_PARAM_INVALID,
                "pad length %llu must be even and at most twice self's %llu dims.", (unsigned long long)pad->size,
                (unsigned long long)self->ndim);
    pad_ctx c = {(int)self->ndim, {0}};
    int64_t want[ACL_MAX_VIEW_RANK];
    for (uint64_t k = 0; k < self->ndim; k++) want[k] = self->dims[k];
    for (uint64_t i = 0; i < pad->size / 2; i++) {
        uint64_t d = self->ndim - 1 - i;
        c.lo[d] = pad->v[2 * i];
        want[d] = self->dims[d] + pad->v[2 * i] + pad->v[2 * i + 1];
        ACLNN_CHECK(want[d] >= 0, ACLNN_ERR_PARAM_INVALID, "the padded size of dim %llu is negative.",
                    (unsigned long long)d);
    }
    ACL_TRY(check_shape_is(out, "out", want, (int)self->ndim));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_ConstantPadNd, workspaceSize, executor);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_ConstantPadNd);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    double complex v = acl_read_c128(value->bytes, value->dtype);
    cp_of(ex)->fill_value = creal(v);
    cp_of(ex)->fill_imag = cimag(v);
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !acl_tensor_empty(self));
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc && !acl_tensor_empty(self)) rc = pad_remap(ex, &c);
    cp_of(ex)->fill_slot = 1;
    return publish(ex, rc, workspaceSize, executor);
}
