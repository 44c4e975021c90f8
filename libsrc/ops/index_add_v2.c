/* IndexAddV2: out = self with source rows added at index along dim (index/inplace_scatter_add op_api,
 * aclnn_index_add_v2.cpp, the default non-deterministic path).
 *
 * mode 0 (the "high performance" path) adds the source rows WITHOUT alpha and is limited to a 2-d self of
 * f32/f16/i32/i16/bf16 with dim 0 or -2; any other call with mode 0 fails in phase 1 with 561103, as upstream's does
 * (its kernel builder returns nullptr). Any other mode adds alpha * source.
 * Validation order: NULL (self, index, source, alpha, out), dtypes (self, index, source == self, alpha castable
 * to self, out == self), shapes (rank <= 8, dim, ranks, sizes off dim, index rank, index length, out == self);
 * a 0-d index / source counts as 1-d. Empty self or source: nothing to run.
 * Values are combined in the compute class (double / int64) and rounded once; the updates run serially in index
 * order per output row block, so duplicates sum in index order and the bytes never depend on the thread count.
 * Out-of-range indices (the device does not check them) are skipped. */
#include "ops/index_common.h"

typedef struct {
    int dim;
    bool use_alpha;
    _Alignas(16) unsigned char alpha[16]; /* alpha in the compute class */
} iav2_params;

static aclnnStatus iav2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const iav2_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *sv = acl_exec_in(ex, 2);
    const acl_view *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    char *dst = md_load(x, md_class_dt(c)), *src = md_load(sv, md_class_dt(c));
    int64_t *idx = ix_load_index(iv);
    if (!dst || !src || !idx) {
        free(dst);
        free(src);
        free(idx);
        return OOM;
    }
    const int64_t nidx = md_numel(iv);
    int64_t outer, len, inner;
    if (x->ndim == 0) outer = len = inner = 1;
    else ix_split(x->dims, x->ndim, p->dim, &outer, &len, &inner);
    /* source: same outer / inner as self (ranks and off-dim sizes match), nidx rows along dim */
    unsigned char v[16];
    for (int64_t oo = 0; oo < outer; oo++)
        for (int64_t j = 0; j < nidx; j++) {
            const int64_t k = idx[j];
            if (k < 0 || k >= len) continue;
            char *d = dst + (size_t)((oo * len + k) * inner) * es;
            const char *s = src + (size_t)((oo * nidx + j) * inner) * es;
            for (int64_t i = 0; i < inner; i++) {
                memcpy(v, s + (size_t)i * es, es);
                if (p->use_alpha) ix_apply(c, IX_MUL, v, p->alpha);
                ix_apply(c, IX_ADD, d + (size_t)i * es, v);
            }
        }
    md_store(dst, md_class_dt(c), o);
    free(dst);
    free(src);
    free(idx);
    return ACLNN_SUCCESS;
}

static bool iav2_mode0_ok(aclDataType dt) {
    return dt == ACL_FLOAT || dt == ACL_FLOAT16 || dt == ACL_INT32 || dt == ACL_INT16 || dt == ACL_BF16;
}

aclnnStatus opws_IndexAddV2(const aclTensor *self, const int64_t dim, const aclTensor *index, const aclTensor *source,
                            const aclScalar *alpha, int64_t mode, aclTensor *out, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    NN(self, "self");
    NN(index, "index");
    NN(source, "source");
    ACLNN_CHECK(alpha != NULL, ACLNN_ERR_PARAM_NULLPTR, "alpha must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_IndexAddV2, "self"));
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_IndexAddV2_index, "index"));
    ACL_TRY(acl_check_same_dtype(source, "source", self, "self"));
    ACLNN_CHECK(acl_can_cast(alpha->dtype, self->dtype), ACLNN_ERR_PARAM_INVALID,
                "alpha dtype %s can not be cast to self dtype %s.", acl_dtype_name(alpha->dtype),
                acl_dtype_name(self->dtype));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(source, "source"));
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK((dim >= -r && dim < r) || (dim == 0 && r == 0), ACLNN_ERR_PARAM_INVALID,
                "dim should be in [-self.dims(), self.dims), but dim is %lld.", (long long)dim);
    const int64_t srank = source->ndim ? (int64_t)source->ndim : 1; /* a 0-d source counts as 1-d */
    ACLNN_CHECK(r == 0 || r == srank, ACLNN_ERR_PARAM_INVALID, "DimNum of self must be equal to dimNum of source.");
    const int64_t d = dim >= 0 ? dim : dim + r;
    for (int64_t k = 0; k < r; k++)
        ACLNN_CHECK(k == d || self->dims[k] == source->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "The size of self must match the size of source at dimension %lld.", (long long)dim);
    ACLNN_CHECK(index->ndim <= 1, ACLNN_ERR_PARAM_INVALID, "index dimension %llu is supposed to be 1.",
                (unsigned long long)index->ndim);
    const int64_t ni = index->ndim ? index->dims[0] : 1;
    const int64_t sd = source->ndim ? (d < srank ? source->dims[d] : -1) : 1;
    ACLNN_CHECK(ni == sd, ACLNN_ERR_PARAM_INVALID,
                "Number of index should be equal to number of source in dim %lld.", (long long)dim);
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self) || acl_tensor_empty(source))
        return acl_exec_noop(ACL_OP_IndexAddV2, workspaceSize, executor);
    if (mode == 0)
        ACLNN_CHECK(iav2_mode0_ok(self->dtype) && r == 2 && (dim == 0 || dim == -2), ACLNN_ERR_INNER_NULLPTR,
                    "mode: mode 0 needs a 2-d self of FLOAT, FLOAT16, INT32, INT16 or BFLOAT16 and dim 0 or -2.");
    iav2_params p = {(int)(r == 0 ? 0 : d), mode != 0, {0}};
    if (p.use_alpha) {
        /* upstream computes the float dtypes in double with a double alpha; the others in self's dtype with
         * alpha converted to it */
        const aclDataType cd = md_class_dt(md_class_of(self->dtype));
        if (acl_dt_is_float(self->dtype)) {
            acl_convert(alpha->bytes, alpha->dtype, 1, p.alpha, cd, 1, 1);
        } else {
            unsigned char t[16];
            acl_convert(alpha->bytes, alpha->dtype, 1, t, self->dtype, 1, 1);
            acl_convert(t, self->dtype, 1, p.alpha, cd, 1, 1);
        }
    }
    const aclTensor *ins[] = {self, index, source}, *outs[] = {out};
    const char *inn[] = {"self", "index", "source"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_IndexAddV2, iav2_run, sizeof p, ins, inn, 3, outs, outn, 1, workspaceSize, executor, &p);
}
