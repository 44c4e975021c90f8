/* aclnnAdaLayerNorm (ops-nn norm/ada_layer_norm) and aclnnAdaLayerNormV2 (norm/ada_layer_norm_v2).
 *
 * x is [B..., S, H], normalised over H: z = (x - mean) * rstd * weight + bias (rstd = 1 / sqrt(Var + epsilon),
 * biased), out = z * (1 + scale) + shift with scale / shift [B..., 1, H] or [B..., H] (one row per batch b, shared
 * by its S rows). V2 also returns mean / rstd ([B..., S, 1], x's dtype) and lets weight / bias be FLOAT.
 * aclnnAdaLayerNormBackward (norm/ada_layer_norm_grad), z = (input - mean) * rstd with the given statistics:
 *   g = gradOut * weight * (1 + scale);  gradInput = rstd * (g - mean_H(g) - z * mean_H(g * z))
 *   gradScale[b, h] = sum_s gradOut * (z * weight + bias),  gradShift[b, h] = sum_s gradOut
 *   gradWeight[h] = sum_{b, s} gradOut * (1 + scale) * z,  gradBias[h] = sum_{b, s} gradOut * (1 + scale)
 * Every sum has one owner (a row, a (b, h) or an h) and runs in increasing index order. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

typedef struct { nm_io io; int64_t B, S, H; double eps; } ada_params;

void nm_ada_rows(const double *x, const double *scale, const double *shift, const double *w, const double *b,
                 int64_t B, int64_t S, int64_t H, double eps, double *mean, double *rstd, double *y) {
    const int64_t rows = B * S;
    nk_row_moments(x, rows, H, mean, rstd);
    for (int64_t r = 0; r < rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + eps);
    nk_row_affine(x, rows, H, mean, rstd, w, b, y);
    for (int64_t r = 0; r < rows; r++) {
        const int64_t bb = r / S;
        for (int64_t h = 0; h < H; h++) y[r * H + h] = y[r * H + h] * (1.0 + scale[bb * H + h]) + shift[bb * H + h];
    }
}

/* in: x, scale, shift, weight, bias; out: out, mean, rstd */
static aclnnStatus ada_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ada_params *p = ex->params;
    const int64_t rows = p->B * p->S, H = p->H;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *sc = nm_load(nm_in(ex, 1), &oom), *sh = nm_load(nm_in(ex, 2), &oom);
    double *w = nm_load(nm_in(ex, 3), &oom), *b = nm_load(nm_in(ex, 4), &oom);
    double *mean = malloc(sizeof(double) * (size_t)rows), *rstd = malloc(sizeof(double) * (size_t)rows);
    double *y = malloc(sizeof(double) * (size_t)(rows * H));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y) {
        rc = OOM;
    } else {
        nm_ada_rows(x, sc, sh, w, b, p->B, p->S, H, p->eps, mean, rstd, y);
        nm_store(y, nm_out(ex, 0));
        nm_store(mean, nm_out(ex, 1));
        nm_store(rstd, nm_out(ex, 2));
    }
    free(x), free(sc), free(sh), free(w), free(b), free(mean), free(rstd), free(y);
    return rc;
}

static aclnnStatus dt_match(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

/* scale / shift: [B..., 1, H] or [B..., H] */
bool nm_ada_ss_shape_ok(const aclTensor *t, const aclTensor *x) {
    const uint64_t n = x->ndim;
    if (t->ndim == n) {
        for (uint64_t i = 0; i + 2 < n; i++)
            if (t->dims[i] != x->dims[i]) return false;
        return t->dims[n - 2] == 1 && t->dims[n - 1] == x->dims[n - 1];
    }
    if (t->ndim == n - 1) {
        for (uint64_t i = 0; i + 2 < n; i++)
            if (t->dims[i] != x->dims[i]) return false;
        return t->dims[n - 2] == x->dims[n - 1];
    }
    return false;
}

/* x 2 to 8 dims, every size > 0; scale/shift [B..., 1, H] or [B..., H]; weight/bias [H] (the given ones) */
aclnnStatus nm_ada_check_shapes(const aclTensor *x, const aclTensor *scale, const aclTensor *shift, const aclTensor *w,
                                const aclTensor *b, int64_t *B, int64_t *S, int64_t *H) {
    const uint64_t n = x->ndim;
    ACLNN_CHECK(n >= 2 && n <= 8, ACLNN_ERR_PARAM_INVALID, "x should have 2 to 8 dims, but has %llu.",
                (unsigned long long)n);
    const int64_t Bv = nm_prod(x, 0, n - 2), Sv = x->dims[n - 2], Hv = x->dims[n - 1];
    ACLNN_CHECK(Bv > 0 && Sv > 0 && Hv > 0, ACLNN_ERR_PARAM_INVALID, "x sizes should be greater than 0.");
    ACLNN_CHECK(nm_ada_ss_shape_ok(scale, x), ACLNN_ERR_PARAM_INVALID,
                "scale should have shape [B..., 1, H] or [B..., H].");
    ACLNN_CHECK(nm_ada_ss_shape_ok(shift, x), ACLNN_ERR_PARAM_INVALID,
                "shift should have shape [B..., 1, H] or [B..., H].");
    if (w) ACL_TRY(nm_shape_is(w, &Hv, 1, "weightOptional"));
    if (b) ACL_TRY(nm_shape_is(b, &Hv, 1, "biasOptional"));
    *B = Bv;
    *S = Sv;
    *H = Hv;
    return ACLNN_SUCCESS;
}

static aclnnStatus ada_ws(int op, bool v2, const aclTensor *x, const aclTensor *scale, const aclTensor *shift,
                          const aclTensor *w, const aclTensor *b, double epsilon, aclTensor *out, aclTensor *mean,
                          aclTensor *rstd, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    NN(scale, "scale");
    NN(shift, "shift");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(x, k_dt, 3, "x"));
    if (v2) {
        ACL_TRY(dt_match(shift, x->dtype, "shift"));
        ACL_TRY(dt_match(scale, x->dtype, "scale"));
    } else {
        ACL_TRY(dt_match(scale, x->dtype, "scale"));
        ACL_TRY(dt_match(shift, x->dtype, "shift"));
    }
    if (w && b) ACL_TRY(dt_match(w, b->dtype, "weightOptional"));
    const aclTensor *wb[2] = {v2 ? b : w, v2 ? w : b};
    const char *wbn[2] = {v2 ? "biasOptional" : "weightOptional", v2 ? "weightOptional" : "biasOptional"};
    for (int i = 0; i < 2; i++)
        if (wb[i] && (!v2 || wb[i]->dtype != ACL_FLOAT)) ACL_TRY(dt_match(wb[i], x->dtype, wbn[i]));
    ACL_TRY(dt_match(out, x->dtype, "out"));
    if (v2) {
        if (rstd) ACL_TRY(dt_match(rstd, x->dtype, "rstdOutOptional"));
        if (mean) ACL_TRY(dt_match(mean, x->dtype, "meanOutOptional"));
    }
    int64_t B, S, H;
    ACL_TRY(nm_ada_check_shapes(x, scale, shift, w, b, &B, &S, &H));
    const uint64_t n = x->ndim;
    ACL_TRY(nm_same_shape(out, "out", x, "x"));
    int64_t ms[8];
    for (uint64_t i = 0; i < n; i++) ms[i] = x->dims[i];
    ms[n - 1] = 1;
    if (mean) ACL_TRY(nm_shape_is(mean, ms, (int)n, "meanOutOptional"));
    if (rstd) ACL_TRY(nm_shape_is(rstd, ms, (int)n, "rstdOutOptional"));
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, ACLNN_ERR_PARAM_INVALID, "x has more elements than int64 holds.");
    const aclTensor *ins[] = {x, scale, shift, w, b}, *outs[] = {out, mean, rstd};
    const char *inn[] = {"x", "scale", "shift", "weightOptional", "biasOptional"};
    const char *outn[] = {"out", "meanOutOptional", "rstdOutOptional"};
    void *pp;
    ACL_TRY(nm_exec(op, ada_run, sizeof(ada_params), ins, inn, 5, outs, outn, 3, workspaceSize, executor, &pp));
    ada_params *p = pp;
    p->B = B;
    p->S = S;
    p->H = H;
    p->eps = (float)epsilon;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaLayerNorm(const aclTensor *x, const aclTensor *scale, const aclTensor *shift,
                              const aclTensor *weightOptional, const aclTensor *biasOptional, double epsilon,
                              aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ada_ws(ACL_OP_AdaLayerNorm, false, x, scale, shift, weightOptional, biasOptional, epsilon, out, NULL, NULL,
                  workspaceSize, executor);
}

aclnnStatus opws_AdaLayerNormV2(const aclTensor *x, const aclTensor *scale, const aclTensor *shift,
                                const aclTensor *weightOptional, const aclTensor *biasOptional, double epsilon,
                                aclTensor *out, aclTensor *meanOutOptional, aclTensor *rstdOutOptional,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    return ada_ws(ACL_OP_AdaLayerNormV2, true, x, scale, shift, weightOptional, biasOptional, epsilon, out,
                  meanOutOptional, rstdOutOptional, workspaceSize, executor);
}

/* ------------------------------------------------------------------ AdaLayerNormBackward */

/* in: gradOut, input, rstd, mean, scale, shift, weight, bias; out: gradInput, gradScale, gradShift, gradWeight,
 * gradBias */
static aclnnStatus adab_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ada_params *p = ex->params;
    const int64_t B = p->B, S = p->S, H = p->H, rows = B * S;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom), *rs = nm_load(nm_in(ex, 2), &oom);
    double *mn = nm_load(nm_in(ex, 3), &oom), *sc = nm_load(nm_in(ex, 4), &oom), *w = nm_load(nm_in(ex, 6), &oom);
    double *b = nm_load(nm_in(ex, 7), &oom);
    const acl_view *vdx = nm_out(ex, 0), *vds = nm_out(ex, 1), *vdh = nm_out(ex, 2), *vdw = nm_out(ex, 3),
                   *vdb = nm_out(ex, 4);
    double *g = malloc(sizeof(double) * (size_t)(rows * H)), *dx = malloc(sizeof(double) * (size_t)(rows * H));
    double *dsc = calloc((size_t)(B * H), sizeof(double)), *dsh = calloc((size_t)(B * H), sizeof(double));
    double *dw = calloc((size_t)H, sizeof(double)), *db = calloc((size_t)H, sizeof(double));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !g || !dx || !dsc || !dsh || !dw || !db) {
        rc = OOM;
        goto done;
    }
    /* gradOut * (1 + scale): the upstream gradient of the layer norm */
    for (int64_t r = 0; r < rows; r++)
        for (int64_t h = 0; h < H; h++) g[r * H + h] = dy[r * H + h] * (1.0 + sc[(r / S) * H + h]);
    if (vdx) {
        if (nk_row_backward(g, x, rows, H, mn, rs, w, dx, NULL, NULL)) {
            rc = OOM;
            goto done;
        }
        nm_store(dx, vdx);
    }
    if (vdw || vdb) {
        if (nk_row_backward(g, x, rows, H, mn, rs, NULL, NULL, dw, db)) {
            rc = OOM;
            goto done;
        }
        nm_store(dw, vdw);
        nm_store(db, vdb);
    }
    if (vds || vdh) {
        for (int64_t bb = 0; bb < B; bb++)
            for (int64_t h = 0; h < H; h++) {
                double a = 0, c = 0;
                for (int64_t s2 = 0; s2 < S; s2++) {
                    const int64_t r = bb * S + s2, i = r * H + h;
                    const double z = (x[i] - mn[r]) * rs[r];
                    a += dy[i] * (z * (w ? w[h] : 1.0) + (b ? b[h] : 0.0));
                    c += dy[i];
                }
                dsc[bb * H + h] = a;
                dsh[bb * H + h] = c;
            }
        nm_store(dsc, vds);
        nm_store(dsh, vdh);
    }
done:
    free(dy), free(x), free(rs), free(mn), free(sc), free(w), free(b), free(g), free(dx), free(dsc), free(dsh);
    free(dw), free(db);
    return rc;
}

static aclnnStatus same_dt(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    return acl_check_same_dtype(a, an, b, bn);
}

aclnnStatus opws_AdaLayerNormBackward(const aclTensor *gradOut, const aclTensor *input,
                                      const aclIntArray *normalizedShape, const aclTensor *rstd, const aclTensor *mean,
                                      const aclTensor *scale, const aclTensor *shift, const aclTensor *weightOptional,
                                      const aclTensor *biasOptional, aclTensor *gradInputOut, aclTensor *gradScaleOut,
                                      aclTensor *gradShiftOut, aclTensor *gradWeightOut, aclTensor *gradBiasOut,
                                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *w = weightOptional, *b = biasOptional;
    NN(gradOut, "gradOut");
    NN(input, "input");
    ACLNN_CHECK(normalizedShape != NULL, ACLNN_ERR_PARAM_NULLPTR, "normalizedShape must not be NULL.");
    NN(mean, "mean");
    NN(rstd, "rstd");
    NN(scale, "scale");
    NN(shift, "shift");
    /* dtypes */
    ACL_TRY(acl_check_dtype_in(gradOut, k_dt, 3, "gradOut"));
    ACL_TRY(same_dt(input, "input", gradOut, "gradOut"));
    ACL_TRY(same_dt(rstd, "rstd", gradOut, "gradOut"));
    ACL_TRY(same_dt(mean, "mean", gradOut, "gradOut"));
    ACL_TRY(same_dt(scale, "scale", gradOut, "gradOut"));
    ACL_TRY(same_dt(shift, "shift", gradOut, "gradOut"));
    if (w) {
        ACL_TRY(acl_check_dtype_in(w, k_dt, 3, "weightOptional"));
        if (w->dtype != ACL_FLOAT) ACL_TRY(same_dt(w, "weightOptional", input, "input"));
    }
    if (b) {
        ACL_TRY(acl_check_dtype_in(b, k_dt, 3, "biasOptional"));
        if (b->dtype != ACL_FLOAT) ACL_TRY(same_dt(b, "biasOptional", input, "input"));
    }
    if (w && b) ACL_TRY(same_dt(w, "weightOptional", b, "biasOptional"));
    if (gradInputOut) ACL_TRY(same_dt(gradInputOut, "gradInputOut", input, "input"));
    if (gradScaleOut) ACL_TRY(same_dt(gradScaleOut, "gradScaleOut", scale, "scale"));
    if (gradShiftOut) ACL_TRY(same_dt(gradShiftOut, "gradShiftOut", shift, "shift"));
    const aclTensor *gwb[2] = {gradWeightOut, gradBiasOut};
    const char *gwbn[2] = {"gradWeightOut", "gradBiasOut"};
    for (int i = 0; i < 2; i++) {
        if (!gwb[i]) continue;
        if (w) ACL_TRY(same_dt(gwb[i], gwbn[i], w, "weightOptional"));
        else if (b) ACL_TRY(same_dt(gwb[i], gwbn[i], b, "biasOptional"));
        else if (gwb[i]->dtype != ACL_FLOAT) ACL_TRY(same_dt(gwb[i], gwbn[i], input, "input"));
    }
    /* shapes */
    const aclTensor *md[] = {gradOut, input, mean, rstd, scale, shift, gradInputOut, gradScaleOut, gradShiftOut,
                             gradWeightOut, gradBiasOut};
    const char *mdn[] = {"gradOut", "input", "mean", "rstd", "scale", "shift", "gradInputOut", "gradScaleOut",
                         "gradShiftOut", "gradWeightOut", "gradBiasOut"};
    for (int i = 0; i < 11; i++)
        if (md[i]) ACL_TRY(nm_max_dim(md[i], 8, mdn[i]));
    ACL_TRY(nm_same_shape(gradOut, "gradOut", input, "input"));
    ACL_TRY(nm_same_shape(mean, "mean", rstd, "rstd"));
    ACLNN_CHECK(normalizedShape->size == 1, ACLNN_ERR_PARAM_INVALID, "normalizedShape length should be 1, but got %llu.",
                (unsigned long long)normalizedShape->size);
    ACL_TRY(nm_min_dim(input, 2, "input"));
    const uint64_t n = input->ndim;
    ACLNN_CHECK(normalizedShape->v[0] == input->dims[n - 1], ACLNN_ERR_PARAM_INVALID,
                "normalizedShape[0] (%lld) should equal input dim %llu (%lld).", (long long)normalizedShape->v[0],
                (unsigned long long)(n - 1), (long long)input->dims[n - 1]);
    if (w) {
        ACL_TRY(nm_max_dim(w, 8, "weightOptional"));
        ACL_TRY(nm_dim_is(w, 1, "weightOptional"));
    }
    if (b) {
        ACL_TRY(nm_max_dim(b, 8, "biasOptional"));
        ACL_TRY(nm_dim_is(b, 1, "biasOptional"));
    }
    const int64_t B = nm_prod(input, 0, n - 2), S = input->dims[n - 2], H = input->dims[n - 1];
    ACLNN_CHECK(B > 0 && S > 0 && H > 0, ACLNN_ERR_PARAM_INVALID, "input sizes should be greater than 0.");
    ACLNN_CHECK(nm_ada_ss_shape_ok(scale, input) && nm_ada_ss_shape_ok(shift, input), ACLNN_ERR_PARAM_INVALID,
                "scale and shift should have shape [B..., 1, H] or [B..., H].");
    int64_t ms[8];
    for (uint64_t i = 0; i < n; i++) ms[i] = input->dims[i];
    ms[n - 1] = 1;
    ACL_TRY(nm_shape_is(mean, ms, (int)n, "mean"));
    if (gradInputOut) ACL_TRY(nm_same_shape(gradInputOut, "gradInputOut", input, "input"));
    if (gradScaleOut) ACL_TRY(nm_same_shape(gradScaleOut, "gradScaleOut", scale, "scale"));
    if (gradShiftOut) ACL_TRY(nm_same_shape(gradShiftOut, "gradShiftOut", shift, "shift"));
    if (gradWeightOut) ACL_TRY(nm_numel_is(gradWeightOut, H, "gradWeightOut"));
    if (gradBiasOut) ACL_TRY(nm_numel_is(gradBiasOut, H, "gradBiasOut"));
    /* what the kernel reads (upstream discards its weight / bias length comparison) */
    if (w) ACL_TRY(nm_numel_is(w, H, "weightOptional"));
    if (b) ACL_TRY(nm_numel_is(b, H, "biasOptional"));
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    if (!gradInputOut && !gradScaleOut && !gradShiftOut && !gradWeightOut && !gradBiasOut)
        return acl_exec_noop(ACL_OP_AdaLayerNormBackward, workspaceSize, executor);
    const aclTensor *ins[] = {gradOut, input, rstd, mean, scale, shift, w, b};
    const char *inn[] = {"gradOut", "input", "rstd", "mean", "scale", "shift", "weightOptional", "biasOptional"};
    const aclTensor *outs[] = {gradInputOut, gradScaleOut, gradShiftOut, gradWeightOut, gradBiasOut};
    const char *outn[] = {"gradInputOut", "gradScaleOut", "gradShiftOut", "gradWeightOut", "gradBiasOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AdaLayerNormBackward, adab_run, sizeof(ada_params), ins, inn, 8, outs, outn, 5,
                    workspaceSize, executor, &pp));
    ada_params *p = pp;
    p->B = B;
    p->S = S;
    p->H = H;
    return ACLNN_SUCCESS;
}
