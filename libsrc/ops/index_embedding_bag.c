/* EmbeddingBag (torch.nn.functional.embedding_bag's forward, torch._embedding_bag). Validation follows op_api
 * aclnn_embedding_bag.cpp (hicann/ops-nn index/embedding_bag) in its order, on its Atlas A2 (non-regbase) branch:
 * NULLs (161001); dtypes (weight FLOAT/FLOAT16/BF16; indices, offsets INT64/INT32/INT16/INT8/UINT8 with one of them
 * INT32/INT64; perSampleWeights and output of weight's dtype; offset2bag, bagSize, maxIndices INT32/INT64); ranks
 * (weight and output 2-d, indices, offsets, perSampleWeights, offset2bag, bagSize at most 1-d, perSampleWeights
 * 1-d, maxIndices 2-d for mode max and at most 1-d otherwise); shapes (perSampleWeights only with mode sum and as
 * many as indices; output [B, D], B = offsets' length minus includeLastOffset; offset2bag empty or as many as
 * indices; bagSize B elements; maxIndices [B, D] for mode max, else B elements); an empty weight, indices or offsets
 * launches nothing. Every failure is 161002.
 *
 * Results, as the A2 kernel computes them: bag b takes indices [offsets[b], offsets[b + 1]) (offsets[0] is taken as
 * 0 and the last bag ends at the end of indices); an index equal to paddingIdx is skipped. mode 0 (sum):
 * output = sum of weight rows (times perSampleWeights when given), bagSize = 0, maxIndices = 0; mode 1 (mean): the
 * sum over the bag's count of non-padding indices (0 for an empty bag), bagSize = that count, maxIndices = bagSize;
 * other modes (max): the elementwise max (the first maximum wins), maxIndices[b, d] its weight row (0 for an empty
 * bag), bagSize the count. offset2bag[i] = the bag of indices[i] (when not empty). Rows are summed in fp32 in index
 * order and rounded once. An index outside [0, num_weights) (the device does not check) is skipped like padding,
 * and offsets are clipped to the indices. Each bag is owned by one thread: the same bytes for any thread count. */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int mode; /* 0 sum, 1 mean, 2 max */
    bool psw, o2b;
    int64_t B, D, W, N, pad;
} eb_params;

static aclnnStatus eb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const eb_params *p = ex->params;
    const acl_view *w = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *ov = acl_exec_in(ex, 2);
    const acl_view *pv = p->psw ? acl_exec_in(ex, 3) : NULL;
    const acl_view *yo = acl_exec_out(ex, 0), *o2b = acl_exec_out(ex, 1), *bs = acl_exec_out(ex, 2),
                   *mi = acl_exec_out(ex, 3);
    const int64_t B = p->B, D = p->D, N = p->N;
    float *wt = md_load(w, ACL_FLOAT), *ps = pv ? md_load(pv, ACL_FLOAT) : NULL;
    int64_t *idx = ix_load_index(iv), *off = ix_load_index(ov);
    float *y = md_alloc(B * D, sizeof(float));
    int64_t *mx = md_alloc(p->mode == 2 ? B * D : B, sizeof(int64_t)), *cnt = md_alloc(B, sizeof(int64_t));
    int64_t *bag = md_alloc(N, sizeof(int64_t));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!wt || (pv && !ps) || !idx || !off || !y || !mx || !cnt || !bag) rc = OOM;
    else {
        memset(bag, 0, sizeof(int64_t) * (size_t)N);
        ACL_FOR(acl_parallel_worth(N * D), b, 0, B, {
            int64_t s = b == 0 ? 0 : off[b], e = b == B - 1 ? N : off[b + 1];
            s = s < 0 ? 0 : (s > N ? N : s);
            e = e < s ? s : (e > N ? N : e);
            float *yr = y + b * D;
            int64_t *mr = p->mode == 2 ? mx + b * D : NULL, c = 0;
            for (int64_t d = 0; d < D; d++) yr[d] = 0.0f;
            if (mr)
                for (int64_t d = 0; d < D; d++) mr[d] = 0;
            for (int64_t j = s; j < e; j++) {
                const int64_t k = idx[j];
                if (k == p->pad || k < 0 || k >= p->W) continue;
                const float *wr = wt + k * D;
                if (p->mode == 2) {
                    for (int64_t d = 0; d < D; d++)
                        if (c == 0 || !(yr[d] >= wr[d])) yr[d] = wr[d], mr[d] = k;
                } else {
                    const float f = ps ? ps[j] : 1.0f;
                    for (int64_t d = 0; d < D; d++) yr[d] += ps ? wr[d] * f : wr[d];
                }
                c++;
            }
            if (p->mode == 1 && c > 0) {
                const float inv = 1.0f / (float)c;
                for (int64_t d = 0; d < D; d++) yr[d] *= inv;
            }
            cnt[b] = p->mode == 0 ? 0 : c;
            if (p->mode != 2) mx[b] = cnt[b];
        });
        for (int64_t b = 0; b < B; b++) { /* offset2bag: serial, a later bag overwrites an overlapping range */
            int64_t s = b == 0 ? 0 : off[b], e = b == B - 1 ? N : off[b + 1];
            s = s < 0 ? 0 : (s > N ? N : s);
            e = e < s ? s : (e > N ? N : e);
            for (int64_t j = s; j < e; j++) bag[j] = b;
        }
        md_store(y, ACL_FLOAT, yo);
        if (p->o2b) md_store(bag, ACL_INT64, o2b);
        acl_view bv = *bs, mv = *mi; /* B elements in any <= 1-d shape */
        md_store(cnt, ACL_INT64, &bv);
        md_store(mx, ACL_INT64, &mv);
    }
    free(wt);
    free(ps);
    free(idx);
    free(off);
    free(y);
    free(mx);
    free(cnt);
    free(bag);
    return rc;
}

static aclnnStatus eb_rank(const aclTensor *t, const char *name, uint64_t lo, uint64_t hi) {
    ACLNN_CHECK(t->ndim >= lo && t->ndim <= hi, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; it must have %llu to %llu.",
                name, (unsigned long long)t->ndim, (unsigned long long)lo, (unsigned long long)hi);
    return ACLNN_SUCCESS;
}

static bool eb_idx_wide(aclDataType t) { return t == ACL_INT32 || t == ACL_INT64; }

aclnnStatus opws_EmbeddingBag(const aclTensor *weight, const aclTensor *indices, const aclTensor *offsets,
                              bool scaleGradByFreq, int64_t mode, bool sparse, const aclTensor *perSampleWeights,
                              bool includeLastOffset, int64_t paddingIdx, aclTensor *output, aclTensor *offset2bag,
                              aclTensor *bagSize, aclTensor *maxIndices, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(weight, "weight");
    NN(indices, "indices");
    NN(offsets, "offsets");
    NN(output, "output");
    NN(offset2bag, "offset2bag");
    NN(bagSize, "bagSize");
    NN(maxIndices, "maxIndices");
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_EmbeddingBag, "weight"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_EmbeddingBag_indices, "indices"));
    ACL_TRY(acl_check_dtype_in(offsets, ACL_DT_LIST_EmbeddingBag_offsets, "offsets"));
    ACLNN_CHECK(eb_idx_wide(indices->dtype) || eb_idx_wide(offsets->dtype), ACLNN_ERR_PARAM_INVALID,
                "indices or offsets must have one dtype in [int32, int64], but got indices dtype %s, offsets dtype %s.",
                acl_dtype_name(indices->dtype), acl_dtype_name(offsets->dtype));
    if (perSampleWeights) ACL_TRY(acl_check_same_dtype(perSampleWeights, "perSampleWeights", weight, "weight"));
    ACL_TRY(acl_check_same_dtype(output, "output", weight, "weight"));
    ACL_TRY(acl_check_dtype_in(offset2bag, ACL_DT_LIST_EmbeddingBag_offset2bag, "offset2bag"));
    ACL_TRY(acl_check_dtype_in(bagSize, ACL_DT_LIST_EmbeddingBag_bagSize, "bagSize"));
    ACL_TRY(acl_check_dtype_in(maxIndices, ACL_DT_LIST_EmbeddingBag_maxIndices, "maxIndices"));
    const int m = mode == 0 ? 0 : (mode == 1 ? 1 : 2);
    ACL_TRY(eb_rank(weight, "weight", 2, 2));
    ACL_TRY(eb_rank(indices, "indices", 0, 1));
    ACL_TRY(eb_rank(offsets, "offsets", 0, 1));
    if (perSampleWeights) ACL_TRY(eb_rank(perSampleWeights, "perSampleWeights", 1, 1));
    ACL_TRY(eb_rank(output, "output", 2, 2));
    ACL_TRY(eb_rank(offset2bag, "offset2bag", 0, 1));
    ACL_TRY(eb_rank(bagSize, "bagSize", 0, 1));
    ACL_TRY(m == 2 ? eb_rank(maxIndices, "maxIndices", 2, 2) : eb_rank(maxIndices, "maxIndices", 0, 1));
    ACLNN_CHECK(m == 0 || !perSampleWeights, ACLNN_ERR_PARAM_INVALID,
                "perSampleWeights: per_sample_weights only supported with mode='sum'");
    const int64_t N = acl_tensor_numel(indices), nb = acl_tensor_numel(offsets) - (includeLastOffset ? 1 : 0);
    if (perSampleWeights)
        ACLNN_CHECK(acl_tensor_numel(perSampleWeights) == N, ACLNN_ERR_PARAM_INVALID,
                    "perSampleWeights holds %lld elements; indices holds %lld.",
                    (long long)acl_tensor_numel(perSampleWeights), (long long)N);
    const int64_t yd[2] = {nb, weight->dims[1]};
    ACL_TRY(ix_check_shape(output, yd, 2, "output"));
    const int64_t o2 = acl_tensor_numel(offset2bag);
    ACLNN_CHECK(o2 == 0 || o2 == N, ACLNN_ERR_PARAM_INVALID, "offset2bag shape size should be %lld, but got %lld.",
                (long long)N, (long long)o2);
    ACLNN_CHECK(acl_tensor_numel(bagSize) == nb, ACLNN_ERR_PARAM_INVALID,
                "bagSize shape size should be %lld, but got %lld.", (long long)nb,
                (long long)acl_tensor_numel(bagSize));
    if (m == 2) ACL_TRY(ix_check_shape(maxIndices, yd, 2, "maxIndices"));
    else
        ACLNN_CHECK(acl_tensor_numel(maxIndices) == nb, ACLNN_ERR_PARAM_INVALID,
                    "maxIndices shape size should be %lld, but got %lld.", (long long)nb,
                    (long long)acl_tensor_numel(maxIndices));
    if (acl_tensor_empty(weight) || acl_tensor_empty(indices) || acl_tensor_empty(offsets) || nb <= 0)
        return acl_exec_noop(ACL_OP_EmbeddingBag, workspaceSize, executor);
    eb_params p = {m, perSampleWeights != NULL, o2 != 0, nb, weight->dims[1], weight->dims[0], N, paddingIdx};
    const aclTensor *ins[] = {weight, indices, offsets, perSampleWeights},
                    *outs[] = {output, offset2bag, bagSize, maxIndices};
    const char *inn[] = {"weight", "indices", "offsets", "perSampleWeights"},
               *outn[] = {"output", "offset2bag", "bagSize", "maxIndices"};
    return ix_exec(ACL_OP_EmbeddingBag, eb_run, sizeof p, ins, inn, 4, outs, outn, 4, workspaceSize, executor, &p);
}
