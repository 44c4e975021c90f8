/* Small dense linear algebra, batched over the leading dims, in double or double complex (linalg_kern.inc) with
 * the result rounded to the dtype the real op's kernel produces before the cast to the output:
 *   LinalgCholesky  (f32/f16/bf16 in float)      Qr, LinalgQr  Householder, LAPACK's reflector convention
 *   Svd             one-sided Jacobi             Slogdet, Logdet  LU with partial pivoting
 *   TriangularSolve (batch dims broadcast; a complex `transpose` is the adjoint, as the op's MatrixTriangularSolve
 *                    kernel takes it)
 * Validation follows each op_api source in order (null checks, dtypes, formats, shapes, the empty early return).
 * Batches run in parallel, one matrix per iteration: deterministic. */
#include <complex.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

/* ---- the kernels, real and complex ---- */
#define LT double
#define LN(x) x##_d
#define LCONJ(x) (x)
#define LRE(x) (x)
#define LIM(x) 0.0
#define LABS(x) fabs(x)
#define LABS1(x) fabs(x)
#define LMK(r, i) (r)
#include "ops/linalg_kern.inc"
#undef LT
#undef LN
#undef LCONJ
#undef LRE
#undef LIM
#undef LABS
#undef LABS1
#undef LMK

typedef double complex zc;
#define LT zc
#define LN(x) x##_z
#define LCONJ(x) conj(x)
#define LRE(x) creal(x)
#define LIM(x) cimag(x)
#define LABS(x) cabs(x)
#define LABS1(x) (fabs(creal(x)) + fabs(cimag(x)))
#define LMK(r, i) CMPLX((r), (i))
#include "ops/linalg_kern.inc"
#undef LT
#undef LN
#undef LCONJ
#undef LRE
#undef LIM
#undef LABS
#undef LABS1
#undef LMK

/* lower Cholesky of a (n x n, only its lower triangle read) in place; the strict upper triangle set to 0. A
 * non-positive pivot gives NaN (sqrt of a negative), which then spreads, as the kernel's float arithmetic does. */
static void cholesky_lower(double *a, int64_t n) {
    for (int64_t j = 0; j < n; j++) {
        double s = a[j * n + j];
        for (int64_t k = 0; k < j; k++) s -= a[j * n + k] * a[j * n + k];
        double d = sqrt(s);
        a[j * n + j] = d;
        for (int64_t i = j + 1; i < n; i++) {
            double t = a[i * n + j];
            for (int64_t k = 0; k < j; k++) t -= a[i * n + k] * a[j * n + k];
            a[i * n + j] = t / d;
        }
        for (int64_t i = 0; i < j; i++) a[i * n + j] = 0;
    }
}

enum { LA_CHOL, LA_QR, LA_SVD, LA_SLOGDET, LA_LOGDET, LA_TRSV };
typedef struct {
    int kind;
    bool upper, complete, want_q, full, uv, adjoint, unit, cplx;
    aclDataType cdt;                       /* the dtype the op's kernel computes and returns */
    int nd;                                /* TriangularSolve: rank of the broadcast xOut / mOut */
    int64_t xd[ACL_MAX_VIEW_RANK], md[ACL_MAX_VIEW_RANK];
} la_params;

/* batch count of a view seen as (batch..., r, c) with `tail` trailing matrix dims */
static int64_t batch_of(const acl_view *v, int tail) {
    int64_t b = 1;
    for (int k = 0; k < v->ndim - tail; k++) b *= v->dims[k];
    return b;
}

/* the view's elements, contiguous, as double (real ops) or double complex */
static void *load(const acl_view *v, bool cplx) {
    int64_t n = acl_view_numel(v), st[ACL_MAX_VIEW_RANK];
    void *buf = malloc((cplx ? sizeof(zc) : sizeof(double)) * (size_t)(n + 1));
    if (!buf || n == 0) return buf;
    mx_contig_strides(v->dims, v->ndim, st);
    cp_copy(v->base, v->dtype, v->strides, buf, cplx ? ACL_COMPLEX128 : ACL_DOUBLE, st, v->dims, v->ndim);
    return buf;
}

static bool store(const void *buf, bool cplx, aclDataType cdt, const acl_view *v) {
    return mx_store_via(buf, cplx ? ACL_COMPLEX128 : ACL_DOUBLE, cdt, v);
}

static aclnnStatus run_chol(const la_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0);
    const int64_t n = x->dims[x->ndim - 1], B = batch_of(x, 2);
    double *a = load(x, false);
    if (!a) return OOM;
    ACL_FOR(B > 1 && acl_parallel_worth(mx_work(B, n, n, n)), b, 0, B, {
        double *m = a + b * n * n;
        if (p->upper) /* U^T U = A from A's upper triangle: the lower factor of A^T, transposed back */
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < i; j++) m[i * n + j] = m[j * n + i];
        cholesky_lower(m, n);
        if (p->upper)
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = i + 1; j < n; j++) { m[i * n + j] = m[j * n + i]; m[j * n + i] = 0; }
    });
    bool ok = store(a, false, p->cdt, acl_exec_out(ex, 0));
    free(a);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_qr(const la_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0);
    const int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1], B = batch_of(x, 2);
    const int64_t k = m < n ? m : n, qc = p->complete ? m : k;
    const size_t es = p->cplx ? sizeof(zc) : sizeof(double);
    /* Q's and R's element counts are those of the outputs (Q unused in mode r) */
    char *a = load(x, p->cplx), *q = p->want_q ? malloc(es * (size_t)(B * m * qc + 1)) : NULL;
    char *r = malloc(es * (size_t)(B * qc * n + 1));
    bool ok = a && (q || !p->want_q) && r;
    #pragma omp parallel for schedule(static) reduction(&& : ok) if (ok && B > 1 && acl_parallel_worth(mx_work(B, m, n, qc)))
    for (int64_t b = 0; b < B; b++) {
        if (!ok) continue;
        char *qb = p->want_q ? q + es * (size_t)(b * m * qc) : NULL, *rb = r + es * (size_t)(b * qc * n);
        ok = p->cplx ? qr_z((const zc *)(a + es * (size_t)(b * m * n)), m, n, p->complete, (zc *)qb, (zc *)rb)
                     : qr_d((const double *)(a + es * (size_t)(b * m * n)), m, n, p->complete, (double *)qb,
                            (double *)rb);
    }
    if (ok && p->want_q) ok = store(q, p->cplx, p->cdt, acl_exec_out(ex, 0));
    if (ok) ok = store(r, p->cplx, p->cdt, acl_exec_out(ex, 1));
    free(a);
    free(q);
    free(r);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_svd(const la_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0);
    const int64_t m = x->dims[x->ndim - 2], n = x->dims[x->ndim - 1], B = batch_of(x, 2);
    const int64_t k = m < n ? m : n, M = m >= n ? m : n, N = k;
    const int64_t uc = p->full ? m : k, vc = p->full ? n : k;
    const size_t es = p->cplx ? sizeof(zc) : sizeof(double);
    char *a = load(x, p->cplx);
    double *s = malloc(sizeof(double) * (size_t)(B * k + 1));
    /* u's and v's buffers have the outputs' element counts (not allocated without computeUV) */
    char *uo = p->uv ? calloc((size_t)(B * m * uc + 1), es) : NULL, *vo = p->uv ? calloc((size_t)(B * n * vc + 1), es) : NULL;
    bool ok = a && s && ((uo && vo) || !p->uv);
    #pragma omp parallel for schedule(static) reduction(&& : ok) if (ok && B > 1 && acl_parallel_worth(mx_work(B, M, N, N)))
    for (int64_t b = 0; b < B; b++) {
        if (!ok) continue;
        /* A (m x n) = U S V^H; for m < n decompose A^H = V S U^H instead (Jacobi wants M >= N) */
        char *at = malloc(es * (size_t)(M * N + 1)), *u = malloc(es * (size_t)(M * N + 1));
        char *v = malloc(es * (size_t)(N * N + 1));
        const bool need_uf = p->uv && p->full && M > N; /* M x M: the element count of u or v */
        char *uf = need_uf ? malloc(es * (size_t)(M * M + 1)) : NULL;
        unsigned char *bad = calloc((size_t)M + 1, 1);
        bool okb = at && u && v && (uf || !need_uf) && bad;
        if (okb) {
            const char *ab = a + es * (size_t)(b * m * n);
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) {
                    int64_t src = m >= n ? i * n + j : j * n + i;
                    if (p->cplx) ((zc *)at)[i * N + j] = m >= n ? ((const zc *)ab)[src] : conj(((const zc *)ab)[src]);
                    else ((double *)at)[i * N + j] = ((const double *)ab)[src];
                }
            okb = p->cplx ? svd_z((zc *)at, M, N, s + b * k, (zc *)u, (zc *)v)
                          : svd_d((double *)at, M, N, s + b * k, (double *)u, (double *)v);
        }
        if (okb && p->uv) {
            /* the thin left factor of the decomposed matrix (M x N), completed to M x M when full matrices are
             * wanted; the right factor (N x N) is already square */
            const char *left = u;
            int64_t lc = N;
            if (need_uf) {
                for (int64_t i = 0; i < M; i++)
                    for (int64_t j = 0; j < M; j++) {
                        if (p->cplx) ((zc *)uf)[i * M + j] = j < N ? ((zc *)u)[i * N + j] : 0;
                        else ((double *)uf)[i * M + j] = j < N ? ((double *)u)[i * N + j] : 0;
                    }
                for (int64_t j = 0; j < M; j++) bad[j] = j >= N;
                okb = p->cplx ? complete_z((zc *)uf, M, M, bad) : complete_d((double *)uf, M, M, bad);
                left = uf;
                lc = M;
            }
            /* m >= n: u = left (m x lc), v = right (n x N); m < n: u = right (m x N), v = left (n x lc) */
            char *ub = uo + es * (size_t)(b * m * uc), *vb = vo + es * (size_t)(b * n * vc);
            const char *usrc = m >= n ? left : v, *vsrc = m >= n ? v : left;
            const int64_t usc = m >= n ? lc : N, vsc = m >= n ? N : lc;
            for (int64_t i = 0; i < m; i++)
                memcpy(ub + es * (size_t)(i * uc), usrc + es * (size_t)(i * usc), es * (size_t)uc);
            for (int64_t i = 0; i < n; i++)
                memcpy(vb + es * (size_t)(i * vc), vsrc + es * (size_t)(i * vsc), es * (size_t)vc);
        }
        free(at); free(u); free(v); free(uf); free(bad);
        ok = okb;
    }
    if (ok) ok = store(s, false, p->cdt, acl_exec_out(ex, 0));
    if (ok && p->uv) ok = store(uo, p->cplx, p->cdt, acl_exec_out(ex, 1)) && store(vo, p->cplx, p->cdt, acl_exec_out(ex, 2));
    free(a); free(s); free(uo); free(vo);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_slogdet(const la_params *p, aclOpExecutor *ex) {
    const acl_view *x = acl_exec_in(ex, 0);
    const int64_t n = x->dims[x->ndim - 1], B = batch_of(x, 2);
    const size_t es = p->cplx ? sizeof(zc) : sizeof(double);
    char *a = load(x, p->cplx), *sg = malloc(es * (size_t)(B + 1)), *la = malloc(es * (size_t)(B + 1));
    bool ok = a && sg && la;
    #pragma omp parallel for schedule(static) reduction(&& : ok) if (ok && B > 1 && acl_parallel_worth(mx_work(B, n, n, n)))
    for (int64_t b = 0; b < B; b++) {
        if (!ok) continue;
        double l = 0;
        if (p->cplx) {
            zc s = 0;
            ok = slogdet_z((const zc *)a + b * n * n, n, &s, &l);
            /* logdet = log|det| + log(sign): log(-1) is NaN for real, i*arg(sign) for complex */
            ((zc *)sg)[b] = s;
            ((zc *)la)[b] = p->kind == LA_LOGDET ? l + clog(s) : CMPLX(l, 0);
            if (p->kind == LA_LOGDET && s == 0) ((zc *)la)[b] = CMPLX(-INFINITY, 0);
        } else {
            double s = 0;
            ok = slogdet_d((const double *)a + b * n * n, n, &s, &l);
            ((double *)sg)[b] = s;
            /* log(-1): a (positive) NaN, as torch.logdet gives */
            ((double *)la)[b] = p->kind != LA_LOGDET ? l : s < 0 ? NAN : l + log(s);
        }
    }
    if (ok && p->kind == LA_SLOGDET) ok = store(sg, p->cplx, p->cdt, acl_exec_out(ex, 0));
    if (ok) ok = store(la, p->cplx, p->cdt, acl_exec_out(ex, p->kind == LA_SLOGDET ? 1 : 0));
    free(a); free(sg); free(la);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus run_trsv(const la_params *p, aclOpExecutor *ex) {
    const acl_view *bv = acl_exec_in(ex, 0), *av = acl_exec_in(ex, 1);
    const int nd = p->nd;
    const int64_t n = p->md[nd - 1], k = p->xd[nd - 1];
    int64_t B = 1;
    for (int i = 0; i < nd - 2; i++) B *= p->xd[i];
    const size_t es = p->cplx ? sizeof(zc) : sizeof(double);
    const aclDataType wdt = p->cplx ? ACL_COMPLEX128 : ACL_DOUBLE;
    char *X = malloc(es * (size_t)(B * n * k + 1)), *A = malloc(es * (size_t)(B * n * n + 1));
    if (!X || !A) { free(X); free(A); return OOM; }
    mx_load_bcast(bv, p->xd, nd, wdt, X);
    mx_load_bcast(av, p->md, nd, wdt, A);
    bool ok = true;
    if (ex->n_out > 1) ok = store(A, p->cplx, p->cdt, acl_exec_out(ex, 1)); /* mOut: A broadcast, as given */
    ACL_FOR(B > 1 && acl_parallel_worth(mx_work(B, n, n, k)), b, 0, B, {
        if (p->cplx)
            trsolve_z((const zc *)A + b * n * n, (zc *)X + b * n * k, n, k, p->upper, p->adjoint, p->unit);
        else
            trsolve_d((const double *)A + b * n * n, (double *)X + b * n * k, n, k, p->upper, p->adjoint, p->unit);
    });
    if (ok) ok = store(X, p->cplx, p->cdt, acl_exec_out(ex, 0));
    free(X);
    free(A);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus la_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const la_params *p = ex->params;
    switch (p->kind) {
    case LA_CHOL: return run_chol(p, ex);
    case LA_QR: return run_qr(p, ex);
    case LA_SVD: return run_svd(p, ex);
    case LA_SLOGDET: case LA_LOGDET: return run_slogdet(p, ex);
    case LA_TRSV: return run_trsv(p, ex);
    default: return ACLNN_SUCCESS;
    }
}

/* ---- first-phase helpers ---- */

static aclnnStatus min_dim(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim >= n, ACLNN_ERR_PARAM_INVALID, "%s must have at least %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus max_dim(const aclTensor *t, uint64_t n, const char *name) {
    ACLNN_CHECK(t->ndim <= n, ACLNN_ERR_PARAM_INVALID, "%s must have at most %llu dims, but has %llu.", name,
                (unsigned long long)n, (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus null_in(const void *t, const char *name, aclnnStatus code) {
    ACLNN_CHECK(t != NULL, code, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

/* An executor over ins then outs (an output given as empty_out[i] is recorded without a memory check: the op
 * writes nothing into it); params filled by value. Tensors of more than 8 dims are folded (mx_fold) first. */
static aclnnStatus la_exec(int op, const la_params *pp, const aclTensor *const *ins, const char *const *inn, int nin,
                           const aclTensor *const *outs, const char *const *outn, const bool *skip_out, int nout,
                           uint64_t *ws, aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, la_run, sizeof(la_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    aclTensor f;
    for (int i = 0; i < nin && !rc; i++) {
        mx_fold(ins[i], 2, &f);
        rc = acl_exec_add_input(ex, &f, inn[i], !acl_tensor_empty(ins[i]));
    }
    for (int i = 0; i < nout && !rc; i++) {
        mx_fold(outs[i], 0, &f);
        rc = (skip_out[i] || acl_tensor_empty(outs[i])) ? acl_exec_add_output_nodata(ex, &f, outn[i])
                                                        : acl_exec_add_output(ex, &f, outn[i]);
    }
    if (rc) return acl_exec_discard(ex, rc);
    *(la_params *)ex->params = *pp;
    return acl_exec_publish(ex, ws, exo);
}

static aclDataType compute_dt(aclDataType d) { return d == ACL_FLOAT16 || d == ACL_BF16 ? ACL_FLOAT : d; }

/* ---- LinalgCholesky ---- */

aclnnStatus opws_LinalgCholesky(const aclTensor *self, bool upper, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACLNN_CHECK(out->dtype == self->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as self's %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(self->dtype));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LinalgCholesky, "self"));
    ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                "format of self (%s) and out (%s) should be equal.", acl_format_name(self->format),
                acl_format_name(out->format));
    ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self format %s: only ND is supported.",
                acl_format_name(self->format));
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(min_dim(self, 2, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_LinalgCholesky, workspaceSize, executor);
    const int64_t n = self->dims[self->ndim - 1], m = self->dims[self->ndim - 2];
    ACLNN_CHECK(m == n, ACLNN_ERR_PARAM_INVALID, "self must be batches of square matrices, but they are %lld by %lld.",
                (long long)m, (long long)n);
    ACLNN_CHECK(n <= 8192, ACLNN_ERR_PARAM_INVALID, "self's last dim %lld must be at most 8192.", (long long)n);
    la_params pp = {.kind = LA_CHOL, .upper = upper, .cdt = ACL_FLOAT};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    const bool skip[] = {false};
    return la_exec(ACL_OP_LinalgCholesky, &pp, ins, inn, 1, outs, outn, skip, 1, workspaceSize, executor);
}

/* ---- Qr, LinalgQr ---- */

/* mode: 0 reduced (Q m x k, R k x n), 1 complete (Q m x m, R m x n), 2 r (Q of shape [0], R k x n) */
static aclnnStatus qr_common(int op, const aclTensor *self, int mode, aclTensor *Q, aclTensor *R, uint64_t *ws,
                             aclOpExecutor **exo) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(Q, "Q", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(R, "R", ACLNN_ERR_INNER_NULLPTR));
    if (op == ACL_OP_Qr) {
        ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Qr, "self"));
        ACL_TRY(acl_check_dtype_in(Q, ACL_DT_LIST_Qr_Q, "Q"));
        ACL_TRY(acl_check_dtype_in(R, ACL_DT_LIST_Qr_R, "R"));
    } else {
        ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LinalgQr, "self"));
        ACL_TRY(acl_check_dtype_in(Q, ACL_DT_LIST_LinalgQr_Q, "Q"));
        ACL_TRY(acl_check_dtype_in(R, ACL_DT_LIST_LinalgQr_R, "R"));
    }
    ACL_TRY(min_dim(self, 2, "self"));
    ACL_TRY(max_dim(self, 8, "self"));
    const int nd = (int)self->ndim;
    const int64_t m = self->dims[nd - 2], n = self->dims[nd - 1], k = m < n ? m : n;
    int64_t qd[ACL_MAX_VIEW_RANK], rd[ACL_MAX_VIEW_RANK];
    memcpy(qd, self->dims, sizeof(int64_t) * (size_t)nd);
    memcpy(rd, self->dims, sizeof(int64_t) * (size_t)nd);
    int qn = nd;
    if (mode == 2) {
        qd[0] = 0;
        qn = 1;
        rd[nd - 2] = k;
    } else if (mode == 1) {
        qd[nd - 1] = m;
    } else {
        qd[nd - 1] = k;
        rd[nd - 2] = k;
    }
    ACL_TRY(mx_check_shape(Q, "Q", qd, qn));
    ACL_TRY(mx_check_shape(R, "R", rd, nd));
    /* an empty self still has a Q when only n is 0 and Q is m x m: the identity */
    if (acl_tensor_empty(self) && acl_tensor_empty(Q)) return acl_exec_noop(op, ws, exo);
    la_params pp = {.kind = LA_QR, .complete = mode == 1, .want_q = mode != 2,
                    .cplx = acl_dt_is_complex(self->dtype), .cdt = compute_dt(self->dtype)};
    const aclTensor *ins[] = {self}, *outs[] = {Q, R};
    const char *inn[] = {"self"}, *outn[] = {"Q", "R"};
    const bool skip[] = {mode == 2, false};
    return la_exec(op, &pp, ins, inn, 1, outs, outn, skip, 2, ws, exo);
}

aclnnStatus opws_Qr(const aclTensor *self, bool some, aclTensor *Q, aclTensor *R,
                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    return qr_common(ACL_OP_Qr, self, some ? 0 : 1, Q, R, workspaceSize, executor);
}

aclnnStatus opws_LinalgQr(const aclTensor *self, int64_t mode, aclTensor *Q, aclTensor *R,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* the op does not validate mode: 1 is complete, 2 is r, anything else reduced */
    return qr_common(ACL_OP_LinalgQr, self, mode == 1 ? 1 : mode == 2 ? 2 : 0, Q, R, workspaceSize, executor);
}

/* ---- Svd ---- */

aclnnStatus opws_Svd(const aclTensor *input, const bool fullMatrices, const bool computeUV,
                     aclTensor *sigma, aclTensor *u, aclTensor *v, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    ACL_TRY(null_in(input, "input", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(sigma, "sigma", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(u, "u", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(v, "v", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_Svd, "input"));
    ACL_TRY(acl_check_dtype_in(sigma, ACL_DT_LIST_Svd, "sigma"));
    ACL_TRY(acl_check_dtype_in(u, ACL_DT_LIST_Svd, "u"));
    ACL_TRY(acl_check_dtype_in(v, ACL_DT_LIST_Svd, "v"));
    ACL_TRY(acl_check_same_dtype(input, "input", sigma, "sigma"));
    ACL_TRY(acl_check_same_dtype(input, "input", u, "u"));
    ACL_TRY(acl_check_same_dtype(input, "input", v, "v"));
    ACLNN_CHECK(input->ndim >= 2, ACLNN_ERR_PARAM_INVALID, "input dim num should be greater than or equal to 2.");
    ACLNN_CHECK(input->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "input dim num should be less than or equal to 8.");
    const int nd = (int)input->ndim;
    const int64_t m = input->dims[nd - 2], n = input->dims[nd - 1], k = m < n ? m : n;
    int64_t sd[ACL_MAX_VIEW_RANK], ud[ACL_MAX_VIEW_RANK], vd[ACL_MAX_VIEW_RANK];
    memcpy(sd, input->dims, sizeof(int64_t) * (size_t)nd);
    memcpy(ud, input->dims, sizeof(int64_t) * (size_t)nd);
    memcpy(vd, input->dims, sizeof(int64_t) * (size_t)nd);
    sd[nd - 2] = k;
    ud[nd - 1] = fullMatrices ? m : k;
    vd[nd - 2] = n;
    vd[nd - 1] = fullMatrices ? n : k;
    ACLNN_CHECK(mx_shape_is(sigma, sd, nd - 1), ACLNN_ERR_PARAM_INVALID, "Shape of output tensor sigma is invalid.");
    if (computeUV) { /* not checked (and not written) without computeUV */
        ACLNN_CHECK(mx_shape_is(u, ud, nd), ACLNN_ERR_PARAM_INVALID, "Shape of output tensor u is invalid.");
        ACLNN_CHECK(mx_shape_is(v, vd, nd), ACLNN_ERR_PARAM_INVALID, "Shape of output tensor v is invalid.");
    }
    if (acl_tensor_empty(input)) return acl_exec_noop(ACL_OP_Svd, workspaceSize, executor);
    la_params pp = {.kind = LA_SVD, .full = fullMatrices, .uv = computeUV, .cplx = acl_dt_is_complex(input->dtype),
                    .cdt = input->dtype};
    const aclTensor *ins[] = {input}, *outs[] = {sigma, u, v};
    const char *inn[] = {"input"}, *outn[] = {"sigma", "u", "v"};
    const bool skip[] = {false, false, false};
    /* without computeUV, u and v (any shape) are neither checked nor written: not part of the executor */
    return la_exec(ACL_OP_Svd, &pp, ins, inn, 1, outs, outn, skip, computeUV ? 3 : 1, workspaceSize, executor);
}

/* ---- Slogdet, Logdet ---- */

static aclnnStatus det_shapes(const aclTensor *self, const aclTensor *o1, const char *n1, const aclTensor *o2,
                              const char *n2) {
    ACL_TRY(min_dim(self, 2, "self"));
    const int nd = (int)self->ndim;
    const int64_t m = self->dims[nd - 2], n = self->dims[nd - 1];
    ACLNN_CHECK(m == n, ACLNN_ERR_PARAM_INVALID,
                "The last two dimensions of self must be equal, but they are %lld by %lld matrices.", (long long)m,
                (long long)n);
    ACL_TRY(mx_check_shape(o1, n1, self->dims, nd - 2));
    if (o2) ACL_TRY(mx_check_shape(o2, n2, self->dims, nd - 2));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Slogdet(const aclTensor *self, aclTensor *signOut, aclTensor *logOut,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(signOut, "signOut", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(logOut, "logOut", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Slogdet, "self"));
    ACL_TRY(acl_check_dtype_in(signOut, ACL_DT_LIST_Slogdet_signOut, "signOut"));
    ACL_TRY(acl_check_dtype_in(logOut, ACL_DT_LIST_Slogdet_logOut, "logOut"));
    const bool cplx = acl_dt_is_complex(self->dtype);
    ACLNN_CHECK(!cplx || acl_dt_is_complex(signOut->dtype), ACLNN_ERR_PARAM_INVALID,
                "self's dtype is %s, so signOut's dtype should be complex too, but it is %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(signOut->dtype));
    ACLNN_CHECK(!cplx || acl_dt_is_complex(logOut->dtype), ACLNN_ERR_PARAM_INVALID,
                "self's dtype is %s, so logOut's dtype should be complex too, but it is %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(logOut->dtype));
    ACL_TRY(det_shapes(self, signOut, "signOut", logOut, "logOut"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Slogdet, workspaceSize, executor);
    la_params pp = {.kind = LA_SLOGDET, .cplx = cplx, .cdt = self->dtype};
    const aclTensor *ins[] = {self}, *outs[] = {signOut, logOut};
    const char *inn[] = {"self"}, *outn[] = {"signOut", "logOut"};
    const bool skip[] = {false, false};
    return la_exec(ACL_OP_Slogdet, &pp, ins, inn, 1, outs, outn, skip, 2, workspaceSize, executor);
}

aclnnStatus opws_Logdet(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(null_in(out, "out", ACLNN_ERR_PARAM_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Logdet, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Logdet_out, "out"));
    const bool cplx = acl_dt_is_complex(self->dtype);
    ACLNN_CHECK(!cplx || acl_dt_is_complex(out->dtype), ACLNN_ERR_PARAM_INVALID,
                "self's dtype is %s, so out's dtype should be complex too, but it is %s.",
                acl_dtype_name(self->dtype), acl_dtype_name(out->dtype));
    ACL_TRY(det_shapes(self, out, "out", NULL, NULL));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Logdet, workspaceSize, executor);
    la_params pp = {.kind = LA_LOGDET, .cplx = cplx, .cdt = self->dtype};
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    const bool skip[] = {false};
    return la_exec(ACL_OP_Logdet, &pp, ins, inn, 1, outs, outn, skip, 1, workspaceSize, executor);
}

/* ---- TriangularSolve ---- */

aclnnStatus opws_TriangularSolve(const aclTensor *self, const aclTensor *A, bool upper, bool transpose,
                                 bool unitriangular, aclTensor *xOut, aclTensor *mOut,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(null_in(self, "self", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(A, "A", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(null_in(xOut, "xOut", ACLNN_ERR_INNER_NULLPTR));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_TriangularSolve, "self"));
    ACL_TRY(acl_check_dtype_in(A, ACL_DT_LIST_TriangularSolve, "A"));
    ACL_TRY(acl_check_dtype_in(xOut, ACL_DT_LIST_TriangularSolve, "xOut"));
    ACL_TRY(acl_check_same_dtype(self, "self", A, "A"));
    ACL_TRY(acl_check_same_dtype(self, "self", xOut, "xOut"));
    if (mOut) {
        ACL_TRY(acl_check_dtype_in(mOut, ACL_DT_LIST_TriangularSolve, "mOut"));
        ACL_TRY(acl_check_same_dtype(self, "self", mOut, "mOut"));
    }
    ACL_TRY(min_dim(self, 2, "self"));
    ACL_TRY(min_dim(A, 2, "A"));
    ACL_TRY(min_dim(xOut, 2, "xOut"));
    ACL_TRY(max_dim(self, 8, "self"));
    ACL_TRY(max_dim(A, 8, "A"));
    ACL_TRY(max_dim(xOut, 8, "xOut"));
    const int an = (int)A->ndim, bn = (int)self->ndim;
    const int64_t ah = A->dims[an - 2], aw = A->dims[an - 1], bh = self->dims[bn - 2], bw = self->dims[bn - 1];
    ACLNN_CHECK(ah == aw, ACLNN_ERR_PARAM_INVALID, "A must be batches of square matrices, but they are %lld by %lld.",
                (long long)ah, (long long)aw);
    ACLNN_CHECK(bh == ah, ACLNN_ERR_PARAM_INVALID,
                "Incompatible matrix sizes for triangular_solve: each A matrix is %lld by %lld but each self matrix "
                "is %lld by %lld.", (long long)ah, (long long)aw, (long long)bh, (long long)bw);
    int64_t tmp[ACL_MAX_VIEW_RANK], md[ACL_MAX_TENSOR_DIMS], xd[ACL_MAX_VIEW_RANK];
    memcpy(tmp, self->dims, sizeof(int64_t) * (size_t)bn);
    tmp[bn - 1] = bh;
    int nd = 0;
    ACLNN_CHECK(mx_broadcast(A->dims, an, tmp, bn, md, &nd), ACLNN_ERR_PARAM_INVALID,
                "the batch dims of A and self cannot be broadcast.");
    memcpy(xd, md, sizeof(int64_t) * (size_t)nd);
    xd[nd - 1] = bw;
    ACL_TRY(mx_check_shape(xOut, "xOut", xd, nd));
    if (mOut) {
        ACL_TRY(min_dim(mOut, 2, "mOut"));
        ACL_TRY(max_dim(mOut, 8, "mOut"));
        ACL_TRY(mx_check_shape(mOut, "mOut", md, nd));
    }
    if (acl_tensor_empty(A) || acl_tensor_empty(self))
        return acl_exec_noop(ACL_OP_TriangularSolve, workspaceSize, executor);
    int64_t mcount;
    ACLNN_CHECK(acl_numel(md, nd, &mcount), ACLNN_ERR_INNER_NULLPTR,
                "A broadcast to the batch dims of self has too many elements to allocate.");
    ACLNN_CHECK(!unitriangular || A->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID,
                "unitriangular mode only supports FLOAT, A is %s.", acl_dtype_name(A->dtype));
    la_params pp = {.kind = LA_TRSV, .upper = upper, .adjoint = transpose, .unit = unitriangular,
                    .cplx = acl_dt_is_complex(self->dtype), .cdt = self->dtype, .nd = nd};
    memcpy(pp.xd, xd, sizeof(int64_t) * (size_t)nd);
    memcpy(pp.md, md, sizeof(int64_t) * (size_t)nd);
    const aclTensor *ins[] = {self, A}, *outs[] = {xOut, mOut};
    const char *inn[] = {"self", "A"}, *outn[] = {"xOut", "mOut"};
    const bool skip[] = {false, false};
    return la_exec(ACL_OP_TriangularSolve, &pp, ins, inn, 2, outs, outn, skip, mOut ? 2 : 1, workspaceSize, executor);
}
