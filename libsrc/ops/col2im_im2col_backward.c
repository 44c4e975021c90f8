/* aclnnIm2colBackward (ops-cv image/col2im): the gradient of im2col, torch.nn.functional.fold. gradOutput
 * [N, C*kh*kw, L] (or [C*kh*kw, L]) -> out [N, C, H, W] (or [C, H, W]); gradOutput and out may differ in dtype
 * (the op_api casts its result to out's). Validation in the op_api's order: NULLs, dtypes, ranks, array lengths,
 * array values, channel divisibility, L, the out shape. */
#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/shape.h"
#include "kernels/col2im.h"
#include "ops/ops.h"

static aclnnStatus check_arrays(const aclTensor *go, const aclIntArray *inputSize, const aclIntArray *kernelSize,
                                const aclIntArray *dilation, const aclIntArray *padding, const aclIntArray *stride) {
    const aclIntArray *arrs[] = {inputSize, kernelSize, dilation, padding, stride};
    const char *names[] = {"inputSize", "kernelSize", "dilation", "padding", "stride"};
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(arrs[i]->size == 2, ACLNN_ERR_PARAM_INVALID, "%s should have 2 elements, but it has %llu.",
                    names[i], (unsigned long long)arrs[i]->size);
    const int64_t *k = kernelSize->v, *s = stride->v, *d = dilation->v, *p = padding->v, *in = inputSize->v;
    ACLNN_CHECK(k[0] > 0 && k[1] > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize (%lld, %lld) should be positive.",
                (long long)k[0], (long long)k[1]);
    ACLNN_CHECK(s[0] > 0 && s[1] > 0, ACLNN_ERR_PARAM_INVALID, "stride (%lld, %lld) should be positive.",
                (long long)s[0], (long long)s[1]);
    ACLNN_CHECK(d[0] > 0 && d[1] > 0, ACLNN_ERR_PARAM_INVALID, "dilation (%lld, %lld) should be positive.",
                (long long)d[0], (long long)d[1]);
    ACLNN_CHECK(p[0] >= 0 && p[1] >= 0, ACLNN_ERR_PARAM_INVALID, "padding (%lld, %lld) should not be negative.",
                (long long)p[0], (long long)p[1]);
    int64_t kk;
    ACLNN_CHECK(acl_mul_i64(k[0], k[1], &kk), ACLNN_ERR_PARAM_INVALID,
                "kernelSize (%lld, %lld): the product overflows int64.", (long long)k[0], (long long)k[1]);
    bool r3 = go->ndim == 3;
    int64_t plane = go->dims[r3 ? 1 : 0], numL = go->dims[r3 ? 2 : 1];
    ACLNN_CHECK(plane % kk == 0, ACLNN_ERR_PARAM_INVALID,
                "gradOutput dim -2 (%lld) should be divisible by kernelSize[0] * kernelSize[1] (%lld).",
                (long long)plane, (long long)kk);
    int64_t l[2];
    for (int i = 0; i < 2; i++) {
        /* (in + 2p - d(k-1) - 1) / s + 1, in int64 (a negative count fails below) */
        int64_t span, t;
        bool ok = acl_mul_i64(d[i], k[i] - 1, &span) && !__builtin_mul_overflow(p[i], 2, &t) &&
                  !__builtin_add_overflow(in[i], t, &t) && !__builtin_sub_overflow(t, span, &t);
        ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "inputSize, padding, dilation and kernelSize of dim %d overflow int64.",
                    i);
        l[i] = (t - 1 + s[i]) / s[i];
        ACLNN_CHECK(l[i] >= 0, ACLNN_ERR_PARAM_INVALID,
                    "inputSize[%d] %lld is smaller than the dilated kernel (%lld) less twice the padding (%lld).", i,
                    (long long)in[i], (long long)(span + 1), (long long)p[i]);
    }
    int64_t ll;
    ACLNN_CHECK(acl_mul_i64(l[0], l[1], &ll) && ll == numL, ACLNN_ERR_PARAM_INVALID,
                "gradOutput dim -1 (%lld) should be %lld * %lld, the number of kernel positions.", (long long)numL,
                (long long)l[0], (long long)l[1]);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_params(const aclTensor *gradOutput, const aclIntArray *inputSize,
                                const aclIntArray *kernelSize, const aclIntArray *dilation, const aclIntArray *padding,
                                const aclIntArray *stride, const aclTensor *out) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_Im2colBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Im2colBackward, "out"));
    ACLNN_CHECK(gradOutput->ndim == 2 || gradOutput->ndim == 3, ACLNN_ERR_PARAM_INVALID,
                "gradOutput rank %llu should be 2 or 3.", (unsigned long long)gradOutput->ndim);
    ACLNN_CHECK(out->ndim == gradOutput->ndim + 1, ACLNN_ERR_PARAM_INVALID,
                "out rank %llu should be gradOutput rank %llu plus 1.", (unsigned long long)out->ndim,
                (unsigned long long)gradOutput->ndim);
    ACL_TRY(check_arrays(gradOutput, inputSize, kernelSize, dilation, padding, stride));
    bool r3 = gradOutput->ndim == 3;
    int64_t kk = kernelSize->v[0] * kernelSize->v[1];
    int64_t exp[4], n = 0;
    if (r3) exp[n++] = gradOutput->dims[0];
    exp[n++] = gradOutput->dims[r3 ? 1 : 0] / kk;
    exp[n++] = inputSize->v[0];
    exp[n++] = inputSize->v[1];
    bool same = true;
    for (int i = 0; i < n; i++) same = same && out->dims[i] == exp[i];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "out shape should be (%s%lld, %lld, %lld).",
                r3 ? "N, " : "", (long long)exp[n - 3], (long long)exp[n - 2], (long long)exp[n - 1]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws; (void)ws_size;
    const col2im_params *p = ex->params;
    acl_view go = *acl_exec_in(ex, 0), out = *acl_exec_out(ex, 0);
    if (go.ndim == 2) { /* a leading batch of 1 */
        for (int i = 2; i > 0; i--) { go.dims[i] = go.dims[i - 1]; go.strides[i] = go.strides[i - 1]; }
        go.dims[0] = 1; go.strides[0] = 0; go.ndim = 3;
        for (int i = 3; i > 0; i--) { out.dims[i] = out.dims[i - 1]; out.strides[i] = out.strides[i - 1]; }
        out.dims[0] = 1; out.strides[0] = 0; out.ndim = 4;
    }
    int rc;
    switch (go.dtype) {
    case ACL_FLOAT: rc = acl_col2im_f32(&go, &out, p); break;
    case ACL_FLOAT16: rc = acl_col2im_f16(&go, &out, p); break;
    case ACL_BF16: rc = acl_col2im_bf16(&go, &out, p); break;
    default: return ACL_REPORT(ACLNN_ERR_INNER, "unsupported dtype %s", acl_dtype_name(go.dtype));
    }
    ACLNN_CHECK(rc == 0, ACLNN_ERR_INNER, "out of memory for the col2im row buffers");
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Im2colBackward(const aclTensor *gradOutput, const aclIntArray *inputSize,
                                const aclIntArray *kernelSize, const aclIntArray *dilation,
                                const aclIntArray *padding, const aclIntArray *stride, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(check_params(gradOutput, inputSize, kernelSize, dilation, padding, stride, out));
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_Im2colBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Im2colBackward, run, sizeof(col2im_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    const int64_t *k = kernelSize->v, *d = dilation->v, *p = padding->v, *s = stride->v, *in = inputSize->v;
    bool r3 = gradOutput->ndim == 3;
    col2im_params *cp = ex->params;
    *cp = (col2im_params){gradOutput->dims[r3 ? 1 : 0] / (k[0] * k[1]), in[0], in[1], k[0], k[1], d[0], d[1],
                          p[0], p[1], s[0], s[1], 0, 0};
    cp->lh = (in[0] + 2 * p[0] - d[0] * (k[0] - 1) - 1 + s[0]) / s[0];
    cp->lw = (in[1] + 2 * p[1] - d[1] * (k[1] - 1) - 1 + s[1]) / s[1];
    return acl_exec_publish(ex, workspaceSize, executor);
}
