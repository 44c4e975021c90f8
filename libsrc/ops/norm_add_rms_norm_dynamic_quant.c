/* aclnnAddRmsNormDynamicQuant and aclnnAddRmsNormDynamicQuantV2 (ops-nn norm/add_rms_norm_dynamic_quant):
 *   x = x1 + x2 (xOut),  y = x * rstd * gamma (+ betaOptional, V2),  rstd = 1 / sqrt(mean(x^2) + epsilon)
 * over x's last dim, then one or two dynamic per-row quantisations of y:
 *   v_k = y * smoothScale_k (when given),  scale_kOut[r] = max|v_k| / qmax,  y_kOut = round_half_even(v_k / scale)
 * with qmax 127 for INT8 (7 for V2's INT4, two per byte, and INT32 = eight packed int4). V1 writes y2Out/scale2Out only when both smooth
 * scales are given (they are "meaningless" otherwise); V2 writes the outputs outputMask selects (NULL mask: y1,
 * and y2 when both smooth scales are given). The norm is the shared RmsNorm row kernel in float64, each output
 * rounded once. The op_api checks the regbase y dtype list; the ASCEND910B kernel writes INT8 only (the docs' A2
 * table): another dtype of that list fails at the kernel (561002). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/shape.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t rows, n; double eps, qmax; bool out1, out2, int4; } ardq_params;

/* V2's INT4 y: two int4 per byte, the element of even index in the low nibble (the device's packing; y is then
 * bytes seen as a 1-D UINT8 view, int4_bytes). Each value saturated to [-8, 7], NaN -> 0. */
static int store_int4(const double *v, int64_t total, const acl_view *y) {
    if (!y) return 0;
    const int64_t m = total / 2;
    double *w = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
    if (!w) return 1;
    for (int64_t i = 0; i < m; i++) {
        const int lo = (int)nq_sat(v[2 * i], -8.0, 7.0), hi = (int)nq_sat(v[2 * i + 1], -8.0, 7.0);
        w[i] = (double)((unsigned)(lo & 0xF) | (unsigned)(hi & 0xF) << 4);
    }
    nm_store(w, y);
    free(w);
    return 0;
}

/* inputs: x1, x2, gamma, smooth1, smooth2, beta; outputs: y1, y2, xOut, scale1, scale2 */
static aclnnStatus ardq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ardq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom), *g = nm_load(nm_in(ex, 2), &oom);
    double *s1 = nm_load(nm_in(ex, 3), &oom), *s2 = nm_load(nm_in(ex, 4), &oom), *b = nm_load(nm_in(ex, 5), &oom);
    const int64_t total = p->rows * p->n, rr = p->rows > 0 ? p->rows : 1;
    double *rstd = malloc(sizeof(double) * (size_t)rr), *sc = malloc(sizeof(double) * (size_t)rr);
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *q = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !rstd || !sc || !y || !q) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        nk_row_meansq(x, p->rows, p->n, rstd);
        for (int64_t r = 0; r < p->rows; r++) rstd[r] = 1.0 / sqrt(rstd[r] + p->eps);
        nk_row_affine(x, p->rows, p->n, NULL, rstd, g, b, y);
        for (int k = 0; k < 2 && !rc; k++) {
            if (!(k == 0 ? p->out1 : p->out2)) continue;
            for (int64_t i = 0; i < total; i++) q[i] = y[i];
            nq_dynamic(q, p->rows, p->n, k == 0 ? s1 : s2, p->qmax, sc);
            if ((p->int4 ? store_int4 : nq_store)(q, total, nm_out(ex, k))) rc = OOM;
            nm_store(sc, nm_out(ex, 3 + k));
        }
        nm_store(x, nm_out(ex, 2));
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(b), free(rstd), free(sc), free(y), free(q);
    return rc;
}

static const aclDataType k_x[] = {ACL_FLOAT16, ACL_BF16};
static const aclDataType k_y[] = {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_HIFLOAT8, ACL_INT8};

/* the tiling's shape rules: x2 like x1, gamma 1-D of x1's last dim, the smooth scales / beta like gamma */
static aclnnStatus shapes_tiling(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                 const aclTensor *s1, const aclTensor *s2, const aclTensor *b, int code) {
    if (nm_same_shape(x1, "x1", x2, "x2")) return ACL_REPORT(code, "x1 and x2 shape mismatch (x2).");
    ACLNN_CHECK(gamma->ndim == 1, code, "gamma should have 1 dim, but has %llu.", (unsigned long long)gamma->ndim);
    ACLNN_CHECK(x1->ndim >= 1 && x1->dims[x1->ndim - 1] == gamma->dims[0], code,
                "gamma (%lld) should be the last dim of x1.", (long long)gamma->dims[0]);
    const aclTensor *opt[] = {s1, s2, b};
    const char *optn[] = {"smoothScale1Optional", "smoothScale2Optional", "betaOptional"};
    for (int i = 0; i < 3; i++)
        if (opt[i] && nm_same_shape(opt[i], optn[i], gamma, "gamma"))
            return ACL_REPORT(code, "%s shape mismatch with gamma.", optn[i]);
    return ACLNN_SUCCESS;
}

/* the kernel's rules for the outputs it writes (561002) */
static aclnnStatus out_shapes(const aclTensor *x1, const aclTensor *y, const char *yn, const aclTensor *s,
                              const char *sn, int64_t rows, bool packed) {
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    if (y) {
        bool ok = y->ndim == x1->ndim;
        for (uint64_t i = 0; ok && i < y->ndim; i++)
            ok = y->dims[i] == (i + 1 == y->ndim && packed ? x1->dims[i] / 8 : x1->dims[i]);
        ACLNN_CHECK(ok, T, "the shape of %s should be x1's%s.", yn, packed ? " (its last dim / 8)" : "");
    }
    if (s) {
        bool ok = s->ndim + 1 == x1->ndim || (x1->ndim == 1 && acl_tensor_numel(s) == 1);
        for (uint64_t i = 0; ok && s->ndim + 1 == x1->ndim && i < s->ndim; i++) ok = s->dims[i] == x1->dims[i];
        ACLNN_CHECK(ok && acl_tensor_numel(s) == rows, T, "the shape of %s should be x1's without its last dim.", sn);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus publish(int op, const aclTensor *const *ins, const aclTensor *const *outs, const aclTensor *x1,
                           double eps, double qmax, bool out1, bool out2, bool int4, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    const char *inn[] = {"x1", "x2", "gamma", "smoothScale1Optional", "smoothScale2Optional", "betaOptional"};
    const char *outn[] = {"y1Out", "y2Out", "xOut", "scale1Out", "scale2Out"};
    void *pp;
    ACL_TRY(nm_exec(op, ardq_run, sizeof(ardq_params), ins, inn, 6, outs, outn, 5, workspaceSize, executor, &pp));
    ardq_params *p = pp;
    p->n = x1->dims[x1->ndim - 1];
    p->rows = acl_tensor_numel(x1) / p->n;
    p->eps = eps;
    p->qmax = qmax;
    p->out1 = out1;
    p->out2 = out2;
    p->int4 = int4;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormDynamicQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                        const aclTensor *smoothScale1Optional, const aclTensor *smoothScale2Optional,
                                        double epsilon, aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut,
                                        aclTensor *scale1Out, aclTensor *scale2Out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor) {
    const aclTensor *s1 = smoothScale1Optional, *s2 = smoothScale2Optional;
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(xOut, "xOut");
    NN(scale1Out, "scale1Out");
    NN(scale2Out, "scale2Out");
    ACL_TRY(acl_check_dtype_in(x1, k_x, 2, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_x, 2, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, k_x, 2, "gamma"));
    if (s1) ACL_TRY(acl_check_dtype_in(s1, k_x, 2, "smoothScale1Optional"));
    if (s2) ACL_TRY(acl_check_dtype_in(s2, k_x, 2, "smoothScale2Optional"));
    ACL_TRY(acl_check_dtype_in(y1Out, k_y, 4, "y1Out"));
    ACL_TRY(acl_check_dtype_in(y2Out, k_y, 4, "y2Out"));
    ACL_TRY(acl_check_same_dtype(y1Out, "y1Out", y2Out, "y2Out"));
    ACL_TRY(acl_check_dtype_in(xOut, k_x, 2, "xOut"));
    ACL_TRY(nm_dtype_is(scale1Out, ACL_FLOAT, "scale1Out"));
    ACL_TRY(nm_dtype_is(scale2Out, ACL_FLOAT, "scale2Out"));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1->ndim >= 1 && x1->ndim <= 8, T, "x1 should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1->ndim);
    ACL_TRY(shapes_tiling(x1, x2, gamma, s1, s2, NULL, T));
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out))
        return acl_exec_noop(ACL_OP_AddRmsNormDynamicQuant, workspaceSize, executor);
    ACLNN_CHECK(y1Out->dtype == ACL_INT8, T, "y1Out should be INT8 on this SoC (ASCEND910B), but is %s.",
                acl_dtype_name(y1Out->dtype));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    const int64_t rows = acl_tensor_numel(x1) / x1->dims[x1->ndim - 1];
    const bool dual = s1 && s2;
    ACL_TRY(out_shapes(x1, y1Out, "y1Out", scale1Out, "scale1Out", rows, false));
    ACL_TRY(out_shapes(x1, xOut, "xOut", NULL, NULL, rows, false));
    if (dual) ACL_TRY(out_shapes(x1, y2Out, "y2Out", scale2Out, "scale2Out", rows, false));
    const aclTensor *ins[] = {x1, x2, gamma, s1, s2, NULL};
    const aclTensor *outs[] = {y1Out, dual ? y2Out : NULL, xOut, scale1Out, dual ? scale2Out : NULL};
    return publish(ACL_OP_AddRmsNormDynamicQuant, ins, outs, x1, epsilon, 127.0, true, dual, false, workspaceSize,
                   executor);
}

/* An INT4 tensor (two values per byte) as the 1-D UINT8 view of its bytes: only a dense row-major view starting at
 * a whole byte can be addressed so (161002 naming it otherwise). */
static aclnnStatus int4_bytes(const aclTensor *t, const char *name, aclTensor *dst) {
    const int64_t n = acl_tensor_numel(t);
    ACLNN_CHECK(acl_tensor_row_major(t) && t->offset % 2 == 0 && n % 2 == 0, ACLNN_ERR_PARAM_INVALID,
                "%s: an INT4 tensor must be contiguous, start at a whole byte and hold an even number of values "
                "(two per byte) in this emulator.", name);
    *dst = *t;
    dst->dtype = ACL_UINT8;
    dst->ndim = 1;
    dst->dims[0] = n / 2;
    dst->strides[0] = 1;
    dst->offset = t->offset / 2;
    if (t->storage_ndim > 0) {
        int64_t sn;
        if (!acl_numel(t->storage_dims, (int64_t)t->storage_ndim, &sn)) sn = INT64_MAX - 1;
        dst->storage_ndim = 1;
        dst->storage_dims[0] = sn / 2 + sn % 2;
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormDynamicQuantV2(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                          const aclTensor *smoothScale1Optional,
                                          const aclTensor *smoothScale2Optional, const aclTensor *betaOptional,
                                          double epsilon, const aclBoolArray *outputMask, aclTensor *y1Out,
                                          aclTensor *y2Out, aclTensor *xOut, aclTensor *scale1Out,
                                          aclTensor *scale2Out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *s1 = smoothScale1Optional, *s2 = smoothScale2Optional, *b = betaOptional;
    const int P = ACLNN_ERR_PARAM_INVALID;
    /* CheckFlag: outputMask NULL or of 2 values, consistent with the smooth scales */
    bool out1 = true, out2 = s1 && s2;
    if (outputMask) {
        ACLNN_CHECK(outputMask->size == 2, P, "The length of outputMask must be 2, but got %llu.",
                    (unsigned long long)outputMask->size);
        out1 = outputMask->v[0];
        out2 = outputMask->v[1];
        ACLNN_CHECK(!(s1 && !out1), P, "smoothScale1Optional is not nullptr but outputMask[0] is False.");
        ACLNN_CHECK(!(s2 && !out2), P, "smoothScale2Optional is not nullptr but outputMask[1] is False.");
        ACLNN_CHECK(out1 || out2, P, "outputMask[0] and outputMask[1] cannot both be False.");
    } else {
        ACLNN_CHECK(!(!s1 && s2), P, "without outputMask, smoothScale2Optional needs smoothScale1Optional.");
    }
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(xOut, "xOut");
    if (out1) {
        NN(y1Out, "y1Out");
        NN(scale1Out, "scale1Out");
    }
    if (out2) {
        NN(y2Out, "y2Out");
        NN(scale2Out, "scale2Out");
    }
    if (acl_tensor_empty(x1) || acl_tensor_empty(x2) || acl_tensor_empty(gamma))
        return acl_exec_noop(ACL_OP_AddRmsNormDynamicQuantV2, workspaceSize, executor);
    const aclTensor *y = out1 ? y1Out : y2Out;
    ACLNN_CHECK(!(out1 && out2) || y1Out->dtype == y2Out->dtype, P, "y1Out and y2Out dtype must be the same when "
                "both are active, got %s and %s.", acl_dtype_name(y1Out->dtype), acl_dtype_name(y2Out->dtype));
    const bool packed = y->dtype == ACL_INT32;
    const int64_t xl = x1->ndim ? x1->dims[x1->ndim - 1] : 1;
    const aclTensor *ys[] = {out1 ? y1Out : NULL, out2 ? y2Out : NULL};
    const char *yn[] = {"y1Out", "y2Out"};
    for (int k = 0; k < 2; k++) {
        if (!ys[k]) continue;
        const int64_t yl = ys[k]->ndim ? ys[k]->dims[ys[k]->ndim - 1] : 1;
        if (packed)
            ACLNN_CHECK(xl == yl * 8, P, "for INT32 (packed int4) output, %s's last dim (%lld) must be 1/8 of x1's "
                        "(%lld).", yn[k], (long long)yl, (long long)xl);
        else if (nm_same_shape(ys[k], yn[k], x1, "x1"))
            return ACL_REPORT(P, "%s shape must be the same as x1's.", yn[k]);
    }
    /* the l0op / kernel's rules: dtypes (161002) then shapes (561002) */
    ACL_TRY(acl_check_dtype_in(x1, k_x, 2, "x1"));
    ACL_TRY(acl_check_same_dtype(x2, "x2", x1, "x1"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x1, "x1"));
    if (s1) ACL_TRY(acl_check_same_dtype(s1, "smoothScale1Optional", x1, "x1"));
    if (s2) ACL_TRY(acl_check_same_dtype(s2, "smoothScale2Optional", x1, "x1"));
    if (b) ACL_TRY(acl_check_same_dtype(b, "betaOptional", x1, "x1"));
    ACL_TRY(acl_check_same_dtype(xOut, "xOut", x1, "x1"));
    static const aclDataType k_yv2[] = {ACL_INT8, ACL_INT4, ACL_INT32};
    for (int k = 0; k < 2; k++)
        if (ys[k]) ACL_TRY(acl_check_dtype_in(ys[k], k_yv2, 3, yn[k]));
    if (out1) ACL_TRY(nm_dtype_is(scale1Out, ACL_FLOAT, "scale1Out"));
    if (out2) ACL_TRY(nm_dtype_is(scale2Out, ACL_FLOAT, "scale2Out"));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1->ndim >= 1 && x1->ndim <= 8, T, "x1 should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1->ndim);
    ACL_TRY(shapes_tiling(x1, x2, gamma, s1, s2, b, T));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    const int64_t rows = acl_tensor_numel(x1) / xl;
    ACL_TRY(out_shapes(x1, xOut, "xOut", NULL, NULL, rows, false));
    if (out1) ACL_TRY(out_shapes(x1, y1Out, "y1Out", scale1Out, "scale1Out", rows, packed));
    if (out2) ACL_TRY(out_shapes(x1, y2Out, "y2Out", scale2Out, "scale2Out", rows, packed));
    const bool int4 = y->dtype == ACL_INT4;
    aclTensor yb[2];
    if (int4) {
        ACLNN_CHECK(xl % 2 == 0, T, "for INT4 output, x1's last dim (%lld) must be even.", (long long)xl);
        for (int k = 0; k < 2; k++)
            if (ys[k]) ACL_TRY(int4_bytes(ys[k], yn[k], &yb[k]));
    }
    const aclTensor *ins[] = {x1, x2, gamma, s1, s2, b};
    const aclTensor *outs[] = {out1 ? (int4 ? &yb[0] : y1Out) : NULL, out2 ? (int4 ? &yb[1] : y2Out) : NULL, xOut,
                               out1 ? scale1Out : NULL, out2 ? scale2Out : NULL};
    return publish(ACL_OP_AddRmsNormDynamicQuantV2, ins, outs, x1, epsilon, packed || int4 ? 7.0 : 127.0, out1, out2,
                   int4, workspaceSize, executor);
}
