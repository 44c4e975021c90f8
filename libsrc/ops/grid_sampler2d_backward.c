/* aclnnGridSampler2DBackward (SPEC section 2.2/2.3). */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "kernels/grid_sampler.h"
#include "ops/ops.h"

static aclnnStatus check_params(const aclTensor *gradOutput, const aclTensor *input, const aclTensor *grid,
                                int64_t interpolationMode, int64_t paddingMode, const aclBoolArray *outputMask,
                                const aclTensor *inputGrad, const aclTensor *gridGrad) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(grid, "grid"));
    ACL_TRY(acl_check_tensor(inputGrad, "inputGrad"));
    ACL_TRY(acl_check_tensor(gridGrad, "gridGrad"));
    ACL_TRY(acl_check_bool_array(outputMask, "outputMask"));
    ACL_TRY(acl_check_same_dtype(input, "input", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(input, "input", grid, "grid"));
    ACL_TRY(acl_check_same_dtype(input, "input", inputGrad, "inputGrad"));
    ACL_TRY(acl_check_same_dtype(input, "input", gridGrad, "gridGrad"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_GridSampler2DBackward, "input"));
    ACLNN_CHECK(interpolationMode >= 0 && interpolationMode <= 2, ACLNN_ERR_PARAM_INVALID,
                "interpolationMode %lld should be 0 (bilinear), 1 (nearest) or 2 (bicubic).",
                (long long)interpolationMode);
    ACLNN_CHECK(paddingMode >= 0 && paddingMode <= 2, ACLNN_ERR_PARAM_INVALID,
                "paddingMode %lld should be 0 (zeros), 1 (border) or 2 (reflection).", (long long)paddingMode);
    ACL_TRY(acl_check_rank(input, 4, "input"));
    ACL_TRY(acl_check_rank(grid, 4, "grid"));
    ACL_TRY(acl_check_rank(gradOutput, 4, "gradOutput"));
    ACLNN_CHECK(input->dims[0] == grid->dims[0] && input->dims[0] == gradOutput->dims[0], ACLNN_ERR_PARAM_INVALID,
                "input N %lld, grid N %lld and gradOutput N %lld should be equal.", (long long)input->dims[0],
                (long long)grid->dims[0], (long long)gradOutput->dims[0]);
    ACLNN_CHECK(input->dims[1] == gradOutput->dims[1], ACLNN_ERR_PARAM_INVALID,
                "gradOutput C %lld should equal input C %lld.", (long long)gradOutput->dims[1],
                (long long)input->dims[1]);
    ACLNN_CHECK(input->dims[2] != 0 && input->dims[3] != 0, ACLNN_ERR_PARAM_INVALID,
                "input H and W should not be 0, but input H is %lld and W is %lld.", (long long)input->dims[2],
                (long long)input->dims[3]);
    ACLNN_CHECK(grid->dims[1] == gradOutput->dims[2] && grid->dims[2] == gradOutput->dims[3],
                ACLNN_ERR_PARAM_INVALID, "grid dims 1,2 (%lld, %lld) should equal gradOutput H, W (%lld, %lld).",
                (long long)grid->dims[1], (long long)grid->dims[2], (long long)gradOutput->dims[2],
                (long long)gradOutput->dims[3]);
    ACLNN_CHECK(grid->dims[3] == 2, ACLNN_ERR_PARAM_INVALID, "grid last dim should be 2, but it is %lld.",
                (long long)grid->dims[3]);
    ACL_TRY(acl_check_same_shape(input, "input", inputGrad, "inputGrad"));
    ACL_TRY(acl_check_same_shape(grid, "grid", gridGrad, "gridGrad"));
    ACLNN_CHECK(outputMask->size == 2, ACLNN_ERR_PARAM_INVALID, "outputMask length %llu should be 2.",
                (unsigned long long)outputMask->size);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const gs_params *p = ex->params;
    const acl_view *go = acl_exec_in(ex, 0), *in = acl_exec_in(ex, 1), *grid = acl_exec_in(ex, 2);
    const acl_view *gin = p->mask_input ? acl_exec_out(ex, 0) : NULL;
    const acl_view *gg = p->mask_grid ? acl_exec_out(ex, 1) : NULL;
    int rc;
    switch (in->dtype) {
    case ACL_FLOAT: rc = acl_grid_sampler2d_bwd_f32(go, in, grid, gin, gg, p); break;
    case ACL_FLOAT16: rc = acl_grid_sampler2d_bwd_f16(go, in, grid, gin, gg, p); break;
    case ACL_BF16: rc = acl_grid_sampler2d_bwd_bf16(go, in, grid, gin, gg, p); break;
    case ACL_DOUBLE: rc = acl_grid_sampler2d_bwd_f64(go, in, grid, gin, gg, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(in->dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the grid sampler scratch buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GridSampler2DBackward(const aclTensor *gradOutput, const aclTensor *input,
                                       const aclTensor *grid, int64_t interpolationMode,
                                       int64_t paddingMode, bool alignCorners,
                                       const aclBoolArray *outputMask, aclTensor *inputGrad,
                                       aclTensor *gridGrad, uint64_t *workspaceSize,
                                       aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    if (outputMask == NULL) return acl_exec_noop(ACL_OP_GridSampler2DBackward, workspaceSize, executor);
    ACL_TRY(check_params(gradOutput, input, grid, interpolationMode, paddingMode, outputMask, inputGrad, gridGrad));
    bool m0 = outputMask->v[0], m1 = outputMask->v[1];
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(input) || acl_tensor_empty(grid) || (!m0 && !m1))
        return acl_exec_noop(ACL_OP_GridSampler2DBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GridSampler2DBackward, run, sizeof(gs_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, grid, "grid", true);
    if (rc == 0) rc = m0 ? acl_exec_add_output(ex, inputGrad, "inputGrad") : acl_exec_add_output_nodata(ex, inputGrad, "inputGrad");
    if (rc == 0) rc = m1 ? acl_exec_add_output(ex, gridGrad, "gridGrad") : acl_exec_add_output_nodata(ex, gridGrad, "gridGrad");
    if (rc) return acl_exec_discard(ex, rc);
    *(gs_params *)ex->params = (gs_params){(int)interpolationMode, (int)paddingMode, alignCorners, m0, m1};
    return acl_exec_publish(ex, workspaceSize, executor);
}
