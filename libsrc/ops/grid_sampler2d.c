/* aclnnGridSampler2D (SPEC section 2.4). */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernels/grid_sampler.h"
#include "ops/ops.h"

static aclnnStatus check_params(const aclTensor *input, const aclTensor *grid, int64_t interpolationMode,
                                int64_t paddingMode, const aclTensor *out) {
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(grid, "grid"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(input, "input", grid, "grid"));
    ACL_TRY(acl_check_same_dtype(input, "input", out, "out"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_GridSampler2D, "input"));
    ACLNN_CHECK(interpolationMode >= 0 && interpolationMode <= 2, ACLNN_ERR_PARAM_INVALID,
                "interpolationMode %lld should be 0 (bilinear), 1 (nearest) or 2 (bicubic).",
                (long long)interpolationMode);
    ACLNN_CHECK(paddingMode >= 0 && paddingMode <= 2, ACLNN_ERR_PARAM_INVALID,
                "paddingMode %lld should be 0 (zeros), 1 (border) or 2 (reflection).", (long long)paddingMode);
    ACL_TRY(acl_check_rank(input, 4, "input"));
    ACL_TRY(acl_check_rank(grid, 4, "grid"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACLNN_CHECK(input->dims[0] == grid->dims[0] && input->dims[0] == out->dims[0], ACLNN_ERR_PARAM_INVALID,
                "input N %lld, grid N %lld and out N %lld should be equal.", (long long)input->dims[0],
                (long long)grid->dims[0], (long long)out->dims[0]);
    ACLNN_CHECK(input->dims[1] == out->dims[1], ACLNN_ERR_PARAM_INVALID, "out C %lld should equal input C %lld.",
                (long long)out->dims[1], (long long)input->dims[1]);
    ACLNN_CHECK(grid->dims[1] == out->dims[2] && grid->dims[2] == out->dims[3], ACLNN_ERR_PARAM_INVALID,
                "grid dims 1,2 (%lld, %lld) should equal out H, W (%lld, %lld).", (long long)grid->dims[1],
                (long long)grid->dims[2], (long long)out->dims[2], (long long)out->dims[3]);
    ACLNN_CHECK(input->dims[2] != 0 && input->dims[3] != 0, ACLNN_ERR_PARAM_INVALID,
                "input H and W should not be 0, but input H is %lld and W is %lld.", (long long)input->dims[2],
                (long long)input->dims[3]);
    ACLNN_CHECK(grid->dims[3] == 2, ACLNN_ERR_PARAM_INVALID, "grid last dim should be 2, but it is %lld.",
                (long long)grid->dims[3]);
    return ACLNN_SUCCESS;
}

/* After the empty-tensor early return, the A2 path: FLOAT/FLOAT16/BF16 run the AI Core kernel, whose tiling (in
 * phase 1) fails for an input H*W above INT32_MAX, so the l0 op hands back nothing (ACLNN_ERR_INNER_NULLPTR);
 * DOUBLE runs the AI CPU kernel, which has no bicubic mode (161002). */
static aclnnStatus check_path(const aclTensor *input, int64_t interpolationMode) {
    if (input->dtype == ACL_DOUBLE) {
        ACLNN_CHECK(interpolationMode != 2, ACLNN_ERR_PARAM_INVALID,
                    "interpolationMode 2 (bicubic) is not supported for input dtype DOUBLE.");
        return ACLNN_SUCCESS;
    }
    int64_t hw;
    ACLNN_CHECK(acl_mul_i64(input->dims[2], input->dims[3], &hw) && hw <= INT32_MAX, ACLNN_ERR_INNER_NULLPTR,
                "input H*W (%lld * %lld) exceeds INT32_MAX, which the kernel's tiling does not support.",
                (long long)input->dims[2], (long long)input->dims[3]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const gs_params *p = ex->params;
    const acl_view *in = acl_exec_in(ex, 0), *grid = acl_exec_in(ex, 1), *out = acl_exec_out(ex, 0);
    int rc;
    switch (in->dtype) {
    case ACL_FLOAT: rc = acl_grid_sampler2d_fwd_f32(in, grid, out, p); break;
    case ACL_FLOAT16: rc = acl_grid_sampler2d_fwd_f16(in, grid, out, p); break;
    case ACL_BF16: rc = acl_grid_sampler2d_fwd_bf16(in, grid, out, p); break;
    case ACL_DOUBLE: rc = acl_grid_sampler2d_fwd_f64(in, grid, out, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(in->dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the grid sampler scratch buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GridSampler2D(const aclTensor *input, const aclTensor *grid,
                               int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(check_params(input, grid, interpolationMode, paddingMode, out));
    if (acl_tensor_empty(input) || acl_tensor_empty(grid))
        return acl_exec_noop(ACL_OP_GridSampler2D, workspaceSize, executor);
    ACL_TRY(check_path(input, interpolationMode));
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GridSampler2D, run, sizeof(gs_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, grid, "grid", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(gs_params *)ex->params = (gs_params){(int)interpolationMode, (int)paddingMode, alignCorners, true, true};
    return acl_exec_publish(ex, workspaceSize, executor);
}
