/* aclnnGroupNormSiluQuant (ops-nn norm/group_norm_silu_quant): a group norm of self (N, C, *) in `group` groups,
 *   y = (x - mean[n, g]) * rstd[n, g] * gamma[c] + beta[c]  (gamma/beta NULL: 1/0; rstd = 1 / sqrt(Var + eps), biased)
 * then SiLU and the static quantisation of the docs: out = round_half_even(silu(y) / quantScale) as INT8 (quantScale
 * [1] or one per channel [C]); meanOut/rstdOut [N, group] in self's dtype. The shared group-norm kernels
 * (kernels/norm.h) in float64, each output rounded once. Validation in the order of op_api
 * aclnn_group_norm_silu_quant.cpp: NULLs (161001), dtypes, shapes, then the attributes (group, N, C, eps,
 * activateSilu true, C divisible by group), all 161002. An empty self (a zero spatial size) fills meanOut with 0 and
 * rstdOut with NaN, as the op_api does. Serial per (n, g) and per element: the same bytes for any thread count. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"
#include "ops/norm_quant.h"

typedef struct { nm_io io; int64_t N, C, S, G; double eps; bool per_channel; } gsq_params;

/* in: self, gamma, beta, quantScale; out: out, meanOut, rstdOut */
static aclnnStatus gsq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gsq_params *p = ex->params;
    const int64_t total = p->N * p->C * p->S;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *qs = nm_load(nm_in(ex, 3), &oom);
    double *mean = malloc(sizeof(double) * (size_t)(p->N * p->G)), *rstd = malloc(sizeof(double) * (size_t)(p->N * p->G));
    double *y = malloc(sizeof(double) * (size_t)total);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !rstd || !y || nk_group_stats(x, p->N, p->C, p->S, p->G, p->eps, mean, rstd)) {
        rc = OOM;
    } else {
        nk_group_affine(x, p->N, p->C, p->S, p->G, mean, rstd, g, b, y);
        for (int64_t i = 0; i < total; i++) {
            const double s = qs[p->per_channel ? (i / p->S) % p->C : 0];
            y[i] = y[i] / (1.0 + exp(-y[i])) / s;
        }
        if (nq_store(y, total, nm_out(ex, 0))) rc = OOM;
        nm_store(mean, nm_out(ex, 1));
        nm_store(rstd, nm_out(ex, 2));
    }
    free(x), free(g), free(b), free(qs), free(mean), free(rstd), free(y);
    return rc;
}

static aclnnStatus gsq_same(const aclTensor *t, aclDataType dt, const char *name, const char *what) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s (%s).", name,
                acl_dtype_name(t->dtype), acl_dtype_name(dt), what);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GroupNormSiluQuant(const aclTensor *self, const aclTensor *gamma, const aclTensor *beta,
                                    const aclTensor *quantScale, int64_t group, double eps, bool activateSilu,
                                    aclTensor *out, aclTensor *meanOut, aclTensor *rstdOut, uint64_t *workspaceSize,
                                    aclOpExecutor **executor) {
    NN(self, "self");
    NN(quantScale, "quantScale");
    NN(out, "out");
    NN(meanOut, "meanOut");
    NN(rstdOut, "rstdOut");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_GroupNormSiluQuant, "self"));
    if (gamma) ACL_TRY(acl_check_dtype_in(gamma, ACL_DT_LIST_GroupNormSiluQuant, "gamma"));
    if (beta) ACL_TRY(acl_check_dtype_in(beta, ACL_DT_LIST_GroupNormSiluQuant, "beta"));
    ACL_TRY(gsq_same(quantScale, ACL_FLOAT, "quantScale", "FLOAT"));
    if (gamma && beta) {
        ACL_TRY(gsq_same(gamma, self->dtype, "gamma", "self's"));
        ACL_TRY(gsq_same(gamma, beta->dtype, "gamma", "beta's"));
    }
    ACL_TRY(gsq_same(out, ACL_INT8, "out", "INT8"));
    ACL_TRY(gsq_same(meanOut, self->dtype, "meanOut", "self's"));
    ACL_TRY(gsq_same(rstdOut, self->dtype, "rstdOut", "self's"));
    ACL_TRY(nm_group_silu_shapes(self, gamma, beta, group, out, meanOut, rstdOut));
    const int64_t N = self->dims[0], C = self->dims[1];
    ACLNN_CHECK(quantScale->ndim == 1 && (quantScale->dims[0] == 1 || quantScale->dims[0] == C),
                ACLNN_ERR_PARAM_INVALID, "quantScale should be a vector of 1 or the %lld channels of self.",
                (long long)C);
    ACLNN_CHECK(group > 0, ACLNN_ERR_PARAM_INVALID, "group should be greater than 0, but got %lld.", (long long)group);
    ACLNN_CHECK(N > 0, ACLNN_ERR_PARAM_INVALID, "N (self dim 0) should be greater than 0, but got %lld.", (long long)N);
    ACLNN_CHECK(C > 0, ACLNN_ERR_PARAM_INVALID, "C (self dim 1) should be greater than 0, but got %lld.", (long long)C);
    ACLNN_CHECK(eps > 0.0, ACLNN_ERR_PARAM_INVALID, "eps should be greater than 0, but got %g.", eps);
    ACLNN_CHECK(activateSilu, ACLNN_ERR_PARAM_INVALID, "activateSilu should be true.");
    ACLNN_CHECK(C % group == 0, ACLNN_ERR_PARAM_INVALID, "C (%lld) of self should be divisible by group (%lld).",
                (long long)C, (long long)group);
    if (acl_tensor_empty(self)) {
        aclTensor *outs[] = {meanOut, rstdOut};
        const char *outn[] = {"meanOut", "rstdOut"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(ACL_OP_GroupNormSiluQuant, outs, outn, vals, 2, workspaceSize, executor);
    }
    const aclTensor *ins[] = {self, gamma, beta, quantScale}, *outs[] = {out, meanOut, rstdOut};
    const char *inn[] = {"self", "gamma", "beta", "quantScale"}, *outn[] = {"out", "meanOut", "rstdOut"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_GroupNormSiluQuant, gsq_run, sizeof(gsq_params), ins, inn, 4, outs, outn, 3,
                    workspaceSize, executor, &pp));
    gsq_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = nm_prod(self, 2, self->ndim);
    p->G = group;
    p->eps = eps;
    p->per_channel = quantScale->dims[0] == C && C > 1;
    return ACLNN_SUCCESS;
}
