/* aclnnRoiAlign (boxes (K, 4) + int32 batch indices, mode "avg"/"max") and aclnnRoiAlignV2 (boxes (K, 5) with the
 * batch index in column 0, "avg", aligned flag): ops-cv objdetect/roi_align. Validation in the op_api's order:
 * NULL, dtypes, storage formats, shapes, attributes; then an empty input gives an all-zero output. */
#include <float.h>
#include <string.h>

#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernels/roi_align.h"
#include "ops/ops.h"

static const aclFormat k_nchw[] = {ACL_FORMAT_NCHW};
static const aclFormat k_nd[] = {ACL_FORMAT_ND};

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws, (void)ws_size;
    const roia_params *p = ex->params;
    const bool v1 = ex->n_in == 3;
    const acl_view *x = acl_exec_in(ex, 0), *rois = acl_exec_in(ex, 1), *bidx = v1 ? acl_exec_in(ex, 2) : NULL;
    const acl_view *out = acl_exec_out(ex, 0);
    int rc;
    switch (out->dtype) {
    case ACL_FLOAT: rc = acl_roi_align_fwd_f32(x, rois, bidx, out, p); break;
    case ACL_FLOAT16: rc = acl_roi_align_fwd_f16(x, rois, bidx, out, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(out->dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the RoI Align sample tables");
    return ACLNN_SUCCESS;
}

/* the out shape rules both versions share: (K, C, pooled H, pooled W) */
static aclnnStatus check_out_shape(const aclTensor *self, const aclTensor *rois, const char *rname,
                                   const aclTensor *out, int64_t ph, const char *phname, int64_t pw,
                                   const char *pwname) {
    ACLNN_CHECK(out->dims[0] == rois->dims[0], ACLNN_ERR_PARAM_INVALID,
                "out shape dim0 [%lld] and %s shape dim0 [%lld] should be equal.", (long long)out->dims[0], rname,
                (long long)rois->dims[0]);
    ACLNN_CHECK(out->dims[1] == self->dims[1], ACLNN_ERR_PARAM_INVALID,
                "out shape dim1 [%lld] and self shape dim1 [%lld] should be equal.", (long long)out->dims[1],
                (long long)self->dims[1]);
    ACLNN_CHECK(out->dims[2] == ph, ACLNN_ERR_PARAM_INVALID, "out shape dim2 [%lld] and %s [%lld] should be equal.",
                (long long)out->dims[2], phname, (long long)ph);
    ACLNN_CHECK(out->dims[3] == pw, ACLNN_ERR_PARAM_INVALID, "out shape dim3 [%lld] and %s [%lld] should be equal.",
                (long long)out->dims[3], pwname, (long long)pw);
    return ACLNN_SUCCESS;
}

static aclnnStatus publish(int op, const aclTensor *self, const aclTensor *rois, const aclTensor *bidx,
                           const aclTensor *out, roia_params prm, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, run, sizeof(roia_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !prm.zero_only);
    if (rc == 0) rc = acl_exec_add_input(ex, rois, bidx ? "rois" : "boxes", !prm.zero_only);
    if (rc == 0 && bidx) rc = acl_exec_add_input(ex, bidx, "batchIndices", !prm.zero_only);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(roia_params *)ex->params = prm;
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- aclnnRoiAlign ---- */

aclnnStatus opws_RoiAlign(const aclTensor *self, const aclTensor *rois, const aclTensor *batchIndices,
                          const char *mode, int outputHeight, int outputWidth, int samplingRatio, float spatialScale,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(rois, "rois"));
    ACL_TRY(acl_check_tensor(batchIndices, "batchIndices"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_RoiAlign, "self"));
    ACL_TRY(acl_check_dtype_in(batchIndices, ACL_DT_LIST_RoiAlign_batchIndices, "batchIndices"));
    ACL_TRY(acl_check_same_dtype(self, "self", rois, "rois"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_format_in(self, k_nchw, 1, "self"));
    ACL_TRY(acl_check_format_in(rois, k_nd, 1, "rois"));
    ACL_TRY(acl_check_format_in(batchIndices, k_nd, 1, "batchIndices"));
    ACL_TRY(acl_check_format_in(out, k_nchw, 1, "out"));
    ACL_TRY(acl_check_rank(self, 4, "self"));
    ACL_TRY(acl_check_rank(rois, 2, "rois"));
    ACL_TRY(acl_check_rank(batchIndices, 1, "batchIndices"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACLNN_CHECK(rois->dims[0] == batchIndices->dims[0], ACLNN_ERR_PARAM_INVALID,
                "rois shape dim0 [%lld] and batchIndices shape dim0 [%lld] should be equal.",
                (long long)rois->dims[0], (long long)batchIndices->dims[0]);
    ACLNN_CHECK(rois->dims[1] == 4, ACLNN_ERR_PARAM_INVALID, "rois shape dim1 [%lld] should be 4.",
                (long long)rois->dims[1]);
    ACL_TRY(check_out_shape(self, rois, "rois", out, outputHeight, "outputHeight", outputWidth, "outputWidth"));
    ACLNN_CHECK(mode != NULL, ACLNN_ERR_PARAM_INVALID, "mode is null, it should be \"avg\" or \"max\".");
    ACLNN_CHECK(strcmp(mode, "avg") == 0 || strcmp(mode, "max") == 0, ACLNN_ERR_PARAM_INVALID,
                "mode should be \"avg\" or \"max\", but it is \"%s\".", mode);
    ACLNN_CHECK(samplingRatio >= 0, ACLNN_ERR_PARAM_INVALID, "samplingRatio [%d] should be >= 0.", samplingRatio);
    ACLNN_CHECK(!(spatialScale <= 0.0f), ACLNN_ERR_PARAM_INVALID, "spatialScale [%f] should be greater than 0.",
                (double)spatialScale);
    roia_params prm = {outputHeight, outputWidth, samplingRatio, spatialScale, false, strcmp(mode, "max") == 0,
                       acl_tensor_empty(self) || acl_tensor_empty(rois)};
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_RoiAlign, workspaceSize, executor);
    return publish(ACL_OP_RoiAlign, self, rois, batchIndices, out, prm, workspaceSize, executor);
}

/* ---- aclnnRoiAlignV2 ---- */

aclnnStatus opws_RoiAlignV2(const aclTensor *self, const aclTensor *boxes, int64_t pooledHeight, int64_t pooledWidth,
                            float spatialScale, int64_t samplingRatio, bool aligned, aclTensor *out,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(boxes, "boxes"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_RoiAlignV2, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", boxes, "boxes"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_format_in(self, k_nchw, 1, "self"));
    ACL_TRY(acl_check_format_in(boxes, k_nd, 1, "boxes"));
    ACL_TRY(acl_check_format_in(out, k_nchw, 1, "out"));
    ACL_TRY(acl_check_rank(self, 4, "self"));
    ACL_TRY(acl_check_rank(boxes, 2, "boxes"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACLNN_CHECK(self->dims[0] != 0 && self->dims[2] != 0 && self->dims[3] != 0, ACLNN_ERR_PARAM_INVALID,
                "self shape [%lld,%lld,%lld,%lld] contains 0 in N/H/W.", (long long)self->dims[0],
                (long long)self->dims[1], (long long)self->dims[2], (long long)self->dims[3]);
    ACLNN_CHECK(boxes->dims[1] == 5, ACLNN_ERR_PARAM_INVALID, "boxes shape dim1 [%lld] should be 5.",
                (long long)boxes->dims[1]);
    ACL_TRY(check_out_shape(self, boxes, "boxes", out, pooledHeight, "pooledHeight", pooledWidth, "pooledWidth"));
    ACLNN_CHECK(samplingRatio >= 0, ACLNN_ERR_PARAM_INVALID, "samplingRatio [%lld] should be >= 0.",
                (long long)samplingRatio);
    ACLNN_CHECK(!(spatialScale <= FLT_MIN), ACLNN_ERR_PARAM_INVALID, "spatialScale [%f] should be greater than 0.",
                (double)spatialScale);
    roia_params prm = {pooledHeight, pooledWidth, samplingRatio, spatialScale, aligned, false,
                       acl_tensor_empty(self) || acl_tensor_empty(boxes)};
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_RoiAlignV2, workspaceSize, executor);
    return publish(ACL_OP_RoiAlignV2, self, boxes, NULL, out, prm, workspaceSize, executor);
}
