/* aclnnLayerNorm / aclnnLayerNormWithImplMode / aclnnFastLayerNorm (ops-nn norm/layer_norm_v4) and aclnnLayerNormBackward
 * (norm/layer_norm_grad_v3).
 *
 * Forward over the trailing len(normalizedShape) dims (N elements per row, M rows):
 *   mean = E[x], rstd = 1 / sqrt(Var[x] + eps) (biased variance), out = (x - mean) * rstd * weight + bias;
 *   meanOutOptional / rstdOutOptional receive the M statistics (row-major) in their own dtype.
 * Backward with the given mean/rstd (M values each):
 *   gradInput = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gradOut * weight, xhat = (x - mean) * rstd;
 *   gradWeight[j] = sum_rows gradOut * xhat, gradBias[j] = sum_rows gradOut.
 * Statistics in float64 with a fixed summation order (kernels/norm.c), one rounding per output. implMode only
 * takes part in the checks: every mode computes at the highest precision. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT16, ACL_FLOAT, ACL_BF16};
#define K_DT k_dt, ACL_COUNT_OF(k_dt)

typedef struct { nm_io io; int64_t M, N; double eps; } ln_params;

/* ------------------------------------------------------------------ forward */

static aclnnStatus ln_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ln_params *p = ex->params;
    bool oom = false;
    nm_fb x, y;
    const nf_buf none = {NULL, ACL_FLOAT};
    float *w = nm_loadf(nm_in(ex, 1), &oom), *b = nm_loadf(nm_in(ex, 2), &oom);
    float *mean = malloc(sizeof(float) * (size_t)p->M), *rstd = malloc(sizeof(float) * (size_t)p->M);
    oom |= !nm_fin(nm_in(ex, 0), &x);
    oom |= !nm_fout(nm_out(ex, 0), &y);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd ||
        nf_rows_fwd(x.b, none, p->M, p->N, w, b, p->eps, true, y.b, none, none, mean, rstd)) {
        rc = OOM;
    } else if (!nm_storef(mean, p->M, nm_out(ex, 1)) || !nm_storef(rstd, p->M, nm_out(ex, 2))) {
        rc = OOM;
    }
    nm_fdone(&x, false);
    if (!nm_fdone(&y, !rc)) rc = OOM;
    free(w), free(b), free(mean), free(rstd);
    return rc;
}

static aclnnStatus ln_check(const aclTensor *input, const aclIntArray *ns, const aclTensor *w, const aclTensor *b,
                            const aclTensor *out, const aclTensor *mean, const aclTensor *rstd, int32_t implMode) {
    NN(input, "input");
    ACLNN_CHECK(ns != NULL, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be NULL.");
    NN(out, "out");
    /* input dtypes */
    ACL_TRY(acl_check_dtype_in(input, K_DT, "input"));
    if (w) {
        ACL_TRY(acl_check_dtype_in(w, K_DT, "weightOptional"));
        if (w->dtype != ACL_FLOAT) ACL_TRY(acl_check_same_dtype(w, "weightOptional", input, "input"));
    }
    if (b) {
        ACL_TRY(acl_check_dtype_in(b, K_DT, "biasOptional"));
        if (b->dtype != ACL_FLOAT) ACL_TRY(acl_check_same_dtype(b, "biasOptional", input, "input"));
    }
    if (w && b) ACL_TRY(acl_check_same_dtype(w, "weightOptional", b, "biasOptional"));
    /* output dtypes */
    ACL_TRY(acl_check_dtype_in(out, K_DT, "out"));
    if (mean) ACL_TRY(acl_check_dtype_in(mean, K_DT, "meanOutOptional"));
    if (rstd) ACL_TRY(acl_check_dtype_in(rstd, K_DT, "rstdOutOptional"));
    /* shapes */
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_max_dim(out, 8, "out"));
    if (w) ACL_TRY(nm_max_dim(w, 8, "weightOptional"));
    if (b) ACL_TRY(nm_max_dim(b, 8, "biasOptional"));
    if (mean) ACL_TRY(nm_max_dim(mean, 8, "meanOutOptional"));
    if (rstd) ACL_TRY(nm_max_dim(rstd, 8, "rstdOutOptional"));
    const uint64_t k = ns->size;
    ACLNN_CHECK(k <= 8, ACLNN_ERR_PARAM_INVALID, "normalizedShape length %llu should not be greater than 8.",
                (unsigned long long)k);
    ACLNN_CHECK(k >= 1, ACLNN_ERR_PARAM_INVALID, "normalizedShape length should be at least 1, but got 0.");
    ACL_TRY(nm_min_dim(input, k, "input"));
    if (w) ACL_TRY(nm_dim_is(w, k, "weightOptional"));
    if (b) ACL_TRY(nm_dim_is(b, k, "biasOptional"));
    const uint64_t begin = input->ndim - k;
    for (uint64_t i = 0; i < k; i++) {
        ACLNN_CHECK(ns->v[i] == input->dims[begin + i], ACLNN_ERR_PARAM_INVALID,
                    "normalizedShape[%llu] (%lld) should equal input dim %llu (%lld).", (unsigned long long)i,
                    (long long)ns->v[i], (unsigned long long)(begin + i), (long long)input->dims[begin + i]);
        if (w)
            ACLNN_CHECK(ns->v[i] == w->dims[i], ACLNN_ERR_PARAM_INVALID,
                        "normalizedShape[%llu] (%lld) should equal weightOptional dim %llu (%lld).",
                        (unsigned long long)i, (long long)ns->v[i], (unsigned long long)i, (long long)w->dims[i]);
        if (b)
            ACLNN_CHECK(ns->v[i] == b->dims[i], ACLNN_ERR_PARAM_INVALID,
                        "normalizedShape[%llu] (%lld) should equal biasOptional dim %llu (%lld).",
                        (unsigned long long)i, (long long)ns->v[i], (unsigned long long)i, (long long)b->dims[i]);
    }
    ACL_TRY(nm_same_shape(input, "input", out, "out"));
    ACLNN_CHECK(implMode == 0 || implMode == 1 || implMode == 2, ACLNN_ERR_PARAM_INVALID,
                "implMode should be in [0, 1, 2], but got %d.", implMode);
    if (implMode == 2)
        ACLNN_CHECK(input->dtype == ACL_FLOAT16 && (!w || w->dtype == ACL_FLOAT16) && (!b || b->dtype == ACL_FLOAT16),
                    ACLNN_ERR_PARAM_INVALID, "implMode 2 (KEEP_FP16) needs input, weightOptional and biasOptional "
                    "of dtype FLOAT16.");
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    return ACLNN_SUCCESS;
}

/* aclnnFastLayerNorm's order: weight/bias pairing before bias's own list, the output statistics' lists in reverse,
 * normalizedShape's minimum length before the rank limits */
static aclnnStatus fast_check(const aclTensor *input, const aclIntArray *ns, const aclTensor *w, const aclTensor *b,
                              const aclTensor *out, const aclTensor *mean, const aclTensor *rstd) {
    NN(input, "input");
    ACLNN_CHECK(ns != NULL, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(input, K_DT, "input"));
    if (w) {
        ACL_TRY(acl_check_dtype_in(w, K_DT, "weightOptional"));
        if (w->dtype != ACL_FLOAT) ACL_TRY(acl_check_same_dtype(w, "weightOptional", input, "input"));
    }
    if (w && b) ACL_TRY(acl_check_same_dtype(w, "weightOptional", b, "biasOptional"));
    if (b) {
        ACL_TRY(acl_check_dtype_in(b, K_DT, "biasOptional"));
        if (b->dtype != ACL_FLOAT) ACL_TRY(acl_check_same_dtype(b, "biasOptional", input, "input"));
    }
    ACL_TRY(acl_check_dtype_in(out, K_DT, "out"));
    if (rstd) ACL_TRY(acl_check_dtype_in(rstd, K_DT, "rstdOutOptional"));
    if (mean) ACL_TRY(acl_check_dtype_in(mean, K_DT, "meanOutOptional"));
    const uint64_t k = ns->size;
    ACLNN_CHECK(k >= 1, ACLNN_ERR_PARAM_INVALID, "normalizedShape length should be at least 1, but got 0.");
    ACL_TRY(nm_max_dim(out, 8, "out"));
    ACL_TRY(nm_max_dim(input, 8, "input"));
    if (w) ACL_TRY(nm_max_dim(w, 8, "weightOptional"));
    if (rstd) ACL_TRY(nm_max_dim(rstd, 8, "rstdOutOptional"));
    if (mean) ACL_TRY(nm_max_dim(mean, 8, "meanOutOptional"));
    if (b) ACL_TRY(nm_max_dim(b, 8, "biasOptional"));
    ACLNN_CHECK(k <= 8, ACLNN_ERR_PARAM_INVALID, "normalizedShape length %llu should not be greater than 8.",
                (unsigned long long)k);
    if (w) ACL_TRY(nm_dim_is(w, k, "weightOptional"));
    ACL_TRY(nm_min_dim(input, k, "input"));
    if (b) ACL_TRY(nm_dim_is(b, k, "biasOptional"));
    const uint64_t begin = input->ndim - k;
    for (uint64_t i = 0; i < k; i++) {
        ACLNN_CHECK(ns->v[i] == input->dims[begin + i], ACLNN_ERR_PARAM_INVALID,
                    "normalizedShape[%llu] (%lld) should equal input dim %llu (%lld).", (unsigned long long)i,
                    (long long)ns->v[i], (unsigned long long)(begin + i), (long long)input->dims[begin + i]);
        if (w)
            ACLNN_CHECK(ns->v[i] == w->dims[i], ACLNN_ERR_PARAM_INVALID,
                        "normalizedShape[%llu] (%lld) should equal weightOptional dim %llu (%lld).",
                        (unsigned long long)i, (long long)ns->v[i], (unsigned long long)i, (long long)w->dims[i]);
        if (b)
            ACLNN_CHECK(ns->v[i] == b->dims[i], ACLNN_ERR_PARAM_INVALID,
                        "normalizedShape[%llu] (%lld) should equal biasOptional dim %llu (%lld).",
                        (unsigned long long)i, (long long)ns->v[i], (unsigned long long)i, (long long)b->dims[i]);
    }
    ACL_TRY(nm_same_shape(input, "input", out, "out"));
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    return ACLNN_SUCCESS;
}

static aclnnStatus ln_ws(int op, const aclTensor *input, const aclIntArray *ns, const aclTensor *w, const aclTensor *b,
                         double eps, aclTensor *out, aclTensor *mean, aclTensor *rstd, int32_t implMode,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    const bool fast = op == ACL_OP_FastLayerNorm;
    ACL_TRY(fast ? fast_check(input, ns, w, b, out, mean, rstd) : ln_check(input, ns, w, b, out, mean, rstd, implMode));
    const uint64_t begin = input->ndim - ns->size;
    const int64_t M = nm_prod(input, 0, begin), N = nm_prod(input, begin, input->ndim);
    if (M == 0 && !fast) return acl_exec_noop(op, workspaceSize, executor);
    if (mean) ACL_TRY(nm_numel_is(mean, M, "meanOutOptional"));
    if (rstd) ACL_TRY(nm_numel_is(rstd, M, "rstdOutOptional"));
    if (N == 0) { /* upstream: mean filled with 0, rstd with NaN */
        aclTensor *outs[] = {mean, rstd};
        const char *outn[] = {"meanOutOptional", "rstdOutOptional"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(op, outs, outn, vals, 2, workspaceSize, executor);
    }
    if (M == 0) return acl_exec_noop(op, workspaceSize, executor);
    const aclTensor *ins[] = {input, w, b}, *outs[] = {out, mean, rstd};
    const char *inn[] = {"input", "weightOptional", "biasOptional"};
    const char *outn[] = {"out", "meanOutOptional", "rstdOutOptional"};
    void *pp;
    ACL_TRY(nm_exec(op, ln_run, sizeof(ln_params), ins, inn, 3, outs, outn, 3, workspaceSize, executor, &pp));
    ln_params *p = pp;
    p->M = M;
    p->N = N;
    p->eps = eps;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_LayerNorm(const aclTensor *input, const aclIntArray *normalizedShape, const aclTensor *weightOptional,
                           const aclTensor *biasOptional, double eps, aclTensor *out, aclTensor *meanOutOptional,
                           aclTensor *rstdOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ln_ws(ACL_OP_LayerNorm, input, normalizedShape, weightOptional, biasOptional, eps, out, meanOutOptional,
                 rstdOutOptional, 0, workspaceSize, executor);
}

aclnnStatus opws_LayerNormWithImplMode(const aclTensor *input, const aclIntArray *normalizedShape,
                                       const aclTensor *weightOptional, const aclTensor *biasOptional, double eps,
                                       aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                       int32_t implMode, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ln_ws(ACL_OP_LayerNormWithImplMode, input, normalizedShape, weightOptional, biasOptional, eps, out,
                 meanOutOptional, rstdOutOptional, implMode, workspaceSize, executor);
}

aclnnStatus opws_FastLayerNorm(const aclTensor *input, const aclIntArray *normalizedShape,
                               const aclTensor *weightOptional, const aclTensor *biasOptional, double eps,
                               aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ln_ws(ACL_OP_FastLayerNorm, input, normalizedShape, weightOptional, biasOptional, eps, out,
                 meanOutOptional, rstdOutOptional, 0, workspaceSize, executor);
}

/* ------------------------------------------------------------------ backward */

typedef struct { nm_io io; int64_t M, N; } lnb_params;

static aclnnStatus lnb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const lnb_params *p = ex->params;
    bool oom = false;
    const acl_view *vdw = nm_out(ex, 1), *vdb = nm_out(ex, 2);
    nm_fb dy, x, dx;
    float *mean = nm_loadf(nm_in(ex, 3), &oom), *rstd = nm_loadf(nm_in(ex, 4), &oom), *w = nm_loadf(nm_in(ex, 5), &oom);
    double *dw = vdw ? malloc(sizeof(double) * (size_t)p->N) : NULL;
    double *db = vdb ? malloc(sizeof(double) * (size_t)p->N) : NULL;
    oom |= !nm_fin(nm_in(ex, 0), &dy);
    oom |= !nm_fin(nm_in(ex, 1), &x);
    oom |= !nm_fout(nm_out(ex, 0), &dx);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || (vdw && !dw) || (vdb && !db) || nf_rows_bwd(dy.b, x.b, p->M, p->N, mean, rstd, w, dx.b, dw, db)) {
        rc = OOM;
    } else {
        nm_store(dw, vdw);
        nm_store(db, vdb);
    }
    nm_fdone(&dy, false);
    nm_fdone(&x, false);
    if (!nm_fdone(&dx, !rc)) rc = OOM;
    free(mean), free(rstd), free(w), free(dw), free(db);
    return rc;
}

/* upstream's normalizedShape comparison: index i runs from (rank - len) to len - 1 and compares normalizedShape[i]
 * with dim i + (rank - len) */
static aclnnStatus lnb_shape_equal(const aclTensor *t, const aclIntArray *ns, const char *name) {
    const uint64_t axis = t->ndim - ns->size;
    for (uint64_t i = axis; i < ns->size; i++)
        ACLNN_CHECK(ns->v[i] == t->dims[i + axis], ACLNN_ERR_PARAM_INVALID,
                    "normalizedShape[%llu] (%lld) should equal %s dim %llu (%lld).", (unsigned long long)i,
                    (long long)ns->v[i], name, (unsigned long long)(i + axis), (long long)t->dims[i + axis]);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_LayerNormBackward(const aclTensor *gradOut, const aclTensor *input,
                                   const aclIntArray *normalizedShape, const aclTensor *mean, const aclTensor *rstd,
                                   const aclTensor *weightOptional, const aclTensor *biasOptional,
                                   const aclBoolArray *outputMask, aclTensor *gradInputOut, aclTensor *gradWeightOut,
                                   aclTensor *gradBiasOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *w = weightOptional, *b = biasOptional;
    const aclIntArray *ns = normalizedShape;
    NN(gradOut, "gradOut");
    NN(input, "input");
    ACLNN_CHECK(ns != NULL, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be NULL.");
    NN(mean, "mean");
    NN(rstd, "rstd");
    ACLNN_CHECK(outputMask != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputMask must not be NULL.");
    ACLNN_CHECK(outputMask->size == 3, ACLNN_ERR_PARAM_INVALID, "outputMask length should be 3, but got %llu.",
                (unsigned long long)outputMask->size);
    const bool m0 = outputMask->v[0], m1 = outputMask->v[1], m2 = outputMask->v[2];
    if (m0) NN(gradInputOut, "gradInputOut");
    if (m1) NN(gradWeightOut, "gradWeightOut");
    if (m2) NN(gradBiasOut, "gradBiasOut");
    /* dtypes */
    ACL_TRY(acl_check_dtype_in(gradOut, K_DT, "gradOut"));
    ACL_TRY(acl_check_dtype_in(input, K_DT, "input"));
    ACL_TRY(acl_check_dtype_in(mean, K_DT, "mean"));
    ACL_TRY(acl_check_dtype_in(rstd, K_DT, "rstd"));
    ACL_TRY(acl_check_same_dtype(gradOut, "gradOut", input, "input"));
    if (w) {
        ACL_TRY(acl_check_dtype_in(w, K_DT, "weightOptional"));
        if (w->dtype != ACL_FLOAT) ACL_TRY(acl_check_same_dtype(w, "weightOptional", input, "input"));
    }
    if (b) ACL_TRY(acl_check_dtype_in(b, K_DT, "biasOptional"));
    /* the outputs' dtypes are checked whenever they are given, masked or not */
    if (gradInputOut) ACL_TRY(acl_check_dtype_in(gradInputOut, K_DT, "gradInputOut"));
    if (gradWeightOut) ACL_TRY(acl_check_dtype_in(gradWeightOut, K_DT, "gradWeightOut"));
    if (gradBiasOut) ACL_TRY(acl_check_dtype_in(gradBiasOut, K_DT, "gradBiasOut"));
    /* shapes */
    const uint64_t rank = input->ndim, k = ns->size;
    const uint64_t begin = rank >= k ? rank - k : 0;
    const int64_t M = nm_prod(input, 0, begin), N = nm_prod(input, begin, rank);
    ACL_TRY(nm_max_dim(gradOut, 8, "gradOut"));
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_max_dim(mean, 8, "mean"));
    ACL_TRY(nm_max_dim(rstd, 8, "rstd"));
    ACLNN_CHECK(k <= 8, ACLNN_ERR_PARAM_INVALID, "normalizedShape length %llu should not be greater than 8.",
                (unsigned long long)k);
    if (m0) ACL_TRY(nm_max_dim(gradInputOut, 8, "gradInputOut"));
    if (m1) ACL_TRY(nm_max_dim(gradWeightOut, 8, "gradWeightOut"));
    if (m2) ACL_TRY(nm_max_dim(gradBiasOut, 8, "gradBiasOut"));
    ACLNN_CHECK(k >= 1, ACLNN_ERR_PARAM_INVALID, "normalizedShape length should be at least 1, but got 0.");
    ACL_TRY(nm_min_dim(input, k, "input"));
    ACL_TRY(lnb_shape_equal(input, ns, "input"));
    if (w) {
        ACL_TRY(nm_max_dim(w, 8, "weightOptional"));
        ACL_TRY(nm_dim_is(w, k, "weightOptional"));
        ACL_TRY(lnb_shape_equal(w, ns, "weightOptional"));
    }
    if (b) {
        ACL_TRY(nm_max_dim(b, 8, "biasOptional"));
        ACL_TRY(nm_dim_is(b, k, "biasOptional"));
        ACL_TRY(lnb_shape_equal(b, ns, "biasOptional"));
    }
    ACL_TRY(nm_same_shape(gradOut, "gradOut", input, "input"));
    ACL_TRY(nm_same_shape(mean, "mean", rstd, "rstd"));
    ACL_TRY(nm_numel_is(mean, M, "mean"));
    if (m0) ACL_TRY(nm_same_shape(gradInputOut, "gradInputOut", input, "input"));
    if (m1) ACL_TRY(nm_numel_is(gradWeightOut, N, "gradWeightOut"));
    if (m2) ACL_TRY(nm_numel_is(gradBiasOut, N, "gradBiasOut"));
    /* the weight the kernel multiplies by must have N elements (upstream's Fill/kernel would fail otherwise) */
    if (w) ACL_TRY(nm_numel_is(w, N, "weightOptional"));
    if (!m0 && !m1 && !m2) return acl_exec_noop(ACL_OP_LayerNormBackward, workspaceSize, executor);
    if (M <= 0 || N <= 0) {
        aclTensor *outs[] = {m1 && M <= 0 ? gradWeightOut : NULL, m2 && M <= 0 ? gradBiasOut : NULL};
        const char *outn[] = {"gradWeightOut", "gradBiasOut"};
        const double vals[] = {0.0, 0.0};
        return nm_fill_exec(ACL_OP_LayerNormBackward, outs, outn, vals, 2, workspaceSize, executor);
    }
    const aclTensor *ins[] = {gradOut, input, NULL, mean, rstd, w};
    const char *inn[] = {"gradOut", "input", "", "mean", "rstd", "weightOptional"};
    const aclTensor *outs[] = {m0 ? gradInputOut : NULL, m1 ? gradWeightOut : NULL, m2 ? gradBiasOut : NULL};
    const char *outn[] = {"gradInputOut", "gradWeightOut", "gradBiasOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_LayerNormBackward, lnb_run, sizeof(lnb_params), ins, inn, 6, outs, outn, 3, workspaceSize,
                    executor, &pp));
    lnb_params *p = pp;
    p->M = M;
    p->N = N;
    return ACLNN_SUCCESS;
}
