/* ScatterList (ops-nn index/scatter_list): for every tensor i of the list varRef (B tensors of one shape), the
 * rows of updates[i] are written into varRef[i] along axis from the start position indice[i] (1-d indice: all S2
 * rows of updates' axis; 2-d indice [B, 2]: [start, count], count capped at S2); maskOptional[i] == 0 leaves
 * varRef[i] as it is; reduceOptional must be "update". updates is [B] + varRef[i]'s shape with axis (counted on
 * updates) of length S2 <= varRef's. The rows are placed at flat offsets of varRef[i] seen as [lead, axisLen, trail]
 * (upstream's golden: a start past the axis lands in the next lead row; a row that would leave the tensor is
 * skipped), so nothing is written outside a varRef view.
 *
 * No op_api source exists upstream (the first phase is generated from op_host/scatter_list_def.cpp): the checks
 * are nnopbase's, in order: NULL varRef/indice/updates or a NULL list element (161001); the definition's A2 dtypes
 * (varRef and updates INT8/INT16/INT32/UINT8/UINT16/UINT32/FLOAT16/BF16/FLOAT of one dtype, indice INT32/INT64,
 * maskOptional UINT8: 161002); then the tiling's rules, each 561002 (ACLNN_ERR_INNER_TILING_ERROR): a non-empty list
 * of equal shapes; varRef at least 1-d, updates at least 2-d with B first; axis (on updates) in (0, rank); no empty
 * dim; the dims before and after axis equal to varRef's, S2 <= varRef's axis; indice 1-d or [B, 2]; mask 1-d of B;
 * reduce "update". The list is processed in order (the same bytes for any thread count). */
#include <string.h>

#include "ops/index_common.h"

typedef struct {
    int64_t B, lead, alen, s2, trail;
    bool two_d, has_mask;
} sl_params;

static aclnnStatus sl_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const sl_params *p = ex->params;
    const acl_view *iv = acl_exec_in(ex, 0), *uv = acl_exec_in(ex, 1), *mv = p->has_mask ? acl_exec_in(ex, 2) : NULL;
    const size_t es = acl_dtype_size(uv->dtype);
    int64_t *ind = ix_load_index(iv), *mask = mv ? ix_load_index(mv) : NULL;
    char *upd = ix_load_raw(uv);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!ind || (mv && !mask) || !upd) rc = OOM;
    const int64_t numel = p->lead * p->alen * p->trail, ustride = p->lead * p->s2 * p->trail;
    for (int64_t i = 0; i < p->B && rc == ACLNN_SUCCESS; i++) {
        if (mask && mask[i] == 0) continue;
        const int64_t start = p->two_d ? ind[2 * i] : ind[i];
        int64_t n = p->two_d ? ind[2 * i + 1] : p->s2;
        if (n > p->s2) n = p->s2;
        if (n <= 0) continue;
        const acl_view *vv = acl_exec_out(ex, (int)i);
        char *var = ix_load_raw(vv);
        if (!var) {
            rc = OOM;
            break;
        }
        const char *u = upd + (size_t)(i * ustride) * es;
        for (int64_t l = 0; l < p->lead; l++)
            for (int64_t r = 0; r < n; r++) {
                /* start + r may be anything an int64 holds: keep the offset arithmetic from overflowing */
                const int64_t row = start + r;
                if (row < -p->alen * (l + 1) || row > p->alen * (p->lead - l)) continue;
                const int64_t base = (l * p->alen + row) * p->trail;
                if (base < 0 || base + p->trail > numel) continue;
                memcpy(var + (size_t)base * es, u + (size_t)((l * p->s2 + r) * p->trail) * es, (size_t)p->trail * es);
            }
        md_store(var, vv->dtype, vv);
        free(var);
    }
    free(ind);
    free(mask);
    free(upd);
    return rc;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_ScatterList(aclTensorList *varRef, const aclTensor *indice, const aclTensor *updates,
                             const aclTensor *maskOptional, char *reduceOptional, int64_t axis,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(varRef != NULL, ACLNN_ERR_PARAM_NULLPTR, "varRef must not be NULL.");
    NN(indice, "indice");
    NN(updates, "updates");
    for (uint64_t i = 0; i < varRef->size; i++)
        ACLNN_CHECK(varRef->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "varRef[%llu] must not be NULL.",
                    (unsigned long long)i);
    for (uint64_t i = 0; i < varRef->size; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "varRef[%llu]", (unsigned long long)i);
        ACL_TRY(acl_check_dtype_in(varRef->v[i], ACL_DT_LIST_ScatterList, nm));
    }
    ACL_TRY(acl_check_dtype_in(indice, ACL_DT_LIST_ScatterList_indice, "indice"));
    ACL_TRY(acl_check_dtype_in(updates, ACL_DT_LIST_ScatterList, "updates"));
    if (maskOptional) ACL_TRY(acl_check_dtype_in(maskOptional, ACL_DT_LIST_ScatterList_maskOptional, "maskOptional"));
    for (uint64_t i = 0; i < varRef->size; i++)
        ACLNN_CHECK(varRef->v[i]->dtype == updates->dtype, ACLNN_ERR_PARAM_INVALID,
                    "varRef[%llu] dtype %s and updates dtype %s must be the same.", (unsigned long long)i,
                    acl_dtype_name(varRef->v[i]->dtype), acl_dtype_name(updates->dtype));
    ACL_TRY(md_check_max_dim(updates, "updates"));
    /* the tiling's rules */
    const int64_t B = (int64_t)varRef->size;
    TILING(B > 0, "varRef can not be an empty tensor list.");
    const aclTensor *v0 = varRef->v[0];
    for (int64_t i = 1; i < B; i++)
        TILING(md_shape_is(varRef->v[i], v0->dims, (int)v0->ndim), "varRef: all var tensor shapes should be equal.");
    TILING(v0->ndim >= 1, "varRef: the tensors must have at least 1 dim.");
    const int ud = (int)updates->ndim;
    TILING(ud >= 2, "updates has %d dims; it must have at least 2.", ud);
    TILING(updates->dims[0] == B, "updates' first dim %lld must equal the %lld tensors of varRef.",
           (long long)updates->dims[0], (long long)B);
    const int64_t ax = axis < 0 ? axis + ud : axis;
    TILING(ax > 0 && ax < ud, "axis %lld is out of range (0, %d) of updates' dims.", (long long)axis, ud);
    for (int i = 0; i < ud; i++) TILING(updates->dims[i] > 0, "updates can't be an empty tensor.");
    TILING((int)v0->ndim >= ud - 1, "varRef's tensors have %llu dims; updates needs %d.",
           (unsigned long long)v0->ndim, ud - 1);
    for (int i = 0; i < ud - 1; i++) TILING(v0->dims[i] > 0, "varRef: a var tensor can't be empty.");
    int64_t d1 = 1, vd1 = 1, d3 = 1, vd3 = 1;
    for (int i = 1; i < ax; i++) d1 *= updates->dims[i];
    for (int i = 0; i < ax - 1; i++) vd1 *= v0->dims[i];
    for (int i = (int)ax + 1; i < ud; i++) d3 *= updates->dims[i];
    for (int i = (int)ax; i < (int)v0->ndim; i++) vd3 *= v0->dims[i];
    TILING(vd1 == d1, "varRef/updates: the dims before axis hold %lld and %lld elements; they must be equal.",
           (long long)vd1, (long long)d1);
    TILING(vd3 == d3, "varRef/updates: the dims after axis hold %lld and %lld elements; they must be equal.",
           (long long)vd3, (long long)d3);
    const int64_t s2 = updates->dims[ax], alen = v0->dims[ax - 1];
    TILING(s2 <= alen, "updates' axis length %lld must not exceed varRef's %lld.", (long long)s2, (long long)alen);
    TILING(indice->ndim == 1 || indice->ndim == 2, "indice has %llu dims; only 1 or 2 are supported.",
           (unsigned long long)indice->ndim);
    TILING(indice->dims[0] == B, "indice's first dim %lld must equal updates' first dim %lld.",
           (long long)indice->dims[0], (long long)B);
    if (indice->ndim == 2) TILING(indice->dims[1] == 2, "indice: the second dim should be 2.");
    if (maskOptional) {
        TILING(maskOptional->ndim == 1, "maskOptional has %llu dims; only 1 is supported.",
               (unsigned long long)maskOptional->ndim);
        TILING(maskOptional->dims[0] == B, "maskOptional's first dim %lld must equal updates' first dim %lld.",
               (long long)maskOptional->dims[0], (long long)B);
    }
    TILING(reduceOptional != NULL && strcmp(reduceOptional, "update") == 0,
           "reduceOptional: reduce only supports \"update\".");
    /* not a tiling rule: what the kernel reads of a var tensor (vd1 * alen * vd3 elements) is all of it */
    TILING(vd1 * alen * vd3 == acl_tensor_numel(v0), "varRef: the tensors must have %d dims.", ud - 1);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ScatterList, sl_run, sizeof(sl_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, indice, "indice", true);
    if (!rc) rc = acl_exec_add_input(ex, updates, "updates", true);
    if (!rc && maskOptional) rc = acl_exec_add_input(ex, maskOptional, "maskOptional", true);
    for (int64_t i = 0; i < B && !rc; i++) rc = acl_exec_add_output(ex, varRef->v[i], "varRef");
    if (rc) return acl_exec_discard(ex, rc);
    *(sl_params *)ex->params = (sl_params){B, vd1, alen, s2, vd3, indice->ndim == 2, maskOptional != NULL};
    return acl_exec_publish(ex, workspaceSize, executor);
}
