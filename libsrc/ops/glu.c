/* aclnnGlu and aclnnGluBackward (ops-nn activation/glu, glu_grad): self split in two halves a | b along `dim`,
 * glu = a * sigmoid(b); the backward writes d/da = g * sigmoid(b) into the first half of out and
 * d/db = g * a * sigmoid(b) * (1 - sigmoid(b)) into the second. aclnnSwiGlu / aclnnSwiGluGrad (swi_glu,
 * swi_glu_grad; no op_api source: their first phase is the one CANN generates from the op definition, so the
 * checks are nnopbase's - NULL 161001, the dtype combinations of the definition 161002 - then the shape rules of
 * the op's infershape/tiling, dim out of range 161002 as documented, an odd split or a wrong out shape 561002):
 * swiglu = swish(a) * b, and its gradient.
 *
 * Validation follows each op_api source in its order (GluBackward checks self for NULL before gradOut); the dtype
 * list is the table's (tools/optable/nn_activation.py). Compute: gathered as double (exact for every supported
 * dtype), computed in float for f32/f16/bf16 and in double for f64, rounded once to self's dtype, then cast to
 * out's (Glu's final Cast). Every output element is written by exactly one iteration: the same bytes for any
 * OMP_NUM_THREADS. */
#include <math.h>
#include <string.h>

#include "common/parallel.h"
#include "ops/gelu_math.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"
#include "ops/view_fold.h"

enum { GLU_FWD, GLU_BWD, SWIGLU_FWD, SWIGLU_BWD, GELU_MUL_ERF, GELU_MUL_TANH };

typedef struct {
    int dim, kind;
    bool backward;
} glu_params;

/* element e of the half-size shape (outer, half, inner) -> the index of a (b is half * inner further) */
static inline int64_t glu_a_index(int64_t e, int64_t half, int64_t inner) {
    const int64_t o = e / (half * inner), r = e % (half * inner);
    return o * 2 * half * inner + r;
}

static aclnnStatus glu_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const glu_params *p = ex->params;
    /* Glu: in 0 self; GluBackward: in 0 gradOut, in 1 self */
    const acl_view *x = acl_exec_in(ex, p->backward ? 1 : 0), *o = acl_exec_out(ex, 0);
    const aclDataType sdt = x->dtype;
    double *xs = md_load(x, ACL_DOUBLE);
    double *g = p->backward ? md_load(acl_exec_in(ex, 0), ACL_DOUBLE) : NULL;
    const int64_t n = md_numel(x), half = x->dims[p->dim] / 2;
    double *r = md_alloc(p->backward ? n : n / 2, sizeof(double));
    if (!xs || !r || (p->backward && !g)) {
        free(xs);
        free(g);
        free(r);
        return OOM;
    }
    int64_t inner = 1;
    for (int k = p->dim + 1; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t m = n / 2, bo = half * inner;
    const bool dbl = sdt == ACL_DOUBLE;
    ACL_FOR(acl_parallel_worth(n), e, 0, m, {
        const int64_t ia = glu_a_index(e, half, inner);
        if (p->kind >= GELU_MUL_ERF) { /* gelu(a) * b over the last dim, in float */
            const float a = (float)xs[ia], b = (float)xs[ia + bo];
            r[e] = gelu_f(a, p->kind == GELU_MUL_TANH) * b;
        } else if (p->kind >= SWIGLU_FWD) { /* swish(a) * b; all in float (f16/f32/bf16 only) */
            const float a = (float)xs[ia], b = (float)xs[ia + bo], s = 1 / (1 + expf(-a));
            if (p->kind == SWIGLU_FWD) r[e] = a * s * b;
            else {
                const float ge = (float)g[e];
                r[ia] = ge * (s + s * (1 - s) * a) * b;
                r[ia + bo] = ge * s * a;
            }
        } else if (dbl) {
            const double a = xs[ia], s = 1 / (1 + exp(-xs[ia + bo]));
            if (!p->backward) r[e] = a * s;
            else {
                r[ia] = g[e] * s;
                r[ia + bo] = g[e] * a * s * (1 - s);
            }
        } else {
            const float a = (float)xs[ia], s = 1 / (1 + expf(-(float)xs[ia + bo]));
            if (!p->backward) r[e] = a * s;
            else {
                const float ge = (float)g[e];
                r[ia] = ge * s;
                r[ia + bo] = ge * a * s * (1 - s);
            }
        }
    });
    aclnnStatus rc = md_store_via(r, ACL_DOUBLE, sdt, o);
    free(xs);
    free(g);
    free(r);
    return rc;
}

/* rank in [1, 8], dim in [-rank, rank - 1], an even size along dim; the half shape into hd */
static aclnnStatus glu_check_dim(const aclTensor *self, int64_t dim, const aclTensor *const *more,
                                 const char *const *names, int nmore, int64_t *hd, int *pdim) {
    ACL_TRY(md_check_max_dim(self, "self"));
    for (int i = 0; i < nmore; i++) ACL_TRY(md_check_max_dim(more[i], names[i]));
    ACLNN_CHECK(self->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dim, but has 0.");
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                "dim %lld is out of the range [%lld, %lld].", (long long)dim, (long long)-r, (long long)(r - 1));
    const int d = (int)(dim < 0 ? dim + r : dim);
    ACLNN_CHECK(self->dims[d] % 2 == 0, ACLNN_ERR_PARAM_INVALID,
                "the size of self along dim %lld must be even, but it is %lld.", (long long)dim,
                (long long)self->dims[d]);
    for (int k = 0; k < (int)r; k++) hd[k] = self->dims[k];
    hd[d] /= 2;
    *pdim = d;
    return ACLNN_SUCCESS;
}

static aclnnStatus glu_exec(int op, int kind, const aclTensor *g, const char *gname, const aclTensor *self,
                            const char *sname, int dim, const aclTensor *out, const char *oname, uint64_t *ws,
                            aclOpExecutor **exo) {
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, glu_run, sizeof(glu_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = g ? acl_exec_add_input(ex, g, gname, true) : ACLNN_SUCCESS;
    if (!rc) rc = acl_exec_add_input(ex, self, sname, true);
    if (!rc) rc = acl_exec_add_output(ex, out, oname);
    if (rc) return acl_exec_discard(ex, rc);
    *(glu_params *)ex->params = (glu_params){dim, kind, g != NULL};
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_Glu(const aclTensor *self, int64_t dim, const aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Glu, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Glu, "out"));
    /* any two dtypes of the (floating) list cast to each other */
    int64_t hd[ACL_MAX_TENSOR_DIMS];
    int d = 0;
    const aclTensor *more[] = {out};
    const char *names[] = {"out"};
    ACL_TRY(glu_check_dim(self, dim, more, names, 1, hd, &d));
    if (!md_shape_is(out, hd, (int)self->ndim)) {
        char a[256];
        acl_shape_str(out, a, sizeof a);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out shape %s should be self's with dim %lld halved.", a,
                          (long long)dim);
    }
    return glu_exec(ACL_OP_Glu, GLU_FWD, NULL, NULL, self, "self", d, out, "out", workspaceSize, executor);
}

aclnnStatus opws_GluBackward(const aclTensor *gradOut, const aclTensor *self, int64_t dim, const aclTensor *out,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(gradOut, "gradOut");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_GluBackward, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradOut, "gradOut"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    int64_t hd[ACL_MAX_TENSOR_DIMS];
    int d = 0;
    const aclTensor *more[] = {out, gradOut};
    const char *names[] = {"out", "gradOut"};
    ACL_TRY(glu_check_dim(self, dim, more, names, 2, hd, &d));
    if (!md_shape_is(gradOut, hd, (int)self->ndim)) {
        char a[256];
        acl_shape_str(gradOut, a, sizeof a);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "gradOut shape %s should be self's with dim %lld halved.", a,
                          (long long)dim);
    }
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    return glu_exec(ACL_OP_GluBackward, GLU_BWD, gradOut, "gradOut", self, "self", d, out, "out", workspaceSize,
                    executor);
}

/* SwiGlu / SwiGluGrad: the generated first phase */
static aclnnStatus swiglu_common(int op, int kind, const aclTensor *g, const aclTensor *x, int64_t dim,
                                 const aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    const bool bwd = kind == SWIGLU_BWD;
    if (bwd) ACL_TRY(acl_check_tensor(g, "yGrad"));
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_tensor(out, "out"));
    if (bwd) {
        ACL_TRY(acl_check_dtype_in(g, ACL_DT_LIST_SwiGluGrad, "yGrad"));
        ACL_TRY(acl_check_same_dtype(g, "yGrad", x, "x"));
        ACL_TRY(acl_check_same_dtype(g, "yGrad", out, "out"));
    } else {
        ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_SwiGlu, "x"));
        ACL_TRY(acl_check_same_dtype(x, "x", out, "out"));
    }
    ACL_TRY(md_check_max_dim(x, "x"));
    const int64_t r = (int64_t)x->ndim;
    ACLNN_CHECK(r >= 1 && dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID,
                "dim %lld is out of the range [%lld, %lld] of x.", (long long)dim, (long long)-r, (long long)(r - 1));
    const int d = (int)(dim < 0 ? dim + r : dim);
    ACLNN_CHECK(x->dims[d] % 2 == 0, ACLNN_ERR_INNER_TILING_ERROR,
                "the size of x along dim %lld must be even, but it is %lld.", (long long)dim, (long long)x->dims[d]);
    int64_t hd[ACL_MAX_TENSOR_DIMS];
    for (int k = 0; k < (int)r; k++) hd[k] = x->dims[k];
    hd[d] /= 2;
    if (bwd) {
        ACLNN_CHECK(md_shape_is(g, hd, (int)r), ACLNN_ERR_INNER_TILING_ERROR,
                    "yGrad shape should be x's with dim %lld halved.", (long long)dim);
        ACLNN_CHECK(md_shape_is(out, x->dims, (int)r), ACLNN_ERR_INNER_TILING_ERROR,
                    "out shape should be x's.");
    } else {
        ACLNN_CHECK(md_shape_is(out, hd, (int)r), ACLNN_ERR_INNER_TILING_ERROR,
                    "out shape should be x's with dim %lld halved.", (long long)dim);
    }
    return glu_exec(op, kind, g, "yGrad", x, "x", d, out, "out", ws, exo);
}

aclnnStatus opws_SwiGlu(const aclTensor *x, int64_t dim, const aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    return swiglu_common(ACL_OP_SwiGlu, SWIGLU_FWD, NULL, x, dim, out, workspaceSize, executor);
}

aclnnStatus opws_SwiGluGrad(const aclTensor *yGrad, const aclTensor *x, int64_t dim, const aclTensor *out,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    return swiglu_common(ACL_OP_SwiGluGrad, SWIGLU_BWD, yGrad, x, dim, out, workspaceSize, executor);
}

/* GeluMul: the generated first phase (NULL 161001, the definition's dtype combinations 161002), then the tiling's
 * rules (561002): approximate "none" or "tanh" (NULL: the default "none"), an even last dim, out's shape */
aclnnStatus opws_GeluMul(const aclTensor *input, char *approximateOptional, const aclTensor *out,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_GeluMul, "input"));
    ACL_TRY(acl_check_same_dtype(input, "input", out, "out"));
    ACL_TRY(md_check_max_dim(input, "input"));
    const char *ap = approximateOptional ? approximateOptional : "none";
    const bool th = strcmp(ap, "tanh") == 0;
    ACLNN_CHECK(th || strcmp(ap, "none") == 0, ACLNN_ERR_INNER_TILING_ERROR,
                "approximateOptional must be none or tanh, but is %s.", ap);
    const int r = (int)input->ndim;
    ACLNN_CHECK(r >= 1 && input->dims[r - 1] % 2 == 0, ACLNN_ERR_INNER_TILING_ERROR,
                "input's last dim must exist and be even.");
    int64_t hd[ACL_MAX_TENSOR_DIMS];
    for (int k = 0; k < r; k++) hd[k] = input->dims[k];
    hd[r - 1] /= 2;
    ACLNN_CHECK(md_shape_is(out, hd, r), ACLNN_ERR_INNER_TILING_ERROR,
                "out shape should be input's with the last dim halved.");
    return glu_exec(ACL_OP_GeluMul, th ? GELU_MUL_TANH : GELU_MUL_ERF, NULL, NULL, input, "input", r - 1, out, "out",
                    workspaceSize, executor);
}

/* ---------------------------------------------------------------- GeGlu / GeGluV3 (ge_glu_v2): x split in
 * halves along dim; the activated half h (the right one, or the left one with activateLeft) gives
 * outGelu = gelu(h) and out = gelu(h) * the other half; approximate 0 erf, 1 tanh. Computed in float, one rounding
 * per output. */
typedef struct {
    int dim;
    bool tanh_mode, left;
    int64_t half, inner; /* backward: self's dims[dim] / 2 and the product of the dims after dim */
} geglu_params;

static aclnnStatus geglu_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const geglu_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0), *og = acl_exec_out(ex, 1);
    double *xs = md_load(x, ACL_DOUBLE);
    const int64_t n = md_numel(x), half = x->dims[p->dim] / 2, m = n / 2;
    double *r = md_alloc(m, sizeof(double)), *rg = md_alloc(m, sizeof(double));
    if (!xs || !r || !rg) {
        free(xs);
        free(r);
        free(rg);
        return OOM;
    }
    int64_t inner = 1;
    for (int k = p->dim + 1; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t bo = half * inner;
    ACL_FOR(acl_parallel_worth(n), e, 0, m, {
        const int64_t ia = glu_a_index(e, half, inner);
        const float h = (float)xs[p->left ? ia : ia + bo], other = (float)xs[p->left ? ia + bo : ia];
        const float ge = gelu_f(h, p->tanh_mode);
        rg[e] = md_round(ge, x->dtype);
        r[e] = ge * other;
    });
    md_store(r, ACL_DOUBLE, o);
    md_store(rg, ACL_DOUBLE, og);
    free(xs);
    free(r);
    free(rg);
    return ACLNN_SUCCESS;
}

static aclnnStatus geglu_common(int op, const aclTensor *self, int64_t dim, int64_t approximate, bool left,
                                const aclTensor *out, const aclTensor *outGelu, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(out, "out");
    NN(outGelu, "outGelu");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_GeGlu, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_GeGlu, "out"));
    ACL_TRY(acl_check_dtype_in(outGelu, ACL_DT_LIST_GeGlu, "outGelu"));
    const bool trivial = acl_tensor_empty(self) || self->ndim == 0; /* upstream returns before the rest */
    if (!trivial) {
        ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
        ACL_TRY(acl_check_same_dtype(self, "self", outGelu, "outGelu"));
    }
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(md_check_max_dim(outGelu, "outGelu"));
    const int64_t r = self->ndim ? (int64_t)self->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    if (self->ndim == 0) return acl_exec_noop(op, ws, exo);
    const int d = (int)(dim < 0 ? dim + r : dim);
    ACLNN_CHECK(self->dims[d] % 2 == 0, ACLNN_ERR_PARAM_INVALID,
                "the size of self along dim %lld must be even, but it is %lld.", (long long)dim,
                (long long)self->dims[d]);
    int64_t hd[ACL_MAX_TENSOR_DIMS] = {0};
    for (int k = 0; k < (int)r; k++) hd[k] = self->dims[k];
    hd[d] /= 2;
    ACLNN_CHECK(md_shape_is(out, hd, (int)r), ACLNN_ERR_PARAM_INVALID,
                "out shape should be self's with dim %lld halved.", (long long)dim);
    ACLNN_CHECK(md_shape_is(outGelu, hd, (int)r), ACLNN_ERR_PARAM_INVALID,
                "outGelu shape should be self's with dim %lld halved.", (long long)dim);
    ACLNN_CHECK(approximate == 0 || approximate == 1, ACLNN_ERR_PARAM_INVALID,
                "approximate should be 0 or 1, but is %lld.", (long long)approximate);
    if (trivial) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, geglu_run, sizeof(geglu_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) rc = acl_exec_add_output(ex, outGelu, "outGelu");
    if (rc) return acl_exec_discard(ex, rc);
    *(geglu_params *)ex->params = (geglu_params){d, approximate == 1, left, 0, 0};
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_GeGlu(const aclTensor *self, int64_t dim, int64_t approximate, aclTensor *out, aclTensor *outGelu,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    return geglu_common(ACL_OP_GeGlu, self, dim, approximate, false, out, outGelu, workspaceSize, executor);
}

aclnnStatus opws_GeGluV3(const aclTensor *self, int64_t dim, int64_t approximate, bool activateLeft, aclTensor *out,
                         aclTensor *outGelu, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return geglu_common(ACL_OP_GeGluV3, self, dim, approximate, activateLeft, out, outGelu, workspaceSize, executor);
}

/* ---------------------------------------------------------------- FatreluMul (fatrelu_mul): the last dim split in
 * halves x1 | x2, out = (x1 >= threshold ? x1 : 0) * x2, threshold a one-element tensor. First phase generated
 * upstream (NULL 161001, one dtype of the list for all three 161002), then the tiling's rules (561002): input rank
 * >= 2, last dim even, non-zero and <= 1024, at most 200000 rows, a single threshold; out's shape. */
static aclnnStatus fatrelu_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *x = acl_exec_in(ex, 0), *t = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    double *xs = md_load(x, ACL_DOUBLE), *ts = md_load(t, ACL_DOUBLE);
    const int64_t n = md_numel(x), half = x->dims[x->ndim - 1] / 2, m = n / 2;
    double *r = md_alloc(m, sizeof(double));
    if (!xs || !ts || !r) {
        free(xs);
        free(ts);
        free(r);
        return OOM;
    }
    const float thr = (float)ts[0];
    ACL_FOR(acl_parallel_worth(n), e, 0, m, {
        const int64_t ia = glu_a_index(e, half, 1);
        const float a = (float)xs[ia], b = (float)xs[ia + half];
        r[e] = (a >= thr ? a : 0.0f) * b;
    });
    md_store(r, ACL_DOUBLE, o);
    free(xs);
    free(ts);
    free(r);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_FatreluMul(const aclTensor *input, const aclTensor *threshold, const aclTensor *out,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(input, "input");
    NN(threshold, "threshold");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_FatreluMul, "input"));
    ACL_TRY(acl_check_same_dtype(input, "input", threshold, "threshold"));
    ACL_TRY(acl_check_same_dtype(input, "input", out, "out"));
    ACL_TRY(md_check_max_dim(input, "input"));
    const int r = (int)input->ndim;
    ACLNN_CHECK(r >= 2, ACLNN_ERR_INNER_TILING_ERROR, "input should have at least 2 dims, but has %d.", r);
    const int64_t last = input->dims[r - 1];
    ACLNN_CHECK(last != 0, ACLNN_ERR_INNER_TILING_ERROR, "input's last dim can not be 0.");
    ACLNN_CHECK(acl_tensor_numel(threshold) == 1, ACLNN_ERR_INNER_TILING_ERROR,
                "threshold should have exactly one element.");
    ACLNN_CHECK(last <= 1024, ACLNN_ERR_INNER_TILING_ERROR, "input's last dim %lld should be at most 1024.",
                (long long)last);
    ACLNN_CHECK(last % 2 == 0, ACLNN_ERR_INNER_TILING_ERROR, "input's last dim %lld should be even.",
                (long long)last);
    const int64_t rows = acl_tensor_numel(input) / last;
    ACLNN_CHECK(rows <= 200000, ACLNN_ERR_INNER_TILING_ERROR, "input has %lld rows; at most 200000 are supported.",
                (long long)rows);
    int64_t hd[ACL_MAX_TENSOR_DIMS] = {0};
    for (int k = 0; k < r; k++) hd[k] = input->dims[k];
    hd[r - 1] /= 2;
    ACLNN_CHECK(md_shape_is(out, hd, r), ACLNN_ERR_INNER_TILING_ERROR,
                "out shape should be input's with the last dim halved.");
    if (acl_tensor_empty(input)) return acl_exec_noop(ACL_OP_FatreluMul, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_FatreluMul, fatrelu_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, input, "input", true);
    if (!rc) rc = acl_exec_add_input(ex, threshold, "threshold", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------------------------------------------------------- GeGluBackward / GeGluV3Backward (ge_glu_grad_v2):
 * with h the activated half and o the other one, d/do = g * gelu (the forward's outGelu, passed in) and
 * d/dh = g * o * gelu'(h). Computed in float, one rounding. */
static aclnnStatus geglu_bwd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const geglu_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    double *g = md_load(acl_exec_in(ex, 0), ACL_DOUBLE), *xs = md_load(x, ACL_DOUBLE);
    double *ge = md_load(acl_exec_in(ex, 2), ACL_DOUBLE);
    const int64_t n = md_numel(x), half = p->half, m = n / 2, inner = p->inner;
    double *r = md_alloc(n, sizeof(double));
    if (!g || !xs || !ge || !r) {
        free(g);
        free(xs);
        free(ge);
        free(r);
        return OOM;
    }
    const int64_t bo = half * inner;
    ACL_FOR(acl_parallel_worth(n), e, 0, m, {
        const int64_t ia = glu_a_index(e, half, inner);
        const int64_t ih = p->left ? ia : ia + bo, io = p->left ? ia + bo : ia;
        const float gg = (float)g[e], h = (float)xs[ih], ot = (float)xs[io];
        r[io] = gg * (float)ge[e];
        r[ih] = gg * ot * gelu_grad_f(h, p->tanh_mode);
    });
    md_store(r, ACL_DOUBLE, o);
    free(g);
    free(xs);
    free(ge);
    free(r);
    return ACLNN_SUCCESS;
}

static aclnnStatus geglu_bwd_common(int op, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gelu,
                                    int64_t dim, int64_t approximate, bool left, aclTensor *gradInput, uint64_t *ws,
                                    aclOpExecutor **exo) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(gelu, "gelu");
    NN(gradInput, "gradInput");
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_GeGluBackward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", gelu, "gelu"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", gradInput, "gradInput"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", gelu, "gelu"));
    ACL_TRY(acl_check_same_shape(self, "self", gradInput, "gradInput"));
    const int64_t r = self->ndim ? (int64_t)self->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    const int d = (int)(dim < 0 ? dim + r : dim);
    ACLNN_CHECK(gradOutput->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID,
                "gradOutput and self must have the same number of dims.");
    bool ok = true;
    for (int k = 0; k < (int)self->ndim; k++)
        ok = ok && (k == d ? gradOutput->dims[k] * 2 == self->dims[k] : gradOutput->dims[k] == self->dims[k]);
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "gradOutput shape should be self's with dim %lld halved.",
                (long long)dim);
    ACLNN_CHECK(approximate == 0 || approximate == 1, ACLNN_ERR_PARAM_INVALID,
                "approximate should be 0 or 1, but is %lld.", (long long)approximate);
    if (acl_tensor_empty(gradOutput) || self->ndim == 0) return acl_exec_noop(op, ws, exo);
    /* the op_api has no rank limit: the kernel pairs elements by row-major position (half and inner below), so each
     * tensor of more than 8 dims runs as its own folded view */
    int64_t inner = 1;
    for (int k = d + 1; k < (int)self->ndim; k++) inner *= self->dims[k];
    const aclTensor *ts[4] = {gradOutput, self, gelu, gradInput}, *use[4];
    static const char *const tn[4] = {"gradOutput", "self", "gelu", "gradInput"};
    aclTensor fold[4];
    for (int i = 0; i < 4; i++) ACL_TRY(vf_fit(ts[i], tn[i], &fold[i], &use[i]));
    aclOpExecutor *ex = acl_exec_create(op, geglu_bwd_run, sizeof(geglu_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, use[0], "gradOutput", true);
    if (!rc) rc = acl_exec_add_input(ex, use[1], "self", true);
    if (!rc) rc = acl_exec_add_input(ex, use[2], "gelu", true);
    if (!rc) rc = acl_exec_add_output(ex, use[3], "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(geglu_params *)ex->params = (geglu_params){d, approximate == 1, left, self->dims[d] / 2, inner};
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_GeGluBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gelu, int64_t dim,
                               int64_t approximate, aclTensor *gradInput, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    return geglu_bwd_common(ACL_OP_GeGluBackward, gradOutput, self, gelu, dim, approximate, false, gradInput,
                            workspaceSize, executor);
}

aclnnStatus opws_GeGluV3Backward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *gelu,
                                 int64_t dim, int64_t approximate, bool activateLeft, aclTensor *gradInput,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    return geglu_bwd_common(ACL_OP_GeGluV3Backward, gradOutput, self, gelu, dim, approximate, activateLeft,
                            gradInput, workspaceSize, executor);
}
