/* InplaceMaskedScatter: the elements of selfRef where mask (broadcast to selfRef) is true take the elements of source
 * in row-major order (torch.Tensor.masked_scatter_). Validation follows op_api aclnn_masked_scatter.cpp (hicann/ops-nn
 * index/masked_scatter). When source holds fewer elements than the mask selects (PyTorch raises; the device does not
 * check), the positions past the end of source keep their value; nothing outside a view is read or written. Values
 * move as bytes, in one serial pass: the same bytes for any thread count. */
#include "ops/index_common.h"

static aclnnStatus msc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *x = acl_exec_in(ex, 0), *mv = acl_exec_in(ex, 1), *sv = acl_exec_in(ex, 2);
    const acl_view *o = acl_exec_out(ex, 0);
    const size_t es = acl_dtype_size(x->dtype);
    acl_view mb = md_broadcast_view(mv, x->dims, x->ndim);
    char *dst = ix_load_raw(x), *src = md_numel(sv) ? ix_load_raw(sv) : NULL;
    unsigned char *m = md_load(&mb, ACL_BOOL);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!dst || !m || (md_numel(sv) && !src)) rc = OOM;
    else {
        const int64_t n = md_numel(x), ns = md_numel(sv);
        int64_t q = 0;
        for (int64_t e = 0; e < n && q < ns; e++)
            if (m[e]) memcpy(dst + (size_t)e * es, src + (size_t)(q++) * es, es);
        md_store(dst, x->dtype, o);
    }
    free(dst);
    free(src);
    free(m);
    return rc;
}

aclnnStatus opws_InplaceMaskedScatter(aclTensor *selfRef, const aclTensor *mask, const aclTensor *source,
                                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(selfRef, "selfRef");
    NN(mask, "mask");
    NN(source, "source");
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_InplaceMaskedScatter, "self"));
    ACL_TRY(acl_check_dtype_in(mask, ACL_DT_LIST_InplaceMaskedScatter_mask, "mask"));
    ACL_TRY(acl_check_same_dtype(source, "source", selfRef, "self"));
    ACL_TRY(md_check_max_dim(selfRef, "self"));
    ACL_TRY(md_check_max_dim(mask, "mask"));
    ACL_TRY(md_check_max_dim(source, "source"));
    int64_t b[ACL_MAX_TENSOR_DIMS];
    int nb = 0;
    ACLNN_CHECK(md_broadcast(selfRef->dims, (int)selfRef->ndim, mask->dims, (int)mask->ndim, b, &nb),
                ACLNN_ERR_PARAM_INVALID, "self, mask: shapes can not be broadcast.");
    ACLNN_CHECK(md_shape_is(selfRef, b, nb), ACLNN_ERR_PARAM_INVALID,
                "self, mask: the shape of mask must be broadcastable to the shape of self.");
    if (acl_tensor_empty(selfRef) || acl_tensor_empty(mask))
        return acl_exec_noop(ACL_OP_InplaceMaskedScatter, workspaceSize, executor);
    const aclTensor *ins[] = {selfRef, mask, source}, *outs[] = {selfRef};
    const char *inn[] = {"selfRef", "mask", "source"}, *outn[] = {"selfRef"};
    return ix_exec(ACL_OP_InplaceMaskedScatter, msc_run, 0, ins, inn, 3, outs, outn, 1, workspaceSize, executor, NULL);
}
