/* aclnnCtcLoss (ops-nn loss/ctc_loss_v2): the CTC forward (alpha) recursion per batch item in log space, in double,
 * as PyTorch's CPU kernel: logProbs [T, N, C] (or [T, C]: N = 1), targets concatenated [sum(targetLengths)] or padded
 * [N, >= max(targetLengths)], the per-item lengths as int arrays. negLogLikelihoodOut [N] ([] for 2-D logProbs);
 * logAlphaOut [N, T, align8(2 max(targetLengths) + 1)] (the A2 layout), -inf outside each item's lattice. A label
 * outside [0, C) has probability 0 (nothing is read outside logProbs). zeroInfinity turns an infinite loss into 0.
 * Batch items are independent (one owner each): the same bytes for any OMP_NUM_THREADS. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

#define CTC_MAX_N 8180
#define CTC_MAX_C 200000
#define CTC_MAX_S 1000

typedef struct {
    int64_t T, N, C, A, blank, tcols; /* A: logAlpha's last dim; tcols: padded targets' row length (0: concatenated) */
    bool zero_inf;
    int64_t *il, *tl, *toff;          /* per item: input length, target length, offset of its labels */
} ctc_params;

static void ctc_free(void *q) {
    ctc_params *p = q;
    free(p->il);
    free(p->tl);
    free(p->toff);
}

static double lse3(double a, double b, double c) {
    double m = fmax(a, fmax(b, c));
    if (m == -INFINITY) return -INFINITY;
    return m + log(exp(a - m) + exp(b - m) + exp(c - m));
}

static aclnnStatus ctc_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ctc_params *p = ex->params;
    const int64_t T = p->T, N = p->N, C = p->C, A = p->A;
    const acl_view *lv = acl_exec_in(ex, 0), *tv = acl_exec_in(ex, 1);
    const int64_t ntg = acl_view_numel(tv);
    double *lp = malloc(sizeof(double) * (size_t)(T * N * C + 1)), *la = malloc(sizeof(double) * (size_t)(N * T * A + 1));
    double *nll = malloc(sizeof(double) * (size_t)(N + 1));
    int64_t *tg = malloc(sizeof(int64_t) * (size_t)(ntg + 1));
    bool ok = lp && la && nll && tg;
    if (ok) {
        mx_load_bcast(lv, lv->dims, lv->ndim, ACL_DOUBLE, lp);
        if (ntg) mx_load_bcast(tv, tv->dims, tv->ndim, ACL_INT64, tg);
        #pragma omp parallel for schedule(static) if (acl_parallel_worth(T * N * A))
        for (int64_t b = 0; b < N; b++) {
            double *a = la + b * T * A;
            for (int64_t i = 0; i < T * A; i++) a[i] = -INFINITY;
            const int64_t L = p->tl[b], S = 2 * L + 1, Ti = p->il[b];
            const int64_t *lab = tg + p->toff[b];
            /* l'(s): blank at even s, the labels at odd s; log p of symbol k at time t (-inf for a label outside C) */
#define SYM(s) ((s) % 2 == 0 ? p->blank : lab[(s) / 2])
#define LP(t, k) ((k) >= 0 && (k) < C ? lp[((t) * N + b) * C + (k)] : -INFINITY)
            if (Ti > 0) {
                a[0] = LP(0, p->blank);
                if (L > 0) a[1] = LP(0, SYM(1));
            }
            for (int64_t t = 1; t < Ti; t++) {
                for (int64_t s = 0; s < S; s++) {
                    const int64_t k = SYM(s);
                    const double a1 = a[(t - 1) * A + s], a2 = s > 0 ? a[(t - 1) * A + s - 1] : -INFINITY;
                    const double a3 = s > 1 && s % 2 == 1 && k != SYM(s - 2) ? a[(t - 1) * A + s - 2] : -INFINITY;
                    a[t * A + s] = lse3(a1, a2, a3) + LP(t, k);
                }
            }
            double l;
            if (Ti == 0) l = L == 0 ? 0.0 : INFINITY;
            else l = -lse3(a[(Ti - 1) * A + S - 1], L > 0 ? a[(Ti - 1) * A + S - 2] : -INFINITY, -INFINITY);
            nll[b] = p->zero_inf && isinf(l) ? 0.0 : l;
#undef SYM
#undef LP
        }
        const acl_view *no = acl_exec_out(ex, 0), *ao = acl_exec_out(ex, 1);
        ok = mx_store_via(nll, ACL_DOUBLE, no->dtype, no) && mx_store_via(la, ACL_DOUBLE, ao->dtype, ao);
    }
    free(lp);
    free(la);
    free(nll);
    free(tg);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus not_null(const void *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_CtcLoss(const aclTensor *logProbs, const aclTensor *targets, const aclIntArray *inputLengths,
                         const aclIntArray *targetlengths, int64_t blank, bool zeroInfinity,
                         aclTensor *negLogLikelihoodOut, aclTensor *logAlphaOut, uint64_t *workspaceSize,
                         aclOpExecutor **executor) {
    const aclIntArray *targetLengths = targetlengths;
    ACL_TRY(not_null(logProbs, "logProbs"));
    ACL_TRY(not_null(targets, "targets"));
    ACL_TRY(not_null(inputLengths, "inputLengths"));
    ACL_TRY(not_null(targetLengths, "targetLengths"));
    ACL_TRY(not_null(negLogLikelihoodOut, "negLogLikelihoodOut"));
    ACL_TRY(not_null(logAlphaOut, "logAlphaOut"));
    /* shapes and values first (this op_api's order), then the dtypes */
    ACLNN_CHECK(logProbs->ndim >= 1 && logProbs->dims[0] != 0, ACLNN_ERR_PARAM_INVALID,
                "logProbs: start (0) + length (1) exceeds dimension size (0).");
    ACLNN_CHECK(logProbs->ndim == 2 || logProbs->ndim == 3, ACLNN_ERR_PARAM_INVALID,
                "DimNum of logProbs [%llu] must equal 2 or 3.", (unsigned long long)logProbs->ndim);
    const bool d3 = logProbs->ndim == 3;
    const int64_t T = logProbs->dims[0], N = d3 ? logProbs->dims[1] : 1, C = logProbs->dims[d3 ? 2 : 1];
    ACLNN_CHECK(blank >= 0 && blank < C, ACLNN_ERR_PARAM_INVALID,
                "Attr parameter blank %lld must be greater than or equal to 0 and less than %lld.", (long long)blank,
                (long long)C);
    int64_t maxIn = 0, maxT = 0, sumT = 0;
    for (uint64_t i = 0; i < inputLengths->size; i++) maxIn = inputLengths->v[i] > maxIn ? inputLengths->v[i] : maxIn;
    ACLNN_CHECK((int64_t)inputLengths->size == N && maxIn <= T, ACLNN_ERR_PARAM_INVALID,
                "inputLengths's size [%llu] must equal to [%lld], and max value [%lld] must be at most [%lld].",
                (unsigned long long)inputLengths->size, (long long)N, (long long)maxIn, (long long)T);
    ACLNN_CHECK((int64_t)targetLengths->size == N, ACLNN_ERR_PARAM_INVALID,
                "targetLengths's size [%llu] must equal to [%lld].", (unsigned long long)targetLengths->size,
                (long long)N);
    for (uint64_t i = 0; i < targetLengths->size; i++) {
        ACLNN_CHECK(targetLengths->v[i] >= 0 && inputLengths->v[i] >= 0, ACLNN_ERR_PARAM_INVALID,
                    "inputLengths and targetLengths must not be negative (item %llu).", (unsigned long long)i);
        maxT = targetLengths->v[i] > maxT ? targetLengths->v[i] : maxT;
        sumT += targetLengths->v[i];
    }
    ACLNN_CHECK(targets->ndim == 1 || targets->ndim == 2, ACLNN_ERR_PARAM_INVALID,
                "DimNum of targets [%llu] must equal 1 or 2.", (unsigned long long)targets->ndim);
    if (targets->ndim == 2)
        ACLNN_CHECK(targets->dims[0] == N && targets->dims[1] >= maxT, ACLNN_ERR_PARAM_INVALID,
                    "targets's shape expect [%lld, >=%lld].", (long long)N, (long long)maxT);
    else
        ACLNN_CHECK(targets->dims[0] == sumT, ACLNN_ERR_PARAM_INVALID, "targets's shape expect [%lld].",
                    (long long)sumT);
    const int64_t A = (2 * maxT + 1 + 7) / 8 * 8;
    const int64_t nd[1] = {N}, ad[3] = {N, T, A};
    ACL_TRY(mx_check_shape(negLogLikelihoodOut, "negLogLikelihoodOut", nd, d3 ? 1 : 0));
    ACL_TRY(mx_check_shape(logAlphaOut, "logAlphaOut", ad, 3));
    ACL_TRY(acl_check_dtype_in(logProbs, ACL_DT_LIST_CtcLoss, "logProbs"));
    const bool half = logProbs->dtype == ACL_FLOAT16 || logProbs->dtype == ACL_BF16;
    ACLNN_CHECK(!(half && (C > CTC_MAX_C || N > CTC_MAX_N || maxT > CTC_MAX_S)), ACLNN_ERR_PARAM_INVALID,
                "logProbs: f16/bf16 with C > %d, N > %d or a target longer than %d is not supported.", CTC_MAX_C,
                CTC_MAX_N, CTC_MAX_S);
    ACL_TRY(acl_check_dtype_in(targets, ACL_DT_LIST_CtcLoss_targets, "targets"));
    ACLNN_CHECK(negLogLikelihoodOut->dtype == logProbs->dtype, ACLNN_ERR_PARAM_INVALID,
                "negLogLikelihoodOut dtype must be logProbs's.");
    ACLNN_CHECK(logAlphaOut->dtype == logProbs->dtype, ACLNN_ERR_PARAM_INVALID, "logAlphaOut dtype must be logProbs's.");
    if (d3 && N == 0) return acl_exec_noop(ACL_OP_CtcLoss, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_CtcLoss, ctc_run, sizeof(ctc_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ctc_params *p = ex->params;
    *p = (ctc_params){.T = T, .N = N, .C = C, .A = A, .blank = blank, .zero_inf = zeroInfinity,
                      .tcols = targets->ndim == 2 ? targets->dims[1] : 0};
    p->il = malloc(sizeof(int64_t) * (size_t)(N + 1));
    p->tl = malloc(sizeof(int64_t) * (size_t)(N + 1));
    p->toff = malloc(sizeof(int64_t) * (size_t)(N + 1));
    ex->free_params = ctc_free;
    if (!p->il || !p->tl || !p->toff) return acl_exec_discard(ex, OOM);
    for (int64_t b = 0, off = 0; b < N; b++) {
        p->il[b] = inputLengths->v[b];
        p->tl[b] = targetLengths->v[b];
        p->toff[b] = p->tcols ? b * p->tcols : off;
        off += p->tl[b];
    }
    aclnnStatus rc = acl_exec_add_input(ex, logProbs, "logProbs", true);
    if (!rc) rc = acl_tensor_empty(targets) ? acl_exec_add_input(ex, targets, "targets", false)
                                            : acl_exec_add_input(ex, targets, "targets", true);
    if (!rc) rc = acl_exec_add_output(ex, negLogLikelihoodOut, "negLogLikelihoodOut");
    if (!rc) rc = acl_exec_add_output(ex, logAlphaOut, "logAlphaOut");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- CtcLossBackward: PyTorch's CPU gradient from the forward's logAlpha and negLogLikelihood (beta recomputed) ---- */

static aclnnStatus ctcb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ctc_params *p = ex->params;
    const int64_t T = p->T, N = p->N, C = p->C, A = p->A;
    const acl_view *gv = acl_exec_in(ex, 0), *lv = acl_exec_in(ex, 1), *tv = acl_exec_in(ex, 2);
    const acl_view *nv = acl_exec_in(ex, 3), *av = acl_exec_in(ex, 4);
    const int64_t ntg = acl_view_numel(tv);
    double *g = malloc(sizeof(double) * (size_t)(N + 1)), *nll = malloc(sizeof(double) * (size_t)(N + 1));
    double *lp = malloc(sizeof(double) * (size_t)(T * N * C + 1)), *la = malloc(sizeof(double) * (size_t)(N * T * A + 1));
    double *lb = malloc(sizeof(double) * (size_t)(N * T * A + 1)), *gr = malloc(sizeof(double) * (size_t)(T * N * C + 1));
    int64_t *tg = malloc(sizeof(int64_t) * (size_t)(ntg + 1));
    bool ok = g && nll && lp && la && lb && gr && tg;
    if (ok) {
        mx_load_bcast(gv, gv->dims, gv->ndim, ACL_DOUBLE, g);
        mx_load_bcast(nv, nv->dims, nv->ndim, ACL_DOUBLE, nll);
        mx_load_bcast(lv, lv->dims, lv->ndim, ACL_DOUBLE, lp);
        mx_load_bcast(av, av->dims, av->ndim, ACL_DOUBLE, la);
        if (ntg) mx_load_bcast(tv, tv->dims, tv->ndim, ACL_INT64, tg);
        #pragma omp parallel for schedule(static) if (acl_parallel_worth(T * N * (A + C)))
        for (int64_t b = 0; b < N; b++) {
            const int64_t L = p->tl[b], S = 2 * L + 1, Ti = p->il[b];
            const int64_t *lab = tg + p->toff[b];
            const double *a = la + b * T * A;
            double *be = lb + b * T * A;
#define SYM(s) ((s) % 2 == 0 ? p->blank : lab[(s) / 2])
#define LP(t, k) ((k) >= 0 && (k) < C ? lp[((t) * N + b) * C + (k)] : -INFINITY)
#define GR(t, k) gr[((t) * N + b) * C + (k)]
            for (int64_t t = 0; t < T; t++)
                for (int64_t c = 0; c < C; c++) GR(t, c) = 0;
            if (Ti == 0) continue;
            /* an infinite loss (the forward with zeroInfinity reports it as 0): the lattice's end is unreachable */
            const double ll = lse3(a[(Ti - 1) * A + S - 1], L > 0 ? a[(Ti - 1) * A + S - 2] : -INFINITY, -INFINITY);
            if (p->zero_inf && (isinf(nll[b]) || ll == -INFINITY)) continue;
            for (int64_t i = 0; i < T * A; i++) be[i] = -INFINITY;
            be[(Ti - 1) * A + S - 1] = LP(Ti - 1, p->blank);
            if (L > 0) be[(Ti - 1) * A + S - 2] = LP(Ti - 1, SYM(S - 2));
            for (int64_t t = Ti - 2; t >= 0; t--)
                for (int64_t s = 0; s < S; s++) {
                    const int64_t k = SYM(s);
                    const double b1 = be[(t + 1) * A + s], b2 = s < S - 1 ? be[(t + 1) * A + s + 1] : -INFINITY;
                    const double b3 = s < S - 2 && SYM(s + 2) != k ? be[(t + 1) * A + s + 2] : -INFINITY;
                    be[t * A + s] = lse3(b1, b2, b3) + LP(t, k);
                }
            for (int64_t t = 0; t < Ti; t++) {
                for (int64_t c = 0; c < C; c++) GR(t, c) = -INFINITY; /* log of the summed alpha beta per symbol */
                for (int64_t s = 0; s < S; s++) {
                    const int64_t k = SYM(s);
                    if (k < 0 || k >= C) continue;
                    GR(t, k) = lse3(GR(t, k), a[t * A + s] + be[t * A + s], -INFINITY);
                }
                for (int64_t c = 0; c < C; c++) {
                    const double l = lp[(t * N + b) * C + c];
                    GR(t, c) = (exp(l) - exp(GR(t, c) + nll[b] - l)) * g[b];
                }
            }
#undef SYM
#undef LP
#undef GR
        }
        ok = mx_store_via(gr, ACL_DOUBLE, acl_exec_out(ex, 0)->dtype, acl_exec_out(ex, 0));
    }
    free(g);
    free(nll);
    free(lp);
    free(la);
    free(lb);
    free(gr);
    free(tg);
    return ok ? ACLNN_SUCCESS : OOM;
}

aclnnStatus opws_CtcLossBackward(const aclTensor *gradOut, const aclTensor *logProbs, const aclTensor *targets,
                                 const aclIntArray *inputLengths, const aclIntArray *targetLengths,
                                 const aclTensor *negLogLikelihood, const aclTensor *logAlpha, int64_t blank,
                                 bool zeroInfinity, aclTensor *out, uint64_t *workspaceSize,
                                 aclOpExecutor **executor) {
    ACL_TRY(not_null(gradOut, "gradOut"));
    ACL_TRY(not_null(logProbs, "logProbs"));
    ACL_TRY(not_null(targets, "targets"));
    ACL_TRY(not_null(inputLengths, "inputLengths"));
    ACL_TRY(not_null(targetLengths, "targetLengths"));
    ACL_TRY(not_null(negLogLikelihood, "negLogLikelihood"));
    ACL_TRY(not_null(logAlpha, "logAlpha"));
    ACL_TRY(not_null(out, "out"));
    ACLNN_CHECK(logProbs->ndim >= 1 && logProbs->dims[0] != 0, ACLNN_ERR_PARAM_INVALID,
                "logProbs: start (0) + length (1) exceeds dimension size (0).");
    ACLNN_CHECK(gradOut->ndim == 1, ACLNN_ERR_PARAM_INVALID, "DimNum of gradOut must equal 1.");
    ACLNN_CHECK(negLogLikelihood->ndim == 1, ACLNN_ERR_PARAM_INVALID, "DimNum of negLogLikelihood must equal 1.");
    ACLNN_CHECK(logProbs->ndim == 3, ACLNN_ERR_PARAM_INVALID, "DimNum of logProbs must equal 3.");
    ACLNN_CHECK(logAlpha->ndim == 3, ACLNN_ERR_PARAM_INVALID, "DimNum of logAlpha must equal 3.");
    ACLNN_CHECK(targets->ndim == 1 || targets->ndim == 2, ACLNN_ERR_PARAM_INVALID,
                "DimNum of targets must equal 1 or 2.");
    ACLNN_CHECK(out->ndim == 3, ACLNN_ERR_PARAM_INVALID, "DimNum of out must equal 3.");
    const int64_t T = logProbs->dims[0], N = logProbs->dims[1], C = logProbs->dims[2], A = logAlpha->dims[2];
    ACLNN_CHECK(blank >= 0 && blank < C, ACLNN_ERR_PARAM_INVALID,
                "Attr parameter blank %lld must be greater than or equal to 0 and less than %lld.", (long long)blank,
                (long long)C);
    int64_t maxIn = 0, maxT = 0, sumT = 0;
    for (uint64_t i = 0; i < inputLengths->size; i++) {
        ACLNN_CHECK(inputLengths->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "inputLengths must not be negative.");
        maxIn = inputLengths->v[i] > maxIn ? inputLengths->v[i] : maxIn;
    }
    for (uint64_t i = 0; i < targetLengths->size; i++) {
        ACLNN_CHECK(targetLengths->v[i] >= 0, ACLNN_ERR_PARAM_INVALID, "targetLengths must not be negative.");
        maxT = targetLengths->v[i] > maxT ? targetLengths->v[i] : maxT;
        sumT += targetLengths->v[i];
    }
    ACLNN_CHECK(maxT <= (A - 1) / 2, ACLNN_ERR_PARAM_INVALID,
                "S of targets [%lld] must be at most half of logAlpha's length [%lld].", (long long)maxT,
                (long long)A);
    bool nok = gradOut->dims[0] == N && out->dims[1] == N && negLogLikelihood->dims[0] == N &&
               logAlpha->dims[0] == N && (int64_t)inputLengths->size == N && (int64_t)targetLengths->size == N;
    if (targets->ndim == 2) {
        ACLNN_CHECK(targets->dims[1] >= maxT, ACLNN_ERR_PARAM_INVALID, "targets's dim 1 must be at least %lld.",
                    (long long)maxT);
        nok = nok && targets->dims[0] == N;
    }
    ACLNN_CHECK(nok, ACLNN_ERR_PARAM_INVALID, "Check batchSize failed (gradOut, out, negLogLikelihood, logAlpha, "
                "inputLengths, targetLengths, targets must agree on N).");
    ACLNN_CHECK(out->dims[0] == T && logAlpha->dims[1] == T && maxIn <= T, ACLNN_ERR_PARAM_INVALID,
                "Check max time failed (out, logAlpha and inputLengths against logProbs).");
    ACLNN_CHECK(out->dims[2] == C, ACLNN_ERR_PARAM_INVALID, "Check symbolSet failed (out's C).");
    if (targets->ndim == 1)
        ACLNN_CHECK(targets->dims[0] == sumT, ACLNN_ERR_PARAM_INVALID, "targets's shape expect [%lld].",
                    (long long)sumT);
    ACL_TRY(mx_check_shape(out, "out", logProbs->dims, 3));
    ACL_TRY(acl_check_dtype_in(logProbs, ACL_DT_LIST_CtcLossBackward, "logProbs"));
    const bool half = logProbs->dtype == ACL_FLOAT16 || logProbs->dtype == ACL_BF16;
    ACLNN_CHECK(!(half && (C > CTC_MAX_C || N > CTC_MAX_N || (A - 1) / 2 > CTC_MAX_S)), ACLNN_ERR_PARAM_INVALID,
                "logProbs: f16/bf16 with C > %d, N > %d or a target longer than %d is not supported.", CTC_MAX_C,
                CTC_MAX_N, CTC_MAX_S);
    const aclTensor *same[] = {gradOut, negLogLikelihood, logAlpha, out};
    const char *sn[] = {"gradOut", "negLogLikelihood", "logAlpha", "out"};
    for (int k = 0; k < 4; k++)
        ACLNN_CHECK(same[k]->dtype == logProbs->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype must be logProbs's.",
                    sn[k]);
    ACL_TRY(acl_check_dtype_in(targets, ACL_DT_LIST_CtcLossBackward_targets, "targets"));
    if (N == 0 || acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_CtcLossBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_CtcLossBackward, ctcb_run, sizeof(ctc_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ctc_params *p = ex->params;
    *p = (ctc_params){.T = T, .N = N, .C = C, .A = A, .blank = blank, .zero_inf = zeroInfinity,
                      .tcols = targets->ndim == 2 ? targets->dims[1] : 0};
    p->il = malloc(sizeof(int64_t) * (size_t)(N + 1));
    p->tl = malloc(sizeof(int64_t) * (size_t)(N + 1));
    p->toff = malloc(sizeof(int64_t) * (size_t)(N + 1));
    ex->free_params = ctc_free;
    if (!p->il || !p->tl || !p->toff) return acl_exec_discard(ex, OOM);
    for (int64_t b = 0, off = 0; b < N; b++) {
        p->il[b] = inputLengths->v[b];
        p->tl[b] = targetLengths->v[b];
        p->toff[b] = p->tcols ? b * p->tcols : off;
        off += p->tl[b];
    }
    aclnnStatus rc = acl_exec_add_input(ex, gradOut, "gradOut", true);
    if (!rc) rc = acl_exec_add_input(ex, logProbs, "logProbs", true);
    if (!rc) rc = acl_exec_add_input(ex, targets, "targets", !acl_tensor_empty(targets));
    if (!rc) rc = acl_exec_add_input(ex, negLogLikelihood, "negLogLikelihood", true);
    if (!rc) rc = acl_exec_add_input(ex, logAlpha, "logAlpha", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
