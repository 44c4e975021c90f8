/* Kthvalue (torch.kthvalue): the k-th smallest element along dim, with its index. Validation follows op_api
 * aclnn_kthvalue.cpp (hicann/ops-nn index/gather_v2) in its order: NULLs (161001); dim in range (a 0-d self takes
 * 0 or -1) and 1 <= k <= the length of dim (1 for a 0-d self); self's dtype in the A2 list, valuesOut of self's
 * dtype, indicesOut int64; rank <= 8; an empty self launches nothing; then valuesOut/indicesOut must have the
 * reduced shape (keepdim keeps dim as 1). The A2 path sorts each lane ascending and stably and picks position k - 1,
 * so ties give the earliest position and NaN sorts after every number. Each lane is owned by one thread: the same
 * bytes for any thread count. */
#include "ops/index_lane_select.h"

typedef struct {
    int dim;
    int64_t k;
} kth_params;

/* the lane's k-th smallest (NaN sorted after every number) */
static bool kth_pick(const void *params, const ls_item *sorted, int64_t n, int64_t first_nan, ls_item *out,
                     int64_t *nan_pos) {
    (void)n;
    (void)first_nan;
    (void)nan_pos;
    *out = sorted[((const kth_params *)params)->k - 1];
    return true;
}

static aclnnStatus kth_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const kth_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    ls_plan plan = {1, 1, 1, false, kth_pick, p};
    if (x->ndim) ix_split(x->dims, x->ndim, p->dim, &plan.outer, &plan.len, &plan.inner);
    return ls_run(&plan, x, acl_exec_out(ex, 0), acl_exec_out(ex, 1));
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
