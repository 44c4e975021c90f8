/* aclnnAddLora (ops-math math/add_lora), as the Atlas A2 kernel computes it. For every batch row b with a LoRA index
 * w = indices[b] in [0, W):
 *   Z1[r] = fp16(sum_h x[b, h] * weightA[w, layerIdx, r, h])     (weightAOptional given; the cube accumulates in fp32
 *                                                                  and writes fp16)
 *   Z1[r] = x[b, r]                                               (weightAOptional NULL: x is the rank-R input)
 *   Z2[n] = fp16(sum_r Z1[r] * weightB[w, layerIdx, n, r])        n < H2
 *   y[b, yOffset + n] = fp16(y[b, yOffset + n] + fp16(Z2[n] * fp16(scale)))
 * The A2 kernel accumulates the update into y itself (the buffer of the `y` argument): `out` is never written, and
 * ySliceSize is only validated. A negative index (and the index W) selects no weight: the row is left as it is;
 * an index beyond W makes the device kernel index outside its tables, here it is skipped the same way. A y whose view
 * is not contiguous is handed to the kernel as a contiguous copy, so the update never reaches the caller: the run
 * then changes nothing.
 *
 * No op_api source exists upstream: the first phase is the one CANN's op build generates, so the checks are
 * nnopbase's, in its order: NULL tensors (161001); the op definition's dtypes (FLOAT16; indices INT32) and ND-like
 * formats (161002); out empty: nothing to launch; then the tiling's checks, each 561002 (ACLNN_ERR_INNER_TILING_ERROR,
 * as the doc lists them). Where the tiling reads a dim the caller's tensor does not have (weightA of rank < 4) or the
 * kernel would read past x (no weightA and R > H1), the call is refused with 561002 as well. */
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/ops.h"
#include "ops/gen/all_ops.h"

#define AL_MAX_RANK 128
#define AL_MAX_W 32
#define AL_MAX_L 32
#define AL_MAX_H 131072
#define AL_ALIGN 16

typedef struct {
    bool has_a, y_contig;
    int64_t B, H1, H2, H3, R, W, L, layer, yoff;
    uint16_t scale_h;
} al_params;

static bool nd_like(aclFormat f) {
    return f == ACL_FORMAT_ND || f == ACL_FORMAT_NCHW || f == ACL_FORMAT_NHWC || f == ACL_FORMAT_NCDHW ||
           f == ACL_FORMAT_NCL || (int)f == 31 /* DHWCN */;
}

/* element (i0, i1, ...) of a fp16 / int32 view */
#define AT2(v, i, j) ((i) * (v)->strides[0] + (j) * (v)->strides[1])
#define AT4(v, i, j, k, l) ((i) * (v)->strides[0] + (j) * (v)->strides[1] + (k) * (v)->strides[2] + (l) * (v)->strides[3])

static aclnnStatus al_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const al_params *p = ex->params;
    if (!p->y_contig) return ACLNN_SUCCESS; /* the kernel updates a contiguous copy of y */
    const acl_view *yv = acl_exec_in(ex, 0), *xv = acl_exec_in(ex, 1), *bv = acl_exec_in(ex, 2);
    const acl_view *iv = acl_exec_in(ex, 3), *av = p->has_a ? acl_exec_in(ex, 4) : NULL;
    const int64_t B = p->B, H1 = p->H1, H2 = p->H2, R = p->R, l = p->layer;
    const uint16_t *x = (const uint16_t *)xv->base, *wb = (const uint16_t *)bv->base;
    const uint16_t *wa = av ? (const uint16_t *)av->base : NULL;
    const int32_t *idx = (const int32_t *)iv->base;
    uint16_t *y = (uint16_t *)yv->base; /* row-major (B, H3) */
    const int nt = acl_max_threads();
    const int64_t blk = acl_team_block(R + 1, sizeof(float));
    float *scratch = acl_team_alloc(nt, R + 1, sizeof(float), 0); /* a block a thread, whole lines */
    if (!scratch) return OOM;
    const float sc = acl_f16_to_f32(p->scale_h);
    const double work = (double)B * (double)(H1 + H2) * (double)R;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(work > 1e18 ? (int64_t)1e18 : (int64_t)work))
    for (int64_t b = 0; b < B; b++) {
        const int64_t w = idx[b * iv->strides[0]];
        if (w < 0 || w >= p->W) continue;
#ifdef _OPENMP
        float *z1 = scratch + (size_t)blk * (size_t)omp_get_thread_num();
#else
        float *z1 = scratch;
#endif
        for (int64_t r = 0; r < R; r++) {
            if (wa) {
                double s = 0; /* fp16 x fp16 is exact in double; the sum rounds to the fp32 accumulator, then fp16 */
                for (int64_t h = 0; h < H1; h++)
                    s += (double)acl_f16_to_f32(x[AT2(xv, b, h)]) * acl_f16_to_f32(wa[AT4(av, w, l, r, h)]);
                z1[r] = acl_f16_to_f32(acl_f32_to_f16((float)s));
            } else {
                z1[r] = acl_f16_to_f32(x[AT2(xv, b, r)]);
            }
        }
        uint16_t *yb = y + b * p->H3 + p->yoff;
        for (int64_t n = 0; n < H2; n++) {
            double s = 0;
            for (int64_t r = 0; r < R; r++) s += (double)z1[r] * acl_f16_to_f32(wb[AT4(bv, w, l, n, r)]);
            const float z2 = acl_f16_to_f32(acl_f32_to_f16((float)s));
            /* the vector unit's fp16 Muls by fp16(scale): the product of two fp16 values is exact in float */
            const float zs = acl_f16_to_f32(acl_f32_to_f16(z2 * sc));
            /* the fp16 atomic add into y: the sum of two fp16 values, rounded once */
            yb[n] = acl_f32_to_f16((float)((double)acl_f16_to_f32(yb[n]) + (double)zs));
        }
    }
    free(scratch);
    return ACLNN_SUCCESS;
}

static bool row_major(const aclTensor *t) {
    int64_t s = 1;
    for (int64_t d = (int64_t)t->ndim - 1; d >= 0; d--) {
        if (t->dims[d] != 1 && t->strides[d] != s) return false;
        s *= t->dims[d];
    }
    return true;
}

#define TILING(cond, ...) ACLNN_CHECK(cond, ACLNN_ERR_INNER_TILING_ERROR, __VA_ARGS__)

aclnnStatus opws_AddLora(const aclTensor *y, const aclTensor *x, const aclTensor *weightB, const aclTensor *indices,
                         const aclTensor *weightAOptional, int64_t layerIdx, double scale, int64_t yOffset,
                         int64_t ySliceSize, const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(y, "y");
    NN(x, "x");
    NN(weightB, "weightB");
    NN(indices, "indices");
    NN(out, "out");
    const aclTensor *wa = weightAOptional;
    /* the op definition: FLOAT16 tensors, INT32 indices, ND */
    ACL_TRY(acl_check_dtype_in(y, ACL_DT_LIST_AddLora, "y"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_AddLora, "x"));
    ACL_TRY(acl_check_dtype_in(weightB, ACL_DT_LIST_AddLora, "weightB"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_AddLora_indices, "indices"));
    if (wa) ACL_TRY(acl_check_dtype_in(wa, ACL_DT_LIST_AddLora, "weightAOptional"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AddLora, "out"));
    const aclTensor *all[] = {y, x, weightB, indices, wa, out};
    const char *names[] = {"y", "x", "weightB", "indices", "weightAOptional", "out"};
    for (int i = 0; i < 6; i++)
        if (all[i])
            ACLNN_CHECK(nd_like(all[i]->format), ACLNN_ERR_PARAM_INVALID, "%s format %s should be ND.", names[i],
                        acl_format_name(all[i]->format));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_AddLora, workspaceSize, executor);
    /* the tiling, in its order */
    TILING(y->ndim == 2, "y should have 2 dims, but has %llu.", (unsigned long long)y->ndim);
    TILING(x->ndim == 2, "x should have 2 dims, but has %llu.", (unsigned long long)x->ndim);
    TILING(y->dims[0] == x->dims[0], "y dim 0 (%lld) should equal x dim 0 (%lld).", (long long)y->dims[0],
           (long long)x->dims[0]);
    const int64_t B = y->dims[0], H3 = y->dims[1], H1 = x->dims[1];
    TILING(weightB->ndim == 4, "weightB should have 4 dims, but has %llu.", (unsigned long long)weightB->ndim);
    const int64_t W = weightB->dims[0], L = weightB->dims[1], H2 = weightB->dims[2], R = weightB->dims[3];
    TILING(H2 <= H3, "weightB dim 2 (%lld) should not exceed y dim 1 (%lld).", (long long)H2, (long long)H3);
    TILING(indices->ndim == 1, "indices should have 1 dim, but has %llu.", (unsigned long long)indices->ndim);
    TILING(indices->dims[0] == B, "indices size (%lld) should equal y and x dim 0 (%lld).",
           (long long)indices->dims[0], (long long)B);
    if (wa) {
        TILING(wa->ndim == 4, "weightAOptional should have 4 dims, but has %llu.", (unsigned long long)wa->ndim);
        TILING(wa->dims[0] == W && wa->dims[1] == L, "weightAOptional dims 0, 1 (%lld, %lld) should equal weightB's "
               "(%lld, %lld).", (long long)wa->dims[0], (long long)wa->dims[1], (long long)W, (long long)L);
        TILING(wa->dims[2] == R, "weightAOptional dim 2 (%lld) should equal weightB dim 3 (%lld).",
               (long long)wa->dims[2], (long long)R);
        TILING(wa->dims[3] == H1, "weightAOptional dim 3 (%lld) should equal x dim 1 (%lld).", (long long)wa->dims[3],
               (long long)H1);
    }
    TILING(layerIdx >= 0 && layerIdx < L, "layerIdx (%lld) should be in [0, %lld).", (long long)layerIdx,
           (long long)L);
    TILING(yOffset >= 0, "yOffset should be non-negative, but is %lld.", (long long)yOffset);
    TILING(yOffset < H3, "yOffset (%lld) should be less than y dim 1 (%lld).", (long long)yOffset, (long long)H3);
    const int64_t slice = ySliceSize == -1 ? H2 : ySliceSize;
    TILING(slice >= 0, "ySliceSize should be non-negative or -1, but is %lld.", (long long)ySliceSize);
    TILING(slice <= H2, "ySliceSize (%lld) should not exceed weightB dim 2 (%lld).", (long long)slice, (long long)H2);
    TILING(yOffset + H2 <= H3, "yOffset + H2 (%lld + %lld) should not exceed y dim 1 (%lld).", (long long)yOffset,
           (long long)H2, (long long)H3);
    TILING(!wa || R <= AL_MAX_RANK, "R (%lld) should not exceed %d.", (long long)R, AL_MAX_RANK);
    TILING(R % AL_ALIGN == 0, "R (%lld) should be a multiple of %d.", (long long)R, AL_ALIGN);
    TILING(W <= AL_MAX_W, "weightB dim 0 (%lld) should not exceed %d.", (long long)W, AL_MAX_W);
    TILING(L <= AL_MAX_L, "weightB dim 1 (%lld) should not exceed %d.", (long long)L, AL_MAX_L);
    TILING(H1 <= AL_MAX_H, "x dim 1 (%lld) should not exceed %d.", (long long)H1, AL_MAX_H);
    TILING(H1 % AL_ALIGN == 0, "x dim 1 (%lld) should be a multiple of %d.", (long long)H1, AL_ALIGN);
    TILING(H2 <= AL_MAX_H, "weightB dim 2 (%lld) should not exceed %d.", (long long)H2, AL_MAX_H);
    TILING(H2 % AL_ALIGN == 0, "weightB dim 2 (%lld) should be a multiple of %d.", (long long)H2, AL_ALIGN);
    TILING(H3 <= AL_MAX_H, "y dim 1 (%lld) should not exceed %d.", (long long)H3, AL_MAX_H);
    TILING(H3 % AL_ALIGN == 0, "y dim 1 (%lld) should be a multiple of %d.", (long long)H3, AL_ALIGN);
    TILING(wa || R <= H1, "without weightAOptional, x dim 1 (%lld) should hold the rank R (%lld).", (long long)H1,
           (long long)R);
    const aclTensor *ins[] = {y, x, weightB, indices, wa}, *outs[] = {out};
    const char *inn[] = {"y", "x", "weightB", "indices", "weightAOptional"}, *outn[] = {"out"};
    aclOpExecutor *ex = acl_exec_create(ACL_OP_AddLora, al_run, sizeof(al_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < 5 && !rc; i++)
        if (ins[i]) rc = acl_exec_add_input(ex, ins[i], inn[i], !acl_tensor_empty(ins[i]));
    if (!rc) rc = acl_exec_add_output_nodata(ex, outs[0], outn[0]); /* never written */
    if (rc) return acl_exec_discard(ex, rc);
    *(al_params *)ex->params = (al_params){wa != NULL, row_major(y), B, H1, H2, H3, R, W, L, layerIdx, yOffset,
                                           acl_f32_to_f16((float)scale)};
    return acl_exec_publish(ex, workspaceSize, executor);
}
