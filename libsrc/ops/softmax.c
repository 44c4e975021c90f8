/* The softmax family over one dim: Softmax, LogSoftmax and their backward ops (ops-nn activation/softmax_v2,
 * log_softmax_v2, softmax_grad, log_softmax_grad).
 *
 * Validation follows each op_api source check by check (its own order: LogSoftmax checks dim before the dtypes,
 * LogSoftmaxBackward checks `output` for NULL first and the shapes before dim); the dtype lists are the table's
 * (tools/optable/nn_activation.py, ACL_DT_LIST_<Name>). Compute: the inputs are gathered as double (exact for every
 * supported dtype) after the op's own Cast, each line along `dim` is owned by one thread and computed in a fixed
 * order, in float for f32/f16/bf16 and in double for f64; the result is rounded once to the op's compute dtype and
 * then cast to out's dtype (the op's final Cast). The same bytes for any OMP_NUM_THREADS. */
#include <math.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

enum { SM_FWD, SM_LOG, SM_BWD, SM_LOG_BWD };

typedef struct {
    int kind, dim;
    aclDataType cdt; /* the dtype the kernel computes in (its input after the op's Cast) */
} sm_params;

/* One line of n elements at x[0], x[step], ... (g: the gradient line for the backward kinds); the result
 * replaces x. T is the accumulation type. */
#define SM_LINE(NAME, T, EXP, LOG)                                                                        \
    static void NAME(int kind, double *x, const double *g, int64_t step, int64_t n) {                    \
        if (kind == SM_FWD || kind == SM_LOG) {                                                           \
            T m = (T)x[0];                                                                                \
            bool nan = false;                                                                             \
            for (int64_t i = 0; i < n; i++) {                                                             \
                const T v = (T)x[i * step];                                                               \
                if (v != v) nan = true;                                                                   \
                else if (v > m || m != m) m = v;                                                          \
            }                                                                                             \
            if (nan) {                                                                                    \
                for (int64_t i = 0; i < n; i++) x[i * step] = NAN;                                        \
                return;                                                                                   \
            }                                                                                             \
            T s = 0;                                                                                      \
            for (int64_t i = 0; i < n; i++) s += EXP((T)x[i * step] - m);                                 \
            if (kind == SM_FWD)                                                                           \
                for (int64_t i = 0; i < n; i++) x[i * step] = (double)(EXP((T)x[i * step] - m) / s);     \
            else {                                                                                        \
                const T ls = LOG(s);                                                                      \
                for (int64_t i = 0; i < n; i++) x[i * step] = (double)((T)x[i * step] - m - ls);         \
            }                                                                                             \
        } else if (kind == SM_BWD) { /* y * (g - sum(g * y)) */                                          \
            T s = 0;                                                                                      \
            for (int64_t i = 0; i < n; i++) s += (T)g[i * step] * (T)x[i * step];                         \
            for (int64_t i = 0; i < n; i++) x[i * step] = (double)((T)x[i * step] * ((T)g[i * step] - s)); \
        } else { /* g - exp(y) * sum(g) */                                                                \
            T s = 0;                                                                                      \
            for (int64_t i = 0; i < n; i++) s += (T)g[i * step];                                          \
            for (int64_t i = 0; i < n; i++) x[i * step] = (double)((T)g[i * step] - EXP((T)x[i * step]) * s); \
        }                                                                                                 \
    }
SM_LINE(sm_line_f32, float, expf, logf)
SM_LINE(sm_line_f64, double, exp, log)
#undef SM_LINE

static aclnnStatus sm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sm_params *p = ex->params;
    const bool bwd = p->kind == SM_BWD || p->kind == SM_LOG_BWD;
    /* forward: in 0 is self; backward: in 0 gradOutput, in 1 output (the line the result replaces) */
    const acl_view *x = acl_exec_in(ex, bwd ? 1 : 0), *o = acl_exec_out(ex, 0);
    const int64_t n = md_numel(x);
    double *buf = md_load_via(x, p->cdt, ACL_DOUBLE);
    double *g = bwd ? md_load_via(acl_exec_in(ex, 0), p->cdt, ACL_DOUBLE) : NULL;
    if (!buf || (bwd && !g)) {
        free(buf);
        free(g);
        return OOM;
    }
    int64_t outer = 1, inner = 1;
    const int64_t len = x->ndim ? x->dims[p->dim] : 1;
    for (int k = 0; k < p->dim; k++) outer *= x->dims[k];
    for (int k = p->dim + 1; k < x->ndim; k++) inner *= x->dims[k];
    const int64_t lines = outer * inner;
    const bool dbl = p->cdt == ACL_DOUBLE;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(n) && lines > 1)
    for (int64_t l = 0; l < lines; l++) {
        const int64_t b = (l / inner) * len * inner + l % inner;
        if (dbl) sm_line_f64(p->kind, buf + b, g ? g + b : NULL, inner, len);
        else sm_line_f32(p->kind, buf + b, g ? g + b : NULL, inner, len);
    }
    aclnnStatus rc = md_store_via(buf, ACL_DOUBLE, p->cdt, o);
    free(buf);
    free(g);
    return rc;
}

static aclnnStatus sm_exec(int op, int kind, const aclTensor *a, const char *an, const aclTensor *b,
                           const char *bn, int64_t dim, aclDataType cdt, aclTensor *out, uint64_t *ws,
                           aclOpExecutor **exo) {
    const int64_t r = (int64_t)a->ndim;
    aclOpExecutor *ex = acl_exec_create(op, sm_run, sizeof(sm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, a, an, true);
    if (!rc && b) rc = acl_exec_add_input(ex, b, bn, true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(sm_params *)ex->params = (sm_params){kind, (int)(r ? (dim < 0 ? dim + r : dim) : 0), cdt};
    return acl_exec_publish(ex, ws, exo);
}

/* dim in [-rank, rank - 1], a 0-d tensor counting as 1-d */
static aclnnStatus sm_check_dim(const aclTensor *t, int64_t dim) {
    const int64_t r = t->ndim ? (int64_t)t->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Softmax(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Softmax, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Softmax, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Softmax, "out"));
    ACL_TRY(sm_check_dim(self, dim));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    /* computed in self's dtype, then cast to out's */
    return sm_exec(ACL_OP_Softmax, SM_FWD, self, "self", NULL, NULL, dim, self->dtype, out, workspaceSize, executor);
}

aclnnStatus opws_LogSoftmax(const aclTensor *self, int64_t dim, aclTensor *out, uint64_t *workspaceSize,
                            aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(sm_check_dim(self, dim));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LogSoftmax, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_LogSoftmax, "out"));
    /* upstream's promotion check (out's dtype castable to self's and out's) holds for any two of the float list */
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_LogSoftmax, workspaceSize, executor);
    /* self is cast to out's dtype and computed there */
    return sm_exec(ACL_OP_LogSoftmax, SM_LOG, self, "self", NULL, NULL, dim, out->dtype, out, workspaceSize,
                   executor);
}

aclnnStatus opws_SoftmaxBackward(const aclTensor *gradOutput, const aclTensor *output, int64_t dim, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(output, "output");
    NN(out, "out");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(output))
        return acl_exec_noop(ACL_OP_SoftmaxBackward, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_SoftmaxBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_SoftmaxBackward, "output"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(sm_check_dim(gradOutput, dim));
    ACL_TRY(md_check_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", out, "out"));
    /* out's dtype is not checked upstream: the result is cast to it */
    return sm_exec(ACL_OP_SoftmaxBackward, SM_BWD, gradOutput, "gradOutput", output, "output", dim,
                   gradOutput->dtype, out, workspaceSize, executor);
}

aclnnStatus opws_LogSoftmaxBackward(const aclTensor *gradOutput, const aclTensor *output, int64_t dim,
                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(output, "output");
    NN(gradOutput, "gradOutput");
    NN(out, "out");
    if (acl_tensor_empty(gradOutput) || acl_tensor_empty(output))
        return acl_exec_noop(ACL_OP_LogSoftmaxBackward, workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_LogSoftmaxBackward, "output"));
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_LogSoftmaxBackward, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(md_check_max_dim(gradOutput, "gradOutput"));
    ACL_TRY(md_check_max_dim(output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", output, "output"));
    ACL_TRY(acl_check_same_shape(gradOutput, "gradOutput", out, "out"));
    ACL_TRY(sm_check_dim(gradOutput, dim));
    return sm_exec(ACL_OP_LogSoftmaxBackward, SM_LOG_BWD, gradOutput, "gradOutput", output, "output", dim,
                   gradOutput->dtype, out, workspaceSize, executor);
}
