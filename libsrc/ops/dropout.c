/* The dropout family of ops-math random/: DropoutGenMask (V2, V2Tensor), DropoutDoMask, DropoutBackward, Dropout,
 * DropoutV3 and DropoutV3Grad. Validation follows each real op_api (order, codes, A2 dtype lists from the op table).
 *
 * Masks are bit masks of uint8, ceil(n / 128) * 16 bytes for n elements: bit b (LSB first) of byte k keeps element
 * 8k + b. A generated bit j is philox_uniform_fc(seed, offset, j) >= prob (common/philox.h: block j / 4, word j % 4),
 * so an element is kept with probability 1 - prob; the padding bits past n are generated the same way. prob 0 gives
 * all 0xFF, prob 1 all zeros. The tensor seed/offset variants read *seedTensor and *offsetTensor + offset at the
 * second phase.
 * Applying a mask: out = bit ? x / keep : 0 with keep = 1 - prob rounded to x's dtype (the device's prob tensor),
 * computed in float and rounded once to out's dtype; prob 0 copies x, prob 1 gives zeros. DropoutBackward uses
 * prob = 1 - 1 / scale (1 when scale is 0). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/philox.h"
#include "common/status.h"
#include "meta/meta.h"
#include "ops/ops.h"
#include "ops/gen/all_ops.h"

static int64_t mask_bytes(int64_t n) { return (n + 127) / 128 * 16; }

static aclnnStatus dims8(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most 8 are supported.", name,
                (unsigned long long)t->ndim);
    return acl_check_nonneg_dims(t, name);
}

static aclnnStatus can_cast(const aclTensor *a, const char *an, const aclTensor *out, const char *on) {
    ACLNN_CHECK(acl_can_cast(a->dtype, out->dtype), ACLNN_ERR_PARAM_INVALID, "%s dtype %s can not be cast to %s dtype %s.",
                an, acl_dtype_name(a->dtype), on, acl_dtype_name(out->dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus prob_range(double p, const char *name) {
    ACLNN_CHECK(p >= 0 && p <= 1, ACLNN_ERR_PARAM_INVALID, "The value of %s has to be between 0 and 1, but current is %f.",
                name, p);
    return ACLNN_SUCCESS;
}

static aclnnStatus seed_tensor(const aclTensor *t, const char *name) {
    ACL_TRY(acl_check_tensor(t, name));
    ACLNN_CHECK(t->dtype == ACL_INT64 || t->dtype == ACL_UINT64, ACLNN_ERR_PARAM_INVALID,
                "%s dtype %s should be DT_INT64 or DT_UINT64.", name, acl_dtype_name(t->dtype));
    ACLNN_CHECK(acl_tensor_numel(t) == 1, ACLNN_ERR_PARAM_INVALID, "%s should hold exactly one element.", name);
    return ACLNN_SUCCESS;
}

static uint64_t read_u64(const acl_view *v) {
    return v->dtype == ACL_UINT64 ? *(const uint64_t *)v->base : (uint64_t)*(const int64_t *)v->base;
}

/* the byte offset (in elements) of row-major element i of view v */
static int64_t elem_off(const acl_view *v, int64_t i) {
    int64_t off = 0;
    for (int k = v->ndim - 1; k >= 0; k--) {
        off += (i % v->dims[k]) * v->strides[k];
        i /= v->dims[k];
    }
    return off;
}

/* ---- plan: an optional input x (with out), an optional mask to read or to write ---- */
enum { DM_GEN = 1, DM_APPLY = 2 };
typedef struct {
    int mode;                 /* DM_GEN: generate the mask (into mask_out); DM_APPLY: out = x masked */
    double prob;              /* the drop probability */
    uint64_t seed, offset;
    int seed_in, off_in;      /* input indices of seed/offset tensors, -1: the scalars */
    int x_in, mask_in;        /* input indices of x and of a mask to read, -1 none */
    int out_i, mask_out;      /* output indices of out and of the mask to write, -1 none */
    int64_t n;                /* elements of x */
} dm_params;

static inline int keep_bit(philox_cache *c, uint64_t seed, uint64_t off, double prob, int64_t j) {
    return (double)philox_uniform_fc(c, seed, off, (uint64_t)j) >= prob;
}

static aclnnStatus dm_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const dm_params *p = ex->params;
    const uint64_t seed = p->seed_in >= 0 ? read_u64(acl_exec_in(ex, p->seed_in)) : p->seed;
    const uint64_t off = p->off_in >= 0 ? read_u64(acl_exec_in(ex, p->off_in)) + p->offset : p->offset;
    const acl_view *mv = p->mask_out >= 0 ? acl_exec_out(ex, p->mask_out) : p->mask_in >= 0 ? acl_exec_in(ex, p->mask_in)
                                                                                             : NULL;
    const int64_t nb = mv ? acl_view_numel(mv) : 0;
    unsigned char *bits = mv ? malloc((size_t)(nb ? nb : 1)) : NULL;
    if (mv && !bits) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory in dropout.");
    if (p->mode & DM_GEN) {
        ACL_FOR(acl_parallel_worth(nb * 8), k, 0, nb, {
            unsigned b = 0;
            philox_cache pc = {0, 0, {0, 0, 0, 0}};
            if (p->prob <= 0) b = 0xFF;
            else if (p->prob < 1)
                for (int t = 0; t < 8; t++) b |= (unsigned)keep_bit(&pc, seed, off, p->prob, 8 * k + t) << t;
            bits[k] = (unsigned char)b;
            *(unsigned char *)(mv->base + elem_off(mv, k)) = (unsigned char)b;
        });
    } else if (mv) {
        for (int64_t k = 0; k < nb; k++) bits[k] = *(const unsigned char *)(mv->base + elem_off(mv, k));
    }
    if (p->mode & DM_APPLY) {
        const acl_view *x = acl_exec_in(ex, p->x_in), *o = acl_exec_out(ex, p->out_i);
        const size_t xs = acl_dtype_size(x->dtype), os = acl_dtype_size(o->dtype);
        float keep;
        acl_convert(&(float){(float)(1 - p->prob)}, ACL_FLOAT, 1, &keep, ACL_FLOAT, 1, 1);
        unsigned char kb[16] __attribute__((aligned(16)));
        acl_convert(&keep, ACL_FLOAT, 1, kb, x->dtype, 1, 1); /* keep in x's dtype, as the device's prob tensor */
        acl_convert(kb, x->dtype, 1, &keep, ACL_FLOAT, 1, 1);
        ACL_FOR(acl_parallel_worth(p->n), i, 0, p->n, {
            float v;
            acl_convert(x->base + elem_off(x, i) * (int64_t)xs, x->dtype, 1, &v, ACL_FLOAT, 1, 1);
            if (p->prob >= 1) v = 0;
            else if (p->prob > 0) v = ((bits[i >> 3] >> (i & 7)) & 1) ? v / keep : 0.0f;
            acl_convert(&v, ACL_FLOAT, 1, o->base + elem_off(o, i) * (int64_t)os, o->dtype, 1, 1);
        });
    }
    free(bits);
    return ACLNN_SUCCESS;
}

typedef struct { const aclTensor *t; const char *name; bool needs; } dm_io;

static aclnnStatus dm_publish(int op, dm_params *p, const dm_io *ins, int nin, const dm_io *outs, int nout,
                              uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, dm_run, sizeof *p);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int k = 0; k < nin && rc == 0; k++) rc = acl_exec_add_input(ex, ins[k].t, ins[k].name, ins[k].needs);
    for (int k = 0; k < nout && rc == 0; k++) rc = acl_exec_add_output(ex, outs[k].t, outs[k].name);
    if (rc) return acl_exec_discard(ex, rc);
    *(dm_params *)ex->params = *p;
    return acl_exec_publish(ex, ws, exo);
}

/* ---------------------------------------------------------------- DropoutGenMask (V2, V2Tensor) */
static aclnnStatus gen_mask_checks(const aclIntArray *shape, double prob, const aclTensor *out) {
    ACL_TRY(acl_check_int_array(shape, "shape"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_DropoutGenMask, "out"));
    ACL_TRY(prob_range(prob, "prob"));
    int64_t n = 1;
    for (uint64_t k = 0; k < shape->size; k++) {
        ACLNN_CHECK(shape->v[k] >= 0 && !__builtin_mul_overflow(n, shape->v[k], &n) && n <= INT64_MAX - 127,
                    ACLNN_ERR_PARAM_INVALID, "shape[%llu] = %lld is not a valid dimension.", (unsigned long long)k,
                    (long long)shape->v[k]);
    }
    ACL_TRY(acl_check_nonneg_dims(out, "out"));
    const int64_t need = mask_bytes(n), have = acl_tensor_numel(out);
    ACLNN_CHECK(have == need, ACLNN_ERR_PARAM_INVALID, "Size of out has to be %lld, but current is %lld.",
                (long long)need, (long long)have);
    return ACLNN_SUCCESS;
}

static aclnnStatus prob_dtype(double prob, aclDataType dt) {
    if (prob == 0 || prob == 1) return ACLNN_SUCCESS; /* a fill: probDataType unused */
    ACLNN_CHECK(dt == ACL_FLOAT16 || dt == ACL_BF16 || dt == ACL_FLOAT, ACLNN_ERR_INNER_NULLPTR,
                "Scalar p not implemented for probDataType %s, should be in dtype support list [DT_FLOAT16, DT_BF16, "
                "DT_FLOAT].", acl_dtype_name(dt));
    return ACLNN_SUCCESS;
}

static aclnnStatus gen_mask(int op, const aclIntArray *shape, double prob, uint64_t seed, uint64_t offset,
                            const aclTensor *seedT, const aclTensor *offT, const aclTensor *out, uint64_t *ws,
                            aclOpExecutor **exo) {
    dm_params p = {.mode = DM_GEN, .prob = prob, .seed = seed, .offset = offset, .seed_in = seedT ? 0 : -1,
                   .off_in = seedT ? 1 : -1, .x_in = -1, .mask_in = -1, .out_i = -1, .mask_out = 0};
    const dm_io ins[] = {{seedT, "seedTensor", true}, {offT, "offsetTensor", true}};
    const dm_io outs[] = {{out, "out", true}};
    return dm_publish(op, &p, ins, seedT ? 2 : 0, outs, 1, ws, exo);
}

aclnnStatus opws_DropoutGenMask(const aclIntArray *shape, double prob, int64_t seed, int64_t offset, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(gen_mask_checks(shape, prob, out));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_DropoutGenMask, workspaceSize, executor);
    return gen_mask(ACL_OP_DropoutGenMask, shape, prob, (uint64_t)seed, (uint64_t)offset, NULL, NULL, out,
                    workspaceSize, executor);
}

aclnnStatus opws_DropoutGenMaskV2(const aclIntArray *shape, double prob, int64_t seed, int64_t offset,
                                  aclDataType probDataType, aclTensor *out, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    ACL_TRY(gen_mask_checks(shape, prob, out));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_DropoutGenMaskV2, workspaceSize, executor);
    ACL_TRY(prob_dtype(prob, probDataType));
    return gen_mask(ACL_OP_DropoutGenMaskV2, shape, prob, (uint64_t)seed, (uint64_t)offset, NULL, NULL, out,
                    workspaceSize, executor);
}

aclnnStatus opws_DropoutGenMaskV2Tensor(const aclIntArray *shape, double prob, const aclTensor *seedTensor,
                                        const aclTensor *offsetTensor, int64_t offset, aclDataType probDataType,
                                        aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(gen_mask_checks(shape, prob, out));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_DropoutGenMaskV2Tensor, workspaceSize, executor);
    ACL_TRY(prob_dtype(prob, probDataType));
    if (prob == 0 || prob == 1) /* a fill: the seed tensors are not read */
        return gen_mask(ACL_OP_DropoutGenMaskV2Tensor, shape, prob, 0, 0, NULL, NULL, out, workspaceSize, executor);
    /* the A2 op_api passes them to the kernel unchecked; we read them, so they must be readable */
    ACL_TRY(seed_tensor(seedTensor, "seedTensor"));
    ACL_TRY(seed_tensor(offsetTensor, "offsetTensor"));
    return gen_mask(ACL_OP_DropoutGenMaskV2Tensor, shape, prob, 0, (uint64_t)offset, seedTensor, offsetTensor, out,
                    workspaceSize, executor);
}

/* ---------------------------------------------------------------- DropoutDoMask / DropoutBackward / V3Grad */
static aclnnStatus apply_checks(const aclTensor *x, const char *xn, const aclTensor *mask, const char *mn,
                                const aclTensor *out, const char *on, bool mask_exact) {
    ACL_TRY(can_cast(x, xn, out, on));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_DropoutDoMask, xn));
    ACLNN_CHECK(mask->dtype == ACL_UINT8, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be DT_UINT8.", mn,
                acl_dtype_name(mask->dtype));
    return ACLNN_SUCCESS;
    (void)mask_exact;
}

static aclnnStatus apply_shapes(const aclTensor *x, const char *xn, const aclTensor *mask, const char *mn,
                                const aclTensor *out, const char *on, bool exact) {
    ACL_TRY(dims8(x, xn));
    ACL_TRY(acl_check_same_shape(x, xn, out, on));
    ACL_TRY(acl_check_nonneg_dims(mask, mn));
    const int64_t need = mask_bytes(acl_tensor_numel(x)), have = acl_tensor_numel(mask);
    ACLNN_CHECK(exact ? have == need : have >= need, ACLNN_ERR_PARAM_INVALID, "Size of %s has to be %lld, but current "
                "is %lld.", mn, (long long)need, (long long)have);
    return ACLNN_SUCCESS;
}

static aclnnStatus apply_publish(int op, const aclTensor *x, const char *xn, const aclTensor *mask, const char *mn,
                                 double prob, const aclTensor *out, const char *on, uint64_t *ws,
                                 aclOpExecutor **exo) {
    dm_params p = {.mode = DM_APPLY, .prob = prob, .seed_in = -1, .off_in = -1, .x_in = 0, .mask_in = 1, .out_i = 0,
                   .mask_out = -1, .n = acl_tensor_numel(x)};
    const dm_io ins[] = {{x, xn, true}, {mask, mn, prob > 0 && prob < 1}};
    const dm_io outs[] = {{out, on, true}};
    if (!(prob > 0 && prob < 1)) p.mask_in = -1; /* the mask is not read */
    return dm_publish(op, &p, ins, 2, outs, 1, ws, exo);
}

aclnnStatus opws_DropoutDoMask(const aclTensor *self, const aclTensor *mask, double prob, aclTensor *out,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(mask, "mask"));
    ACL_TRY(acl_check_tensor(out, "out"));
    /* the op_api returns before its checks for an empty self or mask */
    if (acl_tensor_empty(self) || acl_tensor_empty(mask)) return acl_exec_noop(ACL_OP_DropoutDoMask, workspaceSize,
                                                                               executor);
    ACL_TRY(apply_checks(self, "self", mask, "mask", out, "out", false));
    ACL_TRY(prob_range(prob, "prob"));
    ACL_TRY(apply_shapes(self, "self", mask, "mask", out, "out", false));
    return apply_publish(ACL_OP_DropoutDoMask, self, "self", mask, "mask", prob, out, "out", workspaceSize, executor);
}

aclnnStatus opws_DropoutBackward(const aclTensor *gradOutput, const aclTensor *mask, double scale, aclTensor *out,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(mask, "mask"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(apply_checks(gradOutput, "gradOutput", mask, "mask", out, "out", true));
    const double prob = fabs(scale) <= 2.220446049250313e-16 ? 1 : 1 - 1 / scale;
    ACLNN_CHECK(prob >= 0 && prob <= 1, ACLNN_ERR_PARAM_INVALID, "The value of scale is error, p = (scale == 0.0) ? 1 : "
                "(1 - 1 / scale) has to be between 0 and 1, but got scale %f.", scale);
    ACL_TRY(apply_shapes(gradOutput, "gradOutput", mask, "mask", out, "out", true));
    if (acl_tensor_empty(gradOutput)) return acl_exec_noop(ACL_OP_DropoutBackward, workspaceSize, executor);
    return apply_publish(ACL_OP_DropoutBackward, gradOutput, "gradOutput", mask, "mask", prob, out, "out",
                         workspaceSize, executor);
}

aclnnStatus opws_DropoutV3Grad(const aclTensor *gradY, const aclTensor *mask, double scale, aclTensor *gradX,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the A2 op_api refuses every call before its other checks */
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "aclnnDropoutV3Grad is not supported in current socversion (gradY, "
                      "mask, gradX: Ascend 950 only).");
}

/* ---------------------------------------------------------------- Dropout / DropoutV3 */
static aclnnStatus dropout_like(int op, const aclTensor *input, const aclTensor *noise, bool v3, double p, bool train,
                                int64_t seed, int64_t offset, const aclTensor *out, const aclTensor *maskOut,
                                uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(input, "input"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_tensor(maskOut, "maskOut"));
    ACL_TRY(can_cast(input, "input", out, "out"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_Dropout, "input"));
    ACL_TRY(acl_check_dtype_in(maskOut, ((const aclDataType[]){ACL_UINT8}), 1, "maskOut"));
    if (v3)
        ACLNN_CHECK(noise == NULL, ACLNN_ERR_PARAM_INVALID,
                    "currently, the input of optionalNoiseShape must be nullptr, please check.");
    ACL_TRY(prob_range(p, "p"));
    ACL_TRY(dims8(input, "input"));
    ACL_TRY(acl_check_same_shape(input, "input", out, "out"));
    ACL_TRY(acl_check_nonneg_dims(maskOut, "maskOut"));
    const int64_t need = mask_bytes(acl_tensor_numel(input)), have = acl_tensor_numel(maskOut);
    ACLNN_CHECK(have == need, ACLNN_ERR_PARAM_INVALID, "Size of maskOut has to be %lld, but current is %lld.",
                (long long)need, (long long)have);
    if (acl_tensor_empty(input)) return acl_exec_noop(op, ws, exo);
    /* Dropout leaves maskOut untouched for p = 0, p = 1 or !train (V3 fills it: 0xFF / 0) */
    const bool gen = v3 || (train && p > 0 && p < 1);
    dm_params q = {.mode = DM_APPLY | (gen ? DM_GEN : 0), .prob = (train || v3) ? p : 0, .seed = (uint64_t)seed,
                   .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .x_in = 0, .mask_in = -1, .out_i = 0,
                   .mask_out = gen ? 1 : -1, .n = acl_tensor_numel(input)};
    const dm_io ins[] = {{input, "input", true}};
    const dm_io outs[] = {{out, "out", true}, {maskOut, "maskOut", true}};
    return dm_publish(op, &q, ins, 1, outs, gen ? 2 : 1, ws, exo);
}

aclnnStatus opws_Dropout(const aclTensor *input, double p, bool train, int64_t seed, int64_t offset, aclTensor *out,
                         aclTensor *maskOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return dropout_like(ACL_OP_Dropout, input, NULL, false, p, train, seed, offset, out, maskOut, workspaceSize,
                        executor);
}

aclnnStatus opws_DropoutV3(const aclTensor *input, const aclTensor *optionalNoiseShape, double p, int64_t seed,
                           int64_t offset, aclTensor *out, aclTensor *maskOut, uint64_t *workspaceSize,
                           aclOpExecutor **executor) {
    return dropout_like(ACL_OP_DropoutV3, input, optionalNoiseShape, true, p, true, seed, offset, out, maskOut,
                        workspaceSize, executor);
}
