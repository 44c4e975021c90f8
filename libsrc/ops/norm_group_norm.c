/* aclnnGroupNorm (ops-nn norm/group_norm) and aclnnGroupNormBackward (norm/group_norm_grad).
 *
 * self viewed as (N, C, HxW), G = group groups of C / G channels; per (n, g) over C / G * HxW elements:
 *   mean, rstd = 1 / sqrt(Var + eps) (biased);  out = (x - mean) * rstd * gamma[c] + beta[c]
 *   meanOut / rstdOut: [N, group].
 * Backward with the given mean / rstd:
 *   gradInput = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gradOut * gamma[c], xhat = (x - mean) * rstd
 *   gradGammaOut[c] = sum_{n, hw} gradOut * xhat,  gradBetaOut[c] = sum_{n, hw} gradOut
 * (each channel owned by one iteration, summed over n in increasing order).
 * GroupNormSilu / V2 (norm/group_norm_silu) and GroupNormSwish (norm/group_norm_swish) apply
 * out = z * sigmoid(scale * z) to the group norm z (scale 1 for SiLU; V2 / Swish only when asked);
 * GroupNormSwishGrad (norm/group_norm_swish_grad) back-propagates dy through the swish (z recomputed from x, mean,
 * rstd, gamma, beta) and then through the group norm. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT};
#define K_DT k_dt, ACL_COUNT_OF(k_dt)

typedef struct { nm_io io; int64_t N, C, S, G; double eps, scale; bool act; } gn_params;

static aclnnStatus gn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gn_params *p = ex->params;
    bool oom = false;
    nm_fb x, y;
    const int64_t ng = p->N * p->G;
    float *g = nm_loadf(nm_in(ex, 1), &oom), *b = nm_loadf(nm_in(ex, 2), &oom);
    float *mean = malloc(sizeof(float) * (size_t)ng), *rstd = malloc(sizeof(float) * (size_t)ng);
    oom |= !nm_fin(nm_in(ex, 0), &x);
    oom |= !nm_fout(nm_out(ex, 0), &y);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd ||
        nf_group_fwd(x.b, p->N, p->C, p->S, p->G, g, b, p->eps, p->act, p->scale, y.b, mean, rstd))
        rc = OOM;
    else if (!nm_storef(mean, ng, nm_out(ex, 1)) || !nm_storef(rstd, ng, nm_out(ex, 2)))
        rc = OOM;
    nm_fdone(&x, false);
    if (!nm_fdone(&y, !rc)) rc = OOM;
    free(g), free(b), free(mean), free(rstd);
    return rc;
}

static aclnnStatus dt_match(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GroupNorm(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t N, int64_t C,
                           int64_t HxW, int64_t group, double eps, aclTensor *out, aclTensor *meanOut,
                           aclTensor *rstdOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    ACL_TRY(acl_check_dtype_in(self, K_DT, "self"));
    if (gamma) ACL_TRY(dt_match(gamma, self->dtype, "gamma"));
    if (beta) ACL_TRY(dt_match(beta, self->dtype, "beta"));
    ACL_TRY(dt_match(out, self->dtype, "out"));
    ACL_TRY(dt_match(meanOut, self->dtype, "meanOut"));
    ACL_TRY(dt_match(rstdOut, self->dtype, "rstdOut"));
    ACLNN_CHECK(group > 0, ACLNN_ERR_PARAM_INVALID, "group should be greater than 0, but got %lld.", (long long)group);
    ACLNN_CHECK(C % group == 0, ACLNN_ERR_PARAM_INVALID, "C (%lld) should be divisible by group (%lld).",
                (long long)C, (long long)group);
    ACLNN_CHECK(eps > 0.0, ACLNN_ERR_PARAM_INVALID, "eps should be greater than 0, but got %g.", eps);
    ACL_TRY(nm_min_dim(self, 2, "self"));
    ACL_TRY(nm_max_dim(self, 8, "self"));
    ACL_TRY(nm_same_shape(out, "out", self, "self"));
    const int64_t mv[2] = {N, group};
    ACL_TRY(nm_shape_is(meanOut, mv, 2, "meanOut"));
    ACL_TRY(nm_shape_is(rstdOut, mv, 2, "rstdOut"));
    ACLNN_CHECK(self->dims[0] == N, ACLNN_ERR_PARAM_INVALID, "self dim 0 (%lld) should equal N (%lld).",
                (long long)self->dims[0], (long long)N);
    ACLNN_CHECK(self->dims[1] == C, ACLNN_ERR_PARAM_INVALID, "self dim 1 (%lld) should equal C (%lld).",
                (long long)self->dims[1], (long long)C);
    ACLNN_CHECK(nm_prod(self, 2, self->ndim) == HxW, ACLNN_ERR_PARAM_INVALID,
                "the size of self outside its N and C dims should equal HxW (%lld).", (long long)HxW);
    ACLNN_CHECK(acl_tensor_numel(self) >= 0, ACLNN_ERR_PARAM_INVALID, "self has more elements than int64 holds.");
    if (gamma)
        ACLNN_CHECK(gamma->ndim == 1 && gamma->dims[0] == C, ACLNN_ERR_PARAM_INVALID,
                    "gamma should be a vector of C (%lld) elements.", (long long)C);
    if (beta)
        ACLNN_CHECK(beta->ndim == 1 && beta->dims[0] == C, ACLNN_ERR_PARAM_INVALID,
                    "beta should be a vector of C (%lld) elements.", (long long)C);
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "the format of self (%s) and out (%s) should be equal.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACLNN_CHECK(!acl_format_is_private(self->format) && self->format != ACL_FORMAT_NHWC &&
                    self->format != ACL_FORMAT_HWCN && self->format != ACL_FORMAT_NDHWC,
                ACLNN_ERR_PARAM_INVALID, "the format of self should be ND, NCL, NCHW or NCDHW, not %s.",
                acl_format_name(self->format));
    if (acl_tensor_empty(self)) { /* upstream: meanOut 0, rstdOut NaN */
        aclTensor *outs[] = {meanOut, rstdOut};
        const char *outn[] = {"meanOut", "rstdOut"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(ACL_OP_GroupNorm, outs, outn, vals, 2, workspaceSize, executor);
    }
    const aclTensor *ins[] = {self, gamma, beta}, *outs[] = {out, meanOut, rstdOut};
    const char *inn[] = {"self", "gamma", "beta"}, *outn[] = {"out", "meanOut", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_GroupNorm, gn_run, sizeof(gn_params), ins, inn, 3, outs, outn, 3, workspaceSize, executor,
                    &pp));
    gn_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = HxW;
    p->G = group;
    p->eps = eps;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ backward */

static aclnnStatus gnb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gn_params *p = ex->params;
    bool oom = false;
    nm_fb dy, x, dx;
    float *mean = nm_loadf(nm_in(ex, 2), &oom), *rstd = nm_loadf(nm_in(ex, 3), &oom), *g = nm_loadf(nm_in(ex, 4), &oom);
    const acl_view *vdg = nm_out(ex, 1), *vdb = nm_out(ex, 2);
    double *dg = vdg ? malloc(sizeof(double) * (size_t)p->C) : NULL;
    double *db = vdb ? malloc(sizeof(double) * (size_t)p->C) : NULL;
    oom |= !nm_fin(nm_in(ex, 0), &dy);
    oom |= !nm_fin(nm_in(ex, 1), &x);
    oom |= !nm_fout(nm_out(ex, 0), &dx);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || (vdg && !dg) || (vdb && !db) ||
        nf_group_bwd(dy.b, x.b, p->N, p->C, p->S, p->G, mean, rstd, g, dx.b, dg, db)) {
        rc = OOM;
    } else {
        nm_store(dg, vdg);
        nm_store(db, vdb);
    }
    nm_fdone(&dy, false);
    nm_fdone(&x, false);
    if (!nm_fdone(&dx, !rc)) rc = OOM;
    free(mean), free(rstd), free(g), free(dg), free(db);
    return rc;
}

aclnnStatus opws_GroupNormBackward(const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean,
                                   const aclTensor *rstd, const aclTensor *gamma, int64_t N, int64_t C, int64_t HxW,
                                   int64_t group, const aclBoolArray *outputMask, aclTensor *gradInput,
                                   aclTensor *gradGammaOut, aclTensor *gradBetaOut, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    NN(gradOut, "gradOut");
    NN(input, "input");
    NN(mean, "mean");
    NN(rstd, "rstd");
    /* upstream reports the mask group (NULL mask or outputs included) as 161002 */
    const int I = ACLNN_ERR_PARAM_INVALID;
    ACLNN_CHECK(outputMask != NULL, I, "outputMask must not be NULL.");
    ACLNN_CHECK(outputMask->size == 3, I, "outputMask length should be 3, but got %llu.",
                (unsigned long long)outputMask->size);
    const bool m0 = outputMask->v[0], m1 = outputMask->v[1], m2 = outputMask->v[2];
    ACLNN_CHECK(!m0 || gradInput, I, "gradInput must not be NULL when outputMask[0] is true.");
    ACLNN_CHECK(!m1 || gradGammaOut, I, "gradGammaOut must not be NULL when outputMask[1] is true.");
    ACLNN_CHECK(!m2 || gradBetaOut, I, "gradBetaOut must not be NULL when outputMask[2] is true.");
    ACL_TRY(acl_check_dtype_in(gradOut, K_DT, "gradOut"));
    ACL_TRY(dt_match(input, gradOut->dtype, "input"));
    ACL_TRY(dt_match(mean, gradOut->dtype, "mean"));
    ACL_TRY(dt_match(rstd, gradOut->dtype, "rstd"));
    if (gamma) ACL_TRY(dt_match(gamma, gradOut->dtype, "gamma"));
    if (m0) ACL_TRY(dt_match(gradInput, gradOut->dtype, "gradInput"));
    if (m1) ACL_TRY(dt_match(gradGammaOut, gradOut->dtype, "gradGammaOut"));
    if (m2) ACL_TRY(dt_match(gradBetaOut, gradOut->dtype, "gradBetaOut"));
    ACLNN_CHECK(group > 0, I, "group should be greater than 0, but got %lld.", (long long)group);
    ACLNN_CHECK(C % group == 0, I, "C (%lld) should be divisible by group (%lld).", (long long)C, (long long)group);
    ACLNN_CHECK(C / group <= 8000, I, "C / group should not exceed 8000, but got %lld.", (long long)(C / group));
    ACLNN_CHECK(C <= 240000, I, "C should not exceed 240000, but got %lld.", (long long)C);
    ACL_TRY(nm_max_dim(gradOut, 8, "gradOut"));
    int64_t tot = 0, ng = 0;
    ACLNN_CHECK(!__builtin_mul_overflow(N, C, &tot) && !__builtin_mul_overflow(tot, HxW, &tot) &&
                    !__builtin_mul_overflow(N, group, &ng),
                I, "N * C * HxW overflows int64.");
    ACLNN_CHECK(acl_tensor_numel(gradOut) == tot, I, "gradOut should have N * C * HxW elements.");
    ACLNN_CHECK(acl_tensor_numel(input) == tot, I, "input should have N * C * HxW elements.");
    ACLNN_CHECK(acl_tensor_numel(mean) == ng, I, "mean should have N * group elements.");
    ACLNN_CHECK(acl_tensor_numel(rstd) == ng, I, "rstd should have N * group elements.");
    if (gamma) ACLNN_CHECK(acl_tensor_numel(gamma) == C, I, "gamma should have C (%lld) elements.", (long long)C);
    if (m0) ACL_TRY(nm_same_shape(gradInput, "gradInput", input, "input"));
    if (m1) ACL_TRY(gamma ? nm_same_shape(gradGammaOut, "gradGammaOut", gamma, "gamma")
                          : nm_shape_is(gradGammaOut, &C, 1, "gradGammaOut"));
    if (m2) ACL_TRY(gamma ? nm_same_shape(gradBetaOut, "gradBetaOut", gamma, "gamma")
                          : nm_shape_is(gradBetaOut, &C, 1, "gradBetaOut"));
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(input))
        return acl_exec_noop(ACL_OP_GroupNormBackward, workspaceSize, executor);
    const aclTensor *ins[] = {gradOut, input, mean, rstd, gamma};
    const char *inn[] = {"gradOut", "input", "mean", "rstd", "gamma"};
    const aclTensor *outs[] = {m0 ? gradInput : NULL, m1 ? gradGammaOut : NULL, m2 ? gradBetaOut : NULL};
    const char *outn[] = {"gradInput", "gradGammaOut", "gradBetaOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_GroupNormBackward, gnb_run, sizeof(gn_params), ins, inn, 5, outs, outn, 3, workspaceSize,
                    executor, &pp));
    gn_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = HxW;
    p->G = group;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ GroupNormSilu / V2 */

aclnnStatus nm_group_silu_shapes(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t group,
                                 const aclTensor *out, const aclTensor *meanOut, const aclTensor *rstdOut) {
    ACL_TRY(nm_min_dim(self, 2, "self"));
    ACL_TRY(nm_max_dim(self, 8, "self"));
    ACL_TRY(nm_same_shape(out, "out", self, "self"));
    const int64_t N = self->dims[0], C = self->dims[1];
    const int64_t mv[2] = {N, group};
    ACL_TRY(nm_shape_is(meanOut, mv, 2, "meanOut"));
    ACL_TRY(nm_shape_is(rstdOut, mv, 2, "rstdOut"));
    if (gamma)
        ACLNN_CHECK(gamma->ndim == 1 && gamma->dims[0] == C, ACLNN_ERR_PARAM_INVALID,
                    "gamma should be a vector of the %lld channels of self.", (long long)C);
    if (beta)
        ACLNN_CHECK(beta->ndim == 1 && beta->dims[0] == C, ACLNN_ERR_PARAM_INVALID,
                    "beta should be a vector of the %lld channels of self.", (long long)C);
    return ACLNN_SUCCESS;
}

static aclnnStatus silu_ws(int op, const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t group,
                           double eps, bool act, aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    ACL_TRY(acl_check_dtype_in(self, K_DT, "self"));
    if (gamma) ACL_TRY(acl_check_dtype_in(gamma, K_DT, "gamma"));
    if (beta) ACL_TRY(acl_check_dtype_in(beta, K_DT, "beta"));
    if (gamma && beta) {
        ACL_TRY(dt_match(gamma, beta->dtype, "gamma"));
        ACLNN_CHECK(gamma->dtype == self->dtype || gamma->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                    "the dtype of gamma should be the same as self or FLOAT.");
    }
    ACL_TRY(dt_match(out, self->dtype, "out"));
    ACL_TRY(dt_match(meanOut, self->dtype, "meanOut"));
    ACL_TRY(dt_match(rstdOut, self->dtype, "rstdOut"));
    if (self->dtype == ACL_FLOAT && gamma) ACL_TRY(dt_match(gamma, ACL_FLOAT, "gamma"));
    if (self->dtype == ACL_FLOAT && beta) ACL_TRY(dt_match(beta, ACL_FLOAT, "beta"));
    ACL_TRY(nm_group_silu_shapes(self, gamma, beta, group, out, meanOut, rstdOut));
    const int64_t N = self->dims[0], C = self->dims[1];
    ACLNN_CHECK(group > 0, ACLNN_ERR_PARAM_INVALID, "group should be greater than 0, but got %lld.", (long long)group);
    ACLNN_CHECK(N > 0, ACLNN_ERR_PARAM_INVALID, "N (self dim 0) should be greater than 0, but got %lld.", (long long)N);
    ACLNN_CHECK(C > 0, ACLNN_ERR_PARAM_INVALID, "C (self dim 1) should be greater than 0, but got %lld.", (long long)C);
    ACLNN_CHECK(eps > 0.0, ACLNN_ERR_PARAM_INVALID, "eps should be greater than 0, but got %g.", eps);
    ACLNN_CHECK(C % group == 0, ACLNN_ERR_PARAM_INVALID, "C (%lld) should be divisible by group (%lld).", (long long)C,
                (long long)group);
    ACLNN_CHECK(acl_tensor_numel(self) >= 0, ACLNN_ERR_PARAM_INVALID, "self has more elements than int64 holds.");
    if (acl_tensor_empty(self)) {
        aclTensor *outs[] = {meanOut, rstdOut};
        const char *outn[] = {"meanOut", "rstdOut"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(op, outs, outn, vals, 2, workspaceSize, executor);
    }
    const aclTensor *ins[] = {self, gamma, beta}, *outs[] = {out, meanOut, rstdOut};
    const char *inn[] = {"self", "gamma", "beta"}, *outn[] = {"out", "meanOut", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(op, gn_run, sizeof(gn_params), ins, inn, 3, outs, outn, 3, workspaceSize, executor, &pp));
    gn_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = nm_prod(self, 2, self->ndim);
    p->G = group;
    p->eps = eps;
    p->act = act;
    p->scale = 1.0;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GroupNormSilu(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t group,
                               double eps, aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    return silu_ws(ACL_OP_GroupNormSilu, self, gamma, beta, group, eps, true, out, meanOut, rstdOut, workspaceSize,
                   executor);
}

aclnnStatus opws_GroupNormSiluV2(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta, int64_t group,
                                 double eps, bool activateSilu, aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    return silu_ws(ACL_OP_GroupNormSiluV2, self, gamma, beta, group, eps, activateSilu, out, meanOut, rstdOut,
                   workspaceSize, executor);
}

/* ------------------------------------------------------------------ GroupNormSwish / GroupNormSwishGrad
 * no op_api source upstream: the generated first phase (NULL 161001, dtype rules 161002, shape rules 561002) */

static aclnnStatus swish_shapes(const aclTensor *x, const char *xn, int64_t group, int64_t *N, int64_t *C, int64_t *S) {
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(x->ndim >= 2 && x->ndim <= 8, T, "%s should have 2 to 8 dims, but has %llu.", xn,
                (unsigned long long)x->ndim);
    ACLNN_CHECK(x->dims[0] > 0 && x->dims[1] > 0, T, "%s dims 0 and 1 (N, C) should be greater than 0.", xn);
    ACLNN_CHECK(group > 0, T, "numGroups should be greater than 0, but got %lld.", (long long)group);
    ACLNN_CHECK(x->dims[1] % group == 0, T, "C (%lld) should be divisible by numGroups (%lld).",
                (long long)x->dims[1], (long long)group);
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, T, "%s has more elements than int64 holds.", xn);
    *N = x->dims[0];
    *C = x->dims[1];
    *S = nm_prod(x, 2, x->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus numel_t(const aclTensor *t, int64_t n, const char *name) {
    ACLNN_CHECK(acl_tensor_numel(t) == n, ACLNN_ERR_INNER_TILING_ERROR, "%s should have %lld elements, but has %lld.",
                name, (long long)n, (long long)acl_tensor_numel(t));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GroupNormSwish(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta, int64_t numGroups,
                                char *dataFormatOptional, double eps, bool activateSwish, double swishScale,
                                const aclTensor *yOut, const aclTensor *meanOut, const aclTensor *rstdOut,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(yOut, "yOut");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    ACL_TRY(acl_check_dtype_in(x, K_DT, "x"));
    ACL_TRY(acl_check_dtype_in(gamma, K_DT, "gamma"));
    ACLNN_CHECK(gamma->dtype == x->dtype || gamma->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                "gamma dtype %s should be the dtype of x or FLOAT.", acl_dtype_name(gamma->dtype));
    ACL_TRY(dt_match(beta, gamma->dtype, "beta"));
    ACL_TRY(dt_match(yOut, x->dtype, "yOut"));
    ACL_TRY(dt_match(meanOut, gamma->dtype, "meanOut"));
    ACL_TRY(dt_match(rstdOut, gamma->dtype, "rstdOut"));
    if (acl_tensor_empty(yOut) && acl_tensor_empty(meanOut) && acl_tensor_empty(rstdOut))
        return acl_exec_noop(ACL_OP_GroupNormSwish, workspaceSize, executor);
    int64_t N, C, S;
    ACL_TRY(swish_shapes(x, "x", numGroups, &N, &C, &S));
    ACL_TRY(numel_t(gamma, C, "gamma"));
    ACL_TRY(numel_t(beta, C, "beta"));
    if (nm_same_shape(yOut, "yOut", x, "x"))
        return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "the shape of yOut should be the shape of x.");
    ACL_TRY(numel_t(meanOut, N * numGroups, "meanOut"));
    ACL_TRY(numel_t(rstdOut, N * numGroups, "rstdOut"));
    (void)dataFormatOptional;
    const aclTensor *ins[] = {x, gamma, beta}, *outs[] = {yOut, meanOut, rstdOut};
    const char *inn[] = {"x", "gamma", "beta"}, *outn[] = {"yOut", "meanOut", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_GroupNormSwish, gn_run, sizeof(gn_params), ins, inn, 3, outs, outn, 3, workspaceSize,
                    executor, &pp));
    gn_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = S;
    p->G = numGroups;
    p->eps = eps;
    p->act = activateSwish;
    p->scale = swishScale;
    return ACLNN_SUCCESS;
}

/* in: dy, mean, rstd, x, gamma, beta; out: dx, dgamma, dbeta */
static aclnnStatus swg_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gn_params *p = ex->params;
    const int64_t N = p->N, C = p->C, S = p->S, cg = C / p->G;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *mean = nm_load(nm_in(ex, 1), &oom), *rstd = nm_load(nm_in(ex, 2), &oom);
    double *x = nm_load(nm_in(ex, 3), &oom), *g = nm_load(nm_in(ex, 4), &oom), *b = nm_load(nm_in(ex, 5), &oom);
    const acl_view *vdx = nm_out(ex, 0), *vdg = nm_out(ex, 1), *vdb = nm_out(ex, 2);
    double *dx = malloc(sizeof(double) * (size_t)(N * C * S));
    double *dg = malloc(sizeof(double) * (size_t)C), *db = malloc(sizeof(double) * (size_t)C);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !dx || !dg || !db) {
        rc = OOM;
    } else {
        /* dy through the swish of z = xhat * gamma + beta */
        for (int64_t i = 0; i < N * C * S; i++) {
            const int64_t bc = i / S, c = bc % C, ng = (bc / C) * p->G + c / cg;
            const double z = (x[i] - mean[ng]) * rstd[ng] * g[c] + b[c];
            const double s = 1.0 / (1.0 + exp(-p->scale * z));
            dy[i] *= s * (1.0 + p->scale * z * (1.0 - s));
        }
        if (nk_group_backward(dy, x, N, C, S, p->G, mean, rstd, g, dx, dg, db)) rc = OOM;
    }
    if (!rc) {
        nm_store(dx, vdx);
        nm_store(dg, vdg);
        nm_store(db, vdb);
    }
    free(dy), free(mean), free(rstd), free(x), free(g), free(b), free(dx), free(dg), free(db);
    return rc;
}

aclnnStatus opws_GroupNormSwishGrad(const aclTensor *dy, const aclTensor *mean, const aclTensor *rstd,
                                    const aclTensor *x, const aclTensor *gamma, const aclTensor *beta,
                                    int64_t numGroups, char *dataFormatOptional, double swishScale,
                                    bool dgammaIsRequire, bool dbetaIsRequire, const aclTensor *dxOut,
                                    const aclTensor *dgammaOut, const aclTensor *dbetaOut, uint64_t *workspaceSize,
                                    aclOpExecutor **executor) {
    NN(dy, "dy");
    NN(mean, "mean");
    NN(rstd, "rstd");
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(dxOut, "dxOut");
    NN(dgammaOut, "dgammaOut");
    NN(dbetaOut, "dbetaOut");
    ACL_TRY(acl_check_dtype_in(dy, K_DT, "dy"));
    ACL_TRY(dt_match(mean, dy->dtype, "mean"));
    ACL_TRY(dt_match(rstd, dy->dtype, "rstd"));
    ACL_TRY(dt_match(x, dy->dtype, "x"));
    ACL_TRY(dt_match(gamma, dy->dtype, "gamma"));
    ACL_TRY(dt_match(beta, dy->dtype, "beta"));
    ACL_TRY(dt_match(dxOut, dy->dtype, "dxOut"));
    ACL_TRY(dt_match(dgammaOut, dy->dtype, "dgammaOut"));
    ACL_TRY(dt_match(dbetaOut, dy->dtype, "dbetaOut"));
    if (acl_tensor_empty(dxOut) && acl_tensor_empty(dgammaOut) && acl_tensor_empty(dbetaOut))
        return acl_exec_noop(ACL_OP_GroupNormSwishGrad, workspaceSize, executor);
    int64_t N, C, S;
    ACL_TRY(swish_shapes(dy, "dy", numGroups, &N, &C, &S));
    ACLNN_CHECK(C / numGroups <= 4000, ACLNN_ERR_INNER_TILING_ERROR, "C / numGroups should not exceed 4000.");
    ACL_TRY(numel_t(mean, N * numGroups, "mean"));
    ACL_TRY(numel_t(rstd, N * numGroups, "rstd"));
    ACL_TRY(numel_t(x, N * C * S, "x"));
    ACL_TRY(numel_t(gamma, C, "gamma"));
    ACL_TRY(numel_t(beta, C, "beta"));
    ACL_TRY(numel_t(dxOut, N * C * S, "dxOut"));
    if (dgammaIsRequire) ACL_TRY(numel_t(dgammaOut, C, "dgammaOut"));
    if (dbetaIsRequire) ACL_TRY(numel_t(dbetaOut, C, "dbetaOut"));
    (void)dataFormatOptional;
    const aclTensor *ins[] = {dy, mean, rstd, x, gamma, beta};
    const aclTensor *outs[] = {dxOut, dgammaIsRequire ? dgammaOut : NULL, dbetaIsRequire ? dbetaOut : NULL};
    const char *inn[] = {"dy", "mean", "rstd", "x", "gamma", "beta"}, *outn[] = {"dxOut", "dgammaOut", "dbetaOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_GroupNormSwishGrad, swg_run, sizeof(gn_params), ins, inn, 6, outs, outn, 3, workspaceSize,
                    executor, &pp));
    gn_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = S;
    p->G = numGroups;
    p->scale = swishScale;
    return ACLNN_SUCCESS;
}
