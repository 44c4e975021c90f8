/* The tensor-list optimizer updates of ops-nn optim/: aclnnFusedAdamw (fused_adamw) and aclnnFusedSgd (fused_sgd).
 * Every tensor of every list is an executor input in API order (then the optional scalar tensors); tensor i of
 * each list is updated in place through its view, in float32, rounded once into its dtype (optim_plan.c).
 *
 * aclnnFusedAdamw, per tensor i with t = stateSteps[i] + 1 (the steps are read, not written; f32 or i64):
 *   foundInf given (non-empty) and equal to 1.0: nothing is written at all
 *   g = grad / gradScale (gradScale given, non-empty);  g = maximize ? -g : g;  p *= 1 - lr*wd
 *   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  amsgrad: maxv = max(maxv, v) (written)
 *   p -= (lr/(1 - b1^t)) * m / (sqrt(amsgrad ? maxv : v) / sqrt(1 - b2^t) + eps)
 *   lr, beta1, beta2, weightDecay, eps are used as float32 (the op_api casts them).
 * aclnnFusedSgd, per tensor:
 *   g = grad / gradScale, written back to gradsRef when gradScale is given (non-empty)
 *   g = maximize ? -g : g;  g += wd*p
 *   momentum list given: buf = isFirstStep ? g : momentum*buf + (1-dampening)*g (written);
 *     g = nesterov ? g + momentum*buf : buf
 *   p -= lr*g */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"
#include "ops/optim_plan.h"
#include "ops/view_fold.h"

typedef struct {
    int64_t n;
    int nlists;    /* tensor lists added (each n tensors) */
    int scale_in;  /* input index of gradScale, -1 */
    int inf_in;    /* input index of foundInf, -1 */
    bool amsgrad, maximize, has_max, has_mom, nesterov, first;
    float lr, b1, b2, wd, eps, momentum, damp;
} fused_params;

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

static aclnnStatus check_list_elems(const aclTensorList *l, const char *name) {
    for (uint64_t i = 0; i < l->size; i++)
        ACLNN_CHECK(l->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s[%llu] must not be NULL.", name,
                    (unsigned long long)i);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_list(const aclTensorList *l, const char *name) {
    ACLNN_CHECK(l != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return check_list_elems(l, name);
}

static aclnnStatus check_count(const aclTensorList *l, const char *name, const aclTensorList *p, const char *pn) {
    ACLNN_CHECK(l->size == p->size, ACLNN_ERR_PARAM_INVALID,
                "%s has %llu tensors, %s has %llu: the counts must match.", name, (unsigned long long)l->size, pn,
                (unsigned long long)p->size);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_list_dtype(const aclTensorList *l, const char *name, aclDataType dt, const char *pn) {
    for (uint64_t i = 0; i < l->size; i++)
        ACLNN_CHECK(l->v[i]->dtype == dt, ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same dtype: %s[%llu] is %s, %s[0] is %s.", name,
                    (unsigned long long)i, acl_dtype_name(l->v[i]->dtype), pn, acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

static aclnnStatus check_list_shape(const aclTensorList *l, const char *name, const aclTensorList *p,
                                    const char *pn) {
    for (uint64_t i = 0; i < l->size; i++)
        ACLNN_CHECK(same_shape(l->v[i], p->v[i]), ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same shape: %s[%llu] differs from %s[%llu].", name,
                    (unsigned long long)i, pn, (unsigned long long)i);
    return ACLNN_SUCCESS;
}

static aclnnStatus add_list(aclOpExecutor *ex, const aclTensorList *l, const char *name) {
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < l->size && !rc; i++) rc = acl_exec_add_input(ex, l->v[i], name, !acl_tensor_empty(l->v[i]));
    return rc;
}

/* The lists' tensors as inputs, list by list in API order (add_list); the tensors of an index where one has more
 * than 8 dims (the op_api has no rank limit) go in as their joint folded views (ops/view_fold.h). */
static aclnnStatus add_lists_folded(aclOpExecutor *ex, const aclTensorList *const *ls, const char *const *names,
                                    int nl) {
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int k = 0; k < nl && !rc; k++)
        for (uint64_t i = 0; i < ls[0]->size && !rc; i++) {
            const aclTensor *ts[5], *use[5], *p = ls[0]->v[i];
            aclTensor fold[5];
            for (int j = 0; j < nl; j++) ts[j] = ls[j]->v[i];
            rc = vf_fit_joint(ts, nl, p->dims, (int)p->ndim, "paramsRef and the tensors of its index", fold, use);
            if (!rc) rc = acl_exec_add_input(ex, use[k], names[k], !acl_tensor_empty(ts[k]));
        }
    return rc;
}

/* ---------------- aclnnFusedAdamw ---------------- */

/* slots: param, grad, m, v, maxv; sc: lr, b1, b2, wd, eps, maximize, amsgrad, step size, 1/sqrt(bc2), 1/gradScale */
static void fadamw_kernel(int64_t n, float *const *b, const float *sc) {
    float *p = b[0], *m = b[2], *v = b[3], *mx = b[4];
    const float *gr = b[1];
    const float lr = sc[0], b1 = sc[1], b2 = sc[2], wd = sc[3], eps = sc[4];
    const bool maxi = sc[5] != 0.0f, ams = sc[6] != 0.0f;
    const float step = sc[7], rbc2 = sc[8], ginv = sc[9], decay = 1.0f - lr * wd;
    for (int64_t i = 0; i < n; i++) {
        float g = gr[i] * ginv;
        if (maxi) g = -g;
        const float pt = wd != 0.0f ? p[i] * decay : p[i];
        const float mo = m[i] * b1 + g * (1.0f - b1);
        const float vo = v[i] * b2 + (g * g) * (1.0f - b2);
        float d;
        if (ams) {
            mx[i] = fmaxf(mx[i], vo);
            d = sqrtf(mx[i]) * rbc2 + eps;
        } else {
            d = sqrtf(vo) * rbc2 + eps;
        }
        p[i] = pt - (mo * step) / d;
        m[i] = mo;
        v[i] = vo;
    }
}

static aclnnStatus fadamw_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fused_params *p = ex->params;
    if (p->inf_in >= 0 && (float)opt_elem(acl_exec_in(ex, p->inf_in), 0) == 1.0f) return ACLNN_SUCCESS;
    const float ginv = p->scale_in >= 0 ? 1.0f / (float)opt_elem(acl_exec_in(ex, p->scale_in), 0) : 1.0f;
    const int64_t n = p->n;
    const int steps = p->has_max ? 5 : 4;
    for (int64_t i = 0; i < n; i++) {
        const float t = (float)opt_elem(acl_exec_in(ex, (int)(steps * n + i)), 0) + 1.0f;
        const float bc1 = 1.0f - powf(p->b1, t), bc2 = 1.0f - powf(p->b2, t);
        const float sc[10] = {p->lr, p->b1, p->b2, p->wd, p->eps, p->maximize, p->amsgrad, p->lr / bc1,
                              1.0f / sqrtf(bc2), ginv};
        const acl_view *pv = acl_exec_in(ex, (int)i), *g = acl_exec_in(ex, (int)(n + i));
        const acl_view *m = acl_exec_in(ex, (int)(2 * n + i)), *v = acl_exec_in(ex, (int)(3 * n + i));
        const acl_view *mx = p->amsgrad ? acl_exec_in(ex, (int)(4 * n + i)) : NULL;
        const acl_view *rd[5] = {pv, g, m, v, mx}, *wr[5] = {pv, NULL, m, v, mx};
        ACL_TRY(opt_apply(rd, wr, 5, fadamw_kernel, sc));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_FusedAdamw(const aclTensorList *paramsRef, const aclTensorList *grads,
                            const aclTensorList *expAvgsRef, const aclTensorList *expAvgSqsRef,
                            const aclTensorList *maxExpAvgSqsRef, const aclTensorList *stateSteps,
                            const aclTensor *gradScaleOptional, const aclTensor *foundInfOptional, double lr,
                            double beta1, double beta2, double weightDecay, double eps, bool amsgrad, bool maximize,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* attributes first, as the op_api checks them */
    ACLNN_CHECK(lr >= 0, ACLNN_ERR_PARAM_INVALID, "The lr[%f] should be greater or equal than 0.", lr);
    ACLNN_CHECK(beta1 >= 0, ACLNN_ERR_PARAM_INVALID, "The beta1[%f] should be greater or equal than 0.", beta1);
    ACLNN_CHECK(beta2 >= 0, ACLNN_ERR_PARAM_INVALID, "The beta2[%f] should be greater or equal than 0.", beta2);
    ACLNN_CHECK(weightDecay >= 0, ACLNN_ERR_PARAM_INVALID,
                "The weightDecay[%f] should be greater or equal than 0.", weightDecay);
    ACLNN_CHECK(!amsgrad || maxExpAvgSqsRef != NULL, ACLNN_ERR_PARAM_INVALID,
                "When amsgrad is true, maxExpAvgSqsRef should not be nullptr.");
    ACL_TRY(check_list(paramsRef, "paramsRef"));
    ACL_TRY(check_list(grads, "grads"));
    ACL_TRY(check_list(expAvgsRef, "expAvgsRef"));
    ACL_TRY(check_list(expAvgSqsRef, "expAvgSqsRef"));
    ACL_TRY(check_list(stateSteps, "stateSteps"));
    if (maxExpAvgSqsRef) ACL_TRY(check_list_elems(maxExpAvgSqsRef, "maxExpAvgSqsRef"));
    ACLNN_CHECK(paramsRef->size > 0, ACLNN_ERR_PARAM_INVALID, "paramsRef tensor list is empty.");
    ACL_TRY(check_count(grads, "grads", paramsRef, "paramsRef"));
    ACL_TRY(check_count(expAvgsRef, "expAvgsRef", paramsRef, "paramsRef"));
    ACL_TRY(check_count(expAvgSqsRef, "expAvgSqsRef", paramsRef, "paramsRef"));
    ACL_TRY(check_count(stateSteps, "stateSteps", paramsRef, "paramsRef"));
    if (maxExpAvgSqsRef) ACL_TRY(check_count(maxExpAvgSqsRef, "maxExpAvgSqsRef", paramsRef, "paramsRef"));
    const aclDataType dt = paramsRef->v[0]->dtype, sdt = stateSteps->v[0]->dtype;
    ACL_TRY(acl_check_dtype_in(paramsRef->v[0], ACL_DT_LIST_FusedAdamw, "paramsRef"));
    ACL_TRY(acl_check_dtype_in(stateSteps->v[0], ACL_DT_LIST_FusedAdamw_stateSteps, "stateSteps"));
    ACL_TRY(check_list_dtype(stateSteps, "stateSteps", sdt, "stateSteps"));
    for (uint64_t i = 0; i < paramsRef->size; i++) {
        const aclTensorList *ls[4] = {paramsRef, grads, expAvgsRef, expAvgSqsRef};
        static const char *const ln[4] = {"paramsRef", "grads", "expAvgsRef", "expAvgSqsRef"};
        for (int l = 0; l < 4; l++)
            ACLNN_CHECK(ls[l]->v[i]->dtype == dt, ACLNN_ERR_PARAM_INVALID,
                        "expects all input tensors with the same dtype: %s[%llu] is %s, paramsRef[0] is %s.", ln[l],
                        (unsigned long long)i, acl_dtype_name(ls[l]->v[i]->dtype), acl_dtype_name(dt));
    }
    if (maxExpAvgSqsRef) {
        ACL_TRY(acl_check_dtype_in(maxExpAvgSqsRef->v[0], ACL_DT_LIST_FusedAdamw, "maxExpAvgSqsRef"));
        ACL_TRY(check_list_dtype(maxExpAvgSqsRef, "maxExpAvgSqsRef", dt, "paramsRef"));
    }
    ACL_TRY(check_list_shape(grads, "grads", paramsRef, "paramsRef"));
    ACL_TRY(check_list_shape(expAvgsRef, "expAvgsRef", paramsRef, "paramsRef"));
    ACL_TRY(check_list_shape(expAvgSqsRef, "expAvgSqsRef", paramsRef, "paramsRef"));
    /* the op_api only logs this one; refused here, as the kernel would read past the smaller tensor */
    if (maxExpAvgSqsRef) ACL_TRY(check_list_shape(maxExpAvgSqsRef, "maxExpAvgSqsRef", paramsRef, "paramsRef"));
    for (uint64_t i = 0; i < stateSteps->size; i++)
        ACLNN_CHECK(acl_tensor_numel(stateSteps->v[i]) >= 1, ACLNN_ERR_PARAM_INVALID,
                    "stateSteps[%llu] must hold a step value (it is empty).", (unsigned long long)i);
    const aclTensor *gs = gradScaleOptional && !acl_tensor_empty(gradScaleOptional) ? gradScaleOptional : NULL;
    const aclTensor *fi = foundInfOptional && !acl_tensor_empty(foundInfOptional) ? foundInfOptional : NULL;
    const int64_t n = (int64_t)paramsRef->size;
    ACLNN_CHECK(n * 6 + 2 < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "paramsRef has %lld tensors, too many.",
                (long long)n);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_FusedAdamw, fadamw_run, sizeof(fused_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    fused_params *p = ex->params;
    *p = (fused_params){.n = n, .scale_in = -1, .inf_in = -1, .amsgrad = amsgrad, .maximize = maximize,
                        .has_max = maxExpAvgSqsRef != NULL, .lr = (float)lr, .b1 = (float)beta1,
                        .b2 = (float)beta2, .wd = (float)weightDecay, .eps = (float)eps};
    const aclTensorList *ls[5] = {paramsRef, grads, expAvgsRef, expAvgSqsRef, maxExpAvgSqsRef};
    static const char *const lnames[5] = {"paramsRef", "grads", "expAvgsRef", "expAvgSqsRef", "maxExpAvgSqsRef"};
    aclnnStatus rc = add_lists_folded(ex, ls, lnames, maxExpAvgSqsRef ? 5 : 4);
    for (int64_t i = 0; i < n && !rc; i++) rc = opt_add_first_elem(ex, stateSteps->v[i], "stateSteps");
    if (!rc && gs) {
        p->scale_in = ex->n_in;
        rc = opt_add_first_elem(ex, gs, "gradScaleOptional");
    }
    if (!rc && fi) {
        p->inf_in = ex->n_in;
        rc = opt_add_first_elem(ex, fi, "foundInfOptional");
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------- aclnnFusedSgd ---------------- */

/* slots: param, grad, momentum buffer; sc: wd, momentum, lr, dampening, nesterov, maximize, first, 1/gradScale */
static void fsgd_kernel(int64_t n, float *const *b, const float *sc) {
    float *p = b[0], *gr = b[1], *buf = b[2];
    const float wd = sc[0], mom = sc[1], lr = sc[2], damp = sc[3], ginv = sc[7];
    const bool nest = sc[4] != 0.0f, maxi = sc[5] != 0.0f, first = sc[6] != 0.0f;
    for (int64_t i = 0; i < n; i++) {
        float g = gr[i] * ginv;
        gr[i] = g;
        if (maxi) g = -g;
        if (wd != 0.0f) g = g + p[i] * wd;
        if (buf) {
            const float bo = first ? g : buf[i] * mom + g * (1.0f - damp);
            buf[i] = bo;
            g = nest ? bo * mom + g : bo;
        }
        p[i] = p[i] - g * lr;
    }
}

static aclnnStatus fsgd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fused_params *p = ex->params;
    const bool scaled = p->scale_in >= 0;
    const float ginv = scaled ? 1.0f / (float)opt_elem(acl_exec_in(ex, p->scale_in), 0) : 1.0f;
    const float sc[8] = {p->wd, p->momentum, p->lr, p->damp, p->nesterov, p->maximize, p->first, ginv};
    const int64_t n = p->n;
    for (int64_t i = 0; i < n; i++) {
        const acl_view *pv = acl_exec_in(ex, (int)i), *g = acl_exec_in(ex, (int)(n + i));
        const acl_view *b = p->has_mom ? acl_exec_in(ex, (int)(2 * n + i)) : NULL;
        const acl_view *rd[3] = {pv, g, b}, *wr[3] = {pv, scaled ? g : NULL, b};
        ACL_TRY(opt_apply(rd, wr, 3, fsgd_kernel, sc));
    }
    return ACLNN_SUCCESS;
}

aclnnStatus opws_FusedSgd(const aclTensorList *paramsRef, const aclTensorList *gradsRef,
                          const aclTensorList *momentumBufferListOptionalRef, const aclTensor *gradScaleOptional,
                          float weightDecay, float momentum, float lr, float dampening, bool nesterov, bool maximize,
                          bool isFirstStep, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensorList *mb = momentumBufferListOptionalRef && momentumBufferListOptionalRef->size > 0
                                  ? momentumBufferListOptionalRef : NULL; /* an empty list counts as none */
    const aclTensor *gs = gradScaleOptional && !acl_tensor_empty(gradScaleOptional) ? gradScaleOptional : NULL;
    const float EPS = 1e-6f;
    ACLNN_CHECK(weightDecay >= 0, ACLNN_ERR_PARAM_INVALID, "weightDecay[%f] should be greater or equal than 0.",
                weightDecay);
    ACLNN_CHECK(momentum >= 0, ACLNN_ERR_PARAM_INVALID, "momentum[%f] should be greater or equal than 0.", momentum);
    ACLNN_CHECK(lr >= 0, ACLNN_ERR_PARAM_INVALID, "lr[%f] should be greater or equal than 0.", lr);
    ACLNN_CHECK(!(nesterov && (momentum <= 0 || fabsf(dampening) >= EPS)), ACLNN_ERR_PARAM_INVALID,
                "nesterov momentum requires a momentum[%f] > 0 and zero dampening[%f].", momentum, dampening);
    ACLNN_CHECK(mb != NULL || fabsf(momentum) < EPS, ACLNN_ERR_PARAM_INVALID,
                "momentum[%f] should be 0 when momentumBufferListOptionalRef is nullptr.", momentum);
    ACLNN_CHECK(mb == NULL || (momentum >= 0 && fabsf(momentum) >= EPS), ACLNN_ERR_PARAM_INVALID,
                "momentum[%f] should be greater than 0 when momentumBufferListOptionalRef is given.", momentum);
    ACL_TRY(check_list(paramsRef, "paramsRef"));
    ACL_TRY(check_list(gradsRef, "gradsRef"));
    if (mb) ACL_TRY(check_list_elems(mb, "momentumBufferListOptionalRef"));
    ACLNN_CHECK(paramsRef->size > 0, ACLNN_ERR_PARAM_INVALID, "paramsRef tensor list is empty.");
    ACL_TRY(check_count(gradsRef, "gradsRef", paramsRef, "paramsRef"));
    if (mb) ACL_TRY(check_count(mb, "momentumBufferListOptionalRef", paramsRef, "paramsRef"));
    const aclDataType dt = paramsRef->v[0]->dtype;
    ACL_TRY(acl_check_dtype_in(paramsRef->v[0], ACL_DT_LIST_FusedSgd, "paramsRef"));
    for (uint64_t i = 0; i < paramsRef->size; i++) {
        ACLNN_CHECK(paramsRef->v[i]->dtype == dt, ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same dtype: paramsRef[%llu] is %s, paramsRef[0] is %s.",
                    (unsigned long long)i, acl_dtype_name(paramsRef->v[i]->dtype), acl_dtype_name(dt));
        ACLNN_CHECK(gradsRef->v[i]->dtype == dt, ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same dtype: gradsRef[%llu] is %s, paramsRef[0] is %s.",
                    (unsigned long long)i, acl_dtype_name(gradsRef->v[i]->dtype), acl_dtype_name(dt));
    }
    if (mb) {
        ACL_TRY(acl_check_dtype_in(mb->v[0], ACL_DT_LIST_FusedSgd, "momentumBufferListOptionalRef"));
        ACL_TRY(check_list_dtype(mb, "momentumBufferListOptionalRef", dt, "paramsRef"));
    }
    for (uint64_t i = 0; i < paramsRef->size; i++) {
        ACLNN_CHECK(paramsRef->v[i]->ndim <= 8, ACLNN_ERR_PARAM_INVALID,
                    "paramsRef[%llu] has %llu dims, more than 8.", (unsigned long long)i,
                    (unsigned long long)paramsRef->v[i]->ndim);
        ACLNN_CHECK(same_shape(gradsRef->v[i], paramsRef->v[i]), ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same shape: gradsRef[%llu] differs from paramsRef[%llu].",
                    (unsigned long long)i, (unsigned long long)i);
        ACLNN_CHECK(!mb || same_shape(mb->v[i], paramsRef->v[i]), ACLNN_ERR_PARAM_INVALID,
                    "expects all input tensors with the same shape: momentumBufferListOptionalRef[%llu] differs "
                    "from paramsRef[%llu].", (unsigned long long)i, (unsigned long long)i);
    }
    const int64_t n = (int64_t)paramsRef->size;
    ACLNN_CHECK(n * 3 + 1 < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "paramsRef has %lld tensors, too many.",
                (long long)n);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_FusedSgd, fsgd_run, sizeof(fused_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    fused_params *p = ex->params;
    *p = (fused_params){.n = n, .scale_in = -1, .inf_in = -1, .maximize = maximize, .has_mom = mb != NULL,
                        .nesterov = nesterov, .first = isFirstStep, .lr = lr, .wd = weightDecay,
                        .momentum = momentum, .damp = dampening};
    aclnnStatus rc = add_list(ex, paramsRef, "paramsRef");
    if (!rc) rc = add_list(ex, gradsRef, "gradsRef");
    if (!rc && mb) rc = add_list(ex, mb, "momentumBufferListOptionalRef");
    if (!rc && gs) {
        p->scale_in = ex->n_in;
        rc = opt_add_first_elem(ex, gs, "gradScaleOptional");
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
