/* aclnnGridSampler3D: trilinear / nearest sampling of an NCDHW (or NDHWC) volume at grid points, the 2-D op's
 * coordinate rules (SPEC section 2.4) on three axes. Validation in the op_api's order: NULLs, dtypes, formats,
 * paddingMode before interpolationMode, shapes. */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "kernels/grid_sampler3d.h"
#include "ops/ops.h"
#include "ops/grid_sampler3d_plan.h"

static const aclFormat k_formats[] = {ACL_FORMAT_NCDHW, ACL_FORMAT_NDHWC, ACL_FORMAT_ND};

static aclnnStatus check_params(const aclTensor *input, const aclTensor *grid, int64_t interpolationMode,
                                int64_t paddingMode, const aclTensor *out) {
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(grid, "grid"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_same_dtype(input, "input", grid, "grid"));
    ACL_TRY(acl_check_same_dtype(input, "input", out, "out"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_GridSampler3D, "input"));
    ACL_TRY(acl_check_format_in(input, k_formats, ACL_COUNT_OF(k_formats), "input"));
    ACL_TRY(acl_check_format_in(out, k_formats, ACL_COUNT_OF(k_formats), "out"));
    ACL_TRY(gs3_check_modes(paddingMode, interpolationMode));
    ACL_TRY(acl_check_rank(input, 5, "input"));
    ACL_TRY(acl_check_rank(grid, 5, "grid"));
    ACL_TRY(acl_check_rank(out, 5, "out"));
    ACL_TRY(gs3_check_sampled(input, grid, out, "out"));
    /* the op_api tests view dims 3 and 4 whatever the layout */
    ACLNN_CHECK(input->dims[3] != 0 && input->dims[4] != 0, ACLNN_ERR_PARAM_INVALID,
                "input dims 3 and 4 should not be 0, but input shape is (%lld, %lld, %lld, %lld, %lld).",
                (long long)input->dims[0], (long long)input->dims[1], (long long)input->dims[2],
                (long long)input->dims[3], (long long)input->dims[4]);
    ACLNN_CHECK(grid->dims[4] == 3, ACLNN_ERR_PARAM_INVALID, "grid last dim should be 3, but it is %lld.",
                (long long)grid->dims[4]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws; (void)ws_size;
    const gs3_params *p = ex->params;
    acl_view in = *acl_exec_in(ex, 0), out = *acl_exec_out(ex, 0);
    const acl_view *grid = acl_exec_in(ex, 1);
    if (p->ndhwc) {
        gs3_to_ncdhw(&in);
        gs3_to_ncdhw(&out);
    }
    int rc;
    switch (in.dtype) {
    case ACL_FLOAT: rc = acl_grid_sampler3d_fwd_f32(&in, grid, &out, &p->g); break;
    case ACL_FLOAT16: rc = acl_grid_sampler3d_fwd_f16(&in, grid, &out, &p->g); break;
    case ACL_BF16: rc = acl_grid_sampler3d_fwd_bf16(&in, grid, &out, &p->g); break;
    case ACL_DOUBLE: rc = acl_grid_sampler3d_fwd_f64(&in, grid, &out, &p->g); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(in.dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the grid sampler scratch buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GridSampler3D(const aclTensor *input, const aclTensor *grid, int64_t interpolationMode,
                               int64_t paddingMode, bool alignCorners, aclTensor *out, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(check_params(input, grid, interpolationMode, paddingMode, out));
    if (acl_tensor_empty(input) || acl_tensor_empty(grid))
        return acl_exec_noop(ACL_OP_GridSampler3D, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GridSampler3D, run, sizeof(gs3_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, grid, "grid", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(gs3_params *)ex->params = (gs3_params){{(int)interpolationMode, (int)paddingMode, alignCorners, true, true},
                                             input->format == ACL_FORMAT_NDHWC};
    return acl_exec_publish(ex, workspaceSize, executor);
}
