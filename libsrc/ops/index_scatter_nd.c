/* ScatterNd (out = data with out[indices[b]] = updates[b]), ScatterNdUpdate (the same in place), InplacePut
 * (torch.Tensor.put_: self.flatten()[index] = source.flatten(), or += with accumulate).
 * Validation follows op_api aclnn_scatter_nd.cpp, aclnn_scatter_nd_update.cpp and aclnn_put.cpp (hicann/ops-nn
 * index/scatter_nd, scatter_nd_update). The updates run serially in the row-major order of the index rows: the last
 * duplicate wins, accumulation sums in index order (PyTorch's CPU order); the bytes do not depend on the thread
 * count. Out-of-range index rows (the device does not check them) are skipped; InplacePut wraps negative indices as
 * put_ does. ScatterNdUpdate's op_api checks no shapes: the ScatterNd shape rule is applied (not an op_api rule) so
 * that nothing outside a view is read. */
#include "ops/index_common.h"

typedef struct {
    int mode;  /* IX_SET / IX_ADD */
    bool flat; /* InplacePut: self seen as 1-D, negative indices wrap */
    bool rows; /* TfScatterAdd in its ScatterAdd form: every index element picks a row along dim 0 */
} snd_params;

static aclnnStatus snd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const snd_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *uv = acl_exec_in(ex, 2);
    const acl_view *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(x->dtype);
    const size_t es = md_class_size(c);
    char *dst = md_load(x, md_class_dt(c)), *upd = md_load(uv, md_class_dt(c));
    int64_t *idx = ix_load_index(iv);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!dst || !upd || !idx) rc = OOM;
    else {
        int64_t xd[ACL_MAX_VIEW_RANK], r = x->ndim, q;
        if (p->flat) {
            xd[0] = md_numel(x);
            r = 1;
            q = 1;
        } else {
            for (int k = 0; k < r; k++) xd[k] = x->dims[k];
            q = p->rows ? 1 : iv->dims[iv->ndim - 1];
        }
        const int64_t nb = q ? md_numel(iv) / q : 0;
        int64_t inner = 1, sst[ACL_MAX_VIEW_RANK];
        for (int64_t k = q; k < r; k++) inner *= xd[k];
        int64_t s = inner;
        for (int64_t k = q - 1; k >= 0; k--) {
            sst[k] = s;
            s *= xd[k];
        }
        for (int64_t b = 0; b < nb; b++) {
            int64_t off = 0;
            bool ok = true;
            for (int64_t k = 0; k < q; k++) {
                int64_t j = idx[b * q + k];
                if (p->flat && j < 0) j += xd[k];
                if (j < 0 || j >= xd[k]) ok = false;
                else off += j * sst[k];
            }
            if (!ok) continue;
            for (int64_t i = 0; i < inner; i++)
                ix_apply(c, p->mode, dst + (size_t)(off + i) * es, upd + (size_t)(b * inner + i) * es);
        }
        md_store(dst, md_class_dt(c), o);
    }
    free(dst);
    free(upd);
    free(idx);
    return rc;
}

static aclnnStatus snd_exec(int op, const aclTensor *data, const char *dn, const aclTensor *indices, const char *in,
                            const aclTensor *updates, const char *un, const aclTensor *out, const char *on,
                            snd_params p, uint64_t *ws, aclOpExecutor **exo) {
    const aclTensor *ins[] = {data, indices, updates}, *outs[] = {out};
    const char *inn[] = {dn, in, un}, *outn[] = {on};
    return ix_exec(op, snd_run, sizeof p, ins, inn, 3, outs, outn, 1, ws, exo, &p);
}

/* updates.shape == indices.shape[:-1] + data.shape[indices.shape[-1]:] */
static aclnnStatus nd_shapes(const aclTensor *data, const char *dn, const aclTensor *indices,
                             const aclTensor *updates) {
    const int64_t ir = (int64_t)indices->ndim, q = indices->dims[ir - 1], dr = (int64_t)data->ndim;
    ACLNN_CHECK(dr + ir - q - 1 == (int64_t)updates->ndim, ACLNN_ERR_PARAM_INVALID,
                "updates: the rank of %s and indices should match the shape of updates.", dn);
    ACLNN_CHECK(q <= dr && q >= 0, ACLNN_ERR_PARAM_INVALID, "indices: the rank of %s should be bigger than indices.",
                dn);
    for (int64_t i = 0; i < ir - 1; i++)
        ACLNN_CHECK(updates->dims[i] == indices->dims[i], ACLNN_ERR_PARAM_INVALID,
                    "updates: the shape of %s, indices and updates are not matched.", dn);
    for (int64_t i = 0; i < dr - q; i++)
        ACLNN_CHECK(data->dims[i + q] == updates->dims[i + ir - 1], ACLNN_ERR_PARAM_INVALID,
                    "updates: the shape of %s, indices and updates are not matched.", dn);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ScatterNd(const aclTensor *data, const aclTensor *indices, const aclTensor *updates, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(data, "data");
    NN(indices, "indices");
    NN(updates, "updates");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(data, ACL_DT_LIST_ScatterNd, "data"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_ScatterNd_indices, "indices"));
    ACL_TRY(acl_check_same_dtype(updates, "updates", data, "data"));
    ACL_TRY(acl_check_same_dtype(out, "out", data, "data"));
    const aclTensor *ts[] = {data, indices, updates};
    const char *tn[] = {"data", "indices", "updates"};
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(ts[i]->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "%s must have at least 1 dim.", tn[i]);
    for (int i = 0; i < 3; i++) ACL_TRY(md_check_max_dim(ts[i], tn[i]));
    ACL_TRY(acl_check_same_shape(data, "data", out, "out"));
    ACL_TRY(nd_shapes(data, "data", indices, updates));
    if (acl_tensor_empty(data) || acl_tensor_empty(indices) || acl_tensor_empty(updates))
        return acl_exec_noop(ACL_OP_ScatterNd, workspaceSize, executor);
    return snd_exec(ACL_OP_ScatterNd, data, "data", indices, "indices", updates, "updates", out, "out",
                    (snd_params){IX_SET, false, false}, workspaceSize, executor);
}

aclnnStatus opws_ScatterNdUpdate(aclTensor *varRef, const aclTensor *indices, const aclTensor *updates,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(varRef, "varRef");
    NN(indices, "indices");
    NN(updates, "updates");
    ACL_TRY(acl_check_dtype_in(varRef, ACL_DT_LIST_ScatterNdUpdate, "varRef"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_ScatterNdUpdate_indices, "indices"));
    ACL_TRY(acl_check_same_dtype(updates, "updates", varRef, "varRef"));
    if (acl_tensor_empty(varRef) || acl_tensor_empty(indices) || acl_tensor_empty(updates))
        return acl_exec_noop(ACL_OP_ScatterNdUpdate, workspaceSize, executor);
    const aclTensor *ts[] = {varRef, indices, updates};
    const char *tn[] = {"varRef", "indices", "updates"};
    for (int i = 0; i < 3; i++) {
        ACLNN_CHECK(ts[i]->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "%s must have at least 1 dim.", tn[i]);
        ACL_TRY(md_check_max_dim(ts[i], tn[i]));
    }
    ACL_TRY(nd_shapes(varRef, "varRef", indices, updates));
    return snd_exec(ACL_OP_ScatterNdUpdate, varRef, "varRef", indices, "indices", updates, "updates", varRef,
                    "varRef", (snd_params){IX_SET, false, false}, workspaceSize, executor);
}

aclnnStatus opws_InplacePut(aclTensor *selfRef, const aclTensor *index, const aclTensor *source, bool accumulate,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    NN(index, "index");
    NN(source, "source");
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_InplacePut, "selfRef"));
    ACLNN_CHECK(!(accumulate && selfRef->dtype == ACL_BF16), ACLNN_ERR_PARAM_INVALID,
                "selfRef dtype BF16 is not supported with accumulate.");
    ACL_TRY(acl_check_dtype_in(index, ACL_DT_LIST_InplacePut_index, "index"));
    ACL_TRY(acl_check_same_dtype(source, "source", selfRef, "selfRef"));
    ACL_TRY(md_check_max_dim(selfRef, "selfRef"));
    ACL_TRY(md_check_max_dim(index, "index"));
    ACLNN_CHECK(acl_tensor_numel(index) == acl_tensor_numel(source), ACLNN_ERR_PARAM_INVALID,
                "Expect source and index to have the same number of elements, but the source has %lld, the index "
                "has %lld.", (long long)acl_tensor_numel(source), (long long)acl_tensor_numel(index));
    if (acl_tensor_empty(index)) return acl_exec_noop(ACL_OP_InplacePut, workspaceSize, executor);
    ACLNN_CHECK(!acl_tensor_empty(selfRef), ACLNN_ERR_PARAM_INVALID,
                "selfRef: can not put elements into an empty tensor");
    return snd_exec(ACL_OP_InplacePut, selfRef, "selfRef", index, "index", source, "source", selfRef, "selfRef",
                    (snd_params){accumulate ? IX_ADD : IX_SET, true, false}, workspaceSize, executor);
}

/* TfScatterAdd: varRef[indices[...]] += updates (TensorFlow's scatter_add: each index element picks a row along
 * dim 0), or, when the shapes fit only that form, scatter_nd_add (indices' last dim indexes the leading dims). */
static bool tf_rows_shape(const aclTensor *v, const aclTensor *i, const aclTensor *u) {
    if (u->ndim != i->ndim + v->ndim - 1) return false;
    for (uint64_t k = 0; k < i->ndim; k++)
        if (u->dims[k] != i->dims[k]) return false;
    for (uint64_t k = 1; k < v->ndim; k++)
        if (u->dims[k + i->ndim - 1] != v->dims[k]) return false;
    return true;
}

aclnnStatus opws_TfScatterAdd(aclTensor *varRef, const aclTensor *indices, const aclTensor *updates,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(varRef, "varRef");
    NN(indices, "indices");
    NN(updates, "updates");
    ACL_TRY(acl_check_dtype_in(varRef, ACL_DT_LIST_TfScatterAdd, "varRef"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_TfScatterAdd_indices, "indices"));
    ACL_TRY(acl_check_same_dtype(updates, "updates", varRef, "varRef"));
    const aclTensor *ts[] = {varRef, indices, updates};
    const char *tn[] = {"varRef", "indices", "updates"};
    for (int i = 0; i < 3; i++) {
        ACLNN_CHECK(ts[i]->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "%s must have at least 1 dim.", tn[i]);
        ACL_TRY(md_check_max_dim(ts[i], tn[i]));
    }
    ACLNN_CHECK(!(varRef->dims[0] == 0 && !acl_tensor_empty(indices)), ACLNN_ERR_PARAM_INVALID,
                "indices: when varRef.shape[0] = 0, indices tensor must be empty.");
    const bool rows = tf_rows_shape(varRef, indices, updates);
    if (!rows) ACL_TRY(nd_shapes(varRef, "varRef", indices, updates));
    if (acl_tensor_empty(varRef) || acl_tensor_empty(indices) || acl_tensor_empty(updates))
        return acl_exec_noop(ACL_OP_TfScatterAdd, workspaceSize, executor);
    return snd_exec(ACL_OP_TfScatterAdd, varRef, "varRef", indices, "indices", updates, "updates", varRef, "varRef",
                    (snd_params){IX_ADD, false, rows}, workspaceSize, executor);
}
