/* aclnnThreeInterpolateBackward (ops-cv image/three_interpolate_backward): grad_y[b, c, idx[b, n, i]] +=
 * grad_x[b, c, n] * weight[b, n, i]. The op_api checks NULLs (grad_x, idx, weight, grad_y) and dtypes (grad_x,
 * idx, weight) only; the shape rules of the docs follow as 161002 (grad_x (b, c, n) or (b, c, n, 1), idx and
 * weight (b, n, 3), grad_y (b, c, m) or (b, c, m, 1) of grad_x's dtype). An index outside [0, m) is skipped
 * (the docs require idx < m; the device does not check). Deterministic here: owner per (b, c), points in order. */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "kernels/three_interpolate.h"
#include "ops/ops.h"

static const aclDataType k_float[] = {ACL_FLOAT, ACL_FLOAT16};
static const aclDataType k_idx[] = {ACL_INT32, ACL_INT64};

static bool feat_shape_ok(const aclTensor *t) {
    return t->ndim == 3 || (t->ndim == 4 && t->dims[3] == 1);
}

static aclnnStatus check_params(const aclTensor *grad_x, const aclTensor *idx, const aclTensor *weight, int m,
                                const aclTensor *grad_y) {
    ACL_TRY(acl_check_tensor(grad_x, "grad_x"));
    ACL_TRY(acl_check_tensor(idx, "idx"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_tensor(grad_y, "grad_y"));
    ACL_TRY(acl_check_dtype_in(grad_x, k_float, ACL_COUNT_OF(k_float), "grad_x"));
    ACL_TRY(acl_check_dtype_in(idx, k_idx, ACL_COUNT_OF(k_idx), "idx"));
    ACL_TRY(acl_check_dtype_in(weight, k_float, ACL_COUNT_OF(k_float), "weight"));
    /* beyond the op_api: the shapes of the docs (the device fails them in its kernels) */
    ACL_TRY(acl_check_same_dtype(grad_x, "grad_x", grad_y, "grad_y"));
    ACLNN_CHECK(feat_shape_ok(grad_x), ACLNN_ERR_PARAM_INVALID, "grad_x should be (b, c, n) or (b, c, n, 1).");
    ACLNN_CHECK(idx->ndim == 3 && idx->dims[2] == 3, ACLNN_ERR_PARAM_INVALID, "idx should be (b, n, 3).");
    ACLNN_CHECK(weight->ndim == 3 && weight->dims[2] == 3, ACLNN_ERR_PARAM_INVALID, "weight should be (b, n, 3).");
    ACLNN_CHECK(idx->dims[0] == grad_x->dims[0] && idx->dims[1] == grad_x->dims[2], ACLNN_ERR_PARAM_INVALID,
                "idx (%lld, %lld, 3) should be (b, n, 3) of grad_x's b %lld and n %lld.", (long long)idx->dims[0],
                (long long)idx->dims[1], (long long)grad_x->dims[0], (long long)grad_x->dims[2]);
    ACLNN_CHECK(weight->dims[0] == idx->dims[0] && weight->dims[1] == idx->dims[1], ACLNN_ERR_PARAM_INVALID,
                "weight (%lld, %lld, 3) should have idx's shape.", (long long)weight->dims[0],
                (long long)weight->dims[1]);
    ACLNN_CHECK(m >= 0, ACLNN_ERR_PARAM_INVALID, "m %d should not be negative.", m);
    ACLNN_CHECK(feat_shape_ok(grad_y) && grad_y->ndim == grad_x->ndim && grad_y->dims[0] == grad_x->dims[0] &&
                    grad_y->dims[1] == grad_x->dims[1] && grad_y->dims[2] == m,
                ACLNN_ERR_PARAM_INVALID, "grad_y should be (b, c, m%s) with grad_x's b %lld, c %lld and m %d.",
                grad_x->ndim == 4 ? ", 1" : "", (long long)grad_x->dims[0], (long long)grad_x->dims[1], m);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws; (void)ws_size;
    acl_view gx = *acl_exec_in(ex, 0), gy = *acl_exec_out(ex, 0);
    gx.ndim = 3; /* a trailing 1 dropped */
    gy.ndim = 3;
    const acl_view *idx = acl_exec_in(ex, 1), *w = acl_exec_in(ex, 2);
    int rc = gx.dtype == ACL_FLOAT ? acl_three_interp_bwd_f32(&gx, idx, w, &gy)
                                   : acl_three_interp_bwd_f16(&gx, idx, w, &gy);
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the three_interpolate buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ThreeInterpolateBackward(const aclTensor *grad_x, const aclTensor *idx, const aclTensor *weight,
                                          int m, aclTensor *grad_y, uint64_t *workspaceSize,
                                          aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(check_params(grad_x, idx, weight, m, grad_y));
    if (acl_tensor_empty(grad_x) || acl_tensor_empty(idx) || acl_tensor_empty(weight))
        return acl_exec_noop(ACL_OP_ThreeInterpolateBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ThreeInterpolateBackward, run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, grad_x, "grad_x", true);
    if (rc == 0) rc = acl_exec_add_input(ex, idx, "idx", true);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (rc == 0) rc = acl_exec_add_output(ex, grad_y, "grad_y");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
