/* Dense helpers (dense.h). */
#include "ops/dense.h"

#include <stdlib.h>

#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/copy_plan.h"

int64_t dn_numel(const acl_view *v) { return acl_view_numel(v); }

static void contiguous_strides(const acl_view *v, int64_t *st) {
    int64_t s = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= v->dims[k];
    }
}

static void *load_as(const acl_view *v, aclDataType dt, size_t es) {
    int64_t n = dn_numel(v);
    void *buf = malloc(es * (size_t)(n > 0 ? n : 1));
    if (!buf || n == 0) return buf;
    int64_t st[ACL_MAX_VIEW_RANK];
    contiguous_strides(v, st);
    cp_copy(v->base, v->dtype, v->strides, buf, dt, st, v->dims, v->ndim);
    return buf;
}

double *dn_load(const acl_view *v) { return load_as(v, ACL_DOUBLE, sizeof(double)); }
int64_t *dn_load_i64(const acl_view *v) { return load_as(v, ACL_INT64, sizeof(int64_t)); }

static void store_from(const void *src, aclDataType dt, const acl_view *v) {
    if (dn_numel(v) == 0) return;
    int64_t st[ACL_MAX_VIEW_RANK];
    contiguous_strides(v, st);
    cp_copy(src, dt, st, v->base, v->dtype, v->strides, v->dims, v->ndim);
}

void dn_store(const double *src, const acl_view *v) { store_from(src, ACL_DOUBLE, v); }
void dn_store_i64(const int64_t *src, const acl_view *v) { store_from(src, ACL_INT64, v); }

void dn_split(const acl_view *v, int d, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    *len = v->ndim ? v->dims[d] : 1;
    for (int k = 0; k < d; k++) *outer *= v->dims[k];
    for (int k = d + 1; k < v->ndim; k++) *inner *= v->dims[k];
}

aclnnStatus dn_exec(int op, acl_run_fn run, size_t params_size, const aclTensor *const *ins, const char *const *inn,
                    int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                    aclOpExecutor **exo, void **params) {
    aclOpExecutor *ex = acl_exec_create(op, run, params_size);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++)
        if (ins[i]) rc = acl_exec_add_input(ex, ins[i], inn[i], !acl_tensor_empty(ins[i]));
    for (int i = 0; i < nout && !rc; i++)
        if (outs[i]) rc = acl_tensor_empty(outs[i]) ? acl_exec_add_output_nodata(ex, outs[i], outn[i])
                                                     : acl_exec_add_output(ex, outs[i], outn[i]);
    if (rc) return acl_exec_discard(ex, rc);
    if (params) *params = ex->params;
    return acl_exec_publish(ex, ws, exo);
}
