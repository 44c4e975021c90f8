/* aclnnRmsNorm (ops-nn norm/rms_norm), aclnnRmsNormGrad (norm/rms_norm_grad) and aclnnAddRmsNorm
 * (norm/add_rms_norm).
 *
 * Rows are the leading dims of x, a row the trailing gamma.dim() dims (n = gamma.numel() elements):
 *   rstd = 1 / sqrt(mean(x^2) + epsilon),  y = x * rstd * gamma
 *   grad:  dx = rstd * (dy * gamma - x * rstd * mean(dy * gamma * x * rstd)),  dgamma[j] = sum_rows dy * x * rstd
 *   AddRmsNorm: x = x1 + x2 (xOut), then RmsNorm of x (kept in float64, not the rounded xOut).
 *   GemmaRmsNorm (norm/gemma_rms_norm): y = x * rstd * (1 + gamma).
 *   InplaceAddRmsNorm (norm/inplace_add_rms_norm): x1Ref <- y, x2Ref <- x1Ref + x2Ref.
 *   AddRmsNormCast (norm/add_rms_norm_cast): y1Out = y in FLOAT, y2Out = y1Out cast to x1's dtype.
 * RmsNorm and RmsNormGrad have no op_api source: their first phase is the one CANN generates from the op
 * definition (NULL tensors 161001, the dtype combinations of the docs' A2 table 161002, shape rules of the
 * tiling 561002, all outputs empty -> nothing to launch). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

#define F32 ACL_FLOAT
#define F16 ACL_FLOAT16
#define B16 ACL_BF16

typedef struct { nm_io io; int64_t rows, n; double eps; int mode; } rms_params;

/* gamma's shape must be the trailing dims of x (-> code); returns the rows through *rows */
static aclnnStatus gamma_tail(const aclTensor *x, const char *xn, const aclTensor *g, const char *gn, int code,
                              int64_t *rows, int64_t *n) {
    ACLNN_CHECK(g->ndim >= 1 && g->ndim <= x->ndim, code, "%s should have 1 to %llu dims (x's trailing dims), "
                "but has %llu.", gn, (unsigned long long)x->ndim, (unsigned long long)g->ndim);
    const uint64_t off = x->ndim - g->ndim;
    for (uint64_t i = 0; i < g->ndim; i++)
        ACLNN_CHECK(g->dims[i] == x->dims[off + i], code, "%s dim %llu (%lld) should equal %s dim %llu (%lld).", gn,
                    (unsigned long long)i, (long long)g->dims[i], xn, (unsigned long long)(off + i),
                    (long long)x->dims[off + i]);
    *rows = nm_prod(x, 0, off);
    *n = nm_prod(x, off, x->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus rstd_shape(const aclTensor *r, int64_t rows, const char *name, int code) {
    int64_t k = acl_tensor_numel(r);
    ACLNN_CHECK(k == rows, code, "%s should have %lld elements (one per normalised row), but has %lld.", name,
                (long long)rows, (long long)k);
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ RmsNorm / AddRmsNorm */

enum { RMS_PLAIN, RMS_ADD, RMS_GEMMA, RMS_INPLACE, RMS_CAST };

static aclnnStatus rms_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rms_params *p = ex->params;
    bool oom = false;
    const bool add = p->mode == RMS_ADD || p->mode == RMS_INPLACE || p->mode == RMS_CAST;
    const int gi = add ? 2 : 1;
    /* outputs per mode: y, the second y (CAST: y2Out), rstd, the sum x1 + x2 */
    int oy = 0, oy2 = -1, orstd = 1, oxs = -1;
    if (p->mode == RMS_ADD) oxs = 2;
    else if (p->mode == RMS_INPLACE) oxs = 1, orstd = 2;
    else if (p->mode == RMS_CAST) oy2 = 1, orstd = 2, oxs = 3;
    nm_fb x, x2, y, y2, xs;
    float *g = nm_loadf(nm_in(ex, gi), &oom);
    float *rstd = malloc(sizeof(float) * (size_t)(p->rows > 0 ? p->rows : 1));
    oom |= !nm_fin(nm_in(ex, 0), &x);
    oom |= !nm_fin(add ? nm_in(ex, 1) : NULL, &x2);
    oom |= !nm_fout(nm_out(ex, oy), &y);
    oom |= !nm_fout(oy2 >= 0 ? nm_out(ex, oy2) : NULL, &y2);
    oom |= !nm_fout(oxs >= 0 ? nm_out(ex, oxs) : NULL, &xs);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!oom && g && p->mode == RMS_GEMMA)
        for (int64_t j = 0; j < p->n; j++) g[j] = (float)((double)g[j] + 1.0); /* the Gemma scale is 1 + gamma */
    if (oom || !rstd || nf_rows_fwd(x.b, x2.b, p->rows, p->n, g, NULL, p->eps, false, y.b, y2.b, xs.b, NULL, rstd))
        rc = OOM;
    else if (!nm_storef(rstd, p->rows, nm_out(ex, orstd)))
        rc = OOM;
    nm_fdone(&x, false);
    nm_fdone(&x2, false);
    if (!nm_fdone(&y, !rc)) rc = OOM;
    if (!nm_fdone(&y2, !rc)) rc = OOM;
    if (!nm_fdone(&xs, !rc)) rc = OOM;
    free(g), free(rstd);
    return rc;
}

static const aclDataType k_rms_rows[] = {F16, F32, F16, F32, B16, F32, B16, F32, F16, F16, F16, F32,
                                         B16, B16, B16, F32, F32, F32, F32, F32};

/* GemmaRmsNorm: x, gamma and yOut of one dtype, rstdOut FLOAT */
static const aclDataType k_gemma_rows[] = {F16, F16, F16, F32, B16, B16, B16, F32, F32, F32, F32, F32};

static aclnnStatus rms_ws(int op, int mode, const aclTensor *x, const aclTensor *gamma, double epsilon,
                          const aclTensor *yOut, const aclTensor *rstdOut, uint64_t *workspaceSize,
                          aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(yOut, "yOut");
    NN(rstdOut, "rstdOut");
    const aclTensor *ts[] = {x, gamma, yOut, rstdOut};
    const char *names[] = {"x", "gamma", "yOut", "rstdOut"};
    if (mode == RMS_GEMMA) ACL_TRY(nm_combo(k_gemma_rows, 3, 4, ts, names));
    else ACL_TRY(nm_combo(k_rms_rows, 5, 4, ts, names));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x->ndim >= 1 && x->ndim <= 8, T, "x should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x->ndim);
    int64_t rows, n;
    ACL_TRY(gamma_tail(x, "x", gamma, "gamma", T, &rows, &n));
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    if (acl_tensor_empty(yOut) && acl_tensor_empty(rstdOut))
        return acl_exec_noop(op, workspaceSize, executor);
    {
        aclnnStatus rc = nm_same_shape(yOut, "yOut", x, "x");
        if (rc) return ACL_REPORT(T, "the shape of yOut should be the shape of x.");
    }
    ACL_TRY(rstd_shape(rstdOut, rows, "rstdOut", T));
    const aclTensor *ins[] = {x, gamma}, *outs[] = {yOut, rstdOut};
    const char *inn[] = {"x", "gamma"}, *outn[] = {"yOut", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(op, rms_run, sizeof(rms_params), ins, inn, 2, outs, outn, 2, workspaceSize, executor, &pp));
    rms_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->mode = mode;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_RmsNorm(const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut,
                         const aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return rms_ws(ACL_OP_RmsNorm, RMS_PLAIN, x, gamma, epsilon, yOut, rstdOut, workspaceSize, executor);
}

aclnnStatus opws_GemmaRmsNorm(const aclTensor *x, const aclTensor *gamma, double epsilon, const aclTensor *yOut,
                              const aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return rms_ws(ACL_OP_GemmaRmsNorm, RMS_GEMMA, x, gamma, epsilon, yOut, rstdOut, workspaceSize, executor);
}

static const aclDataType k_add_rms_dt[] = {F32, F16, B16};
static const aclDataType k_add_rms_dt_atb[] = {F16, B16};

aclnnStatus opws_AddRmsNorm(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon,
                            aclTensor *yOut, aclTensor *rstdOut, aclTensor *xOut, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    /* the mode follows the outputs given: all three (add), xOut only (pre), yOut only (post) */
    enum { ADD, PRE, POST } mode = ADD;
    if (xOut && !rstdOut) mode = PRE;
    else if (!xOut && !rstdOut) mode = POST;
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(yOut, "yOut");
    if (mode == ADD) {
        NN(rstdOut, "rstdOut");
        NN(xOut, "xOut");
    } else if (mode == PRE) {
        NN(xOut, "xOut");
    }
    const aclDataType *dl = mode == ADD ? k_add_rms_dt : k_add_rms_dt_atb;
    const int nd = mode == ADD ? 3 : 2;
    ACL_TRY(acl_check_dtype_in(x1, dl, nd, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, dl, nd, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, dl, nd, "gamma"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", x2, "x2"));
    ACL_TRY(acl_check_same_dtype(x1, "x1", gamma, "gamma"));
    ACL_TRY(acl_check_dtype_in(yOut, dl, nd, "yOut"));
    ACL_TRY(acl_check_same_dtype(yOut, "yOut", x1, "x1"));
    if (mode == ADD) {
        ACL_TRY(acl_check_dtype_in(xOut, dl, nd, "xOut"));
        ACL_TRY(acl_check_same_dtype(xOut, "xOut", yOut, "yOut"));
        ACL_TRY(nm_dtype_is(rstdOut, ACL_FLOAT, "rstdOut"));
    }
    if (mode == PRE) {
        ACL_TRY(acl_check_dtype_in(xOut, dl, nd, "xOut"));
        ACL_TRY(acl_check_same_dtype(xOut, "xOut", yOut, "yOut"));
    }
    ACL_TRY(nm_max_dim(x1, 8, "x1"));
    ACL_TRY(nm_max_dim(x2, 8, "x2"));
    ACL_TRY(nm_max_dim(gamma, 8, "gamma"));
    ACL_TRY(nm_min_dim(x1, 1, "x1"));
    ACL_TRY(nm_min_dim(x2, 1, "x2"));
    ACL_TRY(nm_min_dim(gamma, 1, "gamma"));
    ACL_TRY(nm_same_shape(x1, "x1", x2, "x2"));
    ACL_TRY(nm_max_dim(yOut, 8, "yOut"));
    ACL_TRY(nm_same_shape(x1, "x1", yOut, "yOut"));
    if (mode == ADD) {
        ACL_TRY(nm_max_dim(rstdOut, 8, "rstdOut"));
        ACL_TRY(nm_max_dim(xOut, 8, "xOut"));
        ACL_TRY(nm_same_shape(x1, "x1", xOut, "xOut"));
    }
    if (mode == PRE) {
        ACL_TRY(nm_max_dim(gamma, 2, "gamma"));
        ACL_TRY(nm_max_dim(xOut, 8, "xOut"));
        ACL_TRY(nm_same_shape(x1, "x1", xOut, "xOut"));
    }
    if (mode == POST) ACL_TRY(nm_max_dim(gamma, 2, "gamma"));
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma))
        return acl_exec_noop(ACL_OP_AddRmsNorm, workspaceSize, executor);
    /* the kernel's rules (the l0 op's shape inference): gamma is x1's trailing dims, rstd one value per row */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    int64_t rows, n;
    ACL_TRY(gamma_tail(x1, "x1", gamma, "gamma", T, &rows, &n));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    if (rstdOut) ACL_TRY(rstd_shape(rstdOut, rows, "rstdOut", T));
    const aclTensor *ins[] = {x1, x2, gamma}, *outs[] = {yOut, rstdOut, xOut};
    const char *inn[] = {"x1", "x2", "gamma"}, *outn[] = {"yOut", "rstdOut", "xOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNorm, rms_run, sizeof(rms_params), ins, inn, 3, outs, outn, 3, workspaceSize,
                    executor, &pp));
    rms_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->mode = RMS_ADD;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ RmsNormGrad */

static aclnnStatus rmsg_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rms_params *p = ex->params;
    bool oom = false;
    nm_fb dy, x, dx;
    float *rstd = nm_loadf(nm_in(ex, 2), &oom), *g = nm_loadf(nm_in(ex, 3), &oom);
    const acl_view *vdg = nm_out(ex, 1);
    double *dg = malloc(sizeof(double) * (size_t)(p->n > 0 ? p->n : 1));
    oom |= !nm_fin(nm_in(ex, 0), &dy);
    oom |= !nm_fin(nm_in(ex, 1), &x);
    oom |= !nm_fout(nm_out(ex, 0), &dx);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !dg || nf_rows_bwd(dy.b, x.b, p->rows, p->n, NULL, rstd, g, dx.b, dg, NULL))
        rc = OOM;
    else
        nm_store(dg, vdg);
    nm_fdone(&dy, false);
    nm_fdone(&x, false);
    if (!nm_fdone(&dx, !rc)) rc = OOM;
    free(rstd), free(g), free(dg);
    return rc;
}

static const aclDataType k_rmsg_rows[] = {F16, F16, F32, F32, F16, F32, B16, B16, F32, F32, B16, F32,
                                          F16, F16, F32, F16, F16, F32, F32, F32, F32, F32, F32, F32,
                                          B16, B16, F32, B16, B16, F32};

aclnnStatus opws_RmsNormGrad(const aclTensor *dy, const aclTensor *x, const aclTensor *rstd, const aclTensor *gamma,
                             const aclTensor *dxOut, const aclTensor *dgammaOut, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    NN(dy, "dy");
    NN(x, "x");
    NN(rstd, "rstd");
    NN(gamma, "gamma");
    NN(dxOut, "dxOut");
    NN(dgammaOut, "dgammaOut");
    const aclTensor *ts[] = {dy, x, rstd, gamma, dxOut, dgammaOut};
    const char *names[] = {"dy", "x", "rstd", "gamma", "dxOut", "dgammaOut"};
    ACL_TRY(nm_combo(k_rmsg_rows, 5, 6, ts, names));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(dy->ndim >= 2 && dy->ndim <= 8, T, "dy should have 2 to 8 dims, but has %llu.",
                (unsigned long long)dy->ndim);
    if (nm_same_shape(x, "x", dy, "dy")) return ACL_REPORT(T, "the shape of x should be the shape of dy.");
    int64_t rows, n;
    ACL_TRY(gamma_tail(x, "x", gamma, "gamma", T, &rows, &n));
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    if (acl_tensor_empty(dxOut) && acl_tensor_empty(dgammaOut))
        return acl_exec_noop(ACL_OP_RmsNormGrad, workspaceSize, executor);
    if (nm_same_shape(dxOut, "dxOut", dy, "dy")) return ACL_REPORT(T, "the shape of dxOut should be the shape of dy.");
    if (nm_same_shape(dgammaOut, "dgammaOut", gamma, "gamma"))
        return ACL_REPORT(T, "the shape of dgammaOut should be the shape of gamma.");
    ACL_TRY(rstd_shape(rstd, rows, "rstd", T));
    const aclTensor *ins[] = {dy, x, rstd, gamma}, *outs[] = {dxOut, dgammaOut};
    const char *inn[] = {"dy", "x", "rstd", "gamma"}, *outn[] = {"dxOut", "dgammaOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_RmsNormGrad, rmsg_run, sizeof(rms_params), ins, inn, 4, outs, outn, 2, workspaceSize,
                    executor, &pp));
    rms_params *p = pp;
    p->rows = rows;
    p->n = n;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ InplaceAddRmsNorm / AddRmsNormCast
 * no op_api source upstream: the generated first phase (NULL 161001, dtype rules 161002, shape rules 561002) */

aclnnStatus opws_InplaceAddRmsNorm(aclTensor *x1Ref, aclTensor *x2Ref, const aclTensor *gamma, double epsilon,
                                   const aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x1Ref, "x1Ref");
    NN(x2Ref, "x2Ref");
    NN(gamma, "gamma");
    NN(rstdOut, "rstdOut");
    ACL_TRY(acl_check_dtype_in(x1Ref, k_add_rms_dt, 3, "x1Ref"));
    ACL_TRY(acl_check_same_dtype(x2Ref, "x2Ref", x1Ref, "x1Ref"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x1Ref, "x1Ref"));
    ACL_TRY(nm_dtype_is(rstdOut, ACL_FLOAT, "rstdOut"));
    if (acl_tensor_empty(x1Ref) && acl_tensor_empty(x2Ref) && acl_tensor_empty(rstdOut))
        return acl_exec_noop(ACL_OP_InplaceAddRmsNorm, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1Ref->ndim >= 1 && x1Ref->ndim <= 8, T, "x1Ref should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1Ref->ndim);
    if (nm_same_shape(x2Ref, "x2Ref", x1Ref, "x1Ref")) return ACL_REPORT(T, "the shape of x2Ref should be x1Ref's.");
    int64_t rows, n;
    ACL_TRY(gamma_tail(x1Ref, "x1Ref", gamma, "gamma", T, &rows, &n));
    ACLNN_CHECK(acl_tensor_numel(x1Ref) >= 0, T, "x1Ref has more elements than int64 holds.");
    ACL_TRY(rstd_shape(rstdOut, rows, "rstdOut", T));
    const aclTensor *ins[] = {x1Ref, x2Ref, gamma}, *outs[] = {x1Ref, x2Ref, rstdOut};
    const char *inn[] = {"x1Ref", "x2Ref", "gamma"}, *outn[] = {"x1Ref", "x2Ref", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_InplaceAddRmsNorm, rms_run, sizeof(rms_params), ins, inn, 3, outs, outn, 3, workspaceSize,
                    executor, &pp));
    rms_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->mode = RMS_INPLACE;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormCast(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma, double epsilon,
                                const aclTensor *y1Out, const aclTensor *y2Out, const aclTensor *rstdOut,
                                const aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(rstdOut, "rstdOut");
    NN(xOut, "xOut");
    ACL_TRY(acl_check_dtype_in(x1, k_add_rms_dt_atb, 2, "x1"));
    ACL_TRY(acl_check_same_dtype(x2, "x2", x1, "x1"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x1, "x1"));
    ACL_TRY(nm_dtype_is(y1Out, ACL_FLOAT, "y1Out"));
    ACL_TRY(acl_check_same_dtype(y2Out, "y2Out", x1, "x1"));
    ACL_TRY(nm_dtype_is(rstdOut, ACL_FLOAT, "rstdOut"));
    ACL_TRY(acl_check_same_dtype(xOut, "xOut", x1, "x1"));
    if (acl_tensor_empty(y1Out) && acl_tensor_empty(y2Out) && acl_tensor_empty(rstdOut) && acl_tensor_empty(xOut))
        return acl_exec_noop(ACL_OP_AddRmsNormCast, workspaceSize, executor);
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x1->ndim >= 1 && x1->ndim <= 8, T, "x1 should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1->ndim);
    int64_t rows, n;
    ACL_TRY(gamma_tail(x1, "x1", gamma, "gamma", T, &rows, &n));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    const aclTensor *same[] = {x2, y1Out, y2Out, xOut};
    const char *samen[] = {"x2", "y1Out", "y2Out", "xOut"};
    for (int i = 0; i < 4; i++)
        if (nm_same_shape(same[i], samen[i], x1, "x1"))
            return ACL_REPORT(T, "the shape of %s should be the shape of x1.", samen[i]);
    ACL_TRY(rstd_shape(rstdOut, rows, "rstdOut", T));
    const aclTensor *ins[] = {x1, x2, gamma}, *outs[] = {y1Out, y2Out, rstdOut, xOut};
    const char *inn[] = {"x1", "x2", "gamma"}, *outn[] = {"y1Out", "y2Out", "rstdOut", "xOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormCast, rms_run, sizeof(rms_params), ins, inn, 3, outs, outn, 4, workspaceSize,
                    executor, &pp));
    rms_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->mode = RMS_CAST;
    return ACLNN_SUCCESS;
}
