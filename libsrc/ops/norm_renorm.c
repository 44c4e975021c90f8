/* aclnnRenorm / aclnnInplaceRenorm and aclnnEmbeddingRenorm (ops-nn norm/renorm).
 *
 * Renorm: each sub-tensor self.select(dim, i) whose p-norm (over all its elements) exceeds maxNorm is scaled by
 * maxNorm / (norm + 1e-7); others are kept (PyTorch's renorm). p = 0 counts the non-zeros, p = inf takes max |x|.
 * EmbeddingRenorm: the rows of the 2-D selfRef named by indices get the same treatment in place (p = normType,
 * dim 0 of the gathered rows; a repeated index renormalises its row once, from the original values). The norms are
 * float64 sums in a fixed order; p, maxNorm pass through float as upstream's ToFloat / static_cast do. Index values
 * are not validated (upstream's op_api does not): one outside [0, rows) is skipped, nothing outside selfRef is read. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_idx[] = {ACL_INT32, ACL_INT64};

typedef struct { nm_io io; int64_t outer, len, inner; double p, maxnorm; } rn_params;

static float scalar_float(const aclScalar *s) {
    float f = 0;
    acl_convert(s->bytes, s->dtype, 1, &f, ACL_FLOAT, 1, 1);
    return f;
}

/* p-norm of n values at stride s, in a fixed order (blocks of 64 combined serially) */
static double pnorm(const double *x, int64_t n, int64_t s, double p) {
    if (isinf(p)) {
        double m = 0;
        for (int64_t i = 0; i < n; i++) {
            const double a = fabs(x[i * s]);
            if (a > m || isnan(a)) m = a;
        }
        return m;
    }
    double acc = 0;
    for (int64_t b = 0; b < n; b += 64) {
        double blk = 0;
        const int64_t e = b + 64 < n ? b + 64 : n;
        for (int64_t i = b; i < e; i++) {
            const double a = fabs(x[i * s]);
            blk += p == 0 ? (a != 0) : p == 1 ? a : p == 2 ? a * a : pow(a, p);
        }
        acc += blk;
    }
    return p == 0 || p == 1 ? acc : p == 2 ? sqrt(acc) : pow(acc, 1.0 / p);
}

static double factor(double norm, double maxnorm) { return norm > maxnorm ? maxnorm / (norm + 1e-7) : 1.0; }

static aclnnStatus rn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rn_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom);
    double *f = malloc(sizeof(double) * (size_t)p->len);
    double *buf = malloc(sizeof(double) * (size_t)(p->outer * p->inner > 0 ? p->outer * p->inner : 1));
    if (oom || !f || !buf) {
        free(x), free(f), free(buf);
        return OOM;
    }
    /* slice i: elements (o, i, n) at (o * len + i) * inner + n, gathered in (o, n) order */
    for (int64_t i = 0; i < p->len; i++) {
        for (int64_t o = 0; o < p->outer; o++)
            for (int64_t n = 0; n < p->inner; n++) buf[o * p->inner + n] = x[(o * p->len + i) * p->inner + n];
        f[i] = factor(pnorm(buf, p->outer * p->inner, 1, p->p), p->maxnorm);
    }
    const int64_t total = p->outer * p->len * p->inner;
    for (int64_t k = 0; k < total; k++) x[k] *= f[(k / p->inner) % p->len];
    nm_store(x, nm_out(ex, 0));
    free(x), free(f), free(buf);
    return ACLNN_SUCCESS;
}

static aclnnStatus renorm_ws(int op, const aclTensor *self, const aclScalar *p, int64_t dim, const aclScalar *maxNorm,
                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    ACLNN_CHECK(p != NULL, ACLNN_ERR_PARAM_NULLPTR, "p must not be NULL.");
    ACLNN_CHECK(maxNorm != NULL, ACLNN_ERR_PARAM_NULLPTR, "maxNorm must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, k_dt, 3, "self"));
    ACL_TRY(acl_check_dtype_in(out, k_dt, 3, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "the format of self (%s) and out (%s) should be equal.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACL_TRY(nm_min_dim(self, 2, "self"));
    ACL_TRY(nm_min_dim(out, 2, "out"));
    ACL_TRY(nm_max_dim(self, 8, "self"));
    ACL_TRY(nm_max_dim(out, 8, "out"));
    ACL_TRY(nm_same_shape(self, "self", out, "out"));
    const float pf = scalar_float(p), mf = scalar_float(maxNorm);
    ACLNN_CHECK(!(pf < 0), ACLNN_ERR_PARAM_INVALID, "p should be non-negative, but got %f.", pf);
    const int64_t nd = (int64_t)self->ndim;
    ACLNN_CHECK(dim >= -nd && dim <= nd - 1, ACLNN_ERR_PARAM_INVALID, "dim should be in [%lld, %lld], but got %lld.",
                (long long)-nd, (long long)(nd - 1), (long long)dim);
    ACLNN_CHECK(!(mf < 0.0f), ACLNN_ERR_PARAM_INVALID, "maxNorm should not be negative, but got %f.", mf);
    ACLNN_CHECK(acl_tensor_numel(self) >= 0, ACLNN_ERR_PARAM_INVALID, "self has more elements than int64 holds.");
    if (acl_tensor_empty(self)) return acl_exec_noop(op, workspaceSize, executor);
    const int64_t d = dim < 0 ? dim + nd : dim;
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {op == ACL_OP_InplaceRenorm ? "selfRef" : "out"};
    void *pp;
    ACL_TRY(nm_exec(op, rn_run, sizeof(rn_params), ins, inn, 1, outs, outn, 1, workspaceSize, executor, &pp));
    rn_params *q = pp;
    q->outer = nm_prod(self, 0, (uint64_t)d);
    q->len = self->dims[d];
    q->inner = nm_prod(self, (uint64_t)d + 1, self->ndim);
    q->p = pf;
    q->maxnorm = mf;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Renorm(const aclTensor *self, const aclScalar *p, int64_t dim, const aclScalar *maxNorm,
                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return renorm_ws(ACL_OP_Renorm, self, p, dim, maxNorm, out, workspaceSize, executor);
}

aclnnStatus opws_InplaceRenorm(aclTensor *selfRef, const aclScalar *p, int64_t dim, const aclScalar *maxNorm,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    return renorm_ws(ACL_OP_InplaceRenorm, selfRef, p, dim, maxNorm, selfRef, workspaceSize, executor);
}

/* ------------------------------------------------------------------ EmbeddingRenorm */

static aclnnStatus er_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rn_params *p = ex->params;
    const int64_t rows = p->outer, D = p->inner, K = p->len;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom);
    int64_t *idx = dn_load_i64(nm_in(ex, 1));
    double *f = malloc(sizeof(double) * (size_t)(rows > 0 ? rows : 1));
    if (oom || !idx || !f) {
        free(x), free(idx), free(f);
        return OOM;
    }
    for (int64_t r = 0; r < rows; r++) f[r] = 1.0;
    for (int64_t k = 0; k < K; k++) /* an index outside [0, rows) (the device does not check them) is skipped */
        if (idx[k] >= 0 && idx[k] < rows) f[idx[k]] = factor(pnorm(x + idx[k] * D, D, 1, p->p), p->maxnorm);
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < D; j++) x[r * D + j] *= f[r];
    nm_store(x, nm_out(ex, 0));
    free(x), free(idx), free(f);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_EmbeddingRenorm(aclTensor *selfRef, const aclTensor *indices, double maxNorm, double normType,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    NN(indices, "indices");
    ACL_TRY(acl_check_dtype_in(selfRef, k_dt, 3, "selfRef"));
    ACL_TRY(acl_check_dtype_in(indices, k_idx, 2, "indices"));
    ACL_TRY(nm_dim_is(selfRef, 2, "selfRef"));
    ACL_TRY(nm_max_dim(indices, 8, "indices"));
    ACLNN_CHECK(selfRef->format != ACL_FORMAT_FRACTAL_NZ && indices->format != ACL_FORMAT_FRACTAL_NZ,
                ACLNN_ERR_PARAM_INVALID, "the format of selfRef and indices should be ND.");
    if (acl_tensor_empty(selfRef) || acl_tensor_empty(indices))
        return acl_exec_noop(ACL_OP_EmbeddingRenorm, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(indices) >= 0, ACLNN_ERR_PARAM_INVALID, "indices has too many elements.");
    const aclTensor *ins[] = {selfRef, indices}, *outs[] = {selfRef};
    const char *inn[] = {"selfRef", "indices"}, *outn[] = {"selfRef"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_EmbeddingRenorm, er_run, sizeof(rn_params), ins, inn, 2, outs, outn, 1, workspaceSize,
                    executor, &pp));
    rn_params *q = pp;
    q->outer = selfRef->dims[0];
    q->inner = selfRef->dims[1];
    q->len = acl_tensor_numel(indices);
    q->p = (float)normType;
    q->maxnorm = isnan(maxNorm) ? INFINITY : (double)(float)maxNorm;
    return ACLNN_SUCCESS;
}
