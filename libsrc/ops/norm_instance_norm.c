/* aclnnInstanceNorm (ops-nn norm/instance_norm_v3): x is 4-D, NCHW or NHWC as dataFormat says; per (n, c) over
 * the H * W elements: mean = E[x], variance = Var[x] (biased), y = (x - mean) / sqrt(variance + eps) * gamma[c] +
 * beta[c]; mean / variance hold the N * C values in (n, c) order ([N, C, 1, 1] or [N, 1, 1, C]).
 * Upstream's op_api accepts only the Atlas inference series (Ascend310P) and its dtypes FLOAT / FLOAT16; the
 * emulator runs the op on every platform with those dtypes instead of returning its platform error. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16};

typedef struct { nm_io io; int64_t N, C, S; double eps; bool nhwc; } in_params;

static aclnnStatus in_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const in_params *p = ex->params;
    const int64_t N = p->N, C = p->C, S = p->S;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *g = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *mean = malloc(sizeof(double) * (size_t)(N * C)), *var = malloc(sizeof(double) * (size_t)(N * C));
    double *y = malloc(sizeof(double) * (size_t)(N * C * S));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !var || !y) {
        rc = OOM;
    } else {
        /* element (n, c, s) at (n * C + c) * S + s (NCHW) or (n * S + s) * C + c (NHWC) */
        const int64_t es = p->nhwc ? C : 1;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(N * C * S))
        for (int64_t nc = 0; nc < N * C; nc++) {
            const int64_t n = nc / C, c = nc % C;
            const double *xr = p->nhwc ? x + n * S * C + c : x + nc * S;
            double *yr = p->nhwc ? y + n * S * C + c : y + nc * S;
            const double m = nk_sum(xr, NULL, S, es, 0, NK_X) / (double)S;
            const double v = nk_sum(xr, NULL, S, es, m, NK_SQDEV) / (double)S;
            const double k = g[c] / sqrt(v + p->eps);
            mean[nc] = m;
            var[nc] = v;
            for (int64_t s = 0; s < S; s++) yr[s * es] = (xr[s * es] - m) * k + b[c];
        }
        nm_store(y, nm_out(ex, 0));
        nm_store(mean, nm_out(ex, 1));
        nm_store(var, nm_out(ex, 2));
    }
    free(x), free(g), free(b), free(mean), free(var), free(y);
    return rc;
}

static aclnnStatus dt_match(const aclTensor *t, aclDataType dt, const char *name) {
    ACLNN_CHECK(t->dtype == dt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", name, acl_dtype_name(t->dtype),
                acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_InstanceNorm(const aclTensor *x, const aclTensor *gamma, const aclTensor *beta, const char *dataFormat,
                              double eps, aclTensor *y, aclTensor *mean, aclTensor *variance, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    NN(x, "x");
    NN(gamma, "gamma");
    NN(beta, "beta");
    NN(y, "y");
    NN(mean, "mean");
    NN(variance, "variance");
    ACLNN_CHECK(dataFormat != NULL, ACLNN_ERR_PARAM_NULLPTR, "dataFormat must not be NULL.");
    const bool nhwc = strncmp(dataFormat, "NHWC", 4) == 0;
    ACLNN_CHECK(nhwc || strncmp(dataFormat, "NCHW", 4) == 0, ACLNN_ERR_PARAM_INVALID,
                "dataFormat should be NHWC or NCHW, but got %.16s.", dataFormat);
    ACL_TRY(acl_check_dtype_in(x, k_dt, ACL_COUNT_OF(k_dt), "x"));
    ACL_TRY(dt_match(gamma, x->dtype, "gamma"));
    ACL_TRY(dt_match(beta, x->dtype, "beta"));
    ACL_TRY(dt_match(y, x->dtype, "y"));
    ACL_TRY(dt_match(mean, x->dtype, "mean"));
    ACL_TRY(dt_match(variance, x->dtype, "variance"));
    ACL_TRY(nm_max_dim(x, 8, "x"));
    ACLNN_CHECK(x->ndim == 4 && gamma->ndim == 1 && beta->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                "x should have 4 dims and gamma, beta 1 dim (x %llu, gamma %llu, beta %llu).",
                (unsigned long long)x->ndim, (unsigned long long)gamma->ndim, (unsigned long long)beta->ndim);
    const int64_t C = nhwc ? x->dims[3] : x->dims[1];
    ACLNN_CHECK(gamma->dims[0] == C, ACLNN_ERR_PARAM_INVALID, "gamma dim 0 (%lld) should equal x's C axis (%lld).",
                (long long)gamma->dims[0], (long long)C);
    if (acl_tensor_empty(x) || acl_tensor_empty(gamma) || acl_tensor_empty(beta) || acl_tensor_empty(y) ||
        acl_tensor_empty(mean) || acl_tensor_empty(variance))
        return acl_exec_noop(ACL_OP_InstanceNorm, workspaceSize, executor);
    /* what the kernel writes (upstream's view copies need these) */
    ACL_TRY(nm_numel_is(beta, C, "beta"));
    ACL_TRY(nm_same_shape(y, "y", x, "x"));
    const int64_t N = x->dims[0], S = nhwc ? x->dims[1] * x->dims[2] : x->dims[2] * x->dims[3];
    ACLNN_CHECK(acl_tensor_numel(x) >= 0, ACLNN_ERR_PARAM_INVALID, "x has more elements than int64 holds.");
    ACL_TRY(nm_numel_is(mean, N * C, "mean"));
    ACL_TRY(nm_numel_is(variance, N * C, "variance"));
    const aclTensor *ins[] = {x, gamma, beta}, *outs[] = {y, mean, variance};
    const char *inn[] = {"x", "gamma", "beta"}, *outn[] = {"y", "mean", "variance"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_InstanceNorm, in_run, sizeof(in_params), ins, inn, 3, outs, outn, 3, workspaceSize,
                    executor, &pp));
    in_params *p = pp;
    p->N = N;
    p->C = C;
    p->S = S;
    p->eps = eps;
    p->nhwc = nhwc;
    return ACLNN_SUCCESS;
}
