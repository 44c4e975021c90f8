/* ApplyTopKTopP (ops-nn index/apply_top_k_top_p_with_sorted): top-k then top-p filtering of logits [B, V], as the
 * doc's formula gives it. Per row b: sort ascending (stable); with k, every sorted value below the k[b]-th largest
 * (sorted[V - k[b]]) becomes -inf; with p, the softmax of the filtered sorted row is summed from the smallest
 * probability up and every position whose running sum is <= 1 - p[b] becomes -inf, except the last (largest);
 * the row is scattered back to its original order. V == 1 copies logits. Computed in fp32 (softmax with the row
 * max subtracted, sums in sorted order), rounded once into out. A k[b] outside [1, V] (not checked upstream)
 * filters nothing for the top-k step.
 *
 * Validation follows op_api aclnn_apply_top_k_top_p.cpp in its order: NULL logits or out (161001; p and k both
 * NULL is only logged upstream, the call goes on: out is then logits); dtypes (logits, p, out FLOAT/FLOAT16/BF16,
 * k INT32; p and out of logits' dtype); shapes (logits 2-d, out logits' shape, p and k 1-d of logits.size(0));
 * formats ND; an empty logits, p or k launches nothing. Each row is owned by one thread. */
#include "ops/index_common.h"

typedef struct {
    bool has_p, has_k;
    int64_t B, V;
} atp_params;

typedef struct {
    float v;
    int64_t i;
} atp_item;

static int atp_cmp(const void *a, const void *b) {
    const atp_item *x = a, *y = b;
    const int nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny) return nx - ny;
    if (!nx && x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static aclnnStatus atp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const atp_params *q = ex->params;
    int slot = 0;
    const acl_view *lv = acl_exec_in(ex, slot++);
    const acl_view *pv = q->has_p ? acl_exec_in(ex, slot++) : NULL, *kv = q->has_k ? acl_exec_in(ex, slot++) : NULL;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t B = q->B, V = q->V;
    float *x = md_load(lv, ACL_FLOAT), *pp = pv ? md_load(pv, ACL_FLOAT) : NULL;
    int64_t *kk = kv ? ix_load_index(kv) : NULL;
    /* a block of each a thread (+ one), whole lines each */
    const int64_t iblk = acl_team_block(V, sizeof(atp_item)), pblk = acl_team_block(V, sizeof(float));
    atp_item *items = acl_team_alloc(acl_max_threads() + 1, V, sizeof(atp_item), 1);
    float *pr = acl_team_alloc(acl_max_threads() + 1, V, sizeof(float), 1);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!x || (pv && !pp) || (kv && !kk) || !items || !pr) rc = OOM;
    else if (V > 1 && (pv || kv)) {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(B * V * 8))
        for (int64_t b = 0; b < B; b++) {
            size_t t = 0;
#ifdef _OPENMP
            t = (size_t)omp_get_thread_num() + 1;
#endif
            atp_item *it = items + t * (size_t)iblk;
            float *pb = pr + t * (size_t)pblk, *row = x + b * V;
            for (int64_t v = 0; v < V; v++) it[v].v = row[v], it[v].i = v;
            qsort(it, (size_t)V, sizeof(atp_item), atp_cmp);
            if (kk && kk[b] >= 1 && kk[b] <= V) {
                const float thr = it[V - kk[b]].v;
                for (int64_t v = 0; v < V; v++)
                    if (it[v].v < thr) it[v].v = -INFINITY;
            }
            if (pp) {
                float mx = it[V - 1].v, sum = 0.0f;
                for (int64_t v = 0; v < V; v++) mx = it[v].v > mx ? it[v].v : mx;
                for (int64_t v = 0; v < V; v++) pb[v] = expf(it[v].v - mx), sum += pb[v];
                const float lim = 1.0f - pp[b];
                float cum = 0.0f;
                for (int64_t v = 0; v < V - 1; v++) {
                    cum += pb[v] / sum;
                    if (cum <= lim) it[v].v = -INFINITY;
                }
            }
            for (int64_t v = 0; v < V; v++) row[it[v].i] = it[v].v;
        }
    }
    if (rc == ACLNN_SUCCESS) md_store(x, ACL_FLOAT, o);
    free(x);
    free(pp);
    free(kk);
    free(items);
    free(pr);
    return rc;
}

aclnnStatus opws_ApplyTopKTopP(const aclTensor *logits, const aclTensor *p, const aclTensor *k, aclTensor *out,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(logits, "logits");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(logits, ACL_DT_LIST_ApplyTopKTopP, "logits"));
    if (p) ACL_TRY(acl_check_dtype_in(p, ACL_DT_LIST_ApplyTopKTopP, "p"));
    if (k) ACL_TRY(acl_check_dtype_in(k, ACL_DT_LIST_ApplyTopKTopP_k, "k"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_ApplyTopKTopP, "out"));
    if (p) ACL_TRY(acl_check_same_dtype(p, "p", logits, "logits"));
    ACL_TRY(acl_check_same_dtype(out, "out", logits, "logits"));
    ACLNN_CHECK(logits->ndim == 2, ACLNN_ERR_PARAM_INVALID, "logits has %llu dims; it must have 2.",
                (unsigned long long)logits->ndim);
    ACL_TRY(ix_check_shape(out, logits->dims, 2, "out"));
    if (p)
        ACLNN_CHECK(p->ndim == 1, ACLNN_ERR_PARAM_INVALID, "p has %llu dims; it must have 1.",
                    (unsigned long long)p->ndim);
    if (k)
        ACLNN_CHECK(k->ndim == 1, ACLNN_ERR_PARAM_INVALID, "k has %llu dims; it must have 1.",
                    (unsigned long long)k->ndim);
    if (p)
        ACLNN_CHECK(p->dims[0] == logits->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "expected p.size(0) is equal to logits.size(0), but got %lld.", (long long)p->dims[0]);
    if (k)
        ACLNN_CHECK(k->dims[0] == logits->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "expected k.size(0) is equal to logits.size(0), but got %lld.", (long long)k->dims[0]);
    const aclTensor *fs[] = {logits, p, k, out};
    const char *fn[] = {"logits", "p", "k", "out"};
    for (int i = 0; i < 4; i++)
        if (fs[i])
            ACLNN_CHECK(fs[i]->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "%s format only supports ND.", fn[i]);
    if (acl_tensor_empty(logits) || (p && acl_tensor_empty(p)) || (k && acl_tensor_empty(k)))
        return acl_exec_noop(ACL_OP_ApplyTopKTopP, workspaceSize, executor);
    atp_params q = {p != NULL, k != NULL, logits->dims[0], logits->dims[1]};
    const aclTensor *ins[] = {logits, p, k}, *outs[] = {out};
    const char *inn[] = {"logits", "p", "k"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_ApplyTopKTopP, atp_run, sizeof q, ins, inn, 3, outs, outn, 1, workspaceSize, executor, &q);
}
