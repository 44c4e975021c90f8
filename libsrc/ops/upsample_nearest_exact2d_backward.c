/* aclnnUpsampleNearestExact2dBackward (SPEC section 4.2 / 4.3). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>

#include "ops/gen/all_ops.h"
#include "common/parallel.h"
#include "kernels/upsample_nearest.h"
#include "common/dtype.h"
#include "ops/ops.h"

#define K_MIN_RATIO 0.02 /* input/output >= 1/50: at most a 50x upscale */

/* SPEC 4.2, in order (steps 1-3 are in the entry point). */
static aclnnStatus check_params(const aclTensor *gradOutput, const aclIntArray *outputSize,
                                const aclIntArray *inputSize, double scalesH, double scalesW, const aclTensor *out) {
    /* 4. dtype */
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_UpsampleNearestExact2dBackward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", out, "out"));
    /* 5. formats, ranks, array lengths */
    ACLNN_CHECK(gradOutput->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be the same as gradOutput format %s.", acl_format_name(out->format),
                acl_format_name(gradOutput->format));
    /* [EMU] the host code reads outputSize's length here without a NULL check (a crash on the device) */
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_rank(gradOutput, 4, "gradOutput"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACLNN_CHECK(inputSize->size == 4, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be 4.",
                (unsigned long long)inputSize->size);
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 2.",
                (unsigned long long)outputSize->size);
    /* 6. NHWC rejected; N and C */
    ACLNN_CHECK(gradOutput->format != ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "gradOutput format NHWC is not supported; use NCHW or ND.");
    ACLNN_CHECK(gradOutput->dims[0] == out->dims[0], ACLNN_ERR_PARAM_INVALID,
                "out N %lld should be the same as gradOutput N %lld.", (long long)out->dims[0],
                (long long)gradOutput->dims[0]);
    ACLNN_CHECK(gradOutput->dims[1] == out->dims[1], ACLNN_ERR_PARAM_INVALID,
                "out C %lld should be the same as gradOutput C %lld.", (long long)out->dims[1],
                (long long)gradOutput->dims[1]);
    /* 7. scales sign */
    ACLNN_CHECK(!(scalesH < 0), ACLNN_ERR_PARAM_INVALID, "scalesH %g should not be negative.", scalesH);
    ACLNN_CHECK(!(scalesW < 0), ACLNN_ERR_PARAM_INVALID, "scalesW %g should not be negative.", scalesW);
    /* 8. at most a 50x upscale; positive sizes */
    const int64_t ho = gradOutput->dims[2], wo = gradOutput->dims[3];
    const int64_t hi = inputSize->v[2], wi = inputSize->v[3];
    const double rh = scalesH > 0 ? 1.0 / scalesH : (double)hi / (double)ho;
    const double rw = scalesW > 0 ? 1.0 / scalesW : (double)wi / (double)wo;
    ACLNN_CHECK(rh >= K_MIN_RATIO, ACLNN_ERR_PARAM_INVALID,
                "scalesH %g with inputSize[2] %lld and gradOutput H %lld is more than a 50x upscale (ratio %g < 0.02).",
                scalesH, (long long)hi, (long long)ho, rh);
    ACLNN_CHECK(rw >= K_MIN_RATIO, ACLNN_ERR_PARAM_INVALID,
                "scalesW %g with inputSize[3] %lld and gradOutput W %lld is more than a 50x upscale (ratio %g < 0.02).",
                scalesW, (long long)wi, (long long)wo, rw);
    for (int d = 0; d < 4; d++) {
        ACLNN_CHECK(gradOutput->dims[d] > 0, ACLNN_ERR_PARAM_INVALID,
                    "gradOutput dim %d is %lld; N, C, H and W should be greater than 0.", d,
                    (long long)gradOutput->dims[d]);
    }
    ACLNN_CHECK(hi > 0 && wi > 0, ACLNN_ERR_PARAM_INVALID,
                "inputSize[2] %lld and inputSize[3] %lld should be greater than 0.", (long long)hi, (long long)wi);
    /* [HW] the result, (N, C, inputSize[2], inputSize[3]) of gradOutput's N and C, is copied into out at the end
     * of phase 1; a different shape makes that copy fail (ACLNN_ERR_INNER_NULLPTR) */
    ACLNN_CHECK(out->dims[2] == hi && out->dims[3] == wi, ACLNN_ERR_INNER_NULLPTR,
                "out H, W (%lld, %lld) should equal inputSize[2], inputSize[3] (%lld, %lld): the result is copied "
                "into out.", (long long)out->dims[2], (long long)out->dims[3], (long long)hi, (long long)wi);
    return ACLNN_SUCCESS;
}

/* The effective fp32 scale of one axis (output/input), as the tiling derives it. */
static float axis_scale(double scales, int64_t out_len, int64_t in_len) {
    float s = scales > 0 ? (float)scales : 0.0f;
    return s > 0 ? s : (float)out_len / (float)in_len;
}

static void free_plan(void *params) {
    upnx_bwd_plan *p = params;
    if (p) {
        free(p->h_lo);
        free(p->wb);
    }
    free(p);
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const upnx_bwd_plan *p = ex->params;
    const acl_view *g = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    int64_t per = upnx_bwd_scratch_floats(p);
    float *scratch = acl_team_alloc(acl_max_threads(), per, sizeof(float), 0); /* per: whole lines; line-aligned */
    ACLNN_CHECK(scratch != NULL, ACLNN_ERR_INNER, "out of memory for %lld floats of per-thread scratch",
                (long long)(per * acl_max_threads()));
    switch (g->dtype) {
    case ACL_FLOAT: upnx_bwd_f32(g, o, p, scratch); break;
    case ACL_FLOAT16: upnx_bwd_f16(g, o, p, scratch); break;
    default: upnx_bwd_bf16(g, o, p, scratch); break;
    }
    free(scratch);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_UpsampleNearestExact2dBackward(const aclTensor *gradOutput,
                                                const aclIntArray *outputSize,
                                                const aclIntArray *inputSize, double scalesH,
                                                double scalesW, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* 1. */
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    /* 2. (outputSize is not NULL-checked here: see check_params) */
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    /* 3. empty: success before any other validation, out untouched */
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearestExact2dBackward, workspaceSize, executor);
    ACL_TRY(check_params(gradOutput, outputSize, inputSize, scalesH, scalesW, out));

    aclOpExecutor *ex = acl_exec_create(ACL_OP_UpsampleNearestExact2dBackward, run, sizeof(upnx_bwd_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = free_plan;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);

    upnx_bwd_plan *p = ex->params;
    p->n = gradOutput->dims[0];
    p->c = gradOutput->dims[1];
    p->ho = gradOutput->dims[2];
    p->wo = gradOutput->dims[3];
    p->hi = inputSize->v[2];
    p->wi = inputSize->v[3];
    int64_t *tab = malloc((size_t)(2 * (p->hi + p->wi)) * sizeof(int64_t) + (size_t)(2 * p->wi) * sizeof(int32_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of inputSize "
                                                                "(%lld, %lld)", (long long)p->hi, (long long)p->wi));
    p->h_lo = tab;
    p->h_hi = tab + p->hi;
    p->w_lo = tab + 2 * p->hi;
    p->w_hi = tab + 2 * p->hi + p->wi;
    p->hk = upn_axis_ranges(p->h_lo, p->h_hi, p->hi, p->ho, axis_scale(scalesH, p->ho, p->hi), 1);
    p->wk = upn_axis_ranges(p->w_lo, p->w_hi, p->wi, p->wo, axis_scale(scalesW, p->wo, p->wi), 1);
    upn_pair_tables(p, (int32_t *)(tab + 2 * (p->hi + p->wi)));
    if (!upnx_bwd_blocks(p, (int64_t)acl_dtype_size(gradOutput->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of inputSize "
                                                                "(%lld, %lld)", (long long)p->hi, (long long)p->wi));
    return acl_exec_publish(ex, workspaceSize, executor);
}
