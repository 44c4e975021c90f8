/* aclnnChunkCat (ops-math conversion/chunk_cat): every tensor is split along dim 0 into numChunks chunks of
 * ceil(size0 / numChunks) rows (the last ones zero-padded), each chunk flattened; out[c] is the concatenation of
 * every tensor's chunk c, converted to out's dtype (PyTorch's torch._chunk_cat). out is [numChunks, sum of
 * chunk sizes].
 *
 * First phase in the op_api's order: dim != 0 (161002) before anything else; tensors NULL (161001); an empty list
 * is an early success; NULL elements, out NULL (161001); tensors[0] in the A2 list, every tensor its dtype, out in
 * the list, float inputs only to a float out (161002); private storage formats (161002); ranks 1..8 (161002). Empty
 * tensors are skipped; with none left it succeeds without looking at out. The kernel's shape inference and tiling
 * then refuse numChunks < 0 (561103, a failed ChunkCat launch); numChunks == 0 divides by zero in the shape
 * inference (a crash on the device: 161002 here); finally out's shape (161002). The copies are a copy plan: out is
 * zero-filled, then each tensor's full chunks and its last partial chunk are strided copies with conversion. */
#include "common/dtype.h"
#include "common/shape.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"


aclnnStatus opws_ChunkCat(const aclTensorList *tensors, int64_t dim, int64_t numChunks, aclTensor *out,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(dim == 0, ACLNN_ERR_PARAM_INVALID, "dim only supports 0, got %lld.", (long long)dim);
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors must not be NULL.");
    if (tensors->size == 0) return acl_exec_noop(ACL_OP_ChunkCat, workspaceSize, executor);
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors[%llu] must not be NULL.",
                    (unsigned long long)i);
    NN(out, "out");
    const aclDataType dt = tensors->v[0]->dtype;
    ACL_TRY(acl_check_dtype_in(tensors->v[0], ACL_DT_LIST_ChunkCat, "tensors[0]"));
    for (uint64_t i = 1; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i]->dtype == dt, ACLNN_ERR_PARAM_INVALID,
                    "tensors[%llu] has dtype %s, tensors[0] %s: all tensors must have the same dtype.",
                    (unsigned long long)i, acl_dtype_name(tensors->v[i]->dtype), acl_dtype_name(dt));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_ChunkCat, "out"));
    ACLNN_CHECK(dt != ACL_FLOAT || out->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                "out dtype must be FLOAT when the tensors are FLOAT, got %s.", acl_dtype_name(out->dtype));
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(!acl_format_is_private(tensors->v[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "tensors[%llu] format %s is not supported (ND, NCHW, NHWC, HWCN, NDHWC, NCDHW).",
                    (unsigned long long)i, acl_format_name(tensors->v[i]->format));
    ACLNN_CHECK(!acl_format_is_private(out->format), ACLNN_ERR_PARAM_INVALID, "out format %s is not supported.",
                acl_format_name(out->format));
    for (uint64_t i = 0; i < tensors->size; i++) {
        ACLNN_CHECK(tensors->v[i]->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] has %llu dims, at most 8.",
                    (unsigned long long)i, (unsigned long long)tensors->v[i]->ndim);
        ACLNN_CHECK(tensors->v[i]->ndim >= 1, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] is 0-d.",
                    (unsigned long long)i);
    }
    uint64_t live = 0;
    for (uint64_t i = 0; i < tensors->size; i++) live += !acl_tensor_empty(tensors->v[i]);
    if (live == 0) return acl_exec_noop(ACL_OP_ChunkCat, workspaceSize, executor);
    ACLNN_CHECK(numChunks != 0, ACLNN_ERR_PARAM_INVALID, "numChunks must be positive, got 0.");
    ACLNN_CHECK(numChunks > 0, ACLNN_ERR_INNER_NULLPTR, "numChunks must be positive, got %lld: the ChunkCat launch "
                "fails.", (long long)numChunks);
    int64_t cols = 0;
    for (uint64_t i = 0; i < tensors->size; i++) {
        const aclTensor *t = tensors->v[i];
        if (acl_tensor_empty(t)) continue;
        int64_t c = (t->dims[0] - 1) / numChunks + 1, inner;
        ACLNN_CHECK(acl_numel(t->dims + 1, (int64_t)t->ndim - 1, &inner) && acl_mul_i64(c, inner, &c) &&
                        acl_add_i64(cols, c, &cols), ACLNN_ERR_PARAM_INVALID, "the output columns overflow int64.");
    }
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == numChunks && out->dims[1] == cols, ACLNN_ERR_PARAM_INVALID,
                "out must have shape [%lld, %lld].", (long long)numChunks, (long long)cols);
    aclOpExecutor *ex = cp_exec_create(ACL_OP_ChunkCat);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    int slot = 0;
    for (uint64_t i = 0; i < tensors->size && !rc; i++)
        if (!acl_tensor_empty(tensors->v[i])) rc = acl_exec_add_input(ex, tensors->v[i], "tensors", true), slot++;
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    const int os = slot; /* out's io slot */
    cp_of(ex)->fill_slot = os;
    const acl_view *o = &ex->io[os];
    int64_t off = 0; /* the tensor's first column in out */
    for (int k = 0; k < os && !rc; k++) {
        const acl_view *t = &ex->io[k];
        const int64_t s0 = t->dims[0], chunk = (s0 - 1) / numChunks + 1;
        int64_t inner = 1, cstr[ACL_MAX_VIEW_RANK];
        for (int d = t->ndim - 1; d >= 1; d--) {
            cstr[d] = inner * o->strides[1];
            inner *= t->dims[d];
        }
        /* item dims: [chunks, rows, inner dims...] or, for an 8-d tensor, one item per chunk */
        int64_t dims[ACL_MAX_VIEW_RANK + 1], sst[ACL_MAX_VIEW_RANK + 1], dstt[ACL_MAX_VIEW_RANK + 1];
        const int64_t full = s0 / chunk, rest = s0 - full * chunk;
        const int in = t->ndim - 1;
        for (int d = 0; d < in; d++) {
            dims[2 + d] = t->dims[1 + d];
            sst[2 + d] = t->strides[1 + d];
            dstt[2 + d] = cstr[1 + d];
        }
        dims[1] = chunk;
        sst[1] = t->strides[0];
        dstt[1] = inner * o->strides[1];
        if (in + 2 <= ACL_MAX_VIEW_RANK) {
            dims[0] = full;
            sst[0] = chunk * t->strides[0];
            dstt[0] = o->strides[0];
            rc = cp_add(ex, k, 0, sst, os, off * o->strides[1], dstt, dims, in + 2);
        } else {
            for (int64_t c = 0; c < full && !rc; c++)
                rc = cp_add(ex, k, c * chunk * t->strides[0], sst + 1, os, c * o->strides[0] + off * o->strides[1],
                            dstt + 1, dims + 1, in + 1);
        }
        if (!rc && rest > 0) {
            dims[1] = rest;
            rc = cp_add(ex, k, full * chunk * t->strides[0], sst + 1, os, full * o->strides[0] + off * o->strides[1],
                        dstt + 1, dims + 1, in + 1);
        }
        off += chunk * inner;
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
