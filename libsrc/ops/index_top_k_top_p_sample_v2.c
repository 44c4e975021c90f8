/* TopKTopPSampleV2 (hicann/ops-nn index/top_k_top_p_sample_v2): per row b of logits [B, V] (float16, bfloat16,
 * float32), the chain top-k -> top-p -> min-p -> sample, with four outputs:
 *   logitsSelectIdx [B] int64      the chosen vocabulary index (written unless isNeedSampleResult)
 *   logitsTopKPSelect [B, V] f32   the kept logits at their vocabulary positions, -inf (inputIsLogits) or 0
 *                                  elsewhere (written when isNeedLogits)
 *   logitsIdx [B, V] int64         the kept entries' vocabulary indices, packed at the row's front (written when
 *                                  isNeedSampleResult; the positions after the kept count are left untouched,
 *                                  as the kernel leaves them)
 *   logitsSortMasked [B, V] f32    the kept probabilities (or raw values when !inputIsLogits), packed at the row's
 *                                  front, 0 after them (written when isNeedSampleResult)
 * There is no op_api source: the aclnn entry is generated from the OpDef, so phase 1 is: NULL required tensors
 * (161001), the OpDef's dtype combination (161002), then the tiling's checks (561002).
 *
 * The row semantics are the kernel's (op_kernel/top_k_top_p_sample_v2.h), all in fp32 on the upcast logits x:
 *   ksMax is taken as uint32, rounded up to a multiple of 8 (mod 2^32) and capped at 1024; topKGuess as int32,
 *   any value above 1024 as uint32 (so also a negative one) becomes 1024.
 *   doTopK = 0 < k <= min(V, ksMax'), doTopP = 0 < p < 1, hasMinP = minPs given and minP > 0.
 *   A) doTopK or p <= 0: the kc = (p <= 0 ? 1 : k) largest x (value descending, index ascending), probabilities =
 *      softmax over those kc (inputIsLogits) or the raw values; with doTopP the kept count n is the first j + 1
 *      whose running fp32 sum reaches p (>=), else kc.
 *   B) top-p alone: the same over the whole row: probabilities exp(x - max) / sum(row) (inputIsLogits) or the raw
 *      values, sorted descending, n = first j + 1 with cumsum >= p, else V. (The kernel first tries the
 *      topKGuess largest and falls back to a full sort when their sum stays below p: the same result.)
 *   C) neither (p >= 1, no valid k): the row unsorted in vocabulary order (softmax or raw), n = V, the maximum
 *      by the first strictly greater value; with inputIsLogits, q given and no minP, the index is directly the
 *      argmax over v of softmax(x)[v] / (|q[b, v]| + eps).
 *   min-p (0 < minP): minP >= 1 keeps only the maximum; otherwise threshold = minP * max probability: A/B (sorted)
 *      cut n after the last entry >= threshold, C (unsorted) packs the entries >= threshold in order.
 *   sample: without q the index of the maximum; with q the first argmax over the n kept j of prob[j] /
 *      (|q[b, j]| + eps) (q taken by kept position, as the kernel reads it), mapped back to its vocabulary index.
 *   logitsTopKPSelect: x at the kept indices; a row with none of top-k, top-p, min-p active gets x entirely.
 * Sums are sequential fp32 (the full-row softmax sum in the kernel's 8192-element chunks); the kernel's vector
 * ReduceSum adds within a chunk in a tree, so a cumulative sum that lands within an ulp of p may cut one entry
 * apart. Ranking: a heap for a small k, a stable radix sort of the whole row otherwise (NaN first, -0 == +0).
 * Rows are independent: one thread owns a row, the same bytes for any thread count. */
#include <math.h>

#include "ops/index_common.h"

typedef struct {
    int64_t B, V;
    float eps;
    uint32_t ksmax, guess;
    bool has_q, has_minp, need_logits, is_logits, need_sample;
} tk2_params;

typedef struct {
    float v;
    int64_t i;
} tk2_item;

#define TK2_FLOAT_MIN (-3.40282e+38f)

/* a ranks before b: value descending (NaN first), index ascending */
static inline bool tk2_before(const tk2_item *a, const tk2_item *b) {
    const bool na = isnan(a->v), nb = isnan(b->v);
    if (na != nb) return na;
    if (!na && a->v != b->v) return a->v > b->v;
    return a->i < b->i;
}

static int tk2_cmp(const void *pa, const void *pb) {
    const tk2_item *a = pa, *b = pb;
    return tk2_before(a, b) ? -1 : (tk2_before(b, a) ? 1 : 0);
}

/* heap with the worst kept item at the root */
static void tk2_sift(tk2_item *h, int64_t n, int64_t i) {
    for (;;) {
        int64_t w = i, l = 2 * i + 1, r = l + 1;
        if (l < n && tk2_before(&h[w], &h[l])) w = l;
        if (r < n && tk2_before(&h[w], &h[r])) w = r;
        if (w == i) return;
        tk2_item t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

/* the whole row ranked: a stable LSD radix sort (11-bit digits) of (key << 32 | index) over a key that orders
 * like tk2_before (NaN first, then descending; -0 as +0), starting from index order so ties keep it */
static void tk2_sort_all(const float *x, int64_t V, tk2_item *it, uint64_t *a, uint64_t *b) {
    for (int64_t j = 0; j < V; j++) {
        uint32_t u;
        memcpy(&u, &x[j], 4);
        if (x[j] == 0.0f) u = 0;
        uint32_t m = (u & 0x80000000u) ? ~u : (u | 0x80000000u);
        if (isnan(x[j])) m = 0xFFFFFFFFu;
        a[j] = (uint64_t)(~m) << 32 | (uint64_t)j;
    }
    static const int shift[3] = {32, 43, 54};
    for (int pass = 0; pass < 3; pass++) {
        size_t cnt[2048] = {0};
        const int sh = shift[pass];
        for (int64_t j = 0; j < V; j++) cnt[(a[j] >> sh) & 2047u]++;
        size_t pos = 0;
        for (int d = 0; d < 2048; d++) {
            const size_t c = cnt[d];
            cnt[d] = pos;
            pos += c;
        }
        for (int64_t j = 0; j < V; j++) b[cnt[(a[j] >> sh) & 2047u]++] = a[j];
        uint64_t *t = a;
        a = b;
        b = t;
    }
    for (int64_t j = 0; j < V; j++) {
        const int64_t i = (int64_t)(a[j] & 0xFFFFFFFFu);
        it[j] = (tk2_item){x[i], i};
    }
}

/* it[0..k) = the k first items of x in the ranking, sorted (ra, rb: 2 * V words of radix scratch) */
static void tk2_topk(const float *x, int64_t V, int64_t k, tk2_item *it, uint64_t *ra, uint64_t *rb) {
    if (k >= V / 8) {
        tk2_sort_all(x, V, it, ra, rb);
        return;
    }
    int64_t n = 0;
    for (int64_t j = 0; j < V; j++) {
        tk2_item e = {x[j], j};
        if (n < k) {
            int64_t c = n++;
            it[c] = e;
            while (c > 0 && tk2_before(&it[(c - 1) / 2], &it[c])) {
                tk2_item t = it[c];
                it[c] = it[(c - 1) / 2];
                it[(c - 1) / 2] = t;
                c = (c - 1) / 2;
            }
        } else if (tk2_before(&e, &it[0])) {
            it[0] = e;
            tk2_sift(it, n, 0);
        }
    }
    qsort(it, (size_t)n, sizeof *it, tk2_cmp);
}

/* sum of exp(x - m) over the row, in the kernel's 8192-element chunks (fp32 within a chunk, then added) */
static float tk2_expsum(const float *x, int64_t V, float m) {
    float total = 0.0f;
    for (int64_t c = 0; c < V; c += 8192) {
        const int64_t e = c + 8192 < V ? c + 8192 : V;
        float s = 0.0f;
        for (int64_t j = c; j < e; j++) s += expf(x[j] - m);
        total += s;
    }
    return total;
}

static float tk2_rowmax(const float *x, int64_t V) {
    float m = TK2_FLOAT_MIN;
    for (int64_t j = 0; j < V; j++) m = m > x[j] ? m : x[j];
    return m;
}

/* the first j + 1 whose running sum reaches p; *found = 0 and n when it never does */
static int64_t tk2_topp(const float *v, int64_t n, float p, bool *found) {
    float cum = 0.0f;
    for (int64_t j = 0; j < n; j++) {
        cum += v[j];
        if (cum >= p) {
            *found = true;
            return j + 1;
        }
    }
    *found = false;
    return n;
}

typedef struct {
    tk2_item *it;
    float *vals, *raw;
    int64_t *idxs;
    uint64_t *ra, *rb;
} tk2_scratch;

static void tk2_row(const tk2_params *P, const float *x, int32_t k, float p, float minp, const float *q,
                    int64_t *sel_idx, float *sel, int64_t *lidx, float *lsm, tk2_scratch *S) {
    const int64_t V = P->V;
    float *vals = S->vals, *raw = S->raw;
    int64_t *idxs = S->idxs;
    tk2_item *it = S->it;
    const bool do_k = k > 0 && (uint32_t)k <= ((uint64_t)V < P->ksmax ? (uint32_t)V : P->ksmax);
    const bool do_p = p > 0.0f && p < 1.0f, has_minp = P->has_minp && minp > 0.0f;
    const bool none = !do_k && !do_p && !has_minp, guess_path = !do_k && do_p;
    int64_t n = 0, maxi = 0, kc = 0;
    float maxv = TK2_FLOAT_MIN, orimax = 0.0f;
    bool local = false, copied = false;

    if (P->need_logits) {
        const float def = P->is_logits ? -INFINITY : 0.0f;
        for (int64_t j = 0; j < V; j++) sel[j] = def;
    }
    if (do_k || p <= 0.0f) { /* A: the kc largest */
        kc = p <= 0.0f ? 1 : k;
        tk2_topk(x, V, kc, it, S->ra, S->rb);
        for (int64_t j = 0; j < kc; j++) {
            raw[j] = it[j].v;
            idxs[j] = it[j].i;
        }
        n = kc;
        maxv = orimax = raw[0];
        maxi = idxs[0];
        local = true;
        if (P->is_logits) {
            float s = 0.0f;
            for (int64_t j = 0; j < kc; j++) s += (vals[j] = expf(raw[j] - maxv));
            for (int64_t j = 0; j < kc; j++) vals[j] /= s;
            maxv = vals[0];
        } else {
            memcpy(vals, raw, sizeof(float) * (size_t)kc);
        }
    } else if (P->is_logits && !do_p) { /* C with the softmax */
        const float rmax = tk2_rowmax(x, V), sum = tk2_expsum(x, V, rmax);
        orimax = rmax;
        if (P->need_logits && none) {
            memcpy(sel, x, sizeof(float) * (size_t)V);
            copied = true;
        }
        if (none && q) { /* the direct q sample over the vocabulary */
            float best = TK2_FLOAT_MIN;
            int64_t bi = 0;
            for (int64_t j = 0; j < V; j++) {
                const float v = (expf(x[j] - rmax) / sum) / (fabsf(q[j]) + P->eps);
                if (v > best) {
                    best = v;
                    bi = j;
                }
            }
            *sel_idx = bi;
            return;
        }
        for (int64_t j = 0; j < V; j++) {
            vals[j] = expf(x[j] - rmax) / sum;
            idxs[j] = j;
        }
    } else { /* B, or C on the raw values */
        memcpy(vals, x, sizeof(float) * (size_t)V);
        for (int64_t j = 0; j < V; j++) idxs[j] = j;
        if (P->need_logits && none) {
            memcpy(sel, x, sizeof(float) * (size_t)V);
            copied = true;
        }
    }

    if (do_k && do_p) {
        bool found;
        n = tk2_topp(vals, kc, p, &found);
        maxv = vals[0];
        maxi = idxs[0];
    } else if (guess_path) { /* B: the whole row sorted (the kernel's guess and its full-sort fallback agree) */
        const float rmax = tk2_rowmax(x, V);
        const float sum = P->is_logits ? tk2_expsum(x, V, rmax) : 1.0f;
        orimax = rmax;
        tk2_sort_all(x, V, it, S->ra, S->rb);
        float cum = 0.0f;
        bool found = false;
        n = V;
        for (int64_t j = 0; j < V; j++) {
            const float v = P->is_logits ? expf(it[j].v - rmax) / sum : it[j].v;
            vals[j] = v;
            raw[j] = it[j].v;
            idxs[j] = it[j].i;
            cum += v;
            if (cum >= p) {
                n = j + 1;
                found = true;
                for (int64_t r = j + 1; r < V; r++) idxs[r] = it[r].i;
                break;
            }
        }
        maxv = vals[0];
        maxi = idxs[0];
        /* the kernel keeps the row on chip when the topKGuess largest already reach p */
        local = found && n <= (int64_t)P->guess;
        if (!P->is_logits) orimax = raw[0];
    } else if (!do_k && p >= 1.0f) { /* C */
        n = V;
        for (int64_t j = 0; j < V; j++) {
            idxs[j] = j;
            if (vals[j] > maxv) {
                maxv = vals[j];
                maxi = j;
            }
        }
        if (!P->is_logits) orimax = maxv;
    }

    if (has_minp) {
        const float thd = minp * maxv;
        if (minp >= 1.0f) {
            idxs[0] = maxi;
            raw[0] = orimax;
            vals[0] = maxv;
            n = 1;
            local = true;
        } else if (local) { /* on chip: cut after the last entry >= thd */
            for (int64_t j = n - 1; j >= 0; j--)
                if (vals[j] >= thd) {
                    n = j + 1;
                    break;
                }
        } else { /* in the workspace: pack the entries >= thd, in order */
            int64_t c = 0;
            for (int64_t j = 0; j < n; j++)
                if (vals[j] >= thd) {
                    vals[c] = vals[j];
                    idxs[c++] = idxs[j];
                }
            n = c;
        }
    }

    if (P->need_logits && !copied) {
        const bool from_raw = local && !(n * 100 >= V * 70);
        for (int64_t j = 0; j < n; j++) sel[idxs[j]] = from_raw ? raw[j] : x[idxs[j]];
    }
    if (P->need_sample) {
        for (int64_t j = 0; j < V; j++) lsm[j] = j < n ? vals[j] : 0.0f;
        for (int64_t j = 0; j < n; j++) lidx[j] = idxs[j];
    } else if (!q) {
        *sel_idx = maxi;
    } else if (local) {
        int64_t m = 0;
        float best = 0.0f;
        for (int64_t j = 0; j < n; j++) {
            const float v = vals[j] / (fabsf(q[j]) + P->eps);
            if (j == 0 || v > best) {
                best = v;
                m = j;
            }
        }
        *sel_idx = idxs[m];
    } else {
        float best = TK2_FLOAT_MIN;
        int64_t m = maxi;
        for (int64_t j = 0; j < n; j++) {
            const float v = vals[j] / (fabsf(q[j]) + P->eps);
            if (v > best) {
                best = v;
                m = j;
            }
        }
        *sel_idx = idxs[m];
    }
}

static aclnnStatus tk2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const tk2_params *P = ex->params;
    const int64_t B = P->B, V = P->V;
    int n = 0;
    const acl_view *lv = acl_exec_in(ex, n++), *kv = acl_exec_in(ex, n++), *pv = acl_exec_in(ex, n++);
    const acl_view *qv = P->has_q ? acl_exec_in(ex, n++) : NULL;
    const acl_view *mv = P->has_minp ? acl_exec_in(ex, n++) : NULL;
    const acl_view *iv = acl_exec_out(ex, 0), *sv = acl_exec_out(ex, 1), *liv = acl_exec_out(ex, 2),
                   *smv = acl_exec_out(ex, 3);
    float *x = md_load(lv, ACL_FLOAT), *pp = md_load(pv, ACL_FLOAT), *q = qv ? md_load(qv, ACL_FLOAT) : NULL;
    float *mp = mv ? md_load(mv, ACL_FLOAT) : NULL;
    int32_t *kk = md_load(kv, ACL_INT32);
    int64_t *idx = P->need_sample ? NULL : md_alloc(B, sizeof(int64_t));
    float *sel = P->need_logits ? md_alloc(B * V, sizeof(float)) : NULL;
    float *lsm = P->need_sample ? md_alloc(B * V, sizeof(float)) : NULL;
    int64_t *lidx = P->need_sample ? md_load(liv, ACL_INT64) : NULL; /* kept as it is after each row's count */
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!x || !pp || !kk || (qv && !q) || (mv && !mp) || (!P->need_sample && !idx) || (P->need_logits && !sel) ||
        (P->need_sample && (!lsm || !lidx))) {
        rc = OOM;
    } else {
        int fail = 0;
#pragma omp parallel if (B > 1 && acl_parallel_worth(B * V * 16)) reduction(| : fail)
        {
            tk2_scratch S = {malloc(sizeof(tk2_item) * (size_t)V), malloc(sizeof(float) * (size_t)V),
                             malloc(sizeof(float) * (size_t)V), malloc(sizeof(int64_t) * (size_t)V),
                             malloc(sizeof(uint64_t) * (size_t)V), malloc(sizeof(uint64_t) * (size_t)V)};
            const bool ok = S.it && S.vals && S.raw && S.idxs && S.ra && S.rb;
            if (!ok) fail = 1;
#pragma omp for schedule(static)
            for (int64_t r = 0; r < B; r++)
                if (ok)
                    tk2_row(P, x + r * V, kk[r], pp[r], mp ? mp[r] : 0.0f, q ? q + r * V : NULL,
                            idx ? idx + r : NULL, sel ? sel + r * V : NULL, lidx ? lidx + r * V : NULL,
                            lsm ? lsm + r * V : NULL, &S);
            free(S.it);
            free(S.vals);
            free(S.raw);
            free(S.idxs);
            free(S.ra);
            free(S.rb);
        }
        if (fail) rc = OOM;
        else {
            if (idx) md_store(idx, ACL_INT64, iv);
            if (sel) md_store(sel, ACL_FLOAT, sv);
            if (P->need_sample) {
                md_store(lidx, ACL_INT64, liv);
                md_store(lsm, ACL_FLOAT, smv);
            }
        }
    }
    free(x);
    free(pp);
    free(q);
    free(mp);
    free(kk);
    free(idx);
    free(sel);
    free(lsm);
    free(lidx);
    return rc;
}

static aclnnStatus tk2_dtype(const aclTensor *t, aclDataType want, const char *name, const char *wname) {
    if (!t || t->dtype == want) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype), wname);
}

/* t is [B] (1-D of logits' batch) -> else 561002 naming it */
static aclnnStatus tk2_batch(const aclTensor *t, int64_t B, const char *name) {
    if (t->ndim == 1 && t->dims[0] == B) return ACLNN_SUCCESS;
    char a[256];
    acl_shape_str(t, a, sizeof a);
    return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "%s shape %s should be [%lld] (logits' batch).", name, a,
                      (long long)B);
}

/* t has logits' shape [B, V] -> else 561002 naming it */
static aclnnStatus tk2_full(const aclTensor *t, int64_t B, int64_t V, const char *name) {
    if (t->ndim == 2 && t->dims[0] == B && t->dims[1] == V) return ACLNN_SUCCESS;
    char a[256];
    acl_shape_str(t, a, sizeof a);
    return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "%s shape %s should be logits' shape [%lld, %lld].", name, a,
                      (long long)B, (long long)V);
}

aclnnStatus opws_TopKTopPSampleV2(const aclTensor *logits, const aclTensor *topK, const aclTensor *topP,
                                  const aclTensor *q, const aclTensor *minPs, double eps, bool isNeedLogits,
                                  int64_t topKGuess, int64_t ksMax, bool inputIsLogits, bool isNeedSampleResult,
                                  const aclTensor *logitsSelectIdx, const aclTensor *logitsTopKPSelect,
                                  const aclTensor *logitsIdx, const aclTensor *logitsSortMasked,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(logits, "logits");
    NN(topK, "topK");
    NN(topP, "topP");
    NN(logitsSelectIdx, "logitsSelectIdx");
    NN(logitsTopKPSelect, "logitsTopKPSelect");
    NN(logitsIdx, "logitsIdx");
    NN(logitsSortMasked, "logitsSortMasked");
    if (q) NN(q, "q");
    if (minPs) NN(minPs, "minPs");
    /* the OpDef's combinations: (f16 | bf16 | f32, int32, = logits, float32, = logits, int64, float32, int64,
     * float32) */
    ACLNN_CHECK(logits->dtype == ACL_FLOAT16 || logits->dtype == ACL_BF16 || logits->dtype == ACL_FLOAT,
                ACLNN_ERR_PARAM_INVALID, "logits dtype %s should be float16, bfloat16 or float32.",
                acl_dtype_name(logits->dtype));
    ACL_TRY(tk2_dtype(topK, ACL_INT32, "topK", "int32"));
    ACL_TRY(tk2_dtype(topP, logits->dtype, "topP", acl_dtype_name(logits->dtype)));
    ACL_TRY(tk2_dtype(q, ACL_FLOAT, "q", "float32"));
    ACL_TRY(tk2_dtype(minPs, logits->dtype, "minPs", acl_dtype_name(logits->dtype)));
    ACL_TRY(tk2_dtype(logitsSelectIdx, ACL_INT64, "logitsSelectIdx", "int64"));
    ACL_TRY(tk2_dtype(logitsTopKPSelect, ACL_FLOAT, "logitsTopKPSelect", "float32"));
    ACL_TRY(tk2_dtype(logitsIdx, ACL_INT64, "logitsIdx", "int64"));
    ACL_TRY(tk2_dtype(logitsSortMasked, ACL_FLOAT, "logitsSortMasked", "float32"));
    /* the tiling: inputs' shapes, then the outputs each mode writes */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(logits->ndim == 2, T, "logits should be 2-D [batch, vocSize], got %d-D.", (int)logits->ndim);
    const int64_t B = logits->dims[0], V = logits->dims[1];
    ACLNN_CHECK(V <= 1048576, T, "logits' vocSize %lld should not exceed 1048576.", (long long)V);
    ACL_TRY(tk2_batch(topK, B, "topK"));
    ACL_TRY(tk2_batch(topP, B, "topP"));
    if (q) {
        ACLNN_CHECK(!isNeedSampleResult, T, "q should be NULL when isNeedSampleResult is true.");
        ACL_TRY(tk2_full(q, B, V, "q"));
    }
    if (minPs) ACL_TRY(tk2_batch(minPs, B, "minPs"));
    if (isNeedLogits) ACL_TRY(tk2_full(logitsTopKPSelect, B, V, "logitsTopKPSelect"));
    if (!isNeedSampleResult) ACL_TRY(tk2_batch(logitsSelectIdx, B, "logitsSelectIdx"));
    if (isNeedSampleResult) {
        ACL_TRY(tk2_full(logitsIdx, B, V, "logitsIdx"));
        ACL_TRY(tk2_full(logitsSortMasked, B, V, "logitsSortMasked"));
    }
    ACLNN_CHECK(B > 0 && V > 0, T, "logits should not be empty (batch %lld, vocSize %lld).", (long long)B,
                (long long)V);
    /* the tiling reads ksMax and topKGuess as 32-bit attributes */
    const uint32_t ks = (uint32_t)ksMax, ksa = (uint32_t)(((uint64_t)ks + 7u) / 8u * 8u);
    const uint32_t guess = (uint32_t)(int32_t)topKGuess;
    tk2_params p = {B, V, (float)eps, ksa > 1024u ? 1024u : ksa, guess > 1024u ? 1024u : guess, q != NULL,
                    minPs != NULL, isNeedLogits, inputIsLogits, isNeedSampleResult};
    const aclTensor *ins[] = {logits, topK, topP, q, minPs},
                    *outs[] = {logitsSelectIdx, logitsTopKPSelect, logitsIdx, logitsSortMasked};
    const char *inn[] = {"logits", "topK", "topP", "q", "minPs"},
               *outn[] = {"logitsSelectIdx", "logitsTopKPSelect", "logitsIdx", "logitsSortMasked"};
    return ix_exec(ACL_OP_TopKTopPSampleV2, tk2_run, sizeof p, ins, inn, 5, outs, outn, 4, workspaceSize, executor,
                   &p);
}
