/* RepeatInterleave, RepeatInterleaveWithDim, RepeatInterleaveInt, RepeatInterleaveIntWithDim, RepeatInterleaveTensor
 * (torch.repeat_interleave). Validation follows op_api aclnn_repeat_interleave.cpp (hicann/ops-nn
 * index/repeat_interleave) in its order. out's length along the repeated dim is outputSize (checked against out's
 * shape in phase 1, as the op's shape inference does); the repeat counts are read in phase 2: when they sum to more
 * than outputSize the tail is cut, when to less the rest of out is zero, and negative counts repeat nothing (the
 * device does not check them). Values move as bytes; each output row is owned by one thread. */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int dim;          /* -1: self flattened */
    bool has_tensor;  /* repeats is input 1, else `rep` */
    int64_t rep, L;   /* scalar repeats; out length along dim */
    bool arange;      /* RepeatInterleaveTensor: out = the repeated positions */
} ri_params;

/* src[q] = the source position of output position q (-1: none) */
static int64_t *ri_map(const int64_t *r, int64_t nr, int64_t n, int64_t L) {
    int64_t *m = md_alloc(L, sizeof(int64_t));
    if (!m) return NULL;
    int64_t q = 0;
    for (int64_t j = 0; j < n && q < L; j++) {
        const int64_t c = nr == 1 ? r[0] : r[j];
        for (int64_t t = 0; t < c && q < L; t++) m[q++] = j;
    }
    for (; q < L; q++) m[q] = -1;
    return m;
}

static aclnnStatus ri_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ri_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const acl_view *rv = p->has_tensor ? acl_exec_in(ex, p->arange ? 0 : 1) : NULL;
    int64_t *r = rv ? ix_load_index(rv) : NULL, nr = rv ? md_numel(rv) : 1;
    if (rv && !r) return OOM;
    const int64_t *rr = rv ? r : &p->rep;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (p->arange) {
        int64_t *m = ri_map(rr, nr, nr, p->L);
        if (!m) rc = OOM;
        else md_store(m, ACL_INT64, o);
        free(m);
        free(r);
        return rc;
    }
    const acl_view *x = acl_exec_in(ex, 0);
    const size_t es = acl_dtype_size(x->dtype);
    int64_t outer = 1, n = md_numel(x), inner = 1;
    if (p->dim >= 0) ix_split(x->dims, x->ndim, p->dim, &outer, &n, &inner);
    char *src = ix_load_raw(x), *dst = md_alloc(outer * p->L * inner, es);
    int64_t *m = ri_map(rr, nr, n, p->L);
    if (!src || !dst || !m) rc = OOM;
    else {
        const int64_t rows = outer * p->L;
        const size_t rb = es * (size_t)inner;
        ACL_FOR(acl_parallel_worth(rows * inner), e, 0, rows, {
            const int64_t oo = e / p->L, j = m[e % p->L];
            if (j < 0) memset(dst + (size_t)e * rb, 0, rb);
            else memcpy(dst + (size_t)e * rb, src + (size_t)(oo * n + j) * rb, rb);
        });
        md_store(dst, o->dtype, o);
    }
    free(src);
    free(dst);
    free(m);
    free(r);
    return rc;
}

static aclnnStatus dim_range(const aclTensor *self, int64_t dim) {
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(r != 0, ACLNN_ERR_PARAM_INVALID, "dim: dimension specified as %lld but tensor has no dimensions.",
                (long long)dim);
    const int64_t lo = r - 1 < -r ? r - 1 : -r, hi = r - 1 > -r ? r - 1 : -r;
    ACLNN_CHECK(dim >= lo && dim <= hi, ACLNN_ERR_PARAM_INVALID,
                "dim: Dimension out of range (expected to be in range of [%lld, %lld], but got %lld).", (long long)lo,
                (long long)hi, (long long)dim);
    return ACLNN_SUCCESS;
}

/* out must be self with dim (or the flattened self) of length outputSize */
static aclnnStatus out_shape(const aclTensor *self, int dim, int64_t L, const aclTensor *out) {
    int64_t d[ACL_MAX_TENSOR_DIMS];
    int n = 1;
    d[0] = L;
    if (dim >= 0) {
        n = (int)self->ndim;
        memcpy(d, self->dims, sizeof(int64_t) * (size_t)n);
        d[dim] = L;
    }
    return ix_check_shape(out, d, n, "out");
}

static aclnnStatus ri_exec(int op, const aclTensor *self, const aclTensor *repeats, const aclTensor *out,
                           const ri_params *p, uint64_t *ws, aclOpExecutor **exo) {
    const aclTensor *ins[] = {self, repeats}, *outs[] = {out};
    const char *inn[] = {"self", "repeats"}, *outn[] = {"out"};
    return ix_exec(op, ri_run, sizeof *p, ins, inn, repeats ? 2 : 1, outs, outn, 1, ws, exo, p);
}

static aclnnStatus ri_tensor_common(int op, const aclTensor *self, const aclTensor *repeats, bool has_dim,
                                    int64_t dim, int64_t outputSize, const aclTensor *out, uint64_t *ws,
                                    aclOpExecutor **exo) {
    NN(self, "self");
    NN(repeats, "repeats");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_RepeatInterleave, "self"));
    ACL_TRY(acl_check_dtype_in(repeats, ACL_DT_LIST_RepeatInterleave_repeats, "repeats"));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    ACLNN_CHECK(repeats->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "repeats has %llu dims; at most 1 is supported.",
                (unsigned long long)repeats->ndim);
    int64_t d = -1;
    if (has_dim) {
        ACL_TRY(dim_range(self, dim));
        d = dim < 0 ? dim + (int64_t)self->ndim : dim;
        if (repeats->ndim == 1)
            ACLNN_CHECK(repeats->dims[0] == 1 || repeats->dims[0] == self->dims[d], ACLNN_ERR_PARAM_INVALID,
                        "repeats must be size 1 or have the same size %lld as input along dim, but got %lld.",
                        (long long)self->dims[d], (long long)repeats->dims[0]);
    } else if (repeats->ndim == 1) {
        const int64_t n = acl_tensor_numel(self);
        ACLNN_CHECK(repeats->dims[0] == 1 || repeats->dims[0] == n, ACLNN_ERR_PARAM_INVALID,
                    "repeats size %lld must be 1 or the number of elements in tensor self %lld.",
                    (long long)repeats->dims[0], (long long)n);
    }
    ACL_TRY(md_check_max_dim(self, "self"));
    if (!has_dim && acl_tensor_empty(self))
        ACLNN_CHECK(acl_tensor_empty(repeats) || acl_tensor_numel(repeats) == 1, ACLNN_ERR_PARAM_INVALID,
                    "repeats: when tensor self is empty, repeats should be empty / 0-d / 1 element.");
    if (acl_tensor_empty(self) || (has_dim ? outputSize == 0 : acl_tensor_empty(out)))
        return acl_exec_noop(op, ws, exo);
    ACLNN_CHECK(!acl_tensor_empty(repeats), ACLNN_ERR_PARAM_INVALID,
                "repeats must have the same size as input along dim.");
    ACL_TRY(out_shape(self, (int)d, outputSize, out));
    ri_params p = {(int)d, true, 0, outputSize, false};
    return ri_exec(op, self, repeats, out, &p, ws, exo);
}

aclnnStatus opws_RepeatInterleave(const aclTensor *self, const aclTensor *repeats, int64_t outputSize, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ri_tensor_common(ACL_OP_RepeatInterleave, self, repeats, false, 0, outputSize, out, workspaceSize,
                            executor);
}

aclnnStatus opws_RepeatInterleaveWithDim(const aclTensor *self, const aclTensor *repeats, int64_t dim,
                                         int64_t outputSize, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor) {
    return ri_tensor_common(ACL_OP_RepeatInterleaveWithDim, self, repeats, true, dim, outputSize, out, workspaceSize,
                            executor);
}

static aclnnStatus ri_int_common(int op, const aclTensor *self, int64_t repeats, bool has_dim, int64_t dim,
                                 int64_t outputSize, const aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_RepeatInterleave, "self"));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    ACLNN_CHECK(repeats >= 0, ACLNN_ERR_PARAM_INVALID, "repeats %lld can not be negative.", (long long)repeats);
    int64_t d = -1;
    if (has_dim) {
        ACL_TRY(dim_range(self, dim));
        d = dim < 0 ? dim + (int64_t)self->ndim : dim;
    }
    ACL_TRY(md_check_max_dim(self, "self"));
    if (acl_tensor_empty(self) || (has_dim ? outputSize == 0 : acl_tensor_empty(out)))
        return acl_exec_noop(op, ws, exo);
    ACL_TRY(out_shape(self, (int)d, outputSize, out));
    ri_params p = {(int)d, false, repeats, outputSize, false};
    return ri_exec(op, self, NULL, out, &p, ws, exo);
}

aclnnStatus opws_RepeatInterleaveInt(const aclTensor *self, int64_t repeats, int64_t outputSize, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ri_int_common(ACL_OP_RepeatInterleaveInt, self, repeats, false, 0, outputSize, out, workspaceSize,
                         executor);
}

aclnnStatus opws_RepeatInterleaveIntWithDim(const aclTensor *self, int64_t repeats, int64_t dim, int64_t outputSize,
                                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ri_int_common(ACL_OP_RepeatInterleaveIntWithDim, self, repeats, true, dim, outputSize, out, workspaceSize,
                         executor);
}

aclnnStatus opws_RepeatInterleaveTensor(const aclTensor *repeats, int64_t outputSize, aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(repeats, "repeats");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(repeats, ACL_DT_LIST_RepeatInterleaveTensor, "repeats"));
    ACL_TRY(acl_check_same_dtype(out, "out", repeats, "repeats"));
    ACLNN_CHECK(acl_tensor_empty(repeats) || repeats->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                "repeats must be an empty tensor / 1D tensor.");
    if (acl_tensor_empty(repeats) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_RepeatInterleaveTensor, workspaceSize, executor);
    int64_t d[1] = {outputSize};
    ACL_TRY(ix_check_shape(out, d, 1, "out"));
    ri_params p = {-1, true, 0, outputSize, true};
    const aclTensor *ins[] = {repeats}, *outs[] = {out};
    const char *inn[] = {"repeats"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_RepeatInterleaveTensor, ri_run, sizeof p, ins, inn, 1, outs, outn, 1, workspaceSize,
                   executor, &p);
}
