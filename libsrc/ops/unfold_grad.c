/* aclnnUnfoldGrad (ops-math conversion/unfold_grad): the gradient of Tensor.unfold(dim, size, step), PyTorch's
 * unfold_backward. gradOut has inputSizes' shape with dim replaced by the window count W and a last dim of size
 * `size`; gradIn[..., j, ...] = sum over the windows w and offsets k with w * step + k == j of
 * gradOut[..., w, ..., k].
 *
 * First phase in the op_api's order: NULL gradOut, inputSizes, gradIn -> 561103 (the op_api reports them as inner
 * null pointers); gradOut, gradIn dtypes in the A2 list; ranks of gradOut and gradIn in [1, 8]; inputSizes one
 * entry fewer than gradOut's dims; gradIn's shape == inputSizes; 0 <= dim < rank - 1; size > 0; step > 0;
 * gradOut not FRACTAL_NZ (all 161002); then the empty early success (outputs untouched). The op_api leaves
 * gradOut's own dims to the kernel; the emulator requires them to be the unfold of inputSizes (161002), as no
 * other shape has a meaning. gradIn of another A2 dtype receives the result converted.
 *
 * Compute: a gather per gradIn element (its windows in ascending order, double accumulation, one rounding), owner
 * partitioned: the same bytes for any thread count. */
#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

typedef struct { int dim; int64_t size, step, windows; } ug_params;

static aclnnStatus ug_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ug_params *p = ex->params;
    const acl_view *go = acl_exec_in(ex, 0), *gi = acl_exec_out(ex, 0);
    const int nd = gi->ndim, dim = p->dim;
    const int64_t total = acl_view_numel(gi);
    const size_t ges = acl_dtype_size(go->dtype), ies = acl_dtype_size(gi->dtype);
    const int64_t wst = go->strides[dim], kst = go->strides[nd];
    ACL_FOR(acl_parallel_worth(total), t, 0, total, {
        int64_t r = t, goff = 0, ioff = 0, j = 0;
        for (int d = nd - 1; d >= 0; d--) {
            int64_t i = r % gi->dims[d];
            r /= gi->dims[d];
            ioff += i * gi->strides[d];
            if (d == dim) j = i;
            else goff += i * go->strides[d];
        }
        /* windows w with 0 <= j - w * step < size: w in [ceil((j - size + 1) / step), floor(j / step)] */
        int64_t wlo = j - p->size + 1 <= 0 ? 0 : (j - p->size) / p->step + 1; /* ceil without overflow */
        int64_t whi = j / p->step;
        if (whi > p->windows - 1) whi = p->windows - 1;
        double acc = 0;
        for (int64_t w = wlo; w <= whi; w++)
            acc += acl_read_f64(go->base + (goff + w * wst + (j - w * p->step) * kst) * (int64_t)ges, go->dtype);
        acl_convert(&acc, ACL_DOUBLE, 1, gi->base + ioff * (int64_t)ies, gi->dtype, 1, 1);
    });
    return ACLNN_SUCCESS;
}

aclnnStatus opws_UnfoldGrad(const aclTensor *gradOut, const aclIntArray *inputSizes, int64_t dim, int64_t size,
                            int64_t step, const aclTensor *gradIn, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(gradOut != NULL, ACLNN_ERR_INNER_NULLPTR, "gradOut must not be NULL.");
    ACLNN_CHECK(inputSizes != NULL, ACLNN_ERR_INNER_NULLPTR, "inputSizes must not be NULL.");
    ACLNN_CHECK(gradIn != NULL, ACLNN_ERR_INNER_NULLPTR, "gradIn must not be NULL.");
    ACL_TRY(acl_check_dtype_in(gradOut, ACL_DT_LIST_UnfoldGrad, "gradOut"));
    ACL_TRY(acl_check_dtype_in(gradIn, ACL_DT_LIST_UnfoldGrad, "gradIn"));
    ACLNN_CHECK(gradOut->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "gradOut has %llu dims, at most 8.",
                (unsigned long long)gradOut->ndim);
    ACLNN_CHECK(gradIn->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "gradIn has %llu dims, at most 8.",
                (unsigned long long)gradIn->ndim);
    ACLNN_CHECK(gradOut->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "gradOut must have at least 1 dim.");
    ACLNN_CHECK(gradIn->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "gradIn must have at least 1 dim.");
    const int64_t nd = (int64_t)gradOut->ndim;
    ACLNN_CHECK(inputSizes->size == (uint64_t)(nd - 1), ACLNN_ERR_PARAM_INVALID,
                "inputSizes length should be the dims of gradOut - 1 (%lld), but got %llu.", (long long)(nd - 1),
                (unsigned long long)inputSizes->size);
    bool same = gradIn->ndim == inputSizes->size;
    for (uint64_t d = 0; same && d < gradIn->ndim; d++) same = gradIn->dims[d] == inputSizes->v[d];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "gradIn's shape must equal inputSizes.");
    ACLNN_CHECK(dim >= 0 && dim < nd - 1, ACLNN_ERR_PARAM_INVALID, "dim %lld must be in [0, %lld).", (long long)dim,
                (long long)(nd - 1));
    ACLNN_CHECK(size > 0, ACLNN_ERR_PARAM_INVALID, "size %lld must be positive.", (long long)size);
    ACLNN_CHECK(step > 0, ACLNN_ERR_PARAM_INVALID, "step %lld must be positive.", (long long)step);
    ACLNN_CHECK(gradOut->format != ACL_FORMAT_FRACTAL_NZ, ACLNN_ERR_PARAM_INVALID,
                "gradOut format FRACTAL_NZ is not supported.");
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(gradIn))
        return acl_exec_noop(ACL_OP_UnfoldGrad, workspaceSize, executor);
    const int64_t n = gradIn->dims[dim], windows = n >= size ? (n - size) / step + 1 : 0;
    bool ok = gradOut->dims[nd - 1] == size && gradOut->dims[dim] == windows;
    for (int64_t d = 0; ok && d < nd - 1; d++) ok = d == dim || gradOut->dims[d] == gradIn->dims[d];
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID,
                "gradOut must be the unfold of inputSizes along dim %lld: %lld windows of size %lld.",
                (long long)dim, (long long)windows, (long long)size);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_UnfoldGrad, ug_run, sizeof(ug_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOut, "gradOut", true);
    if (!rc) rc = acl_exec_add_output(ex, gradIn, "gradIn");
    if (rc) return acl_exec_discard(ex, rc);
    *(ug_params *)ex->params = (ug_params){(int)dim, size, step, windows};
    return acl_exec_publish(ex, workspaceSize, executor);
}
