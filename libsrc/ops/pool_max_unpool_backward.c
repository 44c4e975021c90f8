/* MaxUnpool2dBackward and MaxUnpool3dBackward (the gradient of max_unpool2d with respect to its input): out[n, c, k] =
 * gradOutput[n, c, indices[n, c, k]] over the flattened spatial planes, i.e. a gather of gradOutput at the indices
 * the forward scattered to. Validation in the order of op_api aclnn_max_unpool2d_backward.cpp / aclnn_max_unpool3d_backward.cpp
 * (hicann/ops-nn index/gather_elements; the 3-D one also requires a contiguous out, int64 indices, out in gradOutput's
 * dtype, and positive outputSize / stride, which the gather itself does not use, like padding). Values are moved in the compute class (double / int64) and converted once into out's
 * dtype. An index outside [0, H_out * W_out) fails the run with 161002 (nothing written). Each output element is
 * owned by one iteration: the same bytes for any thread count. */
#include "ops/index_common.h"
#include "common/parallel.h"

typedef struct {
    int64_t planes, in_sz, out_sz; /* N * C, spatial size of self, spatial size of gradOutput */
} mub_params;

static aclnnStatus mub_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mub_params *p = ex->params;
    const acl_view *g = acl_exec_in(ex, 0), *ix = acl_exec_in(ex, 1), *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(g->dtype);
    const size_t es = md_class_size(c);
    char *gb = md_load(g, md_class_dt(c));
    int64_t *ib = md_load(ix, ACL_INT64);
    char *ob = md_alloc(p->planes * p->in_sz, es);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!gb || !ib || !ob) rc = OOM;
    else {
        int64_t bad = -1;
        for (int64_t e = 0; e < p->planes * p->in_sz && bad < 0; e++)
            if (ib[e] < 0 || ib[e] >= p->out_sz) bad = e;
        if (bad >= 0) {
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "indices: value %lld at position %lld is outside [0, %lld).",
                            (long long)ib[bad], (long long)bad, (long long)p->out_sz);
        } else {
            const int64_t total = p->planes * p->in_sz;
            ACL_FOR(acl_parallel_worth(total), e, 0, total, {
                const int64_t pl = e / p->in_sz;
                memcpy(ob + (size_t)e * es, gb + (size_t)(pl * p->out_sz + ib[e]) * es, es);
            });
            md_store(ob, md_class_dt(c), o);
        }
    }
    free(gb);
    free(ib);
    free(ob);
    return rc;
}

aclnnStatus opws_MaxUnpool2dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                                     const aclIntArray *outputSize, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(indices, "indices");
    ACLNN_CHECK(outputSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputSize must not be NULL.");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_MaxUnpool2dBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxUnpool2dBackward, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MaxUnpool2dBackward, "out"));
    ACLNN_CHECK(acl_can_cast(gradOutput->dtype, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "gradOutput dtype %s can not be cast to out dtype %s.", acl_dtype_name(gradOutput->dtype),
                acl_dtype_name(out->dtype));
    ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_MaxUnpool2dBackward_indices, "indices"));
    const int r = (int)self->ndim;
    ACLNN_CHECK(r == 3 || r == 4, ACLNN_ERR_PARAM_INVALID, "self should be 3-D or 4-D, got %d-D.", r);
    ACLNN_CHECK(gradOutput->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID,
                "gradOutput should have self's rank %d, got %d.", r, (int)gradOutput->ndim);
    const int b = r - 3; /* the batch dims before C */
    for (int k = 0; k <= b; k++)
        ACLNN_CHECK(gradOutput->dims[k] == self->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput and self should have the same (N, C): dim %d is %lld vs %lld.", k,
                    (long long)gradOutput->dims[k], (long long)self->dims[k]);
    ACL_TRY(acl_check_same_shape(self, "self", indices, "indices"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    ACLNN_CHECK(outputSize->size == 2, ACLNN_ERR_PARAM_INVALID, "outputSize should have 2 elements, got %llu.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(outputSize->v[0] == gradOutput->dims[r - 2] && outputSize->v[1] == gradOutput->dims[r - 1],
                ACLNN_ERR_PARAM_INVALID, "outputSize (%lld, %lld) should be gradOutput's spatial size (%lld, %lld).",
                (long long)outputSize->v[0], (long long)outputSize->v[1], (long long)gradOutput->dims[r - 2],
                (long long)gradOutput->dims[r - 1]);
    ACLNN_CHECK(!acl_tensor_empty(gradOutput) || acl_tensor_empty(self), ACLNN_ERR_PARAM_INVALID,
                "gradOutput is empty, so self should be empty too.");
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_MaxUnpool2dBackward, workspaceSize, executor);
    mub_params p = {self->dims[0] * (r == 4 ? self->dims[1] : 1), self->dims[r - 2] * self->dims[r - 1],
                    gradOutput->dims[r - 2] * gradOutput->dims[r - 1]};
    const aclTensor *ins[] = {gradOutput, indices}, *outs[] = {out};
    const char *inn[] = {"gradOutput", "indices"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_MaxUnpool2dBackward, mub_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor,
                   &p);
}

aclnnStatus opws_MaxUnpool3dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *indices,
                                     const aclIntArray *outputSize, const aclIntArray *stride,
                                     const aclIntArray *padding, aclTensor *out, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    NN(gradOutput, "gradOutput");
    NN(self, "self");
    NN(indices, "indices");
    ACLNN_CHECK(outputSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "outputSize must not be NULL.");
    ACLNN_CHECK(stride != NULL, ACLNN_ERR_PARAM_NULLPTR, "stride must not be NULL.");
    ACLNN_CHECK(padding != NULL, ACLNN_ERR_PARAM_NULLPTR, "padding must not be NULL.");
    NN(out, "out");
    ACLNN_CHECK(acl_tensor_row_major(out), ACLNN_ERR_PARAM_INVALID, "out must be contiguous.");
    ACL_TRY(acl_check_dtype_in(gradOutput, ACL_DT_LIST_MaxUnpool3dBackward, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_MaxUnpool3dBackward, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MaxUnpool3dBackward, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", gradOutput, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(out, "out", gradOutput, "gradOutput"));
    ACLNN_CHECK(indices->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "indices dtype %s should be int64.",
                acl_dtype_name(indices->dtype));
    const int r = (int)self->ndim;
    ACLNN_CHECK(r == 4 || r == 5, ACLNN_ERR_PARAM_INVALID, "self should be 4-D or 5-D, got %d-D.", r);
    ACLNN_CHECK(indices->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "indices should be %d-D, got %d-D.", r,
                (int)indices->ndim);
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "out should be %d-D, got %d-D.", r,
                (int)out->ndim);
    ACL_TRY(acl_check_same_shape(self, "self", indices, "indices"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    for (int k = 1; k < r; k++)
        ACLNN_CHECK(self->dims[k] > 0, ACLNN_ERR_PARAM_INVALID, "self: dim %d (not the batch dim) is empty.", k);
    ACLNN_CHECK(outputSize->size == 3, ACLNN_ERR_PARAM_INVALID, "outputSize should have 3 elements, got %llu.",
                (unsigned long long)outputSize->size);
    ACLNN_CHECK(stride->size == 3, ACLNN_ERR_PARAM_INVALID, "stride should have 3 elements, got %llu.",
                (unsigned long long)stride->size);
    ACLNN_CHECK(padding->size == 3, ACLNN_ERR_PARAM_INVALID, "padding should have 3 elements, got %llu.",
                (unsigned long long)padding->size);
    for (int k = 0; k < 3; k++) {
        ACLNN_CHECK(stride->v[k] > 0, ACLNN_ERR_PARAM_INVALID, "stride[%d] should be > 0, got %lld.", k,
                    (long long)stride->v[k]);
        ACLNN_CHECK(outputSize->v[k] > 0, ACLNN_ERR_PARAM_INVALID, "outputSize[%d] should be > 0, got %lld.", k,
                    (long long)outputSize->v[k]);
    }
    const int s0 = r - 3;
    const int64_t in_sz = self->dims[s0] * self->dims[s0 + 1] * self->dims[s0 + 2];
    ACLNN_CHECK(outputSize->v[0] <= INT32_MAX && outputSize->v[1] <= INT32_MAX && outputSize->v[2] <= INT32_MAX &&
                outputSize->v[0] * outputSize->v[1] * outputSize->v[2] >= in_sz, ACLNN_ERR_PARAM_INVALID,
                "outputSize (%lld, %lld, %lld) should hold self's spatial size %lld.", (long long)outputSize->v[0],
                (long long)outputSize->v[1], (long long)outputSize->v[2], (long long)in_sz);
    ACLNN_CHECK(gradOutput->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "gradOutput should be %d-D, got %d-D.", r,
                (int)gradOutput->ndim);
    ACLNN_CHECK(outputSize->v[0] == gradOutput->dims[s0] && outputSize->v[1] == gradOutput->dims[s0 + 1] &&
                outputSize->v[2] == gradOutput->dims[s0 + 2], ACLNN_ERR_PARAM_INVALID,
                "outputSize (%lld, %lld, %lld) should be gradOutput's spatial size.", (long long)outputSize->v[0],
                (long long)outputSize->v[1], (long long)outputSize->v[2]);
    for (int k = 0; k < s0; k++)
        ACLNN_CHECK(gradOutput->dims[k] == self->dims[k], ACLNN_ERR_PARAM_INVALID,
                    "gradOutput and self should have the same batch and channels: dim %d is %lld vs %lld.", k,
                    (long long)gradOutput->dims[k], (long long)self->dims[k]);
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_MaxUnpool3dBackward, workspaceSize, executor);
    mub_params p = {self->dims[0] * (r == 5 ? self->dims[1] : 1), in_sz,
                    gradOutput->dims[s0] * gradOutput->dims[s0 + 1] * gradOutput->dims[s0 + 2]};
    const aclTensor *ins[] = {gradOutput, indices}, *outs[] = {out};
    const char *inn[] = {"gradOutput", "indices"}, *outn[] = {"out"};
    return ix_exec(ACL_OP_MaxUnpool3dBackward, mub_run, sizeof p, ins, inn, 2, outs, outn, 1, workspaceSize, executor,
                   &p);
}
