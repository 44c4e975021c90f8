/* aclnnAdvanceStep / aclnnAdvanceStepV2 (ops-nn optim/advance_step, vLLM's advance_step): update the decode
 * state in place. No op_api source exists: the first phases are the generated ones, so the checks are the op
 * definition's then the tiling's, in that order: NULL required tensors (161001; V2's specToken / acceptedNum are
 * optional inputs of the definition); every tensor INT64 (161002); then the tiling, each failure 561002:
 * numSeqs, numQueries, blockSize >= 1; a given (non-empty) specToken of shape [numSeqs, specNum], acceptedNum
 * [numSeqs]. Tensors are indexed as the kernel does, by flat (row-major) element index of their views.
 *
 * Without both specToken and acceptedNum (the "legacy" kernel, one core, aivNum = the SoC's vector-core count,
 * 40 on Ascend910B3/B4, 48 on B1/B2): numSeqs > numQueries and < 2e8; dim 0 of inputTokens, inputPositions,
 * seqLens, slotMapping, blockTables equal numSeqs; sampledTokenIds is [numQueries, 1]; stride = numel(blockTables)
 * / numSeqs. For q < min(numQueries, aivNum):
 *   inputTokens[q] = sampledTokenIds[q];  p = seqLens[q];  seqLens[q] = p + 1;  inputPositions[q] = p
 *   slotMapping[q] = (blockTables_flat[p / blockSize] + stride * q) * blockSize + p % blockSize
 * (the kernel adds stride*q to the value of element p/blockSize, as the docs' formula writes it), and the padding
 * entries numQueries + k for k = 0, aivNum, 2*aivNum, ... < numSeqs - numQueries get token 0, position 0, slot -1.
 * With both (the speculative kernel, S = specNum, R = S + 1 tokens per request): inputTokens is [numSeqs * R],
 * sampledTokenIds [numSeqs, R], inputPositions / seqLens / slotMapping of inputTokens' shape, blockTables
 * [numSeqs, stride]. For every request i and token j (flat k = i*R + j), in int32 arithmetic as the kernel:
 *   inputPositions[k] += acceptedNum[i] + 1;  seqLens[k] = inputPositions[k] + 1
 *   slotMapping[k] = blockTables[i, pos / blockSize] * blockSize + pos % blockSize
 *   inputTokens[i*R] = sampledTokenIds[i, m - 1] where m is the first index of the minimum of
 *   (sampledTokenIds[i, :] as float32, -1): the last accepted token;  inputTokens[i*R + 1 + s] = specToken[i, s]
 * A block-table index outside the table (the device would read outside it) gives slot -1 here; m = 0 (the row's
 * first token is the smallest, below -1) takes that token. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl_rt.h"
#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"
#include "common/parallel.h"

#define AS_MAX_NUMSEQS 200000000LL

typedef struct {
    bool spec;
    int64_t num_seqs, num_queries, block_size, stride, spec_num, aiv;
} as_params;

static int64_t *at(const acl_view *v, int64_t i) {
    int64_t off = 0, rem = i;
    for (int k = v->ndim - 1; k >= 0; k--) {
        off += (rem % v->dims[k]) * v->strides[k];
        rem /= v->dims[k];
    }
    return (int64_t *)v->base + off;
}

static int64_t aiv_num(void) {
    const char *s = aclrtGetSocName();
    return (s && (strstr(s, "910B1") || strstr(s, "910B2"))) ? 48 : 40;
}

static aclnnStatus as_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const as_params *p = ex->params;
    const acl_view *tok = acl_exec_in(ex, 0), *smp = acl_exec_in(ex, 1), *pos = acl_exec_in(ex, 2);
    const acl_view *sl = acl_exec_in(ex, 3), *slot = acl_exec_in(ex, 4), *bt = acl_exec_in(ex, 5);
    const int64_t bs = p->block_size, nbt = acl_view_numel(bt);
    if (!p->spec) {
        const int64_t nq = p->num_queries, npad = p->num_seqs - nq;
        const int64_t ntok = acl_view_numel(tok), npos = acl_view_numel(pos), nslot = acl_view_numel(slot);
        const int64_t nsl = acl_view_numel(sl), nsmp = acl_view_numel(smp);
        for (int64_t i = 0; i < npad; i += p->aiv) {
            const int64_t k = nq + i;
            if (k < ntok) *at(tok, k) = 0;
            if (k < npos) *at(pos, k) = 0;
            if (k < nslot) *at(slot, k) = -1;
        }
        for (int64_t q = 0; q < p->aiv && q < nq; q++) {
            if (q < ntok && q < nsmp) *at(tok, q) = *at(smp, q);
            if (q >= nsl) continue;
            const int64_t s = *at(sl, q), next = (int64_t)((uint64_t)s + 1u), ip = s;
            *at(sl, q) = next;
            if (q < npos) *at(pos, q) = ip;
            const int64_t bi = ip / bs, bo = ip % bs;
            int64_t v = -1;
            if (bi >= 0 && bi < nbt)
                v = (int64_t)(((uint64_t)*at(bt, bi) + (uint64_t)p->stride * (uint64_t)q) * (uint64_t)bs + (uint64_t)bo);
            if (q < nslot) *at(slot, q) = v;
        }
        return ACLNN_SUCCESS;
    }
    const acl_view *spt = acl_exec_in(ex, 6), *acc = acl_exec_in(ex, 7);
    const int64_t S = p->spec_num, R = S + 1;
    ACL_FOR(p->num_seqs > 64, i, 0, p->num_seqs, {
        const int32_t a = (int32_t)*at(acc, i);
        int m = (int)R; /* index of the first minimum of (row as float32, -1) */
        float mv = -1.0f;
        for (int64_t j = R - 1; j >= 0; j--) { /* backwards with <=: the first occurrence wins */
            const float f = (float)*at(smp, i * R + j);
            if (f <= mv) {
                mv = f;
                m = (int)j;
            }
        }
        const int64_t last = *at(smp, i * R + (m > 0 ? m - 1 : 0));
        for (int64_t j = 0; j < R; j++) {
            const int64_t k = i * R + j;
            const int32_t np = (int32_t)((uint32_t)(int32_t)*at(pos, k) + (uint32_t)a + 1u);
            *at(pos, k) = np;
            *at(sl, k) = (int32_t)((uint32_t)np + 1u);
            const int64_t bi = (int64_t)(int32_t)((uint32_t)(i * p->stride) + (uint32_t)(np / (int32_t)bs));
            int64_t v = -1;
            if (bi >= 0 && bi < nbt && np / (int32_t)bs < p->stride && np >= 0)
                v = (int32_t)((uint32_t)(int32_t)*at(bt, bi) * (uint32_t)bs + (uint32_t)(np % (int32_t)bs));
            *at(slot, k) = v;
        }
        *at(tok, i * R) = last;
        for (int64_t s = 0; s < S; s++) *at(tok, i * R + 1 + s) = *at(spt, i * S + s);
    });
    return ACLNN_SUCCESS;
}

static int64_t dim(const aclTensor *t, uint64_t k) { return k < t->ndim ? t->dims[k] : 0; }

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

static aclnnStatus as_workspace(int op, const aclTensor *const *t, const char *const *nm, int nt, int64_t numSeqs,
                                int64_t numQueries, int64_t blockSize, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    for (int i = 0; i < 6; i++) ACL_TRY(acl_check_tensor(t[i], nm[i]));
    static const aclDataType i64[] = {ACL_INT64};
    for (int i = 0; i < nt; i++)
        if (t[i]) ACL_TRY(acl_check_dtype_in(t[i], i64, 1, nm[i]));
    TILING(numSeqs >= 1, "Non-positive attr numSeqs %lld, tiling failed.", (long long)numSeqs);
    TILING(numQueries >= 1, "Non-positive attr numQueries %lld, tiling failed.", (long long)numQueries);
    TILING(blockSize >= 1, "Non-positive attr blockSize %lld, tiling failed.", (long long)blockSize);
    const aclTensor *spt = nt > 6 && t[6] && acl_tensor_numel(t[6]) > 0 ? t[6] : NULL;
    const aclTensor *acc = nt > 7 && t[7] && acl_tensor_numel(t[7]) > 0 ? t[7] : NULL;
    TILING(!spt || (spt->ndim == 2 && spt->dims[0] == numSeqs), "specToken shape is not [numSeqs, specNum].");
    TILING(!acc || (acc->ndim == 1 && acc->dims[0] == numSeqs), "acceptedNum shape is not [numSeqs].");
    as_params pr = {.spec = spt && acc, .num_seqs = numSeqs, .num_queries = numQueries, .block_size = blockSize,
                    .aiv = aiv_num()};
    if (!pr.spec) {
        TILING(numSeqs > numQueries, "numSeqs %lld should be greater than numQueries %lld.", (long long)numSeqs,
               (long long)numQueries);
        TILING(numSeqs < AS_MAX_NUMSEQS, "numSeqs %lld should be smaller than 200000000.", (long long)numSeqs);
        static const int idx[5] = {0, 2, 3, 4, 5};
        for (int k = 0; k < 5; k++)
            TILING(dim(t[idx[k]], 0) == numSeqs, "numSeqs %lld should equal %s's first dim %lld.", (long long)numSeqs,
                   nm[idx[k]], (long long)dim(t[idx[k]], 0));
        TILING(dim(t[1], 0) == numQueries, "numQueries %lld should equal sampledTokenIds's first dim %lld.",
               (long long)numQueries, (long long)dim(t[1], 0));
        TILING(dim(t[1], 1) == 1, "sampledTokenIds's last dim should be 1.");
        pr.stride = acl_tensor_numel(t[5]) / numSeqs;
    } else {
        const int64_t S = spt->dims[1], R = S + 1;
        pr.spec_num = S;
        TILING(t[0]->ndim == 1 && t[0]->dims[0] == numSeqs * R, "inputTokens shape is not [numSeqs * (1 + specNum)].");
        TILING(t[1]->ndim == 2 && t[1]->dims[0] == numSeqs && t[1]->dims[1] == R,
               "sampledTokenIds shape is not [numSeqs, 1 + specNum].");
        TILING(same_shape(t[2], t[0]), "inputPositions shape is not [numSeqs * (1 + specNum)].");
        TILING(same_shape(t[3], t[0]), "seqLens shape is not [numSeqs * (1 + specNum)].");
        TILING(same_shape(t[4], t[0]), "slotMapping shape is not [numSeqs * (1 + specNum)].");
        TILING(t[5]->ndim == 2 && t[5]->dims[0] == numSeqs, "blockTables shape 1st dim is not numSeqs.");
        pr.stride = t[5]->dims[1];
    }
    aclOpExecutor *ex = acl_exec_create(op, as_run, sizeof(as_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *(as_params *)ex->params = pr;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < (pr.spec ? 8 : 6) && !rc; i++) rc = acl_exec_add_input(ex, t[i], nm[i], acl_tensor_numel(t[i]) > 0);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus opws_AdvanceStep(const aclTensor *inputTokens, const aclTensor *sampledTokenIds,
                             const aclTensor *inputPositions, const aclTensor *seqLens, const aclTensor *slotMapping,
                             const aclTensor *blockTables, int64_t numSeqs, int64_t numQueries, int64_t blockSize,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *t[6] = {inputTokens, sampledTokenIds, inputPositions, seqLens, slotMapping, blockTables};
    static const char *const nm[6] = {"inputTokens", "sampledTokenIds", "inputPositions", "seqLens", "slotMapping",
                                      "blockTables"};
    return as_workspace(ACL_OP_AdvanceStep, t, nm, 6, numSeqs, numQueries, blockSize, workspaceSize, executor);
}

aclnnStatus opws_AdvanceStepV2(const aclTensor *inputTokens, const aclTensor *sampledTokenIds,
                               const aclTensor *inputPositions, const aclTensor *seqLens, const aclTensor *slotMapping,
                               const aclTensor *blockTables, const aclTensor *specToken, const aclTensor *acceptedNum,
                               int64_t numSeqs, int64_t numQueries, int64_t blockSize, uint64_t *workspaceSize,
                               aclOpExecutor **executor) {
    const aclTensor *t[8] = {inputTokens, sampledTokenIds, inputPositions, seqLens, slotMapping, blockTables,
                             specToken, acceptedNum};
    static const char *const nm[8] = {"inputTokens", "sampledTokenIds", "inputPositions", "seqLens", "slotMapping",
                                      "blockTables", "specToken", "acceptedNum"};
    return as_workspace(ACL_OP_AdvanceStepV2, t, nm, 8, numSeqs, numQueries, blockSize, workspaceSize, executor);
}
