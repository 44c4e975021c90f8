/* aclnnNLLLoss, aclnnNLLLoss2d and their backwards (ops-nn loss/nll_loss, nll_loss_grad): self seen as (N, C, S) (S the
 * spatial positions of the 2d ops, 1 otherwise), target as (N, S), weight as (C). A target equal to ignoreIndex
 * contributes nothing (loss 0, weight 0, gradient 0); a class outside [0, C) is skipped the same way (the kernel's
 * behaviour is undefined there; nothing is read or written outside the tensors). Sums run in index order (one
 * thread): the same bytes for any OMP_NUM_THREADS. Mean divides by the summed weight (0 / 0 = NaN as PyTorch). */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

typedef struct {
    bool backward, fill_only;
    int64_t N, C, S, reduction, ignore;
    aclDataType cdt;
    double fill;
} nll_params;

/* a view read into contiguous dst (0-d as one element) */
static void load(const acl_view *v, aclDataType dt, void *dst) {
    const int64_t one = 1;
    if (v->ndim == 0) mx_load_bcast(v, &one, 1, dt, dst);
    else mx_load_bcast(v, v->dims, v->ndim, dt, dst);
}

static bool store_one(double v, aclDataType cdt, const acl_view *o) { return mx_store_via(&v, ACL_DOUBLE, cdt, o); }

/* element (n, c, s) of self seen as (N, C, S) (a 1-D self is (C); S runs over the spatial dims), or element c of
 * the 1-D weight (n = s = 0), as double: the forward reads only the picked elements */
static double pick(const acl_view *v, int64_t n, int64_t c, int64_t s) {
    int64_t off;
    if (v->ndim == 1) off = c * v->strides[0];
    else {
        off = n * v->strides[0] + c * v->strides[1];
        for (int d = v->ndim - 1; d >= 2; d--) {
            off += (s % v->dims[d]) * v->strides[d];
            s /= v->dims[d];
        }
    }
    const char *e = v->base + off * (int64_t)acl_dtype_size(v->dtype);
    switch (v->dtype) {
    case ACL_FLOAT: return *(const float *)e;
    case ACL_FLOAT16: return acl_f16_to_f32(*(const uint16_t *)e);
    case ACL_BF16: return acl_bf16_to_f32(*(const uint16_t *)e);
    default: {
        double d = 0;
        acl_convert(e, v->dtype, 1, &d, ACL_DOUBLE, 1, 1);
        return d;
    }
    }
}

static bool row_major(const acl_view *v) {
    int64_t s = 1;
    for (int d = v->ndim - 1; d >= 0; d--) {
        if (v->dims[d] != 1 && v->strides[d] != s) return false;
        s *= v->dims[d];
    }
    return true;
}

/* The forward's sums: blocks of NLL_BLOCK consecutive elements; inside a block four partial sums (element i goes to
 * lane i % 4); the blocks' lanes added lane by lane in block order; the four lanes joined as (l0 + l1) + (l2 + l3).
 * A fixed tree (the same bytes for any thread count: blocks are the unit threads share) whose four chains overlap:
 * one chain of 4096 dependent double adds was the bench row's floor. Every path of the forward adds through it. */
enum { NLL_BLOCK = 1024 };

typedef struct {
    double s[4], w[4];
} nll_acc;

static inline void nll_acc_add(nll_acc *t, const nll_acc *b) {
    for (int k = 0; k < 4; k++) {
        t->s[k] += b->s[k];
        t->w[k] += b->w[k];
    }
}

static inline void nll_acc_join(const nll_acc *a, double *sum, double *wsum) {
    *sum = (a->s[0] + a->s[1]) + (a->s[2] + a->s[3]);
    *wsum = (a->w[0] + a->w[1]) + (a->w[2] + a->w[3]);
}

static inline __attribute__((always_inline)) double nll_ld(const char *e, aclDataType dt) {
    if (dt == ACL_FLOAT) return *(const float *)(const void *)e;
    if (dt == ACL_FLOAT16) return acl_f16_to_f32(*(const uint16_t *)(const void *)e);
    return acl_bf16_to_f32(*(const uint16_t *)(const void *)e);
}

/* The forward of an (N, C) or (C) fp32 / fp16 / bf16 self whose weight has its dtype: the picked element's address
 * without the (n, s) divisions and the dims loop (the same values as pick()). dt is a constant at each call below,
 * so each dtype gets its own loop; res (the per-element losses) is written only for reduction none. The lanes are
 * locals of one function (kept in registers: a sum stored and reloaded every pick doubled the loop's time). */
typedef struct {
    const char *xb, *wb;
    const int64_t *t;
    int64_t NS, C, ignore, sn, sc, sw;
    double *res;
} nll_pick_ctx;

static inline __attribute__((always_inline)) void nll_pick_one(const nll_pick_ctx *q, int64_t i, double *s,
                                                                double *w, aclDataType dt) {
    const int64_t c = q->t[i];
    double v = 0;
    if (c != q->ignore && (uint64_t)c < (uint64_t)q->C) {
        const double wc = nll_ld(q->wb + c * q->sw, dt);
        v = -wc * nll_ld(q->xb + i * q->sn + c * q->sc, dt);
        *s += v;
        *w += wc;
    }
    if (q->res) q->res[i] = v;
}

/* elements [i0, i1) (i0 a multiple of 4: element i in lane i % 4) */
static inline __attribute__((always_inline)) void nll_pick_body(const nll_pick_ctx *q, int64_t i0, int64_t i1,
                                                                 nll_acc *acc, aclDataType dt) {
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0, w0 = 0, w1 = 0, w2 = 0, w3 = 0;
    int64_t i = i0;
    for (; i + 4 <= i1; i += 4) {
        nll_pick_one(q, i, &s0, &w0, dt);
        nll_pick_one(q, i + 1, &s1, &w1, dt);
        nll_pick_one(q, i + 2, &s2, &w2, dt);
        nll_pick_one(q, i + 3, &s3, &w3, dt);
    }
    if (i < i1) nll_pick_one(q, i, &s0, &w0, dt);
    if (i + 1 < i1) nll_pick_one(q, i + 1, &s1, &w1, dt);
    if (i + 2 < i1) nll_pick_one(q, i + 2, &s2, &w2, dt);
    *acc = (nll_acc){{s0, s1, s2, s3}, {w0, w1, w2, w3}};
}

/* one block [i0, i1) of the fast forward into acc */
__attribute__((noinline)) static void nll_pick_fast(const nll_pick_ctx *q, aclDataType dt, int64_t i0, int64_t i1,
                                                    nll_acc *acc) {
    switch (dt) {
    case ACL_FLOAT: nll_pick_body(q, i0, i1, acc, ACL_FLOAT); break;
    case ACL_FLOAT16: nll_pick_body(q, i0, i1, acc, ACL_FLOAT16); break;
    default: nll_pick_body(q, i0, i1, acc, ACL_BF16); break;
    }
}

/* block b of the general forward (any self layout, the 2d ops' spatial positions) into acc */
static void nll_pick_general(const acl_view *xv, const acl_view *wv, const int64_t *t, int64_t NS, int64_t S,
                             int64_t C, int64_t ignore, double *res, int64_t i0, int64_t i1, nll_acc *acc) {
    (void)NS;
    for (int64_t i = i0; i < i1; i++) {
        const int64_t c = t[i], n = i / S, s = i % S;
        double v = 0;
        if (c != ignore && c >= 0 && c < C) {
            const double wc = pick(wv, 0, c, 0);
            v = -wc * pick(xv, n, c, s);
            acc->s[i & 3] += v;
            acc->w[i & 3] += wc;
        }
        if (res) res[i] = v;
    }
}

/* The whole forward's sums: each block into its own nll_acc (blocks shared by the threads when there are at least
 * four: the picks are scattered loads, two cores overlap twice as many), then the blocks added in order. */
static bool nll_forward_sums(const acl_view *xv, const acl_view *wv, const int64_t *t, int64_t NS, int64_t S,
                             int64_t C, int64_t ignore, double *res, double *sum, double *wsum) {
    const bool fast = S == 1 && xv->ndim <= 2 && wv->dtype == xv->dtype &&
                      (xv->dtype == ACL_FLOAT || xv->dtype == ACL_FLOAT16 || xv->dtype == ACL_BF16);
    const int64_t es = (int64_t)acl_dtype_size(xv->dtype);
    const nll_pick_ctx q = {xv->base, wv->base, t, NS, C, ignore, (xv->ndim == 2 ? xv->strides[0] : 0) * es,
                            xv->strides[xv->ndim - 1] * es, wv->strides[0] * es, res};
    const int64_t nb = (NS + NLL_BLOCK - 1) / NLL_BLOCK;
    nll_acc few[16], *part = nb > 16 ? malloc(sizeof(nll_acc) * (size_t)nb) : few;
    if (!part) return false;
    for (int64_t b = 0; b < nb; b++) part[b] = (nll_acc){{0, 0, 0, 0}, {0, 0, 0, 0}};
#define NLL_BLOCK_RUN(b)                                                                                           \
    do {                                                                                                           \
        const int64_t i0 = (b) * NLL_BLOCK, i1 = i0 + NLL_BLOCK < NS ? i0 + NLL_BLOCK : NS;                         \
        if (fast) nll_pick_fast(&q, xv->dtype, i0, i1, &part[b]);                                                   \
        else nll_pick_general(xv, wv, t, NS, S, C, ignore, res, i0, i1, &part[b]);                                  \
    } while (0)
    if (nb >= 4 && omp_get_max_threads() > 1) { /* one thread: no team (a team of one costs ~1 us here) */
#pragma omp parallel for schedule(static)
        for (int64_t b = 0; b < nb; b++) NLL_BLOCK_RUN(b);
    } else {
        for (int64_t b = 0; b < nb; b++) NLL_BLOCK_RUN(b);
    }
#undef NLL_BLOCK_RUN
    nll_acc tot = {{0, 0, 0, 0}, {0, 0, 0, 0}};
    for (int64_t b = 0; b < nb; b++) nll_acc_add(&tot, &part[b]);
    nll_acc_join(&tot, sum, wsum);
    if (part != few) free(part);
    return true;
}

/* a target the kernel can read in place: int64, row-major */
static bool target_direct(const acl_view *v) { return v->dtype == ACL_INT64 && row_major(v); }

static aclnnStatus nll_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const nll_params *p = ex->params;
    if (p->fill_only) { /* an empty forward with a reduction: out NaN (mean) or 0, totalWeightOut 0 */
        return store_one(p->fill, p->cdt, acl_exec_out(ex, 0)) && store_one(0.0, p->cdt, acl_exec_out(ex, 1))
                   ? ACLNN_SUCCESS : OOM;
    }
    const int64_t N = p->N, C = p->C, S = p->S, NS = N * S;
    const int base = p->backward ? 1 : 0; /* the backwards take gradOutput first */
    const acl_view *ov = acl_exec_out(ex, 0);
    /* a row-major gradient output is zeroed in place and only the picked elements written */
    const bool sparse_out = p->backward && row_major(ov);
    const acl_view *wv = acl_exec_in(ex, base + 2); /* weight: only the picked classes are read */
    const acl_view *tv = acl_exec_in(ex, base + 1);
    const bool t_direct = target_direct(tv); /* else converted into a buffer */
    int64_t *tbuf = t_direct ? NULL : malloc(sizeof(int64_t) * (size_t)(NS + 1));
    const int64_t *t = t_direct ? (const int64_t *)(const void *)tv->base : tbuf;
    /* the per-element values: the forward's losses (reduction none only), the backward's dense gradient */
    const bool need_res = p->backward || p->reduction == 0;
    double *res = need_res ? malloc(sizeof(double) * (size_t)((p->backward && !sparse_out ? N * C * S : NS) + 1))
                           : NULL;
    double *g = NULL;
    bool ok = (t != NULL || NS == 0) && (res != NULL || !need_res);
    if (ok && p->backward) {
        const acl_view *gv = acl_exec_in(ex, 0);
        g = malloc(sizeof(double) * (size_t)(acl_view_numel(gv) + 1));
        ok = g != NULL;
        if (ok) load(gv, ACL_DOUBLE, g);
    }
    if (ok && !t_direct) load(tv, ACL_INT64, tbuf);
    if (ok && !p->backward) {
        double sum = 0, wsum = 0;
        ok = nll_forward_sums(acl_exec_in(ex, base), wv, t, NS, S, C, p->ignore, res, &sum, &wsum);
        if (!ok) {
        } else if (p->reduction == 0) {
            ok = mx_store_via(res, ACL_DOUBLE, p->cdt, acl_exec_out(ex, 0));
        } else {
            ok = store_one(p->reduction == 1 ? sum / wsum : sum, p->cdt, acl_exec_out(ex, 0)) &&
                 store_one(wsum, p->cdt, acl_exec_out(ex, 1));
        }
    } else if (ok) {
        double tw = 0;
        load(acl_exec_in(ex, 4), ACL_DOUBLE, &tw);
        const size_t oes = acl_dtype_size(ov->dtype);
        if (sparse_out) memset(ov->base, 0, (size_t)(N * C * S) * oes); /* +0 in every float dtype */
        else memset(res, 0, sizeof(double) * (size_t)(N * C * S));
        for (int64_t i = 0; i < NS; i++) {
            const int64_t c = t[i], n = i / S, s = i % S;
            if (c == p->ignore || c < 0 || c >= C) continue;
            double v = -pick(wv, 0, c, 0) * (p->reduction == 0 ? g[i] : g[0]);
            if (p->reduction == 1) v /= tw;
            if (sparse_out) { /* rounded to the compute dtype, then cast into out */
                char tmp[16];
                acl_convert(&v, ACL_DOUBLE, 1, tmp, p->cdt, 1, 1);
                acl_convert(tmp, p->cdt, 1, ov->base + ((n * C + c) * S + s) * (int64_t)oes, ov->dtype, 1, 1);
            } else {
                res[(n * C + c) * S + s] = v;
            }
        }
        if (!sparse_out) ok = mx_store_via(res, ACL_DOUBLE, p->cdt, ov);
    }
    free(tbuf);
    free(res);
    free(g);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus nll_exec(int op, const nll_params *pp, const aclTensor *const *ins, const char *const *inn,
                            int nin, aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                            aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, nll_run, sizeof(nll_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++) rc = acl_exec_add_input(ex, ins[i], inn[i], !pp->fill_only);
    for (int i = 0; i < nout && !rc; i++) rc = acl_exec_add_output(ex, outs[i], outn[i]);
    if (rc) return acl_exec_discard(ex, rc);
    *(nll_params *)ex->params = *pp;
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus not_null(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus match(const aclTensor *t, const char *name, aclDataType want) {
    ACLNN_CHECK(t->dtype == want, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s (self's).", name,
                acl_dtype_name(t->dtype), acl_dtype_name(want));
    return ACLNN_SUCCESS;
}

static aclnnStatus castable(aclDataType from, const aclTensor *t, const char *name) {
    ACLNN_CHECK(acl_can_cast(from, t->dtype), ACLNN_ERR_PARAM_INVALID,
                "result dtype %s can't be cast to the desired output type %s of %s.", acl_dtype_name(from),
                acl_dtype_name(t->dtype), name);
    return ACLNN_SUCCESS;
}

static aclnnStatus reduction_ok(int64_t r) {
    ACLNN_CHECK(r >= 0 && r <= 2, ACLNN_ERR_PARAM_INVALID, "reduction should be between 0 and 2, but got %lld.",
                (long long)r);
    return ACLNN_SUCCESS;
}

static aclnnStatus one_element(const aclTensor *t, const char *name, bool rank_le1) {
    ACLNN_CHECK((!rank_le1 || t->ndim <= 1) && acl_tensor_numel(t) == 1, ACLNN_ERR_PARAM_INVALID,
                "Expected %s to be a single element tensor.", name);
    return ACLNN_SUCCESS;
}

/* self 1-D [C] with a 0-d target, or 2-D [N, C] with a 1-D target [N] */
static aclnnStatus check_1d2d(const aclTensor *self, const aclTensor *target, bool need_same_n) {
    ACLNN_CHECK(self->ndim >= 1 && self->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "self should be 1D or 2D.");
    ACLNN_CHECK(target->ndim <= 1, ACLNN_ERR_PARAM_INVALID,
                "0D or 1D target tensor expected, multi-target not supported.");
    const bool nobatch = self->ndim == 1 && target->ndim == 0;
    const bool batch = self->ndim == 2 && target->ndim == 1 && self->dims[0] == target->dims[0];
    ACLNN_CHECK(nobatch || (need_same_n ? batch : (target->ndim >= 1 && self->dims[0] == target->dims[0])),
                ACLNN_ERR_PARAM_INVALID,
                "self 1D needs a 0D target, self 2D a 1D target of the same first dim (size mismatch of target).");
    return ACLNN_SUCCESS;
}

static aclnnStatus check_weight(const aclTensor *weight, int64_t C, bool rank1) {
    ACLNN_CHECK(rank1 ? (weight->ndim == 1 && weight->dims[0] == C) : acl_tensor_numel(weight) == C,
                ACLNN_ERR_PARAM_INVALID, "weight tensor should be defined for all %lld classes.", (long long)C);
    return ACLNN_SUCCESS;
}

/* the 2d ops: self [N, C, H, W], target [N, H, W] */
static aclnnStatus check_4d(const aclTensor *self, const aclTensor *target) {
    ACLNN_CHECK(self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self should be 4D.");
    ACLNN_CHECK(target->ndim == 3, ACLNN_ERR_PARAM_INVALID, "target should be 3D.");
    ACLNN_CHECK(self->dims[0] == target->dims[0] && self->dims[2] == target->dims[1] &&
                    self->dims[3] == target->dims[2],
                ACLNN_ERR_PARAM_INVALID, "size mismatch of self and target.");
    return ACLNN_SUCCESS;
}

static void dims_of(const aclTensor *self, nll_params *pp) {
    if (self->ndim == 4) {
        pp->N = self->dims[0];
        pp->C = self->dims[1];
        pp->S = self->dims[2] * self->dims[3];
    } else {
        pp->N = self->ndim == 2 ? self->dims[0] : 1;
        pp->C = self->dims[self->ndim - 1];
        pp->S = 1;
    }
}

/* the forwards after their checks: empty, fill or run */
static aclnnStatus forward(int op, const aclTensor *self, const aclTensor *target, const aclTensor *weight,
                           int64_t reduction, int64_t ignoreIndex, aclTensor *out, aclTensor *totalWeightOut,
                           bool empty, uint64_t *ws, aclOpExecutor **ex) {
    nll_params pp = {.reduction = reduction, .ignore = ignoreIndex,
                     .cdt = self->dtype == ACL_BF16 ? ACL_BF16 : ACL_FLOAT};
    const aclTensor *ins[] = {self, target, weight};
    const char *inn[] = {"self", "target", "weight"}, *outn[] = {"out", "totalWeightOut"};
    aclTensor *outs[] = {out, totalWeightOut};
    if (empty) {
        if (reduction == 0) return acl_exec_noop(op, ws, ex);
        pp.fill_only = true;
        pp.fill = reduction == 1 ? NAN : 0.0;
        return nll_exec(op, &pp, ins, inn, 3, outs, outn, 2, ws, ex);
    }
    dims_of(self, &pp);
    return nll_exec(op, &pp, ins, inn, 3, outs, outn, reduction == 0 ? 1 : 2, ws, ex);
}

static aclnnStatus backward(int op, const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                            const aclTensor *weight, int64_t reduction, int64_t ignoreIndex,
                            const aclTensor *totalWeight, aclTensor *out, uint64_t *ws, aclOpExecutor **ex) {
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, ex);
    nll_params pp = {.backward = true, .reduction = reduction, .ignore = ignoreIndex,
                     .cdt = self->dtype == ACL_FLOAT16 ? ACL_FLOAT : self->dtype};
    dims_of(self, &pp);
    const aclTensor *ins[] = {gradOutput, self, target, weight, totalWeight};
    const char *inn[] = {"gradOutput", "self", "target", "weight", "totalWeight"}, *outn[] = {"out"};
    aclTensor *outs[] = {out};
    return nll_exec(op, &pp, ins, inn, 5, outs, outn, 1, ws, ex);
}

/* ---- NLLLoss ---- */

aclnnStatus opws_NLLLoss(const aclTensor *self, const aclTensor *target, const aclTensor *weight, int64_t reduction,
                         int64_t ignoreIndex, aclTensor *out, aclTensor *totalWeightOut, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    ACL_TRY(not_null(self, "self"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(weight, "weight"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(not_null(totalWeightOut, "totalWeightOut"));
    ACL_TRY(match(weight, "weight", self->dtype));
    ACL_TRY(castable(self->dtype, out, "out"));
    ACL_TRY(castable(self->dtype, totalWeightOut, "totalWeightOut"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_NLLLoss, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_NLLLoss_target, "target"));
    ACL_TRY(reduction_ok(reduction));
    ACL_TRY(check_1d2d(self, target, true));
    const int64_t C = self->dims[self->ndim - 1];
    ACL_TRY(check_weight(weight, C, true));
    if (reduction == 0 && self->ndim == 2)
        ACLNN_CHECK(out->ndim == 1 && out->dims[0] == self->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "Expect out shape [%lld].", (long long)self->dims[0]);
    else
        ACL_TRY(one_element(out, "out", true));
    ACL_TRY(one_element(totalWeightOut, "totalWeightOut", false));
    ACLNN_CHECK(!(acl_tensor_empty(self) && C == 0 && acl_tensor_numel(target) > 0), ACLNN_ERR_PARAM_INVALID,
                "Target is out of bounds (self has no classes).");
    return forward(ACL_OP_NLLLoss, self, target, weight, reduction, ignoreIndex, out, totalWeightOut,
                   acl_tensor_empty(self), workspaceSize, executor);
}

aclnnStatus opws_NLLLoss2d(const aclTensor *self, const aclTensor *target, const aclTensor *weight,
                           int64_t reduction, int64_t ignoreIndex, aclTensor *out, aclTensor *totalWeightOut,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(not_null(self, "self"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(weight, "weight"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(not_null(totalWeightOut, "totalWeightOut"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_NLLLoss2d, "self"));
    ACL_TRY(match(weight, "weight", self->dtype));
    ACL_TRY(castable(self->dtype, out, "out"));
    ACL_TRY(castable(self->dtype, totalWeightOut, "totalWeightOut"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_NLLLoss2d_target, "target"));
    ACL_TRY(reduction_ok(reduction));
    ACLNN_CHECK(self->ndim == 4, ACLNN_ERR_PARAM_INVALID, "self should be 4D.");
    ACLNN_CHECK(weight->ndim >= 1 && weight->dims[0] == self->dims[1], ACLNN_ERR_PARAM_INVALID,
                "weight's first dim should equal self's dim 1 (the classes).");
    ACL_TRY(check_4d(self, target));
    if (reduction == 0) ACL_TRY(mx_check_shape(out, "out", target->dims, (int)target->ndim));
    else ACL_TRY(one_element(out, "out", false));
    ACL_TRY(one_element(totalWeightOut, "totalWeightOut", false));
    const bool empty = acl_tensor_empty(self) || acl_tensor_empty(target) || acl_tensor_empty(weight);
    return forward(ACL_OP_NLLLoss2d, self, target, weight, reduction, ignoreIndex, out, totalWeightOut, empty,
                   workspaceSize, executor);
}

/* ---- the backwards ---- */

aclnnStatus opws_NLLLossBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                 const aclTensor *weight, int64_t reduction, int64_t ignoreIndex,
                                 const aclTensor *totalWeight, aclTensor *out, uint64_t *workspaceSize,
                                 aclOpExecutor **executor) {
    ACL_TRY(not_null(gradOutput, "gradOutput"));
    ACL_TRY(not_null(self, "self"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(weight, "weight"));
    ACL_TRY(not_null(totalWeight, "totalWeight"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(match(weight, "weight", self->dtype));
    ACL_TRY(match(gradOutput, "gradOutput", self->dtype));
    ACL_TRY(match(totalWeight, "totalWeight", self->dtype));
    ACL_TRY(castable(self->dtype, out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_NLLLossBackward, "self"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_NLLLossBackward_target, "target"));
    ACL_TRY(reduction_ok(reduction));
    ACL_TRY(check_1d2d(self, target, false));
    ACL_TRY(check_weight(weight, self->dims[self->ndim - 1], true));
    ACL_TRY(one_element(totalWeight, "totalWeight", false));
    if (reduction == 0 && self->ndim == 2)
        ACLNN_CHECK(gradOutput->ndim == 1 && gradOutput->dims[0] == self->dims[0], ACLNN_ERR_PARAM_INVALID,
                    "Expect gradOutput shape [%lld].", (long long)self->dims[0]);
    else
        ACL_TRY(one_element(gradOutput, "gradOutput", true));
    ACL_TRY(mx_check_shape(out, "out", self->dims, (int)self->ndim));
    return backward(ACL_OP_NLLLossBackward, gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight,
                    out, workspaceSize, executor);
}

aclnnStatus opws_NLLLoss2dBackward(const aclTensor *gradOutput, const aclTensor *self, const aclTensor *target,
                                   const aclTensor *weight, int64_t reduction, int64_t ignoreIndex,
                                   aclTensor *totalWeight, aclTensor *out, uint64_t *workspaceSize,
                                   aclOpExecutor **executor) {
    ACL_TRY(not_null(gradOutput, "gradOutput"));
    ACL_TRY(not_null(self, "self"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(weight, "weight"));
    ACL_TRY(not_null(totalWeight, "totalWeight"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_NLLLoss2dBackward, "self"));
    ACL_TRY(match(gradOutput, "gradOutput", self->dtype));
    ACL_TRY(match(weight, "weight", self->dtype));
    ACL_TRY(match(out, "out", self->dtype));
    ACL_TRY(match(totalWeight, "totalWeight", self->dtype));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_NLLLoss2dBackward_target, "target"));
    if (reduction == 0)
        ACLNN_CHECK(mx_shape_is(gradOutput, target->dims, (int)target->ndim), ACLNN_ERR_PARAM_INVALID,
                    "Size mismatch of gradOutput and target.");
    else
        ACL_TRY(one_element(gradOutput, "gradOutput", true));
    ACL_TRY(check_4d(self, target));
    ACL_TRY(check_weight(weight, self->dims[1], false));
    ACL_TRY(mx_check_shape(out, "out", self->dims, (int)self->ndim));
    ACL_TRY(one_element(totalWeight, "totalWeight", false));
    ACL_TRY(reduction_ok(reduction));
    return backward(ACL_OP_NLLLoss2dBackward, gradOutput, self, target, weight, reduction, ignoreIndex, totalWeight,
                    out, workspaceSize, executor);
}
