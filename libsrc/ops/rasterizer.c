/* aclnnRasterizer (ops-cv image/rasterizer): the nearest triangle per pixel and its perspective-corrected
 * barycentric coordinates, as the docs define them. The op has no hand-written op_api: NULLs (v, f, findicesOut,
 * barycentricOut; dOptional may be NULL) -> 161001, dtypes of the op definition -> 161002, then the tiling's shape
 * and attribute rules -> 561002 (ACLNN_ERR_INNER_TILING_ERROR), in the tiling's order. width / height /
 * useDepthPrior are read as the tiling reads them (their low 32 bits, unsigned). dOptional and
 * occlusionTruncation take no part in the result (useDepthPrior must be 0). */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "kernels/rasterizer.h"
#include "ops/ops.h"

static aclnnStatus check_params(const aclTensor *v, const aclTensor *f, const aclTensor *d, int64_t width,
                                int64_t height, int64_t useDepthPrior, const aclTensor *fi, const aclTensor *bc) {
    ACL_TRY(acl_check_tensor(v, "v"));
    ACL_TRY(acl_check_tensor(f, "f"));
    if (d) ACL_TRY(acl_check_tensor(d, "dOptional"));
    ACL_TRY(acl_check_tensor(fi, "findicesOut"));
    ACL_TRY(acl_check_tensor(bc, "barycentricOut"));
    static const aclDataType f32[] = {ACL_FLOAT}, i32[] = {ACL_INT32};
    ACL_TRY(acl_check_dtype_in(v, f32, 1, "v"));
    ACL_TRY(acl_check_dtype_in(f, i32, 1, "f"));
    if (d) ACL_TRY(acl_check_dtype_in(d, f32, 1, "dOptional"));
    ACL_TRY(acl_check_dtype_in(fi, i32, 1, "findicesOut"));
    ACL_TRY(acl_check_dtype_in(bc, f32, 1, "barycentricOut"));
    const int T = ACLNN_ERR_INNER_TILING_ERROR;
    ACLNN_CHECK(v->ndim == 2 && f->ndim == 2 && fi->ndim == 2, T,
                "v, f and findicesOut should be 2-D, but their ranks are %llu, %llu and %llu.",
                (unsigned long long)v->ndim, (unsigned long long)f->ndim, (unsigned long long)fi->ndim);
    ACLNN_CHECK(bc->ndim == 3, T, "barycentricOut should be 3-D, but its rank is %llu.",
                (unsigned long long)bc->ndim);
    ACLNN_CHECK(f->dims[1] == 3 && bc->dims[2] == 3, T, "f dim 1 (%lld) and barycentricOut dim 2 (%lld) should be 3.",
                (long long)f->dims[1], (long long)bc->dims[2]);
    ACLNN_CHECK(v->dims[1] == 4, T, "v dim 1 should be 4, but it is %lld.", (long long)v->dims[1]);
    uint32_t w = (uint32_t)width, h = (uint32_t)height;
    ACLNN_CHECK(w >= 1 && w <= 4096 && h >= 1 && h <= 4096, T,
                "width %lld and height %lld should be in [1, 4096].", (long long)width, (long long)height);
    ACLNN_CHECK(fi->dims[0] == bc->dims[0] && fi->dims[1] == bc->dims[1] && fi->dims[0] == h && fi->dims[1] == w, T,
                "findicesOut (%lld, %lld) and barycentricOut (%lld, %lld, 3) should be (height %u, width %u).",
                (long long)fi->dims[0], (long long)fi->dims[1], (long long)bc->dims[0], (long long)bc->dims[1], h, w);
    ACLNN_CHECK((uint32_t)useDepthPrior == 0, T, "useDepthPrior should be 0, but it is %lld.",
                (long long)useDepthPrior);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws; (void)ws_size;
    const acl_view *v = acl_exec_in(ex, 0), *f = acl_exec_in(ex, 1);
    const acl_view *fi = acl_exec_out(ex, 0), *bc = acl_exec_out(ex, 1);
    ACLNN_CHECK(acl_rasterize_f32(v, f, fi, bc) == 0, ACLNN_ERR_INNER, "out of memory for the rasterizer buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Rasterizer(const aclTensor *v, const aclTensor *f, const aclTensor *dOptional, int64_t width,
                            int64_t height, double occlusionTruncation, int64_t useDepthPrior,
                            const aclTensor *findicesOut, const aclTensor *barycentricOut, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    (void)occlusionTruncation;
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(check_params(v, f, dOptional, width, height, useDepthPrior, findicesOut, barycentricOut));
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Rasterizer, run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, v, "v", true);
    if (rc == 0) rc = acl_exec_add_input(ex, f, "f", true);
    if (rc == 0) rc = acl_exec_add_output(ex, findicesOut, "findicesOut");
    if (rc == 0) rc = acl_exec_add_output(ex, barycentricOut, "barycentricOut");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
