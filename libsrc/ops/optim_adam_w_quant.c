/* aclnnApplyAdamWQuant (ops-nn optim/apply_adam_w_quant): AdamW on 8-bit blockwise-quantized moments, as the A2
 * kernel computes it. Per block of 256 elements (blockSize) b, with t = step + 1, c1 = 1 - beta1^t,
 * c2 = sqrt(1 - beta2^t), all in float32:
 *   m = qmapM[mRef] * absmaxM[b];  v = qmapV[vRef] * absmaxV[b]            (dequantize)
 *   g = grad * gnormScale;  m = m*beta1 + g*(1-beta1);  v = v*beta2 + g*g*(1-beta2)
 *   var += (m * (-lr*c2/c1)) / (sqrt(v) + eps*c2);  weightDecay > 0: var *= 1 - lr*weightDecay (after the step)
 *   absmaxM[b] = max |m| over the block, n = m / absmaxM[b] (the same for v), then the code of n in the 256-entry
 *   map: 8 halving steps of (lo, hi) = (0, 255) on "n > qmap[pivot]", the nearer of qmap[lo] / qmap[hi] (lo on a
 *   tie); for m, a code whose map value has the other sign than n (sign(0) = 0) moves one step (-1 for a negative
 *   map value, +1 for a positive one), clamped to [0, 255].
 * A last partial block (the tensor's size not a multiple of 256) uses its own elements only (the device kernel
 * processes whole tiles).
 *
 * No op_api source: the first phase is the generated one, so the checks are the op definition's, then the
 * tiling's: NULL tensors (161001; quantModeOptional may be NULL); dtypes: varRef and grad f32/f16/bf16 and equal,
 * mRef / vRef UINT8, qmapM / qmapV / absmax FLOAT, step INT64 (161002); then, each 561002: blockSize 256;
 * varRef, grad, mRef, vRef of one shape; qmapM and qmapV of one shape of 256 elements; step of shape [1]; and
 * (the documented constraint, which the kernel's reads rely on) absmax{M,V}Ref of ceil(size / 256) elements. */
#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"
#include "ops/optim_plan.h"

#define QBLOCK 256
#define QMAP 256

typedef struct {
    float lr, b1, b2, wd, eps, gnorm;
} awq_params;

static float sgn(float x) { return x > 0.0f ? 1.0f : x < 0.0f ? -1.0f : 0.0f; }

static int quant_code(float n, const float *q, bool check_sign) {
    int lo = 0, hi = QMAP - 1, piv = (QMAP - 1) >> 1;
    for (int it = 0; it < 8; it++) {
        if (it) piv = (lo + hi) >> 1;
        if (n > q[piv]) lo = piv;
        else hi = piv;
    }
    int idx = fabsf(n - q[lo]) <= fabsf(n - q[hi]) ? lo : hi;
    if (check_sign) {
        const float d = sgn(q[idx]);
        if (sgn(n) != d) idx += d < 0 ? -1 : d > 0 ? 1 : 0;
        idx = idx < 0 ? 0 : idx > QMAP - 1 ? QMAP - 1 : idx;
    }
    return idx;
}

static aclnnStatus awq_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const awq_params *p = ex->params;
    const acl_view *var = acl_exec_in(ex, 0), *grad = acl_exec_in(ex, 1), *mv = acl_exec_in(ex, 2);
    const acl_view *vv = acl_exec_in(ex, 3), *qmv = acl_exec_in(ex, 4), *qvv = acl_exec_in(ex, 5);
    const acl_view *amv = acl_exec_in(ex, 6), *avv = acl_exec_in(ex, 7), *stv = acl_exec_in(ex, 8);
    const int64_t n = acl_view_numel(var), nb = (n + QBLOCK - 1) / QBLOCK;
    float qm[QMAP], qv[QMAP];
    for (int i = 0; i < QMAP; i++) {
        qm[i] = (float)opt_elem(qmv, i);
        qv[i] = (float)opt_elem(qvv, i);
    }
    const float t = (float)opt_elem(stv, 0) + 1.0f;
    const float c1 = 1.0f - powf(p->b1, t), c2 = sqrtf(1.0f - powf(p->b2, t));
    const float step = -p->lr * c2 / c1, epsc = p->eps * c2, decay = 1.0f - p->lr * p->wd;
    float *buf = malloc(sizeof(float) * (size_t)(4 * n + 2 * nb));
    uint8_t *codes = malloc((size_t)(2 * n));
    if (!buf || !codes) {
        free(buf);
        free(codes);
        return OOM;
    }
    float *x = buf, *g = buf + n, *m = buf + 2 * n, *v = buf + 3 * n, *am = buf + 4 * n, *av = am + nb;
    uint8_t *cm = codes, *cv = codes + n;
    int64_t st[ACL_MAX_VIEW_RANK], s = 1;
    for (int k = var->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= var->dims[k];
    }
    cp_copy(var->base, var->dtype, var->strides, (char *)x, ACL_FLOAT, st, var->dims, var->ndim);
    cp_copy(grad->base, grad->dtype, grad->strides, (char *)g, ACL_FLOAT, st, grad->dims, grad->ndim);
    cp_copy(mv->base, ACL_UINT8, mv->strides, (char *)cm, ACL_UINT8, st, mv->dims, mv->ndim);
    cp_copy(vv->base, ACL_UINT8, vv->strides, (char *)cv, ACL_UINT8, st, vv->dims, vv->ndim);
    for (int64_t b = 0; b < nb; b++) {
        am[b] = (float)opt_elem(amv, b);
        av[b] = (float)opt_elem(avv, b);
    }
    ACL_FOR(nb > 1 && acl_parallel_worth(n), b, 0, nb, {
        const int64_t e0 = b * QBLOCK, e1 = e0 + QBLOCK < n ? e0 + QBLOCK : n;
        float mx_m = 0.0f, mx_v = 0.0f;
        for (int64_t i = e0; i < e1; i++) {
            const float gi = g[i] * p->gnorm;
            const float mi = qm[cm[i]] * am[b] * p->b1 + gi * (1.0f - p->b1);
            const float vi = qv[cv[i]] * av[b] * p->b2 + (gi * gi) * (1.0f - p->b2);
            float xi = x[i] + (mi * step) / (sqrtf(vi) + epsc);
            if (p->wd > 0.0f) xi *= decay;
            x[i] = xi;
            m[i] = mi;
            v[i] = vi;
            mx_m = fmaxf(mx_m, fabsf(mi));
            mx_v = fmaxf(mx_v, fabsf(vi));
        }
        am[b] = mx_m;
        av[b] = mx_v;
        for (int64_t i = e0; i < e1; i++) {
            cm[i] = (uint8_t)quant_code(m[i] / mx_m, qm, true);
            cv[i] = (uint8_t)quant_code(v[i] / mx_v, qv, false);
        }
    });
    cp_copy((const char *)x, ACL_FLOAT, st, var->base, var->dtype, var->strides, var->dims, var->ndim);
    cp_copy((const char *)cm, ACL_UINT8, st, mv->base, ACL_UINT8, mv->strides, mv->dims, mv->ndim);
    cp_copy((const char *)cv, ACL_UINT8, st, vv->base, ACL_UINT8, vv->strides, vv->dims, vv->ndim);
    for (int64_t b = 0; b < nb; b++) {
        int64_t o = 0, r = b;
        for (int k = amv->ndim - 1; k >= 0; k--) {
            o += (r % amv->dims[k]) * amv->strides[k];
            r /= amv->dims[k];
        }
        ((float *)amv->base)[o] = am[b];
        o = 0;
        r = b;
        for (int k = avv->ndim - 1; k >= 0; k--) {
            o += (r % avv->dims[k]) * avv->strides[k];
            r /= avv->dims[k];
        }
        ((float *)avv->base)[o] = av[b];
    }
    free(buf);
    free(codes);
    return ACLNN_SUCCESS;
}

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_ApplyAdamWQuant(aclTensor *varRef, const aclTensor *grad, aclTensor *mRef, aclTensor *vRef,
                                 const aclTensor *qmapM, const aclTensor *qmapV, aclTensor *absmaxMRef,
                                 aclTensor *absmaxVRef, const aclTensor *step, double lr, double beta1, double beta2,
                                 double weightDecay, double eps, double gnormScale, char *quantModeOptional,
                                 int64_t blockSize, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)quantModeOptional;
    const aclTensor *t[9] = {varRef, grad, mRef, vRef, qmapM, qmapV, absmaxMRef, absmaxVRef, step};
    static const char *const nm[9] = {"varRef", "grad", "mRef", "vRef", "qmapM", "qmapV", "absmaxMRef",
                                      "absmaxVRef", "step"};
    for (int i = 0; i < 9; i++) ACL_TRY(acl_check_tensor(t[i], nm[i]));
    ACL_TRY(acl_check_dtype_in(varRef, ACL_DT_LIST_ApplyAdamWQuant, nm[0]));
    ACL_TRY(acl_check_dtype_in(grad, ACL_DT_LIST_ApplyAdamWQuant, nm[1]));
    ACL_TRY(acl_check_same_dtype(varRef, nm[0], grad, nm[1]));
    ACL_TRY(acl_check_dtype_in(mRef, ACL_DT_LIST_ApplyAdamWQuant_mRef, nm[2]));
    ACL_TRY(acl_check_dtype_in(vRef, ACL_DT_LIST_ApplyAdamWQuant_vRef, nm[3]));
    ACL_TRY(acl_check_dtype_in(qmapM, ACL_DT_LIST_ApplyAdamWQuant_qmapM, nm[4]));
    ACL_TRY(acl_check_dtype_in(qmapV, ACL_DT_LIST_ApplyAdamWQuant_qmapV, nm[5]));
    ACL_TRY(acl_check_dtype_in(absmaxMRef, ACL_DT_LIST_ApplyAdamWQuant_absmaxMRef, nm[6]));
    ACL_TRY(acl_check_dtype_in(absmaxVRef, ACL_DT_LIST_ApplyAdamWQuant_absmaxVRef, nm[7]));
    ACL_TRY(acl_check_dtype_in(step, ACL_DT_LIST_ApplyAdamWQuant_step, nm[8]));
    TILING(blockSize == QBLOCK, "attr blockSize should be 256, but got %lld.", (long long)blockSize);
    TILING(same_shape(grad, varRef) && same_shape(mRef, varRef) && same_shape(vRef, varRef),
           "varRef, grad, mRef, vRef should have the same shape.");
    TILING(same_shape(qmapM, qmapV) && acl_tensor_numel(qmapM) == QMAP,
           "qmapM and qmapV should have the same shape, of 256 elements.");
    TILING(step->ndim == 1 && step->dims[0] == 1, "step should have shape [1].");
    const int64_t n = acl_tensor_numel(varRef), nb = n < 0 ? -1 : (n + QBLOCK - 1) / QBLOCK;
    TILING(acl_tensor_numel(absmaxMRef) == nb, "absmaxMRef should hold ceil(varRef size / 256) = %lld elements.",
           (long long)nb);
    TILING(acl_tensor_numel(absmaxVRef) == nb, "absmaxVRef should hold ceil(varRef size / 256) = %lld elements.",
           (long long)nb);
    if (n == 0) return acl_exec_noop(ACL_OP_ApplyAdamWQuant, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ApplyAdamWQuant, awq_run, sizeof(awq_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *(awq_params *)ex->params = (awq_params){(float)lr, (float)beta1, (float)beta2, (float)weightDecay, (float)eps,
                                             (float)gnormScale};
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < 9 && !rc; i++) rc = acl_exec_add_input(ex, t[i], nm[i], true);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
