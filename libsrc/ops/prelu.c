/* aclnnPrelu (ops-nn activation/p_relu): out = self > 0 ? self : w * self, w one value per channel (dim 1 of
 * self; a single value for all when weight has one element or self has at most one dim).
 *
 * Validation follows the op_api source in its order (NULLs, the three dtype lists, the promotion of self and
 * weight and its cast to out, ranks, out's shape, weight's size); the list is the table's
 * (tools/optable/nn_activation.py). Compute: both gathered as double after the op's Cast to the promoted dtype,
 * computed in float for f32/f16/bf16, rounded once to the promoted dtype, then cast to out's. One owner per output
 * element: the same bytes for any OMP_NUM_THREADS. */
#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

typedef struct {
    aclDataType pdt; /* the promoted dtype the kernel computes in */
} prelu_params;

static aclnnStatus prelu_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const prelu_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *w = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    double *xs = md_load_via(x, p->pdt, ACL_DOUBLE), *ws_ = md_load_via(w, p->pdt, ACL_DOUBLE);
    if (!xs || !ws_) {
        free(xs);
        free(ws_);
        return OOM;
    }
    const int64_t n = md_numel(x), nw = md_numel(w);
    const int64_t c = x->ndim > 1 ? x->dims[1] : 1;
    int64_t inner = 1;
    for (int k = 2; k < x->ndim; k++) inner *= x->dims[k];
    const bool dbl = p->pdt == ACL_DOUBLE;
    ACL_FOR(acl_parallel_worth(n), i, 0, n, {
        const double wv = ws_[nw == 1 ? 0 : (i / inner) % c];
        if (dbl) xs[i] = xs[i] > 0 ? xs[i] : wv * xs[i];
        else {
            const float v = (float)xs[i];
            xs[i] = v > 0 ? v : (float)wv * v;
        }
    });
    aclnnStatus rc = md_store_via(xs, ACL_DOUBLE, p->pdt, o);
    free(xs);
    free(ws_);
    return rc;
}

aclnnStatus opws_Prelu(const aclTensor *self, const aclTensor *weight, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(self, "self");
    NN(weight, "weight");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Prelu, "self"));
    ACL_TRY(acl_check_dtype_in(weight, ACL_DT_LIST_Prelu, "weight"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Prelu, "out"));
    const aclDataType pdt = acl_promote(self->dtype, weight->dtype);
    ACLNN_CHECK(pdt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "self dtype %s and weight dtype %s can not promote.",
                acl_dtype_name(self->dtype), acl_dtype_name(weight->dtype));
    ACLNN_CHECK(acl_can_cast(pdt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s can't be cast to out dtype %s.", acl_dtype_name(pdt),
                acl_dtype_name(out->dtype));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(weight, "weight"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    const int64_t c = self->ndim <= 1 ? 1 : self->dims[1], nw = acl_tensor_numel(weight);
    ACLNN_CHECK(nw == c || nw == 1, ACLNN_ERR_PARAM_INVALID,
                "weight has %lld elements; expected 1 or the number of input channels %lld.", (long long)nw,
                (long long)c);
    if (acl_tensor_empty(self) || acl_tensor_empty(weight))
        return acl_exec_noop(ACL_OP_Prelu, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Prelu, prelu_run, sizeof(prelu_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    ((prelu_params *)ex->params)->pdt = pdt;
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnPreluBackward (p_relu_grad_update):
 * gradInput = self > 0 ? g : w * g; gradWeight[c] = sum over channel c of (self > 0 ? 0 : self * g), one weight:
 * the sum over everything. gradOutput broadcasts to self's shape. Elementwise in float; each weight's sum owned by
 * one thread, accumulated in double in index order, rounded once: the same bytes for any OMP_NUM_THREADS. */
static aclnnStatus prelu_bwd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *x = acl_exec_in(ex, 1), *w = acl_exec_in(ex, 2);
    const acl_view *gi = acl_exec_out(ex, 0), *gw = acl_exec_out(ex, 1);
    const acl_view gv = md_broadcast_view(acl_exec_in(ex, 0), x->dims, x->ndim);
    double *g = md_load(&gv, ACL_DOUBLE), *xs = md_load(x, ACL_DOUBLE), *wv = md_load(w, ACL_DOUBLE);
    const int64_t n = md_numel(x), nw = md_numel(w);
    double *sw = md_alloc(nw, sizeof(double));
    if (!g || !xs || !wv || !sw) {
        free(g);
        free(xs);
        free(wv);
        free(sw);
        return OOM;
    }
    const int64_t c = nw == 1 ? 1 : x->dims[1];
    int64_t inner = 1;
    if (nw != 1)
        for (int k = 2; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t outer = n / (c * inner);
    ACL_FOR(acl_parallel_worth(n) && c > 1, ch, 0, c, {
        double acc = 0;
        const float wc = (float)wv[ch];
        for (int64_t o = 0; o < outer; o++)
            for (int64_t i = 0; i < inner; i++) {
                const int64_t e = (o * c + ch) * inner + i;
                const float xv = (float)xs[e], gg = (float)g[e];
                if (!(xv > 0)) acc += (double)(xv * gg);
                g[e] = xv > 0 ? gg : wc * gg;
            }
        sw[ch] = acc;
    });
    md_store(g, ACL_DOUBLE, gi);
    md_store(sw, ACL_DOUBLE, gw);
    free(g);
    free(xs);
    free(wv);
    free(sw);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_PreluBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *weight,
                               aclTensor *gradInput, aclTensor *gradWeight, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(weight, "weight");
    NN(gradInput, "gradInput");
    NN(gradWeight, "gradWeight");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_PreluBackward, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(self, "self", weight, "weight"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradInput, "gradInput"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradWeight, "gradWeight"));
    ACL_TRY(md_check_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(weight, "weight"));
    ACL_TRY(md_check_max_dim(gradInput, "gradInput"));
    ACL_TRY(md_check_max_dim(gradWeight, "gradWeight"));
    ACL_TRY(acl_check_same_shape(self, "self", gradInput, "gradInput"));
    const int64_t nw = acl_tensor_numel(weight);
    if (nw != 1) {
        ACLNN_CHECK(self->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "self must have at least 1 dim.");
        const int64_t c = self->ndim > 1 ? self->dims[1] : 1;
        ACLNN_CHECK(nw == c, ACLNN_ERR_PARAM_INVALID,
                    "the number of weight elements (%lld) must be 1 or self's channel size %lld.", (long long)nw,
                    (long long)c);
        ACLNN_CHECK(md_shape_is(gradWeight, &c, 1), ACLNN_ERR_PARAM_INVALID, "gradWeight should have shape (%lld).",
                    (long long)c);
    } else {
        ACL_TRY(acl_check_same_shape(weight, "weight", gradWeight, "gradWeight"));
    }
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int bn = 0;
    ACLNN_CHECK(md_broadcast(self->dims, (int)self->ndim, gradOutput->dims, (int)gradOutput->ndim, bd, &bn) &&
                    md_shape_is(self, bd, bn),
                ACLNN_ERR_PARAM_INVALID, "gradOutput should broadcast to self's shape.");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(self) || acl_tensor_empty(weight))
        return acl_exec_noop(ACL_OP_PreluBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_PreluBackward, prelu_bwd_run, 0);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, gradOutput, "gradOutput", true);
    if (!rc) rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_input(ex, weight, "weight", true);
    if (!rc) rc = acl_exec_add_output(ex, gradInput, "gradInput");
    if (!rc) rc = acl_exec_add_output(ex, gradWeight, "gradWeight");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
