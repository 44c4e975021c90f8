/* aclnnConvolution: 1-d / 2-d / 3-d convolution and transposed convolution (NCL, NCHW, NCDHW / NDHWC), groups,
 * stride, padding (symmetric, or per side for conv1d / conv2d), dilation, output padding, optional bias.
 * Checks in the op_api's checker order: NULL, dtype, dims, formats, values, inferred output shape, cubeMathType. */
#include <stdio.h>
#include <string.h>

#include "common/dtype.h"
#include "kernels/conv.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"
#include "ops/conv_util.h"

__extension__ typedef __int128 i128;

/* The A2 cube accepts cubeMathType 0 (KEEP_DTYPE) .. 4 (USE_FP32_ADD); every value computes in fp32 here. */
static const int8_t k_cube_max = 4;


/* The inferred output shape (upstream InferShape), in i128 so huge attributes cannot wrap. */
static void infer_shape(const aclTensor *input, const aclTensor *weight, const aclIntArray *stride,
                        const aclIntArray *padding, const aclIntArray *dilation, bool transposed,
                        const aclIntArray *outputPadding, int64_t groups, i128 *shape) {
    const uint64_t r = input->ndim;
    conv_meta mi = meta_of(input), mw = meta_of(weight);
    int64_t sums[3] = {0, 0, 0};
    pad_sums(padding, r, sums);
    const int nsp = (int)r - 2;
    i128 sp[3];
    for (int i = 0; i < nsp; i++) {
        i128 in = spatial(input, &mi, i), k = spatial(weight, &mw, i), s = stride->v[i], d = dilation->v[i];
        if (!transposed) {
            i128 pad = (r == 3 || r == 4) ? sums[i] : 2 * (i128)padding->v[i];
            i128 num = in + pad - d * (k - 1) - 1;
            sp[i] = num / s + 1; /* C++ truncating division */
        } else {
            i128 pad = r == 4 ? sums[i] : 2 * (i128)padding->v[i];
            sp[i] = (in - 1) * s - pad + d * (k - 1) + outputPadding->v[i] + 1;
        }
    }
    i128 cout = transposed ? (i128)mw.c * groups : mw.n;
    int j = 0;
    shape[j++] = mi.n;
    if (!mi.clast) shape[j++] = cout;
    for (int i = 0; i < nsp; i++) shape[j++] = sp[i];
    if (mi.clast) shape[j++] = cout;
}

static aclnnStatus check_params(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                                bool transposed, const aclIntArray *outputPadding, int64_t groups,
                                const aclTensor *output, int8_t cubeMathType) {
    /* NullptrChecker */
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    ACL_TRY(acl_check_tensor(output, "output"));
    if (transposed) ACL_TRY(acl_check_int_array(outputPadding, "outputPadding"));

    /* DtypeChecker: bias first, then input, weight, output (each on its own; no promotion rule) */
    if (bias) ACL_TRY(acl_check_dtype_in(bias, ACL_DT_LIST_Convolution_bias, "bias"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_Convolution, "input"));
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_Convolution, "weight"));
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_Convolution, "output"));

    /* DimChecker */
    const uint64_t r = input->ndim;
    ACLNN_CHECK(r >= 3 && r <= 5, ACLNN_ERR_PARAM_INVALID, "input has %llu dims, it must have 3, 4 or 5",
                (unsigned long long)r);
    ACLNN_CHECK(weight->ndim >= 3 && weight->ndim <= 5, ACLNN_ERR_PARAM_INVALID,
                "weight has %llu dims, it must have 3, 4 or 5", (unsigned long long)weight->ndim);
    ACLNN_CHECK(output->ndim >= 3 && output->ndim <= 5, ACLNN_ERR_PARAM_INVALID,
                "output has %llu dims, it must have 3, 4 or 5", (unsigned long long)output->ndim);
    ACLNN_CHECK(weight->ndim == r, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, input %llu: they must agree",
                (unsigned long long)weight->ndim, (unsigned long long)r);
    ACLNN_CHECK(output->ndim == r, ACLNN_ERR_PARAM_INVALID, "output has %llu dims, input %llu: they must agree",
                (unsigned long long)output->ndim, (unsigned long long)r);
    conv_meta mi = meta_of(input), mw = meta_of(weight);
    if (bias) {
        ACLNN_CHECK(bias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "bias has %llu dims, it must have 1",
                    (unsigned long long)bias->ndim);
        if (transposed)
            ACLNN_CHECK((i128)bias->dims[0] == (i128)mw.c * groups, ACLNN_ERR_PARAM_INVALID,
                        "bias has %lld elements; with transposed it must have weight's C (%lld) * groups (%lld)",
                        (long long)bias->dims[0], (long long)mw.c, (long long)groups);
        else
            ACLNN_CHECK(bias->dims[0] == mw.n, ACLNN_ERR_PARAM_INVALID,
                        "bias has %lld elements; it must have weight's N (%lld)", (long long)bias->dims[0],
                        (long long)mw.n);
    }
    ACLNN_CHECK(stride->size == r - 2, ACLNN_ERR_PARAM_INVALID, "stride has %llu values, it must have %llu",
                (unsigned long long)stride->size, (unsigned long long)(r - 2));
    ACLNN_CHECK(dilation->size == r - 2, ACLNN_ERR_PARAM_INVALID, "dilation has %llu values, it must have %llu",
                (unsigned long long)dilation->size, (unsigned long long)(r - 2));
    if (((r == 3 || r == 4) && !transposed) || (r == 4 && transposed))
        ACLNN_CHECK(padding->size == r - 2 || padding->size == 2 * r - 4, ACLNN_ERR_PARAM_INVALID,
                    "padding has %llu values, it must have %llu or %llu", (unsigned long long)padding->size,
                    (unsigned long long)(r - 2), (unsigned long long)(2 * r - 4));
    else
        ACLNN_CHECK(padding->size == r - 2, ACLNN_ERR_PARAM_INVALID, "padding has %llu values, it must have %llu",
                    (unsigned long long)padding->size, (unsigned long long)(r - 2));
    if (transposed)
        ACLNN_CHECK(outputPadding->size == r - 2, ACLNN_ERR_PARAM_INVALID,
                    "outputPadding has %llu values, it must have %llu", (unsigned long long)outputPadding->size,
                    (unsigned long long)(r - 2));

    /* FormatChecker */
    ACLNN_CHECK(input->format == output->format, ACLNN_ERR_PARAM_INVALID,
                "input's format %s and output's format %s must be the same", acl_format_name(input->format),
                acl_format_name(output->format));
    if (bias)
        ACLNN_CHECK(fmt_is(bias, ACL_FORMAT_NCL) || fmt_is(bias, ACL_FORMAT_NCHW) || fmt_is(bias, ACL_FORMAT_NCDHW) ||
                        fmt_is(bias, ACL_FORMAT_ND),
                    ACLNN_ERR_PARAM_INVALID, "bias's format %s must be one of NCL, NCHW, NCDHW, ND",
                    acl_format_name(bias->format));
    if (r == 3) {
        ACLNN_CHECK(fmt_is(input, ACL_FORMAT_NCL) && fmt_is(weight, ACL_FORMAT_NCL) && fmt_is(output, ACL_FORMAT_NCL),
                    ACLNN_ERR_PARAM_INVALID, "the formats of input, weight and output (%s, %s, %s) must all be NCL",
                    acl_format_name(input->format), acl_format_name(weight->format), acl_format_name(output->format));
    } else if (r == 4) {
        if (!transposed) {
            ACLNN_CHECK(fmt_is(weight, ACL_FORMAT_NCHW) || fmt_is(weight, ACL_FORMAT_FRACTAL_Z), ACLNN_ERR_PARAM_INVALID,
                        "weight's format %s must be NCHW or FRACTAL_Z", acl_format_name(weight->format));
            ACLNN_CHECK(fmt_is(input, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "input's format %s must be NCHW",
                        acl_format_name(input->format));
            ACLNN_CHECK(fmt_is(output, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "output's format %s must be NCHW",
                        acl_format_name(output->format));
            /* the blocked FRACTAL_Z layout of a weight is a device-private storage format */
            ACLNN_CHECK(!fmt_is(weight, ACL_FORMAT_FRACTAL_Z), ACLNN_ERR_PARAM_INVALID,
                        "weight in the private FRACTAL_Z format is not supported by this emulator; pass it as NCHW");
        } else {
            ACLNN_CHECK(fmt_is(input, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "input's format %s must be NCHW",
                        acl_format_name(input->format));
            ACLNN_CHECK(fmt_is(weight, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "weight's format %s must be NCHW",
                        acl_format_name(weight->format));
            ACLNN_CHECK(fmt_is(output, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "output's format %s must be NCHW",
                        acl_format_name(output->format));
        }
    } else {
        const aclTensor *ts[3] = {input, weight, output};
        const char *nm[3] = {"input", "weight", "output"};
        for (int i = 0; i < 3; i++)
            ACLNN_CHECK(fmt_is(ts[i], ACL_FORMAT_NCDHW) || fmt_is(ts[i], ACL_FORMAT_NDHWC), ACLNN_ERR_PARAM_INVALID,
                        "%s's format %s must be NCDHW or NDHWC", nm[i], acl_format_name(ts[i]->format));
    }
    /* formats fixed: re-read N and C */
    mi = meta_of(input);
    mw = meta_of(weight);

    /* ValueChecker */
    ACLNN_CHECK(mi.n >= 0 && mi.c >= 0 && mw.n >= 0 && mw.c >= 0, ACLNN_ERR_PARAM_INVALID,
                "the N and C of input (%lld, %lld) and weight (%lld, %lld) must be >= 0", (long long)mi.n,
                (long long)mi.c, (long long)mw.n, (long long)mw.c);
    const int nsp = (int)r - 2;
    for (int i = 0; i < nsp; i++) {
        ACLNN_CHECK(spatial(input, &mi, i) >= 0, ACLNN_ERR_PARAM_INVALID, "input's spatial dim %d (%lld) must be >= 0",
                    i, (long long)spatial(input, &mi, i));
        ACLNN_CHECK(spatial(weight, &mw, i) > 0, ACLNN_ERR_PARAM_INVALID,
                    "weight's spatial dim %d (%lld) must be > 0", i, (long long)spatial(weight, &mw, i));
    }
    for (uint64_t i = 0; i < stride->size; i++)
        ACLNN_CHECK(stride->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)stride->v[i]);
    for (uint64_t i = 0; i < dilation->size; i++)
        ACLNN_CHECK(dilation->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "dilation[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)dilation->v[i]);
    if (!transposed && !acl_tensor_empty(input)) {
        int64_t sums[3] = {0, 0, 0};
        pad_sums(padding, r, sums);
        for (int i = 0; i < nsp; i++) {
            i128 pad = (r == 3 || r == 4) ? sums[i] : 2 * (i128)padding->v[i];
            i128 after = (i128)spatial(input, &mi, i) + pad - (i128)dilation->v[i] * (spatial(weight, &mw, i) - 1) - 1;
            ACLNN_CHECK(after >= 0, ACLNN_ERR_PARAM_INVALID,
                        "input's spatial dim %d (%lld) plus padding is smaller than the dilated kernel "
                        "(weight %lld, dilation %lld)",
                        i, (long long)spatial(input, &mi, i), (long long)spatial(weight, &mw, i),
                        (long long)dilation->v[i]);
        }
    }
    ACLNN_CHECK(groups > 0, ACLNN_ERR_PARAM_INVALID, "groups = %lld must be > 0", (long long)groups);
    i128 out_c;
    if (transposed) {
        out_c = (i128)mw.c * groups;
        ACLNN_CHECK(mw.n == mi.c, ACLNN_ERR_PARAM_INVALID,
                    "with transposed, weight's N (%lld) must equal input's C (%lld)", (long long)mw.n, (long long)mi.c);
        for (uint64_t i = 0; i < outputPadding->size; i++) {
            int64_t op = outputPadding->v[i];
            ACLNN_CHECK(!(op >= stride->v[i] && op >= dilation->v[i]), ACLNN_ERR_PARAM_INVALID,
                        "outputPadding[%llu] = %lld must be less than stride[%llu] (%lld) or dilation[%llu] (%lld)",
                        (unsigned long long)i, (long long)op, (unsigned long long)i, (long long)stride->v[i],
                        (unsigned long long)i, (long long)dilation->v[i]);
            ACLNN_CHECK(op >= 0, ACLNN_ERR_PARAM_INVALID, "outputPadding[%llu] = %lld must be >= 0",
                        (unsigned long long)i, (long long)op);
        }
    } else {
        out_c = mw.n;
        ACLNN_CHECK((i128)mw.c * groups == mi.c, ACLNN_ERR_PARAM_INVALID,
                    "input's C (%lld) must equal weight's C (%lld) * groups (%lld)", (long long)mi.c, (long long)mw.c,
                    (long long)groups);
    }
    ACLNN_CHECK(mw.n % groups == 0, ACLNN_ERR_PARAM_INVALID, "weight's N (%lld) must be divisible by groups (%lld)",
                (long long)mw.n, (long long)groups);
    if (bias)
        ACLNN_CHECK((i128)bias->dims[0] == out_c, ACLNN_ERR_PARAM_INVALID,
                    "bias has %lld elements, it must equal the output channels", (long long)bias->dims[0]);
    ACLNN_CHECK(!(transposed && mi.c == 0), ACLNN_ERR_PARAM_INVALID, "with transposed, input's C must be > 0");
    if (transposed && !acl_tensor_empty(input) && !acl_tensor_empty(weight) && !acl_tensor_empty(output)) {
        /* the A2 backprop path limits (kernel - 1) * dilation - padding per axis */
        const int64_t lim = 255;
        bool ok;
        if (r == 3) {
            ok = (i128)(spatial(weight, &mw, 0) - 1) * dilation->v[0] - padding->v[0] <= lim;
        } else if (r == 4) {
            int64_t dw = dilation->v[dilation->size == 1 ? 0 : 1], pl = padding->v[padding->size == 1 ? 0 : 1];
            i128 vw = (i128)(spatial(weight, &mw, 1) - 1) * dw - pl;
            i128 vh = (i128)(spatial(weight, &mw, 0) - 1) * dilation->v[0] - padding->v[0];
            ok = vw <= lim && vh <= lim;
        } else {
            i128 vw = (i128)(spatial(weight, &mw, 2) - 1) * dilation->v[2] - padding->v[2];
            i128 vh = (i128)(spatial(weight, &mw, 1) - 1) * dilation->v[1] - padding->v[1];
            ok = vw <= lim && vw >= 0 && vh <= lim && vh >= 0;
        }
        ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID,
                    "with transposed, (weight's H/W - 1) * dilation - padding must be in %s255 on this device "
                    "(weight, dilation, padding)", r == 5 ? "[0, " : "(-inf, ");
    }

    /* ConvXdChecker: output's shape is the inferred one */
    i128 shape[5];
    infer_shape(input, weight, stride, padding, dilation, transposed, outputPadding, groups, shape);
    for (uint64_t i = 0; i < r; i++)
        ACLNN_CHECK((i128)output->dims[i] == shape[i], ACLNN_ERR_PARAM_INVALID,
                    "output's dim %llu is %lld, it must equal its inferred value %lld", (unsigned long long)i,
                    (long long)output->dims[i], (long long)shape[i]);
    if (acl_tensor_empty(input) || acl_tensor_empty(weight)) {
        ACLNN_CHECK(acl_tensor_empty(output), ACLNN_ERR_PARAM_INVALID,
                    "input or weight is empty, so output must be empty too");
        for (uint64_t i = 0; i < r; i++)
            ACLNN_CHECK(shape[i] >= 0, ACLNN_ERR_PARAM_INVALID, "output's dim %llu must be >= 0",
                        (unsigned long long)i);
    }

    /* HardwareLimitChecker */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= k_cube_max, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be one of 0 (KEEP_DTYPE) .. 4 (USE_FP32_ADD)", (int)cubeMathType);
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const conv_plan *p = ex->params;
    const acl_view *bias = p->has_bias ? acl_exec_in(ex, 2) : NULL;
    return conv_forward(p, acl_exec_in(ex, 0), acl_exec_in(ex, 1), bias, acl_exec_out(ex, 0));
}

/* The executor of a checked, non-empty convolution (front padding per pad_front). */
static aclnnStatus publish_conv(int op, const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                                const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                                bool transposed, int64_t groups, aclTensor *output, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, run, sizeof(conv_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = conv_plan_free;
    aclnnStatus rc = acl_exec_add_input(ex, input, "input", true);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (rc == 0 && bias) rc = acl_exec_add_input(ex, bias, "bias", true);
    if (rc == 0) rc = acl_exec_add_output(ex, output, "output");
    if (rc) return acl_exec_discard(ex, rc);

    conv_plan *p = ex->params;
    const uint64_t r = input->ndim;
    const int nsp = (int)r - 2;
    conv_meta mi = meta_of(input), mw = meta_of(weight), mo = meta_of(output);
    p->transposed = transposed;
    p->n = mi.n;
    p->ci = mi.c;
    p->co = mo.c;
    p->groups = groups;
    p->has_bias = bias != NULL;
    for (int a = 0; a < 3; a++) {
        int sp = a - (3 - nsp);
        if (sp < 0) {
            p->in[a] = p->out[a] = p->k[a] = p->s[a] = p->d[a] = 1;
            p->p[a] = 0;
        } else {
            p->in[a] = spatial(input, &mi, sp);
            p->out[a] = spatial(output, &mo, sp);
            p->k[a] = spatial(weight, &mw, sp);
            p->s[a] = stride->v[sp];
            p->d[a] = dilation->v[sp];
            p->p[a] = pad_front(padding, r, sp);
        }
    }
    axis_positions(input, p->xpos);
    axis_positions(weight, p->wpos);
    axis_positions(output, p->ypos);
    if (!conv_plan_build(p))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the convolution's buffers are too large (weight "
                                                                "per group x positions per tile)"));
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_Convolution(const aclTensor *input, const aclTensor *weight, const aclTensor *bias,
                             const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                             bool transposed, const aclIntArray *outputPadding, const int64_t groups,
                             aclTensor *output, int8_t cubeMathType, uint64_t *workspaceSize,
                             aclOpExecutor **executor) {
    ACL_TRY(check_params(input, weight, bias, stride, padding, dilation, transposed, outputPadding, groups, output,
                         cubeMathType));
    if (acl_tensor_empty(input) || acl_tensor_empty(weight) || acl_tensor_empty(output))
        return acl_exec_noop(ACL_OP_Convolution, workspaceSize, executor);
    return publish_conv(ACL_OP_Convolution, input, weight, bias, stride, padding, dilation, transposed, groups,
                        output, workspaceSize, executor);
}

/* ---- aclnnConvDepthwise2d: NCHW, weight (C_out, 1, kH, kW), groups = input's C ---- */

static aclnnStatus check_depthwise(const aclTensor *self, const aclTensor *weight, const aclIntArray *kernelSize,
                                   const aclTensor *bias, const aclIntArray *stride, const aclIntArray *padding,
                                   const aclIntArray *dilation, const aclTensor *out, int8_t cubeMathType) {
    /* NullptrChecker (kernelSize is read last, by its own check) */
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    ACL_TRY(acl_check_tensor(out, "out"));
    /* DtypeCheckerDepthwise2d */
    if (bias) {
        ACL_TRY(acl_check_dtype_in(bias, ACL_DT_LIST_ConvDepthwise2d_bias, "bias"));
        ACLNN_CHECK(bias->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "bias's dtype %s must be self's dtype %s",
                    acl_dtype_name(bias->dtype), acl_dtype_name(self->dtype));
    }
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ConvDepthwise2d, "self"));
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_ConvDepthwise2d, "weight"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_ConvDepthwise2d, "out"));
    ACLNN_CHECK(self->dtype == weight->dtype, ACLNN_ERR_PARAM_INVALID, "self's dtype %s and weight's dtype %s must agree",
                acl_dtype_name(self->dtype), acl_dtype_name(weight->dtype));
    ACLNN_CHECK(weight->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "weight's dtype %s and out's dtype %s must agree",
                acl_dtype_name(weight->dtype), acl_dtype_name(out->dtype));
    /* DimCheckerDepthwise2d */
    ACLNN_CHECK(self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, it must have 4",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(weight->ndim == 4, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, it must have 4",
                (unsigned long long)weight->ndim);
    ACLNN_CHECK(out->ndim == 4, ACLNN_ERR_PARAM_INVALID, "out has %llu dims, it must have 4",
                (unsigned long long)out->ndim);
    if (bias)
        ACLNN_CHECK(bias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "bias has %llu dims, it must have 1",
                    (unsigned long long)bias->ndim);
    ACLNN_CHECK(stride->size == 2, ACLNN_ERR_PARAM_INVALID, "stride has %llu values, it must have 2",
                (unsigned long long)stride->size);
    ACLNN_CHECK(dilation->size == 2, ACLNN_ERR_PARAM_INVALID, "dilation has %llu values, it must have 2",
                (unsigned long long)dilation->size);
    ACLNN_CHECK(padding->size == 2, ACLNN_ERR_PARAM_INVALID, "padding has %llu values, it must have 2",
                (unsigned long long)padding->size);
    /* FormatCheckerDepthwise2d */
    ACLNN_CHECK(fmt_is(self, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "self's format %s must be NCHW",
                acl_format_name(self->format));
    ACLNN_CHECK(fmt_is(weight, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "weight's format %s must be NCHW",
                acl_format_name(weight->format));
    ACLNN_CHECK(fmt_is(out, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "out's format %s must be NCHW",
                acl_format_name(out->format));
    /* ValueCheckerDepthwise2d */
    conv_meta mi = meta_of(self), mw = meta_of(weight);
    ACLNN_CHECK(mi.n >= 0 && mi.c >= 0 && mw.n >= 0 && mw.c >= 0, ACLNN_ERR_PARAM_INVALID,
                "the N and C of self (%lld, %lld) and weight (%lld, %lld) must be >= 0", (long long)mi.n,
                (long long)mi.c, (long long)mw.n, (long long)mw.c);
    for (int i = 0; i < 2; i++) {
        ACLNN_CHECK(spatial(self, &mi, i) >= 0, ACLNN_ERR_PARAM_INVALID, "self's spatial dim %d (%lld) must be >= 0",
                    i, (long long)spatial(self, &mi, i));
        ACLNN_CHECK(spatial(weight, &mw, i) > 0, ACLNN_ERR_PARAM_INVALID,
                    "weight's spatial dim %d (%lld) must be > 0", i, (long long)spatial(weight, &mw, i));
    }
    for (uint64_t i = 0; i < 2; i++) {
        ACLNN_CHECK(stride->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)stride->v[i]);
    }
    for (uint64_t i = 0; i < 2; i++)
        ACLNN_CHECK(dilation->v[i] > 0, ACLNN_ERR_PARAM_INVALID, "dilation[%llu] = %lld must be > 0",
                    (unsigned long long)i, (long long)dilation->v[i]);
    if (!acl_tensor_empty(self))
        for (int i = 0; i < 2; i++) {
            i128 after = (i128)spatial(self, &mi, i) + 2 * (i128)padding->v[i] -
                         (i128)dilation->v[i] * (spatial(weight, &mw, i) - 1) - 1;
            ACLNN_CHECK(after >= 0, ACLNN_ERR_PARAM_INVALID,
                        "self's spatial dim %d (%lld) plus padding is smaller than the dilated kernel", i,
                        (long long)spatial(self, &mi, i));
        }
    ACLNN_CHECK(mw.c == 0 || mw.c == 1, ACLNN_ERR_PARAM_INVALID, "weight's C (%lld) must be 0 or 1",
                (long long)mw.c);
    ACLNN_CHECK(mi.c == 0 || mw.n % mi.c == 0, ACLNN_ERR_PARAM_INVALID,
                "weight's N (%lld) must be divisible by self's C (%lld)", (long long)mw.n, (long long)mi.c);
    if (bias)
        ACLNN_CHECK(bias->dims[0] == mw.n, ACLNN_ERR_PARAM_INVALID,
                    "bias has %lld elements, it must equal the output channels (%lld)", (long long)bias->dims[0],
                    (long long)mw.n);
    /* ConvXdChecker (groups 1, not transposed) */
    i128 shape[5];
    infer_shape(self, weight, stride, padding, dilation, false, NULL, 1, shape);
    for (uint64_t i = 0; i < 4; i++)
        ACLNN_CHECK((i128)out->dims[i] == shape[i], ACLNN_ERR_PARAM_INVALID,
                    "out's dim %llu is %lld, it must equal its inferred value %lld", (unsigned long long)i,
                    (long long)out->dims[i], (long long)shape[i]);
    if (acl_tensor_empty(self) || acl_tensor_empty(weight)) {
        ACLNN_CHECK(acl_tensor_empty(out), ACLNN_ERR_PARAM_INVALID, "self or weight is empty, so out must be empty too");
        for (uint64_t i = 0; i < 4; i++)
            ACLNN_CHECK(shape[i] >= 0, ACLNN_ERR_PARAM_INVALID, "out's dim %llu must be >= 0", (unsigned long long)i);
    }
    /* HardwareLimitChecker */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= k_cube_max, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be one of 0 (KEEP_DTYPE) .. 4 (USE_FP32_ADD)", (int)cubeMathType);
    /* kernelSize must match weight's H and W */
    ACL_TRY(acl_check_int_array(kernelSize, "kernelSize"));
    ACLNN_CHECK(kernelSize->size >= 2, ACLNN_ERR_PARAM_INVALID, "kernelSize has %llu values, it must have 2",
                (unsigned long long)kernelSize->size);
    ACLNN_CHECK(kernelSize->v[0] == weight->dims[2], ACLNN_ERR_PARAM_INVALID,
                "kernelSize[0] = %lld must equal weight's H (%lld)", (long long)kernelSize->v[0],
                (long long)weight->dims[2]);
    ACLNN_CHECK(kernelSize->v[1] == weight->dims[3], ACLNN_ERR_PARAM_INVALID,
                "kernelSize[1] = %lld must equal weight's W (%lld)", (long long)kernelSize->v[1],
                (long long)weight->dims[3]);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ConvDepthwise2d(const aclTensor *self, const aclTensor *weight, const aclIntArray *kernelSize,
                                 const aclTensor *bias, const aclIntArray *stride, const aclIntArray *padding,
                                 const aclIntArray *dilation, aclTensor *out, int8_t cubeMathType,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_depthwise(self, weight, kernelSize, bias, stride, padding, dilation, out, cubeMathType));
    if (acl_tensor_empty(self) || acl_tensor_empty(weight) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_ConvDepthwise2d, workspaceSize, executor);
    return publish_conv(ACL_OP_ConvDepthwise2d, self, weight, bias, stride, padding, dilation, false, self->dims[1],
                        out, workspaceSize, executor);
}

/* ---- aclnnConvTbc: self (T, B, C_in), weight (K, C_in, C_out), bias (C_out), output (T_out, B, C_out) ---- */

typedef struct {
    conv_plan *conv; /* NULL: fill output with the bias (empty self or weight) */
} tbc_params;

static void tbc_free(void *pp) {
    tbc_params *p = pp;
    if (p) conv_plan_free(p->conv);
    free(p);
}

static aclnnStatus tbc_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const tbc_params *p = ex->params;
    if (p->conv) return conv_forward(p->conv, acl_exec_in(ex, 0), acl_exec_in(ex, 1), acl_exec_in(ex, 2),
                                     acl_exec_out(ex, 0));
    conv_fill_bias(acl_exec_out(ex, 0), acl_exec_in(ex, 2), 2);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_tbc(const aclTensor *self, const aclTensor *weight, const aclTensor *bias, int64_t pad,
                             const aclTensor *output, int8_t cubeMathType) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_tensor(bias, "bias"));
    ACL_TRY(acl_check_tensor(output, "output"));
    /* the op_api permutes self/weight/output as 3-d tensors before its checks: guard that read here */
    ACLNN_CHECK(self->ndim == 3, ACLNN_ERR_PARAM_INVALID, "self has %llu dims, it must have 3 (T, B, C)",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(weight->ndim == 3, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, it must have 3 (K, C_in, C_out)",
                (unsigned long long)weight->ndim);
    ACLNN_CHECK(output->ndim == 3, ACLNN_ERR_PARAM_INVALID, "output has %llu dims, it must have 3 (T, B, C)",
                (unsigned long long)output->ndim);
    /* DtypeCheckerTbc */
    ACL_TRY(acl_check_dtype_in(bias, ACL_DT_LIST_ConvTbc_bias, "bias"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_ConvTbc, "self"));
    ACLNN_CHECK(self->dtype == weight->dtype, ACLNN_ERR_PARAM_INVALID, "self's dtype %s and weight's dtype %s must agree",
                acl_dtype_name(self->dtype), acl_dtype_name(weight->dtype));
    ACLNN_CHECK(weight->dtype == output->dtype, ACLNN_ERR_PARAM_INVALID,
                "weight's dtype %s and output's dtype %s must agree", acl_dtype_name(weight->dtype),
                acl_dtype_name(output->dtype));
    /* DimCheckerTbc */
    ACLNN_CHECK(bias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "bias has %llu dims, it must have 1",
                (unsigned long long)bias->ndim);
    /* FormatCheckerTbc */
    const aclTensor *ts[3] = {self, weight, output};
    const char *nm[3] = {"self", "weight", "output"};
    for (int i = 0; i < 3; i++)
        ACLNN_CHECK(fmt_is(ts[i], ACL_FORMAT_ND) || fmt_is(ts[i], ACL_FORMAT_NCL), ACLNN_ERR_PARAM_INVALID,
                    "%s's format %s must be ND or NCL", nm[i], acl_format_name(ts[i]->format));
    /* ValueCheckerTbc (on the permuted views: self (B, C_in, T), weight (C_out, C_in, K), output (B, C_out, T)) */
    const int64_t T = self->dims[0], Bn = self->dims[1], Ci = self->dims[2];
    const int64_t K = weight->dims[0], Cw = weight->dims[1], Co = weight->dims[2];
    for (int i = 0; i < 3; i++)
        for (uint64_t j = 0; j < 3; j++)
            ACLNN_CHECK(ts[i]->dims[j] >= 0, ACLNN_ERR_PARAM_INVALID, "%s's dims must be >= 0", nm[i]);
    ACLNN_CHECK(bias->dims[0] == Co, ACLNN_ERR_PARAM_INVALID,
                "bias has %lld elements, it must equal the output channels (weight's dim 2, %lld)",
                (long long)bias->dims[0], (long long)Co);
    ACLNN_CHECK(K > 0, ACLNN_ERR_PARAM_INVALID, "weight's dim 0 (the kernel width, %lld) must be > 0", (long long)K);
    if (!acl_tensor_empty(self))
        ACLNN_CHECK((i128)T + pad - K >= 0, ACLNN_ERR_PARAM_INVALID,
                    "self's T (%lld) + pad (%lld) must be at least the kernel width (%lld)", (long long)T,
                    (long long)pad, (long long)K);
    ACLNN_CHECK(Cw == Ci, ACLNN_ERR_PARAM_INVALID, "weight's dim 1 (%lld) must equal self's C (%lld)", (long long)Cw,
                (long long)Ci);
    /* ConvXdCheckerTbc: output (T + 2 pad - K + 1, B, C_out) */
    i128 tout = (i128)T + 2 * (i128)pad - K + 1;
    ACLNN_CHECK(output->dims[1] == Bn && output->dims[2] == Co && (i128)output->dims[0] == tout,
                ACLNN_ERR_PARAM_INVALID, "output must be [%lld, %lld, %lld], got [%lld, %lld, %lld]", (long long)tout,
                (long long)Bn, (long long)Co, (long long)output->dims[0], (long long)output->dims[1],
                (long long)output->dims[2]);
    /* HardwareLimitCheckerTbc */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= k_cube_max, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be one of 0 (KEEP_DTYPE) .. 4 (USE_FP32_ADD)", (int)cubeMathType);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_ConvTbc(const aclTensor *self, const aclTensor *weight, const aclTensor *bias, const int64_t pad,
                         aclTensor *output, int8_t cubeMathType, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_tbc(self, weight, bias, pad, output, cubeMathType));
    const bool in_empty = acl_tensor_empty(self) || acl_tensor_empty(weight);
    if (acl_tensor_empty(output)) return acl_exec_noop(ACL_OP_ConvTbc, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ConvTbc, tbc_run, sizeof(tbc_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = tbc_free;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !in_empty);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", !in_empty);
    if (rc == 0) rc = acl_exec_add_input(ex, bias, "bias", true);
    if (rc == 0) rc = acl_exec_add_output(ex, output, "output");
    if (rc) return acl_exec_discard(ex, rc);
    if (in_empty) return acl_exec_publish(ex, workspaceSize, executor); /* output = bias along its last axis */
    tbc_params *tp = ex->params;
    conv_plan *p = calloc(1, sizeof(conv_plan));
    if (!p) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory"));
    tp->conv = p;
    p->n = self->dims[1];
    p->ci = self->dims[2];
    p->co = weight->dims[2];
    p->groups = 1;
    p->has_bias = true;
    for (int a = 0; a < 2; a++) {
        p->in[a] = p->out[a] = p->k[a] = p->s[a] = p->d[a] = 1;
        p->p[a] = 0;
    }
    p->in[2] = self->dims[0];
    p->out[2] = output->dims[0];
    p->k[2] = weight->dims[0];
    p->s[2] = p->d[2] = 1;
    p->p[2] = pad;
    const int tbc[5] = {1, 2, -1, -1, 0}, wk[5] = {2, 1, -1, -1, 0};
    memcpy(p->xpos, tbc, sizeof tbc);
    memcpy(p->ypos, tbc, sizeof tbc);
    memcpy(p->wpos, wk, sizeof wk);
    if (!conv_plan_build(p)) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the buffers are too large"));
    return acl_exec_publish(ex, workspaceSize, executor);
}
