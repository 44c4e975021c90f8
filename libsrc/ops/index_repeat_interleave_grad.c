/* RepeatInterleaveGrad (the backward of torch.repeat_interleave along axis): out[.., j, ..] is the sum of the
 * segment j of yGrad along axis, the segments being repeats' counts in order (a single count r: every run of r
 * positions). No op_api source exists upstream (the first phase is generated from op_host
 * repeat_interleave_grad_def.cpp), so the checks are nnopbase's: NULLs (161001); the op definition's dtypes
 * (yGrad FLOAT/FLOAT16/BF16, repeats INT32/INT64, out yGrad's dtype: 161002); then the shape rules of the doc, each
 * 561002 (ACLNN_ERR_INNER_TILING_ERROR, as the doc gives for an empty repeats): repeats 0-d or 1-d and not empty,
 * axis in [-n, n), out holding yGrad's element count with axis reduced to the number of segments (repeats' length,
 * or, for a single count, out's element count over the other dims). The counts are read in phase 2; a segment that
 * runs past the end of axis is cut there, and a negative count is an empty segment (the doc requires natural numbers
 * summing to the axis length). Sums are accumulated in double in axis order and rounded once; each out element is
 * owned by one thread. */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int axis;
    int64_t L; /* out's length along axis */
} rig_params;

static aclnnStatus rig_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rig_params *p = ex->params;
    const acl_view *y = acl_exec_in(ex, 0), *rv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    int64_t outer = 1, n = 1, inner = 1;
    if (y->ndim) ix_split(y->dims, y->ndim, p->axis, &outer, &n, &inner);
    const int64_t nr = md_numel(rv), L = p->L;
    double *src = md_load(y, ACL_DOUBLE), *dst = md_alloc(outer * L * inner, sizeof(double));
    int64_t *r = ix_load_index(rv), *start = md_alloc(L + 1, sizeof(int64_t));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!src || !dst || !r || !start) rc = OOM;
    else {
        int64_t pos = 0; /* segment j covers [start[j], start[j + 1]) clipped to [0, n) */
        for (int64_t j = 0; j < L; j++) {
            start[j] = pos;
            const int64_t c = nr == 1 ? r[0] : r[j];
            if (c > 0) pos = c > n - pos ? n : pos + c;
        }
        start[L] = pos;
        const int64_t total = outer * L * inner;
        ACL_FOR(acl_parallel_worth(outer * n * inner), e, 0, total, {
            const int64_t oo = e / (L * inner), j = (e / inner) % L, i = e % inner;
            double s = 0;
            for (int64_t t = start[j]; t < start[j + 1]; t++) s += src[(oo * n + t) * inner + i];
            dst[e] = s;
        });
        acl_view ov = *o; /* out: any shape of the right element count, filled row-major */
        md_store(dst, ACL_DOUBLE, &ov);
    }
    free(src);
    free(dst);
    free(r);
    free(start);
    return rc;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_RepeatInterleaveGrad(const aclTensor *yGrad, const aclTensor *repeats, int64_t axis,
                                      const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(yGrad, "yGrad");
    NN(repeats, "repeats");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(yGrad, ACL_DT_LIST_RepeatInterleaveGrad, "yGrad"));
    ACL_TRY(acl_check_dtype_in(repeats, ACL_DT_LIST_RepeatInterleaveGrad_repeats, "repeats"));
    ACL_TRY(acl_check_same_dtype(out, "out", yGrad, "yGrad"));
    ACL_TRY(md_check_max_dim(yGrad, "yGrad"));
    TILING(repeats->ndim <= 1, "repeats has %llu dims; it must be 0-d or 1-d.", (unsigned long long)repeats->ndim);
    TILING(!acl_tensor_empty(repeats), "repeats must not be empty.");
    const int64_t rk = (int64_t)yGrad->ndim, rr = rk ? rk : 1;
    TILING(axis >= -rr && axis < rr, "axis %lld out of range [%lld, %lld).", (long long)axis, (long long)-rr,
           (long long)rr);
    const int a = rk == 0 ? 0 : (int)(axis < 0 ? axis + rk : axis);
    int64_t outer = 1, n = 1, inner = 1;
    if (rk) ix_split(yGrad->dims, (int)rk, a, &outer, &n, &inner);
    const int64_t nr = acl_tensor_numel(repeats), on = acl_tensor_numel(out), rest = outer * inner;
    int64_t L;
    if (nr > 1) {
        L = nr;
        TILING(on == rest * L, "out holds %lld elements; the reduced shape of yGrad holds %lld.", (long long)on,
               (long long)(rest * L));
    } else {
        TILING(rest == 0 ? on == 0 : on % rest == 0, "out holds %lld elements, not a multiple of %lld.",
               (long long)on, (long long)rest);
        L = rest ? on / rest : 0;
        TILING(L <= n, "out holds %lld elements, more than yGrad's %lld.", (long long)on, (long long)(rest * n));
    }
    if (acl_tensor_empty(yGrad) || on == 0) return acl_exec_noop(ACL_OP_RepeatInterleaveGrad, workspaceSize, executor);
    rig_params p = {a, L};
    const aclTensor *ins[] = {yGrad, repeats}, *outs[] = {out};
    const char *inn[] = {"yGrad", "repeats"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_RepeatInterleaveGrad, rig_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize,
                   executor, &p);
}
