/* aclnnRmsNormQuant (ops-nn norm/rms_norm_quant) and aclnnAddRmsNormQuant (norm/add_rms_norm_quant).
 *
 * The norm part is the RMS norm of the norm family (kernels/norm.c, as RmsNorm/AddRmsNorm use it), in float64:
 *   v = x * rstd * gamma (+ beta),  rstd = 1 / sqrt(mean(x^2) + epsilon),  x = x1 + x2 for the Add variant
 * then the static quantisation, rounded half to even and saturated to the output type:
 *   RmsNormQuant:    y = rint(v / scale + offset)            (scale, offset one value each)
 *   AddRmsNormQuant: y = rint(v / s + zp) (divMode) or rint(v * s + zp), s/zp per tensor ([1]) or per column
 *                    ([n]); y2Out only when scales2Optional is given; xOut = x1 + x2 rounded to x1's dtype.
 * A NaN before the cast gives 0 (the docs' constraint). A y of INT32 (RmsNormQuant) holds int4 values packed eight
 * to a word, the first element in the lowest nibble. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

typedef struct {
    nm_io io;
    int64_t rows, n;
    double eps;
    bool div;        /* AddRmsNormQuant: v / s (true) or v * s */
    int qmin, qmax;  /* the output's saturation range */
    bool pack4;      /* int4 values packed into INT32 words */
} rq_params;

static double quant(double v, int lo, int hi) {
    if (isnan(v)) return 0.0;
    if (v < lo) return lo;
    if (v > hi) return hi;
    return nearbyint(v); /* round half to even (the default rounding mode) */
}

/* the RMS rows of x (rows x n, float64) with gamma and optional beta, into y */
static void rms_rows(const double *x, const double *g, const double *b, int64_t rows, int64_t n, double eps,
                     double *ms, double *y) {
    nk_row_meansq(x, rows, n, ms);
    for (int64_t r = 0; r < rows; r++) ms[r] = 1.0 / sqrt(ms[r] + eps);
    nk_row_affine(x, rows, n, NULL, ms, g, b, y);
}

/* v (rows x n) quantised in place with per-tensor (ns == 1) or per-column scale / zero point (zp NULL: 0) */
static void quant_rows(double *v, int64_t rows, int64_t n, const double *s, int64_t ns, const double *zp,
                       int64_t nz, bool div, int lo, int hi) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < n; j++) {
            const double sj = s[ns == 1 ? 0 : j], zj = zp ? zp[nz == 1 ? 0 : j] : 0.0;
            double *p = &v[r * n + j];
            *p = quant((div ? *p / sj : *p * sj) + zj, lo, hi);
        }
}

/* eight int4 values (total / 8 words) per INT32 word in place, element 0 in bits 0-3 */
static void pack_int4(double *y, int64_t total) {
    for (int64_t w = 0; w < total / 8; w++) {
        uint32_t u = 0;
        for (int k = 0; k < 8; k++) u |= ((uint32_t)((int32_t)y[w * 8 + k]) & 0xFu) << (4 * k);
        y[w] = (double)(int32_t)u;
    }
}

/* ------------------------------------------------------------------ RmsNormQuant */

static aclnnStatus rq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rq_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *s = nm_load(nm_in(ex, 3), &oom), *o = nm_load(nm_in(ex, 4), &oom);
    const int64_t total = p->rows * p->n;
    double *ms = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !ms || !y) {
        rc = OOM;
    } else {
        rms_rows(x, g, b, p->rows, p->n, p->eps, ms, y);
        quant_rows(y, p->rows, p->n, s, 1, o, 1, true, p->qmin, p->qmax);
        if (p->pack4) pack_int4(y, total);
        nm_store(y, nm_out(ex, 0));
    }
    free(x), free(g), free(b), free(s), free(o), free(ms), free(y);
    return rc;
}

static const aclDataType k_rq_x[] = {ACL_FLOAT16, ACL_BF16};
static const aclDataType k_rq_y[] = {ACL_INT8, ACL_INT4, ACL_INT32};

/* a 2-D gamma/beta [1, n] is read as [n] (the op_api reshapes it before its checks; another first dim fails there) */
static aclnnStatus flat_1n(const aclTensor *t, const char *name) {
    if (t->ndim == 2)
        ACLNN_CHECK(t->dims[0] == 1, ACLNN_ERR_INNER_NULLPTR,
                    "%s of 2 dims should be [1, n], but its first dim is %lld.", name, (long long)t->dims[0]);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_RmsNormQuant(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta,
                              const aclTensor *scale, const aclTensor *offset, double epsilon, aclTensor *y,
                              uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the op_api reshapes a 2-D gamma/beta before the NULL checks: a NULL one is simply skipped there */
    if (gamma && acl_check_tensor(gamma, "gamma") == ACLNN_SUCCESS) ACL_TRY(flat_1n(gamma, "gamma"));
    if (beta && acl_check_tensor(beta, "beta") == ACLNN_SUCCESS) ACL_TRY(flat_1n(beta, "beta"));
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(scale, "scale");
    NN(offset, "offset");
    NN(y, "y");
    ACL_TRY(acl_check_dtype_in(x, k_rq_x, 2, "x"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x, "x"));
    ACL_TRY(acl_check_same_dtype(beta, "beta", x, "x"));
    ACL_TRY(acl_check_dtype_in(y, k_rq_y, 3, "y"));
    ACL_TRY(acl_check_same_dtype(scale, "scale", x, "x"));
    ACL_TRY(nm_dtype_is(offset, ACL_INT8, "offset"));
    ACL_TRY(nm_max_dim(x, 8, "x"));
    ACL_TRY(nm_max_dim(gamma, 2, "gamma"));
    ACL_TRY(nm_max_dim(beta, 2, "beta"));
    ACL_TRY(nm_max_dim(y, 8, "y"));
    ACL_TRY(nm_min_dim(x, 1, "x"));
    ACL_TRY(nm_min_dim(gamma, 1, "gamma"));
    ACL_TRY(nm_min_dim(beta, 1, "beta"));
    ACL_TRY(nm_min_dim(y, 1, "y"));
    const int64_t xl = x->dims[x->ndim - 1], gl = gamma->dims[gamma->ndim - 1], yl = y->dims[y->ndim - 1];
    ACLNN_CHECK(gl == xl, ACLNN_ERR_PARAM_INVALID, "the last dim of x (%lld) should equal gamma's and beta's (%lld).",
                (long long)xl, (long long)gl);
    const bool pack = y->dtype == ACL_INT32;
    if (pack)
        ACLNN_CHECK(xl == yl * 8, ACLNN_ERR_PARAM_INVALID,
                    "y of INT32 holds packed int4: its last dim (%lld) should be 1/8 of x's (%lld).", (long long)yl,
                    (long long)xl);
    else
        ACLNN_CHECK(xl == yl, ACLNN_ERR_PARAM_INVALID, "the last dim of y (%lld) should equal x's (%lld).",
                    (long long)yl, (long long)xl);
    ACLNN_CHECK(gamma->ndim == beta->ndim && nm_prod(gamma, 0, gamma->ndim) == nm_prod(beta, 0, beta->ndim) &&
                    gamma->dims[gamma->ndim - 1] == beta->dims[beta->ndim - 1],
                ACLNN_ERR_PARAM_INVALID, "the shape of beta should be the shape of gamma.");
    ACL_TRY(nm_same_shape(scale, "scale", offset, "offset"));
    /* what the op_api does not check but its kernel and copy-out need */
    ACLNN_CHECK(y->dtype != ACL_INT4, ACLNN_ERR_PARAM_INVALID,
                "y of INT4 (two values a byte) is not emulated: give y as INT32 (int4 packed eight to a word).");
    ACLNN_CHECK(acl_tensor_numel(scale) == 1, ACLNN_ERR_PARAM_INVALID,
                "scale should hold one value, but has %lld.", (long long)acl_tensor_numel(scale));
    ACLNN_CHECK(y->ndim == x->ndim, ACLNN_ERR_INNER_NULLPTR, "y should have x's %llu dims, but has %llu.",
                (unsigned long long)x->ndim, (unsigned long long)y->ndim);
    for (uint64_t i = 0; i + 1 < x->ndim; i++)
        ACLNN_CHECK(y->dims[i] == x->dims[i], ACLNN_ERR_INNER_NULLPTR, "y dim %llu (%lld) should equal x's (%lld).",
                    (unsigned long long)i, (long long)y->dims[i], (long long)x->dims[i]);
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, ACLNN_ERR_PARAM_INVALID, "x has more elements than int64 holds.");
    if (acl_tensor_empty(x) || acl_tensor_empty(y)) return acl_exec_noop(ACL_OP_RmsNormQuant, workspaceSize, executor);
    const aclTensor *ins[] = {x, gamma, beta, scale, offset}, *outs[] = {y};
    const char *inn[] = {"x", "gamma", "beta", "scale", "offset"}, *outn[] = {"y"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_RmsNormQuant, rq_run, sizeof(rq_params), ins, inn, 5, outs, outn, 1, workspaceSize,
                    executor, &pp));
    rq_params *p = pp;
    p->rows = nm_prod(x, 0, x->ndim - 1);
    p->n = xl;
    p->eps = epsilon;
    p->div = true;
    p->pack4 = pack;
    p->qmin = pack ? -8 : -128;
    p->qmax = pack ? 7 : 127;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ AddRmsNormQuant */

static aclnnStatus arq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rq_params *p = ex->params;
    bool oom = false;
    const acl_view *vs1 = nm_in(ex, 3), *vs2 = nm_in(ex, 4), *vz1 = nm_in(ex, 5), *vz2 = nm_in(ex, 6);
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom), *g = nm_load(nm_in(ex, 2), &oom);
    double *s1 = nm_load(vs1, &oom), *s2 = nm_load(vs2, &oom), *z1 = nm_load(vz1, &oom), *z2 = nm_load(vz2, &oom);
    const int64_t total = p->rows * p->n;
    double *ms = malloc(sizeof(double) * (size_t)(p->rows > 0 ? p->rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *y2 = vs2 ? malloc(sizeof(double) * (size_t)(total > 0 ? total : 1)) : NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !ms || !y || (vs2 && !y2)) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        rms_rows(x, g, NULL, p->rows, p->n, p->eps, ms, y);
        if (y2)
            for (int64_t i = 0; i < total; i++) y2[i] = y[i];
        quant_rows(y, p->rows, p->n, s1, acl_view_numel(vs1), z1, z1 ? acl_view_numel(vz1) : 1, p->div, p->qmin,
                   p->qmax);
        nm_store(y, nm_out(ex, 0));
        if (y2) {
            quant_rows(y2, p->rows, p->n, s2, acl_view_numel(vs2), z2, z2 ? acl_view_numel(vz2) : 1, p->div,
                       p->qmin, p->qmax);
            nm_store(y2, nm_out(ex, 1));
        }
        nm_store(x, nm_out(ex, 2));
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(z1), free(z2), free(ms), free(y), free(y2);
    return rc;
}

static const aclDataType k_arq_x[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_arq_zp[] = {ACL_INT32, ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_arq_y[] = {ACL_FLOAT8_E4M3FN, ACL_FLOAT8_E5M2, ACL_HIFLOAT8, ACL_INT8};

#define F16 ACL_FLOAT16
#define B16 ACL_BF16
#define F32 ACL_FLOAT
#define I32 ACL_INT32
#define I8 ACL_INT8
/* the docs' A2 table: x1, x2, gamma, scales1, scales2, zeroPoints1, zeroPoints2, y1Out, y2Out, xOut */
static const aclDataType k_arq_rows[] = {F16, F16, F16, F32, F32, I32, I32, I8, I8, F16,
                                         B16, B16, B16, B16, B16, B16, B16, I8, I8, B16};

static aclnnStatus dims_int32(const aclTensor *t, const char *name) {
    for (uint64_t i = 0; i < t->ndim; i++)
        ACLNN_CHECK(t->dims[i] <= 2147483647LL, ACLNN_ERR_PARAM_INVALID,
                    "%s dim %llu (%lld) should not exceed 2147483647.", name, (unsigned long long)i,
                    (long long)t->dims[i]);
    return ACLNN_SUCCESS;
}

static aclnnStatus rank_1_8(const aclTensor *t, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    ACL_TRY(nm_max_dim(t, 8, name));
    ACL_TRY(nm_min_dim(t, 1, name));
    return dims_int32(t, name);
}

/* a scale / zero point: one value or one per column (n) */
static aclnnStatus per_col(const aclTensor *t, int64_t n, const char *name) {
    if (!t) return ACLNN_SUCCESS;
    const int64_t k = acl_tensor_numel(t);
    ACLNN_CHECK(k == 1 || k == n, ACLNN_ERR_INNER_TILING_ERROR,
                "%s should hold 1 or %lld (the norm axis) values, but holds %lld.", name, (long long)n, (long long)k);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_AddRmsNormQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                 const aclTensor *scales1, const aclTensor *scales2Optional,
                                 const aclTensor *zeroPoints1Optional, const aclTensor *zeroPoints2Optional,
                                 int64_t axis, double epsilon, bool divMode, aclTensor *y1Out, aclTensor *y2Out,
                                 aclTensor *xOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(scales1, "scales1");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(xOut, "xOut");
    const aclTensor *opt[] = {scales2Optional, zeroPoints1Optional, zeroPoints2Optional};
    const char *optn[] = {"scales2Optional", "zeroPoints1Optional", "zeroPoints2Optional"};
    for (int i = 0; i < 3; i++)
        if (opt[i]) NN(opt[i], optn[i]);
    ACL_TRY(acl_check_dtype_in(x1, k_arq_x, 3, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_arq_x, 3, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, k_arq_x, 3, "gamma"));
    ACL_TRY(acl_check_dtype_in(scales1, k_arq_x, 3, "scales1"));
    if (scales2Optional) ACL_TRY(acl_check_dtype_in(scales2Optional, k_arq_x, 3, "scales2Optional"));
    if (zeroPoints1Optional) ACL_TRY(acl_check_dtype_in(zeroPoints1Optional, k_arq_zp, 4, "zeroPoints1Optional"));
    if (zeroPoints2Optional) ACL_TRY(acl_check_dtype_in(zeroPoints2Optional, k_arq_zp, 4, "zeroPoints2Optional"));
    ACL_TRY(acl_check_dtype_in(y1Out, k_arq_y, 4, "y1Out"));
    ACL_TRY(acl_check_dtype_in(y2Out, k_arq_y, 4, "y2Out"));
    ACL_TRY(acl_check_same_dtype(y1Out, "y1Out", y2Out, "y2Out"));
    ACL_TRY(acl_check_dtype_in(xOut, k_arq_x, 3, "xOut"));
    ACL_TRY(rank_1_8(x1, "x1"));
    ACL_TRY(rank_1_8(x2, "x2"));
    ACL_TRY(rank_1_8(gamma, "gamma"));
    ACL_TRY(rank_1_8(scales1, "scales1"));
    for (int i = 0; i < 3; i++) ACL_TRY(rank_1_8(opt[i], optn[i]));
    ACL_TRY(rank_1_8(y1Out, "y1Out"));
    ACL_TRY(rank_1_8(y2Out, "y2Out"));
    ACL_TRY(rank_1_8(xOut, "xOut"));
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out))
        return acl_exec_noop(ACL_OP_AddRmsNormQuant, workspaceSize, executor);
    /* the A2 kernel's dtype combinations (the docs' table; a NULL optional matches any) */
    {
        const aclTensor *ts[] = {x1, x2, gamma, scales1, scales2Optional, zeroPoints1Optional, zeroPoints2Optional,
                                 y1Out, y2Out, xOut};
        const char *names[] = {"x1", "x2", "gamma", "scales1", "scales2Optional", "zeroPoints1Optional",
                               "zeroPoints2Optional", "y1Out", "y2Out", "xOut"};
        ACL_TRY(nm_combo(k_arq_rows, 2, 10, ts, names));
    }
    /* the kernel's shape rules (561002) */
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(axis == -1, T, "axis should be -1 (the last dim), but is %lld.", (long long)axis);
    ACLNN_CHECK(gamma->ndim == 1 || nm_prod(gamma, 0, gamma->ndim - 1) == 1, T,
                "gamma should be [n] (the norm axis), but has %llu dims of %lld elements.",
                (unsigned long long)gamma->ndim, (long long)acl_tensor_numel(gamma));
    const int64_t n = x1->dims[x1->ndim - 1];
    ACLNN_CHECK(gamma->dims[gamma->ndim - 1] == n, T, "gamma's last dim (%lld) should equal x1's (%lld).",
                (long long)gamma->dims[gamma->ndim - 1], (long long)n);
    const aclTensor *same[] = {x2, y1Out, y2Out, xOut};
    const char *samen[] = {"x2", "y1Out", "y2Out", "xOut"};
    for (int i = 0; i < 4; i++)
        if (nm_same_shape(same[i], samen[i], x1, "x1"))
            return ACL_REPORT(T, "the shape of %s should be the shape of x1.", samen[i]);
    ACL_TRY(per_col(scales1, n, "scales1"));
    for (int i = 0; i < 3; i++) ACL_TRY(per_col(opt[i], n, optn[i]));
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    const aclTensor *ins[] = {x1, x2, gamma, scales1, scales2Optional, zeroPoints1Optional, zeroPoints2Optional};
    const char *inn[] = {"x1", "x2", "gamma", "scales1", "scales2Optional", "zeroPoints1Optional",
                         "zeroPoints2Optional"};
    const aclTensor *outs[] = {y1Out, scales2Optional ? y2Out : NULL, xOut};
    const char *outn[] = {"y1Out", "y2Out", "xOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormQuant, arq_run, sizeof(rq_params), ins, inn, 7, outs, outn, 3, workspaceSize,
                    executor, &pp));
    rq_params *p = pp;
    p->rows = nm_prod(x1, 0, x1->ndim - 1);
    p->n = n;
    p->eps = epsilon;
    p->div = divMode;
    p->qmin = -128;
    p->qmax = 127;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ RmsNormDynamicQuant / AddRmsNormDynamicQuant
 * per row: v = y (* smooth), scale = max|v| / 127, q = rint(v / scale) (an all-zero row: scale 0, q 0) */

static void dyn_rows_q(const double *y, const double *smooth, int64_t rows, int64_t n, double *v, double *scale,
                       int qmax) {
    for (int64_t r = 0; r < rows; r++) {
        double m = 0.0;
        for (int64_t j = 0; j < n; j++) {
            const double t = smooth ? y[r * n + j] * smooth[j] : y[r * n + j];
            v[r * n + j] = t;
            if (fabs(t) > m || isnan(t)) m = isnan(m) ? m : (isnan(t) ? t : fabs(t));
        }
        scale[r] = (double)(float)(m / qmax); /* scaleOut is FLOAT: q uses the stored scale */
        for (int64_t j = 0; j < n; j++) v[r * n + j] = quant(v[r * n + j] / scale[r], -qmax - 1, qmax);
    }
}

static void dyn_rows(const double *y, const double *smooth, int64_t rows, int64_t n, double *v, double *scale) {
    dyn_rows_q(y, smooth, rows, n, v, scale, 127);
}

enum { DQ_PLAIN, DQ_ADD };

/* inputs: PLAIN x, gamma, smooth, beta; ADD x1, x2, gamma, smooth1, smooth2
 * outputs: PLAIN yOut, scaleOut; ADD y1Out, y2Out, xOut, scale1Out, scale2Out */
static aclnnStatus dq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rq_params *p = ex->params;
    const bool add = p->div; /* reused: true for the Add variant */
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = add ? nm_load(nm_in(ex, 1), &oom) : NULL;
    double *g = nm_load(nm_in(ex, add ? 2 : 1), &oom);
    double *s1 = nm_load(nm_in(ex, add ? 3 : 2), &oom), *s2 = add ? nm_load(nm_in(ex, 4), &oom) : NULL;
    double *b = add ? NULL : nm_load(nm_in(ex, 3), &oom);
    const int64_t total = p->rows * p->n, rows = p->rows > 0 ? p->rows : 1;
    double *ms = malloc(sizeof(double) * (size_t)rows), *sc = malloc(sizeof(double) * (size_t)rows);
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *v = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !ms || !sc || !y || !v) {
        rc = OOM;
    } else {
        if (x2)
            for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        rms_rows(x, g, b, p->rows, p->n, p->eps, ms, y);
        dyn_rows(y, s1, p->rows, p->n, v, sc);
        if (!add) {
            nm_store(v, nm_out(ex, 0));
            nm_store(sc, nm_out(ex, 1));
        } else {
            nm_store(v, nm_out(ex, 0));
            nm_store(sc, nm_out(ex, 3));
            nm_store(x, nm_out(ex, 2));
            if (s1 && s2) { /* y2Out / scale2Out only mean something with both smooth scales */
                dyn_rows(y, s2, p->rows, p->n, v, sc);
                nm_store(v, nm_out(ex, 1));
                nm_store(sc, nm_out(ex, 4));
            }
        }
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(b), free(ms), free(sc), free(y), free(v);
    return rc;
}

/* RmsNormDynamicQuant has no op_api source: the generated first phase (NULL 161001, the docs' dtype combinations
 * 161002, the tiling's shape rules 561002) */
static const aclDataType k_dq_rows[] = {F16, F16, F16, F16, I8, F32, B16, B16, B16, B16, I8, F32};

aclnnStatus opws_RmsNormDynamicQuant(const aclTensor *x, const aclTensor *gamma, const aclTensor *smoothScalesOptional,
                                     const aclTensor *betaOptional, double epsilon, int64_t dstType,
                                     const aclTensor *yOut, const aclTensor *scaleOut, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    if (smoothScalesOptional) NN(smoothScalesOptional, "smoothScalesOptional");
    if (betaOptional) NN(betaOptional, "betaOptional");
    NN(yOut, "yOut");
    NN(scaleOut, "scaleOut");
    const aclTensor *ts[] = {x, gamma, smoothScalesOptional, betaOptional, yOut, scaleOut};
    const char *names[] = {"x", "gamma", "smoothScalesOptional", "betaOptional", "yOut", "scaleOut"};
    ACL_TRY(nm_combo(k_dq_rows, 2, 6, ts, names));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(dstType == 2, T, "dstType should be 2 (INT8), but is %lld.", (long long)dstType);
    ACLNN_CHECK(x->ndim >= 2 && x->ndim <= 8, T, "x should have 2 to 8 dims, but has %llu.",
                (unsigned long long)x->ndim);
    const int64_t n = x->dims[x->ndim - 1];
    const aclTensor *vec[] = {gamma, smoothScalesOptional, betaOptional};
    for (int i = 0; i < 3; i++)
        if (vec[i])
            ACLNN_CHECK(vec[i]->ndim == 1 && vec[i]->dims[0] == n, T, "%s should be [%lld] (x's last dim).",
                        names[i == 0 ? 1 : i + 1], (long long)n);
    if (nm_same_shape(yOut, "yOut", x, "x")) return ACL_REPORT(T, "the shape of yOut should be the shape of x.");
    const int64_t rows = nm_prod(x, 0, x->ndim - 1);
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "x has more elements than int64 holds.");
    ACLNN_CHECK(acl_tensor_numel(scaleOut) == rows, T, "scaleOut should hold %lld values (one per row), but holds %lld.",
                (long long)rows, (long long)acl_tensor_numel(scaleOut));
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_RmsNormDynamicQuant, workspaceSize, executor);
    const aclTensor *outs[] = {yOut, scaleOut};
    const char *outn[] = {"yOut", "scaleOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_RmsNormDynamicQuant, dq_run, sizeof(rq_params), ts, names, 4, outs, outn, 2, workspaceSize,
                    executor, &pp));
    rq_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->div = false;
    return ACLNN_SUCCESS;
}

static const aclDataType k_dq_x[] = {ACL_FLOAT16, ACL_BF16};
/* the docs' A2 rows: x1, x2, gamma, smooth1, smooth2, y1Out, y2Out, xOut, scale1Out, scale2Out */
static const aclDataType k_adq_rows[] = {F16, F16, F16, F16, F16, I8, I8, F16, F32, F32,
                                         B16, B16, B16, B16, B16, I8, I8, B16, F32, F32};

aclnnStatus opws_AddRmsNormDynamicQuant(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                        const aclTensor *smoothScale1Optional, const aclTensor *smoothScale2Optional,
                                        double epsilon, aclTensor *y1Out, aclTensor *y2Out, aclTensor *xOut,
                                        aclTensor *scale1Out, aclTensor *scale2Out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor) {
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(y1Out, "y1Out");
    NN(y2Out, "y2Out");
    NN(xOut, "xOut");
    NN(scale1Out, "scale1Out");
    NN(scale2Out, "scale2Out");
    if (smoothScale1Optional) NN(smoothScale1Optional, "smoothScale1Optional");
    if (smoothScale2Optional) NN(smoothScale2Optional, "smoothScale2Optional");
    ACL_TRY(acl_check_dtype_in(x1, k_dq_x, 2, "x1"));
    ACL_TRY(acl_check_dtype_in(x2, k_dq_x, 2, "x2"));
    ACL_TRY(acl_check_dtype_in(gamma, k_dq_x, 2, "gamma"));
    if (smoothScale1Optional) ACL_TRY(acl_check_dtype_in(smoothScale1Optional, k_dq_x, 2, "smoothScale1Optional"));
    if (smoothScale2Optional) ACL_TRY(acl_check_dtype_in(smoothScale2Optional, k_dq_x, 2, "smoothScale2Optional"));
    ACL_TRY(acl_check_dtype_in(y1Out, k_arq_y, 4, "y1Out"));
    ACL_TRY(acl_check_dtype_in(y2Out, k_arq_y, 4, "y2Out"));
    ACL_TRY(acl_check_same_dtype(y1Out, "y1Out", y2Out, "y2Out"));
    ACL_TRY(acl_check_dtype_in(xOut, k_dq_x, 2, "xOut"));
    ACL_TRY(nm_dtype_is(scale1Out, ACL_FLOAT, "scale1Out"));
    ACL_TRY(nm_dtype_is(scale2Out, ACL_FLOAT, "scale2Out"));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    if (nm_same_shape(x2, "x2", x1, "x1")) return ACL_REPORT(T, "x1 and x2 shape mismatch (x2).");
    ACLNN_CHECK(gamma->ndim == 1, T, "gamma should have 1 dim, but has %llu.", (unsigned long long)gamma->ndim);
    ACLNN_CHECK(x1->ndim >= 1 && x1->dims[x1->ndim - 1] == gamma->dims[0], T,
                "gamma (%lld) should equal the last dim of x1.", (long long)gamma->dims[0]);
    if (smoothScale1Optional && nm_same_shape(smoothScale1Optional, "smoothScale1Optional", gamma, "gamma"))
        return ACL_REPORT(T, "the shape of smoothScale1Optional should be gamma's.");
    if (smoothScale2Optional && nm_same_shape(smoothScale2Optional, "smoothScale2Optional", gamma, "gamma"))
        return ACL_REPORT(T, "the shape of smoothScale2Optional should be gamma's.");
    if (acl_tensor_empty(x1) || acl_tensor_empty(gamma) || acl_tensor_empty(y2Out))
        return acl_exec_noop(ACL_OP_AddRmsNormDynamicQuant, workspaceSize, executor);
    const aclTensor *ts[] = {x1, x2, gamma, smoothScale1Optional, smoothScale2Optional, y1Out, y2Out, xOut,
                             scale1Out, scale2Out};
    const char *names[] = {"x1", "x2", "gamma", "smoothScale1Optional", "smoothScale2Optional", "y1Out", "y2Out",
                           "xOut", "scale1Out", "scale2Out"};
    ACL_TRY(nm_combo(k_adq_rows, 2, 10, ts, names)); /* the A2 kernel's combinations */
    /* the kernel's output shapes (the copy-out of the l0 results) */
    const int64_t n = gamma->dims[0], rows = nm_prod(x1, 0, x1->ndim - 1);
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    for (int i = 5; i < 8; i++)
        if (nm_same_shape(ts[i], names[i], x1, "x1"))
            return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "the shape of %s should be the shape of x1.", names[i]);
    if (acl_tensor_numel(scale1Out) != rows || acl_tensor_numel(scale2Out) != rows)
        return ACL_REPORT(ACLNN_ERR_INNER_NULLPTR, "scale1Out and scale2Out should hold %lld values (one per row).",
                          (long long)rows);
    const aclTensor *outs[] = {y1Out, y2Out, xOut, scale1Out, scale2Out};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormDynamicQuant, dq_run, sizeof(rq_params), ts, names, 5, outs, names + 5, 5,
                    workspaceSize, executor, &pp));
    rq_params *p = pp;
    p->rows = rows;
    p->n = n;
    p->eps = epsilon;
    p->div = true;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ AddRmsNormDynamicQuantV2
 * + betaOptional, outputMask (which of y1/scale1, y2/scale2 are produced), y of INT32 = int4 packed (scale / 7).
 * inputs x1, x2, gamma, smooth1, smooth2, beta; outputs y1Out, y2Out, xOut, scale1Out, scale2Out */

typedef struct { rq_params q; bool out1, out2; } dq2_params;

static aclnnStatus dq2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const dq2_params *p = ex->params;
    const int64_t rows = p->q.rows, n = p->q.n, total = rows * n;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *x2 = nm_load(nm_in(ex, 1), &oom), *g = nm_load(nm_in(ex, 2), &oom);
    double *s1 = nm_load(nm_in(ex, 3), &oom), *s2 = nm_load(nm_in(ex, 4), &oom), *b = nm_load(nm_in(ex, 5), &oom);
    double *ms = malloc(sizeof(double) * (size_t)(rows > 0 ? rows : 1));
    double *sc = malloc(sizeof(double) * (size_t)(rows > 0 ? rows : 1));
    double *y = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    double *v = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !ms || !sc || !y || !v) {
        rc = OOM;
    } else {
        for (int64_t i = 0; i < total; i++) x[i] += x2[i];
        rms_rows(x, g, b, rows, n, p->q.eps, ms, y);
        for (int k = 0; k < 2; k++) {
            if (!(k == 0 ? p->out1 : p->out2)) continue;
            dyn_rows_q(y, k == 0 ? s1 : s2, rows, n, v, sc, p->q.qmax);
            if (p->q.pack4) pack_int4(v, total);
            nm_store(v, nm_out(ex, k));
            nm_store(sc, nm_out(ex, 3 + k));
        }
        nm_store(x, nm_out(ex, 2));
    }
    free(x), free(x2), free(g), free(s1), free(s2), free(b), free(ms), free(sc), free(y), free(v);
    return rc;
}

static aclnnStatus packed_last(const aclTensor *y, int64_t xl, const char *name) {
    const int64_t yl = y->ndim ? y->dims[y->ndim - 1] : 1;
    ACLNN_CHECK(xl == yl * 8, ACLNN_ERR_PARAM_INVALID,
                "%s of INT32 holds packed int4: its last dim (%lld) should be 1/8 of x1's (%lld).", name,
                (long long)yl, (long long)xl);
    return ACLNN_SUCCESS;
}

static const aclDataType k_dq2_y[] = {ACL_INT8, ACL_INT32};

aclnnStatus opws_AddRmsNormDynamicQuantV2(const aclTensor *x1, const aclTensor *x2, const aclTensor *gamma,
                                          const aclTensor *smoothScale1Optional,
                                          const aclTensor *smoothScale2Optional, const aclTensor *betaOptional,
                                          double epsilon, const aclBoolArray *outputMask, aclTensor *y1Out,
                                          aclTensor *y2Out, aclTensor *xOut, aclTensor *scale1Out,
                                          aclTensor *scale2Out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const int P = ACLNN_ERR_PARAM_INVALID, T = ACLNN_ERR_INNER_TILING_ERROR;
    bool m0 = true, m1 = smoothScale1Optional && smoothScale2Optional;
    if (outputMask) {
        ACLNN_CHECK(outputMask->size == 2, P, "the length of outputMask should be 2, but is %llu.",
                    (unsigned long long)outputMask->size);
        m0 = outputMask->v[0];
        m1 = outputMask->v[1];
        ACLNN_CHECK(!(smoothScale1Optional && !m0), P, "smoothScale1Optional is given but outputMask[0] is false.");
        ACLNN_CHECK(!(smoothScale2Optional && !m1), P, "smoothScale2Optional is given but outputMask[1] is false.");
        ACLNN_CHECK(m0 || m1, P, "outputMask[0] and outputMask[1] should not both be false.");
    } else {
        ACLNN_CHECK(!(smoothScale2Optional && !smoothScale1Optional), P,
                    "without outputMask, smoothScale2Optional needs smoothScale1Optional.");
    }
    NN(x1, "x1");
    NN(x2, "x2");
    NN(gamma, "gamma");
    NN(xOut, "xOut");
    if (m0) {
        NN(y1Out, "y1Out");
        NN(scale1Out, "scale1Out");
    }
    if (m1) {
        NN(y2Out, "y2Out");
        NN(scale2Out, "scale2Out");
    }
    const aclTensor *optin[] = {smoothScale1Optional, smoothScale2Optional, betaOptional};
    const char *optn[] = {"smoothScale1Optional", "smoothScale2Optional", "betaOptional"};
    for (int i = 0; i < 3; i++)
        if (optin[i]) NN(optin[i], optn[i]);
    const aclTensor *unused[] = {m0 ? NULL : y1Out, m1 ? NULL : y2Out, m0 ? NULL : scale1Out, m1 ? NULL : scale2Out};
    const char *unusedn[] = {"y1Out", "y2Out", "scale1Out", "scale2Out"};
    for (int i = 0; i < 4; i++)
        if (unused[i]) NN(unused[i], unusedn[i]);
    if (acl_tensor_empty(x1) || acl_tensor_empty(x2) || acl_tensor_empty(gamma) || (y2Out && acl_tensor_empty(y2Out)))
        return acl_exec_noop(ACL_OP_AddRmsNormDynamicQuantV2, workspaceSize, executor);
    if (m0 && m1) ACL_TRY(acl_check_same_dtype(y2Out, "y2Out", y1Out, "y1Out"));
    const aclTensor *yq = m0 ? y1Out : y2Out;
    const char *yqn = m0 ? "y1Out" : "y2Out";
    ACL_TRY(acl_check_dtype_in(yq, k_dq2_y, 2, yqn));
    const bool pack = yq->dtype == ACL_INT32;
    const int64_t xl = x1->ndim ? x1->dims[x1->ndim - 1] : 1;
    if (pack) {
        if (m0) ACL_TRY(packed_last(y1Out, xl, "y1Out"));
        if (m1) ACL_TRY(packed_last(y2Out, xl, "y2Out"));
    } else {
        if (m0 && nm_same_shape(y1Out, "y1Out", x1, "x1")) return ACL_REPORT(T, "y1Out's shape should be x1's.");
        if (m1 && nm_same_shape(y2Out, "y2Out", x1, "x1")) return ACL_REPORT(T, "y2Out's shape should be x1's.");
    }
    /* the A2 kernel's dtypes: x1, x2, gamma, the smooth scales, beta and xOut one of FLOAT16 / BFLOAT16, scales FLOAT */
    ACL_TRY(acl_check_dtype_in(x1, k_dq_x, 2, "x1"));
    ACL_TRY(acl_check_same_dtype(x2, "x2", x1, "x1"));
    ACL_TRY(acl_check_same_dtype(gamma, "gamma", x1, "x1"));
    for (int i = 0; i < 3; i++)
        if (optin[i]) ACL_TRY(acl_check_same_dtype(optin[i], optn[i], x1, "x1"));
    ACL_TRY(acl_check_same_dtype(xOut, "xOut", x1, "x1"));
    if (m0) ACL_TRY(nm_dtype_is(scale1Out, ACL_FLOAT, "scale1Out"));
    if (m1) ACL_TRY(nm_dtype_is(scale2Out, ACL_FLOAT, "scale2Out"));
    /* the kernel's shapes */
    ACLNN_CHECK(x1->ndim >= 1 && x1->ndim <= 8, T, "x1 should have 1 to 8 dims, but has %llu.",
                (unsigned long long)x1->ndim);
    if (nm_same_shape(x2, "x2", x1, "x1")) return ACL_REPORT(T, "the shape of x2 should be x1's.");
    if (nm_same_shape(xOut, "xOut", x1, "x1")) return ACL_REPORT(T, "the shape of xOut should be x1's.");
    ACLNN_CHECK(gamma->ndim == 1 && gamma->dims[0] == xl, T, "gamma should be [%lld] (x1's last dim).", (long long)xl);
    for (int i = 0; i < 3; i++)
        if (optin[i] && nm_same_shape(optin[i], optn[i], gamma, "gamma"))
            return ACL_REPORT(T, "the shape of %s should be gamma's.", optn[i]);
    if (pack) ACLNN_CHECK(xl % 8 == 0, T, "x1's last dim (%lld) should be a multiple of 8 for int4.", (long long)xl);
    const int64_t rows = nm_prod(x1, 0, x1->ndim - 1);
    ACLNN_CHECK(acl_tensor_numel(x1) >= 0, T, "x1 has more elements than int64 holds.");
    if (m0)
        ACLNN_CHECK(acl_tensor_numel(scale1Out) == rows, T, "scale1Out should hold %lld values (one per row).",
                    (long long)rows);
    if (m1)
        ACLNN_CHECK(acl_tensor_numel(scale2Out) == rows, T, "scale2Out should hold %lld values (one per row).",
                    (long long)rows);
    const aclTensor *ins[] = {x1, x2, gamma, smoothScale1Optional, smoothScale2Optional, betaOptional};
    const char *inn[] = {"x1", "x2", "gamma", "smoothScale1Optional", "smoothScale2Optional", "betaOptional"};
    const aclTensor *outs[] = {m0 ? y1Out : NULL, m1 ? y2Out : NULL, xOut, m0 ? scale1Out : NULL,
                               m1 ? scale2Out : NULL};
    const char *outn[] = {"y1Out", "y2Out", "xOut", "scale1Out", "scale2Out"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_AddRmsNormDynamicQuantV2, dq2_run, sizeof(dq2_params), ins, inn, 6, outs, outn, 5,
                    workspaceSize, executor, &pp));
    dq2_params *p = pp;
    p->q.rows = rows;
    p->q.n = xl;
    p->q.eps = epsilon;
    p->q.pack4 = pack;
    p->q.qmax = pack ? 7 : 127;
    p->out1 = m0;
    p->out2 = m1;
    return ACLNN_SUCCESS;
}
