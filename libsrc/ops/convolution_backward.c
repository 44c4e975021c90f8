/* aclnnConvolutionBackward: gradInput / gradWeight / gradBias of aclnnConvolution (outputMask picks them), 1-d /
 * 2-d / 3-d, transposed or not. Checks in the A2 op_api checker's order; compute on the convolution kernels:
 * gradInput is the adjoint convolution (transposed <-> not), gradWeight per-(n, group) partials summed over the
 * batch in a fixed order, gradBias a fixed-order sum. */
#include <string.h>

#include "common/dtype.h"
#include "kernels/conv.h"
#include "ops/conv_util.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

__extension__ typedef __int128 i128;

typedef struct {
    conv_plan *gi, *gw; /* NULL when not computed */
    bool gb, zero_gw, zero_gb, zero_gi;
    float gb_fill; /* ConvTbcBackward's empty path: gradBias = this constant */
    bool fill_gb;
    int out_gi, out_gw, out_gb; /* output slots, -1 when absent */
    int gypos[5];
    int64_t n, co, sp[3];
} convbw_params;

static void convbw_free(void *pp) {
    convbw_params *p = pp;
    if (p) {
        conv_plan_free(p->gi);
        conv_plan_free(p->gw);
    }
    free(p);
}

static const char *k_names[3] = {"gradInput", "gradWeight", "gradBias"};

/* The A2 format rule of one tensor by its rank: 3 -> ND or NCL, 4 -> NCHW, 5 -> NCDHW. */
static aclnnStatus check_format(const aclTensor *t, const char *name) {
    uint64_t r = t->ndim;
    if (r == 3)
        ACLNN_CHECK(fmt_is(t, ACL_FORMAT_ND) || fmt_is(t, ACL_FORMAT_NCL), ACLNN_ERR_PARAM_INVALID,
                    "%s's format %s must be ND or NCL", name, acl_format_name(t->format));
    else if (r == 4)
        ACLNN_CHECK(fmt_is(t, ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID, "%s's format %s must be NCHW", name,
                    acl_format_name(t->format));
    else if (r == 5)
        ACLNN_CHECK(fmt_is(t, ACL_FORMAT_NCDHW), ACLNN_ERR_PARAM_INVALID, "%s's format %s must be NCDHW", name,
                    acl_format_name(t->format));
    else
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has %llu dims, it must have 3, 4 or 5", name,
                          (unsigned long long)r);
    return ACLNN_SUCCESS;
}

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t i = 0; i < a->ndim; i++)
        if (a->dims[i] != b->dims[i]) return false;
    return true;
}

/* stride/dilation/padding/outputPadding lengths (CheckConvShape's rules, also used on the empty path) */
static aclnnStatus check_param_sizes(uint64_t r, const aclIntArray *stride, const aclIntArray *padding,
                                     const aclIntArray *dilation, const aclIntArray *outputPadding) {
    const uint64_t pd = r - 2;
    ACLNN_CHECK(stride->size == pd, ACLNN_ERR_PARAM_INVALID, "stride has %llu values, it must have %llu",
                (unsigned long long)stride->size, (unsigned long long)pd);
    ACLNN_CHECK(dilation->size == pd, ACLNN_ERR_PARAM_INVALID, "dilation has %llu values, it must have %llu",
                (unsigned long long)dilation->size, (unsigned long long)pd);
    if (r == 4) {
        ACLNN_CHECK(padding->size == 2 || padding->size == 4, ACLNN_ERR_PARAM_INVALID,
                    "padding has %llu values, it must have 2 or 4", (unsigned long long)padding->size);
        ACLNN_CHECK(outputPadding->size == 2 || outputPadding->size == 4, ACLNN_ERR_PARAM_INVALID,
                    "outputPadding has %llu values, it must have 2 or 4", (unsigned long long)outputPadding->size);
    } else {
        ACLNN_CHECK(padding->size == pd, ACLNN_ERR_PARAM_INVALID, "padding has %llu values, it must have %llu",
                    (unsigned long long)padding->size, (unsigned long long)pd);
        ACLNN_CHECK(outputPadding->size == pd, ACLNN_ERR_PARAM_INVALID,
                    "outputPadding has %llu values, it must have %llu", (unsigned long long)outputPadding->size,
                    (unsigned long long)pd);
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus check_params(const aclTensor *gradOutput, const aclTensor *input, const aclTensor *weight,
                                const aclIntArray *biasSizes, const aclIntArray *stride, const aclIntArray *padding,
                                const aclIntArray *dilation, bool transposed, const aclIntArray *outputPadding,
                                int groups, const aclBoolArray *outputMask, int8_t cubeMathType,
                                const aclTensor *gradInput, const aclTensor *gradWeight, const aclTensor *gradBias,
                                bool *empty_path) {
    (void)biasSizes;
    /* 1. NULL (an outputMask without 3 values is reported with the NULL code, as the op_api does) */
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(weight, "weight"));
    ACL_TRY(acl_check_int_array(stride, "stride"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_int_array(dilation, "dilation"));
    ACL_TRY(acl_check_int_array(outputPadding, "outputPadding"));
    ACL_TRY(acl_check_bool_array(outputMask, "outputMask"));
    ACLNN_CHECK(outputMask->size == 3, ACLNN_ERR_PARAM_NULLPTR, "outputMask has %llu values, it must have 3",
                (unsigned long long)outputMask->size);
    const aclTensor *outs[3] = {gradInput, gradWeight, gradBias};
    for (int i = 0; i < 3; i++)
        if (outputMask->v[i]) ACL_TRY(acl_check_tensor(outs[i], k_names[i]));

    /* 2. dtypes */
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_ConvolutionBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_ConvolutionBackward, "input"));
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_ConvolutionBackward, "weight"));
    for (int i = 0; i < 3; i++)
        if (outs[i]) ACL_TRY(acl_check_dtype_in(outs[i], ACL_DT_LIST_ConvolutionBackward, k_names[i]));

    /* 3. formats */
    ACL_TRY(check_format(gradOutput, "gradOutput"));
    ACL_TRY(check_format(input, "input"));
    ACL_TRY(check_format(weight, "weight"));
    if (gradInput) ACL_TRY(check_format(gradInput, "gradInput"));
    if (gradWeight) ACL_TRY(check_format(gradWeight, "gradWeight"));
    if (!transposed && gradBias)
        ACLNN_CHECK(fmt_is(gradBias, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID, "gradBias's format %s must be ND",
                    acl_format_name(gradBias->format));

    /* 4. attribute values */
    for (uint64_t i = 0; i < stride->size; i++)
        ACLNN_CHECK(stride->v[i] >= 1, ACLNN_ERR_PARAM_INVALID, "stride[%llu] = %lld must be >= 1",
                    (unsigned long long)i, (long long)stride->v[i]);
    for (uint64_t i = 0; i < padding->size; i++)
        ACLNN_CHECK(padding->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "padding[%llu] = %lld must be >= 0",
                    (unsigned long long)i, (long long)padding->v[i]);
    for (uint64_t i = 0; i < dilation->size; i++)
        ACLNN_CHECK(dilation->v[i] >= 1, ACLNN_ERR_PARAM_INVALID, "dilation[%llu] = %lld must be >= 1",
                    (unsigned long long)i, (long long)dilation->v[i]);
    const uint64_t r = input->ndim;
    if (transposed) {
        for (uint64_t i = 0; i < outputPadding->size; i++)
            ACLNN_CHECK(outputPadding->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "outputPadding[%llu] = %lld must be >= 0",
                        (unsigned long long)i, (long long)outputPadding->v[i]);
        if (r == 5)
            for (uint64_t i = 0; i < outputPadding->size; i++)
                ACLNN_CHECK(i < stride->size && outputPadding->v[i] < stride->v[i], ACLNN_ERR_PARAM_INVALID,
                            "outputPadding[%llu] = %lld must be less than the stride", (unsigned long long)i,
                            (long long)outputPadding->v[i]);
    } else {
        for (uint64_t i = 0; i < outputPadding->size; i++)
            ACLNN_CHECK(outputPadding->v[i] == 0, ACLNN_ERR_PARAM_INVALID,
                        "outputPadding[%llu] = %lld must be 0 when transposed is false", (unsigned long long)i,
                        (long long)outputPadding->v[i]);
    }
    ACLNN_CHECK(groups >= 1, ACLNN_ERR_PARAM_INVALID, "groups = %d must be >= 1", groups);
    /* 5. cubeMathType 0..3 (every value is accepted for the promoted FLOAT / FLOAT16 / BFLOAT16 on A2) */
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= 3, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be one of 0 (KEEP_DTYPE) .. 3 (USE_HF32)", (int)cubeMathType);
    /* empty input or weight: the empty path's own checks follow in the caller */
    if (acl_tensor_empty(input) || acl_tensor_empty(weight)) {
        *empty_path = true;
        return ACLNN_SUCCESS;
    }

    /* 6. shapes */
    ACLNN_CHECK(gradOutput->ndim == r, ACLNN_ERR_PARAM_INVALID, "gradOutput has %llu dims, input %llu: they must agree",
                (unsigned long long)gradOutput->ndim, (unsigned long long)r);
    ACLNN_CHECK(weight->ndim == r, ACLNN_ERR_PARAM_INVALID, "weight has %llu dims, input %llu: they must agree",
                (unsigned long long)weight->ndim, (unsigned long long)r);
    ACLNN_CHECK(!acl_tensor_empty(gradOutput), ACLNN_ERR_PARAM_INVALID, "gradOutput must not be empty");
    if (gradInput)
        ACLNN_CHECK(same_shape(gradInput, input), ACLNN_ERR_PARAM_INVALID, "gradInput's shape must be input's");
    if (gradWeight)
        ACLNN_CHECK(same_shape(gradWeight, weight), ACLNN_ERR_PARAM_INVALID, "gradWeight's shape must be weight's");
    const int64_t cout = gradOutput->dims[1];
    if (gradBias) {
        ACLNN_CHECK(gradBias->ndim == 1, ACLNN_ERR_PARAM_INVALID, "gradBias has %llu dims, it must have 1",
                    (unsigned long long)gradBias->ndim);
        ACLNN_CHECK(gradBias->dims[0] == cout, ACLNN_ERR_PARAM_INVALID,
                    "gradBias has %lld elements, it must have gradOutput's C (%lld)", (long long)gradBias->dims[0],
                    (long long)cout);
    }
    ACL_TRY(check_param_sizes(r, stride, padding, dilation, outputPadding));

    /* 7. channels and groups (the forward convolution's input is gradOutput when transposed) */
    const aclTensor *fin = transposed ? gradOutput : input, *fout = transposed ? input : gradOutput;
    ACLNN_CHECK(fout->dims[1] == weight->dims[0], ACLNN_ERR_PARAM_INVALID,
                "%s's C (%lld) must equal weight's dim 0 (%lld)", transposed ? "input" : "gradOutput",
                (long long)fout->dims[1], (long long)weight->dims[0]);
    ACLNN_CHECK(weight->dims[1] != 0 && fin->dims[1] % weight->dims[1] == 0, ACLNN_ERR_PARAM_INVALID,
                "%s's C (%lld) must be divisible by weight's dim 1 (%lld)", transposed ? "gradOutput" : "input",
                (long long)fin->dims[1], (long long)weight->dims[1]);
    ACLNN_CHECK(fin->dims[1] / weight->dims[1] == groups, ACLNN_ERR_PARAM_INVALID,
                "%s's C (%lld) must equal weight's dim 1 (%lld) times groups (%d)", transposed ? "gradOutput" : "input",
                (long long)fin->dims[1], (long long)weight->dims[1], groups);
    if (fin->dims[1] == groups) {
        ACLNN_CHECK(fout->dims[1] >= groups, ACLNN_ERR_PARAM_INVALID,
                    "the output channels (%lld) must be at least groups (%d)", (long long)fout->dims[1], groups);
        ACLNN_CHECK(fout->dims[1] % groups == 0, ACLNN_ERR_PARAM_INVALID,
                    "the output channels (%lld) must be divisible by groups (%d)", (long long)fout->dims[1], groups);
    }

    /* 8. spatial sizes: the forward convolution of fin must give fout's extents (the op_api checks 3-d here; the
     * 1-d / 2-d kernels need the same relation) */
    int64_t sums[3] = {0, 0, 0};
    pad_sums(padding, r, sums);
    for (uint64_t i = 0; i < r - 2; i++) {
        i128 pad = r == 5 ? 2 * (i128)padding->v[i] : sums[i];
        i128 span = (i128)(weight->dims[2 + i] - 1) * dilation->v[i] + 1;
        i128 room = (i128)fin->dims[2 + i] + pad - span;
        ACLNN_CHECK(room >= 0, ACLNN_ERR_PARAM_INVALID,
                    "%s's spatial dim %llu (%lld) plus padding is smaller than the dilated kernel (%lld)",
                    transposed ? "gradOutput" : "input", (unsigned long long)i, (long long)fin->dims[2 + i],
                    (long long)span);
        i128 expect = room / stride->v[i] + 1;
        ACLNN_CHECK((i128)fout->dims[2 + i] == expect, ACLNN_ERR_PARAM_INVALID,
                    "%s's spatial dim %llu is %lld, it must be %lld", transposed ? "input" : "gradOutput",
                    (unsigned long long)i, (long long)fout->dims[2 + i], (long long)expect);
    }
    return ACLNN_SUCCESS;
}

/* The empty path (input or weight or gradOutput empty): biasSizes, and only N or C of input may be 0. */
static aclnnStatus check_empty(const aclTensor *gradOutput, const aclTensor *input, const aclTensor *weight,
                               const aclIntArray *biasSizes, const aclIntArray *stride, const aclIntArray *padding,
                               const aclIntArray *dilation, bool transposed, const aclIntArray *outputPadding,
                               int groups, const aclBoolArray *outputMask) {
    if (outputMask->v[2]) {
        ACL_TRY(acl_check_int_array(biasSizes, "biasSizes"));
        ACLNN_CHECK(biasSizes->size == 1, ACLNN_ERR_PARAM_INVALID, "biasSizes has %llu values, it must have 1",
                    (unsigned long long)biasSizes->size);
        i128 want = transposed ? (i128)weight->dims[1] * groups : (i128)gradOutput->dims[1];
        ACLNN_CHECK((i128)biasSizes->v[0] == want, ACLNN_ERR_PARAM_INVALID, "biasSizes[0] = %lld must be %lld",
                    (long long)biasSizes->v[0], (long long)want);
    }
    if (outputMask->v[0])
        ACLNN_CHECK(input->dims[0] == 0 || input->dims[1] == 0, ACLNN_ERR_PARAM_INVALID,
                    "with an empty tensor, only input's N or C may be 0 (input is [%lld, %lld, ...])",
                    (long long)input->dims[0], (long long)input->dims[1]);
    ACL_TRY(check_param_sizes(input->ndim, stride, padding, dilation, outputPadding));
    return ACLNN_SUCCESS;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const convbw_params *p = ex->params;
    const acl_view *gy = acl_exec_in(ex, 0), *x = acl_exec_in(ex, 1), *w = acl_exec_in(ex, 2);
    if (p->zero_gi) conv_fill_zero(acl_exec_out(ex, p->out_gi));
    if (p->zero_gw) conv_fill_zero(acl_exec_out(ex, p->out_gw));
    if (p->fill_gb) conv_fill_value(acl_exec_out(ex, p->out_gb), p->gb_fill);
    if (p->zero_gb) conv_fill_zero(acl_exec_out(ex, p->out_gb));
    if (p->gi) ACL_TRY(conv_forward(p->gi, gy, w, NULL, acl_exec_out(ex, p->out_gi)));
    if (p->gw) {
        const bool tr = p->gw->transposed; /* marks the transposed op: img = gradOutput, rows = input */
        conv_plan q = *p->gw;
        q.transposed = false;
        ACL_TRY(conv_grad_weight(&q, tr ? gy : x, tr ? x : gy, acl_exec_out(ex, p->out_gw)));
    }
    if (p->gb) conv_grad_bias(gy, p->gypos, p->n, p->co, p->sp, acl_exec_out(ex, p->out_gb));
    return ACLNN_SUCCESS;
}

/* A plan over tensors `in` (gathered) and `out` with the given weight; `tr` the direction of the gather. */
static conv_plan *make_plan(const aclTensor *in, const aclTensor *out, const aclTensor *weight, int64_t groups,
                            bool tr, const aclIntArray *stride, const aclIntArray *padding, const aclIntArray *dilation,
                            const aclTensor *wview) {
    conv_plan *p = calloc(1, sizeof(conv_plan));
    if (!p) return NULL;
    const uint64_t r = in->ndim;
    const int nsp = (int)r - 2;
    p->transposed = tr;
    p->n = in->dims[0];
    p->ci = in->dims[1];
    p->co = out->dims[1];
    p->groups = groups;
    for (int a = 0; a < 3; a++) {
        int sp = a - (3 - nsp);
        if (sp < 0) {
            p->in[a] = p->out[a] = p->k[a] = p->s[a] = p->d[a] = 1;
            p->p[a] = 0;
        } else {
            p->in[a] = in->dims[2 + sp];
            p->out[a] = out->dims[2 + sp];
            p->k[a] = weight->dims[2 + sp];
            p->s[a] = stride->v[sp];
            p->d[a] = dilation->v[sp];
            p->p[a] = pad_front(padding, r, sp);
        }
    }
    axis_positions(in, p->xpos);
    axis_positions(wview, p->wpos);
    axis_positions(out, p->ypos);
    if (!conv_plan_build(p)) {
        conv_plan_free(p);
        return NULL;
    }
    return p;
}

aclnnStatus opws_ConvolutionBackward(const aclTensor *gradOutput, const aclTensor *input, const aclTensor *weight,
                                     const aclIntArray *biasSizes, const aclIntArray *stride,
                                     const aclIntArray *padding, const aclIntArray *dilation, bool transposed,
                                     const aclIntArray *outputPadding, int groups, const aclBoolArray *outputMask,
                                     int8_t cubeMathType, aclTensor *gradInput, aclTensor *gradWeight,
                                     aclTensor *gradBias, uint64_t *workspaceSize, aclOpExecutor **executor) {
    bool empty_path = false;
    ACL_TRY(check_params(gradOutput, input, weight, biasSizes, stride, padding, dilation, transposed, outputPadding,
                         groups, outputMask, cubeMathType, gradInput, gradWeight, gradBias, &empty_path));
    const bool m0 = outputMask->v[0], m1 = outputMask->v[1], m2 = outputMask->v[2];
    empty_path = empty_path || acl_tensor_empty(gradOutput);
    if (empty_path)
        ACL_TRY(check_empty(gradOutput, input, weight, biasSizes, stride, padding, dilation, transposed,
                            outputPadding, groups, outputMask));

    aclOpExecutor *ex = acl_exec_create(ACL_OP_ConvolutionBackward, run, sizeof(convbw_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    convbw_params *p = ex->params;
    p->out_gi = p->out_gw = p->out_gb = -1;
    ex->free_params = convbw_free;
    const bool gi = m0 && !empty_path && !acl_tensor_empty(gradInput);
    const bool gw = m1 && !empty_path && !acl_tensor_empty(gradWeight);
    const bool gb = m2 && !empty_path && !acl_tensor_empty(gradBias);
    p->zero_gw = m1 && empty_path && !acl_tensor_empty(gradWeight);
    p->zero_gb = m2 && empty_path && !acl_tensor_empty(gradBias);
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", gi || gw || gb);
    if (rc == 0) rc = acl_exec_add_input(ex, input, "input", gw);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", gi);
    int slot = 0;
    if (rc == 0 && (gi)) { p->out_gi = slot++; rc = acl_exec_add_output(ex, gradInput, "gradInput"); }
    if (rc == 0 && (gw || p->zero_gw)) { p->out_gw = slot++; rc = acl_exec_add_output(ex, gradWeight, "gradWeight"); }
    if (rc == 0 && (gb || p->zero_gb)) { p->out_gb = slot++; rc = acl_exec_add_output(ex, gradBias, "gradBias"); }
    if (rc) return acl_exec_discard(ex, rc);
    if (!gi && !gw && !gb && !p->zero_gw && !p->zero_gb) ex->run = NULL;

    if (gi) {
        /* the adjoint: gradOutput -> gradInput through the same weight, the other direction */
        p->gi = make_plan(gradOutput, gradInput, weight, groups, !transposed, stride, padding, dilation, weight);
        if (!p->gi) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the gradInput buffers are too large"));
    }
    if (gw) {
        /* gathered image: input (not transposed) or gradOutput (transposed); rows: the other one */
        const aclTensor *img = transposed ? gradOutput : input, *rows = transposed ? input : gradOutput;
        p->gw = make_plan(img, rows, weight, groups, false, stride, padding, dilation, gradWeight);
        if (!p->gw) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the gradWeight buffers are too large"));
        p->gw->transposed = transposed; /* remembered for run(); the gather itself is the forward one */
        if ((i128)p->gw->n * p->gw->co * p->gw->kdim > ((i128)1 << 32)) {
            return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the gradWeight partial sums are too large"));
        }
    }
    if (gb) {
        p->gb = true;
        axis_positions(gradOutput, p->gypos);
        p->n = gradOutput->dims[0];
        p->co = gradOutput->dims[1];
        const int nsp = (int)gradOutput->ndim - 2;
        for (int a = 0; a < 3; a++) {
            int sp = a - (3 - nsp);
            p->sp[a] = sp < 0 ? 1 : gradOutput->dims[2 + sp];
        }
    }
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- aclnnConvTbcBackward: self = gradOutput (T_out, B, C_out), input (T, B, C_in), weight (K, C_in, C_out),
 * bias (C_out); all three gradients ---- */

static aclnnStatus tbc_format(const aclTensor *t, const char *name, bool nd_only) {
    if (nd_only)
        ACLNN_CHECK(fmt_is(t, ACL_FORMAT_ND), ACLNN_ERR_PARAM_INVALID, "%s's format %s must be ND", name,
                    acl_format_name(t->format));
    else
        ACLNN_CHECK(fmt_is(t, ACL_FORMAT_ND) || fmt_is(t, ACL_FORMAT_NCL), ACLNN_ERR_PARAM_INVALID,
                    "%s's format %s must be ND or NCL", name, acl_format_name(t->format));
    return ACLNN_SUCCESS;
}

static aclnnStatus tbc_rank(const aclTensor *t, uint64_t r, const char *name) {
    ACLNN_CHECK(t->ndim == r, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims, it must have %llu", name,
                (unsigned long long)t->ndim, (unsigned long long)r);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_tbc_bw(const aclTensor *self, const aclTensor *input, const aclTensor *weight,
                                const aclTensor *bias, int64_t pad, int8_t cubeMathType, const aclTensor *gradInput,
                                const aclTensor *gradWeight, const aclTensor *gradBias) {
    const aclTensor *ts[7] = {self, input, weight, bias, gradInput, gradWeight, gradBias};
    static const char *nm[7] = {"self", "input", "weight", "bias", "gradInput", "gradWeight", "gradBias"};
    for (int i = 0; i < 7; i++) ACL_TRY(acl_check_tensor(ts[i], nm[i]));
    for (int i = 0; i < 7; i++) ACL_TRY(acl_check_dtype_in(ts[i], ACL_DT_LIST_ConvTbcBackward, nm[i]));
    ACL_TRY(tbc_format(self, "self", false));
    ACL_TRY(tbc_format(input, "input", false));
    ACL_TRY(tbc_format(weight, "weight", false));
    ACL_TRY(tbc_format(bias, "bias", true));
    ACL_TRY(tbc_format(gradInput, "gradInput", false));
    ACL_TRY(tbc_format(gradWeight, "gradWeight", false));
    ACL_TRY(tbc_format(gradBias, "gradBias", true));
    ACLNN_CHECK(!acl_tensor_empty(self), ACLNN_ERR_PARAM_INVALID, "self (the output gradient) must not be empty");
    ACL_TRY(tbc_rank(self, 3, "self"));
    ACL_TRY(tbc_rank(input, 3, "input"));
    ACL_TRY(tbc_rank(weight, 3, "weight"));
    ACL_TRY(tbc_rank(bias, 1, "bias"));
    ACL_TRY(tbc_rank(gradBias, 1, "gradBias"));
    ACL_TRY(tbc_rank(gradInput, 3, "gradInput"));
    ACL_TRY(tbc_rank(gradWeight, 3, "gradWeight"));
    ACLNN_CHECK(input->dims[2] == weight->dims[1], ACLNN_ERR_PARAM_INVALID,
                "input's dim 2 (%lld) must equal weight's dim 1 (%lld)", (long long)input->dims[2],
                (long long)weight->dims[1]);
    ACLNN_CHECK(bias->dims[0] == weight->dims[2], ACLNN_ERR_PARAM_INVALID,
                "bias has %lld elements, it must equal weight's dim 2 (%lld)", (long long)bias->dims[0],
                (long long)weight->dims[2]);
    ACLNN_CHECK(pad >= 0, ACLNN_ERR_PARAM_INVALID, "pad = %lld must be >= 0", (long long)pad);
    i128 t = (i128)input->dims[0] + 2 * (i128)pad + 1 - weight->dims[0];
    ACLNN_CHECK(t >= 0, ACLNN_ERR_PARAM_INVALID, "input's T (%lld) + 2 * pad + 1 must be at least weight's K (%lld)",
                (long long)input->dims[0], (long long)weight->dims[0]);
    ACLNN_CHECK((i128)self->dims[0] == t && self->dims[1] == input->dims[1] && self->dims[2] == weight->dims[2],
                ACLNN_ERR_PARAM_INVALID, "self must be [%lld, %lld, %lld]", (long long)t, (long long)input->dims[1],
                (long long)weight->dims[2]);
    ACLNN_CHECK(same_shape(gradInput, input), ACLNN_ERR_PARAM_INVALID, "gradInput's shape must be input's");
    ACLNN_CHECK(same_shape(gradWeight, weight), ACLNN_ERR_PARAM_INVALID, "gradWeight's shape must be weight's");
    ACLNN_CHECK(same_shape(gradBias, bias), ACLNN_ERR_PARAM_INVALID, "gradBias's shape must be bias's");
    ACLNN_CHECK(cubeMathType >= 0 && cubeMathType <= 3, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d must be one of 0 (KEEP_DTYPE) .. 3 (USE_HF32)", (int)cubeMathType);
    return ACLNN_SUCCESS;
}

/* A plan over TBC-laid-out tensors (T on dim 0, B on dim 1, C on dim 2; weight (K, C_in, C_out)). */
static conv_plan *tbc_plan(const aclTensor *in, const aclTensor *out, int64_t k, int64_t pad, bool tr) {
    conv_plan *p = calloc(1, sizeof(conv_plan));
    if (!p) return NULL;
    p->transposed = tr;
    p->n = in->dims[1];
    p->ci = in->dims[2];
    p->co = out->dims[2];
    p->groups = 1;
    for (int a = 0; a < 2; a++) {
        p->in[a] = p->out[a] = p->k[a] = p->s[a] = p->d[a] = 1;
        p->p[a] = 0;
    }
    p->in[2] = in->dims[0];
    p->out[2] = out->dims[0];
    p->k[2] = k;
    p->s[2] = p->d[2] = 1;
    p->p[2] = pad;
    const int tbc[5] = {1, 2, -1, -1, 0}, wk[5] = {2, 1, -1, -1, 0};
    memcpy(p->xpos, tbc, sizeof tbc);
    memcpy(p->ypos, tbc, sizeof tbc);
    memcpy(p->wpos, wk, sizeof wk);
    if (!conv_plan_build(p)) {
        conv_plan_free(p);
        return NULL;
    }
    return p;
}

aclnnStatus opws_ConvTbcBackward(const aclTensor *self, const aclTensor *input, const aclTensor *weight,
                                 const aclTensor *bias, int64_t pad, int8_t cubeMathType, aclTensor *gradInput,
                                 aclTensor *gradWeight, aclTensor *gradBias, uint64_t *workspaceSize,
                                 aclOpExecutor **executor) {
    ACL_TRY(check_tbc_bw(self, input, weight, bias, pad, cubeMathType, gradInput, gradWeight, gradBias));
    const bool empty = acl_tensor_empty(input) || acl_tensor_empty(weight) || acl_tensor_empty(bias);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ConvTbcBackward, run, sizeof(convbw_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    convbw_params *p = ex->params;
    ex->free_params = convbw_free;
    p->out_gi = p->out_gw = p->out_gb = -1;
    const bool gi = !acl_tensor_empty(gradInput), gw = !acl_tensor_empty(gradWeight), gb = !acl_tensor_empty(gradBias);
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", !empty);
    if (rc == 0) rc = acl_exec_add_input(ex, input, "input", !empty && gw);
    if (rc == 0) rc = acl_exec_add_input(ex, weight, "weight", !empty && gi);
    if (rc == 0) rc = acl_exec_add_input(ex, bias, "bias", false);
    int slot = 0;
    if (rc == 0 && gi) { p->out_gi = slot++; rc = acl_exec_add_output(ex, gradInput, "gradInput"); }
    if (rc == 0 && gw) { p->out_gw = slot++; rc = acl_exec_add_output(ex, gradWeight, "gradWeight"); }
    if (rc == 0 && gb) { p->out_gb = slot++; rc = acl_exec_add_output(ex, gradBias, "gradBias"); }
    if (rc) return acl_exec_discard(ex, rc);
    if (!gi && !gw && !gb) ex->run = NULL;
    if (empty) {
        /* the op_api's empty path: zero gradients, and gradBias filled with B * T_out (it does not read self) */
        p->zero_gi = gi;
        p->zero_gw = gw;
        if (gb) {
            p->fill_gb = true;
            p->gb_fill = (float)((double)gradInput->dims[1] *
                                 (double)(gradInput->dims[0] + 2 * pad + 1 - gradWeight->dims[0]));
        }
        return acl_exec_publish(ex, workspaceSize, executor);
    }
    if (gi && !(p->gi = tbc_plan(self, gradInput, weight->dims[0], pad, true)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the gradInput buffers are too large"));
    if (gw && !(p->gw = tbc_plan(input, self, weight->dims[0], pad, false)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "the gradWeight buffers are too large"));
    if (gb) {
        p->gb = true;
        const int tbc[5] = {1, 2, -1, -1, 0};
        memcpy(p->gypos, tbc, sizeof tbc);
        p->n = self->dims[1];
        p->co = self->dims[2];
        p->sp[0] = p->sp[1] = 1;
        p->sp[2] = self->dims[0];
    }
    return acl_exec_publish(ex, workspaceSize, executor);
}
