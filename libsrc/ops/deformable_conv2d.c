/* aclnnDeformableConv2d: modulated deformable 2-d convolution (DCNv2). The masked bilinear samples form
 * deformOut (N, C_in, oH * kH, oW * kW) in fp32; out is its convolution with weight at stride (kH, kW), plus bias.
 * Checks in the op_api's order (NULL, dtype, format, attributes, ranks, shapes). */
#include <stdlib.h>

#include "common/dtype.h"
#include "kernels/conv.h"
#include "ops/conv_util.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

__extension__ typedef __int128 i128;

typedef struct {
    conv_deform geo;
    conv_plan *conv;
    bool has_bias, has_deform;
} deform_params;

static void deform_free(void *pp) {
    deform_params *p = pp;
    if (p) conv_plan_free(p->conv);
    free(p);
}

static const int64_t k_max_kernel = 2048, k_max_matmul_k = 65535, k_int_max = 2147483647;

static aclnnStatus check_shape_eq(const aclTensor *t, const int64_t *want, uint64_t r, const char *name) {
    ACLNN_CHECK(t->ndim == r, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims, it must have %llu", name,
                (unsigned long long)t->ndim, (unsigned long long)r);
    for (uint64_t i = 0; i < r; i++)
        if (t->dims[i] != want[i]) {
            char got[256];
            acl_shape_str(t, got, sizeof got);
            if (r == 1)
                return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has shape %s, it must be [%lld]", name, got,
                                  (long long)want[0]);
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has shape %s, it must be [%lld, %lld, %lld, %lld]", name,
                              got, (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3]);
        }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_params(const aclTensor *x, const aclTensor *weight, const aclTensor *offset,
                                const aclTensor *bias, const aclIntArray *kernelSize, const aclIntArray *stride,
                                const aclIntArray *padding, const aclIntArray *dilation, int64_t groups,
                                int64_t deformableGroups, bool modulated, const aclTensor *out,
                                const aclTensor *deformOut) {
    /* NULL */
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_tensor(offset, "offset"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    /* dtypes: x in the list, everything else x's dtype */
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_DeformableConv2d, "x"));
    if (bias)
        ACLNN_CHECK(bias->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID, "biasOptional's dtype %s must be x's dtype %s",
                    acl_dtype_name(bias->dtype), acl_dtype_name(x->dtype));
    if (deformOut)
        ACLNN_CHECK(deformOut->dtype == x->dtype, ACLNN_ERR_PARAM_INVALID,
                    "deformOutOptional's dtype %s must be x's dtype %s", acl_dtype_name(deformOut->dtype),
                    acl_dtype_name(x->dtype));
    ACLNN_CHECK(offset->dtype == x->dtype && weight->dtype == x->dtype && out->dtype == x->dtype,
                ACLNN_ERR_PARAM_INVALID, "the dtypes of offset (%s), weight (%s) and out (%s) must be x's dtype %s",
                acl_dtype_name(offset->dtype), acl_dtype_name(weight->dtype), acl_dtype_name(out->dtype),
                acl_dtype_name(x->dtype));
    /* formats (A2): x NCHW or ND, the others x's (bias ND) */
    ACLNN_CHECK(fmt_is(x, ACL_FORMAT_NCHW) || fmt_is(x, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID,
                "x's format %s must be NCHW or ND", acl_format_name(x->format));
    ACLNN_CHECK(offset->format == x->format, ACLNN_ERR_PARAM_INVALID, "offset's format %s must be x's format %s",
                acl_format_name(offset->format), acl_format_name(x->format));
    ACLNN_CHECK(weight->format == x->format, ACLNN_ERR_PARAM_INVALID, "weight's format %s must be x's format %s",
                acl_format_name(weight->format), acl_format_name(x->format));
    if (bias)
        ACLNN_CHECK(fmt_is(bias, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID, "biasOptional's format %s must be ND",
                    acl_format_name(bias->format));
    ACLNN_CHECK(out->format == x->format, ACLNN_ERR_PARAM_INVALID, "out's format %s must be x's format %s",
                acl_format_name(out->format), acl_format_name(x->format));
    if (deformOut)
        ACLNN_CHECK(deformOut->format == x->format, ACLNN_ERR_PARAM_INVALID,
                    "deformOutOptional's format %s must be x's format %s", acl_format_name(deformOut->format),
                    acl_format_name(x->format));
    /* attributes */
    ACLNN_CHECK(kernelSize->size == 2, ACLNN_ERR_PARAM_INVALID, "kernelSize has %llu values, it must have 2",
                (unsigned long long)kernelSize->size);
    ACLNN_CHECK(stride->size == 4, ACLNN_ERR_PARAM_INVALID, "stride has %llu values, it must have 4",
                (unsigned long long)stride->size);
    ACLNN_CHECK(padding->size == 4, ACLNN_ERR_PARAM_INVALID, "padding has %llu values, it must have 4",
                (unsigned long long)padding->size);
    ACLNN_CHECK(dilation->size == 4, ACLNN_ERR_PARAM_INVALID, "dilation has %llu values, it must have 4",
                (unsigned long long)dilation->size);
    const int64_t kH = kernelSize->v[0], kW = kernelSize->v[1];
    ACLNN_CHECK(kH > 0 && kW > 0, ACLNN_ERR_PARAM_INVALID, "kernelSize [%lld, %lld] must be > 0", (long long)kH,
                (long long)kW);
    ACLNN_CHECK((i128)kH * kW <= k_max_kernel, ACLNN_ERR_PARAM_INVALID,
                "kernelSize [%lld, %lld]: kH * kW must be <= %lld", (long long)kH, (long long)kW,
                (long long)k_max_kernel);
    ACLNN_CHECK(stride->v[0] == 1 && stride->v[1] == 1, ACLNN_ERR_PARAM_INVALID,
                "stride[0] and stride[1] (N, C) must be 1");
    ACLNN_CHECK(stride->v[2] > 0 && stride->v[3] > 0, ACLNN_ERR_PARAM_INVALID,
                "stride[2] and stride[3] (H, W) must be > 0");
    ACLNN_CHECK(dilation->v[0] == 1 && dilation->v[1] == 1, ACLNN_ERR_PARAM_INVALID,
                "dilation[0] and dilation[1] (N, C) must be 1");
    ACLNN_CHECK(dilation->v[2] > 0 && dilation->v[3] > 0, ACLNN_ERR_PARAM_INVALID,
                "dilation[2] and dilation[3] (H, W) must be > 0");
    ACLNN_CHECK(groups > 0, ACLNN_ERR_PARAM_INVALID, "groups = %lld must be > 0", (long long)groups);
    ACLNN_CHECK(deformableGroups > 0, ACLNN_ERR_PARAM_INVALID, "deformableGroups = %lld must be > 0",
                (long long)deformableGroups);
    ACLNN_CHECK(modulated, ACLNN_ERR_PARAM_INVALID, "modulated must be true");
    /* ranks */
    ACLNN_CHECK(x->ndim == 4, ACLNN_ERR_PARAM_INVALID, "x has %llu dims, it must have 4", (unsigned long long)x->ndim);
    ACLNN_CHECK(weight->ndim == 4, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, it must have 4",
                (unsigned long long)weight->ndim);
    ACLNN_CHECK(offset->ndim == 4, ACLNN_ERR_PARAM_INVALID, "offset has %llu dims, it must have 4",
                (unsigned long long)offset->ndim);
    if (bias)
        ACLNN_CHECK(bias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "biasOptional has %llu dims, it must have 1",
                    (unsigned long long)bias->ndim);
    ACLNN_CHECK(out->ndim == 4, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, it must have 4",
                (unsigned long long)out->ndim);
    if (deformOut)
        ACLNN_CHECK(deformOut->ndim == 4, ACLNN_ERR_PARAM_INVALID, "deformOutOptional has %llu dims, it must have 4",
                    (unsigned long long)deformOut->ndim);
    /* shapes */
    const int64_t n = x->dims[0], inC = x->dims[1], inH = x->dims[2], inW = x->dims[3], outC = weight->dims[0];
    ACLNN_CHECK(inC % deformableGroups == 0, ACLNN_ERR_PARAM_INVALID,
                "x's C (%lld) must be divisible by deformableGroups (%lld)", (long long)inC,
                (long long)deformableGroups);
    ACLNN_CHECK(inC % groups == 0 && outC % groups == 0, ACLNN_ERR_PARAM_INVALID,
                "x's C (%lld) and weight's dim 0 (%lld) must be divisible by groups (%lld)", (long long)inC,
                (long long)outC, (long long)groups);
    ACLNN_CHECK((i128)inH * inW <= k_int_max, ACLNN_ERR_PARAM_INVALID, "x's H * W must be <= %lld",
                (long long)k_int_max);
    i128 oh = ((i128)inH + padding->v[0] + padding->v[1] - (i128)(kH - 1) * dilation->v[2] - 1) / stride->v[2] + 1;
    i128 ow = ((i128)inW + padding->v[2] + padding->v[3] - (i128)(kW - 1) * dilation->v[3] - 1) / stride->v[3] + 1;
    ACLNN_CHECK(oh >= INT64_MIN / 4 && oh <= INT64_MAX / 4 && ow >= INT64_MIN / 4 && ow <= INT64_MAX / 4,
                ACLNN_ERR_PARAM_INVALID, "the padding, dilation or kernelSize are too large");
    const int64_t wexp[4] = {outC, inC / groups, kH, kW};
    ACL_TRY(check_shape_eq(weight, wexp, 4, "weight"));
    const int64_t oexp[4] = {n, 3 * deformableGroups * kH * kW, (int64_t)oh, (int64_t)ow};
    ACL_TRY(check_shape_eq(offset, oexp, 4, "offset"));
    if (bias) ACL_TRY(check_shape_eq(bias, &outC, 1, "biasOptional"));
    const int64_t yexp[4] = {n, outC, (int64_t)oh, (int64_t)ow};
    ACL_TRY(check_shape_eq(out, yexp, 4, "out"));
    if (deformOut) {
        const int64_t dexp[4] = {n, inC, (int64_t)oh * kH, (int64_t)ow * kW};
        ACL_TRY(check_shape_eq(deformOut, dexp, 4, "deformOutOptional"));
    }
    ACLNN_CHECK((i128)kH * kW * (inC / groups) <= k_max_matmul_k, ACLNN_ERR_PARAM_INVALID,
                "x's C / groups * kH * kW must be <= %lld", (long long)k_max_matmul_k);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const deform_params *p = ex->params;
    const conv_deform *g = &p->geo;
    const acl_view *x = acl_exec_in(ex, 0), *w = acl_exec_in(ex, 1), *off = acl_exec_in(ex, 2);
    const acl_view *bias = p->has_bias ? acl_exec_in(ex, 3) : NULL;
    const int64_t H = g->oh * g->kh, W = g->ow * g->kw;
    float *buf = malloc((size_t)(g->n * g->c * H * W) * sizeof(float) + 4);
    if (!buf) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the deformable samples");
    conv_deform_gather(x, off, g, buf);
    if (p->has_deform) conv_store_view(buf, acl_exec_out(ex, 1));
    acl_view dv = {.base = (char *)buf, .data = buf, .offset = 0, .dtype = ACL_FLOAT, .ndim = 4,
                   .dims = {g->n, g->c, H, W}, .strides = {g->c * H * W, H * W, W, 1}};
    int rc = conv_forward(p->conv, &dv, w, bias, acl_exec_out(ex, 0));
    free(buf);
    return rc;
}

aclnnStatus opws_DeformableConv2d(const aclTensor *x, const aclTensor *weight, const aclTensor *offset,
                                  const aclTensor *biasOptional, const aclIntArray *kernelSize,
                                  const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                                  int64_t groups, int64_t deformableGroups, bool modulated, aclTensor *out,
                                  aclTensor *deformOutOptional, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_params(x, weight, offset, biasOptional, kernelSize, stride, padding, dilation, groups,
                         deformableGroups, modulated, out, deformOutOptional));
    if (acl_tensor_empty(x) || acl_tensor_empty(weight) || acl_tensor_empty(offset))
        return acl_exec_noop(ACL_OP_DeformableConv2d, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_DeformableConv2d, run, sizeof(deform_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = deform_free;
    aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (rc == 0) rc = acl_exec_add_input(ex, offset, "offset", true);
    if (rc == 0 && biasOptional) rc = acl_exec_add_input(ex, biasOptional, "biasOptional", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc == 0 && deformOutOptional) rc = acl_exec_add_output(ex, deformOutOptional, "deformOutOptional");
    if (rc) return acl_exec_discard(ex, rc);
    deform_params *p = ex->params;
    p->has_bias = biasOptional != NULL;
    p->has_deform = deformOutOptional != NULL;
    const int64_t kH = kernelSize->v[0], kW = kernelSize->v[1];
    p->geo = (conv_deform){.n = x->dims[0], .c = x->dims[1], .h = x->dims[2], .w = x->dims[3], .oh = out->dims[2],
                           .ow = out->dims[3], .kh = kH, .kw = kW, .sh = stride->v[2], .sw = stride->v[3],
                           .ph = padding->v[0], .pw = padding->v[2], .dh = dilation->v[2], .dw = dilation->v[3],
                           .dg = deformableGroups};
    if ((i128)p->geo.n * p->geo.c * p->geo.oh * kH * p->geo.ow * kW > ((i128)1 << 32))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the deformable samples would be too large"));
    conv_plan *c = calloc(1, sizeof(conv_plan));
    if (!c) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory"));
    p->conv = c;
    c->n = x->dims[0];
    c->ci = x->dims[1];
    c->co = weight->dims[0];
    c->groups = groups;
    c->has_bias = biasOptional != NULL;
    c->in[0] = c->out[0] = c->k[0] = c->s[0] = c->d[0] = 1;
    c->in[1] = p->geo.oh * kH;
    c->in[2] = p->geo.ow * kW;
    c->out[1] = p->geo.oh;
    c->out[2] = p->geo.ow;
    c->k[1] = kH;
    c->k[2] = kW;
    c->s[1] = kH;
    c->s[2] = kW;
    c->d[1] = c->d[2] = 1;
    const int nchw[5] = {0, 1, -1, 2, 3};
    for (int i = 0; i < 5; i++) c->xpos[i] = c->wpos[i] = c->ypos[i] = nchw[i];
    if (!conv_plan_build(c)) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the buffers are too large"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
