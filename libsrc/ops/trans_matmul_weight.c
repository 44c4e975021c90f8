/* aclnnTransMatmulWeight and its size helpers aclnnCalculateMatmulWeightSize(V2) (ops-math conversion/trans_data; the header
 * aclnn_trans_matmul_weight.h). On the device the weight is rewritten in place into the private FRACTAL_NZ layout,
 * in a buffer of the size the helpers report (the last two dims padded to 16 x 16 blocks for FLOAT16/BF16, 16 x 32 otherwise);
 * the matmul ops that take the weight afterwards read that layout. The emulator's matmul ops read every weight in
 * ND, so its "matmul layout" is ND itself: the first phase checks the weight (NULL 161001, dtype 161002, rank >= 2
 * 161002) and the second phase leaves its bytes as they are. A program that reads the converted weight back
 * itself (rather than passing it to a matmul) sees ND data where the device would show NZ blocks. */
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

static aclnnStatus tmw_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ex, (void)ws, (void)wss;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_TransMatmulWeight(aclTensor *mmWeightRef, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(mmWeightRef, "mmWeightRef"));
    ACL_TRY(acl_check_dtype_in(mmWeightRef, ACL_DT_LIST_TransMatmulWeight, "mmWeightRef"));
    ACLNN_CHECK(mmWeightRef->ndim >= 2 && mmWeightRef->ndim <= 6, ACLNN_ERR_PARAM_INVALID,
                "mmWeightRef must have 2 to 6 dims, but it has %d.", (int)mmWeightRef->ndim);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_TransMatmulWeight, tmw_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, mmWeightRef, "mmWeightRef");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* The FRACTAL_NZ element count (the op_api's rule): batch dims as they are, the last two rounded up to the block,
 * 16 x 16 for FLOAT16/BF16 and 16 x 32 for every other dataType (not checked: the op_api does not). V2 also refuses
 * a zero dimension. Negative dimensions and an int64 overflow are refused here (the op_api would wrap). */
static aclnnStatus tmw_size(const aclIntArray *shape, aclDataType dt, uint64_t *size, bool v2, const char *api) {
    ACLNN_CHECK(shape != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s: tensorShape must not be NULL.", api);
    ACLNN_CHECK(size != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s: weightTensorSize must not be NULL.", api);
    ACLNN_CHECK(shape->size >= 2 && shape->size <= 6, ACLNN_ERR_PARAM_INVALID,
                "%s: tensorShape is expected to have 2-6 dimensions, but it has %llu.", api,
                (unsigned long long)shape->size);
    for (uint64_t i = 0; v2 && i < shape->size; i++)
        ACLNN_CHECK(shape->v[i] != 0, ACLNN_ERR_PARAM_INVALID, "%s: tensorShape[%llu] is 0: no zeros are allowed.",
                    api, (unsigned long long)i);
    const int64_t c0 = dt == ACL_FLOAT16 || dt == ACL_BF16 ? 16 : 32;
    int64_t total = 1;
    for (uint64_t i = 0; i < shape->size; i++) {
        int64_t d = shape->v[i];
        ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "%s: tensorShape[%llu] = %lld must not be negative.", api,
                    (unsigned long long)i, (long long)d);
        if (i == shape->size - 2) d = (d + 15) / 16 * 16;
        else if (i == shape->size - 1) d = (d + c0 - 1) / c0 * c0;
        ACLNN_CHECK(d == 0 || total <= INT64_MAX / d, ACLNN_ERR_PARAM_INVALID, "%s: tensorShape's size overflows.",
                    api);
        total *= d;
    }
    *size = (uint64_t)total;
    return ACLNN_SUCCESS;
}

ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSize(const aclIntArray *tensorShape, uint64_t *weightTensorSize) {
    return tmw_size(tensorShape, ACL_FLOAT16, weightTensorSize, false, "aclnnCalculateMatmulWeightSize");
}

ACLNN_API aclnnStatus aclnnCalculateMatmulWeightSizeV2(const aclIntArray *tensorShape, aclDataType dataType,
                                                       uint64_t *weightTensorSize) {
    return tmw_size(tensorShape, dataType, weightTensorSize, true, "aclnnCalculateMatmulWeightSizeV2");
}
