/* aclnnAdaLayerNormQuant (ops-nn norm/ada_layer_norm_quant): AdaLayerNorm's rows (nm_ada_rows: x [B..., S, H]
 * normalised over H, * weight + bias, * (1 + scale) + shift) then the dynamic per-row quantisation of norm_quant.c:
 * v = y * smoothScales (when given), quantScale[row] = max|v| / 127, out = round_half_even(v / quantScale) as INT8.
 * Float64 throughout (epsilon taken as a float, as the op_api passes it), rounded once. Validation in the order of
 * op_api aclnn_ada_layer_norm_quant.cpp: NULLs (161001), dtypes (x FLOAT16/BF16, the optional inputs of x's dtype,
 * out INT8 on the A2, quantScale FLOAT, quantOffsetOptional must be NULL), shapes (x 2 to 8 dims, every size > 0,
 * scale/shift [B..., 1, H] or [B..., H], weight/bias/smoothScales [H], out x's shape, quantScale [B..., S]), then
 * quantMode ("dynamic"; NULL means it), all 161002. One row per thread of work, serial per row: the same bytes
 * for any thread count. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t B, S, H; double eps; } adq_params;

/* in: x, scale, shift, weight, bias, smoothScales; out: out, quantScale */
static aclnnStatus adq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const adq_params *p = ex->params;
    const int64_t rows = p->B * p->S, H = p->H;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *sc = nm_load(nm_in(ex, 1), &oom), *sh = nm_load(nm_in(ex, 2), &oom);
    double *w = nm_load(nm_in(ex, 3), &oom), *b = nm_load(nm_in(ex, 4), &oom), *sm = nm_load(nm_in(ex, 5), &oom);
    double *mean = malloc(sizeof(double) * (size_t)rows), *rstd = malloc(sizeof(double) * (size_t)rows);
    double *qs = malloc(sizeof(double) * (size_t)rows), *y = malloc(sizeof(double) * (size_t)(rows * H));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !qs || !y) {
        rc = OOM;
    } else {
        nm_ada_rows(x, sc, sh, w, b, p->B, p->S, H, p->eps, mean, rstd, y);
        nq_dynamic(y, rows, H, sm, 127.0, qs);
        if (nq_store(y, rows * H, nm_out(ex, 0))) rc = OOM;
        nm_store(qs, nm_out(ex, 1));
    }
    free(x), free(sc), free(sh), free(w), free(b), free(sm), free(mean), free(rstd), free(qs), free(y);
    return rc;
}

static aclnnStatus adq_same(const aclTensor *t, const aclTensor *x, const char *name) {
    ACLNN_CHECK(t->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be x's (%s).", name,
                acl_dtype_name(t->dtype), acl_dtype_name(x->dtype));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AdaLayerNormQuant(const aclTensor *x, const aclTensor *scale, const aclTensor *shift,
                                   const aclTensor *weightOptional, const aclTensor *biasOptional,
                                   const aclTensor *smoothScalesOptional, double epsilon, const char *quantMode,
                                   aclTensor *out, aclTensor *quantScale, aclTensor *quantOffsetOptional,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *w = weightOptional, *b = biasOptional, *sm = smoothScalesOptional;
    NN(x, "x");
    NN(scale, "scale");
    NN(shift, "shift");
    NN(out, "out");
    NN(quantScale, "quantScale");
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_AdaLayerNormQuant, "x"));
    ACL_TRY(adq_same(scale, x, "scale"));
    ACL_TRY(adq_same(shift, x, "shift"));
    if (w) ACL_TRY(adq_same(w, x, "weightOptional"));
    if (b) ACL_TRY(adq_same(b, x, "biasOptional"));
    if (sm) ACL_TRY(adq_same(sm, x, "smoothScalesOptional"));
    ACL_TRY(nm_dtype_is(out, ACL_INT8, "out"));
    ACL_TRY(nm_dtype_is(quantScale, ACL_FLOAT, "quantScale"));
    ACLNN_CHECK(!quantOffsetOptional, ACLNN_ERR_PARAM_INVALID, "quantOffsetOptional should be NULL.");
    int64_t B, S, H;
    ACL_TRY(nm_ada_check_shapes(x, scale, shift, w, b, &B, &S, &H));
    const uint64_t n = x->ndim;
    if (sm) ACL_TRY(nm_shape_is(sm, &H, 1, "smoothScalesOptional"));
    ACL_TRY(nm_same_shape(out, "out", x, "x"));
    ACL_TRY(nm_shape_is(quantScale, x->dims, (int)n - 1, "quantScale"));
    ACLNN_CHECK(!quantMode || strcmp(quantMode, "dynamic") == 0, ACLNN_ERR_PARAM_INVALID,
                "quantMode only supports \"dynamic\", but got \"%s\".", quantMode);
    const aclTensor *ins[] = {x, scale, shift, w, b, sm}, *outs[] = {out, quantScale};
    const char *inn[] = {"x", "scale", "shift", "weightOptional", "biasOptional", "smoothScalesOptional"};
    const char *outn[] = {"out", "quantScale"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AdaLayerNormQuant, adq_run, sizeof(adq_params), ins, inn, 6, outs, outn, 2,
                    workspaceSize, executor, &pp));
    adq_params *p = pp;
    p->B = B;
    p->S = S;
    p->H = H;
    p->eps = (float)epsilon;
    return ACLNN_SUCCESS;
}
