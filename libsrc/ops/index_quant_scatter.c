/* InplaceQuantScatter (ops-nn index/quant_update_scatter, aclnn_quant_scatter.h): updates quantised to int8 and
 * written into selfRef along axis. Validation follows op_api aclnn_quant_scatter.cpp in its order: NULL selfRef,
 * indices, updates, quantScales (161001); dtypes (selfRef INT8, indices INT32/INT64, updates BF16/FLOAT16,
 * quantScales BF16/FLOAT, quantZeroPoints BF16/INT32) and the A2 combinations (updates, quantScales[,
 * quantZeroPoints]) = (FLOAT16, FLOAT[, INT32]) or (BF16, BF16[, BF16]); selfRef and updates of one rank (161002);
 * an empty selfRef, indices, updates or quantScales launches nothing. The A2 kernel's tiling is not in the
 * repository, so the shape rules the kernel relies on are checked here as 561002 (ACLNN_ERR_INNER_TILING_ERROR):
 * rank >= 2, axis in [1, rank) after wrapping (not the batch dim), indices 1-d of updates.size(0) (or [N, 2]:
 * [batch, start] rows, as upstream's golden reads them), updates' dims equal to selfRef's except dim 0 and axis,
 * updates' axis no longer than selfRef's, quantAxis the last dim, quantScales / quantZeroPoints holding 1 or
 * updates.size(-1) elements. reduction is not read (the op_api always passes "update" on).
 *
 * Formula (upstream's golden): q = int8(clip(rint(float(updates) / float(scale) + float(zeroPoint)), -128, 127)),
 * scale / zeroPoint taken along the last dim; then with selfRef seen as [B0, mid, axisLen, inner] and updates as
 * [N, mid, S, inner]: selfRef[b(i), j, start(i) + k, m] = q[i, j, k, m], b(i) = i and start(i) = indices[i] for
 * 1-d indices. An out-of-range batch or position (not checked upstream) is skipped: nothing is written outside
 * selfRef. Rows are written in index order (later wins), so the bytes never depend on the thread count. */
#include "ops/index_common.h"

typedef struct {
    int64_t N, B0, mid, alen, S, inner, last, ns, nz;
    bool two_d, has_zp;
} qs_params;

static aclnnStatus qs_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const qs_params *p = ex->params;
    const acl_view *iv = acl_exec_in(ex, 1), *uv = acl_exec_in(ex, 2), *sv = acl_exec_in(ex, 3);
    const acl_view *zv = p->has_zp ? acl_exec_in(ex, 4) : NULL, *o = acl_exec_out(ex, 0);
    int64_t *ind = ix_load_index(iv);
    float *u = md_load(uv, ACL_FLOAT), *sc = md_load(sv, ACL_FLOAT), *zp = zv ? md_load(zv, ACL_FLOAT) : NULL;
    int8_t *var = md_load(o, ACL_INT8);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!ind || !u || !sc || (zv && !zp) || !var) rc = OOM;
    else {
        const int64_t rowlen = p->inner;
        for (int64_t i = 0; i < p->N; i++) {
            const int64_t b = p->two_d ? ind[2 * i] : i, st = p->two_d ? ind[2 * i + 1] : ind[i];
            if (b < 0 || b >= p->B0) continue;
            for (int64_t j = 0; j < p->mid; j++)
                for (int64_t k = 0; k < p->S; k++) {
                    const int64_t pos = st + k;
                    if (pos < 0 || pos >= p->alen) continue;
                    const float *ur = u + ((i * p->mid + j) * p->S + k) * rowlen;
                    int8_t *vr = var + ((b * p->mid + j) * p->alen + pos) * rowlen;
                    const int64_t e0 = ((i * p->mid + j) * p->S + k) * rowlen;
                    for (int64_t m = 0; m < rowlen; m++) {
                        const int64_t c = (e0 + m) % p->last; /* index along the last dim */
                        float f = ur[m] / sc[p->ns == 1 ? 0 : c];
                        if (zp) f = f + zp[p->nz == 1 ? 0 : c];
                        f = rintf(f);
                        vr[m] = (int8_t)(isnan(f) ? 0 : (f < -128.0f ? -128.0f : (f > 127.0f ? 127.0f : f)));
                    }
                }
        }
        md_store(var, ACL_INT8, o);
    }
    free(ind);
    free(u);
    free(sc);
    free(zp);
    free(var);
    return rc;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_InplaceQuantScatter(aclTensor *selfRef, const aclTensor *indices, const aclTensor *updates,
                                     const aclTensor *quantScales, const aclTensor *quantZeroPoints, int64_t axis,
                                     int64_t quantAxis, int64_t reduction, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    NN(indices, "indices");
    NN(updates, "updates");
    NN(quantScales, "quantScales");
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_InplaceQuantScatter, "selfRef"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_InplaceQuantScatter_indices, "indices"));
    ACL_TRY(acl_check_dtype_in(updates, ACL_DT_LIST_InplaceQuantScatter_updates, "updates"));
    ACL_TRY(acl_check_dtype_in(quantScales, ACL_DT_LIST_InplaceQuantScatter_quantScales, "quantScales"));
    if (quantZeroPoints)
        ACL_TRY(acl_check_dtype_in(quantZeroPoints, ACL_DT_LIST_InplaceQuantScatter_quantZeroPoints,
                                   "quantZeroPoints"));
    const aclDataType ud = updates->dtype, sd = quantScales->dtype;
    const bool f16 = ud == ACL_FLOAT16 && sd == ACL_FLOAT, b16 = ud == ACL_BF16 && sd == ACL_BF16;
    if (quantZeroPoints)
        ACLNN_CHECK((f16 && quantZeroPoints->dtype == ACL_INT32) || (b16 && quantZeroPoints->dtype == ACL_BF16),
                    ACLNN_ERR_PARAM_INVALID,
                    "(updates, quantScales, quantZeroPoints) dtypes should be (float16, float, int32) or (bfloat16, "
                    "bfloat16, bfloat16), but are (%s, %s, %s).",
                    acl_dtype_name(ud), acl_dtype_name(sd), acl_dtype_name(quantZeroPoints->dtype));
    else
        ACLNN_CHECK(f16 || b16, ACLNN_ERR_PARAM_INVALID,
                    "(updates, quantScales) dtypes should be (float16, float) or (bfloat16, bfloat16), but are (%s, "
                    "%s).", acl_dtype_name(ud), acl_dtype_name(sd));
    ACLNN_CHECK(selfRef->ndim == updates->ndim, ACLNN_ERR_PARAM_INVALID,
                "dimension of selfRef (%llu) and updates (%llu) should be equal.", (unsigned long long)selfRef->ndim,
                (unsigned long long)updates->ndim);
    if (acl_tensor_empty(selfRef) || acl_tensor_empty(indices) || acl_tensor_empty(updates) ||
        acl_tensor_empty(quantScales))
        return acl_exec_noop(ACL_OP_InplaceQuantScatter, workspaceSize, executor);
    /* the kernel's shape rules */
    const int r = (int)selfRef->ndim;
    ACL_TRY(md_check_max_dim(selfRef, "selfRef"));
    TILING(r >= 2, "selfRef has %d dims; at least 2 are needed.", r);
    const int64_t a = axis < 0 ? axis + r : axis;
    TILING(a >= 1 && a < r, "axis %lld must be in [1, %d) after wrapping (not the batch dim).", (long long)axis, r);
    TILING(quantAxis == -1 || quantAxis == r - 1, "quantAxis %lld: only the last dim is supported.",
           (long long)quantAxis);
    const int64_t N = updates->dims[0];
    const bool two_d = indices->ndim == 2;
    TILING((indices->ndim == 1 || (two_d && indices->dims[1] == 2)) && indices->dims[0] == N,
           "indices must be 1-d (or [N, 2]) with N = updates.size(0) = %lld.", (long long)N);
    for (int d = 1; d < r; d++)
        if (d != a)
            TILING(updates->dims[d] == selfRef->dims[d], "updates dim %d is %lld; selfRef's is %lld.", d,
                   (long long)updates->dims[d], (long long)selfRef->dims[d]);
    TILING(updates->dims[a] <= selfRef->dims[a], "updates' axis length %lld exceeds selfRef's %lld.",
           (long long)updates->dims[a], (long long)selfRef->dims[a]);
    const int64_t last = updates->dims[r - 1], ns = acl_tensor_numel(quantScales);
    const int64_t nz = quantZeroPoints ? acl_tensor_numel(quantZeroPoints) : 1;
    TILING(ns == 1 || ns == last, "quantScales holds %lld elements; 1 or %lld are needed.", (long long)ns,
           (long long)last);
    TILING(nz == 1 || nz == last, "quantZeroPoints holds %lld elements; 1 or %lld are needed.", (long long)nz,
           (long long)last);
    int64_t mid = 1, inner = 1;
    for (int d = 1; d < a; d++) mid *= selfRef->dims[d];
    for (int d = (int)a + 1; d < r; d++) inner *= selfRef->dims[d];
    qs_params q = {N, selfRef->dims[0], mid, selfRef->dims[a], updates->dims[a], inner, last, ns, nz, two_d,
                   quantZeroPoints != NULL};
    aclOpExecutor *ex = acl_exec_create(ACL_OP_InplaceQuantScatter, qs_run, sizeof q);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, selfRef, "selfRef", false);
    if (!rc) rc = acl_exec_add_input(ex, indices, "indices", true);
    if (!rc) rc = acl_exec_add_input(ex, updates, "updates", true);
    if (!rc) rc = acl_exec_add_input(ex, quantScales, "quantScales", true);
    if (!rc && quantZeroPoints) rc = acl_exec_add_input(ex, quantZeroPoints, "quantZeroPoints", true);
    if (!rc) rc = acl_exec_add_output(ex, selfRef, "selfRef");
    if (rc) return acl_exec_discard(ex, rc);
    *(qs_params *)ex->params = q;
    return acl_exec_publish(ex, workspaceSize, executor);
}
