/* aclnnGeluBackwardV2 (ops-nn activation/gelu_grad_v2): the gradient of gelu in its exact ("none", erf) or "tanh"
 * form; gradOutput and self broadcast, computed in their promoted dtype, which gradInput must have.
 *
 * Validation follows the op_api source in its order (NULLs with approximate last, the promotion and its list,
 * gradInput's dtype, the broadcast and gradInput's shape, then the approximate string). Compute: the broadcast
 * views gathered as double after the Cast to the promoted dtype, computed in float (every promoted dtype of the list
 * is f32/f16/bf16), rounded once; contiguous fp32 operands of one shape run in place, the loop compiled per SIMD level
 * (gelu_math.h over kernels/vmath.h: the same bytes at every level). One owner per output element: the same bytes
 * for any OMP_NUM_THREADS. */
#include <math.h>
#include <string.h>

#include "common/cpu.h"
#include "common/parallel.h"
#include "ops/gelu_math.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"
#include "ops/view_fold.h"

typedef struct {
    bool tanh_mode;
    aclDataType pdt;
} gbv2_params;

/* fp32, contiguous, no broadcast: the loop once per SIMD level (the same float operations at every level) */
static inline __attribute__((always_inline)) void gbv2_body(int64_t n, const float *g, const float *x, float *y,
                                                            bool th) {
    if (th) {
#pragma omp simd
        for (int64_t i = 0; i < n; i++) y[i] = g[i] * gelu_grad_f(x[i], true);
    } else {
#pragma omp simd
        for (int64_t i = 0; i < n; i++) y[i] = g[i] * gelu_grad_f(x[i], false);
    }
}

typedef void (*gbv2_fn)(int64_t n, const float *g, const float *x, float *y, bool th);
static void gbv2_portable(int64_t n, const float *g, const float *x, float *y, bool th) { gbv2_body(n, g, x, y, th); }
#if defined(__x86_64__) && defined(__GNUC__)
__attribute__((target("avx2"))) static void gbv2_avx2(int64_t n, const float *g, const float *x, float *y, bool th) {
    gbv2_body(n, g, x, y, th);
}
__attribute__((target("avx512f,avx512dq,avx512bw,avx512vl,prefer-vector-width=512"))) static void
gbv2_avx512(int64_t n, const float *g, const float *x, float *y, bool th) {
    gbv2_body(n, g, x, y, th);
}
#endif

static gbv2_fn gbv2_level_fn(void) {
#if defined(__x86_64__) && defined(__GNUC__)
    const int lv = acl_simd_level();
    if (lv >= ACL_SIMD_AVX512) return gbv2_avx512;
    if (lv >= ACL_SIMD_AVX2) return gbv2_avx2;
#endif
    return gbv2_portable;
}

/* a float32 view with out's dims, row-major contiguous */
static bool gbv2_flat_f32(const acl_view *v, const acl_view *o) {
    if (v->dtype != ACL_FLOAT || v->ndim != o->ndim) return false;
    int64_t want = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        if (v->dims[k] != o->dims[k]) return false;
        if (v->dims[k] != 1 && v->strides[k] != want) return false;
        want *= v->dims[k];
    }
    return true;
}

static aclnnStatus gbv2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gbv2_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    if (gbv2_flat_f32(acl_exec_in(ex, 0), o) && gbv2_flat_f32(acl_exec_in(ex, 1), o) && gbv2_flat_f32(o, o)) {
        const float *g = (const float *)acl_exec_in(ex, 0)->base, *x = (const float *)acl_exec_in(ex, 1)->base;
        float *y = (float *)o->base;
        const int64_t n = md_numel(o), chunk = 4096, units = (n + chunk - 1) / chunk;
        const gbv2_fn fn = gbv2_level_fn();
        const bool th = p->tanh_mode;
        ACL_FOR(acl_parallel_worth(n), u, 0, units, {
            const int64_t s = u * chunk, len = n - s < chunk ? n - s : chunk;
            fn(len, g + s, x + s, y + s, th);
        });
        return ACLNN_SUCCESS;
    }
    const acl_view gv = md_broadcast_view(acl_exec_in(ex, 0), o->dims, o->ndim);
    const acl_view xv = md_broadcast_view(acl_exec_in(ex, 1), o->dims, o->ndim);
    double *g = md_load_via(&gv, p->pdt, ACL_DOUBLE), *x = md_load_via(&xv, p->pdt, ACL_DOUBLE);
    if (!g || !x) {
        free(g);
        free(x);
        return OOM;
    }
    const int64_t n = md_numel(o);
    const bool th = p->tanh_mode;
    ACL_FOR(acl_parallel_worth(n), i, 0, n,
        x[i] = (float)g[i] * gelu_grad_f((float)x[i], th););
    aclnnStatus rc = md_store_via(x, ACL_DOUBLE, p->pdt, o);
    free(g);
    free(x);
    return rc;
}

aclnnStatus opws_GeluBackwardV2(const aclTensor *gradOutput, const aclTensor *self, char *approximate,
                                aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(gradInput, "gradInput");
    ACLNN_CHECK(approximate != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "approximate only supports to set none or tanh, but got null.");
    const aclDataType pdt = acl_promote(gradOutput->dtype, self->dtype);
    ACLNN_CHECK(pdt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID,
                "gradOutput dtype %s and self dtype %s can not be promoted.", acl_dtype_name(gradOutput->dtype),
                acl_dtype_name(self->dtype));
    ACLNN_CHECK(md_dt_in(pdt, ACL_DT_LIST_GeluBackwardV2), ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s of gradOutput and self is not supported.", acl_dtype_name(pdt));
    ACLNN_CHECK(pdt == gradInput->dtype, ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s of gradOutput and self does not match gradInput dtype %s.",
                acl_dtype_name(pdt), acl_dtype_name(gradInput->dtype));
    int64_t bd[ACL_MAX_TENSOR_DIMS];
    int bn = 0;
    ACLNN_CHECK(md_broadcast(gradOutput->dims, (int)gradOutput->ndim, self->dims, (int)self->ndim, bd, &bn),
                ACLNN_ERR_PARAM_INVALID, "the shapes of gradOutput and self can not broadcast.");
    if (!md_shape_is(gradInput, bd, bn)) {
        char a[256];
        acl_shape_str(gradInput, a, sizeof a);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                          "gradInput shape %s should be the broadcast shape of gradOutput and self.", a);
    }
    const bool th = strcmp(approximate, "tanh") == 0;
    ACLNN_CHECK(th || strcmp(approximate, "none") == 0, ACLNN_ERR_PARAM_INVALID,
                "approximate only supports to set none or tanh, but got %s.", approximate);
    if (acl_tensor_empty(self) || acl_tensor_empty(gradOutput))
        return acl_exec_noop(ACL_OP_GeluBackwardV2, workspaceSize, executor);
    /* the op_api has no rank limit: more than 8 dims run as the operands' joint folded views */
    const aclTensor *ts[3] = {gradOutput, self, gradInput}, *use[3];
    aclTensor fold[3];
    ACL_TRY(vf_fit_joint(ts, 3, gradInput->dims, (int)gradInput->ndim, "gradOutput, self and gradInput", fold, use));
    aclOpExecutor *ex = acl_exec_create(ACL_OP_GeluBackwardV2, gbv2_run, sizeof(gbv2_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, use[0], "gradOutput", true);
    if (!rc) rc = acl_exec_add_input(ex, use[1], "self", true);
    if (!rc) rc = acl_exec_add_output(ex, use[2], "gradInput");
    if (rc) return acl_exec_discard(ex, rc);
    *(gbv2_params *)ex->params = (gbv2_params){th, pdt};
    return acl_exec_publish(ex, workspaceSize, executor);
}
