/* The linear / cubic resampling family: aclnnUpsampleLinear1d, aclnnUpsampleBilinear2d, aclnnUpsampleBicubic2d,
 * aclnnUpsampleTrilinear3d and their backward passes (aclnnUpsampleBilinear2dBackward(V2), ...). The first phases
 * follow the op_api checks (tools/optable/cv_upsample_linear.py); the maths is the separable engine of
 * libsrc/kernels/upsample_linear.c: a gather for the forward and, for the backward, a gather over the transposed
 * tap lists (one owner per output element, fixed order: deterministic for any thread count). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ops/gen/all_ops.h"
#include "kernels/upsample_linear.h"
#include "common/dtype.h"
#include "ops/ops.h"

typedef struct {
    int op;
    int nsp;  /* spatial axes: 1, 2 or 3 */
    int mode; /* UPL_LINEAR / UPL_CUBIC */
    int bwd;
    const char *xn, *yn;
    const aclDataType *dts;
    int ndt;
    int formats; /* UPL_F_* set of accepted storage formats */
} upl_spec;

enum { UPL_F_ND = 1, UPL_F_NCHW = 2, UPL_F_NHWC = 4, UPL_F_NCDHW = 8, UPL_F_NDHWC = 16, UPL_F_NCL = 32 };

typedef struct {
    upl_plan plan;
    int cl;  /* channels-last layout (NHWC / NDHWC) */
    int nsp;
} upl_params;

static int fmt_bit(aclFormat f) {
    switch (f) {
    case ACL_FORMAT_ND: return UPL_F_ND;
    case ACL_FORMAT_NCHW: return UPL_F_NCHW;
    case ACL_FORMAT_NHWC: return UPL_F_NHWC;
    case ACL_FORMAT_NCDHW: return UPL_F_NCDHW;
    case ACL_FORMAT_NDHWC: return UPL_F_NDHWC;
    case ACL_FORMAT_NCL: return UPL_F_NCL;
    default: return 0;
    }
}

static int is_cl(const aclTensor *t, int nsp) {
    return (nsp == 2 && t->format == ACL_FORMAT_NHWC) || (nsp == 3 && t->format == ACL_FORMAT_NDHWC);
}

/* N, C and the spatial extents of a tensor of rank nsp + 2 in its layout */
static void split_dims(const int64_t *dims, int nsp, int cl, int64_t *n, int64_t *c, int64_t sp[3]) {
    *n = dims[0];
    *c = cl ? dims[nsp + 1] : dims[1];
    for (int k = 0; k < nsp; k++) sp[k] = cl ? dims[1 + k] : dims[2 + k];
}

/* the full shape of (n, c, sp) in the layout */
static void join_dims(int64_t *dims, int nsp, int cl, int64_t n, int64_t c, const int64_t *sp) {
    dims[0] = n;
    dims[cl ? nsp + 1 : 1] = c;
    for (int k = 0; k < nsp; k++) dims[cl ? 1 + k : 2 + k] = sp[k];
}

static aclnnStatus check_shape_is(const aclTensor *t, const char *name, const int64_t *want, int rank) {
    for (int d = 0; d < rank; d++)
        ACLNN_CHECK(t->dims[d] == want[d], ACLNN_ERR_PARAM_INVALID, "The dim %d of %s should be %lld, but got %lld.",
                    d, name, (long long)want[d], (long long)t->dims[d]);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_dtypes(const upl_spec *s, const aclTensor *x, const aclTensor *y) {
    ACL_TRY(acl_check_dtype_in(x, s->dts, s->ndt, s->xn));
    ACL_TRY(acl_check_same_dtype(x, s->xn, y, s->yn));
    return ACLNN_SUCCESS;
}

static aclnnStatus check_formats(const upl_spec *s, const aclTensor *x, const aclTensor *y) {
    ACLNN_CHECK(x->format == y->format, ACLNN_ERR_PARAM_INVALID, "%s format %s and %s format %s should be the same.",
                s->xn, acl_format_name(x->format), s->yn, acl_format_name(y->format));
    ACLNN_CHECK(fmt_bit(x->format) & s->formats, ACLNN_ERR_PARAM_INVALID, "%s format %s is not supported.", s->xn,
                acl_format_name(x->format));
    return ACLNN_SUCCESS;
}

static void free_params(void *v) {
    upl_params *p = v;
    if (p) upl_plan_free(&p->plan);
    free(p);
}

/* The view as (N, C, D, H, W): absent spatial axes get extent 1 and stride 0. */
static acl_view canon5(const acl_view *v, int nsp, int cl) {
    acl_view c = *v;
    c.ndim = 5;
    c.dims[0] = v->dims[0];
    c.strides[0] = v->strides[0];
    c.dims[1] = cl ? v->dims[nsp + 1] : v->dims[1];
    c.strides[1] = cl ? v->strides[nsp + 1] : v->strides[1];
    for (int k = 0; k < 3; k++) {
        const int s = k - (3 - nsp); /* spatial index, < 0 for an absent axis */
        if (s < 0) {
            c.dims[2 + k] = 1;
            c.strides[2 + k] = 0;
        } else {
            const int d = cl ? 1 + s : 2 + s;
            c.dims[2 + k] = v->dims[d];
            c.strides[2 + k] = v->strides[d];
        }
    }
    return c;
}

static aclnnStatus run(aclOpExecutor *ex, void *ws, uint64_t ws_size) {
    (void)ws;
    (void)ws_size;
    const upl_params *p = ex->params;
    acl_view x = canon5(acl_exec_in(ex, 0), p->nsp, p->cl), y = canon5(acl_exec_out(ex, 0), p->nsp, p->cl);
    return upl_run(&x, &y, &p->plan);
}

/* Executor with the plan: fin/fout are the forward's input/output spatial extents, sc the effective scales. */
static aclnnStatus publish(const upl_spec *s, const aclTensor *x, const aclTensor *y, const int64_t *fin,
                           const int64_t *fout, int align, const double *sc, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(s->op, run, sizeof(upl_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = free_params;
    aclnnStatus rc = acl_exec_add_input(ex, x, s->xn, true);
    if (rc == 0) rc = acl_exec_add_output(ex, y, s->yn);
    if (rc) return acl_exec_discard(ex, rc);
    upl_params *p = ex->params;
    p->nsp = s->nsp;
    p->cl = is_cl(x, s->nsp);
    const int f64 = x->dtype == ACL_DOUBLE;
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        const int sp = k - (3 - s->nsp);
        if (sp < 0) {
            bad |= upl_axis_unit(&p->plan.ax[k]);
            continue;
        }
        if (!s->bwd) {
            bad |= upl_axis_forward(&p->plan.ax[k], fin[sp], fout[sp], s->mode, align, sc[sp], f64);
        } else {
            upl_axis f;
            if (upl_axis_forward(&f, fin[sp], fout[sp], s->mode, align, sc[sp], f64)) {
                bad = 1;
                continue;
            }
            bad |= upl_axis_transpose(&p->plan.ax[k], &f);
            upl_axis_free(&f);
        }
    }
    if (bad) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "out of memory for the interpolation tables."));
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- forward ---- */

/* how an op picks the scales it passes to the kernel (see each op's op_api) */
enum { SC_GIVEN = 0, SC_IF_CONSISTENT = 1, SC_NONE = 2 };

static aclnnStatus forward(const upl_spec *s, const aclTensor *self, const aclIntArray *outputSize, bool align,
                           const double *scales, int sc_rule, aclTensor *out, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(self, s->xn));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_tensor(out, s->yn));
    const int nsp = s->nsp, rank = nsp + 2;
    if (s->op == ACL_OP_UpsampleLinear1d) { /* shape, then dtype */
        ACL_TRY(acl_check_rank(self, 3, s->xn));
        ACL_TRY(acl_check_rank(out, 3, s->yn));
        ACLNN_CHECK(outputSize->size == 1, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be 1.",
                    (unsigned long long)outputSize->size);
        ACLNN_CHECK(self->dims[1] != 0 && self->dims[2] != 0, ACLNN_ERR_PARAM_INVALID,
                    "self: a non-empty 3D tensor is expected (C and L > 0).");
        ACLNN_CHECK(outputSize->v[0] > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[0] %lld should be greater than 0.",
                    (long long)outputSize->v[0]);
        const int64_t want[3] = {self->dims[0], self->dims[1], outputSize->v[0]};
        ACL_TRY(check_shape_is(out, "out", want, 3));
        if (scales[0] >= 0)
            ACLNN_CHECK((int64_t)((double)self->dims[2] * scales[0]) == outputSize->v[0], ACLNN_ERR_PARAM_INVALID,
                        "scale %g conflicts with outputSize: scale * self L (%lld) should be outputSize[0] %lld "
                        "(pass a negative scale to derive it).", scales[0], (long long)self->dims[2],
                        (long long)outputSize->v[0]);
        ACL_TRY(check_dtypes(s, self, out));
    } else {
        ACL_TRY(check_dtypes(s, self, out));
        ACL_TRY(check_formats(s, self, out));
        ACL_TRY(acl_check_rank(self, (uint64_t)rank, s->xn));
        ACL_TRY(acl_check_rank(out, (uint64_t)rank, s->yn));
        if (s->op == ACL_OP_UpsampleBilinear2d)
            ACLNN_CHECK(!(self->dtype == ACL_DOUBLE && self->format != ACL_FORMAT_NHWC), ACLNN_ERR_PARAM_INVALID,
                        "self dtype DOUBLE is only supported in NHWC format.");
        ACLNN_CHECK(outputSize->size == (uint64_t)nsp, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be %d.",
                    (unsigned long long)outputSize->size, nsp);
    }
    const int cl = is_cl(self, nsp);
    int64_t n, c, in[3] = {1, 1, 1}, o[3] = {1, 1, 1}, dims[5];
    split_dims(self->dims, nsp, cl, &n, &c, in);
    for (int k = 0; k < nsp; k++) o[k] = outputSize->v[k];
    if (s->op != ACL_OP_UpsampleLinear1d) {
        for (int k = 0; k < nsp; k++) {
            ACLNN_CHECK(in[k] > 0, ACLNN_ERR_PARAM_INVALID, "self spatial dim %d is %lld; it should be > 0.", k,
                        (long long)in[k]);
            ACLNN_CHECK(o[k] > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[%d] %lld should be greater than 0.", k,
                        (long long)o[k]);
        }
        join_dims(dims, nsp, cl, n, c, o);
        ACL_TRY(check_shape_is(out, s->yn, dims, rank));
        for (int k = 0; k < nsp; k++)
            ACLNN_CHECK(!(scales[k] < 0) || s->op != ACL_OP_UpsampleBilinear2d, ACLNN_ERR_PARAM_INVALID,
                        "scales %g should not be negative.", scales[k]);
    }
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    double sc[3] = {0, 0, 0};
    int consistent = 1;
    for (int k = 0; k < nsp; k++)
        consistent = consistent && scales[k] > 0 && (int64_t)((double)in[k] * scales[k]) == o[k];
    for (int k = 0; k < nsp; k++) {
        if (sc_rule == SC_GIVEN) sc[k] = scales[k] > 0 ? scales[k] : 0;
        else if (sc_rule == SC_IF_CONSISTENT) sc[k] = consistent ? scales[k] : 0;
    }
    if (s->op == ACL_OP_UpsampleBilinear2d && self->dtype == ACL_DOUBLE) sc[0] = sc[1] = 0; /* sizes only (AICPU) */
    return publish(s, self, out, in, o, align, sc, workspaceSize, executor);
}

/* ---- backward ---- */

static aclnnStatus backward(const upl_spec *s, const aclTensor *gradOut, const aclIntArray *outputSize,
                            const aclIntArray *inputSize, bool align, const double *scales, int sc_rule,
                            aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ACL_TRY(acl_check_tensor(gradOut, s->xn));
    ACL_TRY(acl_check_int_array(outputSize, "outputSize"));
    ACL_TRY(acl_check_int_array(inputSize, "inputSize"));
    ACL_TRY(acl_check_tensor(out, s->yn));
    const int nsp = s->nsp, rank = nsp + 2;
    ACL_TRY(acl_check_rank(gradOut, (uint64_t)rank, s->xn));
    ACLNN_CHECK(outputSize->size == (uint64_t)nsp, ACLNN_ERR_PARAM_INVALID, "outputSize length %llu should be %d.",
                (unsigned long long)outputSize->size, nsp);
    ACLNN_CHECK(inputSize->size == (uint64_t)rank, ACLNN_ERR_PARAM_INVALID, "inputSize length %llu should be %d.",
                (unsigned long long)inputSize->size, rank);
    ACL_TRY(acl_check_rank(out, (uint64_t)rank, s->yn));
    const int cl = is_cl(out, nsp);
    int64_t n, c, in[3] = {1, 1, 1}, o[3] = {1, 1, 1}, gdims[5], idims[5];
    split_dims(inputSize->v, nsp, cl, &n, &c, in);
    for (int k = 0; k < nsp; k++) o[k] = outputSize->v[k];
    for (int k = 0; k < nsp; k++)
        ACLNN_CHECK(in[k] > 0 && o[k] > 0, ACLNN_ERR_PARAM_INVALID,
                    "inputSize and outputSize spatial sizes should be greater than 0 (axis %d: inputSize %lld, "
                    "outputSize %lld).", k, (long long)in[k], (long long)o[k]);
    join_dims(gdims, nsp, cl, n, c, o);
    join_dims(idims, nsp, cl, n, c, in);
    ACL_TRY(check_shape_is(gradOut, s->xn, gdims, rank));
    ACL_TRY(check_shape_is(out, s->yn, idims, rank));
    ACL_TRY(check_dtypes(s, gradOut, out));
    ACL_TRY(check_formats(s, gradOut, out));
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    double sc[3] = {0, 0, 0};
    int consistent = 1;
    for (int k = 0; k < nsp; k++)
        consistent = consistent && scales[k] > 0 && (int64_t)floor((double)in[k] * scales[k]) == o[k];
    for (int k = 0; k < nsp; k++) {
        if (sc_rule == SC_GIVEN) sc[k] = scales[k] > 0 ? scales[k] : 0;
        else if (sc_rule == SC_IF_CONSISTENT) sc[k] = consistent ? scales[k] : 0;
    }
    return publish(s, gradOut, out, in, o, align, sc, workspaceSize, executor);
}

#define SPEC(name, nsp_, mode_, bwd_, xn_, yn_, fm)                                                                \
    static const upl_spec spec_##name = {ACL_OP_##name, nsp_, mode_, bwd_, xn_, yn_, ACL_DT_LIST_##name, fm}

SPEC(UpsampleLinear1d, 1, UPL_LINEAR, 0, "self", "out", 0xff);
SPEC(UpsampleLinear1dBackward, 1, UPL_LINEAR, 1, "gradOut", "out", 0xff);
SPEC(UpsampleBilinear2d, 2, UPL_LINEAR, 0, "self", "out", UPL_F_NCHW | UPL_F_NHWC);
SPEC(UpsampleBilinear2dBackward, 2, UPL_LINEAR, 1, "gradOut", "out", UPL_F_NCHW | UPL_F_NHWC | UPL_F_ND);
SPEC(UpsampleBilinear2dBackwardV2, 2, UPL_LINEAR, 1, "gradOut", "out", UPL_F_NCHW | UPL_F_NHWC);
SPEC(UpsampleBicubic2d, 2, UPL_CUBIC, 0, "self", "out", UPL_F_NCHW | UPL_F_NHWC | UPL_F_ND);
SPEC(UpsampleBicubic2dBackward, 2, UPL_CUBIC, 1, "gradOut", "gradInput", UPL_F_NCHW | UPL_F_ND);
SPEC(UpsampleTrilinear3d, 3, UPL_LINEAR, 0, "self", "out", UPL_F_ND | UPL_F_NCDHW | UPL_F_NDHWC);
SPEC(UpsampleTrilinear3dBackward, 3, UPL_LINEAR, 1, "gradOut", "gradInput", UPL_F_ND | UPL_F_NCDHW | UPL_F_NDHWC);

aclnnStatus opws_UpsampleLinear1d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                  const double scale, aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    const double sc[1] = {scale};
    return forward(&spec_UpsampleLinear1d, self, outputSize, alignCorners, sc, SC_GIVEN, out, workspaceSize,
                   executor);
}

aclnnStatus opws_UpsampleLinear1dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                          const aclIntArray *inputSize, bool alignCorners, double scales,
                                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const double sc[1] = {scales};
    return backward(&spec_UpsampleLinear1dBackward, gradOut, outputSize, inputSize, alignCorners, sc, SC_GIVEN, out,
                    workspaceSize, executor);
}

aclnnStatus opws_UpsampleBilinear2d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                    const double scalesH, const double scalesW, aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    const double sc[2] = {scalesH, scalesW};
    return forward(&spec_UpsampleBilinear2d, self, outputSize, alignCorners, sc, SC_IF_CONSISTENT, out,
                   workspaceSize, executor);
}

aclnnStatus opws_UpsampleBilinear2dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                            const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                            double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                            aclOpExecutor **executor) {
    const double sc[2] = {scalesH, scalesW};
    return backward(&spec_UpsampleBilinear2dBackward, gradOut, outputSize, inputSize, alignCorners, sc, SC_NONE, out,
                    workspaceSize, executor);
}

aclnnStatus opws_UpsampleBilinear2dBackwardV2(const aclTensor *gradOut, const aclIntArray *outputSize,
                                              const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                              double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
    const double sc[2] = {scalesH, scalesW};
    return backward(&spec_UpsampleBilinear2dBackwardV2, gradOut, outputSize, inputSize, alignCorners, sc,
                    SC_IF_CONSISTENT, out, workspaceSize, executor);
}

aclnnStatus opws_UpsampleBicubic2d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                   const double scalesH, const double scalesW, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    const double sc[2] = {scalesH, scalesW};
    return forward(&spec_UpsampleBicubic2d, self, outputSize, alignCorners, sc, SC_GIVEN, out, workspaceSize,
                   executor);
}

aclnnStatus opws_UpsampleBicubic2dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                           const aclIntArray *inputSize, const bool alignCorners, double scalesH,
                                           double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    const double sc[2] = {scalesH, scalesW};
    return backward(&spec_UpsampleBicubic2dBackward, gradOut, outputSize, inputSize, alignCorners, sc, SC_GIVEN,
                    gradInput, workspaceSize, executor);
}

aclnnStatus opws_UpsampleTrilinear3d(const aclTensor *self, const aclIntArray *outputSize, bool alignCorners,
                                     double scalesD, double scalesH, double scalesW, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    const double sc[3] = {scalesD, scalesH, scalesW};
    return forward(&spec_UpsampleTrilinear3d, self, outputSize, alignCorners, sc, SC_GIVEN, out, workspaceSize,
                   executor);
}

aclnnStatus opws_UpsampleTrilinear3dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                             const aclIntArray *inputSize, bool alignCorners, double scalesD,
                                             double scalesH, double scalesW, aclTensor *gradInput,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    const double sc[3] = {scalesD, scalesH, scalesW};
    return backward(&spec_UpsampleTrilinear3dBackward, gradOut, outputSize, inputSize, alignCorners, sc, SC_GIVEN,
                    gradInput, workspaceSize, executor);
}
