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
        if (p->pack4) { /* eight int4 values per INT32 word, element 0 in bits 0-3 */
            for (int64_t w = 0; w < total / 8; w++) {
                uint32_t u = 0;
                for (int k = 0; k < 8; k++) u |= ((uint32_t)((int32_t)y[w * 8 + k]) & 0xFu) << (4 * k);
                y[w] = (double)(int32_t)u;
            }
        }
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
