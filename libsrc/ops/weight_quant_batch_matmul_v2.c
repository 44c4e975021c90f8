/* aclnnWeightQuantBatchMatmulV2 (ops-nn matmul/weight_quant_batch_matmul_v2): y = x @ ANTIQUANT(weight) + bias with
 * ANTIQUANT(w) = (w + antiquantOffset) * antiquantScale, optionally quantised to int8:
 * y = QUANT(...) = (x @ ANTIQUANT(weight) + bias) * quantScale + quantOffset.
 * x (m, k) f16/bf16, weight (k, n) int8 or int4 (ND, contiguous or the transposed view of an (n, k) tensor),
 * antiquantScale per tensor (1)/(1,1), per channel (n)/(1,n) or per group (ceil(k/g), n) with antiquantGroupSize g;
 * y (m, n) of x's dtype, or int8 with quantScaleOptional (uint64 from aclnnTransQuantParam: the low 32 bits are the
 * float's bits) and quantOffsetOptional (float).
 * The "fixpipe" form (antiquantScale uint64/int64 from TransQuantParamV2, antiquantOffset int32, x/y f16, weight
 * int8): x @ (w + offset) accumulated in float, then times the per-channel scale.
 *
 * Validation follows the op_api source's order on ASCEND910B (DAV_2201): NULL (x, weight, antiquantScale, y) 161001;
 * the contiguity rules; dtypes and dims; scale/offset dtype pairing; bias dtype, formats, dims; optional dims and
 * quantScale; k/m/n and y shape; group size; scale/offset shapes; quant/bias shapes - all 161002.
 *
 * INT4 weights: two per byte, the even element in the low nibble (CANN's packing), read through a uint8 view of the
 * packed storage; an INT32 weight (INT4Pack: eight int4 per int32, from aclnnConvertWeightToINT4Pack) is the same
 * storage seen as INT4 (k, n) with its last dim, or its first when transposed, eight times larger. Compute: the dequantised weight in x's dtype ((w + offset) rounded, times scale rounded, as the
 * kernel's vector unit does it), products accumulated in float over k in ascending order, bias added in float, one
 * rounding to y. Each output is owned by one iteration: the same bytes for any OMP_NUM_THREADS. */
#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

enum { WQ_MKN_MAX = 65535, WQ_GROUP_MIN = 32, WQ_NBLK = 256 };

typedef struct {
    int64_t m, k, n, group;
    int64_t w_s0, w_s1, w_off;  /* int4: element strides and offset of the packed view */
    bool int4, has_off, has_bias, has_qs, has_qo, fixpipe;
    int scale_kind;             /* 0 per tensor, 1 per channel, 2 per group */
    int i_off, i_qs, i_qo, i_bias;
} wq_params;

static bool wq_contig(const aclTensor *t) {
    int64_t s = 1;
    for (int k = (int)t->ndim - 1; k >= 0; k--) {
        if (t->dims[k] != 1 && t->strides[k] != s) return false;
        if (__builtin_mul_overflow(s, t->dims[k], &s)) return false;
    }
    return true;
}

/* the transposed view of a contiguous tensor (IsTransposeLastTwoDims for 2-d) */
static bool wq_trans(const aclTensor *t) {
    if (t->ndim != 2) return false;
    return t->strides[0] == 1 && t->strides[1] == t->dims[0];
}

static float wq_u64_scale(const void *p) {
    uint64_t u;
    memcpy(&u, p, 8);
    uint32_t b = (uint32_t)u;
    float f;
    memcpy(&f, &b, 4);
    return f;
}

static int wq_w_at(const acl_view *w, const wq_params *p, int64_t k, int64_t n) {
    if (!p->int4) return ((const int8_t *)w->base)[k * w->strides[0] + n * w->strides[1]];
    const int64_t e = p->w_off + k * p->w_s0 + n * p->w_s1;
    const uint8_t b = ((const uint8_t *)w->base)[e >> 1];
    const int v = (e & 1) ? (b >> 4) : (b & 15);
    return v >= 8 ? v - 16 : v;
}

static aclnnStatus wq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const wq_params *p = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *wv = acl_exec_in(ex, 1), *sv = acl_exec_in(ex, 2);
    const acl_view *y = acl_exec_out(ex, 0);
    const aclDataType xdt = xv->dtype;
    const int64_t M = p->m, K = p->k, N = p->n;
    float *x = md_load(xv, ACL_FLOAT), *wd = md_alloc(K * N, sizeof(float)), *r = md_alloc(M * N, sizeof(float));
    float *sc = NULL, *of = NULL, *bias = NULL, *qs = NULL, *qo = NULL;
    aclnnStatus rc = ACLNN_ERR_INNER; /* OOM, reported at done: (an eager OOM would record a message on success) */
    if (!x || !wd || !r) goto done;
    const int64_t ns = md_numel(sv);
    if (p->fixpipe) {
        sc = md_alloc(ns, sizeof(float));
        uint64_t *raw = md_load(sv, ACL_UINT64);
        if (!sc || !raw) {
            free(raw);
            goto done;
        }
        for (int64_t i = 0; i < ns; i++) sc[i] = wq_u64_scale(&raw[i]);
        free(raw);
    } else if (!(sc = md_load(sv, ACL_FLOAT))) goto done;
    if (p->has_off && !(of = md_load(acl_exec_in(ex, p->i_off), ACL_FLOAT))) goto done;
    if (p->has_bias && !(bias = md_load(acl_exec_in(ex, p->i_bias), ACL_FLOAT))) goto done;
    if (p->has_qs) {
        const acl_view *qv = acl_exec_in(ex, p->i_qs);
        const int64_t nq = md_numel(qv);
        uint64_t *raw = md_load(qv, ACL_UINT64);
        qs = md_alloc(nq, sizeof(float));
        if (!raw || !qs) {
            free(raw);
            goto done;
        }
        for (int64_t i = 0; i < nq; i++) qs[i] = wq_u64_scale(&raw[i]);
        free(raw);
        if (p->has_qo && !(qo = md_load(acl_exec_in(ex, p->i_qo), ACL_FLOAT))) goto done;
    }
    /* the dequantised weight (k, n) */
    ACL_FOR(acl_parallel_worth(K * N), k, 0, K, {
        for (int64_t n = 0; n < N; n++) {
            const int64_t si = p->scale_kind == 0 ? 0 : p->scale_kind == 1 ? n : (k / p->group) * N + n;
            const float w = (float)wq_w_at(wv, p, k, n);
            float d;
            if (p->fixpipe) d = w + (of ? of[si] : 0.0f); /* integer-valued: exact; the scale comes after the sum */
            else {
                const float t = of ? (float)md_round(w + of[si], xdt) : w;
                d = (float)md_round(t * sc[si], xdt);
            }
            wd[k * N + n] = d;
        }
    });
    const int64_t nblk = (N + WQ_NBLK - 1) / WQ_NBLK;
    const bool nq1 = p->has_qs && md_numel(acl_exec_in(ex, p->i_qs)) == 1;
    ACL_FOR(acl_parallel_worth(M * N * K), t, 0, M * nblk, {
        const int64_t m = t / nblk, n0 = (t % nblk) * WQ_NBLK, n1 = n0 + WQ_NBLK < N ? n0 + WQ_NBLK : N;
        float acc[WQ_NBLK];
        for (int64_t n = n0; n < n1; n++) acc[n - n0] = 0.0f;
        for (int64_t k = 0; k < K; k++) {
            const float xv_ = x[m * K + k];
            const float *wr = wd + k * N;
            for (int64_t n = n0; n < n1; n++) acc[n - n0] += xv_ * wr[n];
        }
        for (int64_t n = n0; n < n1; n++) {
            float v = acc[n - n0];
            if (p->fixpipe) v *= sc[p->scale_kind == 0 ? 0 : n];
            if (bias) v += bias[n];
            if (qs) {
                const int64_t qi = nq1 ? 0 : n;
                v = v * qs[qi] + (qo ? qo[qi] : 0.0f);
            }
            r[m * N + n] = v;
        }
    });
    if (p->has_qs) { /* int8: round half to even, saturate */
        int8_t *q = md_alloc(M * N, 1);
        if (!q) goto done;
        for (int64_t i = 0; i < M * N; i++) {
            const float v = rintf(r[i]);
            q[i] = isnan(v) ? 0 : v > 127 ? 127 : v < -128 ? -128 : (int8_t)v;
        }
        md_store(q, ACL_INT8, y);
        free(q);
        rc = ACLNN_SUCCESS;
    } else {
        rc = md_store_via(r, ACL_FLOAT, y->dtype, y);
    }
done:
    if (rc == ACLNN_ERR_INNER) rc = OOM;
    free(x);
    free(wd);
    free(r);
    free(sc);
    free(of);
    free(bias);
    free(qs);
    free(qo);
    return rc;
}

static const aclDataType k_x[] = {ACL_FLOAT16, ACL_BF16};
static const aclDataType k_w[] = {ACL_INT8, ACL_INT4};
static const aclDataType k_s[] = {ACL_FLOAT16, ACL_BF16, ACL_UINT64, ACL_INT64};
static const aclDataType k_y[] = {ACL_FLOAT16, ACL_BF16, ACL_INT8};

static aclnnStatus wq_dim(const aclTensor *t, uint64_t lo, uint64_t hi, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    ACLNN_CHECK(t->ndim >= lo && t->ndim <= hi, ACLNN_ERR_PARAM_INVALID, "%s's dim should be in range [%llu, %llu], "
                "actual is %llu.", name, (unsigned long long)lo, (unsigned long long)hi, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus wq_nd(const aclTensor *t, const char *name) {
    if (!t || !acl_format_is_private(t->format)) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s's format should be ND.", name);
}

static bool wq_same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

aclnnStatus opws_WeightQuantBatchMatmulV2(const aclTensor *x, const aclTensor *weight, const aclTensor *antiquantScale,
                                          const aclTensor *antiquantOffsetOptional,
                                          const aclTensor *quantScaleOptional, const aclTensor *quantOffsetOptional,
                                          const aclTensor *biasOptional, int antiquantGroupSize, const aclTensor *y,
                                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *off = antiquantOffsetOptional, *qs = quantScaleOptional, *qo = quantOffsetOptional,
                    *bias = biasOptional;
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_tensor(antiquantScale, "antiquantScale"));
    ACL_TRY(acl_check_tensor(y, "y"));
    /* weight format: ND or FRACTAL_NZ on A2 (checked with the formats below); the private layouts are not modelled */
    ACLNN_CHECK(weight->format != ACL_FORMAT_FRACTAL_NZ, ACLNN_ERR_PARAM_INVALID,
                "weight in FRACTAL_NZ format is not supported by the emulator (use ND).");
    /* ContiguousCheck */
    const bool tx = x->ndim >= 2 && wq_trans(x), tw = wq_trans(weight);
    ACLNN_CHECK(tx || wq_contig(x), ACLNN_ERR_PARAM_INVALID,
                "only support x tensor is contiguous or transpose last two dims.");
    ACLNN_CHECK(tw || wq_contig(weight), ACLNN_ERR_PARAM_INVALID,
                "only support weight tensor is contiguous or transpose last two dims.");
    ACLNN_CHECK(tw || wq_contig(antiquantScale), ACLNN_ERR_PARAM_INVALID,
                "only support antiquantScale tensor is contiguous or transpose last two dims.");
    ACLNN_CHECK(!off || tw || wq_contig(off), ACLNN_ERR_PARAM_INVALID,
                "only support antiquantOffsetOptional tensor is contiguous or transpose last two dims.");
    ACLNN_CHECK(wq_contig(y), ACLNN_ERR_PARAM_INVALID, "y must be contiguous.");
    ACLNN_CHECK(!qs || wq_contig(qs), ACLNN_ERR_PARAM_INVALID, "only support quantScaleOptional tensor is contiguous.");
    ACLNN_CHECK(!qo || wq_contig(qo), ACLNN_ERR_PARAM_INVALID,
                "only support quantOffsetOptional tensor is contiguous.");
    ACLNN_CHECK(!bias || wq_contig(bias), ACLNN_ERR_PARAM_INVALID, "only support biasOptional tensor is contiguous.");
    /* TensorPreProcess: an INT32 weight is eight int4 values per element (aclnnConvertWeightToINT4Pack): seen as
     * INT4 with its last dim (its first when transposed) eight times larger */
    aclDataType wdt = weight->dtype;
    int64_t wd0 = weight->ndim >= 1 ? weight->dims[0] : 0, wd1 = weight->ndim >= 2 ? weight->dims[1] : 0;
    int64_t ws0 = weight->ndim >= 1 ? weight->strides[0] : 0, ws1 = weight->ndim >= 2 ? weight->strides[1] : 0;
    int64_t woff = weight->offset;
    if (wdt == ACL_INT32) {
        ACLNN_CHECK(weight->ndim == 2, ACLNN_ERR_PARAM_INVALID, "weight's dim should be in range [2, 2], actual is "
                    "%llu.", (unsigned long long)weight->ndim);
        ACLNN_CHECK(wd0 <= INT64_MAX / 8 && wd1 <= INT64_MAX / 8 && woff >= 0 && woff <= INT64_MAX / 32,
                    ACLNN_ERR_PARAM_INVALID, "weight's packed INT32 view is out of range.");
        if (tw) {
            wd0 *= 8;
            ws1 *= 8;
        } else {
            wd1 *= 8;
            ws0 = wd1;
            ws1 = 1;
        }
        woff *= 8;
        wdt = ACL_INT4;
    }
    /* BasicParamsCheck: dtypes, y's dtype, dims */
    ACL_TRY(acl_check_dtype_in(x, k_x, 2, "x"));
    if (wdt != ACL_INT4) ACL_TRY(acl_check_dtype_in(weight, k_w, 2, "weight"));
    ACL_TRY(acl_check_dtype_in(antiquantScale, k_s, 4, "antiquantScale"));
    ACL_TRY(acl_check_dtype_in(y, k_y, 3, "y"));
    ACLNN_CHECK(!qs || y->dtype == ACL_INT8, ACLNN_ERR_PARAM_INVALID,
                "when quantScaleOptional is not null, y's dtype should be INT8, actual is %s.", acl_dtype_name(y->dtype));
    ACLNN_CHECK(qs || y->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID,
                "when quantScaleOptional is null, y's dtype should be same as x (%s), actual is %s.",
                acl_dtype_name(x->dtype), acl_dtype_name(y->dtype));
    ACL_TRY(wq_dim(x, 2, 2, "x"));
    ACL_TRY(wq_dim(weight, 2, 2, "weight"));
    ACL_TRY(wq_dim(y, 2, 2, "y"));
    /* BasicParamsScaleCheck */
    const bool fix = antiquantScale->dtype == ACL_UINT64 || antiquantScale->dtype == ACL_INT64;
    ACLNN_CHECK(!(off && off->dtype == ACL_INT32) || fix, ACLNN_ERR_PARAM_INVALID,
                "antiquantScale's dtype must be UINT64 or INT64 when antiquantOffsetOptional's dtype is INT32, actual "
                "is %s.", acl_dtype_name(antiquantScale->dtype));
    if (fix) {
        ACLNN_CHECK(x->dtype == ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID,
                    "x's dtype must be FLOAT16 when antiquantScale's dtype is UINT64/INT64, actual is %s.",
                    acl_dtype_name(x->dtype));
        ACLNN_CHECK(wdt == ACL_INT8, ACLNN_ERR_PARAM_INVALID,
                    "weight's dtype must be INT8 when antiquantScale's dtype is UINT64/INT64, actual is %s.",
                    acl_dtype_name(weight->dtype));
        ACLNN_CHECK(!off || off->dtype == ACL_INT32, ACLNN_ERR_PARAM_INVALID,
                    "antiquantOffsetOptional's dtype must be INT32 when antiquantScale's dtype is UINT64/INT64, actual "
                    "is %s.", acl_dtype_name(off->dtype));
        ACLNN_CHECK(y->dtype == ACL_FLOAT16, ACLNN_ERR_PARAM_INVALID,
                    "y's dtype should be FLOAT16 when antiquantScale's dtype is UINT64/INT64, actual is %s.",
                    acl_dtype_name(y->dtype));
    } else {
        ACLNN_CHECK(x->dtype == antiquantScale->dtype, ACLNN_ERR_PARAM_INVALID,
                    "x's dtype must be same as antiquantScale's dtype, actual x's dtype is %s, antiquantScale's is %s.",
                    acl_dtype_name(x->dtype), acl_dtype_name(antiquantScale->dtype));
        ACLNN_CHECK(!off || off->dtype == antiquantScale->dtype, ACLNN_ERR_PARAM_INVALID,
                    "antiquantOffsetOptional's dtype must be same as antiquantScale's dtype, actual is %s.",
                    acl_dtype_name(off->dtype));
    }
    /* BasicParamsBiasCheck: dtype, formats, dim */
    if (bias) {
        const aclDataType want = x->dtype == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_FLOAT;
        ACLNN_CHECK(bias->dtype == want, ACLNN_ERR_PARAM_INVALID, "biasOptional's dtype should be %s, actual is %s.",
                    acl_dtype_name(want), acl_dtype_name(bias->dtype));
    }
    ACL_TRY(wq_nd(x, "x"));
    ACL_TRY(wq_nd(antiquantScale, "antiquantScale"));
    ACL_TRY(wq_nd(bias, "biasOptional"));
    ACL_TRY(wq_dim(bias, 1, 2, "biasOptional"));
    /* BasicOptionalParamsCheck */
    ACL_TRY(wq_nd(off, "antiquantOffsetOptional"));
    ACL_TRY(wq_nd(qs, "quantScaleOptional"));
    ACL_TRY(wq_nd(qo, "quantOffsetOptional"));
    ACL_TRY(wq_dim(antiquantScale, 1, 2, "antiquantScale"));
    ACL_TRY(wq_dim(off, 1, 2, "antiquantOffsetOptional"));
    ACL_TRY(wq_dim(qs, 1, 2, "quantScaleOptional"));
    ACL_TRY(wq_dim(qo, 1, 2, "quantOffsetOptional"));
    ACLNN_CHECK(qs || !qo, ACLNN_ERR_PARAM_INVALID,
                "quantOffsetOptional is given without quantScaleOptional, which is not supported.");
    ACLNN_CHECK(!qs || qs->dtype == ACL_UINT64, ACLNN_ERR_PARAM_INVALID,
                "quantScaleOptional's dtype only supports UINT64 (aclnnTransQuantParam), actual is %s.",
                acl_dtype_name(qs->dtype));
    ACLNN_CHECK(!qo || qo->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                "quantOffsetOptional's dtype should be FLOAT, actual is %s.", acl_dtype_name(qo->dtype));
    /* AdvancedWeightParamsCheck */
    const int64_t kx = x->dims[1], mx = x->dims[0], kw = wd0, nw = wd1;
    ACLNN_CHECK(kx == kw, ACLNN_ERR_PARAM_INVALID,
                "x's k and weight's k should be equal, actual x's k is %lld, weight's k is %lld.", (long long)kx,
                (long long)kw);
    ACLNN_CHECK(kx >= 1 && mx >= 1 && nw >= 1, ACLNN_ERR_PARAM_INVALID,
                "m, k, n shouldn't be smaller than 1, actual m is %lld, k is %lld, n is %lld.", (long long)mx,
                (long long)kx, (long long)nw);
    ACLNN_CHECK(kx <= WQ_MKN_MAX && nw <= WQ_MKN_MAX && !(tx && mx > WQ_MKN_MAX), ACLNN_ERR_PARAM_INVALID,
                "k, n shouldn't be larger than %d (nor m when x is transposed), actual m is %lld, k is %lld, n is %lld.",
                WQ_MKN_MAX, (long long)mx, (long long)kx, (long long)nw);
    if (wdt == ACL_INT4) {
        ACLNN_CHECK(!tw || kw % 2 == 0, ACLNN_ERR_PARAM_INVALID,
                    "in the int4 scenario, if weight is transposed, k (%lld) should be even.", (long long)kw);
        ACLNN_CHECK(tw || nw % 2 == 0, ACLNN_ERR_PARAM_INVALID,
                    "in the int4 scenario, if weight is not transposed, n (%lld) should be even.", (long long)nw);
    }
    ACLNN_CHECK(y->dims[0] == mx, ACLNN_ERR_PARAM_INVALID, "y's m (%lld) and x's m (%lld) should be equal.",
                (long long)y->dims[0], (long long)mx);
    ACLNN_CHECK(y->dims[1] == nw, ACLNN_ERR_PARAM_INVALID, "y's n (%lld) and weight's n (%lld) should be equal.",
                (long long)y->dims[1], (long long)nw);
    /* AdvancedAntiquantParamsCheck */
    const int g = antiquantGroupSize;
    if (g != 0) {
        ACLNN_CHECK(g >= 0, ACLNN_ERR_PARAM_INVALID, "antiquantGroupSize %d must not be less than 0.", g);
        ACLNN_CHECK(g % WQ_GROUP_MIN == 0, ACLNN_ERR_PARAM_INVALID,
                    "antiquantGroupSize should be an integer multiple of 32, actual is %d.", g);
        ACLNN_CHECK((int64_t)g + 1 <= kx, ACLNN_ERR_PARAM_INVALID,
                    "antiquantGroupSize should not be greater than k-1 (%lld), actual is %d.", (long long)(kx - 1), g);
    }
    const aclTensor *as = antiquantScale;
    const int64_t ns = as->dims[as->ndim - 1];
    int kind;
    if (as->ndim == 1) {
        ACLNN_CHECK(g == 0 && (ns == 1 || ns == nw), ACLNN_ERR_PARAM_INVALID,
                    "antiquantScale shape must be [1] or [%lld] with group size 0 when it has 1 dim, actual n is %lld "
                    "and group size %d.", (long long)nw, (long long)ns, g);
        kind = ns == 1 && nw != 1 ? 0 : 1;
    } else {
        const int64_t ks = as->dims[0];
        if (g == 0) {
            ACLNN_CHECK(ks == 1 && (ns == nw || ns == 1), ACLNN_ERR_PARAM_INVALID,
                        "antiquantScale shape must be [1, %lld] or [1, 1] when it has 2 dims and no group size, "
                        "actual is [%lld, %lld].", (long long)nw, (long long)ks, (long long)ns);
            kind = ns == 1 && nw != 1 ? 0 : 1;
        } else {
            const int64_t kg = (kw + g - 1) / g;
            ACLNN_CHECK(ks == kg && ns == nw, ACLNN_ERR_PARAM_INVALID,
                        "antiquantScale shape must be [%lld, %lld] when it has 2 dims and a group size, actual is "
                        "[%lld, %lld].", (long long)kg, (long long)nw, (long long)ks, (long long)ns);
            kind = 2;
        }
    }
    ACLNN_CHECK(!off || wq_same_shape(off, as), ACLNN_ERR_PARAM_INVALID,
                "the shape of antiquantOffsetOptional must be antiquantScale's.");
    ACLNN_CHECK(!fix || kind != 2, ACLNN_ERR_PARAM_INVALID,
                "antiquantScale of dtype UINT64/INT64 supports per-tensor and per-channel only (the fixpipe form).");
    /* AdvancedShapeParamsCheck: quant scale/offset, bias */
    if (qs) {
        const bool ok = qs->ndim == 1 ? (qs->dims[0] == 0 || qs->dims[0] == 1 || qs->dims[0] == nw)
                                      : (qs->dims[0] == 1 && qs->dims[1] == nw);
        ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID,
                    "quantScaleOptional's shape should be [0], [1], [%lld] or [1, %lld].", (long long)nw,
                    (long long)nw);
        ACLNN_CHECK(!qo || wq_same_shape(qo, qs), ACLNN_ERR_PARAM_INVALID,
                    "quantOffsetOptional must have the shape of quantScaleOptional.");
        ACLNN_CHECK(acl_tensor_numel(qs) > 0, ACLNN_ERR_PARAM_INVALID, "an empty quantScaleOptional is not supported.");
    }
    if (bias) {
        const bool ok = bias->ndim == 1 ? (bias->dims[0] == 0 || bias->dims[0] == nw)
                                        : (bias->dims[0] == 1 && bias->dims[1] == nw);
        ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "biasOptional's shape should be [%lld] or [1, %lld].",
                    (long long)nw, (long long)nw);
    }
    const bool use_bias = bias && bias->dims[bias->ndim - 1] == nw;

    aclOpExecutor *ex = acl_exec_create(ACL_OP_WeightQuantBatchMatmulV2, wq_run, sizeof(wq_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    wq_params *p = ex->params;
    *p = (wq_params){.m = mx, .k = kx, .n = nw, .group = g, .int4 = wdt == ACL_INT4, .fixpipe = fix,
                     .scale_kind = kind, .has_off = off != NULL, .has_bias = use_bias, .has_qs = qs != NULL,
                     .has_qo = qo != NULL};
    aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
    if (!rc && p->int4) {
        /* the packed storage as bytes: element e of the view is nibble e & 1 of byte e / 2 */
        /* the view passed the contiguity check: its strides follow its dims (<= 65535 each), except where a dim
         * is 1 (then the stride is multiplied by 0); only the offset can be out of range */
        if (woff < 0 || woff > INT64_MAX / 4)
            return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "weight's view offset %lld is out of "
                                                   "range.", (long long)woff));
        const int64_t hi = woff + (kw - 1) * ws0 + (nw - 1) * ws1;
        const int64_t b0 = woff / 2, nb = hi / 2 - b0 + 1, st = 1;
        aclTensor *bytes = aclCreateTensor(&nb, 1, ACL_UINT8, &st, b0, ACL_FORMAT_ND, &nb, 1, weight->data);
        if (!bytes) rc = ACLNN_ERR_INNER_NULLPTR;
        else {
            rc = acl_exec_add_input(ex, bytes, "weight", true);
            aclDestroyTensor(bytes);
        }
        p->w_s0 = ws0;
        p->w_s1 = ws1;
        p->w_off = woff - 2 * b0;
    } else if (!rc) {
        rc = acl_exec_add_input(ex, weight, "weight", true);
    }
    int idx = 3;
    if (!rc) rc = acl_exec_add_input(ex, antiquantScale, "antiquantScale", true);
    if (!rc && off) {
        p->i_off = idx++;
        rc = acl_exec_add_input(ex, off, "antiquantOffsetOptional", true);
    }
    if (!rc && qs) {
        p->i_qs = idx++;
        rc = acl_exec_add_input(ex, qs, "quantScaleOptional", true);
    }
    if (!rc && qo) {
        p->i_qo = idx++;
        rc = acl_exec_add_input(ex, qo, "quantOffsetOptional", true);
    }
    if (!rc && bias) {
        p->i_bias = idx++;
        rc = acl_exec_add_input(ex, bias, "biasOptional", use_bias);
    }
    if (!rc) rc = acl_exec_add_output(ex, y, "y");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
