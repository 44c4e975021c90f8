/* EmbeddingDenseBackward: out[numWeights, D] = sum of the grad rows of every index equal to the row (indices equal
 * to paddingIdx contribute nothing; with scaleGradByFreq each contribution is divided by its index's count).
 * Validation follows op_api aclnn_embedding_dense_backward.cpp (hicann/ops-nn index/embedding_dense_grad_v2). The
 * rows are summed in double in the order of the indices (PyTorch's deterministic CPU order) and rounded once into
 * out; each output row is owned by one pass over the indices, so the bytes do not depend on the thread count.
 * Indices outside [0, numWeights) (the device does not check them) are skipped. Float indices are truncated. */
#include "ops/index_common.h"

typedef struct {
    uint64_t pad;
    bool scale;
} edb_params;

static aclnnStatus edb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const edb_params *p = ex->params;
    const acl_view *g = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const int64_t nw = o->dims[0], d = o->dims[1];
    double *acc = md_alloc(nw * d, sizeof(double));
    if (!acc) return OOM;
    const int64_t ni = md_numel(iv);
    if (ni > 0 && d > 0) {
        double *gr = md_load(g, ACL_DOUBLE);
        int64_t *idx = ix_load_index(iv), *cnt = md_alloc(nw, sizeof(int64_t));
        if (!gr || !idx || !cnt) {
            free(gr);
            free(idx);
            free(cnt);
            free(acc);
            return OOM;
        }
        for (int64_t i = 0; i < ni; i++)
            if (idx[i] >= 0 && idx[i] < nw) cnt[idx[i]]++;
        for (int64_t i = 0; i < ni; i++) {
            const int64_t k = idx[i];
            if (k < 0 || k >= nw || (uint64_t)k == p->pad) continue;
            const double sc = p->scale ? 1.0 / (double)cnt[k] : 1.0;
            double *a = acc + k * d;
            const double *r = gr + i * d;
            for (int64_t j = 0; j < d; j++) a[j] += p->scale ? r[j] * sc : r[j];
        }
        free(gr);
        free(idx);
        free(cnt);
    }
    md_store(acc, ACL_DOUBLE, o);
    free(acc);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_EmbeddingDenseBackward(const aclTensor *grad, const aclTensor *indices, uint64_t numWeights,
                                        uint64_t paddingIdx, bool scaleGradByFreq, const aclTensor *out,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(grad, "grad");
    NN(indices, "indices");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(grad, ACL_DT_LIST_EmbeddingDenseBackward, "grad"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_EmbeddingDenseBackward_indices, "indices"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_EmbeddingDenseBackward_out, "out"));
    ACL_TRY(md_check_max_dim(grad, "grad"));
    ACL_TRY(md_check_max_dim(indices, "indices"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACLNN_CHECK(grad->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "grad must have at least 1 dim.");
    const int64_t dlen = grad->dims[grad->ndim - 1];
    if (dlen != 0) {
        int64_t gr = 1, ir = 1;
        for (uint64_t k = 0; k + 1 < grad->ndim; k++) gr *= grad->dims[k];
        for (uint64_t k = 0; k < indices->ndim; k++) ir *= indices->dims[k];
        ACLNN_CHECK(gr == ir, ACLNN_ERR_PARAM_INVALID, "grad shape is not match with indices shape.");
    }
    ACLNN_CHECK(out->ndim == 2, ACLNN_ERR_PARAM_INVALID, "out dim num should be 2, got %llu.",
                (unsigned long long)out->ndim);
    ACLNN_CHECK((uint64_t)out->dims[0] == numWeights && out->dims[1] == dlen, ACLNN_ERR_PARAM_INVALID,
                "out shape is not match with infershape {%llu, %lld}.", (unsigned long long)numWeights,
                (long long)dlen);
    ACLNN_CHECK(!acl_format_is_private(grad->format) && !acl_format_is_private(indices->format) &&
                    !acl_format_is_private(out->format),
                ACLNN_ERR_PARAM_INVALID, "grad/indices/out: format only support ND.");
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_EmbeddingDenseBackward, workspaceSize, executor);
    /* an empty grad or indices: out is zeroed */
    edb_params p = {paddingIdx, scaleGradByFreq};
    const bool e = acl_tensor_empty(grad) || acl_tensor_empty(indices);
    const aclTensor *ins[] = {grad, indices}, *outs[] = {out};
    const char *inn[] = {"grad", "indices"}, *outn[] = {"out"};
    (void)e;
    return ix_exec(ACL_OP_EmbeddingDenseBackward, edb_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize,
                   executor, &p);
}
