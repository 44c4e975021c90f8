/* Random ops of ops-math random/: Bernoulli (+Tensor, Inplace twins), InplaceNormal(+Tensor), InplaceUniform(+Tensor),
 * Multinomial(+Tensor), Normal{Tensor,Float}{Tensor,Float}. Validation follows each real op_api (order, codes, A2
 * dtype lists from the op table).
 *
 * Values. The device's bits cannot be reproduced; every value is a pure function of (seed, offset, element index)
 * through Philox4x32-10 (common/philox.h: key = seed, counter = (block, offset)), so results are identical for any
 * OMP_NUM_THREADS and two calls with the same seed/offset give the same bytes. The element index i is the row-major
 * position of the element in the op's output shape (for NormalTensorTensor: in mean's shape, see below);
 *  - Bernoulli: out[i] = philox_uniform_fc(i) < p (p the scalar, or prob broadcast to self), as 0/1 in out's dtype:
 *    p = 0 gives all zeros, p = 1 all ones;
 *  - InplaceUniform: from + (to - from) * u, u = philox_uniform_fc(i) computed in float (philox_uniform_dc in double
 *    for a double tensor), then converted to the tensor's dtype (integers truncate, as the device's Cast does);
 *  - InplaceNormal / Normal*: mean + std * z, z = philox_normal_fc(i) rounded to float and the arithmetic in float
 *    (philox_normal_dc and double when the compute dtype is double), converted once to out's dtype;
 *    NormalTensorTensor draws z in mean's shape and broadcasts it, as the device does (its StatelessRandomNormalV2
 *    runs on mean, then Mul with std broadcasts): elements that share a mean element share z;
 *  - Multinomial with replacement: sample s of row r uses u = philox_uniform_d(r * numsamples + s) and picks the first
 *    class whose normalised cumulative probability exceeds u (a class of probability 0 is never picked); without
 *    replacement (or numsamples == 1 in the device's way) the exponential race of the device: key_k = p_k / E_k,
 *    E_k = -log(1 - philox_uniform_d(r * n_categories + k)) + 1e-7, the numsamples largest keys in descending order
 *    (ties: lower index first), so indices are distinct and zero-probability classes come last.
 *  - InplaceRandom: from' + floor(philox_uniform_d(i) * (to' - from')), an integer of [from', to') converted to the
 *    tensor's dtype, from'/to' being from/to moved inside the values the floating dtype represents exactly (as the op_api
 *    does); WithoutFromTo: [0, 2^mantissa] for floating dtypes, [0, max] for integers, {0, 1} for bool (PyTorch's
 *    random_());
 *  - Randperm: the indices sorted by the 64-bit keys (words 2(i % 2), 2(i % 2) + 1 of block i / 2), ties by index;
 *  - SimThreadExponential: -log(u) / lambda in float, u = ((w >> 8) + 1/2) 2^-24 in (0, 1) from word i % 4 of block
 *    i / 4 (always finite and > 0).
 * The *Tensor variants read seed and offset from their one-element int64 (or uint64) tensors at run time (the
 * second phase), the stream offset being *offsetTensor + offset. */
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

enum { RK_BERN, RK_BERN_T, RK_UNIFORM, RK_NORMAL, RK_NORMAL_TT, RK_NORMAL_TF, RK_NORMAL_FT, RK_RANDOM, RK_EXP };

typedef struct {
    int kind;
    bool dbl;            /* compute in double */
    uint64_t seed, offset;
    int seed_in, off_in; /* input indices of the seed/offset tensors, -1: the scalars above */
    double a, b;         /* p | from, to | mean, std */
    int in_a, in_b;      /* input indices of prob | mean, std tensors (broadcast to out), -1 none */
    int64_t lo;          /* InplaceRandom: from */
    uint64_t range;      /* InplaceRandom: to - from (> 0) */
} rnd_params;

static aclnnStatus max_dim(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most 8 are supported.", name,
                (unsigned long long)t->ndim);
    return acl_check_nonneg_dims(t, name);
}

static aclnnStatus not_private(const aclTensor *t, const char *name) {
    ACLNN_CHECK(!acl_format_is_private(t->format), ACLNN_ERR_PARAM_INVALID,
                "%s has a private format (%d); only ND, NCHW, NHWC, HWCN, NDHWC and NCDHW are supported.", name,
                (int)t->format);
    return ACLNN_SUCCESS;
}

/* the broadcast of a and b into dims[]; false when they do not broadcast */
static bool bcast(const aclTensor *a, const aclTensor *b, int64_t *dims, uint64_t *nd) {
    const uint64_t n = a->ndim > b->ndim ? a->ndim : b->ndim;
    for (uint64_t k = 0; k < n; k++) {
        const int64_t da = k + a->ndim >= n ? a->dims[k + a->ndim - n] : 1;
        const int64_t db = k + b->ndim >= n ? b->dims[k + b->ndim - n] : 1;
        if (da != db && da != 1 && db != 1) return false;
        dims[k] = da == 1 ? db : da;
    }
    *nd = n;
    return true;
}

static aclnnStatus bcast_to(const aclTensor *a, const char *an, const aclTensor *out, const char *on) {
    int64_t d[ACL_MAX_TENSOR_DIMS];
    uint64_t n = 0;
    bool ok = bcast(a, out, d, &n) && n == out->ndim;
    for (uint64_t k = 0; ok && k < n; k++) ok = d[k] == out->dims[k];
    if (ok) return ACLNN_SUCCESS;
    char sa[256], so[256];
    acl_shape_str(a, sa, sizeof sa);
    acl_shape_str(out, so, sizeof so);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s can not be broadcast to %s shape %s.", an, sa, on, so);
}

/* strides of input view v aligned to out's dims (0 where v broadcasts); dense[] the row-major index strides of v's
 * own shape (also 0 where it broadcasts) */
static void align(const acl_view *v, const acl_view *o, int64_t *st, int64_t *dense) {
    int64_t acc = 1;
    for (int k = o->ndim - 1; k >= 0; k--) {
        const int j = k - (o->ndim - v->ndim);
        if (j < 0 || (v->dims[j] == 1 && o->dims[k] != 1)) {
            st[k] = 0;
            dense[k] = 0;
        } else {
            st[k] = v->strides[j];
            dense[k] = acc;
        }
        if (j >= 0) acc *= v->dims[j];
    }
}

static uint64_t read_u64(const acl_view *v) {
    return v->dtype == ACL_UINT64 ? *(const uint64_t *)v->base : (uint64_t)*(const int64_t *)v->base;
}

static aclnnStatus rnd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rnd_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const uint64_t seed = p->seed_in >= 0 ? read_u64(acl_exec_in(ex, p->seed_in)) : p->seed;
    const uint64_t off = p->off_in >= 0 ? read_u64(acl_exec_in(ex, p->off_in)) + p->offset : p->offset;
    const acl_view *va = p->in_a >= 0 ? acl_exec_in(ex, p->in_a) : NULL, *vb = p->in_b >= 0 ? acl_exec_in(ex, p->in_b) : NULL;
    int64_t sa[ACL_MAX_VIEW_RANK] = {0}, da[ACL_MAX_VIEW_RANK] = {0}, sb[ACL_MAX_VIEW_RANK] = {0},
            db[ACL_MAX_VIEW_RANK] = {0};
    if (va) align(va, o, sa, da);
    if (vb) align(vb, o, sb, db);
    const size_t es = acl_dtype_size(o->dtype), esa = va ? acl_dtype_size(va->dtype) : 0,
                 esb = vb ? acl_dtype_size(vb->dtype) : 0;
    const int nd = o->ndim;
    const int64_t total = acl_view_numel(o), inner = nd ? o->dims[nd - 1] : 1, rows = inner ? total / inner : 0;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(total * 8))
    for (int64_t r = 0; r < rows; r++) {
        int64_t rem = r, oo = 0, ao = 0, bo = 0, zi = 0;
        for (int k = nd - 2; k >= 0; k--) {
            const int64_t ix = rem % o->dims[k];
            rem /= o->dims[k];
            oo += ix * o->strides[k];
            ao += ix * sa[k];
            bo += ix * sb[k];
            zi += ix * da[k];
        }
        const int64_t ist = nd ? o->strides[nd - 1] : 0, ast = nd ? sa[nd - 1] : 0, bst = nd ? sb[nd - 1] : 0,
                      zst = nd ? da[nd - 1] : 0;
        philox_cache pc = {0, 0, {0, 0, 0, 0}};
        for (int64_t j = 0; j < inner; j++) {
            const uint64_t i = (uint64_t)(r * inner + j);
            char *dst = o->base + (oo + j * ist) * (int64_t)es;
            const char *pa = va ? va->base + (ao + j * ast) * (int64_t)esa : NULL;
            const char *pb = vb ? vb->base + (bo + j * bst) * (int64_t)esb : NULL;
            switch (p->kind) {
            case RK_BERN:
            case RK_BERN_T: {
                const double pr = p->kind == RK_BERN ? p->a : acl_read_f64(pa, va->dtype);
                const float one = (double)philox_uniform_fc(&pc, seed, off, i) < pr ? 1.0f : 0.0f;
                acl_convert(&one, ACL_FLOAT, 1, dst, o->dtype, 1, 1);
                break;
            }
            case RK_UNIFORM:
                if (p->dbl) {
                    const double v = p->a + (p->b - p->a) * philox_uniform_dc(&pc, seed, off, i);
                    acl_convert(&v, ACL_DOUBLE, 1, dst, o->dtype, 1, 1);
                } else {
                    const float lo = (float)p->a, v = lo + ((float)p->b - lo) * philox_uniform_fc(&pc, seed, off, i);
                    acl_convert(&v, ACL_FLOAT, 1, dst, o->dtype, 1, 1);
                }
                break;
            case RK_RANDOM: { /* an integer of [lo, lo + range) */
                uint64_t k = (uint64_t)(philox_uniform_dc(&pc, seed, off, i) * (double)p->range);
                if (k >= p->range) k = p->range - 1;
                const int64_t v = (int64_t)((uint64_t)p->lo + k);
                acl_convert(&v, ACL_INT64, 1, dst, o->dtype, 1, 1);
                break;
            }
            case RK_EXP: {
                const uint32_t *w = philox_block_cached(&pc, seed, off, i >> 2);
                const float u = ((float)(w[i & 3] >> 8) + 0.5f) * 0x1p-24f; /* in (0, 1): the result is > 0, finite */
                const float v = -logf(u) / (float)p->a;
                acl_convert(&v, ACL_FLOAT, 1, dst, o->dtype, 1, 1);
                break;
            }
            default: { /* normal: mean (a or pa), std (b or pb) */
                const uint64_t zidx = p->kind == RK_NORMAL_TT ? (uint64_t)(zi + j * zst) : i;
                double mean = p->a, sd = p->b;
                if (p->kind == RK_NORMAL_TT || p->kind == RK_NORMAL_TF) mean = acl_read_f64(pa, va->dtype);
                if (p->kind == RK_NORMAL_TT || p->kind == RK_NORMAL_FT) sd = acl_read_f64(pb, vb->dtype);
                if (p->dbl) {
                    const double v = mean + sd * philox_normal_dc(&pc, seed, off, zidx);
                    acl_convert(&v, ACL_DOUBLE, 1, dst, o->dtype, 1, 1);
                } else {
                    const float v = (float)mean + (float)sd * (float)philox_normal_fc(&pc, seed, off, zidx);
                    acl_convert(&v, ACL_FLOAT, 1, dst, o->dtype, 1, 1);
                }
                break;
            }
            }
        }
    }
    return ACLNN_SUCCESS;
}

/* ins[] (NULL entries skipped, in API order) then out; p's input indices refer to the positions in ins[] */
static aclnnStatus rnd_publish(int op, rnd_params *p, const aclTensor *const *ins, const char *const *names,
                               const bool *needs, int nin, const aclTensor *out, const char *oname, uint64_t *ws,
                               aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, rnd_run, sizeof *p);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int k = 0; k < nin && rc == 0; k++) rc = acl_exec_add_input(ex, ins[k], names[k], needs[k]);
    if (rc == 0) rc = acl_exec_add_output(ex, out, oname);
    if (rc) return acl_exec_discard(ex, rc);
    *(rnd_params *)ex->params = *p;
    return acl_exec_publish(ex, ws, exo);
}

/* the seed/offset tensors of the *Tensor variants: one element, int64 (or uint64 where the op allows it) */
static aclnnStatus seed_tensor(const aclTensor *t, const char *name, bool allow_u64) {
    ACL_TRY(acl_check_tensor(t, name));
    ACLNN_CHECK(t->dtype == ACL_INT64 || (allow_u64 && t->dtype == ACL_UINT64), ACLNN_ERR_PARAM_INVALID,
                "%s dtype %s should be DT_INT64%s.", name, acl_dtype_name(t->dtype), allow_u64 ? " or DT_UINT64" : "");
    ACLNN_CHECK(acl_tensor_numel(t) == 1, ACLNN_ERR_PARAM_INVALID, "%s should hold exactly one element.", name);
    return ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- Bernoulli */
static aclnnStatus bernoulli(int op, const aclTensor *self, const char *sname, const aclScalar *prob,
                             int64_t seed, int64_t offset, const aclTensor *out, const char *oname, uint64_t *ws,
                             aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, sname));
    ACLNN_CHECK(prob != NULL, ACLNN_ERR_PARAM_NULLPTR, "prob must not be NULL.");
    ACL_TRY(acl_check_tensor(out, oname));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Bernoulli, sname));
    bool ok = false;
    const aclDataType pl[] = {ACL_FLOAT, ACL_FLOAT16, ACL_DOUBLE, ACL_BF16};
    for (int k = 0; k < 4; k++) ok |= prob->dtype == pl[k];
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "prob dtype %s should be in dtype support list [DT_FLOAT, DT_FLOAT16, "
                "DT_DOUBLE, DT_BF16].", acl_dtype_name(prob->dtype));
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as %s dtype %s.",
                oname, acl_dtype_name(out->dtype), sname, acl_dtype_name(self->dtype));
    const double pv = acl_read_f64(prob->bytes, prob->dtype);
    ACLNN_CHECK(pv >= 0 && pv <= 1, ACLNN_ERR_PARAM_INVALID, "prob should be in range 0<=prob<=1, got %g.", pv);
    ACL_TRY(max_dim(self, sname));
    if (out != self) ACL_TRY(acl_check_same_shape(self, sname, out, oname));
    ACL_TRY(not_private(self, sname));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    rnd_params p = {.kind = RK_BERN, .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1,
                    .off_in = -1, .a = pv, .in_a = -1, .in_b = -1};
    const aclTensor *ins[] = {self};
    const char *names[] = {sname};
    const bool needs[] = {false};
    return rnd_publish(op, &p, ins, names, needs, out != self ? 1 : 0, out, oname, ws, exo);
}

static aclnnStatus bernoulli_tensor(int op, const aclTensor *self, const char *sname, const aclTensor *prob,
                                    int64_t seed, int64_t offset, const aclTensor *out, const char *oname,
                                    uint64_t *ws, aclOpExecutor **exo) {
    ACL_TRY(acl_check_tensor(self, sname));
    ACL_TRY(acl_check_tensor(prob, "prob"));
    ACL_TRY(acl_check_tensor(out, oname));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_BernoulliTensor, sname));
    ACL_TRY(acl_check_dtype_in(prob, ACL_DT_LIST_BernoulliTensor_prob, "prob"));
    ACLNN_CHECK(self->dtype == out->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as %s dtype %s.",
                oname, acl_dtype_name(out->dtype), sname, acl_dtype_name(self->dtype));
    ACL_TRY(max_dim(self, sname));
    ACL_TRY(max_dim(prob, "prob"));
    if (out != self) ACL_TRY(acl_check_same_shape(self, sname, out, oname));
    ACLNN_CHECK(!acl_format_is_private(self->format) && !acl_format_is_private(prob->format),
                ACLNN_ERR_PARAM_INVALID, "%s and prob must not have a private format.", sname);
    if (acl_tensor_empty(self) || acl_tensor_empty(prob)) return acl_exec_noop(op, ws, exo);
    /* the kernel reads prob element-wise over self's shape: prob must broadcast to it */
    ACL_TRY(bcast_to(prob, "prob", self, sname));
    rnd_params p = {.kind = RK_BERN_T, .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1,
                    .off_in = -1, .in_a = 0, .in_b = -1};
    const aclTensor *ins[] = {prob, self};
    const char *names[] = {"prob", sname};
    const bool needs[] = {true, false};
    return rnd_publish(op, &p, ins, names, needs, out != self ? 2 : 1, out, oname, ws, exo);
}

aclnnStatus opws_Bernoulli(const aclTensor *self, const aclScalar *prob, int64_t seed, int64_t offset, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bernoulli(ACL_OP_Bernoulli, self, "self", prob, seed, offset, out, "out", workspaceSize, executor);
}

aclnnStatus opws_BernoulliTensor(const aclTensor *self, const aclTensor *prob, int64_t seed, int64_t offset,
                                 aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bernoulli_tensor(ACL_OP_BernoulliTensor, self, "self", prob, seed, offset, out, "out", workspaceSize,
                            executor);
}

aclnnStatus opws_InplaceBernoulli(const aclTensor *selfRef, const aclScalar *prob, int64_t seed, int64_t offset,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bernoulli(ACL_OP_InplaceBernoulli, selfRef, "selfRef", prob, seed, offset, selfRef, "selfRef",
                     workspaceSize, executor);
}

aclnnStatus opws_InplaceBernoulliTensor(const aclTensor *selfRef, const aclTensor *prob, int64_t seed, int64_t offset,
                                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    return bernoulli_tensor(ACL_OP_InplaceBernoulliTensor, selfRef, "selfRef", prob, seed, offset, selfRef, "selfRef",
                            workspaceSize, executor);
}

/* ---------------------------------------------------------------- InplaceNormal */
static aclnnStatus normal_checks(const aclTensor *self, float std) {
    ACL_TRY(acl_check_tensor(self, "selfRef"));
    ACLNN_CHECK(std >= 0, ACLNN_ERR_PARAM_INVALID, "Normal expects std >= 0.0, but found std [%f].", (double)std);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_InplaceNormal, "selfRef"));
    return max_dim(self, "selfRef");
}

aclnnStatus opws_InplaceNormal(const aclTensor *selfRef, float mean, float std, int64_t seed, int64_t offset,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(normal_checks(selfRef, std));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceNormal, workspaceSize, executor);
    rnd_params p = {.kind = RK_NORMAL, .dbl = selfRef->dtype == ACL_DOUBLE, .seed = (uint64_t)seed,
                    .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .a = mean, .b = std, .in_a = -1,
                    .in_b = -1};
    return rnd_publish(ACL_OP_InplaceNormal, &p, NULL, NULL, NULL, 0, selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus opws_InplaceNormalTensor(const aclTensor *selfRef, float mean, float std, const aclTensor *seedTensor,
                                     const aclTensor *offsetTensor, int64_t offset, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(seedTensor, "seedTensor"));
    ACL_TRY(acl_check_tensor(offsetTensor, "offsetTensor"));
    ACLNN_CHECK(seedTensor->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID, "seedTensor dtype %s should be DT_INT64.",
                acl_dtype_name(seedTensor->dtype));
    ACLNN_CHECK(offsetTensor->dtype == ACL_INT64, ACLNN_ERR_PARAM_INVALID,
                "offsetTensor dtype %s should be DT_INT64.", acl_dtype_name(offsetTensor->dtype));
    ACLNN_CHECK(seedTensor->ndim == 1 && seedTensor->dims[0] == 1, ACLNN_ERR_PARAM_INVALID,
                "seedTensor shape should be [1].");
    ACLNN_CHECK(offsetTensor->ndim == 1 && offsetTensor->dims[0] == 1, ACLNN_ERR_PARAM_INVALID,
                "offsetTensor shape should be [1].");
    ACL_TRY(normal_checks(selfRef, std));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceNormalTensor, workspaceSize, executor);
    rnd_params p = {.kind = RK_NORMAL, .dbl = selfRef->dtype == ACL_DOUBLE, .offset = (uint64_t)offset,
                    .seed_in = 0, .off_in = 1, .a = mean, .b = std, .in_a = -1, .in_b = -1};
    const aclTensor *ins[] = {seedTensor, offsetTensor};
    const char *names[] = {"seedTensor", "offsetTensor"};
    const bool needs[] = {true, true};
    return rnd_publish(ACL_OP_InplaceNormalTensor, &p, ins, names, needs, 2, selfRef, "selfRef", workspaceSize,
                       executor);
}

/* ---------------------------------------------------------------- InplaceUniform */
static aclnnStatus uniform_checks(const aclTensor *self, double from, double to) {
    ACL_TRY(acl_check_tensor(self, "selfRef"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_InplaceUniform, "selfRef"));
    ACL_TRY(max_dim(self, "selfRef"));
    ACLNN_CHECK(!(from > to), ACLNN_ERR_PARAM_INVALID, "from cannot be greater than to, from is %lf and to is %lf.",
                from, to);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_InplaceUniform(const aclTensor *selfRef, double from, double to, uint64_t seed, uint64_t offset,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(uniform_checks(selfRef, from, to));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceUniform, workspaceSize, executor);
    rnd_params p = {.kind = RK_UNIFORM, .dbl = selfRef->dtype == ACL_DOUBLE, .seed = seed, .offset = offset,
                    .seed_in = -1, .off_in = -1, .a = from, .b = to, .in_a = -1, .in_b = -1};
    return rnd_publish(ACL_OP_InplaceUniform, &p, NULL, NULL, NULL, 0, selfRef, "selfRef", workspaceSize, executor);
}

aclnnStatus opws_InplaceUniformTensor(const aclTensor *selfRef, double from, double to, const aclTensor *seedTensor,
                                      const aclTensor *offsetTensor, uint64_t offset, uint64_t *workspaceSize,
                                      aclOpExecutor **executor) {
    ACL_TRY(uniform_checks(selfRef, from, to));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceUniformTensor, workspaceSize, executor);
    /* the A2 op_api passes the tensors to the kernel unchecked; we read them, so they must be readable */
    ACL_TRY(seed_tensor(seedTensor, "seedTensor", true));
    ACL_TRY(seed_tensor(offsetTensor, "offsetTensor", true));
    rnd_params p = {.kind = RK_UNIFORM, .dbl = selfRef->dtype == ACL_DOUBLE, .offset = offset, .seed_in = 0,
                    .off_in = 1, .a = from, .b = to, .in_a = -1, .in_b = -1};
    const aclTensor *ins[] = {seedTensor, offsetTensor};
    const char *names[] = {"seedTensor", "offsetTensor"};
    const bool needs[] = {true, true};
    return rnd_publish(ACL_OP_InplaceUniformTensor, &p, ins, names, needs, 2, selfRef, "selfRef", workspaceSize,
                       executor);
}

/* ---------------------------------------------------------------- Normal{Tensor,Float}{Tensor,Float} */
static aclnnStatus check_out_shape(const aclTensor *out, const int64_t *d, uint64_t n) {
    bool ok = n == out->ndim;
    for (uint64_t k = 0; ok && k < n; k++) ok = d[k] == out->dims[k];
    if (ok) return ACLNN_SUCCESS;
    char so[256];
    acl_shape_str(out, so, sizeof so);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "Shape of out %s should be the broadcast shape of its inputs.", so);
}

aclnnStatus opws_NormalTensorTensor(const aclTensor *mean, const aclTensor *std, int64_t seed, int64_t offset,
                                    aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(mean, "mean"));
    ACL_TRY(acl_check_tensor(std, "std"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(max_dim(mean, "mean"));
    ACL_TRY(max_dim(std, "std"));
    int64_t d[ACL_MAX_TENSOR_DIMS];
    uint64_t n = 0;
    ACLNN_CHECK(bcast(mean, std, d, &n), ACLNN_ERR_PARAM_INVALID, "mean and std shapes can not be broadcast.");
    ACL_TRY(check_out_shape(out, d, n));
    ACL_TRY(acl_check_dtype_in(mean, ACL_DT_LIST_NormalTensorTensor, "mean"));
    ACL_TRY(acl_check_dtype_in(std, ACL_DT_LIST_NormalTensorTensor, "std"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_NormalTensorTensor, "out"));
    if ((acl_tensor_empty(mean) || acl_tensor_empty(std)) && acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_NormalTensorTensor, workspaceSize, executor);
    const aclDataType pt = acl_promote(mean->dtype, std->dtype);
    ACLNN_CHECK(acl_can_cast(pt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s of mean and std can not be cast to out dtype %s.", acl_dtype_name(pt),
                acl_dtype_name(out->dtype));
    rnd_params p = {.kind = RK_NORMAL_TT, .dbl = pt == ACL_DOUBLE, .seed = (uint64_t)seed,
                    .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .in_a = 0, .in_b = 1};
    const aclTensor *ins[] = {mean, std};
    const char *names[] = {"mean", "std"};
    const bool needs[] = {true, true};
    return rnd_publish(ACL_OP_NormalTensorTensor, &p, ins, names, needs, 2, out, "out", workspaceSize, executor);
}

aclnnStatus opws_NormalTensorFloat(const aclTensor *mean, float std, int64_t seed, int64_t offset, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(mean, "mean"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(max_dim(mean, "mean"));
    ACL_TRY(max_dim(out, "out"));
    int64_t d[ACL_MAX_TENSOR_DIMS];
    uint64_t n = 0;
    ACLNN_CHECK(bcast(mean, out, d, &n), ACLNN_ERR_PARAM_INVALID, "mean and out shapes can not be broadcast.");
    ACL_TRY(check_out_shape(out, d, n));
    ACL_TRY(acl_check_dtype_in(mean, ACL_DT_LIST_NormalTensorFloat, "mean"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_NormalTensorFloat, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_NormalTensorFloat, workspaceSize, executor);
    rnd_params p = {.kind = RK_NORMAL_TF, .dbl = mean->dtype == ACL_DOUBLE || out->dtype == ACL_DOUBLE,
                    .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .b = std,
                    .in_a = 0, .in_b = -1};
    const aclTensor *ins[] = {mean};
    const char *names[] = {"mean"};
    const bool needs[] = {true};
    return rnd_publish(ACL_OP_NormalTensorFloat, &p, ins, names, needs, 1, out, "out", workspaceSize, executor);
}

aclnnStatus opws_NormalFloatTensor(float mean, const aclTensor *std, int64_t seed, int64_t offset, aclTensor *out,
                                   uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(std, "std"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACLNN_CHECK(!acl_tensor_empty(std), ACLNN_ERR_PARAM_INVALID, "The std can not be an empty tensor.");
    if (!(acl_tensor_empty(out) && acl_tensor_numel(std) == 1)) {
        bool same = std->ndim == out->ndim;
        for (uint64_t k = 0; same && k < std->ndim; k++) same = std->dims[k] == out->dims[k];
        ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "Shape of std should be match with out.");
    }
    ACL_TRY(max_dim(std, "std"));
    ACL_TRY(acl_check_dtype_in(std, ACL_DT_LIST_NormalFloatTensor, "std"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_NormalFloatTensor, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_NormalFloatTensor, workspaceSize, executor);
    rnd_params p = {.kind = RK_NORMAL_FT, .dbl = std->dtype == ACL_DOUBLE || out->dtype == ACL_DOUBLE,
                    .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .a = mean,
                    .in_a = -1, .in_b = 0};
    const aclTensor *ins[] = {std};
    const char *names[] = {"std"};
    const bool needs[] = {true};
    return rnd_publish(ACL_OP_NormalFloatTensor, &p, ins, names, needs, 1, out, "out", workspaceSize, executor);
}

aclnnStatus opws_NormalFloatFloat(float mean, float std, int64_t seed, int64_t offset, aclTensor *out,
                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_NormalFloatFloat, "out"));
    ACL_TRY(max_dim(out, "out"));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_NormalFloatFloat, workspaceSize, executor);
    rnd_params p = {.kind = RK_NORMAL, .dbl = out->dtype == ACL_DOUBLE, .seed = (uint64_t)seed,
                    .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1, .a = mean, .b = std, .in_a = -1,
                    .in_b = -1};
    return rnd_publish(ACL_OP_NormalFloatFloat, &p, NULL, NULL, NULL, 0, out, "out", workspaceSize, executor);
}

/* ---------------------------------------------------------------- Multinomial */
typedef struct {
    int64_t ns, ncat, rows;
    bool repl;
    uint64_t seed, offset;
    int seed_in, off_in;
} mn_params;

typedef struct { double key; int64_t idx; } mn_key;

static int mn_cmp(const void *x, const void *y) {
    const mn_key *a = x, *b = y;
    const bool na = isnan(a->key), nb = isnan(b->key);
    if (na != nb) return na ? 1 : -1;
    if (!na && a->key != b->key) return a->key > b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

static aclnnStatus mn_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const mn_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const uint64_t seed = p->seed_in >= 0 ? read_u64(acl_exec_in(ex, p->seed_in)) : p->seed;
    const uint64_t off = p->off_in >= 0 ? read_u64(acl_exec_in(ex, p->off_in)) + p->offset : p->offset;
    const size_t es = acl_dtype_size(x->dtype);
    const int64_t xr = x->ndim == 2 ? x->strides[0] : 0, xc = x->strides[x->ndim - 1];
    const int64_t orr = o->ndim == 2 ? o->strides[0] : 0, oc = o->strides[o->ndim - 1];
    int fail = 0;
#pragma omp parallel for schedule(static) if (acl_parallel_worth(p->rows * p->ncat * 4)) reduction(| : fail)
    for (int64_t r = 0; r < p->rows; r++) {
        mn_key *k = malloc((size_t)p->ncat * sizeof *k);
        if (!k) {
            fail = 1;
            continue;
        }
        double sum = 0;
        int64_t last_pos = 0;
        for (int64_t c = 0; c < p->ncat; c++) {
            k[c].key = acl_read_f64(x->base + (r * xr + c * xc) * (int64_t)es, x->dtype);
            k[c].idx = c;
            sum += k[c].key;
            if (k[c].key > 0) last_pos = c;
        }
        int64_t *dst = (int64_t *)o->base + r * orr;
        if (p->repl && p->ns > 1) {
            double acc = 0; /* k[c].key becomes the normalised cumulative probability */
            for (int64_t c = 0; c < p->ncat; c++) {
                acc += k[c].key;
                k[c].key = acc / sum;
            }
            for (int64_t s = 0; s < p->ns; s++) {
                const double u = philox_uniform_d(seed, off, (uint64_t)(r * p->ns + s));
                int64_t lo = 0, hi = p->ncat; /* first c with cdf[c] > u */
                while (lo < hi) {
                    const int64_t mid = lo + (hi - lo) / 2;
                    if (k[mid].key > u) hi = mid;
                    else lo = mid + 1;
                }
                dst[s * oc] = lo < p->ncat ? lo : last_pos;
            }
        } else {
            for (int64_t c = 0; c < p->ncat; c++) {
                const double u = philox_uniform_d(seed, off, (uint64_t)(r * p->ncat + c));
                k[c].key = (k[c].key / sum) / (-log1p(-u) + 1e-7);
            }
            if (p->ns == 1) {
                mn_key best = k[0];
                for (int64_t c = 1; c < p->ncat; c++)
                    if (mn_cmp(&k[c], &best) < 0) best = k[c];
                dst[0] = best.idx;
            } else {
                qsort(k, (size_t)p->ncat, sizeof *k, mn_cmp);
                for (int64_t s = 0; s < p->ns; s++) dst[s * oc] = k[s].idx;
            }
        }
        free(k);
    }
    return fail ? ACL_REPORT(ACLNN_ERR_INNER, "out of memory in Multinomial.") : ACLNN_SUCCESS;
}

static aclnnStatus multinomial(int op, const aclTensor *self, int64_t ns, bool repl, const aclTensor *seedT,
                               const aclTensor *offT, int64_t seed, int64_t offset, const aclTensor *out,
                               uint64_t *ws, aclOpExecutor **exo) {
    const bool tens = op == ACL_OP_MultinomialTensor;
    ACL_TRY(acl_check_tensor(self, "self"));
    if (tens) {
        ACL_TRY(acl_check_tensor(seedT, "seedTensor"));
        ACL_TRY(acl_check_tensor(offT, "offsetTensor"));
    }
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Multinomial, "self"));
    if (tens && !acl_tensor_empty(self)) {
        /* the A2 op_api requires int64 on its small-input (AI CPU) path; the large path reads them as given */
        const bool small = acl_tensor_numel(self) <= 5000;
        ACL_TRY(seed_tensor(seedT, "seedTensor", !small));
        ACL_TRY(seed_tensor(offT, "offsetTensor", !small));
    }
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Multinomial_out, "out"));
    ACLNN_CHECK(self->ndim == 1 || self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "Dim of self only can be 1 or 2.");
    ACLNN_CHECK(self->ndim == out->ndim, ACLNN_ERR_PARAM_INVALID, "Dim of self should be equal to dim of out.");
    ACLNN_CHECK(out->dims[out->ndim - 1] == ns, ACLNN_ERR_PARAM_INVALID,
                "expected the size of out at last dim %lld to be equal to numsamples %lld.",
                (long long)out->dims[out->ndim - 1], (long long)ns);
    ACLNN_CHECK(self->ndim == 1 || self->dims[0] == out->dims[0], ACLNN_ERR_PARAM_INVALID,
                "expected the size of out at first dim %lld to be equal to the size of self at first dim %lld.",
                (long long)out->dims[0], (long long)self->dims[0]);
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    const int64_t ncat = self->dims[self->ndim - 1];
    ACLNN_CHECK(ns > 0, ACLNN_ERR_PARAM_INVALID, "numsamples must > 0, got %lld.", (long long)ns);
    ACLNN_CHECK(repl || ns <= ncat, ACLNN_ERR_PARAM_INVALID,
                "numsamples %lld must <= the number of categories %lld without replacement.", (long long)ns,
                (long long)ncat);
    ACLNN_CHECK(ncat <= (1 << 24), ACLNN_ERR_PARAM_INVALID, "number of categories cannot exceed 2^24.");
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, mn_run, sizeof(mn_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (rc == 0 && tens) rc = acl_exec_add_input(ex, seedT, "seedTensor", true);
    if (rc == 0 && tens) rc = acl_exec_add_input(ex, offT, "offsetTensor", true);
    if (rc == 0) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(mn_params *)ex->params = (mn_params){.ns = ns, .ncat = ncat, .rows = self->ndim == 2 ? self->dims[0] : 1,
                                           .repl = repl, .seed = (uint64_t)seed, .offset = (uint64_t)offset,
                                           .seed_in = tens ? 1 : -1, .off_in = tens ? 2 : -1};
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_Multinomial(const aclTensor *self, int64_t numsamples, bool replacement, int64_t seed, int64_t offset,
                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return multinomial(ACL_OP_Multinomial, self, numsamples, replacement, NULL, NULL, seed, offset, out,
                       workspaceSize, executor);
}

aclnnStatus opws_MultinomialTensor(const aclTensor *self, int64_t numsamples, bool replacement,
                                   const aclTensor *seedTensor, const aclTensor *offsetTensor, int64_t offset,
                                   aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return multinomial(ACL_OP_MultinomialTensor, self, numsamples, replacement, seedTensor, offsetTensor, 0, offset,
                       out, workspaceSize, executor);
}

/* ---------------------------------------------------------------- InplaceRandom (+Tensor, WithoutFromTo) */
static int mantissa_digits(aclDataType dt) {
    switch (dt) {
    case ACL_FLOAT16: return 11;
    case ACL_BF16: return 8;
    case ACL_FLOAT: case ACL_COMPLEX64: return 24;
    case ACL_DOUBLE: case ACL_COMPLEX128: return 53;
    default: return 0;
    }
}

/* from + 1 (to - 1) as the floating dtype rounds it; when the rounding crosses from (to), the nearest representable
 * value inside the range, as the op_api's updateFrom/updateTo do */
static int64_t as_dtype(int64_t v, aclDataType dt) {
    double d = (double)v, r;
    const aclDataType rd = dt == ACL_COMPLEX64 ? ACL_FLOAT : dt == ACL_COMPLEX128 ? ACL_DOUBLE : dt;
    unsigned char buf[16] __attribute__((aligned(16)));
    acl_convert(&d, ACL_DOUBLE, 1, buf, rd, 1, 1);
    acl_convert(buf, rd, 1, &r, ACL_DOUBLE, 1, 1);
    return acl_f2i64(r);
}

static void update_range(int64_t *from, int64_t *to, aclDataType dt) {
    const int digits = mantissa_digits(dt);
    if (!digits) return;
    const int64_t f1 = as_dtype(*from + 1, dt);
    if (f1 < *from) {
        int n = 0;
        for (uint64_t a = (uint64_t)llabs(*from + 1); a >>= 1;) n++;
        *from = f1 + ((int64_t)1 << (n - digits + 1 > 0 ? n - digits + 1 : 0));
    }
    const int64_t t1 = as_dtype(*to - 1, dt);
    if (t1 >= *to) {
        int n = 0;
        for (uint64_t a = (uint64_t)llabs(*to - 1); a >>= 1;) n++;
        *to = t1 - ((int64_t)1 << (n - digits + 1 > 0 ? n - digits + 1 : 0));
    }
}

static aclnnStatus random_checks(const aclTensor *self) {
    ACL_TRY(acl_check_tensor(self, "selfRef"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_InplaceRandom, "selfRef"));
    return max_dim(self, "selfRef");
}

static aclnnStatus random_publish(int op, const aclTensor *self, int64_t from, int64_t to, uint64_t seed,
                                  uint64_t offset, const aclTensor *seedT, const aclTensor *offT, uint64_t *ws,
                                  aclOpExecutor **exo) {
    update_range(&from, &to, self->dtype);
    rnd_params p = {.kind = RK_RANDOM, .seed = seed, .offset = offset, .seed_in = seedT ? 0 : -1,
                    .off_in = seedT ? 1 : -1, .in_a = -1, .in_b = -1, .lo = from,
                    .range = to > from ? (uint64_t)to - (uint64_t)from : 1};
    const aclTensor *ins[] = {seedT, offT};
    const char *names[] = {"seedTensor", "offsetTensor"};
    const bool needs[] = {true, true};
    return rnd_publish(op, &p, ins, names, needs, seedT ? 2 : 0, self, "selfRef", ws, exo);
}

aclnnStatus opws_InplaceRandom(const aclTensor *selfRef, int64_t from, int64_t to, int64_t seed, int64_t offset,
                               uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(random_checks(selfRef));
    ACLNN_CHECK(from < to, ACLNN_ERR_PARAM_INVALID, "from %lld must be less than to %lld.", (long long)from,
                (long long)to);
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceRandom, workspaceSize, executor);
    return random_publish(ACL_OP_InplaceRandom, selfRef, from, to, (uint64_t)seed, (uint64_t)offset, NULL, NULL,
                          workspaceSize, executor);
}

aclnnStatus opws_InplaceRandomTensor(const aclTensor *selfRef, int64_t from, int64_t to, const aclTensor *seedTensor,
                                     const aclTensor *offsetTensor, int64_t offset, uint64_t *workspaceSize,
                                     aclOpExecutor **executor) {
    ACL_TRY(random_checks(selfRef));
    ACLNN_CHECK(from < to, ACLNN_ERR_PARAM_INVALID, "from %lld must be less than to %lld.", (long long)from,
                (long long)to);
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceRandomTensor, workspaceSize, executor);
    ACL_TRY(seed_tensor(seedTensor, "seedTensor", false));
    ACL_TRY(seed_tensor(offsetTensor, "offsetTensor", false));
    return random_publish(ACL_OP_InplaceRandomTensor, selfRef, from, to, 0, (uint64_t)offset, seedTensor,
                          offsetTensor, workspaceSize, executor);
}

/* PyTorch's random_() range for a dtype: [0, 2^digits] for floating dtypes, [0, max] for integers */
static int64_t default_to(aclDataType dt) {
    switch (dt) {
    case ACL_BOOL: return 2;
    case ACL_INT8: return 128;
    case ACL_UINT8: return 256;
    case ACL_INT16: return 32768;
    case ACL_INT32: return (int64_t)1 << 31;
    case ACL_INT64: return INT64_MAX;
    default: return ((int64_t)1 << mantissa_digits(dt)) + 1;
    }
}

aclnnStatus opws_InplaceRandomWithoutFromTo(const aclTensor *selfRef, int64_t seed, int64_t offset,
                                            uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(random_checks(selfRef));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_InplaceRandomWithoutFromTo, workspaceSize, executor);
    rnd_params p = {.kind = RK_RANDOM, .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1,
                    .off_in = -1, .in_a = -1, .in_b = -1, .lo = 0, .range = (uint64_t)default_to(selfRef->dtype)};
    return rnd_publish(ACL_OP_InplaceRandomWithoutFromTo, &p, NULL, NULL, NULL, 0, selfRef, "selfRef", workspaceSize,
                       executor);
}

aclnnStatus opws_InplaceRandomWithoutFromToTensor(const aclTensor *selfRef, const aclTensor *seedTensor,
                                                  const aclTensor *offsetTensor, int64_t offset,
                                                  uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(random_checks(selfRef));
    if (acl_tensor_empty(selfRef))
        return acl_exec_noop(ACL_OP_InplaceRandomWithoutFromToTensor, workspaceSize, executor);
    ACL_TRY(seed_tensor(seedTensor, "seedTensor", false));
    ACL_TRY(seed_tensor(offsetTensor, "offsetTensor", false));
    rnd_params p = {.kind = RK_RANDOM, .offset = (uint64_t)offset, .seed_in = 0, .off_in = 1, .in_a = -1,
                    .in_b = -1, .lo = 0, .range = (uint64_t)default_to(selfRef->dtype)};
    const aclTensor *ins[] = {seedTensor, offsetTensor};
    const char *names[] = {"seedTensor", "offsetTensor"};
    const bool needs[] = {true, true};
    return rnd_publish(ACL_OP_InplaceRandomWithoutFromToTensor, &p, ins, names, needs, 2, selfRef, "selfRef",
                       workspaceSize, executor);
}

/* ---------------------------------------------------------------- SimThreadExponential */
aclnnStatus opws_SimThreadExponential(aclTensor *selfRef, int64_t count, double lambda, int64_t seed, int64_t offset,
                                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(selfRef, "selfRef"));
    ACL_TRY(acl_check_dtype_in(selfRef, ACL_DT_LIST_SimThreadExponential, "selfRef"));
    ACL_TRY(max_dim(selfRef, "selfRef"));
    ACLNN_CHECK(lambda > 0, ACLNN_ERR_PARAM_INVALID, "lambda must be greater than 0, got %g.", lambda);
    /* the kernel's tiling refuses these (at launch on the device) */
    ACLNN_CHECK(count >= 0, ACLNN_ERR_PARAM_INVALID, "count %lld must be greater than or equal to 0.",
                (long long)count);
    ACLNN_CHECK(count == acl_tensor_numel(selfRef), ACLNN_ERR_PARAM_INVALID,
                "count %lld must be equal to the number of elements of selfRef (%lld).", (long long)count,
                (long long)acl_tensor_numel(selfRef));
    if (acl_tensor_empty(selfRef)) return acl_exec_noop(ACL_OP_SimThreadExponential, workspaceSize, executor);
    rnd_params p = {.kind = RK_EXP, .seed = (uint64_t)seed, .offset = (uint64_t)offset, .seed_in = -1, .off_in = -1,
                    .a = lambda, .in_a = -1, .in_b = -1};
    return rnd_publish(ACL_OP_SimThreadExponential, &p, NULL, NULL, NULL, 0, selfRef, "selfRef", workspaceSize,
                       executor);
}

/* ---------------------------------------------------------------- Randperm */
typedef struct { uint64_t seed, offset; int64_t n; } rp_params;
typedef struct { uint64_t key; int64_t idx; } rp_key;

static int rp_cmp(const void *x, const void *y) {
    const rp_key *a = x, *b = y;
    if (a->key != b->key) return a->key < b->key ? -1 : 1;
    return a->idx < b->idx ? -1 : (a->idx > b->idx);
}

static aclnnStatus rp_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rp_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    rp_key *k = malloc((size_t)p->n * sizeof *k);
    if (!k) return ACL_REPORT(ACLNN_ERR_INNER, "out of memory in Randperm.");
    ACL_FOR(acl_parallel_worth(p->n * 8), i, 0, p->n, {
        uint32_t w[4];
        philox4x32_10(p->seed, p->offset, (uint64_t)i >> 1, w);
        const unsigned j = (unsigned)(i & 1) * 2;
        k[i].key = ((uint64_t)w[j] << 32) | w[j + 1];
        k[i].idx = i;
    });
    qsort(k, (size_t)p->n, sizeof *k, rp_cmp);
    const size_t es = acl_dtype_size(o->dtype);
    for (int64_t i = 0; i < p->n; i++) acl_convert(&k[i].idx, ACL_INT64, 1, o->base + i * o->strides[0] * (int64_t)es,
                                                   o->dtype, 1, 1);
    free(k);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Randperm(int64_t n, int64_t seed, int64_t offset, aclTensor *out, uint64_t *workspaceSize,
                          aclOpExecutor **executor) {
    /* the real CheckParams reports ACLNN_ERR_INNER_NULLPTR for a NULL out */
    ACLNN_CHECK(out != NULL, ACLNN_ERR_INNER_NULLPTR, "Expected a proper Tensor but got null for argument out.");
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Randperm, "out"));
    ACLNN_CHECK(out->ndim == 1 && out->dims[0] == n, ACLNN_ERR_PARAM_INVALID, "out shape should be [%lld].",
                (long long)n);
    ACLNN_CHECK(n >= 0, ACLNN_ERR_PARAM_INVALID, "n must be non-negative, got %lld.", (long long)n);
    if (n == 0) return acl_exec_noop(ACL_OP_Randperm, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Randperm, rp_run, sizeof(rp_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(rp_params *)ex->params = (rp_params){.seed = (uint64_t)seed, .offset = (uint64_t)offset, .n = n};
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---------------------------------------------------------------- aclnnSetPytorchRandom / aclnnGetPytorchRandom */
#include <stdatomic.h>
#include "aclnnop/aclnn_set_pytorch_random.h"

static _Atomic int32_t g_pytorch_random;

aclnnStatus aclnnSetPytorchRandom(int32_t pytorchRandom) {
    acl_set_api("aclnnSetPytorchRandom");
    ACLNN_CHECK(pytorchRandom == 0 || pytorchRandom == 1, ACLNN_ERR_PARAM_INVALID,
                "pytorchRandom must be 0 or 1, but got %d.", (int)pytorchRandom);
    atomic_store_explicit(&g_pytorch_random, pytorchRandom, memory_order_relaxed);
    return ACLNN_SUCCESS;
}

int32_t aclnnGetPytorchRandom(void) { return atomic_load_explicit(&g_pytorch_random, memory_order_relaxed); }
