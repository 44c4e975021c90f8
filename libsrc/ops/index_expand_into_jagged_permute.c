/* ExpandIntoJaggedPermute (ops-nn index/expand_into_jagged_permute, fbgemm's expand_into_jagged_permute): for every
 * table i, outputPermuteOut[outputOffset[i] : outputOffset[i + 1]] = arange(inputOffset[permute[i]], + that length).
 *
 * No op_api source exists upstream (the first phase is generated from op_host/expand_into_jagged_permute_def.cpp):
 * NULLs (161001); the definition's dtypes, INT32 for all four tensors (161002); then, each 561002
 * (ACLNN_ERR_INNER_TILING_ERROR): permute, inputOffset, outputOffset 1-d (the tiling's rule; its check that both
 * offsets hold one more element than permute is unreachable code upstream, so it is not applied), and
 * outputPermuteOut 1-d of outputSize elements (the doc's shape). The offsets are read in phase 2 and used as given
 * (the doc requires them increasing): a table whose permute entry or offsets lie outside the tensors, and output
 * positions outside [0, outputSize), are skipped, so nothing is read or written outside a view; positions no table
 * covers are left as they are. Each table is written by one thread, tables in order. */
#include "ops/index_common.h"

typedef struct {
    int64_t n;
} ej_params;

static aclnnStatus ej_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const acl_view *pv = acl_exec_in(ex, 0), *iv = acl_exec_in(ex, 1), *ov = acl_exec_in(ex, 2),
                   *out = acl_exec_out(ex, 0);
    const int64_t P = md_numel(pv), NI = md_numel(iv), NO = md_numel(ov), n = md_numel(out);
    int64_t *perm = ix_load_index(pv), *io = ix_load_index(iv), *oo = ix_load_index(ov), *res = ix_load_index(out);
    aclnnStatus rc = ACLNN_SUCCESS;
    if (!perm || !io || !oo || !res) rc = OOM;
    else {
        for (int64_t i = 0; i < P && i + 1 < NO; i++) { /* serial: overlapping segments resolve in table order */
            const int64_t t = perm[i];
            if (t < 0 || t >= NI) continue;
            const int64_t s = oo[i], e = oo[i + 1], base = io[t];
            for (int64_t q = s < 0 ? 0 : s; q < e && q < n; q++) res[q] = (int32_t)(base + (q - s));
        }
        md_store(res, ACL_INT64, out);
    }
    free(perm);
    free(io);
    free(oo);
    free(res);
    return rc;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_ExpandIntoJaggedPermute(const aclTensor *permute, const aclTensor *inputOffset,
                                         const aclTensor *outputOffset, int64_t outputSize,
                                         const aclTensor *outputPermuteOut, uint64_t *workspaceSize,
                                         aclOpExecutor **executor) {
    NN(permute, "permute");
    NN(inputOffset, "inputOffset");
    NN(outputOffset, "outputOffset");
    NN(outputPermuteOut, "outputPermuteOut");
    ACL_TRY(acl_check_dtype_in(permute, ACL_DT_LIST_ExpandIntoJaggedPermute, "permute"));
    ACL_TRY(acl_check_dtype_in(inputOffset, ACL_DT_LIST_ExpandIntoJaggedPermute, "inputOffset"));
    ACL_TRY(acl_check_dtype_in(outputOffset, ACL_DT_LIST_ExpandIntoJaggedPermute, "outputOffset"));
    ACL_TRY(acl_check_dtype_in(outputPermuteOut, ACL_DT_LIST_ExpandIntoJaggedPermute, "outputPermuteOut"));
    TILING(permute->ndim == 1, "permute's shape is not 1-d.");
    TILING(inputOffset->ndim == 1, "inputOffset's shape is not 1-d.");
    TILING(outputOffset->ndim == 1, "outputOffset's shape is not 1-d.");
    TILING(outputPermuteOut->ndim == 1 && outputPermuteOut->dims[0] == outputSize,
           "outputPermuteOut must be 1-d of outputSize %lld elements.", (long long)outputSize);
    if (outputSize == 0 || acl_tensor_empty(permute))
        return acl_exec_noop(ACL_OP_ExpandIntoJaggedPermute, workspaceSize, executor);
    ej_params p = {outputSize};
    const aclTensor *ins[] = {permute, inputOffset, outputOffset}, *outs[] = {outputPermuteOut};
    const char *inn[] = {"permute", "inputOffset", "outputOffset"}, *outn[] = {"outputPermuteOut"};
    return ix_exec(ACL_OP_ExpandIntoJaggedPermute, ej_run, sizeof p, ins, inn, 3, outs, outn, 1, workspaceSize,
                   executor, &p);
}
