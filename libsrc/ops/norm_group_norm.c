/* aclnnGroupNorm (ops-nn norm/group_norm) and aclnnGroupNormBackward (norm/group_norm_grad).
 *
 * self viewed as (N, C, HxW), G = group groups of C / G channels; per (n, g) over C / G * HxW elements:
 *   mean, rstd = 1 / sqrt(Var + eps) (biased);  out = (x - mean) * rstd * gamma[c] + beta[c]
 *   meanOut / rstdOut: [N, group].
 * Backward with the given mean / rstd:
 *   gradInput = rstd * (g - mean(g) - xhat * mean(g * xhat)), g = gradOut * gamma[c], xhat = (x - mean) * rstd
 *   gradGammaOut[c] = sum_{n, hw} gradOut * xhat,  gradBetaOut[c] = sum_{n, hw} gradOut
 * (each channel owned by one iteration, summed over n in increasing order). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT16, ACL_BF16, ACL_FLOAT};
#define K_DT k_dt, ACL_COUNT_OF(k_dt)

typedef struct { nm_io io; int64_t N, C, S, G; double eps; } gn_params;

static aclnnStatus gn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gn_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *mean = malloc(sizeof(double) * (size_t)(p->N * p->G)), *rstd = malloc(sizeof(double) * (size_t)(p->N * p->G));
    double *y = malloc(sizeof(double) * (size_t)(p->N * p->C * p->S));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y) {
        rc = OOM;
    } else {
        nk_group_stats(x, p->N, p->C, p->S, p->G, p->eps, mean, rstd);
        nk_group_affine(x, p->N, p->C, p->S, p->G, mean, rstd, g, b, y);
        nm_store(y, nm_out(ex, 0));
        nm_store(mean, nm_out(ex, 1));
        nm_store(rstd, nm_out(ex, 2));
    }
    free(x), free(g), free(b), free(mean), free(rstd), free(y);
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
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom);
    double *mean = nm_load(nm_in(ex, 2), &oom), *rstd = nm_load(nm_in(ex, 3), &oom), *g = nm_load(nm_in(ex, 4), &oom);
    const acl_view *vdx = nm_out(ex, 0), *vdg = nm_out(ex, 1), *vdb = nm_out(ex, 2);
    double *dx = vdx ? malloc(sizeof(double) * (size_t)(p->N * p->C * p->S)) : NULL;
    double *dg = vdg ? malloc(sizeof(double) * (size_t)p->C) : NULL;
    double *db = vdb ? malloc(sizeof(double) * (size_t)p->C) : NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || (vdx && !dx) || (vdg && !dg) || (vdb && !db)) {
        rc = OOM;
    } else {
        nk_group_backward(dy, x, p->N, p->C, p->S, p->G, mean, rstd, g, dx, dg, db);
        nm_store(dx, vdx);
        nm_store(dg, vdg);
        nm_store(db, vdb);
    }
    free(dy), free(x), free(mean), free(rstd), free(g), free(dx), free(dg), free(db);
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
    const int64_t tot = N * C * HxW; /* C <= 240000; N and HxW are checked against real numels below */
    ACLNN_CHECK(N >= 0 && HxW >= 0 && C >= 0, I, "N, C and HxW should not be negative.");
    ACLNN_CHECK(acl_tensor_numel(gradOut) == tot, I, "gradOut should have N * C * HxW elements.");
    ACLNN_CHECK(acl_tensor_numel(input) == tot, I, "input should have N * C * HxW elements.");
    ACLNN_CHECK(acl_tensor_numel(mean) == N * group, I, "mean should have N * group elements.");
    ACLNN_CHECK(acl_tensor_numel(rstd) == N * group, I, "rstd should have N * group elements.");
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
