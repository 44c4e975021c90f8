/* MaxUnpool2d and MaxUnpool3d (the inverse of max pooling): out is zero except out[p, indices[p, i]] = self[p, i],
 * where p runs over the planes (every dim before the 2 / 3 spatial ones) and i over a plane's flattened spatial
 * positions. Validation in the order of op_api aclnn_max_unpool2d.cpp / aclnn_max_unpool3d.cpp (hicann/ops-nn
 * index/scatter_elements), which reshape to (planes, H*W) and run ScatterElements (reduction "none") on zeros:
 *   2d: NULL (self, indices, outputSize, out); self's dtype list, out's dtype == self's, indices int32/int64;
 *       self 3-D or 4-D, indices of self's rank and shape; self's non-batch dims non-empty; outputSize of 2
 *       positive values whose product holds H*W; an empty self returns a no-op executor. out's shape is not
 *       checked upstream: it is reshaped to (planes, oH*oW), which fails for another element count (561103).
 *   3d: NULL (self, indices, outputSize, stride, padding, outRef); outRef contiguous; dtypes as 2d; self 4-D or
 *       5-D, indices alike; non-batch dims non-empty; outputSize, stride, padding of 3 values, stride and outputSize
 *       positive, outputSize's product holds D*H*W; outRef of self's rank, its batch dims self's, its spatial dims
 *       outputSize. stride and padding are not used otherwise.
 * Values are moved as bytes (every dtype exact). An index outside [0, oH*oW) fails the run with 161002 before
 * anything is written. Determinism: a plane is owned by one thread, its updates run in row-major order, so a
 * duplicate index takes the last value (as PyTorch's CPU kernel does) for any thread count. */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int64_t planes, in_sz, out_sz; /* planes, spatial size of self, spatial size of out */
} mu_params;

static aclnnStatus mu_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mu_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(x->dtype);
    const int64_t total = p->planes * p->in_sz;
    char *xb = ix_load_raw(x);
    int64_t *ib = ix_load_index(iv);
    char *ob = md_alloc(p->planes * p->out_sz, es);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!xb || !ib || !ob) rc = OOM;
    else {
        int64_t bad = -1;
        for (int64_t e = 0; e < total && bad < 0; e++)
            if (ib[e] < 0 || ib[e] >= p->out_sz) bad = e;
        if (bad >= 0) {
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                            "indices: value %lld at position %lld is outside the output plane [0, %lld); nothing "
                            "was written.", (long long)ib[bad], (long long)bad, (long long)p->out_sz);
        } else {
            memset(ob, 0, (size_t)(p->planes * p->out_sz) * es);
            ACL_FOR(acl_parallel_worth(total), pl, 0, p->planes, {
                char *dst = ob + (size_t)(pl * p->out_sz) * es;
                const char *src = xb + (size_t)(pl * p->in_sz) * es;
                const int64_t *ix = ib + pl * p->in_sz;
                for (int64_t i = 0; i < p->in_sz; i++) memcpy(dst + (size_t)ix[i] * es, src + (size_t)i * es, es);
            });
            md_store(ob, x->dtype, o);
        }
    }
    free(xb);
    free(ib);
    free(ob);
    return rc;
}

static aclnnStatus mu_dtypes(const aclTensor *self, const aclTensor *indices, const aclTensor *outRef,
                             const char *oname, const aclDataType *list, int n) {
    ACL_TRY(acl_check_dtype_in(self, list, n, "self"));
    ACLNN_CHECK(outRef->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be self's dtype %s.",
                oname, acl_dtype_name(outRef->dtype), acl_dtype_name(self->dtype));
    ACLNN_CHECK(indices->dtype == ACL_INT32 || indices->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID,
                "indices dtype %s should be int32 or int64.", acl_dtype_name(indices->dtype));
    return ACLNN_SUCCESS;
}

/* self's rank is lo or lo + 1, indices of the same rank and shape, the non-batch dims of self non-empty */
static aclnnStatus mu_shapes(const aclTensor *self, const aclTensor *indices, int lo, const char *what) {
    const int r = (int)self->ndim;
    ACLNN_CHECK(r == lo || r == lo + 1, ACLNN_ERR_PARAM_INVALID, "self should be a %dd or %dd tensor (%s), got %dd.",
                lo, lo + 1, what, r);
    ACLNN_CHECK((int)indices->ndim == r, ACLNN_ERR_PARAM_INVALID, "indices should have self's rank %d, got %d.", r,
                (int)indices->ndim);
    ACL_TRY(acl_check_same_shape(self, "self", indices, "indices"));
    for (int k = 1; k < r; k++)
        ACLNN_CHECK(self->dims[k] > 0, ACLNN_ERR_PARAM_INVALID,
                    "self should have non-empty non-batch dims, but dim %d of its %d is empty.", k, r);
    return ACLNN_SUCCESS;
}

static aclnnStatus mu_exec(int op, const aclTensor *self, const aclTensor *indices, aclTensor *outRef,
                           const char *oname, int nsp, const int64_t *osz, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    const int r = (int)self->ndim, s0 = r - nsp;
    mu_params p = {1, 1, 1};
    for (int k = 0; k < s0; k++) p.planes *= self->dims[k];
    for (int k = s0; k < r; k++) p.in_sz *= self->dims[k];
    for (int k = 0; k < nsp; k++) p.out_sz *= osz[k]; /* bounded: checked against INT32 limits by the callers */
    int64_t want = 0;
    ACLNN_CHECK(!__builtin_mul_overflow(p.planes, p.out_sz, &want) && want == acl_tensor_numel(outRef),
                ACLNN_ERR_INNER_NULLPTR,
                "%s has %lld elements, but the result (%lld planes x %lld) cannot be reshaped to it.", oname,
                (long long)acl_tensor_numel(outRef), (long long)p.planes, (long long)p.out_sz);
    const aclTensor *ins[] = {self, indices}, *outs[] = {outRef};
    const char *inn[] = {"self", "indices"}, *outn[] = {oname};
    return ix_exec(op, mu_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor, &p);
}

aclnnStatus opws_MaxUnpool2d(const aclTensor *self, const aclTensor *indices, const aclIntArray *outputSize,
                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(indices, "indices");
    ACLNN_CHECK(outputSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputSize must not be NULL.");
    NN(out, "out");
    ACL_TRY(mu_dtypes(self, indices, out, "out", ACL_DT_LIST_MaxUnpool2d));
    ACL_TRY(mu_shapes(self, indices, 3, "(C, H, W) or (N, C, H, W)"));
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize should have 2 elements, got %llu.",
                (unsigned long long)outputSize->size);
    for (int k = 0; k < 2; k++)
        ACLNN_CHECK(outputSize->v[k] > 0 && outputSize->v[k] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID,
                    "outputSize[%d] should be in [1, %d], got %lld.", k, INT32_MAX, (long long)outputSize->v[k]);
    const int r = (int)self->ndim;
    const int64_t h = self->dims[r - 2], w = self->dims[r - 1];
    ACLNN_CHECK(outputSize->v[0] * outputSize->v[1] >= h * w, ACLNN_ERR_PARAM_INVALID,
                "outputSize %lld x %lld should hold self's spatial size %lld x %lld.", (long long)outputSize->v[0],
                (long long)outputSize->v[1], (long long)h, (long long)w);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_MaxUnpool2d, workspaceSize, executor);
    return mu_exec(ACL_OP_MaxUnpool2d, self, indices, out, "out", 2, outputSize->v, workspaceSize, executor);
}

aclnnStatus opws_MaxUnpool3d(const aclTensor *self, const aclTensor *indices, const aclIntArray *outputSize,
                             const aclIntArray *stride, const aclIntArray *padding, aclTensor *outRef,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(indices, "indices");
    ACLNN_CHECK(outputSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputSize must not be NULL.");
    ACLNN_CHECK(stride != NULL, ACLNN_ERR_PARAM_NULLPTR, "stride must not be NULL.");
    ACLNN_CHECK(padding != NULL, ACLNN_ERR_PARAM_NULLPTR, "padding must not be NULL.");
    NN(outRef, "outRef");
    ACLNN_CHECK(acl_tensor_row_major(outRef), ACLNN_ERR_PARAM_INVALID, "outRef must be contiguous.");
    ACL_TRY(mu_dtypes(self, indices, outRef, "outRef", ACL_DT_LIST_MaxUnpool3d));
    ACL_TRY(mu_shapes(self, indices, 4, "(C, D, H, W) or (N, C, D, H, W)"));
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID,
                "outputSize should have 3 elements (depth, height, width), got %llu.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(stride->size == 3, ACLNN_ERR_PARAM_INVALID,
                "stride should have 3 elements (depth, height, width), got %llu.", (unsigned long long)stride->size);
    ACLNN_CHECK(padding->size == 3, ACLNN_ERR_PARAM_INVALID,
                "padding should have 3 elements (depth, height, width), got %llu.",
                (unsigned long long)padding->size);
    for (int k = 0; k < 3; k++) {
        ACLNN_CHECK(stride->v[k] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%d] should be > 0, got %lld.", k,
                    (long long)stride->v[k]);
        ACLNN_CHECK(outputSize->v[k] > 0 && outputSize->v[k] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID,
                    "outputSize[%d] should be in [1, %d], got %lld.", k, INT32_MAX, (long long)outputSize->v[k]);
    }
    const int r = (int)self->ndim, s0 = r - 3;
    const int64_t in_sz = self->dims[s0] * self->dims[s0 + 1] * self->dims[s0 + 2];
    int64_t osz = 0;
    ACLNN_CHECK(!__builtin_mul_overflow(outputSize->v[0] * outputSize->v[1], outputSize->v[2], &osz) && osz >= in_sz,
                ACLNN_ERR_PARAM_INVALID, "outputSize (%lld, %lld, %lld) should hold self's spatial size %lld.",
                (long long)outputSize->v[0], (long long)outputSize->v[1], (long long)outputSize->v[2],
                (long long)in_sz);
    ACLNN_CHECK((int)outRef->ndim == r, ACLNN_ERR_PARAM_INVALID, "outRef should have self's rank %d, got %d.", r,
                (int)outRef->ndim);
    for (int k = 0; k < s0; k++)
        ACLNN_CHECK(outRef->dims[k] == self->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "outRef should have self's batch dims: dim %d is %lld, self's %lld.", k,
                    (long long)outRef->dims[k], (long long)self->dims[k]);
    for (int k = 0; k < 3; k++)
        ACLNN_CHECK(outRef->dims[s0 + k] == outputSize->v[k], ACLNN_ERR_PARAM_INVALID,
                    "outRef's spatial dims should be outputSize: dim %d is %lld, outputSize[%d] %lld.", s0 + k,
                    (long long)outRef->dims[s0 + k], k, (long long)outputSize->v[k]);
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_MaxUnpool3d, workspaceSize, executor);
    return mu_exec(ACL_OP_MaxUnpool3d, self, indices, outRef, "outRef", 3, outputSize->v, workspaceSize, executor);
}
