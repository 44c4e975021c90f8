/* aclnnBatchNorm (ops-nn norm/batch_norm_v3) and aclnnBatchNormBackward (norm/batch_norm_grad_v3).
 *
 * input (N, C, *) with S = prod(dims[2:]), statistics per channel c over the N * S elements:
 *   training:  mean, var (biased); saveMean = mean, saveInvstd = 1 / sqrt(var + eps);
 *              output = (x - mean) * saveInvstd * weight + bias;
 *              runningMean = (1 - momentum) * runningMean + momentum * mean,
 *              runningVar = (1 - momentum) * runningVar + momentum * var * M / (M - 1)   (M = N * S)
 *   inference: output = (x - runningMean) / sqrt(runningVar + eps) * weight + bias
 *   missing weight / bias / runningMean / runningVar are 1 / 0 / 0 / 1.
 * Backward (sums per channel in a fixed order, each channel owned by one iteration):
 *   training (mean = saveMean, invstd = saveInvstd; missing: 0 / 1):
 *     gradInput = weight * invstd * (dy - sum(dy) / M - (x - mean) * invstd^2 * sum(dy * (x - mean)) / M)
 *   inference (mean = runningMean, invstd = 1 / sqrt(runningVar + eps)): gradInput = dy * weight * invstd
 *   gradWeight = sum(dy * (x - mean)) * invstd, gradBias = sum(dy). */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
#define K_DT k_dt, ACL_COUNT_OF(k_dt)

typedef struct { nm_io io; int64_t N, C, S; double momentum, eps; bool training; } bn_params;

static double *const_buf(int64_t n, double v) {
    double *p = malloc(sizeof(double) * (size_t)(n > 0 ? n : 1));
    if (p)
        for (int64_t i = 0; i < n; i++) p[i] = v;
    return p;
}

/* in: input, weight, bias, runningMean, runningVar; out: output, saveMean, saveInvstd, runningMean, runningVar */
static aclnnStatus bn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const bn_params *p = ex->params;
    const int64_t N = p->N, C = p->C, S = p->S;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *w = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *rm = nm_load(nm_in(ex, 3), &oom), *rv = nm_load(nm_in(ex, 4), &oom);
    double *mean = malloc(sizeof(double) * (size_t)C), *var = malloc(sizeof(double) * (size_t)C);
    double *y = malloc(sizeof(double) * (size_t)(N * C * S));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !mean || !var || !y) {
        rc = OOM;
        goto done;
    }
    if (p->training) {
        nk_channel_moments(x, N, C, S, mean, var);
        const double M = (double)N * (double)S;
        for (int64_t c = 0; c < C; c++) {
            const double unbiased = var[c] * M / (M - 1.0);
            var[c] = 1.0 / sqrt(var[c] + p->eps); /* now the invstd */
            if (rm) rm[c] = (1.0 - p->momentum) * rm[c] + p->momentum * mean[c];
            if (rv) rv[c] = (1.0 - p->momentum) * rv[c] + p->momentum * unbiased;
        }
        nk_channel_affine(x, N, C, S, mean, var, w, b, y);
        nm_store(y, nm_out(ex, 0));
        nm_store(mean, nm_out(ex, 1));
        nm_store(var, nm_out(ex, 2));
        nm_store(rm, nm_out(ex, 3));
        nm_store(rv, nm_out(ex, 4));
    } else {
        for (int64_t c = 0; c < C; c++) {
            mean[c] = rm ? rm[c] : 0.0;
            var[c] = 1.0 / sqrt((rv ? rv[c] : 1.0) + p->eps);
        }
        nk_channel_affine(x, N, C, S, mean, var, w, b, y);
        nm_store(y, nm_out(ex, 0));
    }
done:
    free(x), free(w), free(b), free(rm), free(rv), free(mean), free(var), free(y);
    return rc;
}

static aclnnStatus vec_c(const aclTensor *t, int64_t C, const char *name) {
    if (t)
        ACLNN_CHECK(t->ndim == 1 && t->dims[0] == C, ACLNN_ERR_PARAM_INVALID,
                    "%s should be 1-D with the channel count %lld of input.", name, (long long)C);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_BatchNorm(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                           aclTensor *runningMean, aclTensor *runningVar, bool training, double momentum, double eps,
                           aclTensor *output, aclTensor *saveMean, aclTensor *saveInvstd, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    NN(input, "input");
    NN(output, "output");
    if (training) {
        NN(saveMean, "saveMean");
        NN(saveInvstd, "saveInvstd");
    }
    if (acl_tensor_empty(input)) { /* upstream: saveMean filled with 0, saveInvstd with NaN (when given) */
        aclTensor *outs[] = {saveMean, saveInvstd};
        const char *outn[] = {"saveMean", "saveInvstd"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(ACL_OP_BatchNorm, outs, outn, vals, 2, workspaceSize, executor);
    }
    ACL_TRY(acl_check_dtype_in(input, K_DT, "input"));
    ACL_TRY(acl_check_dtype_in(output, K_DT, "output"));
    if (training) {
        ACL_TRY(acl_check_dtype_in(saveMean, K_DT, "saveMean"));
        ACL_TRY(acl_check_dtype_in(saveInvstd, K_DT, "saveInvstd"));
    }
    if (weight) ACL_TRY(acl_check_dtype_in(weight, K_DT, "weight"));
    if (bias) ACL_TRY(acl_check_dtype_in(bias, K_DT, "bias"));
    if (runningMean) ACL_TRY(acl_check_dtype_in(runningMean, K_DT, "runningMean"));
    if (runningVar) ACL_TRY(acl_check_dtype_in(runningVar, K_DT, "runningVar"));
    ACLNN_CHECK(input->format == output->format, ACLNN_ERR_PARAM_INVALID,
                "the format of input (%s) and output (%s) should be equal.", acl_format_name(input->format),
                acl_format_name(output->format));
    ACLNN_CHECK(input->ndim != 5 || input->format == ACL_FORMAT_NCDHW, ACLNN_ERR_PARAM_INVALID,
                "the format of input should be NCDHW when input has 5 dims.");
    ACLNN_CHECK(output->ndim != 5 || output->format == ACL_FORMAT_NCDHW, ACLNN_ERR_PARAM_INVALID,
                "the format of output should be NCDHW when output has 5 dims.");
    ACLNN_CHECK(!acl_format_is_private(input->format), ACLNN_ERR_PARAM_INVALID,
                "the format of input should be ND, NCL, NCHW or NCDHW.");
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_max_dim(output, 8, "output"));
    ACL_TRY(nm_min_dim(output, 2, "output"));
    ACL_TRY(nm_same_shape(output, "output", input, "input"));
    const int64_t C = input->dims[1];
    ACL_TRY(vec_c(weight, C, "weight"));
    ACL_TRY(vec_c(bias, C, "bias"));
    ACL_TRY(vec_c(runningMean, C, "runningMean"));
    ACL_TRY(vec_c(runningVar, C, "runningVar"));
    if (training) {
        ACL_TRY(nm_shape_is(saveMean, &C, 1, "saveMean"));
        ACL_TRY(nm_shape_is(saveInvstd, &C, 1, "saveInvstd"));
    }
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    const aclTensor *ins[] = {input, weight, bias, runningMean, runningVar};
    const char *inn[] = {"input", "weight", "bias", "runningMean", "runningVar"};
    const aclTensor *outs[] = {output, training ? saveMean : NULL, training ? saveInvstd : NULL,
                               training ? runningMean : NULL, training ? runningVar : NULL};
    const char *outn[] = {"output", "saveMean", "saveInvstd", "runningMean", "runningVar"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNorm, bn_run, sizeof(bn_params), ins, inn, 5, outs, outn, 5, workspaceSize, executor,
                    &pp));
    bn_params *p = pp;
    p->N = input->dims[0];
    p->C = C;
    p->S = nm_prod(input, 2, input->ndim);
    p->momentum = momentum;
    p->eps = eps;
    p->training = training;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ backward */

/* in: gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd; out: gradInput, gradWeight, gradBias */
static aclnnStatus bnb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const bn_params *p = ex->params;
    const int64_t N = p->N, C = p->C, S = p->S;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom), *w = nm_load(nm_in(ex, 2), &oom);
    double *mean = nm_load(nm_in(ex, p->training ? 5 : 3), &oom);
    double *sv = nm_load(nm_in(ex, p->training ? 6 : 4), &oom);
    double *sdy = malloc(sizeof(double) * (size_t)C), *sdyx = malloc(sizeof(double) * (size_t)C);
    const acl_view *vdx = nm_out(ex, 0), *vdw = nm_out(ex, 1), *vdb = nm_out(ex, 2);
    double *dx = vdx ? malloc(sizeof(double) * (size_t)(N * C * S)) : NULL;
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!mean) mean = const_buf(C, 0.0);
    if (!sv) sv = const_buf(C, 1.0);
    if (oom || !sdy || !sdyx || !mean || !sv || (vdx && !dx)) {
        rc = OOM;
        goto done;
    }
    if (!p->training)
        for (int64_t c = 0; c < C; c++) sv[c] = 1.0 / sqrt(sv[c] + p->eps); /* runningVar -> invstd */
    nk_channel_grad_sums(dy, x, N, C, S, mean, sdy, sdyx);
    if (dx) {
        const double M = (double)N * (double)S;
        ACL_FOR(acl_parallel_worth(N * C * S), bc, 0, N * C, {
            const int64_t c = bc % C;
            const double is = sv[c], k = is * (w ? w[c] : 1.0), m = mean[c];
            for (int64_t s = 0; s < S; s++) {
                const int64_t i = bc * S + s;
                dx[i] = p->training ? k * (dy[i] - sdy[c] / M - (x[i] - m) * is * is * sdyx[c] / M) : k * dy[i];
            }
        });
        nm_store(dx, vdx);
    }
    for (int64_t c = 0; c < C; c++) sdyx[c] *= sv[c];
    nm_store(sdyx, vdw);
    nm_store(sdy, vdb);
done:
    free(dy), free(x), free(w), free(mean), free(sv), free(sdy), free(sdyx), free(dx);
    return rc;
}

static aclnnStatus bnb_ws(int op, const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight,
                          const aclTensor *runningMean, const aclTensor *runningVar, const aclTensor *saveMean,
                          const aclTensor *saveInvstd, bool training, double eps, const aclBoolArray *outputMask,
                          aclTensor *gradInput, aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
                          aclOpExecutor **executor) {
    NN(gradOut, "gradOut");
    NN(input, "input");
    if (acl_tensor_empty(input) || acl_tensor_empty(gradOut))
        return acl_exec_noop(op, workspaceSize, executor);
    ACLNN_CHECK(outputMask != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputMask must not be NULL.");
    /* upstream reports a short mask through its NULL-check group (161001) */
    ACLNN_CHECK(outputMask->size >= 1, ACLNN_ERR_PARAM_NULLPTR, "outputMask size should not be less than 1.");
    /* entries past the mask's end are taken as false (upstream reads past a mask shorter than 3) */
    const bool m0 = outputMask->v[0], m1 = outputMask->size > 1 && outputMask->v[1],
               m2 = outputMask->size > 2 && outputMask->v[2];
    if (m0) NN(gradInput, "gradInput");
    if (m1) NN(gradWeight, "gradWeight");
    if (m2) NN(gradBias, "gradBias");
    ACL_TRY(acl_check_dtype_in(gradOut, K_DT, "gradOut"));
    ACL_TRY(acl_check_dtype_in(input, K_DT, "input"));
    ACL_TRY(acl_check_same_dtype(input, "input", gradOut, "gradOut"));
    if (m0) ACL_TRY(acl_check_dtype_in(gradInput, K_DT, "gradInput"));
    if (m1) ACL_TRY(acl_check_dtype_in(gradWeight, K_DT, "gradWeight"));
    if (m2) ACL_TRY(acl_check_dtype_in(gradBias, K_DT, "gradBias"));
    if (weight) ACL_TRY(acl_check_dtype_in(weight, K_DT, "weight"));
    if (runningMean) ACL_TRY(acl_check_dtype_in(runningMean, K_DT, "runningMean"));
    if (runningVar) ACL_TRY(acl_check_dtype_in(runningVar, K_DT, "runningVar"));
    if (saveMean) ACL_TRY(acl_check_dtype_in(saveMean, K_DT, "saveMean"));
    if (saveInvstd) ACL_TRY(acl_check_dtype_in(saveInvstd, K_DT, "saveInvstd"));
    ACLNN_CHECK(gradOut->format == input->format, ACLNN_ERR_PARAM_INVALID,
                "the format of gradOut (%s) and input (%s) should be equal.", acl_format_name(gradOut->format),
                acl_format_name(input->format));
    if (m0)
        ACLNN_CHECK(gradOut->format == gradInput->format, ACLNN_ERR_PARAM_INVALID,
                    "the format of gradOut (%s) and gradInput (%s) should be equal.",
                    acl_format_name(gradOut->format), acl_format_name(gradInput->format));
    ACLNN_CHECK(!acl_format_is_private(gradOut->format) && !acl_format_is_private(input->format),
                ACLNN_ERR_PARAM_INVALID, "the format of gradOut and input should be NC, NCL, NCHW or NCDHW.");
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_max_dim(gradOut, 8, "gradOut"));
    ACL_TRY(nm_min_dim(gradOut, 2, "gradOut"));
    ACL_TRY(nm_same_shape(gradOut, "gradOut", input, "input"));
    if (m0) {
        ACL_TRY(nm_max_dim(gradInput, 8, "gradInput"));
        ACL_TRY(nm_min_dim(gradInput, 2, "gradInput"));
        ACL_TRY(nm_same_shape(gradInput, "gradInput", gradOut, "gradOut"));
    }
    const int64_t C = input->dims[1];
    ACL_TRY(vec_c(weight, C, "weight"));
    ACL_TRY(vec_c(runningMean, C, "runningMean"));
    ACL_TRY(vec_c(runningVar, C, "runningVar"));
    /* what the kernel reads and writes per channel (upstream's l0 ops fail otherwise) */
    if (training) {
        if (saveMean) ACL_TRY(nm_numel_is(saveMean, C, "saveMean"));
        if (saveInvstd) ACL_TRY(nm_numel_is(saveInvstd, C, "saveInvstd"));
    }
    if (m1) ACL_TRY(nm_numel_is(gradWeight, C, "gradWeight"));
    if (m2) ACL_TRY(nm_numel_is(gradBias, C, "gradBias"));
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    if (!m0 && !m1 && !m2) return acl_exec_noop(op, workspaceSize, executor);
    const aclTensor *ins[] = {gradOut, input, weight, training ? NULL : runningMean, training ? NULL : runningVar,
                              training ? saveMean : NULL, training ? saveInvstd : NULL};
    const char *inn[] = {"gradOut", "input", "weight", "runningMean", "runningVar", "saveMean", "saveInvstd"};
    const aclTensor *outs[] = {m0 ? gradInput : NULL, m1 ? gradWeight : NULL, m2 ? gradBias : NULL};
    const char *outn[] = {"gradInput", "gradWeight", "gradBias"};
    void *pp;
    ACL_TRY(nm_exec(op, bnb_run, sizeof(bn_params), ins, inn, 7, outs, outn, 3, workspaceSize,
                    executor, &pp));
    bn_params *p = pp;
    p->N = input->dims[0];
    p->C = C;
    p->S = nm_prod(input, 2, input->ndim);
    p->eps = eps;
    p->training = training;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_BatchNormBackward(const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight,
                                   const aclTensor *runningMean, const aclTensor *runningVar, const aclTensor *saveMean,
                                   const aclTensor *saveInvstd, bool training, double eps,
                                   const aclBoolArray *outputMask, aclTensor *gradInput, aclTensor *gradWeight,
                                   aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bnb_ws(ACL_OP_BatchNormBackward, gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd,
                  training, eps, outputMask, gradInput, gradWeight, gradBias, workspaceSize, executor);
}

/* aclnnFastBatchNormBackward: the same checks and compute on A2 (version selects a kernel variant only) */
aclnnStatus opws_FastBatchNormBackward(const aclTensor *gradOut, const aclTensor *input, const aclTensor *weight,
                                       const aclTensor *runningMean, const aclTensor *runningVar,
                                       const aclTensor *saveMean, const aclTensor *saveInvstd, bool training,
                                       double eps, const aclBoolArray *outputMask, int version, aclTensor *gradInput,
                                       aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
                                       aclOpExecutor **executor) {
    (void)version;
    return bnb_ws(ACL_OP_FastBatchNormBackward, gradOut, input, weight, runningMean, runningVar, saveMean, saveInvstd,
                  training, eps, outputMask, gradInput, gradWeight, gradBias, workspaceSize, executor);
}
