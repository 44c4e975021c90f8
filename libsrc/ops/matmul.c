/* The ops-nn matmul family on the shared GEMM engine (kernels/gemm.h):
 *   aclnnMm           self (M, K) @ mat2 (K, N) -> out (M, N)
 *   aclnnMatmul       torch.matmul: 1-d/2-d/N-d (at most 6 dims), broadcast batch dims
 *   aclnnBatchMatMul  self (B1, M, K) @ mat2 (B2, K, N), B1/B2 equal or 1 -> out (max(B1, B2), M, N)
 *   aclnnMv           self (N, M) @ vec (M,) -> out (N,)
 *   aclnnEinsum       the two equations the A2 op_api accepts (after renaming the letters in order of appearance):
 *                     "abcd,abced->abce" (a batched vector-matrix product) and "a,b->ab" (an outer product);
 *                     f16/f32 sum in f32 and round once, integers are exact (int64 sums wrapped to the dtype, as
 *                     torch.einsum; the device's abcd path casts integers to f16 for its batched matmul)
 * Checks follow each op_api: NULLs, the Ascend910B (DAV_2201) matmul rule (self, mat2, out dtypes in {f32, f16,
 * bf16}, then cubeMathType in {-1, 0..4}), shapes, formats, then the empty return.
 * Compute (DAV_2201 promotion table): the inputs are multiplied in the "upper" dtype (f16 with cubeMathType
 * USE_FP16 unless both are bf16, so f32/bf16 inputs are rounded to f16 first; otherwise their own precision, f32 for
 * mixed f16/bf16), summed in f32; the kernel writes f32 when out is f32 (and cubeMathType is not USE_FP16), else the
 * upper dtype, which is then cast to out. HF32 (cubeMathType 1/3 on f32) is emulated as full f32. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "kernels/gemm.h"
#include "meta/meta.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

enum { MM_KEEP_DTYPE = 0, MM_ALLOW_FP32_DOWN = 1, MM_USE_FP16 = 2, MM_USE_HF32 = 3, MM_USE_FP32_ADD = 4,
       MM_FP16FP32_KEEP = -1 };

#define MM_FORMAT_NZ ((aclFormat)29) /* FRACTAL_NZ */

typedef struct {
    gemm_problem g; /* pointers filled at run time from the views: A = input 0, B = input 1, C = output 0 */
} mm_params;

static aclnnStatus mm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    mm_params *p = ex->params;
    gemm_problem g = p->g;
    g.a = acl_exec_in(ex, 0)->base;
    g.b = acl_exec_in(ex, 1)->base;
    g.c = acl_exec_out(ex, 0)->base;
    if (gemm_run(&g) != 0) return OOM;
    return ACLNN_SUCCESS;
}

/* Dav2201MatMulRule::CheckInput: the dtype list for A, B, out, then cubeMathType. */
static aclnnStatus mm_check_rule(const aclTensor *a, const char *an, const aclTensor *b, const char *bn,
                                 const aclTensor *out, const char *outn, int8_t cmt) {
    ACL_TRY(acl_check_dtype_in(a, ACL_DT_LIST_Mm, an));
    ACL_TRY(acl_check_dtype_in(b, ACL_DT_LIST_Mm, bn));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Mm, outn));
    ACLNN_CHECK(cmt >= MM_FP16FP32_KEEP && cmt <= MM_USE_FP32_ADD, ACLNN_ERR_PARAM_INVALID,
                "cubeMathType %d is not supported: it should be 0 (KEEP_DTYPE), 1 (ALLOW_FP32_DOWN_PRECISION), "
                "2 (USE_FP16), 3 (USE_HF32) or 4 (USE_FP32_ADD).", (int)cmt);
    return ACLNN_SUCCESS;
}

/* The compute dtypes of the DAV_2201 promotion table (see the file comment). */
static void mm_dtypes(aclDataType ta, aclDataType tb, aclDataType to, int8_t cmt, gemm_problem *g) {
    aclDataType upper;
    if (ta == ACL_BF16 && tb == ACL_BF16) upper = ACL_BF16;
    else if (ta == ACL_FLOAT16 && tb == ACL_FLOAT16) upper = ACL_FLOAT16;
    else upper = cmt == MM_USE_FP16 ? ACL_FLOAT16 : ACL_FLOAT;
    g->round_to = upper == ACL_FLOAT16 ? ACL_FLOAT16 : ACL_DT_UNDEFINED;
    aclDataType kout = (cmt == MM_FP16FP32_KEEP || (to == ACL_FLOAT && cmt != MM_USE_FP16)) ? ACL_FLOAT : upper;
    g->mid = kout == ACL_FLOAT ? ACL_DT_UNDEFINED : kout;
}

static aclnnStatus mm_publish(int op, const aclTensor *a, const char *an, const aclTensor *b, const char *bn,
                              const aclTensor *out, const char *outn, const gemm_problem *g, uint64_t *workspaceSize,
                              aclOpExecutor **executor) {
    aclOpExecutor *ex = acl_exec_create(op, mm_run, sizeof(mm_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    const bool reads = g->K > 0;
    aclnnStatus rc = acl_exec_add_input(ex, a, an, reads);
    if (rc == 0) rc = acl_exec_add_input(ex, b, bn, reads);
    if (rc == 0) rc = acl_exec_add_output(ex, out, outn);
    if (rc) return acl_exec_discard(ex, rc);
    ((mm_params *)ex->params)->g = *g;
    return acl_exec_publish(ex, workspaceSize, executor);
}

static void mm_shape_str(const aclTensor *t, char *s, size_t n) { acl_shape_str(t, s, n); }

/* ---------------------------------------------------------------- aclnnMm */

aclnnStatus opws_Mm(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType,
                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(out, "out");
    NN(self, "self");
    NN(mat2, "mat2");
    ACL_TRY(mm_check_rule(self, "self", mat2, "mat2", out, "out", cubeMathType));
    ACL_TRY(acl_check_rank(mat2, 2, "mat2"));
    ACL_TRY(acl_check_rank(self, 2, "self"));
    ACLNN_CHECK(self->dims[1] == mat2->dims[0], ACLNN_ERR_PARAM_INVALID,
                "The k-axis of self (%lld) and mat2 (%lld) differ.", (long long)self->dims[1],
                (long long)mat2->dims[0]);
    ACL_TRY(acl_check_rank(out, 2, "out"));
    ACLNN_CHECK(out->dims[0] == self->dims[0] && out->dims[1] == mat2->dims[1], ACLNN_ERR_PARAM_INVALID,
                "out shape [%lld, %lld] should be [%lld, %lld] (self's m, mat2's n).", (long long)out->dims[0],
                (long long)out->dims[1], (long long)self->dims[0], (long long)mat2->dims[1]);
    if (acl_tensor_empty(out) && (acl_tensor_empty(self) || acl_tensor_empty(mat2)))
        return acl_exec_noop(ACL_OP_Mm, workspaceSize, executor);
    gemm_problem g = {.M = self->dims[0], .N = mat2->dims[1], .K = self->dims[1],
                      .adt = self->dtype, .ars = self->strides[0], .acs = self->strides[1],
                      .bdt = mat2->dtype, .brs = mat2->strides[0], .bcs = mat2->strides[1],
                      .cdt = out->dtype, .crs = out->strides[0], .ccs = out->strides[1]};
    mm_dtypes(self->dtype, mat2->dtype, out->dtype, cubeMathType, &g);
    return mm_publish(ACL_OP_Mm, self, "self", mat2, "mat2", out, "out", &g, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnMatmul */

#define MATMUL_MAX_DIMS 6

aclnnStatus opws_Matmul(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(mat2, "mat2");
    NN(out, "out");
    ACL_TRY(mm_check_rule(self, "self", mat2, "mat2", out, "out", cubeMathType));
    ACLNN_CHECK(!(mat2->format == MM_FORMAT_NZ &&
                  ((self->dtype == ACL_FLOAT16 && mat2->dtype == ACL_BF16) ||
                   (self->dtype == ACL_BF16 && mat2->dtype == ACL_FLOAT16))),
                ACLNN_ERR_PARAM_INVALID, "With mat2 in FRACTAL_NZ, self and mat2 must be both BF16 or both FLOAT16.");
    char s1[256], s2[256];
    mm_shape_str(self, s1, sizeof s1);
    mm_shape_str(mat2, s2, sizeof s2);
    const int ra = (int)self->ndim, rb = (int)mat2->ndim;
    ACLNN_CHECK(ra <= MATMUL_MAX_DIMS, ACLNN_ERR_PARAM_INVALID, "self has %d dims; at most %d are supported.", ra,
                MATMUL_MAX_DIMS);
    ACLNN_CHECK(rb <= MATMUL_MAX_DIMS, ACLNN_ERR_PARAM_INVALID, "mat2 has %d dims; at most %d are supported.", rb,
                MATMUL_MAX_DIMS);
    ACLNN_CHECK(ra > 0 && rb > 0, ACLNN_ERR_PARAM_INVALID, "Matmul does not support self %s with mat2 %s (0-d).", s1,
                s2);
    const int64_t ka = self->dims[ra - 1], kb = rb <= 2 ? mat2->dims[0] : mat2->dims[rb - 2];
    ACLNN_CHECK(ka == kb, ACLNN_ERR_PARAM_INVALID, "The k-axis of self %s and mat2 %s differ.", s1, s2);
    /* batch dims: everything before the last two of a >= 2-d operand, broadcast right-aligned */
    const int na = ra >= 2 ? ra - 2 : 0, nb = rb >= 2 ? rb - 2 : 0, nbd = na > nb ? na : nb;
    int64_t bshape[GEMM_MAX_BATCH_DIMS];
    for (int d = 0; d < nbd; d++) {
        const int da = d - (nbd - na), db = d - (nbd - nb);
        const int64_t ea = da >= 0 ? self->dims[da] : 1, eb = db >= 0 ? mat2->dims[db] : 1;
        ACLNN_CHECK(ea == eb || ea == 1 || eb == 1, ACLNN_ERR_PARAM_INVALID, "Broadcast of self %s and mat2 %s failed.",
                    s1, s2);
        bshape[d] = ea == 1 ? eb : ea;
    }
    ACLNN_CHECK(self->format != MM_FORMAT_NZ && out->format != MM_FORMAT_NZ, ACLNN_ERR_PARAM_INVALID,
                "The self and out tensors do not support the FRACTAL_NZ format.");
    if (acl_tensor_empty(out) && (acl_tensor_empty(self) || acl_tensor_empty(mat2)))
        return acl_exec_noop(ACL_OP_Matmul, workspaceSize, executor);
    /* out = batch + [M if self >= 2-d] + [N if mat2 >= 2-d] */
    int64_t oshape[GEMM_MAX_BATCH_DIMS + 2];
    int orank = 0;
    for (int d = 0; d < nbd; d++) oshape[orank++] = bshape[d];
    const int64_t M = ra >= 2 ? self->dims[ra - 2] : 1, N = rb >= 2 ? mat2->dims[rb - 1] : 1;
    if (ra >= 2) oshape[orank++] = M;
    if (rb >= 2) oshape[orank++] = N;
    bool same = (int)out->ndim == orank;
    for (int d = 0; same && d < orank; d++) same = out->dims[d] == oshape[d];
    if (!same) {
        char so[256];
        mm_shape_str(out, so, sizeof so);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "out shape %s does not match torch.matmul(self %s, mat2 %s).", so,
                          s1, s2);
    }
    gemm_problem g = {.M = M, .N = N, .K = ka, .nbd = nbd, .adt = self->dtype, .bdt = mat2->dtype,
                      .cdt = out->dtype};
    for (int d = 0; d < nbd; d++) {
        const int da = d - (nbd - na), db = d - (nbd - nb);
        g.bshape[d] = bshape[d];
        g.bsa[d] = (da >= 0 && self->dims[da] != 1) ? self->strides[da] : 0;
        g.bsb[d] = (db >= 0 && mat2->dims[db] != 1) ? mat2->strides[db] : 0;
        g.bsc[d] = out->strides[d];
    }
    g.ars = ra >= 2 ? self->strides[ra - 2] : 0;
    g.acs = self->strides[ra - 1];
    g.brs = rb >= 2 ? mat2->strides[rb - 2] : mat2->strides[0];
    g.bcs = rb >= 2 ? mat2->strides[rb - 1] : 0;
    g.crs = ra >= 2 ? out->strides[nbd] : 0;
    g.ccs = rb >= 2 ? out->strides[orank - 1] : 0;
    mm_dtypes(self->dtype, mat2->dtype, out->dtype, cubeMathType, &g);
    return mm_publish(ACL_OP_Matmul, self, "self", mat2, "mat2", out, "out", &g, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnBatchMatMul */

aclnnStatus opws_BatchMatMul(const aclTensor *self, const aclTensor *mat2, aclTensor *out, int8_t cubeMathType,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (cubeMathType == MM_USE_FP32_ADD) cubeMathType = MM_KEEP_DTYPE; /* the op_api routes 4 to 0 on DAV_2201 */
    NN(self, "self");
    NN(mat2, "mat2");
    NN(out, "out");
    ACL_TRY(mm_check_rule(self, "self", mat2, "mat2", out, "out", cubeMathType));
    ACL_TRY(acl_check_rank(self, 3, "self"));
    ACL_TRY(acl_check_rank(mat2, 3, "mat2"));
    ACL_TRY(acl_check_rank(out, 3, "out"));
    ACLNN_CHECK(self->dims[2] == mat2->dims[1], ACLNN_ERR_PARAM_INVALID,
                "self's last dim (%lld) and mat2's penultimate dim (%lld) should be the same.",
                (long long)self->dims[2], (long long)mat2->dims[1]);
    const int64_t b1 = self->dims[0], b2 = mat2->dims[0];
    ACLNN_CHECK(b1 == b2 || b1 == 1 || b2 == 1, ACLNN_ERR_PARAM_INVALID,
                "self's first dim (%lld) and mat2's first dim (%lld) should be the same, or one of them 1.",
                (long long)b1, (long long)b2);
    const int64_t B = b1 >= b2 ? b1 : b2;
    ACLNN_CHECK(out->dims[1] == self->dims[1] && out->dims[2] == mat2->dims[2] && out->dims[0] == B,
                ACLNN_ERR_PARAM_INVALID, "out shape [%lld, %lld, %lld] should be [%lld, %lld, %lld].",
                (long long)out->dims[0], (long long)out->dims[1], (long long)out->dims[2], (long long)B,
                (long long)self->dims[1], (long long)mat2->dims[2]);
    ACLNN_CHECK(self->format != MM_FORMAT_NZ && out->format != MM_FORMAT_NZ, ACLNN_ERR_PARAM_INVALID,
                "The self and out tensors do not support the FRACTAL_NZ format.");
    if (self->dims[0] == 0 || self->dims[1] == 0 || mat2->dims[2] == 0)
        return acl_exec_noop(ACL_OP_BatchMatMul, workspaceSize, executor);
    gemm_problem g = {.M = self->dims[1], .N = mat2->dims[2], .K = self->dims[2], .nbd = 1, .bshape = {B},
                      .bsa = {b1 == 1 ? 0 : self->strides[0]}, .bsb = {b2 == 1 ? 0 : mat2->strides[0]},
                      .bsc = {out->strides[0]},
                      .adt = self->dtype, .ars = self->strides[1], .acs = self->strides[2],
                      .bdt = mat2->dtype, .brs = mat2->strides[1], .bcs = mat2->strides[2],
                      .cdt = out->dtype, .crs = out->strides[1], .ccs = out->strides[2]};
    if (b2 == 0) g.K = 0; /* mat2 holds nothing to read (self's batch 1 against mat2's 0): zeros */
    mm_dtypes(self->dtype, mat2->dtype, out->dtype, cubeMathType, &g);
    return mm_publish(ACL_OP_BatchMatMul, self, "self", mat2, "mat2", out, "out", &g, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnMv */

aclnnStatus opws_Mv(const aclTensor *self, const aclTensor *vec, aclTensor *out, int8_t cubeMathType,
                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    if (cubeMathType == MM_USE_FP32_ADD) cubeMathType = MM_KEEP_DTYPE; /* routed to 0 on DAV_2201 */
    NN(self, "self");
    NN(vec, "vec");
    NN(out, "out");
    ACL_TRY(acl_check_same_dtype(out, "out", vec, "vec"));
    if (!acl_tensor_empty(self)) ACL_TRY(acl_check_same_dtype(self, "self", vec, "vec"));
    ACL_TRY(mm_check_rule(self, "self", vec, "vec", out, "out", cubeMathType));
    ACL_TRY(acl_check_rank(self, 2, "self"));
    ACL_TRY(acl_check_rank(vec, 1, "vec"));
    ACL_TRY(acl_check_rank(out, 1, "out"));
    ACLNN_CHECK(vec->dims[0] == self->dims[1], ACLNN_ERR_PARAM_INVALID, "vec shape [%lld] should be [%lld].",
                (long long)vec->dims[0], (long long)self->dims[1]);
    ACLNN_CHECK(out->dims[0] == self->dims[0], ACLNN_ERR_PARAM_INVALID, "out shape [%lld] should be [%lld].",
                (long long)out->dims[0], (long long)self->dims[0]);
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_Mv, workspaceSize, executor);
    gemm_problem g = {.M = self->dims[0], .N = 1, .K = self->dims[1],
                      .adt = self->dtype, .ars = self->strides[0], .acs = self->strides[1],
                      .bdt = vec->dtype, .brs = vec->strides[0], .bcs = 0,
                      .cdt = out->dtype, .crs = out->strides[0], .ccs = 0};
    mm_dtypes(self->dtype, vec->dtype, out->dtype, cubeMathType, &g);
    return mm_publish(ACL_OP_Mv, self, "self", vec, "vec", out, "out", &g, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnEinsum */

aclnnStatus opws_Einsum(const aclTensorList *tensors, const char *equation, aclTensor *output,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors must not be NULL.");
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors[%llu] must not be NULL.",
                    (unsigned long long)i);
    NN(output, "output");
    ACLNN_CHECK(equation != NULL, ACLNN_ERR_PARAM_NULLPTR, "The equation must not be NULL.");
    char nm[32];
    for (uint64_t i = 0; i < tensors->size; i++) {
        snprintf(nm, sizeof nm, "tensors[%llu]", (unsigned long long)i);
        ACL_TRY(acl_check_tensor(tensors->v[i], nm));
        ACL_TRY(acl_check_dtype_in(tensors->v[i], ACL_DT_LIST_Einsum, nm));
        ACLNN_CHECK(tensors->v[i]->format == ACL_FORMAT_ND, ACLNN_ERR_PARAM_INVALID,
                    "%s format should be ND, but is %s.", nm, acl_format_name(tensors->v[i]->format));
    }
    ACL_TRY(acl_check_dtype_in(output, ACL_DT_LIST_Einsum, "output"));
    ACLNN_CHECK(tensors->size == 2, ACLNN_ERR_PARAM_INVALID, "tensors holds %llu tensors; it should hold 2.",
                (unsigned long long)tensors->size);
    const aclTensor *x = tensors->v[0], *y = tensors->v[1];
    ACLNN_CHECK(x->dtype == y->dtype && x->dtype == output->dtype, ACLNN_ERR_PARAM_INVALID,
                "tensors[0] (%s), tensors[1] (%s) and output (%s) should have the same dtype.",
                acl_dtype_name(x->dtype), acl_dtype_name(y->dtype), acl_dtype_name(output->dtype));
    /* rename the letters in order of first appearance, then match the supported equations exactly */
    char eq[64];
    const size_t len = strlen(equation);
    ACLNN_CHECK(len < sizeof eq, ACLNN_ERR_PARAM_INVALID, "failed to match equation [%.40s...].", equation);
    char map[256] = {0};
    int next = 0;
    for (size_t i = 0; i <= len; i++) {
        unsigned char ch = (unsigned char)equation[i];
        if (isalpha(ch)) {
            if (!map[ch]) map[ch] = (char)('a' + next++);
            eq[i] = map[ch];
        } else {
            eq[i] = (char)ch;
        }
    }
    gemm_problem g = {.adt = x->dtype, .bdt = y->dtype, .cdt = output->dtype, .round_to = ACL_DT_UNDEFINED,
                      .mid = ACL_DT_UNDEFINED};
    if (strcmp(eq, "abcd,abced->abce") == 0) {
        ACL_TRY(acl_check_rank(x, 4, "tensors[0]"));
        ACL_TRY(acl_check_rank(y, 5, "tensors[1]"));
        ACL_TRY(acl_check_rank(output, 4, "output"));
        for (int d = 0; d < 3; d++)
            ACLNN_CHECK(x->dims[d] == y->dims[d], ACLNN_ERR_PARAM_INVALID,
                        "tensors[0] dim%d (%lld) and tensors[1] dim%d (%lld) should be the same.", d,
                        (long long)x->dims[d], d, (long long)y->dims[d]);
        ACLNN_CHECK(x->dims[3] == y->dims[4], ACLNN_ERR_PARAM_INVALID,
                    "tensors[0] dim3 (%lld) and tensors[1] dim4 (%lld) should be the same.", (long long)x->dims[3],
                    (long long)y->dims[4]);
        for (int d = 0; d < 2; d++)
            ACLNN_CHECK(output->dims[d] == x->dims[d], ACLNN_ERR_PARAM_INVALID,
                        "output dim%d (%lld) and tensors[0] dim%d (%lld) should be the same.", d,
                        (long long)output->dims[d], d, (long long)x->dims[d]);
        for (int d = 0; d < 4; d++)
            ACLNN_CHECK(x->dims[d] != 0, ACLNN_ERR_PARAM_INVALID, "tensors[0] dim%d should not be 0.", d);
        ACLNN_CHECK(y->dims[3] != 0, ACLNN_ERR_PARAM_INVALID, "tensors[1] dim3 should not be 0.");
        ACLNN_CHECK(output->dims[2] == x->dims[2] && output->dims[3] == y->dims[3], ACLNN_ERR_PARAM_INVALID,
                    "output dims 2, 3 (%lld, %lld) should be (%lld, %lld).", (long long)output->dims[2],
                    (long long)output->dims[3], (long long)x->dims[2], (long long)y->dims[3]);
        /* out[a,b,c,e] = sum_d x[a,b,c,d] * y[a,b,c,e,d]: per (a,b,c) a 1 x D by D x E product */
        g.M = 1;
        g.N = y->dims[3];
        g.K = x->dims[3];
        g.nbd = 3;
        for (int d = 0; d < 3; d++) {
            g.bshape[d] = x->dims[d];
            g.bsa[d] = x->strides[d];
            g.bsb[d] = y->strides[d];
            g.bsc[d] = output->strides[d];
        }
        g.ars = 0;
        g.acs = x->strides[3];
        g.brs = y->strides[4];
        g.bcs = y->strides[3];
        g.crs = 0;
        g.ccs = output->strides[3];
    } else if (strcmp(eq, "a,b->ab") == 0) {
        ACL_TRY(acl_check_rank(x, 1, "tensors[0]"));
        ACL_TRY(acl_check_rank(y, 1, "tensors[1]"));
        ACL_TRY(acl_check_rank(output, 2, "output"));
        ACLNN_CHECK(output->dims[0] == x->dims[0] && output->dims[1] == y->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "output shape [%lld, %lld] should be [%lld, %lld].", (long long)output->dims[0],
                    (long long)output->dims[1], (long long)x->dims[0], (long long)y->dims[0]);
        if (acl_tensor_empty(output)) return acl_exec_noop(ACL_OP_Einsum, workspaceSize, executor);
        g.M = x->dims[0];
        g.N = y->dims[0];
        g.K = 1;
        g.ars = x->strides[0];
        g.acs = 0;
        g.brs = 0;
        g.bcs = y->strides[0];
        g.crs = output->strides[0];
        g.ccs = output->strides[1];
    } else {
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                          "failed to match equation [%s]: the supported equations are abcd,abced->abce and a,b->ab "
                          "(any letters).", eq);
    }
    return mm_publish(ACL_OP_Einsum, x, "tensors[0]", y, "tensors[1]", output, "output", &g, workspaceSize, executor);
}
