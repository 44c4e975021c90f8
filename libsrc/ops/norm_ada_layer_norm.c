/* aclnnAdaLayerNorm (ops-nn norm/ada_layer_norm) and aclnnAdaLayerNormV2 (norm/ada_layer_norm_v2).
 *
 * x is [B..., S, H], normalised over H: z = (x - mean) * rstd * weight + bias (rstd = 1 / sqrt(Var + epsilon),
 * biased), out = z * (1 + scale) + shift with scale / shift [B..., 1, H] or [B..., H] (one row per batch b, shared
 * by its S rows). V2 also returns mean / rstd ([B..., S, 1], x's dtype) and lets weight / bias be FLOAT. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};

typedef struct { nm_io io; int64_t B, S, H; double eps; } ada_params;

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
        nk_row_moments(x, rows, H, mean, rstd);
        for (int64_t r = 0; r < rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, rows, H, mean, rstd, w, b, y);
        for (int64_t r = 0; r < rows; r++) {
            const int64_t bb = r / p->S;
            for (int64_t h = 0; h < H; h++) y[r * H + h] = y[r * H + h] * (1.0 + sc[bb * H + h]) + sh[bb * H + h];
        }
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
static bool ss_shape_ok(const aclTensor *t, const aclTensor *x) {
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
    const uint64_t n = x->ndim;
    ACLNN_CHECK(n >= 2 && n <= 8, ACLNN_ERR_PARAM_INVALID, "x should have 2 to 8 dims, but has %llu.",
                (unsigned long long)n);
    const int64_t B = nm_prod(x, 0, n - 2), S = x->dims[n - 2], H = x->dims[n - 1];
    ACLNN_CHECK(B > 0 && S > 0 && H > 0, ACLNN_ERR_PARAM_INVALID, "x sizes should be greater than 0.");
    ACLNN_CHECK(ss_shape_ok(scale, x), ACLNN_ERR_PARAM_INVALID, "scale should have shape [B..., 1, H] or [B..., H].");
    ACLNN_CHECK(ss_shape_ok(shift, x), ACLNN_ERR_PARAM_INVALID, "shift should have shape [B..., 1, H] or [B..., H].");
    if (w) ACL_TRY(nm_shape_is(w, &H, 1, "weightOptional"));
    if (b) ACL_TRY(nm_shape_is(b, &H, 1, "biasOptional"));
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
