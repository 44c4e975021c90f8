/* Gathers of the index family: Gather (torch.gather), GatherV2 (index_select with an N-d index), IndexSelect,
 * Take, GatherNd, Embedding.
 *
 * Validation follows each op's op_api source (hicann/ops-nn index/<op>/op_api/aclnn_*.cpp) in its order; the dtype
 * lists are the ASCEND910B lists (tools/optable/nn_index.py). Values move as bytes, so every dtype is exact.
 * Out-of-range indices (the device does not check them): the output element (or row) they select is written as
 * zero; nothing is read outside the input view. Negative indices are wrapped by Take (PyTorch's take) and by GatherNd
 * when negativeIndexSupport is true; elsewhere a negative index is out of range. Each output element is owned by
 * one thread: the same bytes for any thread count. */
#include "ops/index_common.h"
#include "ops/view_fold.h"
#include "common/parallel.h"

/* ================================================================ shared kernel: out[o, j, i] = src[o, idx[j], i] */
typedef struct {
    int64_t outer, len, inner, nidx; /* src is outer x len x inner, out is outer x nidx x inner */
    bool wrap;                       /* negative indices count from the end */
} take_rows_params;

static void take_rows(const char *src, const int64_t *idx, char *dst, size_t es, const take_rows_params *p) {
    const int64_t rows = p->outer * p->nidx;
    const size_t rb = es * (size_t)p->inner;
    ACL_FOR(acl_parallel_worth(rows * p->inner), r, 0, rows, {
        const int64_t o = r / p->nidx, j = r % p->nidx;
        int64_t k = idx[j];
        if (p->wrap && k < 0) k += p->len;
        char *d = dst + (size_t)r * rb;
        if (k < 0 || k >= p->len) memset(d, 0, rb);
        else memcpy(d, src + ((size_t)(o * p->len + k)) * rb, rb);
    });
}

static aclnnStatus take_rows_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const take_rows_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    char *src = ix_load_raw(x), *dst = md_alloc(md_numel(o), acl_dtype_size(o->dtype));
    int64_t *idx = ix_load_index(iv);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!src || !dst || !idx) rc = OOM;
    else {
        take_rows(src, idx, dst, acl_dtype_size(x->dtype), p);
        md_store(dst, o->dtype, o);
    }
    free(src);
    free(dst);
    free(idx);
    return rc;
}

static aclnnStatus take_rows_exec(int op, const aclTensor *self, const char *sn, const aclTensor *index,
                                  const char *in, const aclTensor *out, int dim, bool wrap, uint64_t *ws,
                                  aclOpExecutor **exo) {
    take_rows_params p = {1, 1, 1, 1, wrap};
    ix_split(self->dims, (int)self->ndim, dim, &p.outer, &p.len, &p.inner);
    acl_numel(index->dims, (int64_t)index->ndim, &p.nidx);
    if (self->ndim == 0) p.len = p.nidx = 1; /* a 0-d self gives a 0-d out */
    const aclTensor *ins[] = {self, index}, *outs[] = {out};
    const char *inn[] = {sn, in}, *outn[] = {"out"};
    return ix_exec(op, take_rows_run, sizeof p, ins, inn, 2, outs, outn, 1, ws, exo, &p);
}

static aclnnStatus check_dim(int64_t dim, int64_t r, const char *fmt) {
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, fmt, (long long)dim, (long long)-r, (long long)(r - 1));
    return ACLNN_SUCCESS;
}

/* ================================================================ GatherV2, GatherV3 */
/* GatherV3 on A2 accepts only dim 0, batchDims 0 and mode 1 (then it is GatherV2 along dim 0); its out shape keeps a
 * 0-d index 0-d, where GatherV2's counts it as [1] */
static aclnnStatus gather_v2_common(int op, const aclTensor *self, int64_t dim, const aclTensor *index, bool v3,
                                    int64_t batchDims, int64_t mode, aclTensor *out, uint64_t *workspaceSize,
                                    aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(out, "out");
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_GatherV2, "self"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_GatherV2_index, "index"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(index, "index"));
    const int64_t r = ix_rank1(self), raw = dim;
    ACL_TRY(check_dim(dim, r, "dim %lld not in valid range: [%lld, %lld]"));
    if (dim < 0) dim += r;
    int64_t d[2 * ACL_MAX_TENSOR_DIMS];
    int n = 0;
    if (self->ndim) {
        for (int64_t k = 0; k < dim; k++) d[n++] = self->dims[k];
        if (index->ndim == 0 && !v3) d[n++] = 1;
        for (uint64_t k = 0; k < index->ndim; k++) d[n++] = index->dims[k];
        for (uint64_t k = (uint64_t)dim + 1; k < self->ndim; k++) d[n++] = self->dims[k];
    }
    ACL_TRY(ix_check_shape(out, d, n, "out"));
    if (v3)
        ACLNN_CHECK(raw == 0 && batchDims == 0 && mode == 1, ACLNN_ERR_PARAM_INVALID,
                    "dim/batchDims/mode: currently only dim=0, batchDims=0 and mode=1 are supported.");
    if (acl_tensor_empty(self) || acl_tensor_empty(index)) return acl_exec_noop(op, workspaceSize, executor);
    return take_rows_exec(op, self, "self", index, "index", out, (int)dim, false, workspaceSize, executor);
}

aclnnStatus opws_GatherV2(const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    return gather_v2_common(ACL_OP_GatherV2, self, dim, index, false, 0, 1, out, workspaceSize, executor);
}

aclnnStatus opws_GatherV3(const aclTensor *self, int64_t dim, const aclTensor *index, int64_t batchDims, int64_t mode,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return gather_v2_common(ACL_OP_GatherV3, self, dim, index, true, batchDims, mode, out, workspaceSize, executor);
}

/* ================================================================ Bucketize: not on A2 (the op_api refuses every
 * call there before any check) */
aclnnStatus opws_Bucketize(const aclTensor *self, const aclTensor *boundaries, const bool outInt32, const bool right,
                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ACL_REPORT(ACLNN_ERR_INNER, "BucketizeV2 is not supported on this SoC (Atlas A2).");
}

/* ================================================================ IndexSelect */
/* self, index and out in a plain (not private) storage format -> 161002 naming the first that is not */
static aclnnStatus check_plain_formats(const aclTensor *self, const aclTensor *index, const aclTensor *out) {
    const aclTensor *t[] = {self, index, out};
    const char *n[] = {"self", "index", "out"};
    for (int k = 0; k < 3; k++)
        ACLNN_CHECK(!acl_format_is_private(t[k]->format), ACLNN_ERR_PARAM_INVALID,
                    "%s: format %s is not supported (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW only)", n[k],
                    acl_format_name(t[k]->format));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_IndexSelect(const aclTensor *self, int64_t dim, const aclTensor *index, aclTensor *out,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexSelect, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_IndexSelect_index, "index"));
    ACL_TRY(check_plain_formats(self, index, out));  /* the op_api checks formats right after the dtypes */
    ACLNN_CHECK(self->ndim != 0 || out->ndim == 0, ACLNN_ERR_PARAM_INVALID,
                "self is scalar, and out should also be scalar");
    ACL_TRY(md_check_max_dim(self, "self"));
    const int64_t r = ix_rank1(self);
    ACL_TRY(check_dim(dim, r, "dim: Dimension out of range (expected to be in range of [%2$lld, %3$lld], but got %1$lld)"));
    if (dim < 0) dim += r;
    ACLNN_CHECK(index->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "index dimNum is %llu, should not greater than 1",
                (unsigned long long)index->ndim);
    if (!acl_tensor_empty(self) && !acl_tensor_empty(index) && self->ndim) {
        int64_t d[ACL_MAX_TENSOR_DIMS];
        for (uint64_t k = 0; k < self->ndim; k++) d[k] = self->dims[k];
        d[dim] = index->ndim ? index->dims[0] : 1;
        ACL_TRY(ix_check_shape(out, d, (int)self->ndim, "out"));
    }
    if (acl_tensor_empty(self) || acl_tensor_empty(index))
        return acl_exec_noop(ACL_OP_IndexSelect, workspaceSize, executor);
    /* a 0-d self with a one-element index: out is 0-d too */
    int64_t ni = 1;
    acl_numel(index->dims, (int64_t)index->ndim, &ni);
    ACLNN_CHECK(self->ndim != 0 || ni == 1, ACLNN_ERR_PARAM_INVALID, "index of a 0-d self must hold one element.");
    return take_rows_exec(ACL_OP_IndexSelect, self, "self", index, "index", out, (int)dim, false, workspaceSize,
                          executor);
}

/* ================================================================ Embedding: out = weight[indices] along dim 0 */
aclnnStatus opws_Embedding(const aclTensor *weight, const aclTensor *indices, const aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(weight, "weight");
    NN(indices, "indices");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_Embedding, "weight"));
    ACL_TRY(acl_check_same_dtype(weight, "weight", out, "out"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_Embedding_indices, "indices"));
    ACL_TRY(md_check_max_dim(weight, "weight"));
    ACL_TRY(md_check_max_dim(indices, "indices"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACLNN_CHECK(out->ndim == indices->ndim + 1, ACLNN_ERR_PARAM_INVALID,
                "out dim [%llu] should be one larger than indices dim [%llu].", (unsigned long long)out->ndim,
                (unsigned long long)indices->ndim);
    for (uint64_t k = 0; k < indices->ndim; k++)
        ACLNN_CHECK(out->dims[k] == indices->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "out shape does not match indices shape at dim %llu.", (unsigned long long)k);
    if (acl_tensor_empty(weight) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_Embedding, workspaceSize, executor);
    /* not an op_api rule: the row written must be the row read (weight is [num, dim]) */
    int64_t row = 1;
    for (uint64_t k = 1; k < weight->ndim; k++) row *= weight->dims[k];
    ACLNN_CHECK(weight->ndim >= 1 && out->dims[out->ndim - 1] == row, ACLNN_ERR_PARAM_INVALID,
                "out last dim %lld should be the weight row size %lld.", (long long)out->dims[out->ndim - 1],
                (long long)row);
    return take_rows_exec(ACL_OP_Embedding, weight, "weight", indices, "indices", out, 0, false, workspaceSize,
                          executor);
}

/* ================================================================ Take: out = self.flatten()[index] */
aclnnStatus opws_Take(const aclTensor *self, const aclTensor *index, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Take, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_Take_index, "index"));
    ACL_TRY(md_check_max_dim(index, "index"));
    ACL_TRY(acl_check_same_shape(out, "out", index, "index"));
    ACL_TRY(check_plain_formats(self, index, out));  /* the op_api's format check follows its shape check */
    ACLNN_CHECK(!(acl_tensor_empty(self) && !acl_tensor_empty(index)), ACLNN_ERR_PARAM_INVALID,
                "self: take() tried to take from an empty tensor");
    if (acl_tensor_empty(self) || acl_tensor_empty(index)) return acl_exec_noop(ACL_OP_Take, workspaceSize, executor);
    /* the op_api takes a self of any rank (it flattens self): one of more than 8 dims runs as its folded view */
    aclTensor self_fold;
    const aclTensor *selfv;
    ACL_TRY(vf_fit(self, "self", &self_fold, &selfv));
    take_rows_params p = {1, 1, 1, 1, true};
    acl_numel(self->dims, (int64_t)self->ndim, &p.len);
    acl_numel(index->dims, (int64_t)index->ndim, &p.nidx);
    const aclTensor *ins[] = {selfv, index}, *outs[] = {out};
    const char *inn[] = {"self", "index"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_Take, take_rows_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &p);
}

/* ================================================================ Gather: out[..i..] = self[..index[..i..]..] */
typedef struct {
    int dim;
} gather_params;

static aclnnStatus gather_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gather_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(x->dtype);
    char *src = ix_load_raw(x), *dst = md_alloc(md_numel(o), es);
    int64_t *idx = ix_load_index(iv);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!src || !dst || !idx) rc = OOM;
    else {
        const int n = iv->ndim ? iv->ndim : 1;
        int64_t idims[ACL_MAX_VIEW_RANK], sst[ACL_MAX_VIEW_RANK], xd[ACL_MAX_VIEW_RANK];
        for (int k = 0; k < n; k++) {
            idims[k] = iv->ndim ? iv->dims[k] : 1;
            xd[k] = x->ndim ? x->dims[k] : 1;
        }
        int64_t s = 1;
        for (int k = n - 1; k >= 0; k--) {
            sst[k] = s;
            s *= xd[k];
        }
        const int64_t total = md_numel(iv), len = xd[p->dim];
        ACL_FOR(acl_parallel_worth(total), e, 0, total, {
            int64_t rem = e, off = 0;
            for (int k = n - 1; k >= 0; k--) {
                const int64_t c = rem % idims[k];
                rem /= idims[k];
                if (k != p->dim) off += c * sst[k];
            }
            const int64_t j = idx[e];
            if (j < 0 || j >= len) memset(dst + (size_t)e * es, 0, es);
            else memcpy(dst + (size_t)e * es, src + (size_t)(off + j * sst[p->dim]) * es, es);
        });
        md_store(dst, o->dtype, o);
    }
    free(src);
    free(dst);
    free(idx);
    return rc;
}

aclnnStatus opws_Gather(const aclTensor *self, const int64_t dim, const aclTensor *index, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Gather, "self"));
    if (!acl_tensor_empty(index)) ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_Gather_index, "index"));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    const int64_t r = ix_rank1(self);
    ACLNN_CHECK(r == ix_rank1(index), ACLNN_ERR_PARAM_INVALID,
                "index must have the same number of dimensions as self.");
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(index, "index"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(acl_check_same_shape(out, "out", index, "index"));
    ACL_TRY(check_dim(dim, r, "dim: Dimension out of range (expected to be in range of [%2$lld, %3$lld], but got %1$lld)"));
    const int64_t d = dim < 0 ? dim + r : dim;
    if (!acl_tensor_empty(index))
        for (uint64_t k = 0; k < self->ndim; k++) {
            if ((int64_t)k != d)
                ACLNN_CHECK(index->dims[k] <= self->dims[k], ACLNN_ERR_PARAM_INVALID,
                            "index size %lld exceeds self size %lld at dimension %llu.", (long long)index->dims[k],
                            (long long)self->dims[k], (unsigned long long)k);
            else
                ACLNN_CHECK(self->dims[k] != 0, ACLNN_ERR_PARAM_INVALID,
                            "self size is 0 at dimension %llu; index must be empty.", (unsigned long long)k);
        }
    if (acl_tensor_empty(index) || acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Gather, workspaceSize, executor);
    gather_params p = {(int)d};
    const aclTensor *ins[] = {self, index}, *outs[] = {out};
    const char *inn[] = {"self", "index"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_Gather, gather_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &p);
}

/* ================================================================ GatherNd: out[b] = self[indices[b, :], ...] */
typedef struct {
    bool neg;
} gnd_params;

static aclnnStatus gnd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gnd_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(x->dtype);
    char *src = ix_load_raw(x), *dst = md_alloc(md_numel(o), es);
    int64_t *idx = ix_load_index(iv);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!src || !dst || !idx) rc = OOM;
    else {
        const int64_t q = iv->dims[iv->ndim - 1], nb = md_numel(iv) / q;
        int64_t inner = 1, sst[ACL_MAX_VIEW_RANK];
        for (int k = (int)q; k < x->ndim; k++) inner *= x->dims[k];
        int64_t s = inner;
        for (int k = (int)q - 1; k >= 0; k--) {
            sst[k] = s;
            s *= x->dims[k];
        }
        const size_t rb = es * (size_t)inner;
        ACL_FOR(acl_parallel_worth(nb * inner), b, 0, nb, {
            int64_t off = 0;
            bool ok = true;
            for (int64_t k = 0; k < q; k++) {
                int64_t j = idx[b * q + k];
                if (p->neg && j < 0) j += x->dims[k];
                if (j < 0 || j >= x->dims[k]) ok = false;
                else off += j * sst[k];
            }
            if (ok) memcpy(dst + (size_t)b * rb, src + (size_t)off * es, rb);
            else memset(dst + (size_t)b * rb, 0, rb);
        });
        md_store(dst, o->dtype, o);
    }
    free(src);
    free(dst);
    free(idx);
    return rc;
}

aclnnStatus opws_GatherNd(const aclTensor *self, const aclTensor *indices, bool negativeIndexSupport, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(indices, "indices");
    NN(out, "out");
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_GatherNd, "self"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_GatherNd_indices, "indices"));
    ACLNN_CHECK(self->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dim.");
    ACL_TRY(md_check_max_dim(self, "self"));
    ACLNN_CHECK(indices->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "indices must have at least 1 dim.");
    ACL_TRY(md_check_max_dim(indices, "indices"));
    const int64_t q = indices->dims[indices->ndim - 1];
    ACLNN_CHECK(q >= 1 && q <= (int64_t)self->ndim, ACLNN_ERR_PARAM_INVALID,
                "indices last dim %lld not in valid range: [1, %llu]", (long long)q, (unsigned long long)self->ndim);
    int64_t d[2 * ACL_MAX_TENSOR_DIMS];
    int n = 0;
    for (uint64_t k = 0; k + 1 < indices->ndim; k++) d[n++] = indices->dims[k];
    for (uint64_t k = (uint64_t)q; k < self->ndim; k++) d[n++] = self->dims[k];
    ACL_TRY(ix_check_shape(out, d, n, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_GatherNd, workspaceSize, executor);
    gnd_params p = {negativeIndexSupport};
    const aclTensor *ins[] = {self, indices}, *outs[] = {out};
    const char *inn[] = {"self", "indices"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_GatherNd, gnd_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &p);
}
