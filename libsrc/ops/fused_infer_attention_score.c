/* aclnnFusedInferAttentionScoreV2 (ops-transformer attention/fused_infer_attention_score): inference attention
 *   out[b,n,s,:] = softmax_j(scaleValue * q[b,n,s,:].k[b,g(n),j,:] + pse[b,n,s,j], masked j dropped) . v[b,g(n),j,:]
 * with grouped-query heads g(n) = n / (numHeads / numKeyValueHeads). The V2 first phase forwards to the generated
 * inner one (no op_api checks of its own): NULL query/key/value/attentionOut 161001, the definition's dtypes 161002,
 * then the tiling's rules 561002 (layout, heads, shapes, sparse mode).
 * Modelled: layouts BSND, BNSD, BSH; one key and one value tensor in the lists; pseShift [B|1, N, S, Skv];
 * attenMask (bool/int8/uint8, nonzero = masked) [S,Skv], [B|1,S,Skv], [B|1,1,S,Skv]; sparseMode 0 (preTokens /
 * nextTokens band), 1 (the whole mask), 2 (left-up causal), 3 (right-down causal); softmaxLse (f32 [B,N,S,1]).
 * Not modelled (561002 with a message): the quantised, antiquant, paged (blockTable), padding, shared-prefix and
 * actual-sequence-length inputs, sparseMode 4, key/value lists of more than one tensor.
 * Compute in double (q.k over D as four interleaved partial sums, the other sums in index order), rounded once to
 * attentionOut's dtype; a broadcast (stride-0) pseShift or mask dim is read once, not materialised; a row with every key
 * masked gives zeros (and lse +inf). One iteration owns one (b, n, s) row: the same bytes for any thread count. */
#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

enum { FIA_BSND, FIA_BNSD, FIA_BSH };

typedef struct {
    int layout, sparse, has_pse, has_mask, has_lse;
    int64_t B, N, NKV, S, SKV, D;
    int64_t pre, next;
    double scale;
} fia_params;

/* v (rank 4) seen as [B, heads, tokens, D] from its layout: BNSD as is, BSND/BSH with dims 1 and 2 swapped */
static acl_view fia_bnsd_view(const acl_view *v, int layout, int64_t nh, int64_t D) {
    acl_view t = *v;
    if (layout == FIA_BSH) { /* [B, S, H] -> [B, S, nh, D] */
        t.ndim = 4;
        t.dims[2] = nh, t.strides[2] = v->strides[2] * D;
        t.dims[3] = D, t.strides[3] = v->strides[2];
    }
    if (layout != FIA_BNSD) {
        int64_t d = t.dims[1], st = t.strides[1];
        t.dims[1] = t.dims[2], t.strides[1] = t.strides[2];
        t.dims[2] = d, t.strides[2] = st;
    }
    return t;
}

/* v's elements as dtype dt in a buffer that holds each distinct element once: a dim of stride 0 (a broadcast
 * view, such as llama.cpp's pseShift repeated over the heads) is loaded as size 1. st receives the element
 * strides into the buffer for v's full dims (0 for those dims). */
static void *fia_load_compact(const acl_view *v, aclDataType dt, int64_t *st) {
    acl_view c = *v;
    for (int k = 0; k < c.ndim; k++)
        if (c.strides[k] == 0) c.dims[k] = 1;
    int64_t s = 1;
    for (int k = c.ndim - 1; k >= 0; k--) {
        st[k] = c.dims[k] == 1 ? 0 : s;
        s *= c.dims[k];
    }
    return md_load(&c, dt);
}

/* a fixed-order dot product (four interleaved partial sums, added in one order): the same bytes on any thread */
static inline double fia_dot(const double *a, const double *b, int64_t n) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    int64_t i = 0;
    for (; i + 4 <= n; i += 4) {
        s0 += a[i] * b[i];
        s1 += a[i + 1] * b[i + 1];
        s2 += a[i + 2] * b[i + 2];
        s3 += a[i + 3] * b[i + 3];
    }
    for (; i < n; i++) s0 += a[i] * b[i];
    return (s0 + s1) + (s2 + s3);
}

static aclnnStatus fia_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fia_params *p = ex->params;
    const int64_t B = p->B, N = p->N, NKV = p->NKV, S = p->S, SKV = p->SKV, D = p->D, G = N / NKV;
    int slot = 3;
    /* q, k, v and the output gathered as contiguous [B, heads, tokens, D]: dot products over contiguous D */
    const acl_view qv = fia_bnsd_view(acl_exec_in(ex, 0), p->layout, N, D);
    const acl_view kv = fia_bnsd_view(acl_exec_in(ex, 1), p->layout, NKV, D);
    const acl_view vv = fia_bnsd_view(acl_exec_in(ex, 2), p->layout, NKV, D);
    const acl_view ov = fia_bnsd_view(acl_exec_out(ex, 0), p->layout, N, D);
    acl_view pse4 = {0}, mask4 = {0};
    if (p->has_pse) {
        const int64_t dims[4] = {B, N, S, SKV};
        pse4 = md_broadcast_view(acl_exec_in(ex, slot++), dims, 4);
    }
    if (p->has_mask) {
        const acl_view *m = acl_exec_in(ex, slot++);
        acl_view t = *m;
        t.ndim = 4;
        if (m->ndim == 2) {
            t.dims[0] = t.dims[1] = 1, t.strides[0] = t.strides[1] = 0;
            t.dims[2] = m->dims[0], t.strides[2] = m->strides[0], t.dims[3] = m->dims[1], t.strides[3] = m->strides[1];
        } else if (m->ndim == 3) {
            t.dims[0] = m->dims[0], t.strides[0] = m->strides[0], t.dims[1] = 1, t.strides[1] = 0;
            t.dims[2] = m->dims[1], t.strides[2] = m->strides[1], t.dims[3] = m->dims[2], t.strides[3] = m->strides[2];
        }
        const int64_t dims[4] = {B, 1, S, SKV};
        mask4 = md_broadcast_view(&t, dims, 4);
    }
    int64_t pst[4] = {0}, mst[4] = {0};
    double *q = md_load(&qv, ACL_DOUBLE), *k = md_load(&kv, ACL_DOUBLE), *v = md_load(&vv, ACL_DOUBLE);
    double *pse = p->has_pse ? fia_load_compact(&pse4, ACL_DOUBLE, pst) : NULL;
    unsigned char *mask = p->has_mask ? fia_load_compact(&mask4, ACL_BOOL, mst) : NULL;
    double *o = md_alloc(B * N * S * D, sizeof(double));
    float *lse = p->has_lse ? md_alloc(B * N * S, sizeof(float)) : NULL;
    aclnnStatus rc = ACLNN_ERR_INNER;
    int short_rows = 0;
    if (q && k && v && o && (!p->has_pse || pse) && (!p->has_mask || mask) && (!p->has_lse || lse)) {
        const int64_t rows = B * N * S;
#pragma omp parallel if (acl_parallel_worth(rows * SKV * D))
        {
            double *row = md_alloc(SKV, sizeof(double)); /* this thread's scores */
            if (!row) {
#pragma omp atomic write
                short_rows = 1;
            }
#pragma omp for schedule(static)
            for (int64_t r = 0; r < rows; r++) {
                if (!row) continue;
                const int64_t b = r / (N * S), n = (r / S) % N, s = r % S, g = n / G;
                const double *qr = q + r * D, *kb = k + (b * NKV + g) * SKV * D, *vb = v + (b * NKV + g) * SKV * D;
                const double *pr = pse ? pse + b * pst[0] + n * pst[1] + s * pst[2] : NULL;
                const unsigned char *mr = mask ? mask + b * mst[0] + s * mst[2] : NULL;
                double mx = -INFINITY;
                for (int64_t j = 0; j < SKV; j++) {
                    int masked = 0;
                    if (p->sparse == 0) masked = (j - s) > p->next || (s - j) > p->pre;
                    else if (p->sparse == 2) masked = j > s;
                    else if (p->sparse == 3) masked = j > s + (SKV - S);
                    if (!masked && mr && (p->sparse == 0 || p->sparse == 1)) masked = mr[j * mst[3]] != 0;
                    if (masked) {
                        row[j] = -INFINITY;
                        continue;
                    }
                    double acc = fia_dot(qr, kb + j * D, D) * p->scale;
                    if (pr) acc += pr[j * pst[3]];
                    row[j] = acc;
                    if (acc > mx) mx = acc;
                }
                double *out = o + r * D;
                for (int64_t d = 0; d < D; d++) out[d] = 0.0;
                if (mx == -INFINITY) {
                    if (lse) lse[r] = INFINITY;
                    continue;
                }
                double sum = 0.0;
                for (int64_t j = 0; j < SKV; j++) {
                    row[j] = row[j] == -INFINITY ? 0.0 : exp(row[j] - mx);
                    sum += row[j];
                }
                for (int64_t j = 0; j < SKV; j++) {
                    if (row[j] == 0.0) continue;
                    const double w = row[j] / sum, *vr = vb + j * D;
                    for (int64_t d = 0; d < D; d++) out[d] += w * vr[d];
                }
                if (lse) lse[r] = (float)(mx + log(sum));
            }
            free(row);
        }
        if (!short_rows) {
            md_store(o, ACL_DOUBLE, &ov);
            rc = ACLNN_SUCCESS;
            if (lse) rc = md_store_via(lse, ACL_FLOAT, ACL_FLOAT, acl_exec_out(ex, 1));
        }
    }
    if (rc == ACLNN_ERR_INNER) rc = OOM; /* reported only when it happened */
    free(q), free(k), free(v), free(pse), free(mask), free(o), free(lse);
    return rc;
}

#define FIA_TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

static aclnnStatus fia_unsupported(const void *t, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR,
                      "%s is given, but the emulated FusedInferAttentionScore models no quantised, antiquant, paged, "
                      "padded, shared-prefix or actual-length inputs; pass NULL.", name);
}

aclnnStatus opws_FusedInferAttentionScoreV2(
    const aclTensor *query, const aclTensorList *key, const aclTensorList *value, const aclTensor *pseShiftOptional,
    const aclTensor *attenMaskOptional, const aclIntArray *actualSeqLengthsOptional,
    const aclIntArray *actualSeqLengthsKvOptional, const aclTensor *deqScale1Optional,
    const aclTensor *quantScale1Optional, const aclTensor *deqScale2Optional, const aclTensor *quantScale2Optional,
    const aclTensor *quantOffset2Optional, const aclTensor *antiquantScaleOptional,
    const aclTensor *antiquantOffsetOptional, const aclTensor *blockTableOptional,
    const aclTensor *queryPaddingSizeOptional, const aclTensor *kvPaddingSizeOptional,
    const aclTensor *keyAntiquantScaleOptional, const aclTensor *keyAntiquantOffsetOptional,
    const aclTensor *valueAntiquantScaleOptional, const aclTensor *valueAntiquantOffsetOptional,
    const aclTensor *keySharedPrefixOptional, const aclTensor *valueSharedPrefixOptional,
    const aclIntArray *actualSharedPrefixLenOptional, int64_t numHeads, double scaleValue, int64_t preTokens,
    int64_t nextTokens, char *inputLayout, int64_t numKeyValueHeads, int64_t sparseMode, int64_t innerPrecise,
    int64_t blockSize, int64_t antiquantMode, bool softmaxLseFlag, int64_t keyAntiquantMode,
    int64_t valueAntiquantMode, const aclTensor *attentionOut, const aclTensor *softmaxLse, uint64_t *workspaceSize,
    aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(query, "query"));
    ACLNN_CHECK(key != NULL, ACLNN_ERR_PARAM_NULLPTR, "key must not be NULL.");
    ACLNN_CHECK(value != NULL, ACLNN_ERR_PARAM_NULLPTR, "value must not be NULL.");
    ACL_TRY(acl_check_tensor(attentionOut, "attentionOut"));
    ACLNN_CHECK(key->size >= 1 && key->v[0], ACLNN_ERR_PARAM_NULLPTR, "key must hold a tensor.");
    ACLNN_CHECK(value->size >= 1 && value->v[0], ACLNN_ERR_PARAM_NULLPTR, "value must hold a tensor.");
    const aclTensor *k = key->v[0], *v = value->v[0];
    ACL_TRY(acl_check_dtype_in(query, ACL_DT_LIST_FusedInferAttentionScoreV2, "query"));
    ACL_TRY(acl_check_same_dtype(query, "query", k, "key"));
    ACL_TRY(acl_check_same_dtype(query, "query", v, "value"));
    ACL_TRY(acl_check_same_dtype(query, "query", attentionOut, "attentionOut"));
    if (pseShiftOptional) {
        static const aclDataType pl[] = {ACL_FLOAT16, ACL_BF16};
        ACL_TRY(acl_check_dtype_in(pseShiftOptional, pl, 2, "pseShiftOptional"));
    }
    if (attenMaskOptional) {
        static const aclDataType ml[] = {ACL_BOOL, ACL_INT8, ACL_UINT8};
        ACL_TRY(acl_check_dtype_in(attenMaskOptional, ml, 3, "attenMaskOptional"));
    }
    const int has_lse = softmaxLseFlag && softmaxLse;
    if (has_lse) {
        static const aclDataType ll[] = {ACL_FLOAT};
        ACL_TRY(acl_check_dtype_in(softmaxLse, ll, 1, "softmaxLse"));
    }
    const void *unsup[] = {actualSeqLengthsOptional, actualSeqLengthsKvOptional, deqScale1Optional,
                           quantScale1Optional, deqScale2Optional, quantScale2Optional, quantOffset2Optional,
                           antiquantScaleOptional, antiquantOffsetOptional, blockTableOptional,
                           queryPaddingSizeOptional, kvPaddingSizeOptional, keyAntiquantScaleOptional,
                           keyAntiquantOffsetOptional, valueAntiquantScaleOptional, valueAntiquantOffsetOptional,
                           keySharedPrefixOptional, valueSharedPrefixOptional, actualSharedPrefixLenOptional};
    static const char *const unames[] = {
        "actualSeqLengthsOptional", "actualSeqLengthsKvOptional", "deqScale1Optional", "quantScale1Optional",
        "deqScale2Optional", "quantScale2Optional", "quantOffset2Optional", "antiquantScaleOptional",
        "antiquantOffsetOptional", "blockTableOptional", "queryPaddingSizeOptional", "kvPaddingSizeOptional",
        "keyAntiquantScaleOptional", "keyAntiquantOffsetOptional", "valueAntiquantScaleOptional",
        "valueAntiquantOffsetOptional", "keySharedPrefixOptional", "valueSharedPrefixOptional",
        "actualSharedPrefixLenOptional"};
    for (int i = 0; i < 19; i++) ACL_TRY(fia_unsupported(unsup[i], unames[i]));
    FIA_TILING(key->size == 1 && value->size == 1,
               "key and value must each hold one tensor (the emulator models no per-batch lists), got %llu and %llu.",
               (unsigned long long)key->size, (unsigned long long)value->size);
    ACLNN_CHECK(inputLayout != NULL, ACLNN_ERR_PARAM_NULLPTR, "inputLayout must not be NULL.");
    int layout;
    if (!strcmp(inputLayout, "BSND")) layout = FIA_BSND;
    else if (!strcmp(inputLayout, "BNSD")) layout = FIA_BNSD;
    else if (!strcmp(inputLayout, "BSH")) layout = FIA_BSH;
    else return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "inputLayout \"%s\" is not supported: BSND, BNSD or BSH.",
                           inputLayout);
    FIA_TILING(numHeads > 0, "numHeads %lld must be positive.", (long long)numHeads);
    const int64_t nkv = numKeyValueHeads == 0 ? numHeads : numKeyValueHeads;
    FIA_TILING(nkv > 0 && numHeads % nkv == 0, "numKeyValueHeads %lld must divide numHeads %lld.",
               (long long)numKeyValueHeads, (long long)numHeads);
    FIA_TILING(sparseMode >= 0 && sparseMode <= 3, "sparseMode %lld is not supported: 0, 1, 2 or 3.",
               (long long)sparseMode);
    FIA_TILING(innerPrecise >= 0 && innerPrecise <= 3, "innerPrecise %lld must be 0..3.", (long long)innerPrecise);
    const int rank = layout == FIA_BSH ? 3 : 4;
    FIA_TILING((int)query->ndim == rank && (int)k->ndim == rank && (int)v->ndim == rank,
               "query, key and value must have %d dims for layout %s.", rank, inputLayout);
    int64_t B = query->dims[0], S, SKV, D, N = numHeads;
    if (layout == FIA_BSH) {
        FIA_TILING(query->dims[2] % numHeads == 0, "query's H %lld must be a multiple of numHeads %lld.",
                   (long long)query->dims[2], (long long)numHeads);
        S = query->dims[1], D = query->dims[2] / numHeads, SKV = k->dims[1];
        FIA_TILING(k->dims[2] == nkv * D && v->dims[2] == nkv * D, "key's and value's H must be numKeyValueHeads * D.");
    } else {
        const int sd = layout == FIA_BSND ? 1 : 2, nd = layout == FIA_BSND ? 2 : 1;
        S = query->dims[sd], D = query->dims[3], SKV = k->dims[sd];
        FIA_TILING(query->dims[nd] == numHeads, "query's N %lld must be numHeads %lld.", (long long)query->dims[nd],
                   (long long)numHeads);
        FIA_TILING(k->dims[nd] == nkv && v->dims[nd] == nkv, "key's and value's N must be numKeyValueHeads %lld.",
                   (long long)nkv);
        FIA_TILING(k->dims[3] == D && v->dims[3] == D, "key's and value's D must be query's %lld.", (long long)D);
    }
    FIA_TILING(k->dims[0] == B && v->dims[0] == B, "key's and value's B must be query's %lld.", (long long)B);
    for (int i = 0; i < rank; i++)
        FIA_TILING(v->dims[i] == k->dims[i], "value's shape must be key's.");
    FIA_TILING(md_shape_is(attentionOut, query->dims, rank), "attentionOut's shape must be query's.");
    if (pseShiftOptional) {
        const aclTensor *t = pseShiftOptional;
        FIA_TILING(t->ndim == 4 && (t->dims[0] == B || t->dims[0] == 1) && t->dims[1] == N && t->dims[2] >= S &&
                       t->dims[3] >= SKV,
                   "pseShiftOptional must be [B or 1, N, >=S, >=Skv] = [%lld, %lld, %lld, %lld].", (long long)B,
                   (long long)N, (long long)S, (long long)SKV);
        FIA_TILING(t->dims[2] == S && t->dims[3] == SKV, "pseShiftOptional's last two dims must be [%lld, %lld].",
                   (long long)S, (long long)SKV);
    }
    if (attenMaskOptional) {
        const aclTensor *t = attenMaskOptional;
        int ok = t->ndim >= 2 && t->ndim <= 4 && t->dims[t->ndim - 2] == S && t->dims[t->ndim - 1] == SKV;
        if (ok && t->ndim >= 3) ok = t->dims[0] == B || t->dims[0] == 1;
        if (ok && t->ndim == 4) ok = t->dims[1] == 1;
        FIA_TILING(ok, "attenMaskOptional must be [S, Skv], [B|1, S, Skv] or [B|1, 1, S, Skv] with S %lld, Skv %lld.",
                   (long long)S, (long long)SKV);
    }
    FIA_TILING(sparseMode != 1 || attenMaskOptional, "sparseMode 1 needs attenMaskOptional.");
    if (has_lse) {
        const int64_t ld[4] = {B, N, S, 1};
        FIA_TILING(md_shape_is(softmaxLse, ld, 4), "softmaxLse must be [B, N, S, 1].");
    }
    if (acl_tensor_empty(query) || acl_tensor_empty(k))
        FIA_TILING(acl_tensor_empty(query), "key is empty but query is not; the emulator needs Skv > 0.");
    if (acl_tensor_empty(query)) return acl_exec_noop(ACL_OP_FusedInferAttentionScoreV2, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_FusedInferAttentionScoreV2, fia_run, sizeof(fia_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, query, "query", true);
    if (!rc) rc = acl_exec_add_input(ex, k, "key", true);
    if (!rc) rc = acl_exec_add_input(ex, v, "value", true);
    if (!rc && pseShiftOptional) rc = acl_exec_add_input(ex, pseShiftOptional, "pseShiftOptional", true);
    if (!rc && attenMaskOptional) rc = acl_exec_add_input(ex, attenMaskOptional, "attenMaskOptional", true);
    if (!rc) rc = acl_exec_add_output(ex, attentionOut, "attentionOut");
    if (!rc && has_lse) rc = acl_exec_add_output(ex, softmaxLse, "softmaxLse");
    if (rc) return acl_exec_discard(ex, rc);
    *(fia_params *)ex->params = (fia_params){layout, (int)sparseMode, pseShiftOptional != NULL,
                                             attenMaskOptional != NULL, has_lse, B, N, nkv, S, SKV, D,
                                             preTokens, nextTokens, scaleValue};
    return acl_exec_publish(ex, workspaceSize, executor);
}
