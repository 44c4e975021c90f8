/* TopKTopPSample (hicann/ops-nn index/top_k_top_p_sample): per row b of logits [B, V] (float16/bfloat16), a
 * top-k filter, a top-p filter and an exponential ("q") sample, returning the chosen vocabulary index
 * (logitsSelectIdx[b], int64) and, when isNeedLogits, the surviving logits (logitsTopKPSelect [B, V] float32, -inf
 * elsewhere). There is no op_api source: the aclnn entry is generated from the OpDef (ascend910b configured), so
 * phase 1 is: NULL required tensors (161001), the OpDef's dtype combinations (161002), then the tiling's checks
 * (561002: logits 2-D with V <= 2^20, topK/topP of logits' rank - 1 and batch, q and logitsTopKPSelect of logits'
 * shape, logitsSelectIdx of topK's; empty tensors are not supported).
 * The computation follows the kernel's three paths (op_kernel/top_k_top_p_sample.h), in fp32:
 *   k = topK[b] as uint32 in [1, min(V, 1024)]: the k largest logits, sorted (value descending, index ascending);
 *     probs = softmax of them; if 0 < p < 1: n = the first j + 1 with cumsum(probs)[j] > p (else k) and probs =
 *     softmax of the first n; with q: probs[j] /= |q[b, j]| + eps (q taken by rank j, as the kernel reads it);
 *     the index of the first maximum; logitsTopKPSelect gets the n kept logits at their vocabulary positions.
 *   otherwise, p <= 0 or p >= 1: with q, argmax over the row of softmax(logits)[v] / (|q[b, v]| + eps) (by
 *     vocabulary index), without q the largest logit (first on ties); logitsTopKPSelect stays -inf.
 *   otherwise (top-p alone): probs = softmax(row), sorted (descending, index ascending); n = the first j + 1 with
 *     cumsum > p (else V); with q, softmax of the n sorted probabilities (the kernel's second softmax) divided by
 *     |q[b, j]| + eps by rank and the first maximum, without q rank 0; logitsTopKPSelect gets the n kept logits.
 *   (topK[b] = 0, which the docs call unexpected, skips the top-k stage here; topKGuess only decides how the kernel
 *   searches, not the result, and is not used.)
 * Rows are independent: one thread owns a row, the same bytes for any thread count. */
#include <math.h>

#include "ops/index_common.h"

typedef struct {
    int64_t B, V;
    float eps;
    bool has_q, need_logits;
} tkp_params;

typedef struct {
    float v;
    int64_t i;
} tkp_item;

/* value descending (NaN first), index ascending */
static int tkp_cmp(const void *pa, const void *pb) {
    const tkp_item *a = pa, *b = pb;
    const bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na ? -1 : 1;
    if (!na && a->v != b->v) return a->v > b->v ? -1 : 1;
    return (a->i > b->i) - (a->i < b->i);
}

/* p[0..n) = softmax(v[0..n)) with v[0] as the max (sorted input), sequential fp32 sum */
static void tkp_softmax_sorted(const float *v, int64_t n, float *p) {
    float s = 0.0f;
    for (int64_t j = 0; j < n; j++) s += (p[j] = expf(v[j] - v[0]));
    for (int64_t j = 0; j < n; j++) p[j] /= s;
}

static int64_t tkp_first_max(const float *v, int64_t n) {
    int64_t m = 0;
    for (int64_t j = 1; j < n; j++)
        if (v[j] > v[m]) m = j;
    return m;
}

static void tkp_row(const tkp_params *P, const float *x, int32_t k32, float p, const float *q, int64_t *idx_out,
                    float *sel, tkp_item *it, float *a, float *b) {
    const int64_t V = P->V;
    const uint32_t k = (uint32_t)k32, kmax = V > 1024 ? 1024u : (uint32_t)V;
    if (P->need_logits)
        for (int64_t j = 0; j < V; j++) sel[j] = -INFINITY;
    if (k >= 1 && k <= kmax) { /* top-k (then top-p) */
        for (int64_t j = 0; j < V; j++) it[j] = (tkp_item){x[j], j};
        qsort(it, (size_t)V, sizeof *it, tkp_cmp);
        for (uint32_t j = 0; j < k; j++) a[j] = it[j].v;
        tkp_softmax_sorted(a, k, b);
        int64_t n = k;
        if (p > 0.0f && p < 1.0f) {
            float cum = 0.0f;
            for (int64_t j = 0; j < (int64_t)k; j++) {
                cum += b[j];
                if (cum > p) {
                    n = j + 1;
                    break;
                }
            }
            tkp_softmax_sorted(a, n, b);
        }
        if (q)
            for (int64_t j = 0; j < n; j++) b[j] /= fabsf(q[j]) + P->eps;
        *idx_out = it[tkp_first_max(b, n)].i;
        if (P->need_logits)
            for (int64_t j = 0; j < n; j++) sel[it[j].i] = it[j].v;
    } else if (p <= 0.0f || p >= 1.0f) { /* neither: argmax (of the q-weighted softmax) */
        if (q) {
            float mx = x[0], s = 0.0f;
            for (int64_t j = 1; j < V; j++) mx = x[j] > mx ? x[j] : mx;
            for (int64_t j = 0; j < V; j++) s += (a[j] = expf(x[j] - mx));
            float best = 0.0f;
            int64_t bi = 0;
            for (int64_t j = 0; j < V; j++) {
                const float v = (a[j] / s) / (fabsf(q[j]) + P->eps);
                if (v > best) {
                    best = v;
                    bi = j;
                }
            }
            *idx_out = bi;
        } else {
            for (int64_t j = 0; j < V; j++) it[j] = (tkp_item){x[j], j};
            int64_t m = 0;
            for (int64_t j = 1; j < V; j++)
                if (tkp_cmp(&it[j], &it[m]) < 0) m = j;
            *idx_out = m;
        }
    } else { /* top-p alone, over the sorted softmax */
        float mx = x[0], s = 0.0f;
        for (int64_t j = 1; j < V; j++) mx = x[j] > mx ? x[j] : mx;
        for (int64_t j = 0; j < V; j++) s += (a[j] = expf(x[j] - mx));
        for (int64_t j = 0; j < V; j++) it[j] = (tkp_item){a[j] / s, j};
        qsort(it, (size_t)V, sizeof *it, tkp_cmp);
        int64_t n = V;
        float cum = 0.0f;
        for (int64_t j = 0; j < V; j++) {
            cum += it[j].v;
            if (cum > p) {
                n = j + 1;
                break;
            }
        }
        int64_t m = 0;
        if (q) {
            for (int64_t j = 0; j < n; j++) a[j] = it[j].v;
            tkp_softmax_sorted(a, n, b);
            for (int64_t j = 0; j < n; j++) b[j] /= fabsf(q[j]) + P->eps;
            m = tkp_first_max(b, n);
        }
        *idx_out = it[m].i;
        if (P->need_logits)
            for (int64_t j = 0; j < n; j++) sel[it[j].i] = x[it[j].i];
    }
}

static aclnnStatus tkp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const tkp_params *P = ex->params;
    const int64_t B = P->B, V = P->V;
    int n = 0;
    const acl_view *lv = acl_exec_in(ex, n++), *kv = acl_exec_in(ex, n++), *pv = acl_exec_in(ex, n++);
    const acl_view *qv = P->has_q ? acl_exec_in(ex, n++) : NULL;
    const acl_view *iv = acl_exec_out(ex, 0), *sv = acl_exec_out(ex, 1);
    float *x = md_load(lv, ACL_FLOAT), *pp = md_load(pv, ACL_FLOAT), *q = qv ? md_load(qv, ACL_FLOAT) : NULL;
    int32_t *kk = md_load(kv, ACL_INT32);
    int64_t *idx = md_alloc(B, sizeof(int64_t));
    float *sel = P->need_logits ? md_alloc(B * V, sizeof(float)) : NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!x || !pp || !kk || !idx || (qv && !q) || (P->need_logits && !sel)) {
        rc = OOM;
    } else {
        int fail = 0;
#pragma omp parallel if (B > 1 && acl_parallel_worth(B * V * 8)) reduction(| : fail)
        {
            tkp_item *it = malloc(sizeof(tkp_item) * (size_t)V);
            float *a = malloc(sizeof(float) * (size_t)V), *b = malloc(sizeof(float) * (size_t)V);
            if (!it || !a || !b) fail = 1;
#pragma omp for schedule(static)
            for (int64_t r = 0; r < B; r++)
                if (it && a && b)
                    tkp_row(P, x + r * V, kk[r], pp[r], q ? q + r * V : NULL, idx + r, sel ? sel + r * V : NULL,
                            it, a, b);
            free(it);
            free(a);
            free(b);
        }
        if (fail) rc = OOM;
        else {
            md_store(idx, ACL_INT64, iv);
            if (sel) md_store(sel, ACL_FLOAT, sv);
        }
    }
    free(x);
    free(pp);
    free(q);
    free(kk);
    free(idx);
    free(sel);
    return rc;
}

aclnnStatus opws_TopKTopPSample(const aclTensor *logits, const aclTensor *topK, const aclTensor *topP,
                                const aclTensor *q, double eps, bool isNeedLogits, int64_t topKGuess,
                                const aclTensor *logitsSelectIdx, const aclTensor *logitsTopKPSelect,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)topKGuess;
    NN(logits, "logits");
    NN(topK, "topK");
    NN(topP, "topP");
    NN(logitsSelectIdx, "logitsSelectIdx");
    NN(logitsTopKPSelect, "logitsTopKPSelect");
    /* the OpDef's combinations: (f16 | bf16, int32, = logits, float32, int64, float32) */
    ACLNN_CHECK(logits->dtype == ACL_FLOAT16 || logits->dtype == ACL_BF16, ACLNN_ERR_PARAM_INVALID,
                "logits dtype %s should be float16 or bfloat16.", acl_dtype_name(logits->dtype));
    ACLNN_CHECK(topK->dtype == ACL_INT32, ACLNN_ERR_PARAM_INVALID, "topK dtype %s should be int32.",
                acl_dtype_name(topK->dtype));
    ACLNN_CHECK(topP->dtype == logits->dtype, ACLNN_ERR_PARAM_INVALID, "topP dtype %s should be logits' dtype %s.",
                acl_dtype_name(topP->dtype), acl_dtype_name(logits->dtype));
    ACLNN_CHECK(!q || q->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "q dtype %s should be float32.",
                acl_dtype_name(q->dtype));
    ACLNN_CHECK(logitsSelectIdx->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID,
                "logitsSelectIdx dtype %s should be int64.", acl_dtype_name(logitsSelectIdx->dtype));
    ACLNN_CHECK(logitsTopKPSelect->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                "logitsTopKPSelect dtype %s should be float32.", acl_dtype_name(logitsTopKPSelect->dtype));
    /* the tiling */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(logits->ndim == 2, T, "logits should be 2-D [batch, vocSize], got %d-D.", (int)logits->ndim);
    const int64_t B = logits->dims[0], V = logits->dims[1];
    ACLNN_CHECK(V <= 1048576, T, "logits' vocSize %lld should not exceed 1048576.", (long long)V);
    ACLNN_CHECK(topK->ndim == 1, T, "topK should be 1-D (logits' rank - 1), got %d-D.", (int)topK->ndim);
    ACLNN_CHECK(topP->ndim == 1, T, "topP should be 1-D (logits' rank - 1), got %d-D.", (int)topP->ndim);
    ACLNN_CHECK(topK->dims[0] == B && topP->dims[0] == B, T,
                "topK (%lld) and topP (%lld) should have logits' batch %lld.", (long long)topK->dims[0],
                (long long)topP->dims[0], (long long)B);
    ACLNN_CHECK(!q || (q->ndim == 2 && q->dims[0] == B && q->dims[1] == V), T, "q should have logits' shape.");
    ACLNN_CHECK(logitsTopKPSelect->ndim == 2 && logitsTopKPSelect->dims[0] == B && logitsTopKPSelect->dims[1] == V,
                T, "logitsTopKPSelect should have logits' shape.");
    ACLNN_CHECK(logitsSelectIdx->ndim == 1 && logitsSelectIdx->dims[0] == B, T,
                "logitsSelectIdx should have topK's shape [%lld].", (long long)B);
    ACLNN_CHECK(B > 0 && V > 0, T, "logits should not be empty (batch %lld, vocSize %lld).", (long long)B,
                (long long)V);
    tkp_params p = {B, V, (float)eps, q != NULL, isNeedLogits};
    const aclTensor *ins[] = {logits, topK, topP, q}, *outs[] = {logitsSelectIdx, logitsTopKPSelect};
    const char *inn[] = {"logits", "topK", "topP", "q"}, *outn[] = {"logitsSelectIdx", "logitsTopKPSelect"};
    return ix_exec(ACL_OP_TopKTopPSample, tkp_run, sizeof p, ins, inn, 4, outs, outn, 2, workspaceSize, executor,
                   &p);
}
