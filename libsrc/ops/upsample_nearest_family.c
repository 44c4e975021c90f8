/* The nearest / nearest-exact resampling family beyond the seed pair: aclnnUpsampleNearest1d / 2d (forward, the
 * TF "resize nearest neighbour" rule src = min(floor(d * in/out), in - 1)), aclnnUpsampleNearestExact1d, and the
 * backward ops aclnnUpsampleNearest1dBackward / 2dBackward / aclnnUpsampleNearestExact1dBackward. Every op runs
 * the kernels of the seed nearest-exact 2-D ops (kernels/upsample_nearest_exact.h) over per-axis tables
 * (kernels/upsample_nearest.h); a 1-D op is a 2-D op with one row. Validation follows each op's op_api, in order;
 * which device path the op_api picks decides the index rule of the backward ops (see bwd_axis below). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ops/gen/all_ops.h"
#include "common/dtype.h"
#include "common/cpu.h"
#include "common/half_rows.h"
#include "common/parallel.h"
#include "kernels/f16_rows.h"
#include "kernels/upsample_nearest.h"
#include "ops/ops.h"

/* dim i of t, 0 past its rank (the host code reads such a slot as an unset dim) */
static int64_t dim_or0(const aclTensor *t, int i) { return (uint64_t)i < t->ndim ? t->dims[i] : 0; }

/* ---- checks shared by the ops (each in the order its op_api runs them) ---- */

static aclnnStatus ws_check(const uint64_t *workspaceSize, aclOpExecutor *const *executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    return ACLNN_SUCCESS;
}

/* The 1-D forward ops' head: NULLs, self's dtype (out's the same), a non-empty outputSize, a (N, C, L) self with
 * C, L non-zero. */
static aclnnStatus ncl_head(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out,
                            const aclDataType *list, int nlist) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACLNN_CHECK(outputSize->size > 0, ACLNN_ERR_PARAM_INVALID, "outputSize should not be empty.");
    ACL_TRY(acl_check_rank(self, 3, "self"));
    ACLNN_CHECK(self->dims[1] != 0 && self->dims[2] != 0, ACLNN_ERR_PARAM_INVALID,
                "self should be a non-empty 3-D tensor (dims 1, 2 are %lld, %lld).", (long long)self->dims[1],
                (long long)self->dims[2]);
    return ACLNN_SUCCESS;
}

/* out in self's format, which is NCL */
static aclnnStatus ncl_formats(const aclTensor *self, const aclTensor *out) {
    ACLNN_CHECK(out->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be the same as self format %s.", acl_format_name(out->format),
                acl_format_name(self->format));
    ACLNN_CHECK(self->format == ACL_FORMAT_NCL, ACLNN_ERR_PARAM_INVALID, "self format %s should be NCL.",
                acl_format_name(self->format));
    return ACLNN_SUCCESS;
}

/* [HW] a 1-D forward's result is copied into out: (N, C, lo) (L unchecked when !with_len) */
static aclnnStatus ncl_out_copy(const aclTensor *self, const aclTensor *out, int64_t lo, int with_len) {
    ACLNN_CHECK(out->ndim == 3 && out->dims[0] == self->dims[0] && out->dims[1] == self->dims[1] &&
                (!with_len || out->dims[2] == lo), ACLNN_ERR_INNER_NULLPTR, "out should be (%lld, %lld, %lld), "
                "self's N and C with outputSize[0]: the result is copied into it.", (long long)self->dims[0],
                (long long)self->dims[1], (long long)lo);
    return ACLNN_SUCCESS;
}

/* The 2-D forward ops' sizes: outputSize of 2, a 4-D self with H, W, outputSize > 0 and a non-zero dim 1. */
static aclnnStatus nchw_sizes(const aclTensor *self, const aclIntArray *outputSize) {
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 2.",
                (unsigned long long)outputSize->size);
    ACL_TRY(acl_check_rank(self, 4, "self"));
    /* [EMU] a negative size fails here too (it would fail the shape inference on the device) */
    ACLNN_CHECK(self->dims[2] > 0 && self->dims[3] > 0 && outputSize->v[0] > 0 && outputSize->v[1] > 0,
                ACLNN_ERR_PARAM_INVALID, "self dims 2, 3 (%lld, %lld) and outputSize (%lld, %lld) should be greater "
                "than 0.", (long long)self->dims[2], (long long)self->dims[3], (long long)outputSize->v[0],
                (long long)outputSize->v[1]);
    ACLNN_CHECK(self->dims[1] != 0, ACLNN_ERR_PARAM_INVALID, "self should be a non-empty 4-D tensor (dim 1 is 0).");
    return ACLNN_SUCCESS;
}

/* out's N and C (C at axis cx) are self's */
static aclnnStatus nc_match(const aclTensor *self, const aclTensor *out, int cx) {
    ACLNN_CHECK(self->dims[0] == dim_or0(out, 0) && self->dims[cx] == dim_or0(out, cx), ACLNN_ERR_PARAM_INVALID,
                "out N, C (%lld, %lld) should equal self N, C (%lld, %lld).", (long long)dim_or0(out, 0),
                (long long)dim_or0(out, cx), (long long)self->dims[0], (long long)self->dims[cx]);
    return ACLNN_SUCCESS;
}

/* gradOut's nd dims are `full` (the output of inputSize and outputSize) */
static aclnnStatus grad_full(const aclTensor *gradOut, const int64_t *full, int nd) {
    for (int d = 0; d < nd; d++)
        ACLNN_CHECK(gradOut->dims[d] == full[d], ACLNN_ERR_PARAM_INVALID, "gradOut dim %d is %lld; the output of "
                    "inputSize and outputSize has %lld there.", d, (long long)gradOut->dims[d], (long long)full[d]);
    return ACLNN_SUCCESS;
}

/* An executor of one input and one output, params of `size` bytes freed by `fr`; NULL after a failure, whose
 * status is then in *rc. */
static aclOpExecutor *exec_1in_1out(int op, aclnnStatus (*run)(aclOpExecutor *, void *, uint64_t), size_t size,
                                    void (*fr)(void *), const aclTensor *in, const char *in_name, aclTensor *out,
                                    const char *out_name, aclnnStatus *rc) {
    aclOpExecutor *ex = acl_exec_create(op, run, size);
    if (!ex) {
        *rc = ACLNN_ERR_INNER_CREATE_EXECUTOR;
        return NULL;
    }
    ex->free_params = fr;
    *rc = acl_exec_add_input(ex, in, in_name, true);
    if (*rc == 0) *rc = acl_exec_add_output(ex, out, out_name);
    if (*rc) {
        *rc = acl_exec_discard(ex, *rc);
        return NULL;
    }
    return ex;
}

/* ---- the canonical (N, C, H, W) views the kernels take ---- */

/* v as (N, C, H, W): an NHWC view permuted, a 3-D (N, C, L) view with a unit H axis */
static acl_view canon(const acl_view *v, int nhwc) {
    acl_view c = *v;
    if (v->ndim == 3) {
        c.ndim = 4;
        c.dims[0] = v->dims[0]; c.strides[0] = v->strides[0];
        c.dims[1] = v->dims[1]; c.strides[1] = v->strides[1];
        c.dims[2] = 1; c.strides[2] = 0;
        c.dims[3] = v->dims[2]; c.strides[3] = v->strides[2];
    } else if (nhwc) {
        static const int ax[4] = {0, 3, 1, 2};
        for (int d = 0; d < 4; d++) {
            c.dims[d] = v->dims[ax[d]];
            c.strides[d] = v->strides[ax[d]];
        }
    }
    return c;
}

/* ---- forward ---- */

static void fwd_free(void *params) {
    upnx_fwd_plan *p = params;
    if (p) {
        free(p->h_src);
        free(p->fb);
    }
    free(p);
}

static aclnnStatus fwd_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const upnx_fwd_plan *p = ex->params;
    acl_view x = canon(acl_exec_in(ex, 0), p->nhwc), y = canon(acl_exec_out(ex, 0), p->nhwc);
    upnx_fwd_gather(&x, &y, p);
    return ACLNN_SUCCESS;
}

/* The executor of a forward op: out[n, c, y, x] = self[n, c, src_h(y), src_w(x)] with the ratios rh, rw. */
static aclnnStatus fwd_publish(int op, const aclTensor *self, aclTensor *out, int nhwc, const int64_t nchw[4],
                               int64_t ho, int64_t wo, float rh, float rw, int exact, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    aclnnStatus rc;
    aclOpExecutor *ex = exec_1in_1out(op, fwd_run, sizeof(upnx_fwd_plan), fwd_free, self, "self", out, "out", &rc);
    if (!ex) return rc;
    upnx_fwd_plan *p = ex->params;
    p->nhwc = nhwc;
    p->n = nchw[0];
    p->c = nchw[1];
    p->hi = nchw[2];
    p->wi = nchw[3];
    p->ho = ho;
    p->wo = wo;
    int64_t *tab = malloc((size_t)(ho + wo) * sizeof(int64_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of outputSize "
                                                                "(%lld, %lld)", (long long)ho, (long long)wo));
    p->h_src = tab;
    p->w_src = tab + ho;
    upn_axis_sources(p->h_src, p->hi, ho, rh, exact);
    p->wk = upn_axis_sources(p->w_src, p->wi, wo, rw, exact);
    if (!upnx_fwd_blocks(p, (int64_t)acl_dtype_size(self->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of outputSize "
                                                                "(%lld, %lld)", (long long)ho, (long long)wo));
    return acl_exec_publish(ex, workspaceSize, executor);
}

static const aclFormat k_fmt_2d[] = {ACL_FORMAT_NCHW, ACL_FORMAT_NHWC};

/* ---- aclnnUpsampleNearest2d ---- */

static aclnnStatus nearest2d_check(const aclTensor *self, const aclIntArray *outputSize, const aclTensor *out) {
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_UpsampleNearest2d, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(nchw_sizes(self, outputSize));
    ACL_TRY(acl_check_format_in(self, k_fmt_2d, ACL_COUNT_OF(k_fmt_2d), "self"));
    ACLNN_CHECK(out->format == self->format, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be the same as self format %s.", acl_format_name(out->format),
                acl_format_name(self->format));
    const int nhwc = self->format == ACL_FORMAT_NHWC;
    const int cx = nhwc ? 3 : 1, hx = nhwc ? 1 : 2, wx = nhwc ? 2 : 3;
    ACL_TRY(nc_match(self, out, cx));
    ACLNN_CHECK(dim_or0(out, hx) == outputSize->v[0] && dim_or0(out, wx) == outputSize->v[1],
                ACLNN_ERR_PARAM_INVALID, "out H, W (%lld, %lld) should equal outputSize (%lld, %lld).",
                (long long)dim_or0(out, hx), (long long)dim_or0(out, wx), (long long)outputSize->v[0],
                (long long)outputSize->v[1]);
    for (int d = 0; d < 4; d++) {
        ACLNN_CHECK(self->dims[d] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "self dim %d (%lld) should not be greater "
                    "than %d.", d, (long long)self->dims[d], INT32_MAX);
        ACLNN_CHECK(dim_or0(out, d) <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "out dim %d (%lld) should not be "
                    "greater than %d.", d, (long long)dim_or0(out, d), INT32_MAX);
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_UpsampleNearest2d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(nearest2d_check(self, outputSize, out));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest2d, workspaceSize, executor);
    /* [HW] the result is copied into out at the end of phase 1; any other shape fails that copy */
    ACLNN_CHECK(out->ndim == 4, ACLNN_ERR_INNER_NULLPTR, "out should be 4-dimensional: the result is copied into it.");
    const int nhwc = self->format == ACL_FORMAT_NHWC;
    const int64_t nchw[4] = {self->dims[0], self->dims[nhwc ? 3 : 1], self->dims[nhwc ? 1 : 2],
                             self->dims[nhwc ? 2 : 3]};
    const int64_t ho = outputSize->v[0], wo = outputSize->v[1];
    return fwd_publish(ACL_OP_UpsampleNearest2d, self, out, nhwc, nchw, ho, wo, upn_fwd_ratio(nchw[2], ho, 0.0),
                       upn_fwd_ratio(nchw[3], wo, 0.0), 0, workspaceSize, executor);
}

/* ---- aclnnUpsampleNearest1d ---- */

aclnnStatus opws_UpsampleNearest1d(const aclTensor *self, const aclIntArray *outputSize, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(ncl_head(self, outputSize, out, ACL_DT_LIST_UpsampleNearest1d));
    ACLNN_CHECK(outputSize->v[0] > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[0] %lld should be greater than 0.",
                (long long)outputSize->v[0]);
    ACL_TRY(ncl_formats(self, out));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest1d, workspaceSize, executor);
    const int64_t lo = outputSize->v[0];
    ACL_TRY(ncl_out_copy(self, out, lo, 1));
    const int64_t nchw[4] = {self->dims[0], self->dims[1], 1, self->dims[2]};
    return fwd_publish(ACL_OP_UpsampleNearest1d, self, out, 0, nchw, 1, lo, 1.0f, upn_fwd_ratio(nchw[3], lo, 0.0),
                       0, workspaceSize, executor);
}

/* ---- aclnnUpsampleNearestExact1d ---- */

aclnnStatus opws_UpsampleNearestExact1d(const aclTensor *self, const aclIntArray *outputSize, double scales,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_UpsampleNearestExact1d, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    /* sizes before the rank check: a missing dim reads as 0 [EMU], an empty outputSize as length 0 */
    const int64_t lo = outputSize->size > 0 ? outputSize->v[0] : 0;
    ACLNN_CHECK(dim_or0(self, 0) > 0 && dim_or0(self, 1) > 0 && dim_or0(self, 2) > 0 && lo > 0,
                ACLNN_ERR_PARAM_INVALID, "self N, C, L (%lld, %lld, %lld) and outputSize[0] %lld should be greater "
                "than 0.", (long long)dim_or0(self, 0), (long long)dim_or0(self, 1), (long long)dim_or0(self, 2),
                (long long)lo);
    ACL_TRY(acl_check_rank(self, 3, "self"));
    ACLNN_CHECK(outputSize->size == 1, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 1.",
                (unsigned long long)outputSize->size);
    ACL_TRY(ncl_out_copy(self, out, lo, 1));
    const int64_t nchw[4] = {self->dims[0], self->dims[1], 1, self->dims[2]};
    return fwd_publish(ACL_OP_UpsampleNearestExact1d, self, out, 0, nchw, 1, lo, 1.0f,
                       upn_fwd_ratio(nchw[3], lo, scales), 1, workspaceSize, executor);
}

/* ---- backward ---- */

static void bwd_free(void *params) {
    upnx_bwd_plan *p = params;
    if (p) {
        free(p->h_lo);
        free(p->wb);
    }
    free(p);
}

typedef struct {
    upnx_bwd_plan p; /* first: the kernels take the plan */
    int nhwc;
} bwd_plan;

static aclnnStatus bwd_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const bwd_plan *bp = ex->params;
    const upnx_bwd_plan *p = &bp->p;
    acl_view g = canon(acl_exec_in(ex, 0), bp->nhwc), o = canon(acl_exec_out(ex, 0), bp->nhwc);
    const int dbl = g.dtype == ACL_DOUBLE;
    const int64_t per = dbl ? upn_bwd_f64_scratch(p) : upnx_bwd_scratch_floats(p);
    const size_t es = dbl ? sizeof(double) : sizeof(float);
    void *scratch = acl_team_alloc(acl_max_threads(), per, es, 0); /* per: whole lines; line-aligned */
    ACLNN_CHECK(scratch != NULL, ACLNN_ERR_INNER, "out of memory for %lld elements of per-thread scratch",
                (long long)(per * acl_max_threads()));
    switch (g.dtype) {
    case ACL_DOUBLE: upn_bwd_f64(&g, &o, p, scratch); break;
    case ACL_FLOAT: upnx_bwd_f32(&g, &o, p, scratch); break;
    case ACL_FLOAT16: upnx_bwd_f16(&g, &o, p, scratch); break;
    default: upnx_bwd_bf16(&g, &o, p, scratch); break;
    }
    free(scratch);
    return ACLNN_SUCCESS;
}

/* How one axis of a backward op maps gradOutput positions to gradient-input indices. */
typedef struct {
    int ranges; /* 1: the Ascend kernel's ranges from the fp32 scale s (output/input); 0: the forward map
                 * min(floor(r * ratio), in - 1) transposed, ratio an fp32 input/output */
    float s;
    int exact;
} bwd_axis;

/* ranges from a scale: s = fp32(scales) when scales > 0, else fp32(out) / fp32(in) (the tiling's rule) */
static bwd_axis axis_kernel(double scales, int64_t out_len, int64_t in_len, int exact) {
    bwd_axis a = {1, scales > 0 ? (float)scales : 0.0f, exact};
    if (!(a.s > 0)) a.s = (float)out_len / (float)in_len;
    return a;
}

static bwd_axis axis_map(float ratio) {
    bwd_axis a = {0, ratio, 0};
    return a;
}

static int64_t build_axis(int64_t *lo, int64_t *hi, int64_t in_len, int64_t out_len, bwd_axis a, int64_t *tmp) {
    if (a.ranges) return upn_axis_ranges(lo, hi, in_len, out_len, a.s, a.exact);
    upn_axis_sources(tmp, in_len, out_len, a.s, 0);
    return upn_ranges_from_sources(lo, hi, in_len, out_len, tmp);
}

static aclnnStatus bwd_publish(int op, const aclTensor *g, aclTensor *out, int nhwc, const int64_t nchw_o[4],
                               int64_t hi, int64_t wi, bwd_axis ah, bwd_axis aw, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    aclnnStatus rc;
    aclOpExecutor *ex = exec_1in_1out(op, bwd_run, sizeof(bwd_plan), bwd_free, g, "gradOutput", out, "out", &rc);
    if (!ex) return rc;
    bwd_plan *bp = ex->params;
    upnx_bwd_plan *p = &bp->p;
    bp->nhwc = nhwc;
    p->n = nchw_o[0];
    p->c = nchw_o[1];
    p->ho = nchw_o[2];
    p->wo = nchw_o[3];
    p->hi = hi;
    p->wi = wi;
    const int64_t tmp_len = p->ho > p->wo ? p->ho : p->wo;
    int64_t *tab = malloc((size_t)(2 * (hi + wi) + tmp_len) * sizeof(int64_t) + (size_t)(2 * wi) * sizeof(int32_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of inputSize "
                                                                "(%lld, %lld)", (long long)hi, (long long)wi));
    p->h_lo = tab;
    p->h_hi = tab + hi;
    p->w_lo = tab + 2 * hi;
    p->w_hi = tab + 2 * hi + wi;
    int64_t *tmp = tab + 2 * (hi + wi);
    p->hk = build_axis(p->h_lo, p->h_hi, hi, p->ho, ah, tmp);
    p->wk = build_axis(p->w_lo, p->w_hi, wi, p->wo, aw, tmp);
    upn_pair_tables(p, (int32_t *)(tmp + tmp_len));
    if (g->dtype != ACL_DOUBLE && !upnx_bwd_blocks(p, (int64_t)acl_dtype_size(g->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of inputSize "
                                                                "(%lld, %lld)", (long long)hi, (long long)wi));
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- aclnnUpsampleNearest2dBackward ---- */

aclnnStatus opws_UpsampleNearest2dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                           const aclIntArray *inputSize, double scalesH, double scalesW,
                                           aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(gradOut, "gradOut"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACL_TRY(acl_check_dtype_in(gradOut, ACL_DT_LIST_UpsampleNearest2dBackward, "gradOut"));
    ACL_TRY(acl_check_same_dtype(gradOut, "gradOut", gradInput, "gradInput"));
    ACL_TRY(acl_check_rank(gradOut, 4, "gradOut"));
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 2.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(inputSize->size == 4, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be 4.",
                (unsigned long long)inputSize->size);
    /* N and C, in gradInput's format (NCHW or NHWC only) */
    ACLNN_CHECK(gradInput->format == ACL_FORMAT_NCHW || gradInput->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "gradInput format %s should be NCHW or NHWC.", acl_format_name(gradInput->format));
    const int cgi = gradInput->format == ACL_FORMAT_NHWC ? 3 : 1;
    ACLNN_CHECK(dim_or0(gradInput, 0) == gradOut->dims[0] && dim_or0(gradInput, cgi) == gradOut->dims[cgi],
                ACLNN_ERR_PARAM_INVALID, "gradInput N, C (%lld, %lld) should equal gradOut N, C (%lld, %lld).",
                (long long)dim_or0(gradInput, 0), (long long)dim_or0(gradInput, cgi), (long long)gradOut->dims[0],
                (long long)gradOut->dims[cgi]);
    /* sizes, in gradOut's format */
    const int nhwc = gradOut->format == ACL_FORMAT_NHWC;
    const int64_t *is = inputSize->v;
    const int64_t hi = nhwc ? is[1] : is[2], wi = nhwc ? is[2] : is[3], ch = nhwc ? is[3] : is[1];
    const int64_t ho = outputSize->v[0], wo = outputSize->v[1];
    ACLNN_CHECK(hi > 0 && wi > 0 && ho > 0 && wo > 0, ACLNN_ERR_PARAM_INVALID,
                "inputSize H, W (%lld, %lld) and outputSize (%lld, %lld) should be greater than 0.", (long long)hi,
                (long long)wi, (long long)ho, (long long)wo);
    const int64_t full[4] = {is[0], nhwc ? ho : ch, nhwc ? wo : ho, nhwc ? ch : wo};
    ACL_TRY(grad_full(gradOut, full, 4));
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(gradInput))
        return acl_exec_noop(ACL_OP_UpsampleNearest2dBackward, workspaceSize, executor);

    /* The A2 device path: with a positive scale the Ascend kernel's ranges (s = fp32 scale, or Ho/Hi for a scale
     * <= 0; both 1 when the sizes match, unless the AI-core shape condition holds); otherwise the TF resize
     * gradient (every gradOutput position to min(floor(r * Hi/Ho), Hi - 1)). */
    bwd_axis ah, aw;
    const int kernel = scalesH > 0 || scalesW > 0;
    if (kernel) {
        const int aicore = scalesH > 0 && scalesW > 0 && !(ch > 6 * hi * wi || ch > 6 * ho * wo) && hi >= 8 &&
                           ho >= 8 && wi >= 16 && wo >= 16 && (int64_t)((double)hi * scalesH) == ho &&
                           (int64_t)((double)wi * scalesW) == wo;
        ah = axis_kernel(scalesH, ho, hi, 0);
        aw = axis_kernel(scalesW, wo, wi, 0);
        if (!aicore && ho == hi && wo == wi) ah.s = aw.s = 1.0f;
    } else {
        ah = axis_map((float)hi / (float)ho);
        aw = axis_map((float)wi / (float)wo);
    }
    /* [HW] the result, inputSize-shaped, is copied into gradInput (ACLNN_ERR_INNER_NULLPTR on a mismatch); the
     * TF path compares the shapes first (ACLNN_ERR_PARAM_INVALID) */
    int same = gradInput->ndim == 4;
    for (int d = 0; d < 4 && same; d++) same = gradInput->dims[d] == is[d];
    ACLNN_CHECK(same, kernel ? ACLNN_ERR_INNER_NULLPTR : ACLNN_ERR_PARAM_INVALID,
                "gradInput should have the shape of inputSize (%lld, %lld, %lld, %lld): the result is copied into it.",
                (long long)is[0], (long long)is[1], (long long)is[2], (long long)is[3]);
    const int64_t nchw_o[4] = {is[0], ch, ho, wo};
    return bwd_publish(ACL_OP_UpsampleNearest2dBackward, gradOut, gradInput, nhwc, nchw_o, hi, wi, ah, aw,
                       workspaceSize, executor);
}

/* ---- aclnnUpsampleNearest1dBackward ---- */

aclnnStatus opws_UpsampleNearest1dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                           const aclIntArray *inputSize, double scales, aclTensor *out,
                                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(gradOut, "gradOut"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_rank(gradOut, 3, "gradOut"));
    ACLNN_CHECK(outputSize->size == 1, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 1.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(inputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be 3.",
                (unsigned long long)inputSize->size);
    ACL_TRY(acl_check_dtype_in(gradOut, ACL_DT_LIST_UpsampleNearest1dBackward, "gradOut"));
    ACL_TRY(acl_check_same_dtype(gradOut, "gradOut", out, "out"));
    const int64_t *is = inputSize->v;
    const int64_t li = is[2], lo = outputSize->v[0];
    ACLNN_CHECK(li > 0 && lo > 0, ACLNN_ERR_PARAM_INVALID,
                "inputSize[2] %lld and outputSize[0] %lld should be greater than 0.", (long long)li, (long long)lo);
    const int64_t full[3] = {is[0], is[1], lo};
    ACL_TRY(grad_full(gradOut, full, 3));
    ACLNN_CHECK(dim_or0(out, 0) == gradOut->dims[0] && dim_or0(out, 1) == gradOut->dims[1], ACLNN_ERR_PARAM_INVALID,
                "out N, C (%lld, %lld) should equal gradOut N, C (%lld, %lld).", (long long)dim_or0(out, 0),
                (long long)dim_or0(out, 1), (long long)gradOut->dims[0], (long long)gradOut->dims[1]);
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest1dBackward, workspaceSize, executor);

    /* The A2 device path: the Ascend kernel's ranges (s = fp32 scales) for fp32/fp16/bf16 with scales > 0 and
     * floor(L_in * scales) == L_out; else the CPU kernel (float64 with such a scale: the ratio fp32(1 / scales))
     * or the TF resize gradient (ratio L_in / L_out), each every gradOutput position to min(floor(r * ratio),
     * L_in - 1). */
    const int check_scales = scales > 0 ? (int64_t)((double)li * scales) == lo : 1;
    const int kernel = gradOut->dtype != ACL_DOUBLE && scales > 0 && check_scales;
    bwd_axis aw;
    if (kernel)
        aw = axis_kernel(scales, lo, li, 0);
    else if (gradOut->dtype == ACL_DOUBLE && scales > 0 && check_scales)
        aw = axis_map((float)(1.0 / scales));
    else
        aw = axis_map((float)li / (float)lo);
    ACLNN_CHECK(out->ndim == 3 && out->dims[2] == li, kernel ? ACLNN_ERR_INNER_NULLPTR : ACLNN_ERR_PARAM_INVALID,
                "out should have the shape of inputSize (%lld, %lld, %lld): the result is copied into it.",
                (long long)is[0], (long long)is[1], (long long)li);
    const int64_t nchw_o[4] = {is[0], is[1], 1, lo};
    return bwd_publish(ACL_OP_UpsampleNearest1dBackward, gradOut, out, 0, nchw_o, 1, li, axis_kernel(1.0, 1, 1, 0),
                       aw, workspaceSize, executor);
}

/* ---- aclnnUpsampleNearestExact1dBackward ---- */

aclnnStatus opws_UpsampleNearestExact1dBackward(const aclTensor *gradOutput, const aclIntArray *outputSize,
                                                const aclIntArray *inputSize, double scales, aclTensor *out,
                                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_UpsampleNearestExact1dBackward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", out, "out"));
    ACLNN_CHECK(gradOutput->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be the same as gradOutput format %s.", acl_format_name(out->format),
                acl_format_name(gradOutput->format));
    /* [EMU] the host code reads outputSize's length without a NULL check (a crash on the device) */
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_rank(gradOutput, 3, "gradOutput"));
    ACL_TRY(acl_check_rank(out, 3, "out"));
    ACLNN_CHECK(inputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be 3.",
                (unsigned long long)inputSize->size);
    ACLNN_CHECK(outputSize->size == 1, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 1.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(gradOutput->dims[0] == out->dims[0] && gradOutput->dims[1] == out->dims[1], ACLNN_ERR_PARAM_INVALID,
                "out N, C (%lld, %lld) should equal gradOutput N, C (%lld, %lld).", (long long)out->dims[0],
                (long long)out->dims[1], (long long)gradOutput->dims[0], (long long)gradOutput->dims[1]);
    ACLNN_CHECK(!(scales < 0), ACLNN_ERR_PARAM_INVALID, "scales %g should not be negative.", scales);
    const int64_t li = inputSize->v[2], lo = gradOutput->dims[2];
    const double ratio = scales > 0 ? 1.0 / scales : (lo != 0 ? (double)li / (double)lo : 0.0);
    ACLNN_CHECK(ratio >= 0.02, ACLNN_ERR_PARAM_INVALID, "scales %g with inputSize[2] %lld and gradOutput L %lld is "
                "more than a 50x upscale (ratio %g < 0.02).", scales, (long long)li, (long long)lo, ratio);
    ACLNN_CHECK(gradOutput->dims[0] > 0 && gradOutput->dims[1] > 0 && li > 0 && lo > 0, ACLNN_ERR_PARAM_INVALID,
                "gradOutput N, C, L (%lld, %lld, %lld) and inputSize[2] %lld should be greater than 0.",
                (long long)gradOutput->dims[0], (long long)gradOutput->dims[1], (long long)lo, (long long)li);
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearestExact1dBackward, workspaceSize, executor);
    /* [HW] the result, inputSize-shaped, is copied into out */
    ACLNN_CHECK(inputSize->v[0] == out->dims[0] && inputSize->v[1] == out->dims[1] && out->dims[2] == li,
                ACLNN_ERR_INNER_NULLPTR, "out (%lld, %lld, %lld) should have the shape of inputSize (%lld, %lld, "
                "%lld): the result is copied into it.", (long long)out->dims[0], (long long)out->dims[1],
                (long long)out->dims[2], (long long)inputSize->v[0], (long long)inputSize->v[1], (long long)li);
    const int64_t nchw_o[4] = {gradOutput->dims[0], gradOutput->dims[1], 1, lo};
    return bwd_publish(ACL_OP_UpsampleNearestExact1dBackward, gradOutput, out, 0, nchw_o, 1, li,
                       axis_kernel(1.0, 1, 1, 1), axis_kernel(scales, lo, li, 1), workspaceSize, executor);
}

/* ---- aclnnUpsampleNearest1dV2 / aclnnUpsampleNearest2dV2: the forward with fp32 scales ---- */

/* The ratio the device kernel (UpsampleNearest3d) takes: cast > 0 ? cast : fp32(in) / fp32(out). */
static float kernel_ratio(float cast, int64_t in_len, int64_t out_len) {
    return cast > 0 ? cast : (float)in_len / (float)out_len;
}

aclnnStatus opws_UpsampleNearest1dV2(const aclTensor *self, const aclIntArray *outputSize, float scaleL,
                                     aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(ncl_head(self, outputSize, out, ACL_DT_LIST_UpsampleNearest1dV2));
    const int64_t lo = outputSize->v[0];
    ACLNN_CHECK(lo == dim_or0(out, 2), ACLNN_ERR_PARAM_INVALID, "out L %lld should equal outputSize[0] %lld.",
                (long long)dim_or0(out, 2), (long long)lo);
    ACLNN_CHECK(lo > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[0] %lld should be greater than 0.", (long long)lo);
    ACL_TRY(ncl_formats(self, out));
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest1dV2, workspaceSize, executor);
    ACL_TRY(ncl_out_copy(self, out, lo, 0));
    /* A2: fp32/fp16/bf16 through the UpsampleNearest3d kernel with the ratio fp32(1 / scaleL) (in/out when
     * scaleL <= 0); float64 and uint8 through the TF resize (in/out) */
    const int64_t li = self->dims[2];
    const int aicore = self->dtype == ACL_FLOAT || self->dtype == ACL_FLOAT16 || self->dtype == ACL_BF16;
    const float cast = aicore && scaleL > 0 ? (float)(1.0 / (double)scaleL) : 0.0f;
    const int64_t nchw[4] = {self->dims[0], self->dims[1], 1, li};
    return fwd_publish(ACL_OP_UpsampleNearest1dV2, self, out, 0, nchw, 1, lo, 1.0f, kernel_ratio(cast, li, lo), 0,
                       workspaceSize, executor);
}

/* The ratio of one axis of aclnnUpsampleNearest2dV2's kernel path: 1 when the lengths match; 0.5 for an exact
 * doubling when the other output length brings the sum to at most 128 (or the tensor is NHWC with C > 3); else
 * fp32(1 / scale). */
static float v2_axis_ratio(int64_t in_len, int64_t out_len, int64_t out_other, int nhwc_wide, float scale) {
    if (in_len == out_len) return 1.0f;
    if (2 * in_len == out_len && (nhwc_wide || out_len + out_other <= 128)) return 0.5f;
    return (float)(1.0 / (double)scale);
}

aclnnStatus opws_UpsampleNearest2dV2(const aclTensor *self, const aclIntArray *outputSize, float scalesH,
                                     float scalesW, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    /* empty first (outputSize is not looked at then) */
    if (acl_tensor_empty(self) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_UpsampleNearest2dV2, workspaceSize, executor);
    /* [EMU] outputSize is read without a NULL check (a crash on the device) */
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_UpsampleNearest2dV2, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(nchw_sizes(self, outputSize));
    ACLNN_CHECK(self->format == ACL_FORMAT_NCHW || self->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "self format %s should be NCHW or NHWC.", acl_format_name(self->format));
    const int nhwc = self->format == ACL_FORMAT_NHWC;
    const int cx = nhwc ? 3 : 1;
    ACL_TRY(nc_match(self, out, cx));
    ACLNN_CHECK(out->format == ACL_FORMAT_NCHW || out->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "out format %s should be NCHW or NHWC.", acl_format_name(out->format));
    const int ohwc = out->format == ACL_FORMAT_NHWC;
    const int64_t ho = outputSize->v[0], wo = outputSize->v[1];
    ACLNN_CHECK(dim_or0(out, ohwc ? 1 : 2) == ho && dim_or0(out, ohwc ? 2 : 3) == wo, ACLNN_ERR_PARAM_INVALID,
                "out H, W (%lld, %lld) should equal outputSize (%lld, %lld).", (long long)dim_or0(out, ohwc ? 1 : 2),
                (long long)dim_or0(out, ohwc ? 2 : 3), (long long)ho, (long long)wo);
    /* [HW] the result (in self's layout) is copied into out */
    ACLNN_CHECK(out->ndim == 4 && out->format == self->format, ACLNN_ERR_INNER_NULLPTR,
                "out should be 4-dimensional in self's format %s: the result is copied into it.",
                acl_format_name(self->format));
    const int64_t nchw[4] = {self->dims[0], self->dims[cx], self->dims[nhwc ? 1 : 2], self->dims[nhwc ? 2 : 3]};
    float rh, rw;
    const int aicore = self->dtype == ACL_FLOAT || self->dtype == ACL_FLOAT16 || self->dtype == ACL_BF16;
    if (aicore && scalesH > 0 && scalesW > 0) {
        const int wide = nhwc && nchw[1] > 3;
        rh = v2_axis_ratio(nchw[2], ho, wo, wide, scalesH);
        rw = v2_axis_ratio(nchw[3], wo, ho, wide, scalesW);
    } else {
        rh = kernel_ratio(0.0f, nchw[2], ho);
        rw = kernel_ratio(0.0f, nchw[3], wo);
    }
    return fwd_publish(ACL_OP_UpsampleNearest2dV2, self, out, nhwc, nchw, ho, wo, rh, rw, 0, workspaceSize, executor);
}

/* ---- aclnnUpsampleNearest3d / aclnnUpsampleNearestExact3d: one 2-D gather per output depth slice ---- */

typedef struct {
    upnx_fwd_plan p; /* first: fwd_free frees its tables (d_src lives in the h_src allocation) */
    int64_t di, dout;
    int64_t *d_src;
    int ndhwc;
} fwd3_plan;

/* The (N, C, H, W) slice at depth d of a 5-D view (NCDHW, or NDHWC when ndhwc). */
static acl_view slice3(const acl_view *v, int ndhwc, int64_t d) {
    static const int ncdhw_ax[4] = {0, 1, 3, 4}, ndhwc_ax[4] = {0, 4, 2, 3};
    const int *ax = ndhwc ? ndhwc_ax : ncdhw_ax;
    acl_view c = *v;
    c.ndim = 4;
    for (int k = 0; k < 4; k++) {
        c.dims[k] = v->dims[ax[k]];
        c.strides[k] = v->strides[ax[k]];
    }
    c.base = v->base + d * v->strides[ndhwc ? 1 : 2] * (int64_t)acl_dtype_size(v->dtype);
    return c;
}

static aclnnStatus fwd3_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    const fwd3_plan *q = ex->params;
    const acl_view *xv = acl_exec_in(ex, 0), *yv = acl_exec_out(ex, 0);
    const int64_t units = q->p.n * q->p.c * q->dout, es = (int64_t)acl_dtype_size(xv->dtype);
    upnx_fwd_plan one = q->p;
    one.n = 1;
    one.c = 1;
    /* one region over the (n, c, output depth) planes; the gather of a plane runs on the calling thread (inside the
     * team acl_parallel_worth keeps it from forking again, nesting enabled or not) */
#pragma omp parallel for schedule(static) if (acl_parallel_worth(units * one.ho * one.wo))
    for (int64_t u = 0; u < units; u++) {
        const int64_t plane = u / q->dout, d = u - plane * q->dout;
        const int64_t n = plane / q->p.c, c = plane - n * q->p.c;
        acl_view x = slice3(xv, q->ndhwc, q->d_src[d]), y = slice3(yv, q->ndhwc, d);
        x.base += (n * x.strides[0] + c * x.strides[1]) * es;
        y.base += (n * y.strides[0] + c * y.strides[1]) * es;
        upnx_fwd_gather(&x, &y, &one);
    }
    return ACLNN_SUCCESS;
}

/* The op_api checks shared by both 3-D forward ops (exact: the scale/size consistency check, no out rank check). */
static aclnnStatus fwd3_check(const aclTensor *self, const aclIntArray *outputSize, double sc[3], const aclTensor *out,
                              const aclDataType *list, int nlist, int exact) {
    ACL_TRY(acl_check_dtype_in(self, list, nlist, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    const int ndhwc = self->format == ACL_FORMAT_NDHWC;
    const int64_t c = dim_or0(self, ndhwc ? 4 : 1);
    const int64_t in[3] = {dim_or0(self, ndhwc ? 1 : 2), dim_or0(self, ndhwc ? 2 : 3), dim_or0(self, ndhwc ? 3 : 4)};
    int64_t os[3];
    for (int k = 0; k < 3; k++) os[k] = (uint64_t)k < outputSize->size ? outputSize->v[k] : 0; /* [EMU] */
    ACLNN_CHECK(in[0] > 0 && in[1] > 0 && in[2] > 0 && os[0] > 0 && os[1] > 0 && os[2] > 0, ACLNN_ERR_PARAM_INVALID,
                "self D, H, W (%lld, %lld, %lld) and outputSize (%lld, %lld, %lld) should be greater than 0.",
                (long long)in[0], (long long)in[1], (long long)in[2], (long long)os[0], (long long)os[1],
                (long long)os[2]);
    ACLNN_CHECK(c > 0, ACLNN_ERR_PARAM_INVALID, "self should be a non-empty 5-D tensor (C is %lld).", (long long)c);
    if (exact && sc[0] > 0 && sc[1] > 0 && sc[2] > 0) {
        static const char *const axn[3] = {"D", "H", "W"};
        for (int k = 0; k < 3; k++) {
            const int64_t e = (int64_t)((double)in[k] * sc[k]);
            const int64_t hi = (int64_t)((double)in[k] * (sc[k] + 1e-5)), lo = (int64_t)((double)in[k] * (sc[k] - 1e-5));
            ACLNN_CHECK(os[k] == e || (os[k] >= lo && os[k] <= hi), ACLNN_ERR_PARAM_INVALID,
                        "outputSize %s %lld does not match self %s %lld times scales%s %g.", axn[k], (long long)os[k],
                        axn[k], (long long)in[k], axn[k], sc[k]);
        }
    }
    ACL_TRY(acl_check_rank(self, 5, "self"));
    if (!exact) ACL_TRY(acl_check_rank(out, 5, "out"));
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 3.",
                (unsigned long long)outputSize->size);
    const int64_t want[5] = {self->dims[0], ndhwc ? os[0] : self->dims[1], ndhwc ? os[1] : os[0],
                             ndhwc ? os[2] : os[1], ndhwc ? self->dims[4] : os[2]};
    int same = out->ndim == 5;
    for (int d = 0; d < 5 && same; d++) same = out->dims[d] == want[d];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "out should have the shape (%lld, %lld, %lld, %lld, %lld).",
                (long long)want[0], (long long)want[1], (long long)want[2], (long long)want[3], (long long)want[4]);
    return ACLNN_SUCCESS;
}

static aclnnStatus fwd3_common(int op, const aclTensor *self, const aclIntArray *outputSize, double sD, double sH,
                               double sW, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor,
                               const aclDataType *list, int nlist, int exact) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(self, "self"));
    if (exact) {
        ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
        ACL_TRY(acl_check_tensor(out, "out"));
    } else {
        ACL_TRY(acl_check_tensor(out, "out"));
        ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    }
    double sc[3] = {sD, sH, sW};
    ACL_TRY(fwd3_check(self, outputSize, sc, out, list, nlist, exact));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, workspaceSize, executor);
    /* A2: the AI-core kernel with the ratios fp32(1 / scales) when all three scales are positive, else in/out
     * (float64 goes to the CPU kernel, which applies each positive scale on its own) */
    const int ndhwc = self->format == ACL_FORMAT_NDHWC;
    const int64_t in[3] = {self->dims[ndhwc ? 1 : 2], self->dims[ndhwc ? 2 : 3], self->dims[ndhwc ? 3 : 4]};
    const int64_t *os = outputSize->v;
    const int all = sD > 0 && sH > 0 && sW > 0;
    float r[3];
    for (int k = 0; k < 3; k++) {
        const int use = self->dtype == ACL_DOUBLE ? sc[k] > 0 : all;
        r[k] = kernel_ratio(use ? (float)(1.0 / sc[k]) : 0.0f, in[k], os[k]);
    }
    aclnnStatus rc;
    aclOpExecutor *ex = exec_1in_1out(op, fwd3_run, sizeof(fwd3_plan), fwd_free, self, "self", out, "out", &rc);
    if (!ex) return rc;
    fwd3_plan *q = ex->params;
    upnx_fwd_plan *p = &q->p;
    q->ndhwc = ndhwc;
    q->di = in[0];
    q->dout = os[0];
    p->n = self->dims[0];
    p->c = self->dims[ndhwc ? 4 : 1];
    p->hi = in[1];
    p->wi = in[2];
    p->ho = os[1];
    p->wo = os[2];
    int64_t *tab = malloc((size_t)(os[0] + os[1] + os[2]) * sizeof(int64_t));
    if (!tab)
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of outputSize"));
    p->h_src = tab;
    p->w_src = tab + os[1];
    q->d_src = tab + os[1] + os[2];
    upn_axis_sources(q->d_src, in[0], os[0], r[0], exact);
    upn_axis_sources(p->h_src, in[1], os[1], r[1], exact);
    p->wk = upn_axis_sources(p->w_src, in[2], os[2], r[2], exact);
    if (!upnx_fwd_blocks(p, (int64_t)acl_dtype_size(self->dtype)))
        return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the column blocks of outputSize"));
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_UpsampleNearest3d(const aclTensor *self, const aclIntArray *outputSize, double scalesD,
                                   double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    return fwd3_common(ACL_OP_UpsampleNearest3d, self, outputSize, scalesD, scalesH, scalesW, out, workspaceSize,
                       executor, ACL_DT_LIST_UpsampleNearest3d, 0);
}

aclnnStatus opws_UpsampleNearestExact3d(const aclTensor *self, const aclIntArray *outputSize, double scalesD,
                                        double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                        aclOpExecutor **executor) {
    return fwd3_common(ACL_OP_UpsampleNearestExact3d, self, outputSize, scalesD, scalesH, scalesW, out,
                       workspaceSize, executor, ACL_DT_LIST_UpsampleNearestExact3d, 1);
}

/* ---- aclnnUpsampleNearest3dBackward / aclnnUpsampleNearestExact3dBackward ----
 * Per gradient-input row (n, c, di, i): see bwd3_unit. Every element is owned by one thread; the order of every sum
 * is fixed (the same as the 2-D ops': the D sum of a gradOutput position first, then the 2-D order). */

typedef struct {
    upnx_bwd_plan p; /* first: bwd_free frees its tables (the D ranges live in the h_lo allocation) */
    int64_t di, dout;
    int64_t *d_lo, *d_hi;
    int g_ndhwc, o_ndhwc;
} bwd3_plan;

/* o[x] += the fp16 / bf16 row g widened exactly: 8 a step with SSE2 (the widening fused into the addition, no row
 * buffer) up to the first block holding a NaN (Inf too for fp16), then as before: converted 256 at a time and added
 * by the plain loop (two NaN operands: which one an addition returns depends on the operand order GCC picks, so only
 * the same code gives the same bytes; with at most one NaN operand the order changes no bit). */
#ifdef ACL_F16_ROWS_F16C
/* 16 a step (F16C / a shift widens exactly) up to the first block holding a NaN or Inf; returns where it stopped.
 * The elements it leaves go through the SSE2 / plain loops below: the same bits (an addition with at most one NaN
 * operand has one result whatever the code). bf16 1 thread, fastest of 3 interleaved rounds against the SSE2 loop
 * (PYACLNN_SIMD=off): x2 1.73 -> 1.37 ms, x1.5 1.25 -> 1.13 ms. */
__attribute__((target("avx2,f16c"))) static int64_t upn_add_half_row_avx2(float *restrict o, const uint16_t *restrict g,
                                                                       int64_t n, int bf) {
    const __m256i em = _mm256_set1_epi16(0x7fff), lim = _mm256_set1_epi16(bf ? 0x7f80 : 0x7bff);
    int64_t x = 0;
    for (; x + 16 <= n; x += 16) {
        const __m256i h = _mm256_loadu_si256((const __m256i *)(const void *)(g + x));
        if (_mm256_movemask_epi8(_mm256_cmpgt_epi16(_mm256_and_si256(h, em), lim))) break;
        const __m128i h0 = _mm256_castsi256_si128(h), h1 = _mm256_extracti128_si256(h, 1);
        const __m256 lo = bf ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h0), 16)) : _mm256_cvtph_ps(h0);
        const __m256 hi = bf ? _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_cvtepu16_epi32(h1), 16)) : _mm256_cvtph_ps(h1);
        _mm256_storeu_ps(o + x, _mm256_add_ps(_mm256_loadu_ps(o + x), lo));
        _mm256_storeu_ps(o + x + 8, _mm256_add_ps(_mm256_loadu_ps(o + x + 8), hi));
    }
    return x;
}
#endif

/* (avx2: the caller's acl_simd_level() >= ACL_SIMD_AVX2, read once a call) */
static inline void upn_add_half_row(float *restrict o, const uint16_t *restrict g, int64_t n, aclDataType dt,
                                    int avx2) {
    int64_t x = 0;
#ifdef ACL_F16_ROWS_F16C
    if (avx2 && n >= 16) {
        x = upn_add_half_row_avx2(o, g, n, dt == ACL_BF16);
        if (x == n) return;
    }
#else
    (void)avx2;
#endif
#ifdef ACL_HALF_ROWS_SSE2
    if (dt == ACL_BF16) {
        const __m128i z = _mm_setzero_si128();
        for (; x + 8 <= n; x += 8) { /* (from where the AVX2 loop stopped) */
            const __m128i h = _mm_loadu_si128((const __m128i *)(const void *)(g + x));
            if (_mm_movemask_epi8(_mm_cmpgt_epi16(_mm_and_si128(h, _mm_set1_epi16(0x7fff)), _mm_set1_epi16(0x7f80))))
                break;
            _mm_storeu_ps(o + x, _mm_add_ps(_mm_loadu_ps(o + x), _mm_castsi128_ps(_mm_unpacklo_epi16(z, h))));
            _mm_storeu_ps(o + x + 4, _mm_add_ps(_mm_loadu_ps(o + x + 4), _mm_castsi128_ps(_mm_unpackhi_epi16(z, h))));
        }
    } else {
        for (; x + 8 <= n; x += 8) {
            __m128 lo, hi;
            if (!acl_hr_f16x8_(_mm_loadu_si128((const __m128i *)(const void *)(g + x)), &lo, &hi)) break;
            _mm_storeu_ps(o + x, _mm_add_ps(_mm_loadu_ps(o + x), lo));
            _mm_storeu_ps(o + x + 4, _mm_add_ps(_mm_loadu_ps(o + x + 4), hi));
        }
    }
#endif
    float cv[256];
    while (x < n) {
        const int64_t m = n - x < 256 ? n - x : 256;
        if (dt == ACL_FLOAT16) acl_row_f16_to_f32(cv, g + x, m);
        else acl_row_bf16_to_f32(cv, g + x, m);
        for (int64_t k = 0; k < m; k++) o[x + k] += cv[k];
        x += m;
    }
}

/* fp32 row -> fp16 / bf16, rounded once (common/half_rows.h: SSE2 / NEON at every level; the AVX-512 row converters
 * were slower on these 32-element rows, bf16 x2 1 thread 1.84 vs 1.55 ms) */
static void upn_store_half_row(uint16_t *dst, const float *src, int64_t n, aclDataType dt) {
    if (dt == ACL_FLOAT16) acl_row_f32_to_f16(dst, src, n);
    else acl_row_f32_to_bf16(dst, src, n);
}

/* One (n, c, di) unit. Gradient-input row i of the depth slice di is the W fold of x (added to +0), x being the sum
 * from +0 of the gradOutput rows (d, r) for r over the H range of i (ascending, outer) and d over the D range of di
 * (ascending, inner), in fp32 (float64 for float64); fp16 / bf16 are widened exactly and rounded once. Every
 * gradOutput element is read once, the additions go down whole contiguous rows held in L1, and one fold per output
 * row is left. The same C code at every SIMD level. (Before: a D-sum plane per unit, then the 2-D kernel called on
 * it; the x2 f32 bench shape at 2 threads 2.5 -> 0.69 ms, x1.5 1.26 -> 0.53 ms; the NaN bytes of AVX-512 differed
 * from the other levels.) */
static void bwd3_unit(const bwd3_plan *q, const acl_view *gv, const acl_view *ov, int64_t u, void *xb, void *ab,
                      int avx2) {
    const upnx_bwd_plan *p = &q->p;
    const aclDataType dt = gv->dtype;
    const int64_t es = (int64_t)acl_dtype_size(dt), wi = p->wi, need = p->w_hi[wi - 1];
    const int64_t plane = u / q->di, di = u - plane * q->di;
    const int64_t n = plane / p->c, c = plane - n * p->c;
    /* strides in (N, C, D, H, W) order */
    const int gl = q->g_ndhwc, ol = q->o_ndhwc;
    const int64_t *gs = gv->strides, *os = ov->strides;
    const int64_t gsd = gs[gl ? 1 : 2], gsh = gs[gl ? 2 : 3], gsw = gs[gl ? 3 : 4];
    const int64_t osh = os[ol ? 2 : 3], osw = os[ol ? 3 : 4];
    const char *gp = gv->base + (n * gs[0] + c * gs[gl ? 4 : 1]) * es;
    char *op = ov->base + (n * os[0] + c * os[ol ? 4 : 1] + di * os[ol ? 1 : 2]) * es;
    const int64_t d0 = q->d_lo[di], d1 = q->d_hi[di];
    for (int64_t i = 0; i < p->hi; i++) {
        char *yp = op + i * osh * es;
        const int64_t r0 = p->h_lo[i], r1 = p->h_hi[i];
        if (dt == ACL_DOUBLE) {
            double *x = xb, *acc = ab, *y = (double *)(void *)yp;
            for (int64_t t = 0; t < need; t++) x[t] = 0.0;
            for (int64_t r = r0; r < r1; r++)
                for (int64_t d = d0; d < d1; d++) {
                    const double *g = (const double *)(const void *)(gp + (d * gsd + r * gsh) * es);
                    for (int64_t t = 0; t < need; t++) x[t] += g[t * gsw];
                }
            for (int64_t j = 0; j < wi; j++) acc[j] = 0.0;
            x[need] = -0.0; /* the pair tables' pad */
            upn_fold_row_f64(acc, x, p);
            for (int64_t j = 0; j < wi; j++) y[j * osw] = acc[j];
            continue;
        }
        float *x = xb, *acc = dt == ACL_FLOAT && osw == 1 ? (float *)(void *)yp : ab;
        int first = 1; /* x is still unset: the first row is added to +0 as it is loaded */
        for (int64_t r = r0; r < r1; r++)
            for (int64_t d = d0; d < d1; d++, first = 0) {
                const char *row = gp + (d * gsd + r * gsh) * es;
                if (dt == ACL_FLOAT) {
                    const float *g = (const float *)(const void *)row;
                    if (first && gsw == 1)
                        for (int64_t t = 0; t < need; t++) x[t] = 0.0f + g[t];
                    else if (first)
                        for (int64_t t = 0; t < need; t++) x[t] = 0.0f + g[t * gsw];
                    else if (gsw == 1)
                        for (int64_t t = 0; t < need; t++) x[t] += g[t];
                    else
                        for (int64_t t = 0; t < need; t++) x[t] += g[t * gsw];
                    continue;
                }
                if (first)
                    for (int64_t t = 0; t < need; t++) x[t] = 0.0f;
                if (gsw == 1) {
                    upn_add_half_row(x, (const uint16_t *)(const void *)row, need, dt, avx2);
                } else {
                    const uint16_t *g = (const uint16_t *)(const void *)row;
                    for (int64_t t = 0; t < need; t++)
                        x[t] += dt == ACL_FLOAT16 ? acl_f16_to_f32(g[t * gsw]) : acl_bf16_to_f32(g[t * gsw]);
                }
            }
        if (first)
            for (int64_t t = 0; t < need; t++) x[t] = 0.0f;
        for (int64_t j = 0; j < wi; j++) acc[j] = 0.0f;
        x[need] = -0.0f; /* the pair tables' pad */
        upn_fold_row_f32(acc, x, p);
        if (acc == (float *)(void *)yp) continue;
        if (dt == ACL_FLOAT) {
            float *y = (float *)(void *)yp;
            for (int64_t j = 0; j < wi; j++) y[j * osw] = acc[j];
        } else if (osw == 1) {
            upn_store_half_row((uint16_t *)(void *)yp, acc, wi, dt);
        } else {
            uint16_t *y = (uint16_t *)(void *)yp;
            for (int64_t j = 0; j < wi; j++)
                y[j * osw] = dt == ACL_FLOAT16 ? acl_f32_to_f16(acc[j]) : acl_f32_to_bf16(acc[j]);
        }
    }
}

static aclnnStatus bwd3_run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const bwd3_plan *q = ex->params;
    const upnx_bwd_plan *p = &q->p;
    const acl_view *gv = acl_exec_in(ex, 0), *ov = acl_exec_out(ex, 0);
    const size_t es = gv->dtype == ACL_DOUBLE ? sizeof(double) : sizeof(float);
    const int64_t nthr = acl_max_threads();
    /* per thread: the summed row (with the fold's pad) and the accumulator row, in whole lines */
    const int64_t xl = ((p->w_hi[p->wi - 1] + 1) * (int64_t)es + 63) / 64 * 64, al = (p->wi * (int64_t)es + 63) / 64 * 64;
    char *mem = acl_team_alloc(nthr, xl + al, 1, 0); /* xl + al: whole lines; line-aligned */
    ACLNN_CHECK(mem != NULL, ACLNN_ERR_INNER, "out of memory for the per-thread row buffers of gradOut");
    const int64_t units = p->n * p->c * q->di;
    const int avx2 = acl_simd_level() >= ACL_SIMD_AVX2;
    const int64_t work = units * (p->hi * p->wi + p->ho * p->wo * (q->dout / (q->di ? q->di : 1) + 1));
#pragma omp parallel num_threads((int)nthr) if (acl_parallel_worth(work))
    {
        int64_t t = 0;
#ifdef _OPENMP
        t = omp_get_thread_num();
#endif
        char *base = mem + t * (xl + al);
#pragma omp for schedule(static)
        for (int64_t u = 0; u < units; u++) bwd3_unit(q, gv, ov, u, base, base + xl, avx2);
    }
    free(mem);
    return ACLNN_SUCCESS;
}

static aclnnStatus bwd3_common(int op, const aclTensor *gradOut, const aclIntArray *outputSize,
                               const aclIntArray *inputSize, double sD, double sH, double sW, aclTensor *gradInput,
                               uint64_t *workspaceSize, aclOpExecutor **executor, const aclDataType *list, int nlist,
                               int exact) {
    ACL_TRY(ws_check(workspaceSize, executor));
    ACL_TRY(acl_check_tensor(gradOut, "gradOut"));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(gradInput, "gradInput"));
    ACL_TRY(acl_check_dtype_in(gradOut, list, nlist, "gradOut"));
    ACL_TRY(acl_check_same_dtype(gradOut, "gradOut", gradInput, "gradInput"));
    ACL_TRY(acl_check_rank(gradOut, 5, "gradOut"));
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 3.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(inputSize->size == 5, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be 5.",
                (unsigned long long)inputSize->size);
    const int64_t *is = inputSize->v, *os = outputSize->v;
    ACLNN_CHECK(is[2] > 0 && is[3] > 0 && is[4] > 0 && os[0] > 0 && os[1] > 0 && os[2] > 0, ACLNN_ERR_PARAM_INVALID,
                "inputSize D, H, W (%lld, %lld, %lld) and outputSize (%lld, %lld, %lld) should be greater than 0.",
                (long long)is[2], (long long)is[3], (long long)is[4], (long long)os[0], (long long)os[1],
                (long long)os[2]);
    const int gh = gradOut->format == ACL_FORMAT_NDHWC, oh = gradInput->format == ACL_FORMAT_NDHWC;
    const int64_t full_g[5] = {is[0], gh ? os[0] : is[1], gh ? os[1] : os[0], gh ? os[2] : os[1], gh ? is[1] : os[2]};
    ACL_TRY(grad_full(gradOut, full_g, 5));
    const int64_t full_o[5] = {is[0], oh ? is[2] : is[1], oh ? is[3] : is[2], oh ? is[4] : is[3], oh ? is[1] : is[4]};
    int same = gradInput->ndim == 5;
    for (int d = 0; d < 5 && same; d++) same = gradInput->dims[d] == full_o[d];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "gradInput should have the shape (%lld, %lld, %lld, %lld, %lld).",
                (long long)full_o[0], (long long)full_o[1], (long long)full_o[2], (long long)full_o[3],
                (long long)full_o[4]);
    const double sc[3] = {sD, sH, sW};
    if (exact) {
        for (int k = 0; k < 3; k++) {
            const double r = sc[k] > 0 ? sc[k] : (double)os[k] / (double)is[2 + k];
            ACLNN_CHECK(r <= 50.0, ACLNN_ERR_PARAM_INVALID, "scales %g (axis %d) is more than a 50x upscale.", r, k);
        }
    }
    for (int d = 0; d < 5; d++) {
        ACLNN_CHECK(gradOut->dims[d] <= INT32_MAX && (exact || gradInput->dims[d] <= INT32_MAX),
                    ACLNN_ERR_PARAM_INVALID, "gradOut / gradInput dim %d should not be greater than %d.", d, INT32_MAX);
    }
    if (acl_tensor_empty(gradOut)) return acl_exec_noop(op, workspaceSize, executor);

    /* the Ascend kernel's ranges, s = fp32 scales when all three are positive, else out/in per axis (float64 on
     * the CPU kernel: each output position to min(floor(r * ratio), in - 1), ratio fp32(1 / scales) or in/out) */
    const int all = sD > 0 && sH > 0 && sW > 0;
    bwd_axis ax[3];
    for (int k = 0; k < 3; k++) {
        if (gradOut->dtype == ACL_DOUBLE && !exact)
            ax[k] = axis_map(all ? (float)(1.0 / sc[k]) : (float)is[2 + k] / (float)os[k]);
        else
            ax[k] = axis_kernel(all ? sc[k] : 0.0, os[k], is[2 + k], exact);
    }
    aclnnStatus rc;
    aclOpExecutor *ex = exec_1in_1out(op, bwd3_run, sizeof(bwd3_plan), bwd_free, gradOut, "gradOut", gradInput, "gradInput", &rc);
    if (!ex) return rc;
    bwd3_plan *q = ex->params;
    upnx_bwd_plan *p = &q->p;
    q->g_ndhwc = gh;
    q->o_ndhwc = oh;
    q->di = is[2];
    q->dout = os[0];
    p->n = is[0];
    p->c = is[1];
    p->ho = os[1];
    p->wo = os[2];
    p->hi = is[3];
    p->wi = is[4];
    const int64_t hi = p->hi, wi = p->wi, tmp_len = os[0] > os[1] ? (os[0] > os[2] ? os[0] : os[2])
                                                                  : (os[1] > os[2] ? os[1] : os[2]);
    int64_t *tab = malloc((size_t)(2 * (hi + wi + is[2]) + tmp_len) * sizeof(int64_t) +
                          (size_t)(2 * wi) * sizeof(int32_t));
    if (!tab) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the index tables of inputSize"));
    p->h_lo = tab;
    p->h_hi = tab + hi;
    p->w_lo = tab + 2 * hi;
    p->w_hi = tab + 2 * hi + wi;
    q->d_lo = tab + 2 * (hi + wi);
    q->d_hi = q->d_lo + is[2];
    int64_t *tmp = q->d_hi + is[2];
    build_axis(q->d_lo, q->d_hi, is[2], os[0], ax[0], tmp);
    p->hk = build_axis(p->h_lo, p->h_hi, hi, p->ho, ax[1], tmp);
    p->wk = build_axis(p->w_lo, p->w_hi, wi, p->wo, ax[2], tmp);
    upn_pair_tables(p, (int32_t *)(tmp + tmp_len));
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_UpsampleNearest3dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                           const aclIntArray *inputSize, double scalesD, double scalesH,
                                           double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    return bwd3_common(ACL_OP_UpsampleNearest3dBackward, gradOut, outputSize, inputSize, scalesD, scalesH, scalesW,
                       gradInput, workspaceSize, executor, ACL_DT_LIST_UpsampleNearest3dBackward, 0);
}

aclnnStatus opws_UpsampleNearestExact3dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                                const aclIntArray *inputSize, double scalesD, double scalesH,
                                                double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
                                                aclOpExecutor **executor) {
    return bwd3_common(ACL_OP_UpsampleNearestExact3dBackward, gradOut, outputSize, inputSize, scalesD, scalesH,
                       scalesW, gradInput, workspaceSize, executor, ACL_DT_LIST_UpsampleNearestExact3dBackward, 1);
}
