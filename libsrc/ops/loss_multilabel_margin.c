/* aclnnMultilabelMarginLoss (ops-nn loss/multilabel_margin_loss): per row of self (C classes) the target lists class
 * indices up to the first negative one; isTarget marks them; the row's loss is the sum over listed j and unlisted i
 * of max(0, 1 - (x[y_j] - x[i])), over C. Reductions: 0 none, 1 mean over the rows, anything else sums (the op_api
 * does not range-check it). A listed index >= C is skipped (nothing read outside self). Sums in index order. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

typedef struct {
    int64_t N, C, reduction;
} mlm_params;

static void load(const acl_view *v, aclDataType dt, void *dst) {
    const int64_t one = 1;
    if (v->ndim == 0) mx_load_bcast(v, &one, 1, dt, dst);
    else mx_load_bcast(v, v->dims, v->ndim, dt, dst);
}

static aclnnStatus mlm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mlm_params *p = ex->params;
    const int64_t N = p->N, C = p->C;
    double *x = malloc(sizeof(double) * (size_t)(N * C + 1)), *is = calloc((size_t)(N * C + 1), sizeof(double));
    int64_t *y = malloc(sizeof(int64_t) * (size_t)(N * C + 1));
    double *l = malloc(sizeof(double) * (size_t)(N + 1));
    bool ok = x && is && y && l;
    if (ok) {
        load(acl_exec_in(ex, 0), ACL_DOUBLE, x);
        load(acl_exec_in(ex, 1), ACL_INT64, y);
        double sum = 0;
        for (int64_t n = 0; n < N; n++) {
            const double *r = x + n * C;
            const int64_t *t = y + n * C;
            double *m = is + n * C;
            for (int64_t j = 0; j < C && t[j] >= 0; j++)
                if (t[j] < C) m[t[j]] = 1;
            double s = 0;
            for (int64_t j = 0; j < C && t[j] >= 0; j++) {
                if (t[j] >= C) continue;
                for (int64_t i = 0; i < C; i++)
                    if (m[i] == 0) s += fmax(0.0, 1.0 - (r[t[j]] - r[i]));
            }
            l[n] = s / (double)C;
            sum += l[n];
        }
        const acl_view *o = acl_exec_out(ex, 0);
        double v = p->reduction == 1 ? sum / (double)N : sum;
        ok = mx_store_via(p->reduction == 0 ? l : &v, ACL_DOUBLE, o->dtype, o) &&
             mx_store_via(is, ACL_DOUBLE, acl_exec_out(ex, 1)->dtype, acl_exec_out(ex, 1));
    }
    free(x);
    free(is);
    free(y);
    free(l);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus not_null(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_MultilabelMarginLoss(const aclTensor *self, const aclTensor *target, int64_t reduction,
                                      aclTensor *out, aclTensor *isTarget, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    ACL_TRY(not_null(self, "self"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(not_null(isTarget, "isTarget"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MultilabelMarginLoss, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_MultilabelMarginLoss_target, "target"));
    ACLNN_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be self's %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(self->dtype));
    ACLNN_CHECK(isTarget->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "isTarget dtype %s should be self's %s.",
                acl_dtype_name(isTarget->dtype), acl_dtype_name(self->dtype));
    const uint64_t nd = self->ndim;
    ACLNN_CHECK((nd == 2 && self->dims[1] != 0) || (nd == 1 && self->dims[0] != 0) || nd == 0,
                ACLNN_ERR_PARAM_INVALID, "Expected self to be a non-empty vector or matrix (optional 0-dim batch).");
    if (nd <= 1) {
        const int64_t c = nd == 0 ? 1 : self->dims[0];
        ACLNN_CHECK(target->ndim <= 1 && acl_tensor_numel(target) == c, ACLNN_ERR_PARAM_INVALID,
                    "inconsistent target size for self.");
    } else {
        ACLNN_CHECK(target->ndim == 2 && target->dims[0] == self->dims[0] && target->dims[1] == self->dims[1],
                    ACLNN_ERR_PARAM_INVALID, "inconsistent target size for self.");
    }
    if (reduction == 0 && nd == 2)
        ACLNN_CHECK(out->ndim == 1 && out->dims[0] == self->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "Expect out shape [%lld].", (long long)self->dims[0]);
    else
        ACLNN_CHECK(out->ndim <= 1 && acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID,
                    "Expected a single element out tensor.");
    if (nd == 2 && self->dims[0] == 0)
        ACLNN_CHECK(isTarget->ndim <= 2 && acl_tensor_numel(isTarget) == 0, ACLNN_ERR_PARAM_INVALID,
                    "inconsistent isTarget size for self.");
    else
        ACL_TRY(mx_check_shape(isTarget, "isTarget", target->dims, (int)target->ndim));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_MultilabelMarginLoss, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_MultilabelMarginLoss, mlm_run, sizeof(mlm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_input(ex, target, "target", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (!rc) rc = acl_exec_add_output(ex, isTarget, "isTarget");
    if (rc) return acl_exec_discard(ex, rc);
    *(mlm_params *)ex->params = (mlm_params){.N = nd == 2 ? self->dims[0] : 1,
                                             .C = nd == 0 ? 1 : self->dims[nd - 1], .reduction = reduction};
    return acl_exec_publish(ex, workspaceSize, executor);
}
