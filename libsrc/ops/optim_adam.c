/* The single-tensor Adam-family updates of ops-nn optim/: aclnnApplyAdamW (apply_adam_w), aclnnApplyAdamWV2
 * (apply_adam_w_v2) and aclnnApplyFusedEmaAdam (apply_fused_ema_adam). Every tensor argument is added to the
 * executor as an input in API order; the Ref tensors are updated in place through their views (any strides),
 * computed in float32 (f16/bf16 widened) and rounded once into their own dtype (optim_plan.c).
 *
 * aclnnApplyAdamW (the kernel exists for ASCEND950 only; the op_api's DAV_2201 list is f32/f16/bf16):
 *   g = maximize ? -grad : grad;  var' = var * (1 - lr*wd);  m = m*b1 - (b1 - 1)*g;  v = b2*v - (b2 - 1)*g*g
 *   vm = amsgrad ? max(v, maxGradNorm) : v   (maxGradNorm is read only)
 *   var = var' + lr/(b1Power*b1 - 1) * m / (sqrt(-vm/(b2Power*b2 - 1)) + eps)
 *   i.e. beta{1,2}Power hold beta^(t-1): the step's bias corrections are 1 - beta^(t-1)*beta.
 * aclnnApplyAdam (apply_adam; no op_api source, kernels for ASCEND950 only; m and v are inputs the op does not write,
 * as its definition has the one output var): beta{1,2}Power hold beta^t
 *   lr_t = lr*sqrt(1 - b2Power)/(1 - b1Power);  m' = m + (b1 - 1)*(m - g);  v' = v + (b2 - 1)*(v - g*g)
 *   var -= lr_t * (useNesterov ? b1*m' + (1 - b1)*g : m') / (sqrt(v') + epsilon)
 * aclnnApplyAdamWV2: t = step + 1 (step, f32 or i64, is not written); bc1 = 1 - b1^t, bc2 = 1 - b2^t
 *   g = maximize ? -grad : grad;  var' = var*(1 - lr*wd);  m += (g - m)*(1 - b1);  v = v*b2 + g*g*(1 - b2)
 *   amsgrad: maxGradNorm = max(maxGradNorm, v) (written), used in the denominator
 *   var = var' - (lr/bc1) * m / (sqrt(v or maxGradNorm)/sqrt(bc2) + eps)
 *   The tensors may mix dtypes (each in the list): the op_api then computes all of them in float32.
 * aclnnApplyFusedEmaAdam: c1, c2 = biasCorrection ? (1 - b1^step, 1 - b2^step) : (1, 1) (step i64, not written)
 *   mode 0: g = grad + wd*var (L2);  mode 1: decoupled, update += wd*var
 *   m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  u = (m/c1) / (sqrt(v/c2) + eps) [+ wd*var]
 *   var = var - lr*u;  s = ema*s + (1-ema)*var */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"
#include "ops/optim_plan.h"
#include "ops/view_fold.h"

typedef struct {
    bool amsgrad, maximize, has_max;
    float lr, b1, b2, wd, eps, ema;
    int64_t mode;
    bool bias;
} adam_params;

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

static aclnnStatus check_one(const aclTensor *t, const char *name) {
    const int64_t n = acl_tensor_numel(t);
    ACLNN_CHECK(n == 1, ACLNN_ERR_PARAM_INVALID, "Numel of %s must be 1, but got %lld.", name, (long long)n);
    return ACLNN_SUCCESS;
}

/* more than 8 dims (the op_api has no rank limit): the tensors of var's shape as their joint folded views, the
 * one-element ones each folded on its own; t[] is rewritten to point at the copies in fold[] */
static aclnnStatus fit_many_dims(const aclTensor **t, int n, const aclTensor *var, aclTensor *fold) {
    const aclTensor *same[16], *use[16];
    int idx[16], k = 0;
    for (int i = 0; i < n && k < 16; i++)
        if (t[i] && same_shape(t[i], var)) {
            same[k] = t[i];
            idx[k++] = i;
        }
    ACL_TRY(vf_fit_joint(same, k, var->dims, (int)var->ndim, "varRef and the tensors of its shape", fold, use));
    for (int j = 0; j < k; j++) t[idx[j]] = use[j];
    for (int i = 0; i < n; i++) {
        if (!t[i] || t[i]->ndim <= ACL_MAX_VIEW_RANK) continue;
        const aclTensor *u;
        ACL_TRY(vf_fit(t[i], "a one-element tensor", &fold[k], &u));
        t[i] = u;
        k++;
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus add_inputs(aclOpExecutor *ex, const aclTensor *const *t, const char *const *names, int n) {
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < n && !rc; i++)
        if (t[i]) rc = acl_exec_add_input(ex, t[i], names[i], true);
    return rc;
}

/* ---------------- aclnnApplyAdamW ---------------- */

/* slots: var, m, v, maxGradNorm, grad; sc: b1p, b2p, lr, wd, b1, b2, eps, maximize, amsgrad */
static void adamw1_kernel(int64_t n, float *const *b, const float *sc) {
    float *var = b[0], *m = b[1], *v = b[2];
    const float *mg = b[3], *gr = b[4];
    const float b1p = sc[0], b2p = sc[1], lr = sc[2], wd = sc[3], b1 = sc[4], b2 = sc[5], eps = sc[6];
    const float gs = sc[7] != 0.0f ? -1.0f : 1.0f;
    const bool ams = sc[8] != 0.0f;
    const float decay = 1.0f - lr * wd, c1 = b1p * b1 - 1.0f, c2 = b2p * b2 - 1.0f, step = lr / c1;
    for (int64_t i = 0; i < n; i++) {
        const float g = gr[i] * gs;
        const float vt = var[i] * decay;
        const float mo = m[i] * b1 - (b1 - 1.0f) * g;
        const float vo = b2 * v[i] - (b2 - 1.0f) * g * g;
        const float vm = ams ? fmaxf(vo, mg[i]) : vo;
        const float denom = sqrtf(-vm / c2) + eps;
        var[i] = vt + step * mo / denom;
        m[i] = mo;
        v[i] = vo;
    }
}

static aclnnStatus adamw1_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const adam_params *p = ex->params;
    float sc[9];
    for (int k = 0; k < 7; k++) sc[k] = (float)opt_elem(acl_exec_in(ex, 3 + k), 0);
    sc[7] = p->maximize;
    sc[8] = p->amsgrad;
    const acl_view *var = acl_exec_in(ex, 0), *m = acl_exec_in(ex, 1), *v = acl_exec_in(ex, 2);
    const acl_view *grad = acl_exec_in(ex, 10), *mg = p->amsgrad ? acl_exec_in(ex, 11) : NULL;
    const acl_view *rd[5] = {var, m, v, mg, grad}, *wr[5] = {var, m, v, NULL, NULL};
    return opt_apply(rd, wr, 5, adamw1_kernel, sc);
}

aclnnStatus opws_ApplyAdamW(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef, const aclTensor *beta1Power,
                            const aclTensor *beta2Power, const aclTensor *lr, const aclTensor *weightDecay,
                            const aclTensor *beta1, const aclTensor *beta2, const aclTensor *eps,
                            const aclTensor *grad, const aclTensor *maxGradNormOptional, bool amsgrad, bool maximize,
                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *t[12] = {varRef, mRef, vRef, beta1Power, beta2Power, lr, weightDecay, beta1, beta2, eps, grad,
                              maxGradNormOptional};
    static const char *const nm[12] = {"varRef", "mRef", "vRef", "beta1Power", "beta2Power", "lr", "weightDecay",
                                       "beta1", "beta2", "eps", "grad", "maxGradNormOptional"};
    for (int i = 0; i < 11; i++) ACL_TRY(acl_check_tensor(t[i], nm[i]));
    if (amsgrad) ACL_TRY(acl_check_tensor(maxGradNormOptional, nm[11]));
    for (int i = 0; i < 11; i++) ACL_TRY(acl_check_dtype_in(t[i], ACL_DT_LIST_ApplyAdamW, nm[i]));
    for (int i = 1; i < 11; i++) ACL_TRY(acl_check_same_dtype(varRef, nm[0], t[i], nm[i]));
    if (maxGradNormOptional) {
        ACL_TRY(acl_check_dtype_in(maxGradNormOptional, ACL_DT_LIST_ApplyAdamW, nm[11]));
        ACL_TRY(acl_check_same_dtype(varRef, nm[0], maxGradNormOptional, nm[11]));
    }
    ACL_TRY(acl_check_same_shape(mRef, nm[1], varRef, nm[0]));
    ACL_TRY(acl_check_same_shape(vRef, nm[2], varRef, nm[0]));
    if (maxGradNormOptional) ACL_TRY(acl_check_same_shape(maxGradNormOptional, nm[11], varRef, nm[0]));
    ACL_TRY(acl_check_same_shape(grad, nm[10], varRef, nm[0]));
    for (int i = 3; i < 10; i++) ACL_TRY(check_one(t[i], nm[i]));
    if (acl_tensor_empty(varRef)) return acl_exec_noop(ACL_OP_ApplyAdamW, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ApplyAdamW, adamw1_run, sizeof(adam_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    adam_params *p = ex->params;
    p->amsgrad = amsgrad;
    p->maximize = maximize;
    p->has_max = maxGradNormOptional != NULL;
    aclTensor fold[12];
    aclnnStatus rc = fit_many_dims(t, 12, varRef, fold);
    if (!rc) rc = add_inputs(ex, t, nm, 12);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------- aclnnApplyAdam ---------------- */

/* slots: var, m, v, grad; sc: lr_t, b1, b2, eps, nesterov */
static void adam_kernel(int64_t n, float *const *b, const float *sc) {
    float *var = b[0];
    const float *m = b[1], *v = b[2], *gr = b[3];
    const float lrt = sc[0], b1 = sc[1], b2 = sc[2], eps = sc[3];
    const bool nest = sc[4] != 0.0f;
    for (int64_t i = 0; i < n; i++) {
        const float g = gr[i];
        const float mt = m[i] + (b1 - 1.0f) * (m[i] - g);
        const float vt = v[i] + (b2 - 1.0f) * (v[i] - g * g);
        const float num = nest ? b1 * mt + (1.0f - b1) * g : mt;
        var[i] = var[i] - lrt * num / (sqrtf(vt) + eps);
    }
}

static aclnnStatus adam_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const adam_params *p = ex->params;
    float s[6];
    for (int k = 0; k < 6; k++) s[k] = (float)opt_elem(acl_exec_in(ex, 3 + k), 0);
    const float lrt = s[2] * sqrtf(1.0f - s[1]) / (1.0f - s[0]);
    const float sc[5] = {lrt, s[3], s[4], s[5], p->maximize /* useNesterov */};
    const acl_view *var = acl_exec_in(ex, 0), *m = acl_exec_in(ex, 1), *v = acl_exec_in(ex, 2);
    const acl_view *rd[4] = {var, m, v, acl_exec_in(ex, 9)}, *wr[4] = {var, NULL, NULL, NULL};
    return opt_apply(rd, wr, 4, adam_kernel, sc);
}

/* the generated first phase: NULL tensors (161001); the definition's dtype combinations: varRef in f32/f16/bf16,
 * m, v, grad of its dtype, the six scalar tensors FLOAT (161002); then the tiling (561002): the scalars hold one
 * element, m, v, grad have varRef's shape */
aclnnStatus opws_ApplyAdam(aclTensor *varRef, const aclTensor *m, const aclTensor *v, const aclTensor *beta1Power,
                           const aclTensor *beta2Power, const aclTensor *lr, const aclTensor *beta1,
                           const aclTensor *beta2, const aclTensor *epsilon, const aclTensor *grad, bool useLocking,
                           bool useNesterov, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)useLocking;
    const aclTensor *t[10] = {varRef, m, v, beta1Power, beta2Power, lr, beta1, beta2, epsilon, grad};
    static const char *const nm[10] = {"varRef", "m", "v", "beta1Power", "beta2Power", "lr", "beta1", "beta2",
                                       "epsilon", "grad"};
    static const aclDataType f32[] = {ACL_FLOAT};
    for (int i = 0; i < 10; i++) ACL_TRY(acl_check_tensor(t[i], nm[i]));
    ACL_TRY(acl_check_dtype_in(varRef, ACL_DT_LIST_ApplyAdam, nm[0]));
    for (int i = 1; i < 10; i++) {
        if (i >= 3 && i <= 8) ACL_TRY(acl_check_dtype_in(t[i], f32, 1, nm[i]));
        else ACL_TRY(acl_check_same_dtype(varRef, nm[0], t[i], nm[i]));
    }
    for (int i = 3; i <= 8; i++)
        ACLNN_CHECK(acl_tensor_numel(t[i]) == 1, ACLNN_ERR_INNER_TILING_ERROR, "Input %s must be scalar.", nm[i]);
    for (int i = 1; i < 10; i++)
        if (i < 3 || i == 9)
            ACLNN_CHECK(same_shape(t[i], varRef), ACLNN_ERR_INNER_TILING_ERROR,
                        "%s must have the shape of varRef.", nm[i]);
    if (acl_tensor_empty(varRef)) return acl_exec_noop(ACL_OP_ApplyAdam, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ApplyAdam, adam_run, sizeof(adam_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ((adam_params *)ex->params)->maximize = useNesterov;
    aclnnStatus rc = add_inputs(ex, t, nm, 10);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------- aclnnApplyAdamWV2 ---------------- */

/* slots: var, m, v, maxGradNorm, grad; sc: lr, b1, b2, wd, eps, maximize, amsgrad, step size, 1/sqrt(bc2) */
static void adamw2_kernel(int64_t n, float *const *b, const float *sc) {
    float *var = b[0], *m = b[1], *v = b[2], *mg = b[3];
    const float *gr = b[4];
    const float lr = sc[0], b1 = sc[1], b2 = sc[2], wd = sc[3], eps = sc[4];
    const float gs = sc[5] != 0.0f ? -1.0f : 1.0f;
    const bool ams = sc[6] != 0.0f;
    const float step = sc[7], rbc2 = sc[8], decay = 1.0f - lr * wd, ob1 = 1.0f - b1, ob2 = 1.0f - b2;
    for (int64_t i = 0; i < n; i++) {
        const float g = gr[i] * gs;
        const float vt = var[i] * decay;
        const float mo = m[i] + (g - m[i]) * ob1;
        const float vo = v[i] * b2 + g * g * ob2;
        float d;
        if (ams) {
            mg[i] = fmaxf(mg[i], vo);
            d = sqrtf(mg[i]) * rbc2 + eps;
        } else {
            d = sqrtf(vo) * rbc2 + eps;
        }
        var[i] = vt - mo / d * step;
        m[i] = mo;
        v[i] = vo;
    }
}

static aclnnStatus adamw2_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const adam_params *p = ex->params;
    int k = 3;
    const acl_view *var = acl_exec_in(ex, 0), *m = acl_exec_in(ex, 1), *v = acl_exec_in(ex, 2);
    const acl_view *mg = p->has_max ? acl_exec_in(ex, k++) : NULL;
    const acl_view *grad = acl_exec_in(ex, k++), *stepv = acl_exec_in(ex, k);
    const float t = (float)opt_elem(stepv, 0) + 1.0f;
    const float bc1 = 1.0f - powf(p->b1, t), bc2 = 1.0f - powf(p->b2, t);
    const float sc[9] = {p->lr, p->b1, p->b2, p->wd, p->eps, p->maximize, p->amsgrad, p->lr / bc1,
                         1.0f / sqrtf(bc2)};
    const acl_view *rd[5] = {var, m, v, p->amsgrad ? mg : NULL, grad};
    const acl_view *wr[5] = {var, m, v, p->amsgrad ? mg : NULL, NULL};
    return opt_apply(rd, wr, 5, adamw2_kernel, sc);
}

aclnnStatus opws_ApplyAdamWV2(aclTensor *varRef, aclTensor *mRef, aclTensor *vRef, aclTensor *maxGradNormOptionalRef,
                              const aclTensor *grad, const aclTensor *step, float lr, float beta1, float beta2,
                              float weightDecay, float eps, bool amsgrad, bool maximize, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    const aclTensor *t[6] = {varRef, mRef, vRef, maxGradNormOptionalRef, grad, step};
    static const char *const nm[6] = {"varRef", "mRef", "vRef", "maxGradNormOptionalRef", "grad", "step"};
    ACL_TRY(acl_check_tensor(varRef, nm[0]));
    ACL_TRY(acl_check_tensor(mRef, nm[1]));
    ACL_TRY(acl_check_tensor(vRef, nm[2]));
    if (amsgrad) ACL_TRY(acl_check_tensor(maxGradNormOptionalRef, nm[3]));
    ACL_TRY(acl_check_tensor(grad, nm[4]));
    ACL_TRY(acl_check_tensor(step, nm[5]));
    for (int i = 0; i < 5; i++)
        if (t[i]) ACL_TRY(acl_check_dtype_in(t[i], ACL_DT_LIST_ApplyAdamWV2, nm[i]));
    ACL_TRY(acl_check_dtype_in(step, ACL_DT_LIST_ApplyAdamWV2_step, nm[5]));
    ACL_TRY(acl_check_same_shape(mRef, nm[1], varRef, nm[0]));
    ACL_TRY(acl_check_same_shape(vRef, nm[2], varRef, nm[0]));
    if (maxGradNormOptionalRef) ACL_TRY(acl_check_same_shape(maxGradNormOptionalRef, nm[3], varRef, nm[0]));
    ACL_TRY(acl_check_same_shape(grad, nm[4], varRef, nm[0]));
    ACL_TRY(check_one(step, nm[5]));
    if (acl_tensor_empty(varRef)) return acl_exec_noop(ACL_OP_ApplyAdamWV2, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ApplyAdamWV2, adamw2_run, sizeof(adam_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    adam_params *p = ex->params;
    *p = (adam_params){.amsgrad = amsgrad, .maximize = maximize, .has_max = maxGradNormOptionalRef != NULL,
                       .lr = lr, .b1 = beta1, .b2 = beta2, .wd = weightDecay, .eps = eps};
    aclTensor fold[6];
    aclnnStatus rc = fit_many_dims(t, 6, varRef, fold);
    if (!rc) rc = add_inputs(ex, t, nm, 6);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------- aclnnApplyFusedEmaAdam ---------------- */

/* slots: grad, var, m, v, s; sc: lr, ema, b1, b2, eps, mode, wd, 1/c1, 1/c2 */
static void ema_kernel(int64_t n, float *const *b, const float *sc) {
    const float *gr = b[0];
    float *var = b[1], *m = b[2], *v = b[3], *s = b[4];
    const float lr = sc[0], ema = sc[1], b1 = sc[2], b2 = sc[3], eps = sc[4], wd = sc[6], r1 = sc[7], r2 = sc[8];
    const bool l2 = sc[5] == 0.0f;
    for (int64_t i = 0; i < n; i++) {
        const float g = l2 ? gr[i] + wd * var[i] : gr[i];
        const float mo = b1 * m[i] + (1.0f - b1) * g;
        const float vo = b2 * v[i] + (1.0f - b2) * (g * g);
        float u = (mo * r1) / (sqrtf(vo * r2) + eps);
        if (!l2) u += wd * var[i];
        const float vr = var[i] - lr * u;
        m[i] = mo;
        v[i] = vo;
        var[i] = vr;
        s[i] = ema * s[i] + (1.0f - ema) * vr;
    }
}

static aclnnStatus ema_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const adam_params *p = ex->params;
    const acl_view *g = acl_exec_in(ex, 0), *var = acl_exec_in(ex, 1), *m = acl_exec_in(ex, 2);
    const acl_view *v = acl_exec_in(ex, 3), *s = acl_exec_in(ex, 4);
    float c1 = 1.0f, c2 = 1.0f;
    if (p->bias) {
        const float st = (float)opt_elem(acl_exec_in(ex, 5), 0);
        c1 = 1.0f - powf(p->b1, st);
        c2 = 1.0f - powf(p->b2, st);
    }
    const float sc[9] = {p->lr, p->ema, p->b1, p->b2, p->eps, (float)p->mode, p->wd, 1.0f / c1, 1.0f / c2};
    const acl_view *rd[5] = {g, var, m, v, s}, *wr[5] = {NULL, var, m, v, s};
    return opt_apply(rd, wr, 5, ema_kernel, sc);
}

/* No op_api source upstream: the first phase is the generated one, so its checks are those of the op definition
 * and the tiling, in that order: NULL tensors (161001); dtypes (f32/f16/bf16, all five the same; step INT64);
 * the five shapes equal (161002). mode is 0 or 1 (the kernel has no other path). step's shape is not checked (the docs
 * ask for [1]): the kernel reads its first element. */
aclnnStatus opws_ApplyFusedEmaAdam(const aclTensor *grad, aclTensor *varRef, aclTensor *mRef, aclTensor *vRef,
                                   aclTensor *sRef, const aclTensor *step, double lr, double emaDecay, double beta1,
                                   double beta2, double eps, int64_t mode, bool biasCorrection, double weightDecay,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *t[6] = {grad, varRef, mRef, vRef, sRef, step};
    static const char *const nm[6] = {"grad", "varRef", "mRef", "vRef", "sRef", "step"};
    for (int i = 0; i < 6; i++) ACL_TRY(acl_check_tensor(t[i], nm[i]));
    for (int i = 0; i < 5; i++) ACL_TRY(acl_check_dtype_in(t[i], ACL_DT_LIST_ApplyFusedEmaAdam, nm[i]));
    ACL_TRY(acl_check_dtype_in(step, ACL_DT_LIST_ApplyFusedEmaAdam_step, nm[5]));
    for (int i = 1; i < 5; i++) ACL_TRY(acl_check_same_dtype(grad, nm[0], t[i], nm[i]));
    for (int i = 1; i < 5; i++) ACL_TRY(acl_check_same_shape(t[i], nm[i], grad, nm[0]));
    ACLNN_CHECK(acl_tensor_numel(step) >= 1, ACLNN_ERR_PARAM_INVALID, "step must hold the step value (it is empty).");
    ACLNN_CHECK(mode == 0 || mode == 1, ACLNN_ERR_PARAM_INVALID, "mode must be 0 (L2) or 1 (AdamW), but got %lld.",
                (long long)mode);
    if (acl_tensor_empty(grad)) return acl_exec_noop(ACL_OP_ApplyFusedEmaAdam, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ApplyFusedEmaAdam, ema_run, sizeof(adam_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    adam_params *p = ex->params;
    *p = (adam_params){.lr = (float)lr, .ema = (float)emaDecay, .b1 = (float)beta1, .b2 = (float)beta2,
                       .eps = (float)eps, .mode = mode, .bias = biasCorrection, .wd = (float)weightDecay};
    aclnnStatus rc = add_inputs(ex, t, nm, 5);
    if (!rc) rc = opt_add_first_elem(ex, step, nm[5]);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
