/* Scatters of the index family: Scatter / ScatterValue / InplaceScatter / InplaceScatterValue (reduce 0 none,
 * 1 add, 2 mul), ScatterAdd, IndexAdd, IndexCopy / InplaceIndexCopy, IndexFill / InplaceIndexFill (tensor index),
 * IndexFillTensor / InplaceIndexFillTensor (aclIntArray index).
 *
 * Validation follows each op's op_api source (hicann/ops-nn index/<op>/op_api/aclnn_*.cpp) in its order. The result
 * starts as a copy of self; the updates then run serially in the row-major order of the index elements, so a
 * duplicate destination takes the last update (plain scatter / copy) or the sum of all of them in index order
 * (add), as PyTorch's CPU kernels do, and the bytes never depend on the thread count. Values are combined in the
 * compute class (double / int64 / double complex) and rounded once into the output.
 * Out-of-range indices (the device does not check them): the update is skipped, nothing outside a view is read or
 * written. Only the fills wrap negative indices (PyTorch's index_fill does); elsewhere a negative index is out of
 * range. */
#include "ops/index_common.h"

/* ================================================================ elementwise scatter along dim */
typedef struct {
    int dim, mode;
    bool has_value;
    _Alignas(16) unsigned char value[16]; /* ScatterValue: the value in the compute class */
} scat_params;

static aclnnStatus scat_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const scat_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1);
    const acl_view *sv = p->has_value ? NULL : acl_exec_in(ex, 2), *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    char *dst = md_load(x, md_class_dt(c));
    int64_t *idx = ix_load_index(iv);
    if (!dst || !idx) {
        free(dst);
        free(idx);
        return OOM;
    }
    const int64_t total = md_numel(iv);
    if (total > 0) {
        const int n = x->ndim ? x->ndim : 1;
        int64_t xd[ACL_MAX_VIEW_RANK], xst[ACL_MAX_VIEW_RANK], id[ACL_MAX_VIEW_RANK];
        for (int k = 0; k < n; k++) {
            xd[k] = x->ndim ? x->dims[k] : 1;
            id[k] = iv->ndim ? iv->dims[k] : 1;
        }
        int64_t s = 1;
        for (int k = n - 1; k >= 0; k--) {
            xst[k] = s;
            s *= xd[k];
        }
        unsigned char v[16];
        for (int64_t e = 0; e < total; e++) {
            int64_t rem = e, off = 0, soff = 0;
            for (int k = n - 1; k >= 0; k--) {
                const int64_t ck = rem % id[k];
                rem /= id[k];
                if (k != p->dim) off += ck * xst[k];
                if (sv && sv->ndim) soff += ck * sv->strides[k];
            }
            const int64_t j = idx[e];
            if (j < 0 || j >= xd[p->dim]) continue;
            if (p->has_value) memcpy(v, p->value, es);
            else acl_convert(sv->base + soff * (int64_t)acl_dtype_size(sv->dtype), sv->dtype, 1, v, md_class_dt(c), 1, 1);
            ix_apply(c, p->mode, dst + (size_t)(off + j * xst[p->dim]) * es, v);
        }
    }
    md_store(dst, md_class_dt(c), o);
    free(dst);
    free(idx);
    return ACLNN_SUCCESS;
}

/* CompareTensorShape: a's dims <= b's dims (skipping dim `skip`) */
static bool shape_le(const aclTensor *a, const aclTensor *b, int64_t skip) {
    for (uint64_t k = 0; k < a->ndim && k < b->ndim; k++)
        if ((int64_t)k != skip && a->dims[k] > b->dims[k]) return false;
    return true;
}

/* the checks after the empty-index return (CheckParams2) */
static aclnnStatus scat_check2(const aclTensor *self, const aclTensor *index, const aclTensor *src,
                               const aclTensor *out, int64_t dim) {
    ACLNN_CHECK(self->ndim == index->ndim && (!src || self->ndim == src->ndim), ACLNN_ERR_PARAM_INVALID,
                "expect self, index, src have same number of dimensions.");
    if (out->ndim != 0) ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    const int64_t r = (int64_t)self->ndim;
    const int64_t fd = dim < 0 ? (dim + r >= 0 ? dim + r : 0) : (dim < r ? dim : r - 1);
    if (src)
        ACLNN_CHECK(shape_le(index, src, -1), ACLNN_ERR_PARAM_INVALID,
                    "Expect index shape should be smaller than src shape in each dimension.");
    ACLNN_CHECK(shape_le(index, self, fd), ACLNN_ERR_PARAM_INVALID,
                "Apart from dimension %lld, index shape should be smaller than self shape in each dimension.",
                (long long)dim);
    ACL_TRY(md_check_max_dim(self, "self"));
    const int64_t hi = r - 1 > -r ? r - 1 : -r, lo = r - 1 < -r ? r - 1 : -r;
    ACLNN_CHECK(dim >= lo && dim <= hi, ACLNN_ERR_PARAM_INVALID, "dim must be in range [%lld, %lld].", (long long)lo,
                (long long)hi);
    /* not an op_api rule: a 0-d out must still hold self's one element */
    ACLNN_CHECK(acl_tensor_numel(out) == acl_tensor_numel(self), ACLNN_ERR_PARAM_INVALID,
                "out must have self's element count.");
    return ACLNN_SUCCESS;
}

static int reduce_mode(int64_t reduce) { return reduce == 1 ? IX_ADD : reduce == 2 ? IX_MUL : IX_SET; }

static aclnnStatus scatter_common(int op, const aclTensor *self, int64_t dim, const aclTensor *index,
                                  const aclTensor *src, int mode, const aclTensor *out, uint64_t *ws,
                                  aclOpExecutor **exo) {
    NN(self, "self");
    NN(index, "index");
    NN(src, "src");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Scatter, "self"));
    ACL_TRY(acl_check_same_dtype(src, "src", self, "self"));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    if (!acl_tensor_empty(index)) ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_Scatter_index, "index"));
    scat_params p = {0, mode, false, {0}};
    if (!acl_tensor_empty(index)) {
        ACL_TRY(scat_check2(self, index, src, out, dim));
        p.dim = (int)(dim < 0 ? dim + ix_rank1(self) : dim);
    } else {
        /* the copy of self into out that the empty index leaves */
        ACLNN_CHECK(acl_tensor_numel(out) == acl_tensor_numel(self) && (out->ndim == 0 || md_shape_is(out, self->dims, (int)self->ndim)),
                    ACLNN_ERR_PARAM_INVALID, "out shape should be self shape.");
        ACL_TRY(md_check_max_dim(self, "self"));
    }
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    const aclTensor *ins[] = {self, index, acl_tensor_empty(index) ? NULL : src}, *outs[] = {out};
    const char *inn[] = {"self", "index", "src"}, *outn[] = {"out"};
    if (!ins[2]) {
        /* keep input slot 2 meaningful: an empty index never reads src */
        p.has_value = true;
        return ix_exec(op, scat_run, sizeof p, ins, inn, 2, outs, outn, 1, ws, exo, &p);
    }
    return ix_exec(op, scat_run, sizeof p, ins, inn, 3, outs, outn, 1, ws, exo, &p);
}

aclnnStatus opws_Scatter(const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src,
                         int64_t reduce, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return scatter_common(ACL_OP_Scatter, self, dim, index, src, reduce_mode(reduce), out, workspaceSize, executor);
}

aclnnStatus opws_InplaceScatter(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *src,
                                int64_t reduce, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return scatter_common(ACL_OP_InplaceScatter, selfRef, dim, index, src, reduce_mode(reduce), selfRef,
                          workspaceSize, executor);
}

aclnnStatus opws_ScatterAdd(const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src,
                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return scatter_common(ACL_OP_ScatterAdd, self, dim, index, src, IX_ADD, out, workspaceSize, executor);
}

static aclnnStatus scatter_value_common(int op, const aclTensor *self, int64_t dim, const aclTensor *index,
                                        const aclScalar *value, int mode, const aclTensor *out, uint64_t *ws,
                                        aclOpExecutor **exo) {
    ACLNN_CHECK(self && index && value && out, ACLNN_ERR_PARAM_NULLPTR,
                "self, index, value, out cannot be nullptr!");
    ACLNN_CHECK(acl_dt_is_complex(self->dtype) || !acl_dt_is_complex(value->dtype), ACLNN_ERR_PARAM_INVALID,
                "When value is COMPLEX, the data type of self must be COMPLEX.");
    scat_params p = {0, mode, true, {0}};
    if (!acl_tensor_empty(index)) {
        ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ScatterValue, "self"));
        ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
        ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_ScatterValue_index, "index"));
        ACL_TRY(scat_check2(self, index, NULL, out, dim));
        p.dim = (int)(dim < 0 ? dim + ix_rank1(self) : dim);
    } else {
        ACLNN_CHECK(acl_tensor_numel(out) == acl_tensor_numel(self) && out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID,
                    "out should have self's shape and dtype.");
        ACL_TRY(md_check_max_dim(self, "self"));
        ACL_TRY(md_check_max_dim(out, "out"));
    }
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    /* the value is converted to self's dtype first (ConvertToTensor), then to the compute class */
    const md_class c = md_class_of(self->dtype);
    unsigned char t[16];
    acl_convert(value->bytes, value->dtype, 1, t, self->dtype, 1, 1);
    acl_convert(t, self->dtype, 1, p.value, md_class_dt(c), 1, 1);
    const aclTensor *ins[] = {self, index}, *outs[] = {out};
    const char *inn[] = {"self", "index"}, *outn[] = {"out"};
    return ix_exec(op, scat_run, sizeof p, ins, inn, 2, outs, outn, 1, ws, exo, &p);
}

aclnnStatus opws_ScatterValue(const aclTensor *self, int64_t dim, const aclTensor *index, const aclScalar *value,
                              int64_t reduce, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return scatter_value_common(ACL_OP_ScatterValue, self, dim, index, value, reduce_mode(reduce), out,
                                workspaceSize, executor);
}

aclnnStatus opws_InplaceScatterValue(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value,
                                     int64_t reduce, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return scatter_value_common(ACL_OP_InplaceScatterValue, selfRef, dim, index, value, reduce_mode(reduce), selfRef,
                                workspaceSize, executor);
}

/* ================================================================ row updates along dim: dst[o, idx[j], :] op= src[o, j, :] */
typedef struct {
    int dim, mode;
    int src_in;   /* input slot of the source rows, -1: the fill value */
    bool wrap;    /* negative indices count from the end (fills) */
    _Alignas(16) unsigned char alpha[16]; /* IndexAdd: alpha in the compute class */
    bool has_alpha;
    _Alignas(16) unsigned char value[16]; /* fills: the value in the compute class */
    int64_t nlist;                        /* IndexFillTensor: the indices travel in the params */
    int64_t *list;
} rows_params;

static void rows_free(void *pp) { free(((rows_params *)pp)->list); }

static aclnnStatus rows_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rows_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    char *dst = md_load(x, md_class_dt(c)), *src = NULL;
    int64_t *idx = p->list ? NULL : ix_load_index(acl_exec_in(ex, 1));
    int64_t nidx = p->list ? p->nlist : md_numel(acl_exec_in(ex, 1));
    if (p->src_in >= 0) src = md_load(acl_exec_in(ex, p->src_in), md_class_dt(c));
    if (!dst || (!p->list && !idx) || (p->src_in >= 0 && !src)) {
        free(dst);
        free(idx);
        free(src);
        return OOM;
    }
    const int64_t *ix = p->list ? p->list : idx;
    int64_t outer, len, inner;
    ix_split(x->dims, x->ndim, x->ndim ? p->dim : 0, &outer, &len, &inner);
    if (x->ndim == 0) outer = len = inner = 1;
    unsigned char v[16];
    for (int64_t oo = 0; oo < outer; oo++)
        for (int64_t j = 0; j < nidx; j++) {
            int64_t k = ix[j];
            if (p->wrap && k < 0) k += len;
            if (k < 0 || k >= len) continue;
            char *d = dst + (size_t)((oo * len + k) * inner) * es;
            for (int64_t i = 0; i < inner; i++) {
                if (src) {
                    memcpy(v, src + (size_t)((oo * nidx + j) * inner + i) * es, es);
                    if (p->has_alpha) ix_apply(c, IX_MUL, v, p->alpha);
                } else {
                    memcpy(v, p->value, es);
                }
                ix_apply(c, p->mode, d + (size_t)i * es, v);
            }
        }
    md_store(dst, md_class_dt(c), o);
    free(dst);
    free(idx);
    free(src);
    return ACLNN_SUCCESS;
}

static aclnnStatus rows_exec(int op, const aclTensor *const *ins, const char *const *inn, int nin, const aclTensor *out,
                             const char *outname, const rows_params *p, uint64_t *ws, aclOpExecutor **exo) {
    const aclTensor *outs[] = {out};
    const char *outn[] = {outname};
    void *params = NULL;
    aclnnStatus rc = dn_exec(op, rows_run, sizeof *p, ins, inn, nin, outs, outn, 1, ws, exo, &params);
    if (rc != ACLNN_SUCCESS) {
        free(p->list);
        return rc;
    }
    memcpy(params, p, sizeof *p);
    if (p->list) (*exo)->free_params = rows_free;
    return rc;
}

/* ---------------------------------------------------------------- IndexAdd */
aclnnStatus opws_IndexAdd(const aclTensor *self, const int64_t dim, const aclTensor *index, const aclTensor *source,
                          const aclScalar *alpha, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(source, "source");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexAdd, "self"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_IndexAdd_index, "index"));
    ACL_TRY(acl_check_dtype_in(source, ACL_DT_LIST_IndexAdd, "source"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_IndexAdd, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", source, "source"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(source, "source"));
    const int64_t r = (int64_t)self->ndim;
    if (r == 0)
        ACLNN_CHECK(dim == 0 || dim == -1, ACLNN_ERR_PARAM_INVALID,
                    "dim: when self.dims() == 0, dim should be 0 or -1, but dim is %lld.", (long long)dim);
    else
        ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                    "dim should be in [-self.dims(), self.dims), but dim is %lld.", (long long)dim);
    /* a 0-d index / source counts as 1-d (UnsqueezeNd) */
    const int64_t srank = source->ndim ? (int64_t)source->ndim : 1;
    ACLNN_CHECK(r == 0 || r == srank, ACLNN_ERR_PARAM_INVALID, "DimNum of self must be equal to dimNum of source.");
    const int64_t d = r == 0 ? 0 : (dim >= 0 ? dim : dim + r);
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(k == d || self->dims[k] == source->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "The size of self must match the size of source at dimension %lld.", (long long)dim);
    ACLNN_CHECK(index->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "index dimension %llu is supposed to be 1.",
                (unsigned long long)index->ndim);
    const int64_t ni = index->ndim ? index->dims[0] : 1, sd = source->ndim ? source->dims[d < srank ? d : 0] : 1;
    ACLNN_CHECK(ni == sd, ACLNN_ERR_PARAM_INVALID,
                "Number of index should be equal to number of source in dim %lld.", (long long)dim);
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(source))
        return acl_exec_noop(ACL_OP_IndexAdd, workspaceSize, executor);
    rows_params p = {(int)d, IX_ADD, 2, false, {0}, true, {0}, 0, NULL};
    acl_convert(alpha->bytes, alpha->dtype, 1, p.alpha, md_class_dt(md_class_of(self->dtype)), 1, 1);
    const aclTensor *ins[] = {self, index, source};
    const char *inn[] = {"self", "index", "source"};
    return rows_exec(ACL_OP_IndexAdd, ins, inn, 3, out, "out", &p, workspaceSize, executor);
}

/* ---------------------------------------------------------------- IndexCopy / InplaceIndexCopy */
static aclnnStatus index_copy_common(int op, const aclTensor *self, int64_t dim, const aclTensor *index,
                                     const aclTensor *source, const aclTensor *out, const char *outname,
                                     uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "selfRef");
    NN(index, "index");
    NN(source, "source");
    NN(out, outname);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexCopy, "selfRef"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_IndexCopy_index, "index"));
    ACL_TRY(acl_check_same_dtype(self, "selfRef", source, "source"));
    ACL_TRY(acl_check_same_dtype(self, "selfRef", out, outname));
    ACL_TRY(md_check_max_dim(self, "selfRef"));
    ACL_TRY(md_check_max_dim(source, "source"));
    ACLNN_CHECK(index->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "index has %llu dims; at most 1 is supported.",
                (unsigned long long)index->ndim);
    ACL_TRY(acl_check_same_shape(self, "selfRef", out, outname));
    int64_t ni = 1;
    acl_numel(index->dims, (int64_t)index->ndim, &ni);
    ACLNN_CHECK(source->ndim != 0 || ni == 1, ACLNN_ERR_PARAM_INVALID,
                "index: when source is scalar, index should have one element, but got %lld.", (long long)ni);
    ACLNN_CHECK(self->ndim == source->ndim || self->ndim == 0 || source->ndim == 0, ACLNN_ERR_PARAM_INVALID,
                "source: when source and self are not scalars, their dimensionality must match.");
    const int64_t r = (int64_t)self->ndim;
    if (r == 0)
        ACLNN_CHECK(dim == 0 || dim == -1, ACLNN_ERR_PARAM_INVALID,
                    "dim: Dimension out of range (expected to be in range of [-1, 0], but got %lld)", (long long)dim);
    else
        ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                    "dim: Dimension out of range (expected to be in range of [-%lld, %lld], but got %lld)",
                    (long long)r, (long long)(r - 1), (long long)dim);
    const int64_t d = r == 0 ? 0 : (dim < 0 ? dim + r : dim);
    for (int64_t k = 0; k < r && k < (int64_t)source->ndim; k++)
        ACLNN_CHECK(k == d || self->dims[k] == source->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "source: self and source must have same slice shapes");
    if (source->ndim) {
        const int64_t sd = source->dims[d < (int64_t)source->ndim ? d : 0];
        ACLNN_CHECK(ni == sd, ACLNN_ERR_PARAM_INVALID,
                    "index: the element num of index (%lld) should be equal to source size in dimension %lld, actual is %lld",
                    (long long)ni, (long long)d, (long long)sd);
    }
    /* not an op_api rule: a 0-d source with a n-d self must be a single slice */
    int64_t slice = 1;
    for (int64_t k = 0; k < r; k++)
        if (k != d) slice *= self->dims[k];
    ACLNN_CHECK(acl_tensor_numel(source) == ni * slice || acl_tensor_empty(self) || ni == 0, ACLNN_ERR_PARAM_INVALID,
                "source element count should be index count x slice size.");
    if (acl_tensor_empty(self) || acl_tensor_empty(index)) return acl_exec_noop(op, ws, exo);
    rows_params p = {(int)d, IX_SET, 2, false, {0}, false, {0}, 0, NULL};
    const aclTensor *ins[] = {self, index, source};
    const char *inn[] = {"selfRef", "index", "source"};
    return rows_exec(op, ins, inn, 3, out, outname, &p, ws, exo);
}

aclnnStatus opws_IndexCopy(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source,
                           aclTensor *outRef, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_copy_common(ACL_OP_IndexCopy, selfRef, dim, index, source, outRef, "outRef", workspaceSize,
                             executor);
}

aclnnStatus opws_InplaceIndexCopy(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *source,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_copy_common(ACL_OP_InplaceIndexCopy, selfRef, dim, index, source, selfRef, "selfRef", workspaceSize,
                             executor);
}

/* ---------------------------------------------------------------- IndexFill (tensor index) */
static aclnnStatus fill_dim_check(const aclTensor *self, int64_t dim, const aclTensor *out, const char *outname) {
    ACL_TRY(acl_check_same_shape(self, "self", out, outname));
    ACL_TRY(md_check_max_dim(self, "self"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(!((dim != 0 && dim >= r) || (dim == 0 && dim > r)), ACLNN_ERR_PARAM_INVALID,
                "dim value error, input dim[%lld] is greater than self dim[%lld].", (long long)dim, (long long)r);
    ACLNN_CHECK(!((dim < 0 && dim < -r && r > 0) || (dim < -1 && r == 0)), ACLNN_ERR_PARAM_INVALID,
                "dim value error, abs(input dim[%lld]) is greater than self dim[%lld].", (long long)dim, (long long)r);
    return ACLNN_SUCCESS;
}

static void fill_value(const aclScalar *value, aclDataType dt, unsigned char *dst) {
    unsigned char t[16];
    acl_convert(value->bytes, value->dtype, 1, t, dt, 1, 1);
    acl_convert(t, dt, 1, dst, md_class_dt(md_class_of(dt)), 1, 1);
}

static aclnnStatus index_fill_common(int op, const aclTensor *self, int64_t dim, const aclTensor *index,
                                     const aclScalar *value, const aclTensor *out, const char *sname,
                                     const char *outname, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, sname);
    NN(index, "index");
    ACLNN_CHECK(value != NULL, ACLNN_ERR_PARAM_NULLPTR, "value must not be NULL.");
    NN(out, outname);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexFill, sname));
    ACL_TRY(acl_check_same_dtype(self, sname, out, outname));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_IndexFill_index, "index"));
    if (!acl_tensor_empty(self)) ACL_TRY(fill_dim_check(self, dim, out, outname));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    const int64_t r = (int64_t)self->ndim;
    rows_params p = {(int)(r == 0 ? 0 : dim < 0 ? dim + r : dim), IX_SET, -1, true, {0}, false, {0}, 0, NULL};
    fill_value(value, self->dtype, p.value);
    const aclTensor *ins[] = {self, index};
    const char *inn[] = {sname, "index"};
    return rows_exec(op, ins, inn, 2, out, outname, &p, ws, exo);
}

aclnnStatus opws_IndexFill(const aclTensor *self, int64_t dim, const aclTensor *index, const aclScalar *value,
                           aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_fill_common(ACL_OP_IndexFill, self, dim, index, value, out, "self", "out", workspaceSize, executor);
}

aclnnStatus opws_InplaceIndexFill(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclScalar *value,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_fill_common(ACL_OP_InplaceIndexFill, selfRef, dim, index, value, selfRef, "selfRef", "selfRef",
                             workspaceSize, executor);
}

/* ---------------------------------------------------------------- IndexFillTensor (aclIntArray index) */
static aclnnStatus index_fill_arr_common(int op, const aclTensor *self, int64_t dim, const aclIntArray *index,
                                         const aclScalar *value, const aclTensor *out, const char *sname,
                                         const char *outname, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, sname);
    ACL_TRY(acl_check_int_array(index, "index"));
    ACLNN_CHECK(value != NULL, ACLNN_ERR_PARAM_NULLPTR, "value must not be NULL.");
    NN(out, outname);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexFillTensor, sname));
    ACL_TRY(acl_check_same_dtype(self, sname, out, outname));
    const int64_t r = (int64_t)self->ndim;
    const int64_t d = dim >= 0 ? dim : (r > 0 ? dim + r : 0);
    if (!acl_tensor_empty(self)) {
        ACL_TRY(fill_dim_check(self, dim, out, outname));
        const int64_t ds = r == 0 ? 1 : self->dims[d];
        for (uint64_t i = 0; i < index->size; i++)
            ACLNN_CHECK(index->v[i] < ds && index->v[i] >= -ds, ACLNN_ERR_PARAM_INVALID,
                        "index value[%lld] is out of range, it should be smaller than [%lld].",
                        (long long)index->v[i], (long long)ds);
    }
    ACLNN_CHECK(!acl_dt_is_complex(value->dtype), ACLNN_ERR_PARAM_INVALID, "value: type of value do not support complex type");
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    rows_params p = {(int)d, IX_SET, -1, true, {0}, false, {0}, (int64_t)index->size, NULL};
    fill_value(value, self->dtype, p.value);
    p.list = md_alloc(p.nlist, sizeof(int64_t));
    if (!p.list) return OOM;
    if (p.nlist) memcpy(p.list, index->v, sizeof(int64_t) * (size_t)p.nlist);
    const aclTensor *ins[] = {self};
    const char *inn[] = {sname};
    return rows_exec(op, ins, inn, 1, out, outname, &p, ws, exo);
}

aclnnStatus opws_IndexFillTensor(const aclTensor *self, int64_t dim, const aclIntArray *index, const aclScalar *value,
                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_fill_arr_common(ACL_OP_IndexFillTensor, self, dim, index, value, out, "self", "out", workspaceSize,
                                 executor);
}

aclnnStatus opws_InplaceIndexFillTensor(aclTensor *selfRef, int64_t dim, const aclIntArray *index,
                                        const aclScalar *value, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return index_fill_arr_common(ACL_OP_InplaceIndexFillTensor, selfRef, dim, index, value, selfRef, "selfRef",
                                 "selfRef", workspaceSize, executor);
}

/* ================================================================ ScatterReduce / InplaceScatterReduce
 * The A2 op_api accepts only float32 with reduce 1 (sum) and includeSelf true (checked first, before the NULL
 * checks of the other arguments): then it is ScatterAdd. */
static aclnnStatus scatter_reduce_a2(const aclTensor *self, int64_t reduce, bool includeSelf) {
    if (self)
        ACLNN_CHECK(self->dtype == ACL_FLOAT && reduce == 1 && includeSelf, ACLNN_ERR_PARAM_INVALID,
                    "scatter_reduce only supports self dtype=float32, reduce=sum, include_self=true; got dtype=%s, "
                    "reduce=%lld, include_self=%d.", acl_dtype_name(self->dtype), (long long)reduce, includeSelf ? 1 : 0);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ScatterReduce(const aclTensor *self, int64_t dim, const aclTensor *index, const aclTensor *src,
                               int64_t reduce, bool includeSelf, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    ACL_TRY(scatter_reduce_a2(self, reduce, includeSelf));
    return scatter_common(ACL_OP_ScatterReduce, self, dim, index, src, IX_ADD, out, workspaceSize, executor);
}

aclnnStatus opws_InplaceScatterReduce(aclTensor *selfRef, int64_t dim, const aclTensor *index, const aclTensor *src,
                                      int64_t reduce, bool includeSelf, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    ACL_TRY(scatter_reduce_a2(selfRef, reduce, includeSelf));
    return scatter_common(ACL_OP_InplaceScatterReduce, selfRef, dim, index, src, IX_ADD, selfRef, workspaceSize,
                          executor);
}
