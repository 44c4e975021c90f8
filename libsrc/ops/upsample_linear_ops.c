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

enum { AA_LINEAR = 2, AA_CUBIC = 3, NEAREST_LEGACY = 4 };

typedef struct {
    int op;
    int nsp;  /* spatial axes: 1, 2 or 3 */
    int mode; /* UPL_LINEAR / UPL_CUBIC, or AA_LINEAR / AA_CUBIC (antialiased) */
    int bwd;
    const char *xn, *yn;
    const aclDataType *dts;
    int ndt;
    int formats; /* UPL_F_* set of accepted storage formats */
} upl_spec;

enum { UPL_F_ND = 1, UPL_F_NCHW = 2, UPL_F_NHWC = 4, UPL_F_NCDHW = 8, UPL_F_NDHWC = 16, UPL_F_NCL = 32 };

typedef struct {
    upl_plan plan;
    int cl_x, cl_y; /* channels-last layout (NHWC / NDHWC) of the input and of the output */
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
    acl_view x = canon5(acl_exec_in(ex, 0), p->nsp, p->cl_x), y = canon5(acl_exec_out(ex, 0), p->nsp, p->cl_y);
    return upl_run(&x, &y, &p->plan);
}

static int build_axis(upl_axis *a, int mode, int64_t in, int64_t out, int align, double sc, int f64) {
    if (mode == NEAREST_LEGACY) return upl_axis_nearest_legacy(a, in, out);
    if (mode >= AA_LINEAR) return upl_axis_aa(a, in, out, mode == AA_CUBIC, align, sc, f64);
    return upl_axis_forward(a, in, out, mode, align, sc, f64);
}

/* Executor with the plan: fin/fout are the forward's input/output spatial extents, sc the effective scales. */
static aclnnStatus publish(const upl_spec *s, const aclTensor *x, int cl_x, const aclTensor *y, int cl_y,
                           const int64_t *fin, const int64_t *fout, int align, const double *sc,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(s->op, run, sizeof(upl_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = free_params;
    aclnnStatus rc = acl_exec_add_input(ex, x, s->xn, true);
    if (rc == 0) rc = acl_exec_add_output(ex, y, s->yn);
    if (rc) return acl_exec_discard(ex, rc);
    upl_params *p = ex->params;
    p->nsp = s->nsp;
    p->cl_x = cl_x;
    p->cl_y = cl_y;
    const int f64 = x->dtype == ACL_DOUBLE;
    int bad = 0;
    for (int k = 0; k < 3; k++) {
        const int sp = k - (3 - s->nsp);
        if (sp < 0) {
            bad |= upl_axis_unit(&p->plan.ax[k]);
            continue;
        }
        if (!s->bwd) {
            bad |= build_axis(&p->plan.ax[k], s->mode, fin[sp], fout[sp], align, sc[sp], f64);
        } else {
            upl_axis f;
            if (build_axis(&f, s->mode, fin[sp], fout[sp], align, sc[sp], f64)) {
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

/* ---- shared pieces of the first phases ---- */

#define PHASE1_PTRS()                                                                                              \
    do {                                                                                                           \
        ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");            \
        ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");                      \
    } while (0)

#define NOT_NULL_T(t, name) ACL_TRY(acl_check_tensor((t), (name)))
#define NOT_NULL_A(a, name) ACL_TRY(acl_check_int_array((a), (name)))

static aclnnStatus check_len(const aclIntArray *a, const char *name, uint64_t n) {
    ACLNN_CHECK(a->size == n, ACLNN_ERR_PARAM_INVALID, "%s length %llu should be %llu.", name,
                (unsigned long long)a->size, (unsigned long long)n);
    return ACLNN_SUCCESS;
}

/* every int64 of the sizes fits an int32 (the A2 kernels' tiling) */
static aclnnStatus check_int32(const int64_t *v, int n, const char *name) {
    for (int i = 0; i < n; i++)
        ACLNN_CHECK(v[i] <= INT32_MAX, ACLNN_ERR_PARAM_INVALID, "%s sizes should not be greater than %d, got %lld.",
                    name, INT32_MAX, (long long)v[i]);
    return ACLNN_SUCCESS;
}

/* a * b * c <= INT32_MAX without overflowing (any factor may be a hostile int64 from an aclIntArray) */
static int prod3_le_int32(int64_t a, int64_t b, int64_t c) {
    int64_t ab, abc;
    if (__builtin_mul_overflow(a, b, &ab) || __builtin_mul_overflow(ab, c, &abc)) return 0;
    return abc <= INT32_MAX;
}

/* gradOut and out against their expected shapes, dim by dim, interleaved as the backward op_apis do */
static aclnnStatus check_pair_shapes(const aclTensor *g, const char *gn, const int64_t *gw, const aclTensor *o,
                                     const char *on, const int64_t *ow, int rank) {
    for (int d = 0; d < rank; d++) {
        ACLNN_CHECK(g->dims[d] == gw[d], ACLNN_ERR_PARAM_INVALID, "The dim %d of %s should be %lld, but got %lld.", d,
                    gn, (long long)gw[d], (long long)g->dims[d]);
        ACLNN_CHECK(o->dims[d] == ow[d], ACLNN_ERR_PARAM_INVALID, "The dim %d of %s should be %lld, but got %lld.", d,
                    on, (long long)ow[d], (long long)o->dims[d]);
    }
    return ACLNN_SUCCESS;
}

/* N and C of a and b at their NCHW / NHWC positions (a's format; other formats refused), as CheckNCDimValid */
static aclnnStatus check_nc_2d(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    ACLNN_CHECK(a->format == ACL_FORMAT_NCHW || a->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "%s format %s: only NCHW and NHWC are supported.", an, acl_format_name(a->format));
    const int cdim = a->format == ACL_FORMAT_NHWC ? 3 : 1;
    ACLNN_CHECK(a->dims[0] == b->dims[0] && a->dims[cdim] == b->dims[cdim], ACLNN_ERR_PARAM_INVALID,
                "%s N %lld / C %lld and %s N %lld / C %lld should be equal.", an, (long long)a->dims[0],
                (long long)a->dims[cdim], bn, (long long)b->dims[0], (long long)b->dims[cdim]);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_positive(const int64_t *in, const int64_t *o, int nsp) {
    for (int k = 0; k < nsp; k++)
        ACLNN_CHECK(in[k] > 0 && o[k] > 0, ACLNN_ERR_PARAM_INVALID,
                    "Input and output sizes should be greater than 0 (spatial axis %d: input %lld, outputSize %lld).",
                    k, (long long)in[k], (long long)o[k]);
    return ACLNN_SUCCESS;
}

/* the spatial extents of the forward's input (from inputSize, in the layout) and output (outputSize), which must
 * be positive */
static aclnnStatus backward_extents(const aclIntArray *inputSize, const aclIntArray *outputSize, int nsp, int cl,
                                    int64_t *n, int64_t *c, int64_t in[3], int64_t o[3]) {
    split_dims(inputSize->v, nsp, cl, n, c, in);
    for (int k = 0; k < nsp; k++) o[k] = outputSize->v[k];
    return check_positive(in, o, nsp);
}

/* a 2-D backward's gradOut (N, C, outputSize) and gradient (N, C, inputSize), both in the layout cl */
static aclnnStatus check_pair_2d(const aclTensor *g, const char *gn, const aclTensor *o, const char *on, int cl,
                                 int64_t n, int64_t c, const int64_t *in, const int64_t *os) {
    int64_t gw[4], ow[4];
    join_dims(gw, 2, cl, n, c, os);
    join_dims(ow, 2, cl, n, c, in);
    return check_pair_shapes(g, gn, gw, o, on, ow, 4);
}

/* scales > 0 on every axis, else none (the trilinear op_apis pass all three or none) */
static void scales_all_or_none(const double *s, int nsp, double *sc) {
    int all = 1;
    for (int k = 0; k < nsp; k++) all = all && s[k] > 0;
    for (int k = 0; k < nsp; k++) sc[k] = all ? s[k] : 0;
}

#define SPEC(name, nsp_, mode_, bwd_, xn_, yn_, fm)                                                                \
    static const upl_spec spec_##name = {ACL_OP_##name, nsp_, mode_, bwd_, xn_, yn_, ACL_DT_LIST_##name, fm}

SPEC(UpsampleLinear1d, 1, UPL_LINEAR, 0, "self", "out", 0xff);
SPEC(UpsampleLinear1dBackward, 1, UPL_LINEAR, 1, "gradOut", "out", 0xff);
SPEC(UpsampleBilinear2d, 2, UPL_LINEAR, 0, "self", "out", UPL_F_NCHW | UPL_F_NHWC);
SPEC(UpsampleBilinear2dBackward, 2, UPL_LINEAR, 1, "gradOut", "out", UPL_F_NCHW | UPL_F_NHWC);
SPEC(UpsampleBilinear2dBackwardV2, 2, UPL_LINEAR, 1, "gradOut", "out", UPL_F_NCHW | UPL_F_NHWC);
SPEC(UpsampleBicubic2d, 2, UPL_CUBIC, 0, "self", "out", UPL_F_NCHW | UPL_F_NHWC | UPL_F_ND);
SPEC(UpsampleBicubic2dBackward, 2, UPL_CUBIC, 1, "gradOut", "gradInput", UPL_F_NCHW | UPL_F_ND);
SPEC(UpsampleTrilinear3d, 3, UPL_LINEAR, 0, "self", "out", UPL_F_ND | UPL_F_NCDHW | UPL_F_NDHWC);
SPEC(UpsampleTrilinear3dBackward, 3, UPL_LINEAR, 1, "gradOut", "gradInput", UPL_F_ND | UPL_F_NCDHW | UPL_F_NDHWC);
SPEC(UpsampleBilinear2dAA, 2, AA_LINEAR, 0, "input", "out", UPL_F_ND | UPL_F_NCHW);
SPEC(UpsampleBilinear2dAABackward, 2, AA_LINEAR, 1, "gradOutput", "out", UPL_F_ND | UPL_F_NCHW);
SPEC(UpsampleBicubic2dAA, 2, AA_CUBIC, 0, "x", "out", UPL_F_ND | UPL_F_NCHW);
SPEC(UpsampleBicubic2dAAGrad, 2, AA_CUBIC, 1, "gradOutput", "out", UPL_F_ND | UPL_F_NCHW);
SPEC(Resize, 2, NEAREST_LEGACY, 0, "self", "out", UPL_F_NCHW | UPL_F_NHWC);

/* ---- aclnnUpsampleLinear1d ---- */

aclnnStatus opws_UpsampleLinear1d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                  const double scale, aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleLinear1d;
    PHASE1_PTRS();
    NOT_NULL_T(self, "self");
    NOT_NULL_T(out, "out");
    NOT_NULL_A(outputSize, "outputSize");
    ACL_TRY(acl_check_rank(self, 3, "self"));
    ACL_TRY(acl_check_rank(out, 3, "out"));
    ACL_TRY(check_len(outputSize, "outputSize", 1));
    ACLNN_CHECK(self->dims[1] != 0 && self->dims[2] != 0, ACLNN_ERR_PARAM_INVALID,
                "self: a non-empty 3D tensor is expected (C and L > 0), got (%lld, %lld, %lld).",
                (long long)self->dims[0], (long long)self->dims[1], (long long)self->dims[2]);
    const int64_t ol = outputSize->v[0];
    ACLNN_CHECK(ol > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[0] %lld should be greater than 0.", (long long)ol);
    const int64_t want[3] = {self->dims[0], self->dims[1], ol};
    for (int d = 0; d < 3; d++)
        ACLNN_CHECK(out->dims[d] == want[d], ACLNN_ERR_PARAM_INVALID, "The dim %d of out should be %lld, but got %lld.",
                    d, (long long)want[d], (long long)out->dims[d]);
    if (scale >= 0)
        ACLNN_CHECK(upl_trunc((double)self->dims[2] * scale) == ol, ACLNN_ERR_PARAM_INVALID,
                    "scale %g conflicts with outputSize: int(self L %lld * scale) should be outputSize[0] %lld (a "
                    "negative scale means none).", scale, (long long)self->dims[2], (long long)ol);
    ACL_TRY(check_dtypes(s, self, out));
    if (acl_tensor_empty(self)) return acl_exec_noop(s->op, workspaceSize, executor);
    const int64_t in[1] = {self->dims[2]}, o[1] = {ol};
    const double sc[1] = {scale > 0 ? scale : 0};
    return publish(s, self, 0, out, 0, in, o, alignCorners, sc, workspaceSize, executor);
}

aclnnStatus opws_UpsampleLinear1dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                          const aclIntArray *inputSize, bool alignCorners, double scales,
                                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleLinear1dBackward;
    PHASE1_PTRS();
    NOT_NULL_T(gradOut, "gradOut");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(acl_check_rank(gradOut, 3, "gradOut"));
    ACL_TRY(check_len(outputSize, "outputSize", 1));
    ACL_TRY(check_len(inputSize, "inputSize", 3));
    /* [EMU] the op_api checks the support list only when gradOut already has inputSize's shape (any other dtype
     * then fails inside the kernels); it is checked here in every case */
    ACL_TRY(check_dtypes(s, gradOut, out));
    int64_t n, c, in[3], o[3];
    ACL_TRY(backward_extents(inputSize, outputSize, 1, 0, &n, &c, in, o));
    const int64_t gw[3] = {n, c, o[0]};
    ACL_TRY(check_shape_is(gradOut, "gradOut", gw, 3));
    ACL_TRY(acl_check_rank(out, 3, "out"));
    ACLNN_CHECK(gradOut->dims[0] == out->dims[0] && gradOut->dims[1] == out->dims[1], ACLNN_ERR_PARAM_INVALID,
                "gradOut N %lld / C %lld and out N %lld / C %lld should be equal.", (long long)gradOut->dims[0],
                (long long)gradOut->dims[1], (long long)out->dims[0], (long long)out->dims[1]);
    ACL_TRY(check_int32(gradOut->dims, 3, "gradOut"));
    ACL_TRY(check_int32(out->dims, 3, "out"));
    if (acl_tensor_empty(gradOut)) return acl_exec_noop(s->op, workspaceSize, executor);
    /* The A2 kernel path (taken unless outputSize reaches 1e6, or the sizes differ and scales is set but disagrees
     * with them) refuses a scale above 500: scales when positive, else outputSize / inputSize. */
    const int scale_agrees = fabs(scales) <= 1e-9 || o[0] == (int64_t)floor((double)in[0] * scales);
    if (o[0] < 1000000 && (o[0] == in[0] || scale_agrees)) {
        const double real = scales > 0 ? scales : (double)o[0] / (double)in[0];
        ACLNN_CHECK(real <= 500.0, ACLNN_ERR_PARAM_INVALID,
                    "scales %g is too large: the scale (scales, or outputSize[0] / inputSize[2] when scales <= 0) "
                    "must not exceed 500.", real);
    }
    /* [HW] out's L is not compared with inputSize: the result (N, C, inputSize[2]) is copied into out at the end of
     * phase 1 and that copy fails on another shape */
    ACLNN_CHECK(out->dims[2] == in[0], ACLNN_ERR_INNER_NULLPTR,
                "out L %lld should equal inputSize[2] %lld: the result is copied into out.", (long long)out->dims[2],
                (long long)in[0]);
    const double sc[1] = {scales > 0 ? scales : 0};
    return publish(s, gradOut, 0, out, 0, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnUpsampleBilinear2d ---- */

aclnnStatus opws_UpsampleBilinear2d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                    const double scalesH, const double scalesW, aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBilinear2d;
    PHASE1_PTRS();
    /* this op_api reports a NULL self or out with its inner-nullptr code */
    ACLNN_CHECK(self != NULL, ACLNN_ERR_INNER_NULLPTR, "self must not be NULL.");
    ACLNN_CHECK(out != NULL, ACLNN_ERR_INNER_NULLPTR, "out must not be NULL.");
    NOT_NULL_T(self, "self");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, self, out));
    ACL_TRY(check_formats(s, self, out));
    ACL_TRY(acl_check_rank(self, 4, "self"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACLNN_CHECK(!(self->dtype == ACL_DOUBLE && self->format == ACL_FORMAT_NCHW), ACLNN_ERR_PARAM_INVALID,
                "self dtype DOUBLE is only supported in NHWC format.");
    ACL_TRY(check_nc_2d(self, "self", out, "out"));
    ACLNN_CHECK(!(scalesW < 0) && !(scalesH < 0), ACLNN_ERR_PARAM_INVALID,
                "scalesW %g and scalesH %g should not be negative.", scalesW, scalesH);
    /* outputSize's NULL check comes last and reports PARAM_INVALID */
    ACLNN_CHECK(outputSize != NULL, ACLNN_ERR_PARAM_INVALID, "outputSize must not be NULL.");
    NOT_NULL_A(outputSize, "outputSize");
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    const int cl = self->format == ACL_FORMAT_NHWC;
    int64_t n, c, in[3], o[3] = {outputSize->v[0], outputSize->v[1], 1}, on, oc, os[3];
    split_dims(self->dims, 2, cl, &n, &c, in);
    split_dims(out->dims, 2, cl, &on, &oc, os);
    ACLNN_CHECK(os[0] == o[0] && os[1] == o[1], ACLNN_ERR_PARAM_INVALID,
                "Expected out H, W to be outputSize (%lld, %lld), but got (%lld, %lld).", (long long)o[0],
                (long long)o[1], (long long)os[0], (long long)os[1]);
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    /* the scales reach the kernel only on the AI-core path: fp16/fp32/bf16, NCHW, both given with
     * int(in * s) == out (otherwise ResizeBilinearV2 / the AICPU kernel work from the sizes) */
    double sc[2] = {0, 0};
    if (self->dtype != ACL_DOUBLE && !cl && scalesH > 1e-12 && scalesW > 1e-12 &&
        upl_trunc((double)in[0] * scalesH) == o[0] && upl_trunc((double)in[1] * scalesW) == o[1]) {
        sc[0] = scalesH;
        sc[1] = scalesW;
    }
    return publish(s, self, cl, out, cl, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnUpsampleBilinear2dBackward (ResizeBilinearV2Grad on A2: the sizes only) ---- */

aclnnStatus opws_UpsampleBilinear2dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                            const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                            double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                            aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBilinear2dBackward;
    PHASE1_PTRS();
    NOT_NULL_T(gradOut, "gradOut");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(acl_check_rank(gradOut, 4, "gradOut"));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    ACL_TRY(check_len(inputSize, "inputSize", 4));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    const int cl = out->format == ACL_FORMAT_NHWC; /* the layout of the sizes follows out's format */
    int64_t n, c, in[3], o[3];
    ACL_TRY(backward_extents(inputSize, outputSize, 2, cl, &n, &c, in, o));
    ACL_TRY(check_pair_2d(gradOut, "gradOut", out, "out", cl, n, c, in, o));
    /* [EMU] the list is checked even when gradOut already has inputSize's shape (the op_api then only copies) */
    ACL_TRY(check_dtypes(s, gradOut, out));
    const int gcl = gradOut->format == ACL_FORMAT_NHWC;
    int64_t gw2[4];
    join_dims(gw2, 2, gcl, n, gcl ? inputSize->v[3] : inputSize->v[1], o);
    ACL_TRY(check_shape_is(gradOut, "gradOut", gw2, 4));
    ACL_TRY(check_nc_2d(gradOut, "gradOut", out, "out"));
    if (acl_tensor_empty(gradOut)) return acl_exec_noop(s->op, workspaceSize, executor);
    const double sc[2] = {0, 0};
    return publish(s, gradOut, gcl, out, cl, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnUpsampleBilinear2dBackwardV2 ---- */

aclnnStatus opws_UpsampleBilinear2dBackwardV2(const aclTensor *gradOut, const aclIntArray *outputSize,
                                              const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                              double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBilinear2dBackwardV2;
    PHASE1_PTRS();
    NOT_NULL_T(gradOut, "gradOut");
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(acl_check_rank(gradOut, 4, "gradOut"));
    ACL_TRY(check_len(inputSize, "inputSize", 4));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    ACLNN_CHECK(out->format == ACL_FORMAT_NCHW || out->format == ACL_FORMAT_NHWC, ACLNN_ERR_PARAM_INVALID,
                "out format %s is not supported (NCHW or NHWC).", acl_format_name(out->format));
    const int gcl = gradOut->format == ACL_FORMAT_NHWC;
    int64_t n, c, in[3], o[3], gw[4], ow[4];
    ACL_TRY(backward_extents(inputSize, outputSize, 2, gcl, &n, &c, in, o));
    join_dims(gw, 2, gcl, n, c, o);
    ACL_TRY(check_shape_is(gradOut, "gradOut", gw, 4));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACL_TRY(check_nc_2d(gradOut, "gradOut", out, "out"));
    ACL_TRY(check_dtypes(s, gradOut, out));
    ACL_TRY(check_int32(gradOut->dims, 4, "gradOut"));
    const int cl = out->format == ACL_FORMAT_NHWC;
    join_dims(ow, 2, cl, n, c, in);
    /* [HW] out's H and W are not compared with inputSize by the checks; the result's shape check at the end of
     * phase 1 refuses another shape */
    ACL_TRY(check_shape_is(out, "out", ow, 4));
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    /* the scales reach the kernel when both are 0 (sizes) or both give floor(in * s) == out */
    double sc[2] = {0, 0};
    if (scalesH > 0 && scalesW > 0 && upl_trunc(floor((double)in[0] * scalesH)) == o[0] &&
        upl_trunc(floor((double)in[1] * scalesW)) == o[1]) {
        sc[0] = scalesH;
        sc[1] = scalesW;
    }
    return publish(s, gradOut, gcl, out, cl, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnUpsampleBicubic2d ---- */

static int dst_size_ok(int64_t in, int64_t out, double scale) {
    if (scale <= 0) return 1;
    const double eps = 1e-5;
    const int64_t d = upl_trunc((double)in * scale), hi = upl_trunc((double)in * (scale + eps)),
                  lo = upl_trunc((double)in * (scale - eps));
    return out == d || (out >= lo && out <= hi);
}

aclnnStatus opws_UpsampleBicubic2d(const aclTensor *self, const aclIntArray *outputSize, const bool alignCorners,
                                   const double scalesH, const double scalesW, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBicubic2d;
    PHASE1_PTRS();
    NOT_NULL_T(self, "self");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, self, out));
    ACL_TRY(check_formats(s, self, out));
    ACL_TRY(acl_check_rank(self, 4, "self"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    const int cl = self->format == ACL_FORMAT_NHWC;
    int64_t n, c, in[3], o[3] = {outputSize->v[0], outputSize->v[1], 1}, full[4];
    split_dims(self->dims, 2, cl, &n, &c, in);
    ACLNN_CHECK(c > 0, ACLNN_ERR_PARAM_INVALID, "self: a non-empty 4D tensor is expected (C %lld).", (long long)c);
    ACL_TRY(check_positive(in, o, 2));
    join_dims(full, 2, cl, n, c, o);
    ACL_TRY(check_shape_is(out, "out", full, 4));
    ACL_TRY(check_int32(self->dims, 4, "self"));
    ACL_TRY(check_int32(o, 2, "outputSize"));
    ACLNN_CHECK(dst_size_ok(in[0], o[0], scalesH), ACLNN_ERR_PARAM_INVALID,
                "scalesH %g conflicts with outputSize: scalesH * input H %lld should be outputSize[0] %lld.", scalesH,
                (long long)in[0], (long long)o[0]);
    ACLNN_CHECK(dst_size_ok(in[1], o[1], scalesW), ACLNN_ERR_PARAM_INVALID,
                "scalesW %g conflicts with outputSize: scalesW * input W %lld should be outputSize[1] %lld.", scalesW,
                (long long)in[1], (long long)o[1]);
    if (acl_tensor_empty(self)) return acl_exec_noop(s->op, workspaceSize, executor);
    const double sc[2] = {scalesH > 0 ? scalesH : 0, scalesW > 0 ? scalesW : 0};
    return publish(s, self, cl, out, cl, in, o, alignCorners, sc, workspaceSize, executor);
}

aclnnStatus opws_UpsampleBicubic2dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                           const aclIntArray *inputSize, const bool alignCorners, double scalesH,
                                           double scalesW, aclTensor *gradInput, uint64_t *workspaceSize,
                                           aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBicubic2dBackward;
    PHASE1_PTRS();
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_T(gradInput, "gradInput");
    NOT_NULL_T(gradOut, "gradOut");
    NOT_NULL_A(outputSize, "outputSize");
    ACLNN_CHECK(gradOut->format == ACL_FORMAT_ND || gradOut->format == ACL_FORMAT_NCHW, ACLNN_ERR_PARAM_INVALID,
                "gradOut format %s is not supported (NCHW or ND).", acl_format_name(gradOut->format));
    ACL_TRY(acl_check_rank(gradOut, 4, "gradOut"));
    ACL_TRY(check_len(inputSize, "inputSize", 4));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    ACL_TRY(acl_check_rank(gradInput, 4, "gradInput"));
    const int cl = gradInput->format == ACL_FORMAT_NHWC;
    int64_t n, c, in[3], o[3];
    ACL_TRY(backward_extents(inputSize, outputSize, 2, cl, &n, &c, in, o));
    ACL_TRY(check_pair_2d(gradOut, "gradOut", gradInput, "gradInput", cl, n, c, in, o));
    ACL_TRY(check_dtypes(s, gradOut, gradInput));
    ACL_TRY(check_int32(inputSize->v, 4, "inputSize"));
    ACL_TRY(check_int32(o, 2, "outputSize"));
    ACLNN_CHECK(prod3_le_int32(n, c, o[0]), ACLNN_ERR_PARAM_INVALID,
                "N * C * outputSize H should not be greater than %d.", INT32_MAX);
    if (acl_tensor_empty(gradOut)) return acl_exec_noop(s->op, workspaceSize, executor);
    const double sc[2] = {scalesH > 0 ? scalesH : 0, scalesW > 0 ? scalesW : 0};
    return publish(s, gradOut, cl, gradInput, cl, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnUpsampleTrilinear3d ---- */

aclnnStatus opws_UpsampleTrilinear3d(const aclTensor *self, const aclIntArray *outputSize, bool alignCorners,
                                     double scalesD, double scalesH, double scalesW, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleTrilinear3d;
    PHASE1_PTRS();
    NOT_NULL_T(self, "self");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, self, out));
    ACL_TRY(acl_check_rank(self, 5, "self"));
    ACL_TRY(check_len(outputSize, "outputSize", 3));
    ACLNN_CHECK(fmt_bit(self->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                "self storage format %s is not supported (NCDHW, NDHWC or ND).", acl_format_name(self->format));
    const int cl = self->format == ACL_FORMAT_NDHWC, ocl = out->format == ACL_FORMAT_NDHWC;
    int64_t n, c, in[3], o[3] = {outputSize->v[0], outputSize->v[1], outputSize->v[2]}, full[5];
    split_dims(self->dims, 3, cl, &n, &c, in);
    ACL_TRY(check_positive(in, o, 3));
    ACLNN_CHECK(c > 0, ACLNN_ERR_PARAM_INVALID, "self: a non-empty 5D tensor is expected (C %lld).", (long long)c);
    join_dims(full, 3, ocl, n, c, o);
    ACL_TRY(acl_check_rank(out, 5, "out"));
    ACL_TRY(check_shape_is(out, "out", full, 5));
    ACL_TRY(check_int32(self->dims, 5, "self"));
    ACL_TRY(check_int32(out->dims, 5, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(s->op, workspaceSize, executor);
    const double sin[3] = {scalesD, scalesH, scalesW};
    double sc[3];
    scales_all_or_none(sin, 3, sc);
    return publish(s, self, cl, out, ocl, in, o, alignCorners, sc, workspaceSize, executor);
}

aclnnStatus opws_UpsampleTrilinear3dBackward(const aclTensor *gradOut, const aclIntArray *outputSize,
                                             const aclIntArray *inputSize, bool alignCorners, double scalesD,
                                             double scalesH, double scalesW, aclTensor *gradInput,
                                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleTrilinear3dBackward;
    PHASE1_PTRS();
    NOT_NULL_T(gradOut, "gradOut");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_T(gradInput, "gradInput");
    ACL_TRY(check_dtypes(s, gradOut, gradInput));
    ACL_TRY(acl_check_rank(gradOut, 5, "gradOut"));
    ACL_TRY(check_len(outputSize, "outputSize", 3));
    ACL_TRY(check_len(inputSize, "inputSize", 5));
    ACLNN_CHECK(fmt_bit(gradOut->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                "gradOut storage format %s is not supported (NCDHW, NDHWC or ND).", acl_format_name(gradOut->format));
    /* inputSize is (N, C, D, H, W) whatever the formats; each tensor's own format orders its expected shape */
    const int gcl = gradOut->format == ACL_FORMAT_NDHWC, icl = gradInput->format == ACL_FORMAT_NDHWC;
    int64_t n, c, in[3], o[3], gw[5], iw[5];
    ACL_TRY(backward_extents(inputSize, outputSize, 3, 0, &n, &c, in, o));
    join_dims(gw, 3, gcl, n, c, o);
    join_dims(iw, 3, icl, n, c, in);
    ACL_TRY(check_shape_is(gradOut, "gradOut", gw, 5));
    ACL_TRY(acl_check_rank(gradInput, 5, "gradInput"));
    ACL_TRY(check_shape_is(gradInput, "gradInput", iw, 5));
    ACL_TRY(check_int32(gradOut->dims, 5, "gradOut"));
    if (acl_tensor_empty(gradOut) || acl_tensor_empty(gradInput))
        return acl_exec_noop(s->op, workspaceSize, executor);
    const double sin[3] = {scalesD, scalesH, scalesW};
    double sc[3];
    scales_all_or_none(sin, 3, sc);
    return publish(s, gradOut, gcl, gradInput, icl, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- the antialiased variants (NCHW / ND only) ---- */

static aclnnStatus aa_check_scales(double scalesH, double scalesW) {
    ACLNN_CHECK(!(scalesW < 0) && !(scalesH < 0), ACLNN_ERR_PARAM_INVALID,
                "scalesW %g and scalesH %g should not be negative.", scalesW, scalesH);
    return ACLNN_SUCCESS;
}

/* [HW] the result, (N, C) of the input with the other two extents, is copied into out at the end of phase 1; out
 * of another shape makes that copy fail */
static aclnnStatus aa_check_out_copy(const aclTensor *out, const char *name, const int64_t *want) {
    for (int d = 0; d < 4; d++)
        ACLNN_CHECK(out->dims[d] == want[d], ACLNN_ERR_INNER_NULLPTR,
                    "%s dim %d is %lld but the result has %lld: the result is copied into %s.", name, d,
                    (long long)out->dims[d], (long long)want[d], name);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_UpsampleBilinear2dAA(const aclTensor *input, const aclIntArray *outputSize, bool alignCorners,
                                      double scalesH, double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBilinear2dAA;
    PHASE1_PTRS();
    NOT_NULL_T(input, "input");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, input, out));
    ACLNN_CHECK(input->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "input format %s and out format %s should be the same.", acl_format_name(input->format),
                acl_format_name(out->format));
    ACL_TRY(acl_check_rank(input, 4, "input"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    ACLNN_CHECK(fmt_bit(input->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                "input storage format %s is not supported (NCHW or ND).", acl_format_name(input->format));
    if (input->format == ACL_FORMAT_NCHW) ACL_TRY(check_nc_2d(input, "input", out, "out"));
    ACL_TRY(aa_check_scales(scalesH, scalesW));
    const int64_t *x = input->dims, o[3] = {outputSize->v[0], outputSize->v[1], 1};
    ACLNN_CHECK(x[0] > 0 && x[1] > 0 && x[2] > 0 && x[3] > 0 && o[0] > 0 && o[1] > 0, ACLNN_ERR_PARAM_INVALID,
                "Input and output sizes should be greater than 0: input (%lld, %lld, %lld, %lld), outputSize (%lld, "
                "%lld).", (long long)x[0], (long long)x[1], (long long)x[2], (long long)x[3], (long long)o[0],
                (long long)o[1]);
    ACL_TRY(check_int32(x, 4, "input"));
    ACL_TRY(check_int32(o, 2, "outputSize"));
    ACLNN_CHECK(prod3_le_int32(x[0], x[1], x[2]), ACLNN_ERR_PARAM_INVALID,
                "N * C * input H should not be greater than %d.", INT32_MAX);
    /* the ratio limit as the op_api computes it: 1 / scales, or the INTEGER quotient in / out */
    for (int k = 0; k < 2; k++) {
        const double sk = k ? scalesW : scalesH;
        const float r = sk > 0 ? (float)(1.0 / sk) : (float)(x[2 + k] / o[k]);
        ACLNN_CHECK(r <= 50.0f, ACLNN_ERR_PARAM_INVALID, "Scales should not exceed 50, got %g on axis %s.", (double)r,
                    k ? "W" : "H");
    }
    const int64_t want[4] = {x[0], x[1], o[0], o[1]};
    ACL_TRY(aa_check_out_copy(out, "out", want));
    if (acl_tensor_empty(input) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    const int64_t in[3] = {x[2], x[3], 1};
    const double sc[2] = {scalesH > 0 ? scalesH : 0, scalesW > 0 ? scalesW : 0};
    return publish(s, input, 0, out, 0, in, o, alignCorners, sc, workspaceSize, executor);
}

static aclnnStatus aa_backward(const upl_spec *s, const aclTensor *gradOutput, const aclIntArray *outputSize,
                               const aclIntArray *inputSize, bool alignCorners, double scalesH, double scalesW,
                               aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const int bicubic = s->mode == AA_CUBIC;
    PHASE1_PTRS();
    NOT_NULL_T(gradOutput, "gradOutput");
    NOT_NULL_A(inputSize, "inputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, gradOutput, out));
    if (bicubic) ACL_TRY(aa_check_scales(scalesH, scalesW));
    ACLNN_CHECK(gradOutput->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "gradOutput format %s and out format %s should be the same.", acl_format_name(gradOutput->format),
                acl_format_name(out->format));
    /* [EMU] outputSize is read here without a NULL check by the op_api */
    NOT_NULL_A(outputSize, "outputSize");
    ACL_TRY(acl_check_rank(gradOutput, 4, "gradOutput"));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    ACL_TRY(check_len(inputSize, "inputSize", 4));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    if (!bicubic)
        ACLNN_CHECK(fmt_bit(gradOutput->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                    "gradOutput storage format %s is not supported (NCHW or ND).",
                    acl_format_name(gradOutput->format));
    if (gradOutput->format == ACL_FORMAT_NCHW) ACL_TRY(check_nc_2d(gradOutput, "gradOutput", out, "out"));
    if (!bicubic) ACL_TRY(aa_check_scales(scalesH, scalesW));
    const int64_t *isz = inputSize->v, o[3] = {outputSize->v[0], outputSize->v[1], 1};
    if (bicubic) {
        const int64_t *g = gradOutput->dims;
        ACLNN_CHECK(g[0] > 0 && g[1] > 0 && g[2] > 0 && g[3] > 0 && isz[2] > 0 && isz[3] > 0,
                    ACLNN_ERR_PARAM_INVALID, "Input and output sizes should be greater than 0.");
        ACLNN_CHECK(fmt_bit(gradOutput->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                    "gradOutput storage format %s is not supported (NCHW or ND).",
                    acl_format_name(gradOutput->format));
    } else {
        ACLNN_CHECK(isz[0] > 0 && isz[1] > 0 && isz[2] > 0 && isz[3] > 0 && o[0] > 0 && o[1] > 0,
                    ACLNN_ERR_PARAM_INVALID, "inputSize and outputSize should be greater than 0.");
    }
    ACL_TRY(check_int32(isz, 4, "inputSize"));
    ACL_TRY(check_int32(o, 2, "outputSize"));
    ACLNN_CHECK(prod3_le_int32(isz[0], isz[1], o[0]), ACLNN_ERR_PARAM_INVALID,
                "N * C * outputSize H should not be greater than %d (and outputSize > 0).", INT32_MAX);
    for (int k = 0; k < 2; k++) {
        const double sk = k ? scalesW : scalesH;
        const double r = sk > 0 ? 1.0 / sk : (double)isz[2 + k] / (double)o[k];
        ACLNN_CHECK(r >= 0.02, ACLNN_ERR_PARAM_INVALID, "scales%s %g is too large (ratio %g < 0.02).", k ? "W" : "H",
                    sk, r);
    }
    /* [EMU] gradOutput's shape is not compared with (N, C, outputSize) by the op_api */
    const int64_t gw[4] = {isz[0], isz[1], o[0], o[1]};
    ACL_TRY(check_shape_is(gradOutput, "gradOutput", gw, 4));
    ACL_TRY(aa_check_out_copy(out, "out", isz));
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    const int64_t in[3] = {isz[2], isz[3], 1};
    const double sc[2] = {scalesH > 0 ? scalesH : 0, scalesW > 0 ? scalesW : 0};
    return publish(s, gradOutput, 0, out, 0, in, o, alignCorners, sc, workspaceSize, executor);
}

aclnnStatus opws_UpsampleBilinear2dAABackward(const aclTensor *gradOutput, const aclIntArray *outputSize,
                                              const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                              double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                              aclOpExecutor **executor) {
    return aa_backward(&spec_UpsampleBilinear2dAABackward, gradOutput, outputSize, inputSize, alignCorners, scalesH,
                       scalesW, out, workspaceSize, executor);
}

aclnnStatus opws_UpsampleBicubic2dAAGrad(const aclTensor *gradOutput, const aclIntArray *outputSize,
                                         const aclIntArray *inputSize, bool alignCorners, double scalesH,
                                         double scalesW, aclTensor *out, uint64_t *workspaceSize,
                                         aclOpExecutor **executor) {
    return aa_backward(&spec_UpsampleBicubic2dAAGrad, gradOutput, outputSize, inputSize, alignCorners, scalesH,
                       scalesW, out, workspaceSize, executor);
}

aclnnStatus opws_UpsampleBicubic2dAA(const aclTensor *x, const aclIntArray *outputSize, const bool alignCorners,
                                     const double scalesH, const double scalesW, aclTensor *out,
                                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    const upl_spec *s = &spec_UpsampleBicubic2dAA;
    PHASE1_PTRS();
    NOT_NULL_T(x, "x");
    NOT_NULL_A(outputSize, "outputSize");
    NOT_NULL_T(out, "out");
    ACL_TRY(check_dtypes(s, x, out));
    ACL_TRY(acl_check_rank(x, 4, "x"));
    ACL_TRY(check_len(outputSize, "outputSize", 2));
    ACL_TRY(acl_check_rank(out, 4, "out"));
    const int64_t *d = x->dims, o[3] = {outputSize->v[0], outputSize->v[1], 1};
    ACLNN_CHECK(d[2] > 0 && d[3] > 0 && o[0] > 0 && o[1] > 0, ACLNN_ERR_PARAM_INVALID,
                "Input and output sizes should be greater than 0: x H, W (%lld, %lld), outputSize (%lld, %lld).",
                (long long)d[2], (long long)d[3], (long long)o[0], (long long)o[1]);
    ACLNN_CHECK(d[1] > 0, ACLNN_ERR_PARAM_INVALID, "x: a non-empty 4D tensor is expected (C %lld).", (long long)d[1]);
    ACLNN_CHECK(out->dims[2] == o[0] && out->dims[3] == o[1], ACLNN_ERR_PARAM_INVALID,
                "out H, W (%lld, %lld) should equal outputSize (%lld, %lld).", (long long)out->dims[2],
                (long long)out->dims[3], (long long)o[0], (long long)o[1]);
    ACLNN_CHECK((fmt_bit(x->format) & s->formats) && (fmt_bit(out->format) & s->formats), ACLNN_ERR_PARAM_INVALID,
                "x format %s and out format %s: only NCHW or ND are supported.", acl_format_name(x->format),
                acl_format_name(out->format));
    ACL_TRY(check_int32(d, 4, "x"));
    ACL_TRY(check_int32(o, 2, "outputSize"));
    for (int k = 0; k < 2; k++) {
        const double sk = k ? scalesW : scalesH;
        const float r = sk > 0 ? (float)(1.0 / sk) : (float)d[2 + k] / (float)o[k];
        ACLNN_CHECK(r <= 50.0f, ACLNN_ERR_PARAM_INVALID, "Scales should not exceed 50, got %g on axis %s.", (double)r,
                    k ? "W" : "H");
    }
    const int64_t want[4] = {d[0], d[1], o[0], o[1]};
    ACL_TRY(aa_check_out_copy(out, "out", want));
    if (acl_tensor_empty(x) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    const int64_t in[3] = {d[2], d[3], 1};
    const double sc[2] = {scalesH > 0 ? scalesH : 0, scalesW > 0 ? scalesW : 0};
    return publish(s, x, 0, out, 0, in, o, alignCorners, sc, workspaceSize, executor);
}

/* ---- aclnnResize (A2: the "extend" path; the output size is out's shape) ---- */

aclnnStatus opws_Resize(const aclTensor *self, const aclFloatArray *scales, const char *mode, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    PHASE1_PTRS();
    NOT_NULL_T(self, "self");
    ACLNN_CHECK(scales != NULL, ACLNN_ERR_PARAM_NULLPTR, "scales must not be NULL.");
    NOT_NULL_T(out, "out");
    ACLNN_CHECK(mode != NULL, ACLNN_ERR_PARAM_NULLPTR, "mode is NULL.");
    /* the mode is matched on its prefix, as strncmp(mode, "nearest", 7) does */
    const int nearest = strncmp(mode, "nearest", 7) == 0, bilinear = strncmp(mode, "bilinear", 8) == 0;
    ACLNN_CHECK(nearest || bilinear, ACLNN_ERR_PARAM_INVALID, "mode \"%.32s\" is not supported (nearest, bilinear).",
                mode);
    const upl_spec *s = &spec_Resize;
    ACL_TRY(check_dtypes(s, self, out));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID, "The format of self %s and out %s must be the same.",
                acl_format_name(self->format), acl_format_name(out->format));
    ACLNN_CHECK(fmt_bit(self->format) & s->formats, ACLNN_ERR_PARAM_INVALID,
                "The format of self must be NCHW or NHWC, got %s.", acl_format_name(self->format));
    /* [EMU] the element check reads dims 0..3 before the rank check: a smaller rank is refused here */
    ACLNN_CHECK(self->ndim == 4 && out->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self and out must be 4 dim.");
    const int cl = self->format == ACL_FORMAT_NHWC;
    int64_t n, c, in[3] = {1, 1, 1}, on, oc, o[3] = {1, 1, 1};
    split_dims(self->dims, 2, cl, &n, &c, in);
    split_dims(out->dims, 2, cl, &on, &oc, o);
    ACLNN_CHECK(n == on && c == oc, ACLNN_ERR_PARAM_INVALID, "The dim of batch or channel of self and out is not matched.");
    ACLNN_CHECK(scales->size >= 4, ACLNN_ERR_PARAM_INVALID, "scales size %llu should be 4.",
                (unsigned long long)scales->size);
    const double eps = 1e-5;
    for (int k = 0; k < 2; k++) {
        const double sk = scales->v[cl ? 1 + k : 2 + k];
        const int64_t hi = upl_trunc((double)in[k] * (sk + eps)), lo = upl_trunc((double)in[k] * (sk - eps));
        ACLNN_CHECK(o[k] >= lo && o[k] <= hi, ACLNN_ERR_PARAM_INVALID,
                    "The dim of %s is not matched: out %lld, self %lld, scales %g.", k ? "width" : "height",
                    (long long)o[k], (long long)in[k], sk);
    }
    ACLNN_CHECK(scales->size == 4, ACLNN_ERR_PARAM_INVALID, "scales size %llu should be 4.",
                (unsigned long long)scales->size);
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) return acl_exec_noop(s->op, workspaceSize, executor);
    const double sc[2] = {0, 0};
    if (nearest) return publish(s, self, cl, out, cl, in, o, 0, sc, workspaceSize, executor);
    upl_spec lin = *s;
    lin.mode = UPL_LINEAR; /* ResizeBilinearV2 with half-pixel centres: the sizes decide */
    return publish(&lin, self, cl, out, cl, in, o, 0, sc, workspaceSize, executor);
}
