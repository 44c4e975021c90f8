/* aclnnQuantConvolution (A2): per-channel quantized 3-d convolution, NCDHW int8 input and weight, FLOAT scale,
 * bias required (FLOAT, or the output's FLOAT16 / BFLOAT16), output FLOAT16 / BFLOAT16, groups 1.
 * y = (sum of int8 products) * scale[c_out] + bias[c_out]. Checks in the op_api's checker order (NULL, dtypes,
 * ranks, formats, values, inferred output shape). offset, transposed, outputPadding, offsetx and roundMode are not
 * read on A2. */
#include <stdlib.h>

#include "common/dtype.h"
#include "kernels/conv.h"
#include "ops/conv_util.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

__extension__ typedef __int128 i128;

/* (x, weight, output, bias) dtype groups of the A2 op_api */
static const aclDataType k_groups[4][4] = {
    {ACL_INT8, ACL_INT8, ACL_BF16, ACL_FLOAT},
    {ACL_INT8, ACL_INT8, ACL_BF16, ACL_BF16},
    {ACL_INT8, ACL_INT8, ACL_FLOAT16, ACL_FLOAT},
    {ACL_INT8, ACL_INT8, ACL_FLOAT16, ACL_FLOAT16},
};

static aclnnStatus check_params(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                const aclTensor *scale, const aclIntArray *stride, const aclIntArray *padding,
                                const aclIntArray *dilation, int64_t groups, const aclTensor *output) {
    /* NullPtrChecker: bias first on A2 */
    ACL_TRY(acl_check_tensor(bias, "bias"));
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_tensor(scale, "scale"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_tensor(output, "output"));
    /* DtypesChecker */
    ACLNN_CHECK(scale->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "scale's dtype %s must be FLOAT",
                acl_dtype_name(scale->dtype));
    bool match = false;
    for (int i = 0; i < 4 && !match; i++)
        match = input->dtype == k_groups[i][0] && weight->dtype == k_groups[i][1] && output->dtype == k_groups[i][2] &&
                bias->dtype == k_groups[i][3];
    ACLNN_CHECK(match, ACLNN_ERR_PARAM_INVALID,
                "the dtypes of input, weight, bias, output (%s, %s, %s, %s) must be one of (INT8, INT8, FLOAT or "
                "BFLOAT16, BFLOAT16), (INT8, INT8, FLOAT or FLOAT16, FLOAT16)",
                acl_dtype_name(input->dtype), acl_dtype_name(weight->dtype), acl_dtype_name(bias->dtype),
                acl_dtype_name(output->dtype));
    /* DimsChecker */
    ACLNN_CHECK(scale->ndim == 1, ACLNN_ERR_PARAM_INVALID, "scale has %llu dims, it must have 1",
                (unsigned long long)scale->ndim);
    ACLNN_CHECK(bias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "bias has %llu dims, it must have 1",
                (unsigned long long)bias->ndim);
    ACLNN_CHECK(input->ndim == 5, ACLNN_ERR_PARAM_INVALID, "input has %llu dims, it must have 5",
                (unsigned long long)input->ndim);
    ACLNN_CHECK(weight->ndim == 5, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, it must have 5",
                (unsigned long long)weight->ndim);
    ACLNN_CHECK(output->ndim == 5, ACLNN_ERR_PARAM_INVALID, "output has %llu dims, it must have 5",
                (unsigned long long)output->ndim);
    ACLNN_CHECK(stride->size == 3, ACLNN_ERR_PARAM_INVALID, "stride has %llu values, it must have 3",
                (unsigned long long)stride->size);
    ACLNN_CHECK(dilation && dilation->size == 3, ACLNN_ERR_PARAM_INVALID, "dilation has %llu values, it must have 3",
                (unsigned long long)(dilation ? dilation->size : 0));
    ACLNN_CHECK(padding->size == 3, ACLNN_ERR_PARAM_INVALID, "padding has %llu values, it must have 3",
                (unsigned long long)padding->size);
    /* FormatsChecker */
    ACLNN_CHECK(fmt_is(bias, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID, "bias's format %s must be ND",
                acl_format_name(bias->format));
    ACLNN_CHECK(fmt_is(scale, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID, "scale's format %s must be ND",
                acl_format_name(scale->format));
    ACLNN_CHECK(fmt_is(input, ACL_FORMAT_NCDHW), ACLNN_ERR_PARAM_INVALID, "input's format %s must be NCDHW",
                acl_format_name(input->format));
    ACLNN_CHECK(fmt_is(weight, ACL_FORMAT_NCDHW), ACLNN_ERR_PARAM_INVALID, "weight's format %s must be NCDHW",
                acl_format_name(weight->format));
    ACLNN_CHECK(fmt_is(output, ACL_FORMAT_NCDHW), ACLNN_ERR_PARAM_INVALID, "output's format %s must be NCDHW",
                acl_format_name(output->format));
    /* ValuesChecker */
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(input->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "input's dim %d (%lld) must be > 0", i,
                    (long long)input->dims[i]);
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(weight->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "weight's dim %d (%lld) must be > 0", i,
                    (long long)weight->dims[i]);
    ACLNN_CHECK(bias->dims[0] == weight->dims[0], ACLNN_ERR_PARAM_INVALID,
                "bias has %lld elements, it must equal weight's dim 0 (%lld)", (long long)bias->dims[0],
                (long long)weight->dims[0]);
    ACLNN_CHECK(scale->dims[0] == weight->dims[0], ACLNN_ERR_PARAM_INVALID,
                "scale has %lld elements, it must equal weight's dim 0 (%lld)", (long long)scale->dims[0],
                (long long)weight->dims[0]);
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(stride->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%d] = %lld must be > 0", i,
                    (long long)stride->v[i]);
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(dilation->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "dilation[%d] = %lld must be > 0", i,
                    (long long)dilation->v[i]);
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(padding->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "padding[%d] = %lld must be >= 0", i,
                    (long long)padding->v[i]);
    ACLNN_CHECK(groups == 1, ACLNN_ERR_PARAM_INVALID, "groups = %lld must be 1", (long long)groups);
    ACLNN_CHECK(weight->dims[1] * groups == input->dims[1], ACLNN_ERR_PARAM_INVALID,
                "input's C (%lld) must equal weight's dim 1 (%lld) times groups", (long long)input->dims[1],
                (long long)weight->dims[1]);
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK(output->dims[i] > 0, ACLNN_ERR_PARAM_INVALID, "output's dim %d (%lld) must be > 0", i,
                    (long long)output->dims[i]);
    i128 want[5] = {input->dims[0], weight->dims[0], 0, 0, 0};
    for (int i = 0; i < 3; i++)
        want[2 + i] = ((i128)input->dims[2 + i] + 2 * (i128)padding->v[i] -
                       (i128)dilation->v[i] * (weight->dims[2 + i] - 1) - 1) / stride->v[i] + 1;
    for (int i = 0; i < 5; i++)
        ACLNN_CHECK((i128)output->dims[i] == want[i], ACLNN_ERR_PARAM_INVALID,
                    "output's dim %d is %lld, it must equal its inferred value %lld", i, (long long)output->dims[i],
                    (long long)want[i]);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const conv_plan *p = ex->params;
    conv_quant_forward(p, acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_in(ex, 3), acl_exec_in(ex, 2),
                       acl_exec_out(ex, 0));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_QuantConvolution(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                  const aclTensor *scale, const aclTensor *offset, const aclIntArray *stride,
                                  const aclIntArray *padding, const aclIntArray *dilation, bool transposed,
                                  const aclIntArray *outputPadding, int64_t groups, int32_t offsetx,
                                  const char *roundMode, aclTensor *output, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    (void)offset;
    (void)transposed;
    (void)outputPadding;
    (void)offsetx;
    (void)roundMode;
    ACL_TRY(check_params(input, weight, bias, scale, stride, padding, dilation, groups, output));
    aclOpExecutor *ex = acl_exec_create(ACL_OP_QuantConvolution, run, sizeof(conv_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = conv_plan_free;
    aclnnStatus rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (rc == 0) rc = acl_exec_add_input(ex, bias, "bias", true);
    if (rc == 0) rc = acl_exec_add_input(ex, scale, "scale", true);
    if (rc == 0) rc = acl_exec_add_output(ex, output, "output");
    if (rc) return acl_exec_discard(ex, rc);
    conv_plan *p = ex->params;
    p->n = input->dims[0];
    p->ci = input->dims[1];
    p->co = weight->dims[0];
    p->groups = 1;
    for (int a = 0; a < 3; a++) {
        p->in[a] = input->dims[2 + a];
        p->out[a] = output->dims[2 + a];
        p->k[a] = weight->dims[2 + a];
        p->s[a] = stride->v[a];
        p->d[a] = dilation->v[a];
        p->p[a] = padding->v[a];
    }
    axis_positions(input, p->xpos);
    axis_positions(weight, p->wpos);
    axis_positions(output, p->ypos);
    if (!conv_plan_build(p)) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the tables are too large"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
