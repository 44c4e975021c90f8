/* MedianDim and NanMedianDim (torch.median / torch.nanmedian along a dim, with indices). Validation follows op_api
 * aclnn_median.cpp (hicann/ops-nn index/gather_v2) in its order; valuesOut/indicesOut must also have the reduced shape
 * (not an op_api rule: what the op writes). The lower median ((n - 1) / 2 of the sorted lane, as PyTorch); MedianDim
 * returns NaN with the first NaN's index when a lane holds one, NanMedianDim ignores NaN (an all-NaN lane gives NaN at
 * index 0). Lanes are sorted stably (ties give the earliest position; PyTorch leaves that choice unspecified). Each
 * lane is owned by one thread: the same bytes for any thread count. */
#include "ops/index_lane_select.h"

typedef struct {
    int dim;
    bool nan_skip;
    bool flat; /* Median / NanMedian: the whole tensor, no indices */
} md_params;

/* the lower median ((n - 1) / 2 of the sorted numbers); NaN (with the first NaN's position) when the lane holds one
 * and NaN is not skipped, or when it holds nothing else */
static bool med_pick(const void *params, const ls_item *sorted, int64_t n, int64_t first_nan, ls_item *out,
                     int64_t *nan_pos) {
    const bool nan_skip = ((const md_params *)params)->nan_skip;
    if ((first_nan >= 0 && !nan_skip) || n == 0) {
        *nan_pos = first_nan >= 0 && !nan_skip ? first_nan : 0;
        return false;
    }
    *out = sorted[(n - 1) / 2];
    return true;
}

static aclnnStatus med_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const md_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    ls_plan plan = {1, 1, 1, true, med_pick, p};
    if (p->flat) plan.len = md_numel(x);
    else if (x->ndim) ix_split(x->dims, x->ndim, p->dim, &plan.outer, &plan.len, &plan.inner);
    return ls_run(&plan, x, acl_exec_out(ex, 0), p->flat ? NULL : acl_exec_out(ex, 1));
}

static aclnnStatus med_common(int op, const aclTensor *self, int64_t dim, bool keepDim, aclTensor *valuesOut,
                              aclTensor *indicesOut, bool nan_skip, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MedianDim, "self"));
    ACL_TRY(acl_check_dtype_in(valuesOut, ACL_DT_LIST_MedianDim, "valuesOut"));
    ACL_TRY(acl_check_same_dtype(valuesOut, "valuesOut", self, "self"));
    ACLNN_CHECK(indicesOut->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "indicesOut dtype %s should be int64.",
                acl_dtype_name(indicesOut->dtype));
    const int64_t r = (int64_t)self->ndim;
    const int64_t lo = -r < r - 1 ? -r : r - 1, hi = -r > r - 1 ? -r : r - 1;
    ACLNN_CHECK(dim >= lo && dim <= hi, ACLNN_ERR_PARAM_INVALID, "dim should be in range [%lld, %lld].",
                (long long)lo, (long long)hi);
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(valuesOut, "valuesOut"));
    ACL_TRY(md_check_max_dim(indicesOut, "indicesOut"));
    const uint64_t en = r == 0 ? 0 : (keepDim ? (uint64_t)r : (uint64_t)r - 1);
    ACLNN_CHECK(valuesOut->ndim == en, ACLNN_ERR_PARAM_INVALID, "valuesOut should have %llu dims.",
                (unsigned long long)en);
    ACLNN_CHECK(indicesOut->ndim == en, ACLNN_ERR_PARAM_INVALID, "indicesOut should have %llu dims.",
                (unsigned long long)en);
    const int d = r == 0 ? 0 : (int)((dim + r) % r);
    if (r)
        ACLNN_CHECK(!(self->dtype == ACL_BF16 && self->dims[d] == 1), ACLNN_ERR_PARAM_INVALID,
                    "self: the dim axis value is not support 1 when input type is BF16.");
    if (nan_skip && r && acl_tensor_empty(self))
        ACLNN_CHECK(self->dims[d] != 0, ACLNN_ERR_PARAM_INVALID, "self: expected reduction dim %d to have non-zero size.",
                    d);
    if (acl_tensor_empty(self) || acl_tensor_empty(valuesOut) || acl_tensor_empty(indicesOut))
        return acl_exec_noop(op, ws, exo);
    /* not an op_api rule: the reduced shape */
    int64_t rd[ACL_MAX_TENSOR_DIMS];
    int n = 0;
    for (int k = 0; k < (int)r; k++)
        if (k != d) rd[n++] = self->dims[k];
        else if (keepDim) rd[n++] = 1;
    ACL_TRY(ix_check_shape(valuesOut, rd, n, "valuesOut"));
    ACL_TRY(ix_check_shape(indicesOut, rd, n, "indicesOut"));
    md_params p = {d, nan_skip, false};
    const aclTensor *ins[] = {self}, *outs[] = {valuesOut, indicesOut};
    const char *inn[] = {"self"}, *outn[] = {"valuesOut", "indicesOut"};
    return ix_exec(op, med_run, sizeof p, ins, inn, 1, outs, outn, 2, ws, exo, &p);
}

aclnnStatus opws_MedianDim(const aclTensor *self, int64_t dim, bool keepDim, aclTensor *valuesOut,
                           aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return med_common(ACL_OP_MedianDim, self, dim, keepDim, valuesOut, indicesOut, false, workspaceSize, executor);
}

aclnnStatus opws_NanMedianDim(const aclTensor *self, int64_t dim, bool keepDim, aclTensor *valuesOut,
                              aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return med_common(ACL_OP_NanMedianDim, self, dim, keepDim, valuesOut, indicesOut, true, workspaceSize, executor);
}

/* Median / NanMedian: the lower median of all elements into a one-element valuesOut. An empty self fills valuesOut
 * (NaN for the float dtypes; Median: INT64_MIN / INT32_MIN for int64 / int32, else 0; NanMedian: NaN or 0), as the
 * op_api's empty-tensor paths do. */
static aclnnStatus fill_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const md_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t n = md_numel(o);
    double *v = md_alloc(n, sizeof(double));
    if (!v) return OOM;
    double f = 0;
    if (acl_dt_is_float(o->dtype)) f = NAN;
    else if (!p->nan_skip && o->dtype == ACL_INT64) f = (double)INT64_MIN;
    else if (!p->nan_skip && o->dtype == ACL_INT32) f = (double)INT32_MIN;
    for (int64_t e = 0; e < n; e++) v[e] = f;
    md_store(v, ACL_DOUBLE, o);
    free(v);
    return ACLNN_SUCCESS;
}

static aclnnStatus med_all(int op, const aclTensor *self, aclTensor *valuesOut, const char *oname, bool nan_skip,
                           uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(valuesOut, oname);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MedianDim, "self"));
    ACL_TRY(acl_check_dtype_in(valuesOut, ACL_DT_LIST_MedianDim, oname));
    ACL_TRY(acl_check_same_dtype(valuesOut, oname, self, "self"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(valuesOut, oname));
    if (self->ndim)
        ACLNN_CHECK(!(self->dtype == ACL_BF16 && self->dims[self->ndim - 1] == 1), ACLNN_ERR_PARAM_INVALID,
                    "self: the last axis value is not support 1 when input type is BF16.");
    if (!nan_skip && acl_tensor_empty(valuesOut)) return acl_exec_noop(op, ws, exo);
    md_params p = {0, nan_skip, true};
    const aclTensor *ins[] = {self}, *outs[] = {valuesOut};
    const char *inn[] = {"self"}, *outn[] = {oname};
    if (acl_tensor_empty(self)) return ix_exec(op, fill_run, sizeof p, ins, inn, 0, outs, outn, 1, ws, exo, &p);
    /* not an op_api rule: the one value written */
    ACLNN_CHECK(acl_tensor_numel(valuesOut) == 1, ACLNN_ERR_PARAM_INVALID, "%s should hold one element.", oname);
    return ix_exec(op, med_run, sizeof p, ins, inn, 1, outs, outn, 1, ws, exo, &p);
}

aclnnStatus opws_Median(const aclTensor *self, aclTensor *valuesOut, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    return med_all(ACL_OP_Median, self, valuesOut, "valuesOut", false, workspaceSize, executor);
}

aclnnStatus opws_NanMedian(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return med_all(ACL_OP_NanMedian, self, out, "out", true, workspaceSize, executor);
}
