/* aclnnCoalesceSparse (ops-math conversion/coalesce_sparse): the scatter step of a COO coalesce. For each nonzero
 * i < n (indices is [n, m], values [n, ...]), u = uniqueIndices[i]:
 *     newIndices[u, :] = indices[i, :]        newValues[u, ...] += values[i, ...]
 * The kernel accumulates into newValues as it finds it (the caller zeroes it first, as the docs say) and never
 * reads uniqueLen's data.
 *
 * The aclnn interface is generated from the op definition: NULL arguments -> 161001; the dtype combinations of the
 * definition -> 161002 (uniqueLen int32/int64 and uniqueIndices the same; indices int32/int64 and newIndices the
 * same; values FLOAT/INT32/FLOAT16 and newValues the same). The generated interface checks no shapes; the kernel
 * reads them unchecked, so the emulator requires the shapes that mean something (161002): indices 2-d [n, m],
 * uniqueIndices [n], values [n, ...], newIndices [R, m], newValues [R, values' trailing dims]. n == 0 is an early
 * success. A uniqueIndices entry outside [0, R) would make the kernel write outside newIndices/newValues: such a
 * nonzero is skipped.
 *
 * Where the device adds with atomics in an unspecified order, the emulator adds in ascending i, each addition
 * rounded to the dtype as an atomic add is (int32 wraps), and writes newIndices[u] from the last such i: a
 * deterministic gather per output row (owner-partitioned), the same bytes for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

typedef struct { int64_t n, m, rows, inner; int64_t *voff, *noff; } cs_params;

static void cs_free(void *pp) {
    cs_params *p = pp;
    if (!p) return;
    free(p->voff);
    free(p->noff);
    free(p);
}

static float round_to(float v, aclDataType dt) {
    if (dt != ACL_FLOAT16) return v;
    uint16_t h;
    acl_convert(&v, ACL_FLOAT, 1, &h, ACL_FLOAT16, 1, 1);
    acl_convert(&h, ACL_FLOAT16, 1, &v, ACL_FLOAT, 1, 1);
    return v;
}

static aclnnStatus cs_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cs_params *p = ex->params;
    const acl_view *ui = acl_exec_in(ex, 1), *ix = acl_exec_in(ex, 2), *va = acl_exec_in(ex, 3);
    const acl_view *ni = acl_exec_out(ex, 0), *nv = acl_exec_out(ex, 1);
    const int64_t n = p->n, R = p->rows;
    int64_t *start = calloc((size_t)R + 1, sizeof(int64_t)), *list = malloc(sizeof(int64_t) * (size_t)n);
    int64_t *fill = calloc((size_t)R + 1, sizeof(int64_t)), *u = malloc(sizeof(int64_t) * (size_t)n);
    if (!start || !list || !fill || !u) {
        free(start), free(list), free(fill), free(u);
        return OOM;
    }
    const size_t ues = acl_dtype_size(ui->dtype);
    for (int64_t i = 0; i < n; i++) {
        u[i] = acl_read_i64(ui->base + i * ui->strides[0] * (int64_t)ues, ui->dtype);
        if (u[i] >= 0 && u[i] < R) start[u[i] + 1]++; /* out of range: skipped (the kernel would write outside) */
    }
    for (int64_t r = 0; r < R; r++) start[r + 1] += start[r];
    for (int64_t i = 0; i < n; i++)
        if (u[i] >= 0 && u[i] < R) list[start[u[i]] + fill[u[i]]++] = i;
    const size_t ies = acl_dtype_size(ix->dtype), ves = acl_dtype_size(va->dtype);
    const aclDataType vdt = va->dtype;
    ACL_FOR(acl_parallel_worth(n * p->inner + R), r, 0, R, {
        const int64_t a = start[r], b = start[r + 1];
        if (a == b) continue;
        const int64_t last = list[b - 1];
        acl_convert(ix->base + last * ix->strides[0] * (int64_t)ies, ix->dtype, ix->strides[1],
                    ni->base + r * ni->strides[0] * (int64_t)ies, ni->dtype, ni->strides[1], p->m);
        char *orow = nv->base + r * nv->strides[0] * (int64_t)ves;
        for (int64_t e = 0; e < p->inner; e++) {
            char *dst = orow + p->noff[e] * (int64_t)ves;
            if (vdt == ACL_INT32) {
                uint32_t acc;
                memcpy(&acc, dst, 4);
                for (int64_t q = a; q < b; q++) {
                    uint32_t v;
                    memcpy(&v, va->base + (list[q] * va->strides[0] + p->voff[e]) * (int64_t)ves, 4);
                    acc += v; /* wraps, as the device's int32 atomic add */
                }
                memcpy(dst, &acc, 4);
            } else {
                float acc, v;
                acl_convert(dst, vdt, 1, &acc, ACL_FLOAT, 1, 1);
                for (int64_t q = a; q < b; q++) {
                    acl_convert(va->base + (list[q] * va->strides[0] + p->voff[e]) * (int64_t)ves, vdt, 1, &v,
                                ACL_FLOAT, 1, 1);
                    acc = round_to(acc + v, vdt);
                }
                acl_convert(&acc, ACL_FLOAT, 1, dst, vdt, 1, 1);
            }
        }
    });
    free(start), free(list), free(fill), free(u);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_CoalesceSparse(const aclTensor *uniqueLen, const aclTensor *uniqueIndices, const aclTensor *indices,
                                const aclTensor *values, aclTensor *newIndices, aclTensor *newValues,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(uniqueLen, "uniqueLen");
    NN(uniqueIndices, "uniqueIndices");
    NN(indices, "indices");
    NN(values, "values");
    NN(newIndices, "newIndices");
    NN(newValues, "newValues");
    ACL_TRY(acl_check_dtype_in(uniqueLen, ACL_DT_LIST_CoalesceSparse_uniqueLen, "uniqueLen"));
    ACL_TRY(acl_check_dtype_in(uniqueIndices, ACL_DT_LIST_CoalesceSparse_uniqueIndices, "uniqueIndices"));
    ACL_TRY(acl_check_same_dtype(uniqueLen, "uniqueLen", uniqueIndices, "uniqueIndices"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_CoalesceSparse_indices, "indices"));
    ACL_TRY(acl_check_dtype_in(values, ACL_DT_LIST_CoalesceSparse, "values"));
    ACL_TRY(acl_check_same_dtype(indices, "indices", newIndices, "newIndices"));
    ACL_TRY(acl_check_same_dtype(values, "values", newValues, "newValues"));
    /* the shapes the kernel relies on */
    ACLNN_CHECK(indices->ndim == 2, ACLNN_ERR_PARAM_INVALID, "indices must be 2-d [n, m], has %llu dims.",
                (unsigned long long)indices->ndim);
    const int64_t n = indices->dims[0], m = indices->dims[1];
    ACLNN_CHECK(uniqueIndices->ndim == 1 && uniqueIndices->dims[0] == n, ACLNN_ERR_PARAM_INVALID,
                "uniqueIndices must be 1-d with indices.shape[0] = %lld entries.", (long long)n);
    ACLNN_CHECK(values->ndim >= 1 && values->ndim <= 8 && values->dims[0] == n, ACLNN_ERR_PARAM_INVALID,
                "values must have 1 to 8 dims and values.shape[0] == indices.shape[0] = %lld.", (long long)n);
    ACLNN_CHECK(newIndices->ndim == 2 && newIndices->dims[1] == m, ACLNN_ERR_PARAM_INVALID,
                "newIndices must be 2-d [R, %lld].", (long long)m);
    bool same = newValues->ndim == values->ndim && newValues->dims[0] == newIndices->dims[0];
    for (uint64_t d = 1; same && d < values->ndim; d++) same = newValues->dims[d] == values->dims[d];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID,
                "newValues must be [newIndices.shape[0], values.shape[1:]].");
    if (n == 0 || newIndices->dims[0] == 0) return acl_exec_noop(ACL_OP_CoalesceSparse, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_CoalesceSparse, cs_run, sizeof(cs_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = cs_free;
    aclnnStatus rc = acl_exec_add_input(ex, uniqueLen, "uniqueLen", false);
    if (!rc) rc = acl_exec_add_input(ex, uniqueIndices, "uniqueIndices", true);
    if (!rc) rc = acl_exec_add_input(ex, indices, "indices", true);
    if (!rc) rc = acl_exec_add_input(ex, values, "values", !acl_tensor_empty(values));
    if (!rc) rc = acl_exec_add_output(ex, newIndices, "newIndices");
    if (!rc) rc = acl_exec_add_output(ex, newValues, "newValues");
    if (rc) return acl_exec_discard(ex, rc);
    cs_params *p = ex->params;
    const acl_view *va = &ex->io[3], *nv = &ex->io[5];
    p->n = n;
    p->m = m;
    p->rows = newIndices->dims[0];
    int64_t inner = 1;
    for (int d = 1; d < va->ndim; d++) inner *= va->dims[d]; /* fits: values is a valid view */
    p->inner = inner;
    p->voff = malloc(sizeof(int64_t) * (size_t)(inner ? inner : 1));
    p->noff = malloc(sizeof(int64_t) * (size_t)(inner ? inner : 1));
    if (!p->voff || !p->noff) return acl_exec_discard(ex, OOM);
    for (int64_t e = 0; e < inner; e++) {
        int64_t r = e, vo = 0, no = 0;
        for (int d = va->ndim - 1; d >= 1; d--) {
            int64_t i = r % va->dims[d];
            r /= va->dims[d];
            vo += i * va->strides[d];
            no += i * nv->strides[d];
        }
        p->voff[e] = vo;
        p->noff[e] = no;
    }
    return acl_exec_publish(ex, workspaceSize, executor);
}
