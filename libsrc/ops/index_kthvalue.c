/* Kthvalue (torch.kthvalue): the k-th smallest element along dim, with its index. Validation follows op_api
 * aclnn_kthvalue.cpp (hicann/ops-nn index/gather_v2) in its order: NULLs (161001); dim in range (a 0-d self takes
 * 0 or -1) and 1 <= k <= the length of dim (1 for a 0-d self); self's dtype in the A2 list, valuesOut of self's
 * dtype, indicesOut int64; rank <= 8; an empty self launches nothing; then valuesOut/indicesOut must have the
 * reduced shape (keepdim keeps dim as 1). The A2 path sorts each lane ascending and stably and picks position k - 1,
 * so ties give the earliest position and NaN sorts after every number. Each lane is owned by one thread: the same
 * bytes for any thread count. */
#include "ops/index_common.h"

typedef struct {
    int dim;
    int64_t k;
} kth_params;

typedef struct {
    double v;
    int64_t key, i;
} kth_item;

static int kth_cmp_f(const void *a, const void *b) {
    const kth_item *x = a, *y = b;
    const int nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny) return nx - ny;
    if (!nx && x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int kth_cmp_i(const void *a, const void *b) {
    const kth_item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static aclnnStatus kth_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const kth_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *vo = acl_exec_out(ex, 0), *io = acl_exec_out(ex, 1);
    const bool isf = acl_dt_is_float(x->dtype);
    int64_t outer = 1, len = 1, inner = 1;
    if (x->ndim) ix_split(x->dims, x->ndim, p->dim, &outer, &len, &inner);
    double *fb = isf ? md_load(x, ACL_DOUBLE) : NULL;
    int64_t *ib = isf ? NULL : md_load(x, ACL_INT64);
    const int64_t lanes = outer * inner;
    double *vals = md_alloc(lanes, sizeof(double));
    int64_t *ivals = md_alloc(lanes, sizeof(int64_t)), *idx = md_alloc(lanes, sizeof(int64_t));
    kth_item *items = md_alloc(len * (acl_max_threads() + 1), sizeof(kth_item));
    aclnnStatus rc = ACLNN_SUCCESS;
    if ((isf ? !fb : !ib) || !vals || !ivals || !idx || !items) rc = OOM;
    else {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(lanes * len))
        for (int64_t l = 0; l < lanes; l++) {
            kth_item *it = items;
#ifdef _OPENMP
            it = items + (size_t)(omp_get_thread_num() + 1) * (size_t)len;
#endif
            const int64_t o = l / inner, i = l % inner;
            for (int64_t j = 0; j < len; j++) {
                const int64_t e = (o * len + j) * inner + i;
                it[j].v = isf ? fb[e] : 0;
                it[j].key = isf ? 0 : ib[e];
                it[j].i = j;
            }
            qsort(it, (size_t)len, sizeof(kth_item), isf ? kth_cmp_f : kth_cmp_i);
            const kth_item m = it[p->k - 1];
            vals[l] = m.v;
            ivals[l] = m.key;
            idx[l] = m.i;
        }
        if (isf) md_store(vals, ACL_DOUBLE, vo); /* lanes in row-major order fill the reduced shape */
        else md_store(ivals, ACL_INT64, vo);
        md_store(idx, ACL_INT64, io);
    }
    free(fb);
    free(ib);
    free(vals);
    free(ivals);
    free(idx);
    free(items);
    return rc;
}

aclnnStatus opws_Kthvalue(const aclTensor *self, int64_t k, int64_t dim, bool keepdim, aclTensor *valuesOut,
                          aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    const int64_t r = (int64_t)self->ndim;
    if (r == 0)
        ACLNN_CHECK(dim == 0 || dim == -1, ACLNN_ERR_PARAM_INVALID, "dim %lld: a 0-d self takes dim 0 or -1.",
                    (long long)dim);
    else
        ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                    "dim: Dimension out of range (expected to be in range of [-%lld, %lld], but got %lld)",
                    (long long)r, (long long)(r - 1), (long long)dim);
    const int d = r == 0 ? 0 : (int)(dim < 0 ? dim + r : dim);
    const int64_t n = r ? self->dims[d] : 1;
    ACLNN_CHECK(k > 0 && k <= n, ACLNN_ERR_PARAM_INVALID,
                "k: selected index k out of range (self.size(%d) is %lld, but k is %lld)", d, (long long)n,
                (long long)k);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Kthvalue, "self"));
    ACL_TRY(acl_check_same_dtype(valuesOut, "valuesOut", self, "self"));
    ACLNN_CHECK(indicesOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "indicesOut dtype %s should be int64.",
                acl_dtype_name(indicesOut->dtype));
    ACL_TRY(md_check_max_dim(self, "self"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Kthvalue, workspaceSize, executor);
    int64_t rd[ACL_MAX_TENSOR_DIMS];
    int m = 0;
    for (int j = 0; j < (int)r; j++)
        if (j != d) rd[m++] = self->dims[j];
        else if (keepdim) rd[m++] = 1;
    ACL_TRY(ix_check_shape(valuesOut, rd, m, "valuesOut"));
    ACL_TRY(ix_check_shape(indicesOut, rd, m, "indicesOut"));
    kth_params p = {d, k};
    const aclTensor *ins[] = {self}, *outs[] = {valuesOut, indicesOut};
    const char *inn[] = {"self"}, *outn[] = {"valuesOut", "indicesOut"};
    return ix_exec(ACL_OP_Kthvalue, kth_run, sizeof p, ins, inn, 1, outs, outn, 2, workspaceSize, executor, &p);
}
