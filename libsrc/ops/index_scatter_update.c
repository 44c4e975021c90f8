/* InplaceScatterUpdate (hicann/ops-nn index/scatter, op_api aclnn_scatter_update.cpp): a window of updates written
 * into data along `axis`, one window per batch row (dim 0):
 *   data viewed as (B, M, S, T) around axis (B = dim 0, M = the dims between, S = dim axis, T = the dims after),
 *   updates as (Bu, M, Su, T); for every i < Bu, m, k < Su, t:
 *     data[b_i, m, off_i + k, t] = updates[i, m, k, t]
 *   indices 0-d or 1-d (Bu,): b_i = i, off_i = indices[i]; 2-d (Bu, 2): b_i = indices[i][0], off_i = indices[i][1].
 * Validation: the op_api's CheckParams in its order (NULL data, indices, updates: 161001; data's A2 dtype list,
 * indices int32/int64, updates of data's dtype; no empty tensor, data and updates of one rank, 0-d indices with
 * updates' dim 0 of 1, indices 0-, 1- or 2-d: 161002), then the Scatter kernel's tiling checks (561002, as a
 * tiling failure at phase 1): axis non-zero and in (-rank, rank) (the doc's range), a 2-d indices' dim 1 of 2,
 * updates' dim 0 <= indices' dim 0 (the first rows are used), <= data's dim 0, the element counts of updates' dims between 0 and axis and
 * after axis = data's.
 * Index values (the device does not check them; the doc forbids out-of-range ones) are checked when the op runs:
 * b_i in [0, B), off_i >= 0 and off_i + Su <= S, else 161002 with nothing written.
 * Values are moved as bytes. Determinism: with 0-/1-d indices every i owns its batch row; with 2-d indices (where
 * rows may repeat) each m is owned by one thread that applies the windows in index order (the later one wins). */
#include "ops/index_common.h"
#include "common/parallel.h"

static const aclDataType k_su_dtypes[] = {ACL_INT8, ACL_FLOAT16, ACL_FLOAT, ACL_BF16, ACL_INT32};
static const aclDataType k_su_idx[] = {ACL_INT64, ACL_INT32};

typedef struct {
    int64_t B, M, S, T, Bu, Su;
    int idx_rank;
} su_params;

static aclnnStatus su_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const su_params *p = ex->params;
    const acl_view *d = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *uv = acl_exec_in(ex, 2);
    const acl_view *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(d->dtype);
    char *db = ix_load_raw(d), *ub = ix_load_raw(uv);
    int64_t *ib = ix_load_index(iv);
    int64_t *bo = malloc(sizeof(int64_t) * 2 * (size_t)p->Bu);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!db || !ub || !ib || !bo) {
        rc = OOM;
        goto done;
    }
    for (int64_t i = 0; i < p->Bu; i++) {
        const int64_t b = p->idx_rank == 2 ? ib[2 * i] : i, off = p->idx_rank == 2 ? ib[2 * i + 1] : ib[i];
        if (b < 0 || b >= p->B) {
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                            "indices: row %lld names batch %lld of data's dim 0 of size %lld; nothing was written.",
                            (long long)i, (long long)b, (long long)p->B);
            goto done;
        }
        if (off < 0 || off > p->S - p->Su) {
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                            "indices: row %lld starts a window of %lld at %lld, outside [0, %lld] along axis; nothing "
                            "was written.", (long long)i, (long long)p->Su, (long long)off,
                            (long long)(p->S - p->Su));
            goto done;
        }
        bo[2 * i] = b;
        bo[2 * i + 1] = off;
    }
    {
        const int64_t M = p->M, S = p->S, T = p->T, Su = p->Su, Bu = p->Bu;
        const size_t row = (size_t)(Su * T) * es; /* one window: Su x T contiguous in both */
        if (p->idx_rank == 2) {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(Bu * M * Su * T))
            for (int64_t m = 0; m < M; m++)
                for (int64_t i = 0; i < Bu; i++)
                    memcpy(db + (size_t)(((bo[2 * i] * M + m) * S + bo[2 * i + 1]) * T) * es,
                           ub + (size_t)((i * M + m) * Su * T) * es, row);
        } else {
            ACL_FOR(acl_parallel_worth(Bu * M * Su * T), im, 0, Bu * M, {
                const int64_t i = im / M, m = im % M;
                memcpy(db + (size_t)(((bo[2 * i] * M + m) * S + bo[2 * i + 1]) * T) * es,
                       ub + (size_t)(im * Su * T) * es, row);
            });
        }
        md_store(db, d->dtype, o);
    }
done:
    free(db);
    free(ub);
    free(ib);
    free(bo);
    return rc;
}

aclnnStatus opws_InplaceScatterUpdate(aclTensor *data, const aclTensor *indices, const aclTensor *updates,
                                      int64_t axis, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(data, "data");
    NN(indices, "indices");
    NN(updates, "updates");
    ACL_TRY(acl_check_dtype_in(data, k_su_dtypes, ACL_COUNT_OF(k_su_dtypes), "data"));
    ACL_TRY(acl_check_dtype_in(indices, k_su_idx, ACL_COUNT_OF(k_su_idx), "indices"));
    ACLNN_CHECK(updates->dtype == data->dtype, ACLNN_ERR_PARAM_INVALID, "updates dtype %s should be data's dtype %s.",
                acl_dtype_name(updates->dtype), acl_dtype_name(data->dtype));
    ACLNN_CHECK(!acl_tensor_empty(data) && !acl_tensor_empty(updates) && !acl_tensor_empty(indices),
                ACLNN_ERR_PARAM_INVALID, "input tensors can not be empty: data has %lld elements, updates %lld, "
                "indices %lld.", (long long)acl_tensor_numel(data), (long long)acl_tensor_numel(updates),
                (long long)acl_tensor_numel(indices));
    const int r = (int)data->ndim;
    ACLNN_CHECK((int)updates->ndim == r, ACLNN_ERR_PARAM_INVALID, "updates should have data's rank %d, got %d.", r,
                (int)updates->ndim);
    const int ir = (int)indices->ndim;
    ACLNN_CHECK(!(ir == 0 && r > 0 && updates->dims[0] != 1), ACLNN_ERR_PARAM_INVALID,
                "indices is 0-d, so updates' dim 0 should be 1, got %lld.", r > 0 ? (long long)updates->dims[0] : 0LL);
    ACLNN_CHECK(ir <= 2, ACLNN_ERR_PARAM_INVALID, "indices should be 0-d, 1-d or 2-d, got %d-d.", ir);
    /* the Scatter kernel's tiling */
    ACLNN_CHECK(axis != 0, ACLNN_ERR_INNER_TILING_ERROR, "axis should not be 0 (dim 0 is the batch dim).");
    ACLNN_CHECK(axis > -r && axis < r, ACLNN_ERR_INNER_TILING_ERROR, "axis %lld should be in (-%d, %d), not 0.",
                (long long)axis, r, r);
    const int a = (int)(axis < 0 ? axis + r : axis);
    const int64_t n_idx = ir == 0 ? 1 : indices->dims[0];
    ACLNN_CHECK(ir != 2 || indices->dims[1] == 2, ACLNN_ERR_INNER_TILING_ERROR,
                "indices is 2-d, so its dim 1 should be 2 (batch, offset), got %lld.", (long long)indices->dims[1]);
    /* the 950 tiling wants them equal; the kernel reads the first updates-dim-0 rows of indices, and the op_api's
     * own unit test (err_dim_five: 4 index rows, 2 update rows) expects success: more index rows are accepted */
    ACLNN_CHECK(updates->dims[0] <= n_idx, ACLNN_ERR_INNER_TILING_ERROR,
                "updates' dim 0 (%lld) should not exceed indices' dim 0 (%lld).", (long long)updates->dims[0],
                (long long)n_idx);
    ACLNN_CHECK(updates->dims[0] <= data->dims[0], ACLNN_ERR_INNER_TILING_ERROR,
                "updates' dim 0 (%lld) should not exceed data's dim 0 (%lld).", (long long)updates->dims[0],
                (long long)data->dims[0]);
    int64_t M = 1, T = 1, Mu = 1, Tu = 1;
    for (int k = 1; k < a; k++) {
        M *= data->dims[k];
        Mu *= updates->dims[k];
    }
    for (int k = a + 1; k < r; k++) {
        T *= data->dims[k];
        Tu *= updates->dims[k];
    }
    ACLNN_CHECK(Mu == M, ACLNN_ERR_INNER_TILING_ERROR,
                "updates' dims between 0 and axis %d hold %lld elements, data's %lld: they should be equal.", a,
                (long long)Mu, (long long)M);
    ACLNN_CHECK(Tu == T, ACLNN_ERR_INNER_TILING_ERROR,
                "updates' dims after axis %d hold %lld elements, data's %lld: they should be equal.", a,
                (long long)Tu, (long long)T);
    su_params p = {data->dims[0], M, data->dims[a], T, updates->dims[0], updates->dims[a], ir};
    const aclTensor *ins[] = {data, indices, updates}, *outs[] = {data};
    const char *inn[] = {"data", "indices", "updates"}, *outn[] = {"data"};
    return ix_exec(ACL_OP_InplaceScatterUpdate, su_run, sizeof p, ins, inn, 3, outs, outn, 1, workspaceSize,
                   executor, &p);
}
