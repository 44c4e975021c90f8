/* The split (synchronised) batch norm steps of ops-nn norm/: aclnnBatchNormReduce (bn_training_reduce),
 * aclnnBatchNormGatherStatsWithCounts (sync_batch_norm_gather_stats_with_counts), aclnnSyncBatchNormGatherStats
 * (sync_batch_norm_gather_stats), aclnnBatchNormElemt (batch_norm_elemt), aclnnBatchNormReduceBackward
 * (sync_batch_norm_backward_reduce) and aclnnBatchNormElemtBackward (sync_batch_norm_backward_elemt).
 *
 *   Reduce:             sum[c] = sum x, squareSum[c] = sum x^2 over every dim but the channel (NCHW dim 1, NHWC 3)
 *   GatherStats:        batchMean = sum_w totalSum / sum_w count, batchVar = sum_w totalSquareSum / n - batchMean^2,
 *                       batchInvstd = 1 / sqrt(batchVar + eps); running stats updated with batchVar * n / (n - 1)
 *   GatherStatsWithCounts: per worker w mean_w, var_w = 1 / invstd_w^2 - eps, count_w; meanAll = sum count_w mean_w
 *                       / n, varAll = sum count_w (var_w + (mean_w - meanAll)^2) / n, invstdAll = 1/sqrt(varAll+eps);
 *                       running stats as GatherStats (PyTorch's batch_norm_gather_stats_with_counts)
 *   Elemt:              output = (x - mean[c]) * invstd[c] * weight[c] + bias[c]
 *   ReduceBackward:     sumDy = sum dy, sumDyXmu = sum dy * (x - mean), gradWeight = sumDyXmu * invstd,
 *                       gradBias = sumDy
 *   ElemtBackward:      gradInput = (dy - sumDy / n - (x - mean) * invstd^2 * sumDyXmu / n) * invstd * weight,
 *                       n = sum(counter)
 * Per-channel sums in float64, each channel owned by one iteration and summed in a fixed order. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/norm.h"
#include "ops/gen/all_ops.h"
#include "ops/norm_common.h"

static const aclDataType k_dt3[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16};
static const aclDataType k_dt2[] = {ACL_FLOAT, ACL_FLOAT16};
static const aclDataType k_cnt[] = {ACL_FLOAT, ACL_FLOAT16, ACL_INT32};
#define DT3 k_dt3, 3
#define DT2 k_dt2, 2

typedef struct { nm_io io; int64_t outer, C, inner, W; double momentum, eps; } sb_params;

static void split_c(const aclTensor *t, uint64_t cax, int64_t *outer, int64_t *C, int64_t *inner) {
    *outer = nm_prod(t, 0, cax);
    *C = t->dims[cax];
    *inner = nm_prod(t, cax + 1, t->ndim);
}

static double *zbuf(int64_t n) { return calloc((size_t)(n > 0 ? n : 1), sizeof(double)); }

static aclnnStatus vec_of(const aclTensor *t, int64_t C, const char *name) {
    return nm_shape_is(t, &C, 1, name);
}

/* ------------------------------------------------------------------ BatchNormReduce */

static aclnnStatus red_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sb_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *s = zbuf(p->C), *q = zbuf(p->C);
    if (oom || !s || !q) {
        free(x), free(s), free(q);
        return OOM;
    }
    ACL_FOR(acl_parallel_worth(p->outer * p->C * p->inner), c, 0, p->C, {
        double a = 0, b = 0;
        for (int64_t o = 0; o < p->outer; o++) {
            const double *r = x + (o * p->C + c) * p->inner;
            a += nk_sum(r, NULL, p->inner, 1, 0, NK_X);
            b += nk_sum(r, NULL, p->inner, 1, 0, NK_SQ);
        }
        s[c] = a;
        q[c] = b;
    });
    nm_store(s, nm_out(ex, 0));
    nm_store(q, nm_out(ex, 1));
    free(x), free(s), free(q);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_BatchNormReduce(const aclTensor *x, aclTensor *sum, aclTensor *squareSum, uint64_t *workspaceSize,
                                 aclOpExecutor **executor) {
    NN(x, "x");
    NN(sum, "sum");
    NN(squareSum, "squareSum");
    if (acl_tensor_empty(x) || acl_tensor_empty(sum) || acl_tensor_empty(squareSum)) {
        aclTensor *outs[] = {sum, squareSum};
        const char *outn[] = {"sum", "squareSum"};
        const double vals[] = {0.0, 0.0};
        return nm_fill_exec(ACL_OP_BatchNormReduce, outs, outn, vals, 2, workspaceSize, executor);
    }
    ACL_TRY(acl_check_dtype_in(x, DT3, "x"));
    ACL_TRY(nm_dtype_is(sum, ACL_FLOAT, "sum"));
    ACL_TRY(nm_dtype_is(squareSum, ACL_FLOAT, "squareSum"));
    ACLNN_CHECK(x->format == ACL_FORMAT_NCHW || x->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "the format of x should be NCHW or NHWC, but got %s.", acl_format_name(x->format));
    ACLNN_CHECK(sum->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID, "the format of sum should be ND, not %s.",
                acl_format_name(sum->format));
    ACLNN_CHECK(squareSum->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID,
                "the format of squareSum should be ND, not %s.", acl_format_name(squareSum->format));
    ACL_TRY(nm_dim_is(x, 4, "x"));
    ACL_TRY(nm_dim_is(sum, 1, "sum"));
    ACL_TRY(nm_dim_is(squareSum, 1, "squareSum"));
    const uint64_t cax = x->format == ACL_FORMAT_NHWC ? 3 : 1;
    ACLNN_CHECK(sum->dims[0] == x->dims[cax], ACLNN_ERR_PARAM_INVALID, "sum dim 0 (%lld) should equal x's C (%lld).",
                (long long)sum->dims[0], (long long)x->dims[cax]);
    ACLNN_CHECK(squareSum->dims[0] == x->dims[cax], ACLNN_ERR_PARAM_INVALID,
                "squareSum dim 0 (%lld) should equal x's C (%lld).", (long long)squareSum->dims[0],
                (long long)x->dims[cax]);
    const aclTensor *ins[] = {x}, *outs[] = {sum, squareSum};
    const char *inn[] = {"x"}, *outn[] = {"sum", "squareSum"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNormReduce, red_run, sizeof(sb_params), ins, inn, 1, outs, outn, 2, workspaceSize,
                    executor, &pp));
    sb_params *p = pp;
    split_c(x, cax, &p->outer, &p->C, &p->inner);
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ gather stats */

/* in: the three statistics / counts; out: batch mean, batch invstd, running mean, running var (in place) */
static aclnnStatus gather_run(aclOpExecutor *ex, void *ws, uint64_t wss, bool with_counts) {
    (void)ws;
    (void)wss;
    const sb_params *p = ex->params;
    const int64_t W = p->W, C = p->C;
    bool oom = false;
    double *a = nm_load(nm_in(ex, 0), &oom), *b = nm_load(nm_in(ex, 1), &oom), *cnt = nm_load(nm_in(ex, 2), &oom);
    double *rm = nm_load(nm_in(ex, 3), &oom), *rv = nm_load(nm_in(ex, 4), &oom);
    double *bm = zbuf(C), *bi = zbuf(C);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !bm || !bi) {
        rc = OOM;
        goto done;
    }
    double n = 0;
    for (int64_t w = 0; w < W; w++) n += cnt[w];
    for (int64_t c = 0; c < C; c++) {
        double m = 0, v = 0;
        if (with_counts) { /* a = per-worker mean [W, C], b = per-worker invstd */
            for (int64_t w = 0; w < W; w++) m += cnt[w] * a[w * C + c];
            m /= n;
            for (int64_t w = 0; w < W; w++) {
                const double vw = 1.0 / (b[w * C + c] * b[w * C + c]) - p->eps, d = a[w * C + c] - m;
                v += cnt[w] * (vw + d * d);
            }
            v /= n;
        } else { /* a = per-worker sums, b = per-worker sums of squares */
            double s = 0, q = 0;
            for (int64_t w = 0; w < W; w++) s += a[w * C + c], q += b[w * C + c];
            m = s / n;
            v = q / n - m * m;
        }
        bm[c] = m;
        bi[c] = 1.0 / sqrt(v + p->eps);
        if (rm) rm[c] = rm[c] * (1.0 - p->momentum) + p->momentum * m;
        if (rv) rv[c] = rv[c] * (1.0 - p->momentum) + p->momentum * v * n / (n - 1.0);
    }
    nm_store(bm, nm_out(ex, 0));
    nm_store(bi, nm_out(ex, 1));
    nm_store(rm, nm_out(ex, 2));
    nm_store(rv, nm_out(ex, 3));
done:
    free(a), free(b), free(cnt), free(rm), free(rv), free(bm), free(bi);
    return rc;
}

static aclnnStatus sgs_run(aclOpExecutor *ex, void *ws, uint64_t wss) { return gather_run(ex, ws, wss, false); }
static aclnnStatus gswc_run(aclOpExecutor *ex, void *ws, uint64_t wss) { return gather_run(ex, ws, wss, true); }

aclnnStatus opws_SyncBatchNormGatherStats(const aclTensor *totalSum, const aclTensor *totalSquareSum,
                                          const aclTensor *sampleCount, aclTensor *mean, aclTensor *variance,
                                          float momentum, float eps, aclTensor *batchMean, aclTensor *batchInvstd,
                                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(totalSum, "totalSum");
    NN(totalSquareSum, "totalSquareSum");
    NN(sampleCount, "sampleCount");
    NN(mean, "mean");
    NN(variance, "variance");
    NN(batchMean, "batchMean");
    NN(batchInvstd, "batchInvstd");
    ACL_TRY(acl_check_dtype_in(totalSum, DT2, "totalSum"));
    ACL_TRY(acl_check_dtype_in(totalSquareSum, DT2, "totalSquareSum"));
    ACL_TRY(acl_check_dtype_in(sampleCount, k_cnt, 3, "sampleCount"));
    ACL_TRY(acl_check_dtype_in(mean, DT2, "mean"));
    ACL_TRY(acl_check_dtype_in(variance, DT2, "variance"));
    ACL_TRY(acl_check_dtype_in(batchMean, DT2, "batchMean"));
    ACL_TRY(acl_check_dtype_in(batchInvstd, DT2, "batchInvstd"));
    ACL_TRY(acl_check_same_dtype(totalSum, "totalSum", totalSquareSum, "totalSquareSum"));
    ACL_TRY(acl_check_same_dtype(totalSum, "totalSum", mean, "mean"));
    ACL_TRY(acl_check_same_dtype(totalSum, "totalSum", variance, "variance"));
    ACL_TRY(acl_check_same_dtype(batchMean, "batchMean", batchInvstd, "batchInvstd"));
    const aclTensor *fm[] = {totalSum, totalSquareSum, sampleCount, mean, variance};
    const char *fn[] = {"totalSum", "totalSquareSum", "sampleCount", "mean", "variance"};
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(!acl_format_is_private(fm[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "the format of %s should be ND, NCL, NCHW or NCDHW.", fn[i]);
    ACL_TRY(nm_dim_is(totalSum, 2, "totalSum"));
    ACL_TRY(nm_dim_is(totalSquareSum, 2, "totalSquareSum"));
    ACL_TRY(nm_dim_is(sampleCount, 1, "sampleCount"));
    ACL_TRY(nm_dim_is(mean, 1, "mean"));
    ACL_TRY(nm_dim_is(variance, 1, "variance"));
    ACL_TRY(nm_dim_is(batchMean, 1, "batchMean"));
    ACL_TRY(nm_dim_is(batchInvstd, 1, "batchInvstd"));
    const int64_t W = totalSum->dims[0], C = totalSum->dims[1];
    ACLNN_CHECK(totalSquareSum->dims[0] == W && totalSquareSum->dims[1] == C, ACLNN_ERR_PARAM_INVALID,
                "the shape of totalSquareSum should be the shape of totalSum.");
    ACLNN_CHECK(sampleCount->dims[0] == W, ACLNN_ERR_PARAM_INVALID, "sampleCount dim 0 should equal totalSum dim 0.");
    ACLNN_CHECK(mean->dims[0] == C, ACLNN_ERR_PARAM_INVALID, "mean dim 0 should equal totalSum dim 1.");
    ACLNN_CHECK(variance->dims[0] == C, ACLNN_ERR_PARAM_INVALID, "variance dim 0 should equal totalSum dim 1.");
    ACLNN_CHECK(batchMean->dims[0] == C, ACLNN_ERR_PARAM_INVALID, "batchMean dim 0 should equal totalSum dim 1.");
    ACLNN_CHECK(batchInvstd->dims[0] == C, ACLNN_ERR_PARAM_INVALID, "batchInvstd dim 0 should equal totalSum dim 1.");
    if (C == 0) return acl_exec_noop(ACL_OP_SyncBatchNormGatherStats, workspaceSize, executor);
    const aclTensor *ins[] = {totalSum, totalSquareSum, sampleCount, mean, variance};
    const aclTensor *outs[] = {batchMean, batchInvstd, mean, variance};
    const char *inn[] = {"totalSum", "totalSquareSum", "sampleCount", "mean", "variance"};
    const char *outn[] = {"batchMean", "batchInvstd", "mean", "variance"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_SyncBatchNormGatherStats, sgs_run, sizeof(sb_params), ins, inn, 5, outs, outn, 4,
                    workspaceSize, executor, &pp));
    sb_params *p = pp;
    p->W = W;
    p->C = C;
    p->momentum = momentum;
    p->eps = eps;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_BatchNormGatherStatsWithCounts(const aclTensor *input, const aclTensor *mean, const aclTensor *invstd,
                                                aclTensor *runningMean, aclTensor *runningVar, double momentum,
                                                double eps, const aclTensor *counts, aclTensor *meanAll,
                                                aclTensor *invstdAll, uint64_t *workspaceSize,
                                                aclOpExecutor **executor) {
    NN(input, "input");
    NN(mean, "mean");
    NN(invstd, "invstd");
    NN(counts, "counts");
    NN(meanAll, "meanAll");
    NN(invstdAll, "invstdAll");
    ACL_TRY(acl_check_dtype_in(input, DT3, "input"));
    ACL_TRY(acl_check_dtype_in(mean, DT3, "mean"));
    ACL_TRY(acl_check_dtype_in(invstd, DT3, "invstd"));
    if (runningMean) ACL_TRY(acl_check_dtype_in(runningMean, DT3, "runningMean"));
    if (runningVar) ACL_TRY(acl_check_dtype_in(runningVar, DT3, "runningVar"));
    ACL_TRY(acl_check_dtype_in(counts, DT3, "counts"));
    ACL_TRY(acl_check_dtype_in(meanAll, DT3, "meanAll"));
    ACL_TRY(acl_check_dtype_in(invstdAll, DT3, "invstdAll"));
    ACLNN_CHECK(!acl_format_is_private(input->format) && !acl_format_is_private(mean->format) &&
                    !acl_format_is_private(invstd->format) && !acl_format_is_private(counts->format),
                ACLNN_ERR_PARAM_INVALID, "the format of input, mean, invstd and counts should be ND, NCHW, NCL or "
                "NCDHW.");
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_dim_is(mean, 2, "mean"));
    ACL_TRY(nm_dim_is(invstd, 2, "invstd"));
    ACLNN_CHECK(counts->ndim >= 1 && mean->dims[0] == invstd->dims[0] && counts->dims[0] == mean->dims[0],
                ACLNN_ERR_PARAM_INVALID, "mean, invstd and counts should have the same dim 0.");
    const int64_t C = input->dims[1];
    ACLNN_CHECK(mean->dims[1] == C && invstd->dims[1] == C, ACLNN_ERR_PARAM_INVALID,
                "mean and invstd dim 1 should equal the channel count %lld of input.", (long long)C);
    if (runningMean) ACL_TRY(vec_of(runningMean, C, "runningMean"));
    if (runningVar) ACL_TRY(vec_of(runningVar, C, "runningVar"));
    ACL_TRY(nm_dim_is(counts, 1, "counts"));
    ACL_TRY(vec_of(meanAll, C, "meanAll"));
    ACL_TRY(vec_of(invstdAll, C, "invstdAll"));
    if (acl_tensor_empty(mean)) {
        aclTensor *outs[] = {meanAll, invstdAll};
        const char *outn[] = {"meanAll", "invstdAll"};
        const double vals[] = {0.0, NAN};
        return nm_fill_exec(ACL_OP_BatchNormGatherStatsWithCounts, outs, outn, vals, 2, workspaceSize, executor);
    }
    const aclTensor *ins[] = {mean, invstd, counts, runningMean, runningVar};
    const aclTensor *outs[] = {meanAll, invstdAll, runningMean, runningVar};
    const char *inn[] = {"mean", "invstd", "counts", "runningMean", "runningVar"};
    const char *outn[] = {"meanAll", "invstdAll", "runningMean", "runningVar"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNormGatherStatsWithCounts, gswc_run, sizeof(sb_params), ins, inn, 5, outs, outn, 4,
                    workspaceSize, executor, &pp));
    sb_params *p = pp;
    p->W = mean->dims[0];
    p->C = C;
    p->momentum = momentum;
    p->eps = eps;
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ BatchNormElemt */

static aclnnStatus elemt_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sb_params *p = ex->params;
    bool oom = false;
    double *x = nm_load(nm_in(ex, 0), &oom), *w = nm_load(nm_in(ex, 1), &oom), *b = nm_load(nm_in(ex, 2), &oom);
    double *m = nm_load(nm_in(ex, 3), &oom), *is = nm_load(nm_in(ex, 4), &oom);
    double *y = malloc(sizeof(double) * (size_t)(p->outer * p->C * p->inner));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !y) {
        rc = OOM;
    } else {
        nk_channel_affine(x, p->outer, p->C, p->inner, m, is, w, b, y);
        nm_store(y, nm_out(ex, 0));
    }
    free(x), free(w), free(b), free(m), free(is), free(y);
    return rc;
}

aclnnStatus opws_BatchNormElemt(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                aclTensor *mean, aclTensor *invstd, double eps, aclTensor *output,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* upstream reports a NULL tensor here as 161002 */
    const aclTensor *req[] = {input, mean, invstd, output};
    const char *reqn[] = {"input", "mean", "invstd", "output"};
    for (int i = 0; i < 4; i++)
        ACLNN_CHECK(req[i] != NULL, ACLNN_ERR_PARAM_INVALID, "%s must not be NULL.", reqn[i]);
    const aclTensor *all[] = {input, weight, bias, mean, invstd, output};
    const char *alln[] = {"input", "weight", "bias", "mean", "invstd", "output"};
    for (int i = 0; i < 6; i++)
        if (all[i]) ACL_TRY(acl_check_dtype_in(all[i], DT3, alln[i]));
    ACLNN_CHECK(input->format == output->format, ACLNN_ERR_PARAM_INVALID,
                "the format of input (%s) and output (%s) should be equal.", acl_format_name(input->format),
                acl_format_name(output->format));
    ACLNN_CHECK(!acl_format_is_private(input->format), ACLNN_ERR_PARAM_INVALID,
                "the format of input should be ND, NCHW, NCL or NCDHW.");
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_max_dim(output, 8, "output"));
    ACL_TRY(nm_min_dim(output, 2, "output"));
    ACL_TRY(nm_same_shape(output, "output", input, "input"));
    const int64_t C = input->dims[1];
    ACLNN_CHECK(C != 0, ACLNN_ERR_PARAM_INVALID, "the channel count (input dim 1) should not be zero.");
    ACLNN_CHECK((!weight || weight->ndim == 1) && (!bias || bias->ndim == 1) && mean->ndim == 1 && invstd->ndim == 1,
                ACLNN_ERR_PARAM_INVALID, "weight, bias, mean and invstd should have one dim.");
    ACLNN_CHECK((!weight || weight->dims[0] == C) && (!bias || bias->dims[0] == C) && mean->dims[0] == C &&
                    invstd->dims[0] == C,
                ACLNN_ERR_PARAM_INVALID, "weight, bias, mean and invstd should have the channel count %lld of input.",
                (long long)C);
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    (void)eps; /* the op derives the variance from invstd and adds eps back: the same normalisation */
    if (acl_tensor_empty(input)) return acl_exec_noop(ACL_OP_BatchNormElemt, workspaceSize, executor);
    const aclTensor *ins[] = {input, weight, bias, mean, invstd}, *outs[] = {output};
    const char *inn[] = {"input", "weight", "bias", "mean", "invstd"}, *outn[] = {"output"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNormElemt, elemt_run, sizeof(sb_params), ins, inn, 5, outs, outn, 1, workspaceSize,
                    executor, &pp));
    sb_params *p = pp;
    split_c(input, 1, &p->outer, &p->C, &p->inner);
    return ACLNN_SUCCESS;
}

/* ------------------------------------------------------------------ backward steps */

/* in: gradOut, input, mean, invstd; out: sumDy, sumDyXmu, gradWeight, gradBias */
static aclnnStatus rbw_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sb_params *p = ex->params;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom);
    double *m = nm_load(nm_in(ex, 2), &oom), *is = nm_load(nm_in(ex, 3), &oom);
    double *sdy = zbuf(p->C), *sdx = zbuf(p->C);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !sdy || !sdx) {
        rc = OOM;
    } else {
        nk_channel_grad_sums(dy, x, p->outer, p->C, p->inner, m, sdy, sdx);
        nm_store(sdy, nm_out(ex, 0));
        nm_store(sdx, nm_out(ex, 1));
        for (int64_t c = 0; c < p->C; c++) sdx[c] *= is[c];
        nm_store(sdx, nm_out(ex, 2));
        nm_store(sdy, nm_out(ex, 3));
    }
    free(dy), free(x), free(m), free(is), free(sdy), free(sdx);
    return rc;
}

aclnnStatus opws_BatchNormReduceBackward(const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean,
                                         const aclTensor *invstd, const aclTensor *weight, const bool inputG,
                                         const bool weightG, const bool biasG, aclTensor *sumDy, aclTensor *sumDyXmu,
                                         aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
                                         aclOpExecutor **executor) {
    const aclTensor *ins[] = {gradOut, input, mean, invstd};
    const char *inn[] = {"gradOut", "input", "mean", "invstd"};
    aclTensor *outs[] = {sumDy, sumDyXmu, gradWeight, gradBias};
    const char *outn[] = {"sumDy", "sumDyXmu", "gradWeight", "gradBias"};
    const bool mask[] = {inputG, inputG, weightG, biasG};
    for (int i = 0; i < 4; i++) NN(ins[i], inn[i]);
    for (int i = 0; i < 4; i++)
        if (mask[i]) NN(outs[i], outn[i]);
    for (int i = 0; i < 4; i++) ACL_TRY(acl_check_dtype_in(ins[i], DT3, inn[i]));
    ACLNN_CHECK(gradOut->dtype == input->dtype, ACLNN_ERR_PARAM_INVALID, "gradOut dtype %s should be input's %s.",
                acl_dtype_name(gradOut->dtype), acl_dtype_name(input->dtype));
    for (int i = 0; i < 4; i++)
        if (mask[i]) ACL_TRY(acl_check_dtype_in(outs[i], DT3, outn[i]));
    ACLNN_CHECK(gradOut->format == input->format, ACLNN_ERR_PARAM_INVALID,
                "the format of gradOut (%s) and input (%s) should be equal.", acl_format_name(gradOut->format),
                acl_format_name(input->format));
    for (int i = 0; i < 4; i++)
        ACLNN_CHECK(!acl_format_is_private(ins[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "the format of %s should not be a private format.", inn[i]);
    for (int i = 0; i < 4; i++)
        if (mask[i])
            ACLNN_CHECK(!acl_format_is_private(outs[i]->format), ACLNN_ERR_PARAM_INVALID,
                        "the format of %s should not be a private format.", outn[i]);
    ACL_TRY(nm_min_dim(gradOut, 2, "gradOut"));
    ACL_TRY(nm_max_dim(gradOut, 8, "gradOut"));
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_max_dim(input, 8, "input"));
    const int64_t C = input->dims[1];
    ACLNN_CHECK(C != 0, ACLNN_ERR_PARAM_INVALID, "the channel count (input dim 1) should not be zero.");
    for (int i = 0; i < 4; i++)
        if (mask[i]) ACL_TRY(vec_of(outs[i], C, outn[i]));
    /* what the kernel reads (upstream's l0 ops need these) */
    ACL_TRY(nm_same_shape(gradOut, "gradOut", input, "input"));
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    aclTensor *mo[4];
    for (int i = 0; i < 4; i++) mo[i] = mask[i] ? outs[i] : NULL;
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(input) || acl_tensor_empty(mean) || acl_tensor_empty(invstd)) {
        const double vals[] = {0.0, 0.0, 0.0, 0.0};
        return nm_fill_exec(ACL_OP_BatchNormReduceBackward, mo, outn, vals, 4, workspaceSize, executor);
    }
    ACL_TRY(nm_numel_is(mean, C, "mean"));
    ACL_TRY(nm_numel_is(invstd, C, "invstd"));
    (void)weight;
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNormReduceBackward, rbw_run, sizeof(sb_params), ins, inn, 4,
                    (const aclTensor *const *)mo, outn, 4, workspaceSize, executor, &pp));
    sb_params *p = pp;
    split_c(input, 1, &p->outer, &p->C, &p->inner);
    return ACLNN_SUCCESS;
}

/* in: gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter; out: gradInput */
static aclnnStatus ebw_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sb_params *p = ex->params;
    const int64_t C = p->C, S = p->inner, NC = p->outer * C;
    bool oom = false;
    double *dy = nm_load(nm_in(ex, 0), &oom), *x = nm_load(nm_in(ex, 1), &oom), *m = nm_load(nm_in(ex, 2), &oom);
    double *is = nm_load(nm_in(ex, 3), &oom), *w = nm_load(nm_in(ex, 4), &oom), *sdy = nm_load(nm_in(ex, 5), &oom);
    double *sdx = nm_load(nm_in(ex, 6), &oom), *cnt = nm_load(nm_in(ex, 7), &oom);
    double *dx = malloc(sizeof(double) * (size_t)(NC * S));
    aclnnStatus rc = ACLNN_SUCCESS;
    if (oom || !dx) {
        rc = OOM;
    } else {
        const int64_t nc = dn_numel(nm_in(ex, 7));
        double n = 0;
        for (int64_t i = 0; i < nc; i++) n += cnt[i];
        ACL_FOR(acl_parallel_worth(NC * S), bc, 0, NC, {
            const int64_t c = bc % C;
            const double k = is[c] * (w ? w[c] : 1.0), md = sdy[c] / n, mx = sdx[c] / n, i2 = is[c] * is[c];
            for (int64_t s = 0; s < S; s++) {
                const int64_t i = bc * S + s;
                dx[i] = (dy[i] - md - (x[i] - m[c]) * i2 * mx) * k;
            }
        });
        nm_store(dx, nm_out(ex, 0));
    }
    free(dy), free(x), free(m), free(is), free(w), free(sdy), free(sdx), free(cnt), free(dx);
    return rc;
}

aclnnStatus opws_BatchNormElemtBackward(const aclTensor *gradOut, const aclTensor *input, const aclTensor *mean,
                                        const aclTensor *invstd, const aclTensor *weight, const aclTensor *sumDy,
                                        const aclTensor *sumDyXmu, aclTensor *counter, aclTensor *gradInput,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOut, "gradOut");
    NN(input, "input");
    NN(mean, "mean");
    NN(invstd, "invstd");
    NN(sumDy, "sumDy");
    NN(sumDyXmu, "sumDyXmu");
    NN(counter, "counter");
    NN(gradInput, "gradInput");
    ACL_TRY(acl_check_dtype_in(gradOut, DT3, "gradOut"));
    ACL_TRY(acl_check_dtype_in(input, DT3, "input"));
    ACL_TRY(acl_check_dtype_in(mean, DT3, "mean"));
    ACL_TRY(acl_check_dtype_in(invstd, DT3, "invstd"));
    if (weight) ACL_TRY(acl_check_dtype_in(weight, DT3, "weight"));
    ACL_TRY(acl_check_dtype_in(sumDy, DT3, "sumDy"));
    ACL_TRY(acl_check_dtype_in(sumDyXmu, DT3, "sumDyXmu"));
    ACL_TRY(acl_check_dtype_in(counter, k_cnt, 3, "counter"));
    ACL_TRY(acl_check_dtype_in(gradInput, DT3, "gradInput"));
    ACLNN_CHECK(!acl_format_is_private(gradOut->format), ACLNN_ERR_PARAM_INVALID,
                "the format of gradOut should be ND, NCHW, NCL or NCDHW.");
    ACLNN_CHECK(!acl_format_is_private(input->format), ACLNN_ERR_PARAM_INVALID,
                "the format of input should be ND, NCHW, NCL or NCDHW.");
    ACLNN_CHECK(!acl_format_is_private(gradInput->format), ACLNN_ERR_PARAM_INVALID,
                "the format of gradInput should be ND, NCHW, NCL or NCDHW.");
    ACL_TRY(nm_min_dim(input, 2, "input"));
    ACL_TRY(nm_max_dim(input, 8, "input"));
    ACL_TRY(nm_max_dim(gradOut, 8, "gradOut"));
    ACL_TRY(nm_max_dim(gradInput, 8, "gradInput"));
    ACL_TRY(nm_max_dim(counter, 8, "counter"));
    const int64_t C = input->dims[1];
    ACLNN_CHECK(C != 0, ACLNN_ERR_PARAM_INVALID, "the channel count (input dim 1) should not be zero.");
    ACL_TRY(nm_same_shape(gradOut, "gradOut", input, "input"));
    ACL_TRY(nm_same_shape(gradInput, "gradInput", input, "input"));
    ACL_TRY(vec_of(mean, C, "mean"));
    ACL_TRY(vec_of(invstd, C, "invstd"));
    if (weight) ACL_TRY(vec_of(weight, C, "weight"));
    ACL_TRY(vec_of(sumDy, C, "sumDy"));
    ACL_TRY(vec_of(sumDyXmu, C, "sumDyXmu"));
    ACLNN_CHECK(acl_tensor_numel(input) >= 0, ACLNN_ERR_PARAM_INVALID, "input has more elements than int64 holds.");
    if (acl_tensor_empty(input) || acl_tensor_empty(gradOut))
        return acl_exec_noop(ACL_OP_BatchNormElemtBackward, workspaceSize, executor);
    const aclTensor *ins[] = {gradOut, input, mean, invstd, weight, sumDy, sumDyXmu, counter}, *outs[] = {gradInput};
    const char *inn[] = {"gradOut", "input", "mean", "invstd", "weight", "sumDy", "sumDyXmu", "counter"};
    const char *outn[] = {"gradInput"};
    void *pp;
    ACL_TRY(nm_exec(ACL_OP_BatchNormElemtBackward, ebw_run, sizeof(sb_params), ins, inn, 8, outs, outn, 1,
                    workspaceSize, executor, &pp));
    sb_params *p = pp;
    split_c(input, 1, &p->outer, &p->C, &p->inner);
    return ACLNN_SUCCESS;
}
