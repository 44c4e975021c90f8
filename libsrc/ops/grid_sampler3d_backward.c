/* aclnnGridSampler3DBackward: gradients of aclnnGridSampler3D. Validation in the op_api's order: a NULL
 * outputMask is an empty success, then NULLs, dtypes, paddingMode before interpolationMode, shapes, the mask
 * length. The grid gradient is gathered per point and the input gradient owned per (n, c) plane (no atomics). */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "kernels/grid_sampler3d.h"
#include "ops/ops.h"
#include "ops/grid_sampler3d_plan.h"

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
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_GridSampler3DBackward, "input"));
    ACL_TRY(gs3_check_modes(paddingMode, interpolationMode));
    ACL_TRY(acl_check_rank(input, 5, "input"));
    ACL_TRY(acl_check_rank(grid, 5, "grid"));
    ACL_TRY(acl_check_rank(gradOutput, 5, "gradOutput"));
    ACL_TRY(gs3_check_sampled(input, grid, gradOutput, "gradOutput"));
    ACLNN_CHECK(grid->dims[4] == 3, ACLNN_ERR_PARAM_INVALID, "grid last dim should be 3, but it is %lld.",
                (long long)grid->dims[4]);
    ACL_TRY(acl_check_same_shape(inputGrad, "inputGrad", input, "input"));
    ACL_TRY(acl_check_same_shape(gridGrad, "gridGrad", grid, "grid"));
    ACLNN_CHECK(outputMask->size == 2, ACLNN_ERR_PARAM_INVALID, "outputMask length %llu should be 2.",
                (unsigned long long)outputMask->size);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws; (void)ws_size;
    const gs3_params *p = ex->params;
    acl_view go = *acl_exec_in(ex, 0), in = *acl_exec_in(ex, 1), gin = *acl_exec_out(ex, 0);
    const acl_view *grid = acl_exec_in(ex, 2);
    if (p->ndhwc) {
        gs3_to_ncdhw(&go);
        gs3_to_ncdhw(&in);
        gs3_to_ncdhw(&gin);
    }
    const acl_view *gi = p->g.mask_input ? &gin : NULL;
    const acl_view *gg = p->g.mask_grid ? acl_exec_out(ex, 1) : NULL;
    int rc;
    switch (in.dtype) {
    case ACL_FLOAT: rc = acl_grid_sampler3d_bwd_f32(&go, &in, grid, gi, gg, &p->g); break;
    case ACL_FLOAT16: rc = acl_grid_sampler3d_bwd_f16(&go, &in, grid, gi, gg, &p->g); break;
    case ACL_BF16: rc = acl_grid_sampler3d_bwd_bf16(&go, &in, grid, gi, gg, &p->g); break;
    case ACL_DOUBLE: rc = acl_grid_sampler3d_bwd_f64(&go, &in, grid, gi, gg, &p->g); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(in.dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the grid sampler scratch buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GridSampler3DBackward(const aclTensor *gradOutput, const aclTensor *input, const aclTensor *grid,
                                       int64_t interpolationMode, int64_t paddingMode, bool alignCorners,
                                       const aclBoolArray *outputMask, aclTensor *inputGrad, aclTensor *gridGrad,
                                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    if (outputMask == NULL) return acl_exec_noop(ACL_OP_GridSampler3DBackward, workspaceSize, executor);
    ACL_TRY(check_params(gradOutput, input, grid, interpolationMode, paddingMode, outputMask, inputGrad, gridGrad));
    bool m0 = outputMask->v[0], m1 = outputMask->v[1];
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(input) || acl_tensor_empty(grid) || (!m0 && !m1))
        return acl_exec_noop(ACL_OP_GridSampler3DBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GridSampler3DBackward, run, sizeof(gs3_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, grid, "grid", true);
    if (rc == 0) rc = m0 ? acl_exec_add_output(ex, inputGrad, "inputGrad") : acl_exec_add_output_nodata(ex, inputGrad, "inputGrad");
    if (rc == 0) rc = m1 ? acl_exec_add_output(ex, gridGrad, "gridGrad") : acl_exec_add_output_nodata(ex, gridGrad, "gridGrad");
    if (rc) return acl_exec_discard(ex, rc);
    *(gs3_params *)ex->params = (gs3_params){{(int)interpolationMode, (int)paddingMode, alignCorners, m0, m1},
                                             input->format == ACL_FORMAT_NDHWC};
    return acl_exec_publish(ex, workspaceSize, executor);
}
