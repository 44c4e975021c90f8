/* aclnnCrossEntropyLoss and aclnnCrossEntropyLossGrad (ops-nn loss/cross_entropy_loss, cross_entropy_loss_grad).
 * These ops have no op_api source (their wrappers are generated from the op definitions): the checks follow their
 * docs' error tables - NULL 161001, dtypes (the A2 op definitions: input/gradLoss/logProb/outputs f16/f32/bf16 of one
 * dtype, target int64, weight f32) 161002, shapes and attribute values 561002 (the tiling's refusal). Rows of
 * input are (N, C); loss with label smoothing e: (1 - e) (-w[y] logp[y]) + e / C sum_c (-w[c] logp[c]), ignored
 * rows 0, mean dividing both parts by the summed w[y] of the kept rows (PyTorch's definition). The zloss outputs
 * are not computed (the docs: not supported yet). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <omp.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "kernels/softmax_rows.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

#define TILING_ERR 561002

typedef struct {
    bool grad, has_w;
    int64_t N, C, reduction, ignore;
    double eps;
} ce_params;

static void load(const acl_view *v, aclDataType dt, void *dst) {
    const int64_t one = 1;
    if (v->ndim == 0) mx_load_bcast(v, &one, 1, dt, dst);
    else mx_load_bcast(v, v->dims, v->ndim, dt, dst);
}

static bool store(const double *src, const acl_view *o) { return mx_store_via(src, ACL_DOUBLE, o->dtype, o); }

/* whether a row with target y counts */
static bool kept(const ce_params *p, int64_t y) { return y != p->ignore && y >= 0 && y < p->C; }

/* One row of contiguous bf16 input (or logProb) to contiguous bf16 logProbOut (or gradient) without label smoothing:
 * the passes of the general path in ce_run with the widening fused into the first load and the rounding into the
 * store (the target element's fp32 value recomputed by the same pass on one element), so the same bytes. f: C floats
 * of scratch; gi: the row's incoming gradient (grad). */
static double ce_row_bf16(const ce_params *p, const smr_ops *kr, const uint16_t *x, uint16_t *o, float *f, int64_t yi,
                          const float *w, double gi, double den, double wsum) {
    const int64_t C = p->C;
    if (!p->grad) {
        const float m = kr->max_bf16(x, C), sx = kr->expsum_bf16(x, m, NULL, C);
        float oy = NAN;
        if (sx == sx) {
            const float ls = logf(sx);
            if (kept(p, yi)) { /* before o is written (o may be x) */
                const float xy = acl_bf16_to_f32(x[yi]);
                kr->sub2(&oy, &xy, m, ls, 1);
            }
            kr->sub2_hh(o, x, m, ls, C);
        } else {
            for (int64_t c = 0; c < C; c++) f[c] = NAN;
            kr->bf16_out(o, f, C);
        }
        return kept(p, yi) ? (1 - p->eps) * (-(double)w[yi] * (double)oy) : 0.0;
    }
    if (!kept(p, yi)) {
        memset(o, 0, (size_t)C * sizeof(uint16_t));
        return 0.0;
    }
    if (p->reduction == 1) gi /= den;
    const double nll = gi * (1 - p->eps) * w[yi], sm = gi * p->eps / (double)C;
    const float a = (float)(nll + sm * wsum);
    if (sm != 0.0) { /* a NaN or infinite gradient: the general passes */
        kr->bf16_in(f, x, C);
        kr->expscale(f, f, a, C);
        const float smf = (float)sm;
        for (int64_t c = 0; c < C; c++) f[c] -= smf * w[c];
        f[yi] -= (float)nll;
        kr->bf16_out(o, f, C);
        return 0.0;
    }
    kr->expscale_bf16(o, x, a, C, smr_exp_bf16_table());
    float xy = acl_bf16_to_f32(x[yi]), oy;
    kr->expscale(&oy, &xy, a, 1);
    oy -= (float)nll;
    o[yi] = acl_f32_to_bf16(oy);
    return 0.0;
}

/* Rows are owned by one thread each and computed in fp32 by the fixed-lane row passes of kernels/softmax_rows.h
 * (the log-softmax as (x - max) - log(sum exp(x - max)), as PyTorch's CPU kernel); the per-row losses are kept in
 * double and reduced in row order on one thread, so the bytes do not depend on the thread count or SIMD level. */
static aclnnStatus ce_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ce_params *p = ex->params;
    const int64_t N = p->N, C = p->C;
    int k = 0;
    const acl_view *gv = p->grad ? acl_exec_in(ex, k++) : NULL;
    const acl_view *xv = acl_exec_in(ex, k++), *yv = acl_exec_in(ex, k++); /* input (or logProb), target */
    const acl_view *wv = p->has_w ? acl_exec_in(ex, k++) : NULL;
    const acl_view *ov = acl_exec_out(ex, p->grad ? 0 : 1); /* logProbOut, or the gradient */
    const aclDataType dt = xv->dtype;
    const int nthr = acl_parallel_worth(N * C) && N > 1 ? acl_max_threads() : 1;
    const size_t per = ((size_t)C * (2 * sizeof(float) + sizeof(uint16_t)) + 127) & ~(size_t)63; /* 64-byte aligned slices */
    float *w = malloc(sizeof(float) * (size_t)(C + 1));
    int64_t *y = malloc(sizeof(int64_t) * (size_t)(N + 1));
    double *l = malloc(sizeof(double) * (size_t)(N + 1)), *g = malloc(sizeof(double) * (size_t)(N + 1));
    char *scratch = (uint64_t)C < (SIZE_MAX / 16) / (uint64_t)nthr ? acl_team_alloc(nthr, (int64_t)per, 1, 0) : NULL;
    bool ok = w && y && l && g && scratch;
    if (ok) {
        if (gv) load(gv, ACL_DOUBLE, g);
        load(yv, ACL_INT64, y);
        if (wv) load(wv, ACL_FLOAT, w);
        else
            for (int64_t c = 0; c < C; c++) w[c] = 1.0f;
        double den = 0, wsum = 0;
        for (int64_t i = 0; i < N; i++)
            if (kept(p, y[i])) den += w[y[i]];
        for (int64_t c = 0; c < C; c++) wsum += w[c];
        const smr_ops *kr = smr_get();
        const size_t xes = acl_dtype_size(dt), oes = acl_dtype_size(ov->dtype);
        const bool direct = ov->dtype == ACL_FLOAT && ov->strides[1] == 1;
        const bool fuse = dt == ACL_BF16 && ov->dtype == ACL_BF16 && xv->strides[1] == 1 && ov->strides[1] == 1 &&
                          p->eps == 0.0;
#pragma omp parallel num_threads(nthr) if (nthr > 1)
        {
            float *f0 = (float *)(scratch + per * (size_t)omp_get_thread_num()), *f1 = f0 + C;
            uint16_t *h = (uint16_t *)(f1 + C);
#pragma omp for schedule(static)
            for (int64_t i = 0; i < N; i++) {
                if (fuse) { /* bf16 rows: the conversions fused into the passes, the same bytes */
                    l[i] = ce_row_bf16(p, kr, (const uint16_t *)(xv->base + i * xv->strides[0] * (int64_t)xes),
                                       (uint16_t *)(ov->base + i * ov->strides[0] * (int64_t)oes), f0, y[i], w,
                                       gv ? (p->reduction == 0 ? g[i] : g[0]) : 0.0, den, wsum);
                    continue;
                }
                const float *x = smr_line_in(kr, xv->base + i * xv->strides[0] * (int64_t)xes, dt, xv->strides[1], C,
                                             dt, f0, h);
                char *op = ov->base + i * ov->strides[0] * (int64_t)oes;
                float *o = direct ? (float *)op : f1;
                const int64_t yi = y[i];
                if (!p->grad) { /* the log-softmax row and its loss */
                    const float m = kr->max(x, C), sx = kr->expsum(x, m, NULL, C);
                    if (sx == sx) kr->sub2(o, x, m, logf(sx), C);
                    else
                        for (int64_t c = 0; c < C; c++) o[c] = NAN;
                    l[i] = 0.0;
                    if (kept(p, yi)) {
                        l[i] = (1 - p->eps) * (-(double)w[yi] * (double)o[yi]);
                        if (p->eps != 0.0) {
                            const float sm = wv ? kr->dot(w, o, C) : kr->sum(o, C);
                            l[i] += p->eps / (double)C * -(double)sm;
                        }
                    }
                } else if (!kept(p, yi)) {
                    for (int64_t c = 0; c < C; c++) o[c] = 0.0f;
                } else { /* exp(lp) (nll + eps-part) - sm w[c], and - nll at the target */
                    double gi = p->reduction == 0 ? g[i] : g[0];
                    if (p->reduction == 1) gi /= den;
                    const double nll = gi * (1 - p->eps) * w[yi], sm = gi * p->eps / (double)C;
                    kr->expscale(o, x, (float)(nll + sm * wsum), C);
                    if (sm != 0.0) {
                        const float smf = (float)sm;
                        for (int64_t c = 0; c < C; c++) o[c] -= smf * w[c];
                    }
                    o[yi] -= (float)nll;
                }
                smr_line_out(kr, o, op, ov->dtype, ov->strides[1], C, dt, h);
            }
        }
        if (!p->grad) {
            double sum = 0;
            for (int64_t i = 0; i < N; i++) sum += l[i];
            const double v = p->reduction == 1 ? sum / den : sum;
            ok = store(p->reduction == 0 ? l : &v, acl_exec_out(ex, 0));
        }
    }
    free(w);
    free(y);
    free(l);
    free(g);
    free(scratch);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus not_null(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus same_dt(const aclTensor *t, const char *name, const aclTensor *ref, const char *rn) {
    ACLNN_CHECK(t->dtype == ref->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s's dtype %s.", name,
                acl_dtype_name(t->dtype), rn, acl_dtype_name(ref->dtype));
    return ACLNN_SUCCESS;
}

static aclnnStatus shape_is(const aclTensor *t, const char *name, const int64_t *d, int n) {
    if (mx_shape_is(t, d, n)) return ACLNN_SUCCESS;
    char want[128];
    mx_dims_str(d, n, want, sizeof want);
    return ACL_REPORT(TILING_ERR, "%s should have shape %s.", name, want);
}

static aclnnStatus reduction_of(const char *s, int64_t *r) {
    if (!s || strcmp(s, "mean") == 0) *r = 1; /* the attribute's default */
    else if (strcmp(s, "sum") == 0) *r = 2;
    else if (strcmp(s, "none") == 0) *r = 0;
    else return ACL_REPORT(TILING_ERR, "reductionOptional must be \"mean\", \"sum\" or \"none\", got \"%s\".", s);
    return ACLNN_SUCCESS;
}

/* logits / logProb (N, C) with C > 0, target (N), weight (C) */
static aclnnStatus check_nc(const aclTensor *x, const char *xn, const aclTensor *target, const aclTensor *w,
                            const char *wn, double eps) {
    ACLNN_CHECK(x->ndim == 2 && x->dims[1] > 0, TILING_ERR, "%s must be 2-D (N, C) with C > 0.", xn);
    ACL_TRY(shape_is(target, "target", x->dims, 1));
    if (w) ACL_TRY(shape_is(w, wn, &x->dims[1], 1));
    ACLNN_CHECK(eps >= 0.0 && eps <= 1.0, TILING_ERR, "labelSmoothing must be in [0, 1], got %g.", eps);
    return ACLNN_SUCCESS;
}

static aclnnStatus ce_exec(int op, const ce_params *pp, const aclTensor *const *ins, const char *const *inn,
                           int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                           aclOpExecutor **exo) {
    if (pp->N == 0) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, ce_run, sizeof(ce_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++)
        if (ins[i]) rc = acl_exec_add_input(ex, ins[i], inn[i], true);
    for (int i = 0; i < nout && !rc; i++) rc = acl_exec_add_output(ex, outs[i], outn[i]);
    if (rc) return acl_exec_discard(ex, rc);
    *(ce_params *)ex->params = *pp;
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_CrossEntropyLoss(const aclTensor *input, const aclTensor *target, const aclTensor *weightOptional,
                                  char *reductionOptional, int64_t ignoreIndex, double labelSmoothing,
                                  double lseSquareScaleForZloss, bool returnZloss, const aclTensor *lossOut,
                                  const aclTensor *logProbOut, const aclTensor *zlossOut,
                                  const aclTensor *lseForZlossOut, uint64_t *workspaceSize,
                                  aclOpExecutor **executor) {
    (void)lseSquareScaleForZloss;
    (void)returnZloss;
    ACL_TRY(not_null(input, "input"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(lossOut, "lossOut"));
    ACL_TRY(not_null(logProbOut, "logProbOut"));
    ACL_TRY(not_null(zlossOut, "zlossOut"));
    ACL_TRY(not_null(lseForZlossOut, "lseForZlossOut"));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_CrossEntropyLoss, "input"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_CrossEntropyLoss_target, "target"));
    if (weightOptional) ACL_TRY(acl_check_dtype_in(weightOptional, ACL_DT_LIST_CrossEntropyLoss_weightOptional,
                                                   "weightOptional"));
    ACL_TRY(same_dt(lossOut, "lossOut", input, "input"));
    ACL_TRY(same_dt(logProbOut, "logProbOut", input, "input"));
    ACL_TRY(same_dt(zlossOut, "zlossOut", input, "input"));
    ACL_TRY(same_dt(lseForZlossOut, "lseForZlossOut", input, "input"));
    int64_t red = 1;
    ACL_TRY(reduction_of(reductionOptional, &red));
    ACL_TRY(check_nc(input, "input", target, weightOptional, "weightOptional", labelSmoothing));
    if (red == 0) ACL_TRY(shape_is(lossOut, "lossOut", input->dims, 1));
    else ACLNN_CHECK(lossOut->ndim <= 1 && acl_tensor_numel(lossOut) == 1, TILING_ERR,
                     "lossOut must hold one element for a reduction.");
    ACL_TRY(shape_is(logProbOut, "logProbOut", input->dims, 2));
    ce_params pp = {.has_w = weightOptional != NULL, .N = input->dims[0], .C = input->dims[1], .reduction = red,
                    .ignore = ignoreIndex, .eps = labelSmoothing};
    const aclTensor *ins[] = {input, target, weightOptional}, *outs[] = {lossOut, logProbOut};
    const char *inn[] = {"input", "target", "weightOptional"}, *outn[] = {"lossOut", "logProbOut"};
    return ce_exec(ACL_OP_CrossEntropyLoss, &pp, ins, inn, 3, outs, outn, 2, workspaceSize, executor);
}

aclnnStatus opws_CrossEntropyLossGrad(const aclTensor *gradLoss, const aclTensor *logProb, const aclTensor *target,
                                      const aclTensor *weightOptional, const aclTensor *gradZlossOptional,
                                      const aclTensor *lseForZlossOptional, char *reductionOptional,
                                      int64_t ignoreIndex, double labelSmoothing, double lseSquareScaleForZloss,
                                      const aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    (void)lseSquareScaleForZloss;
    ACL_TRY(not_null(gradLoss, "gradLoss"));
    ACL_TRY(not_null(logProb, "logProb"));
    ACL_TRY(not_null(target, "target"));
    ACL_TRY(not_null(out, "out"));
    ACL_TRY(acl_check_dtype_in(gradLoss, ACL_DT_LIST_CrossEntropyLossGrad, "gradLoss"));
    ACL_TRY(same_dt(logProb, "logProb", gradLoss, "gradLoss"));
    ACL_TRY(acl_check_dtype_in(target, ACL_DT_LIST_CrossEntropyLossGrad_target, "target"));
    if (weightOptional) ACL_TRY(acl_check_dtype_in(weightOptional, ACL_DT_LIST_CrossEntropyLossGrad_weightOptional,
                                                   "weightOptional"));
    if (gradZlossOptional) ACL_TRY(same_dt(gradZlossOptional, "gradZlossOptional", gradLoss, "gradLoss"));
    if (lseForZlossOptional) ACL_TRY(same_dt(lseForZlossOptional, "lseForZlossOptional", gradLoss, "gradLoss"));
    ACL_TRY(same_dt(out, "out", gradLoss, "gradLoss"));
    int64_t red = 1;
    ACL_TRY(reduction_of(reductionOptional, &red));
    ACL_TRY(check_nc(logProb, "logProb", target, weightOptional, "weightOptional", labelSmoothing));
    if (red == 0) ACL_TRY(shape_is(gradLoss, "gradLoss", logProb->dims, 1));
    else ACLNN_CHECK(gradLoss->ndim <= 1 && acl_tensor_numel(gradLoss) == 1, TILING_ERR,
                     "gradLoss must be 0-D for a reduction.");
    ACL_TRY(shape_is(out, "out", logProb->dims, 2));
    ce_params pp = {.grad = true, .has_w = weightOptional != NULL, .N = logProb->dims[0], .C = logProb->dims[1],
                    .reduction = red, .ignore = ignoreIndex, .eps = labelSmoothing};
    const aclTensor *ins[] = {gradLoss, logProb, target, weightOptional}, *outs[] = {out};
    const char *inn[] = {"gradLoss", "logProb", "target", "weightOptional"}, *outn[] = {"out"};
    return ce_exec(ACL_OP_CrossEntropyLossGrad, &pp, ins, inn, 4, outs, outn, 1, workspaceSize, executor);
}
