/* Small dense linear algebra in double, batched over leading dims: LinalgCholesky, Qr, LinalgQr (Householder, the
 * LAPACK sign convention PyTorch inherits: R's diagonal is -sign(a_kk) * norm), Svd (one-sided Jacobi; singular
 * values sorted descending, singular vectors unique up to sign), Slogdet, Logdet (LU with partial pivoting),
 * TriangularSolve. Serial per call: deterministic. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"


static const aclDataType k_la[] = {ACL_FLOAT, ACL_DOUBLE};

enum { LA_CHOL, LA_QR, LA_SVD, LA_SLOGDET, LA_LOGDET, LA_TRSV };
typedef struct { int kind; bool upper, complete, r_only, full, uv, transpose, unit; } la_params;

/* batch count and matrix dims of a view with rank >= 2 */
static void mat_dims(const acl_view *v, int64_t *b, int64_t *m, int64_t *n) {
    *m = v->dims[v->ndim - 2];
    *n = v->dims[v->ndim - 1];
    *b = 1;
    for (int k = 0; k < v->ndim - 2; k++) *b *= v->dims[k];
}

static void cholesky(double *a, int64_t n, bool upper) {
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
    }
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = i + 1; j < n; j++) {
            if (upper) { a[i * n + j] = a[j * n + i]; a[j * n + i] = 0; }
            else a[i * n + j] = 0;
        }
}

/* Householder QR of a (m x n): q (m x qc), r (qc x n) with qc = complete ? m : min(m, n) */
static void qr(const double *a0, int64_t m, int64_t n, bool complete, double *q, double *r) {
    const int64_t k = m < n ? m : n, qc = complete ? m : k;
    double *a = malloc(sizeof(double) * (size_t)(m * n + 1)), *v = malloc(sizeof(double) * (size_t)(m + 1));
    double *tau = calloc((size_t)k + 1, sizeof(double));
    double *qq = malloc(sizeof(double) * (size_t)(m * m + 1));
    if (!a || !v || !tau || !qq) { free(a); free(v); free(tau); free(qq); return; }
    memcpy(a, a0, sizeof(double) * (size_t)(m * n));
    double *V = calloc((size_t)(m * k + 1), sizeof(double));
    for (int64_t j = 0; j < k && V; j++) {
        double alpha = a[j * n + j], xn = 0;
        for (int64_t i = j + 1; i < m; i++) xn += a[i * n + j] * a[i * n + j];
        xn = sqrt(xn);
        if (xn == 0) { tau[j] = 0; V[j * k + j] = 1; continue; }
        double beta = -copysign(hypot(alpha, xn), alpha);
        tau[j] = (beta - alpha) / beta;
        double scale = 1 / (alpha - beta);
        V[j * k + j] = 1;
        for (int64_t i = j + 1; i < m; i++) V[i * k + j] = a[i * n + j] * scale;
        /* apply H = I - tau v v^T to the remaining columns */
        for (int64_t c = j; c < n; c++) {
            double s = 0;
            for (int64_t i = j; i < m; i++) s += V[i * k + j] * a[i * n + c];
            s *= tau[j];
            for (int64_t i = j; i < m; i++) a[i * n + c] -= s * V[i * k + j];
        }
        a[j * n + j] = beta;
        for (int64_t i = j + 1; i < m; i++) a[i * n + j] = 0;
    }
    /* Q = H_0 ... H_{k-1} applied to the identity */
    for (int64_t i = 0; i < m; i++)
        for (int64_t j = 0; j < m; j++) qq[i * m + j] = i == j;
    for (int64_t j = k - 1; j >= 0 && V; j--)
        for (int64_t c = 0; c < m; c++) {
            double s = 0;
            for (int64_t i = j; i < m; i++) s += V[i * k + j] * qq[i * m + c];
            s *= tau[j];
            for (int64_t i = j; i < m; i++) qq[i * m + c] -= s * V[i * k + j];
        }
    if (q)
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < qc; j++) q[i * qc + j] = qq[i * m + j];
    for (int64_t i = 0; i < qc; i++)
        for (int64_t j = 0; j < n; j++) r[i * n + j] = i < m ? a[i * n + j] : 0;
    free(a); free(v); free(tau); free(qq); free(V);
}

/* one-sided Jacobi SVD of a (m x n), m >= n handled by transposition outside: s (k), u (m x k), vt (k x n) */
static void svd_jacobi(const double *a0, int64_t m, int64_t n, double *s, double *u, double *v) {
    /* work on columns of A (m x n); V accumulates rotations (n x n) */
    double *a = malloc(sizeof(double) * (size_t)(m * n + 1));
    if (!a) return;
    memcpy(a, a0, sizeof(double) * (size_t)(m * n));
    for (int64_t i = 0; i < n; i++)
        for (int64_t j = 0; j < n; j++) v[i * n + j] = i == j;
    for (int sweep = 0; sweep < 60; sweep++) {
        double off = 0;
        for (int64_t p = 0; p < n - 1; p++)
            for (int64_t q = p + 1; q < n; q++) {
                double alpha = 0, beta = 0, gamma = 0;
                for (int64_t i = 0; i < m; i++) {
                    alpha += a[i * n + p] * a[i * n + p];
                    beta += a[i * n + q] * a[i * n + q];
                    gamma += a[i * n + p] * a[i * n + q];
                }
                if (fabs(gamma) <= 1e-300 || fabs(gamma) <= 1e-15 * sqrt(alpha * beta)) continue;
                off = fmax(off, fabs(gamma) / sqrt(alpha * beta));
                double zeta = (beta - alpha) / (2 * gamma);
                double t = copysign(1.0, zeta) / (fabs(zeta) + sqrt(1 + zeta * zeta));
                double c = 1 / sqrt(1 + t * t), sn = c * t;
                for (int64_t i = 0; i < m; i++) {
                    double x = a[i * n + p], y = a[i * n + q];
                    a[i * n + p] = c * x - sn * y;
                    a[i * n + q] = sn * x + c * y;
                }
                for (int64_t i = 0; i < n; i++) {
                    double x = v[i * n + p], y = v[i * n + q];
                    v[i * n + p] = c * x - sn * y;
                    v[i * n + q] = sn * x + c * y;
                }
            }
        if (off < 1e-15) break;
    }
    for (int64_t j = 0; j < n; j++) {
        double nrm = 0;
        for (int64_t i = 0; i < m; i++) nrm += a[i * n + j] * a[i * n + j];
        s[j] = sqrt(nrm);
        for (int64_t i = 0; i < m; i++) u[i * n + j] = s[j] > 0 ? a[i * n + j] / s[j] : 0;
    }
    /* sort descending (selection keeps it deterministic) */
    for (int64_t j = 0; j < n; j++) {
        int64_t best = j;
        for (int64_t t = j + 1; t < n; t++) if (s[t] > s[best]) best = t;
        if (best != j) {
            double ts = s[j]; s[j] = s[best]; s[best] = ts;
            for (int64_t i = 0; i < m; i++) { double x = u[i * n + j]; u[i * n + j] = u[i * n + best]; u[i * n + best] = x; }
            for (int64_t i = 0; i < n; i++) { double x = v[i * n + j]; v[i * n + j] = v[i * n + best]; v[i * n + best] = x; }
        }
    }
    free(a);
}

/* extends the k orthonormal columns of q (r x k, row stride k) to r columns in full (r x r, row stride r):
 * the unit vectors in order, each orthogonalised twice against the columns so far and kept when not dependent */
static void complete_basis(const double *q, int64_t r, int64_t k, double *full) {
    for (int64_t i = 0; i < r; i++)
        for (int64_t j = 0; j < r; j++) full[i * r + j] = j < k ? q[i * k + j] : 0;
    int64_t have = k;
    double *v = malloc(sizeof(double) * (size_t)(r + 1));
    if (!v) return;
    for (int64_t e = 0; e < r && have < r; e++) {
        for (int64_t i = 0; i < r; i++) v[i] = i == e;
        for (int pass = 0; pass < 2; pass++)
            for (int64_t c = 0; c < have; c++) {
                double d = 0;
                for (int64_t i = 0; i < r; i++) d += full[i * r + c] * v[i];
                for (int64_t i = 0; i < r; i++) v[i] -= d * full[i * r + c];
            }
        double nrm = 0;
        for (int64_t i = 0; i < r; i++) nrm += v[i] * v[i];
        nrm = sqrt(nrm);
        if (nrm < 1e-6) continue;
        for (int64_t i = 0; i < r; i++) full[i * r + have] = v[i] / nrm;
        have++;
    }
    free(v);
}

static void slogdet(const double *a0, int64_t n, double *sign, double *logabs) {
    double *a = malloc(sizeof(double) * (size_t)(n * n + 1));
    if (!a) return;
    memcpy(a, a0, sizeof(double) * (size_t)(n * n));
    double sg = 1, la = 0;
    for (int64_t j = 0; j < n; j++) {
        int64_t piv = j;
        for (int64_t i = j + 1; i < n; i++) if (fabs(a[i * n + j]) > fabs(a[piv * n + j])) piv = i;
        if (a[piv * n + j] == 0) { sg = 0; la = -INFINITY; break; }
        if (piv != j) {
            for (int64_t c = 0; c < n; c++) { double t = a[j * n + c]; a[j * n + c] = a[piv * n + c]; a[piv * n + c] = t; }
            sg = -sg;
        }
        double d = a[j * n + j];
        if (d < 0) sg = -sg;
        la += log(fabs(d));
        for (int64_t i = j + 1; i < n; i++) {
            double f = a[i * n + j] / d;
            for (int64_t c = j; c < n; c++) a[i * n + c] -= f * a[j * n + c];
        }
    }
    *sign = sg;
    *logabs = la;
    free(a);
}

static aclnnStatus la_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const la_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0);
    int64_t B, m, n;
    mat_dims(p->kind == LA_TRSV ? acl_exec_in(ex, 1) : x, &B, &m, &n);
    double *a = dn_load(x);
    if (!a) return OOM;
    aclnnStatus rc = ACLNN_SUCCESS;
    switch (p->kind) {
    case LA_CHOL:
        for (int64_t b = 0; b < B; b++) cholesky(a + b * n * n, n, p->upper);
        dn_store(a, acl_exec_out(ex, 0));
        break;
    case LA_QR: {
        const int64_t k = m < n ? m : n, qc = p->complete ? m : k;
        double *q = malloc(sizeof(double) * (size_t)(B * m * qc + 1)), *r = malloc(sizeof(double) * (size_t)(B * qc * n + 1));
        if (!q || !r) { free(q); free(r); rc = OOM; break; }
        for (int64_t b = 0; b < B; b++) qr(a + b * m * n, m, n, p->complete, q + b * m * qc, r + b * qc * n);
        if (!p->r_only) dn_store(q, acl_exec_out(ex, 0));
        dn_store(r, acl_exec_out(ex, 1));
        free(q);
        free(r);
        break;
    }
    case LA_SVD: {
        /* A = U S V^T; for m < n decompose A^T */
        const int64_t k = m < n ? m : n, M = m >= n ? m : n, N = k;
        double *s = malloc(sizeof(double) * (size_t)(B * k + 1)), *u = malloc(sizeof(double) * (size_t)(M * N + 1));
        double *v = malloc(sizeof(double) * (size_t)(N * N + 1)), *at = malloc(sizeof(double) * (size_t)(M * N + 1));
        double *uo = calloc((size_t)(B * m * k + 1), sizeof(double)), *vo = calloc((size_t)(B * n * k + 1), sizeof(double));
        if (!s || !u || !v || !at || !uo || !vo) { free(s); free(u); free(v); free(at); free(uo); free(vo); rc = OOM; break; }
        for (int64_t b = 0; b < B; b++) {
            const double *ab = a + b * m * n;
            for (int64_t i = 0; i < M; i++)
                for (int64_t j = 0; j < N; j++) at[i * N + j] = m >= n ? ab[i * n + j] : ab[j * n + i];
            svd_jacobi(at, M, N, s + b * k, u, v);
            for (int64_t i = 0; i < m; i++)
                for (int64_t j = 0; j < k; j++) uo[b * m * k + i * k + j] = m >= n ? u[i * N + j] : v[i * N + j];
            for (int64_t i = 0; i < n; i++)
                for (int64_t j = 0; j < k; j++) vo[b * n * k + i * k + j] = m >= n ? v[i * N + j] : u[i * N + j];
        }
        dn_store(s, acl_exec_out(ex, 0));
        if (p->uv && p->full) {
            double *uf = malloc(sizeof(double) * (size_t)(B * m * m + 1)), *vf = malloc(sizeof(double) * (size_t)(B * n * n + 1));
            if (uf && vf) {
                for (int64_t b = 0; b < B; b++) {
                    complete_basis(uo + b * m * k, m, k, uf + b * m * m);
                    complete_basis(vo + b * n * k, n, k, vf + b * n * n);
                }
                dn_store(uf, acl_exec_out(ex, 1));
                dn_store(vf, acl_exec_out(ex, 2));
            } else {
                rc = OOM;
            }
            free(uf);
            free(vf);
        } else if (p->uv) {
            dn_store(uo, acl_exec_out(ex, 1));
            dn_store(vo, acl_exec_out(ex, 2));
        }
        free(s); free(u); free(v); free(at); free(uo); free(vo);
        break;
    }
    case LA_SLOGDET: case LA_LOGDET: {
        double *sg = malloc(sizeof(double) * (size_t)(B + 1)), *la = malloc(sizeof(double) * (size_t)(B + 1));
        if (!sg || !la) { free(sg); free(la); rc = OOM; break; }
        for (int64_t b = 0; b < B; b++) {
            slogdet(a + b * n * n, n, &sg[b], &la[b]);
            if (p->kind == LA_LOGDET) la[b] = sg[b] < 0 ? NAN : la[b];
        }
        if (p->kind == LA_SLOGDET) {
            dn_store(sg, acl_exec_out(ex, 0));
            dn_store(la, acl_exec_out(ex, 1));
        } else {
            dn_store(la, acl_exec_out(ex, 0));
        }
        free(sg);
        free(la);
        break;
    }
    case LA_TRSV: {
        /* self = b (.., n, k), A (.., n, n): solve op(A) X = b */
        const acl_view *av = acl_exec_in(ex, 1);
        double *A = dn_load(av);
        if (!A) { rc = OOM; break; }
        const int64_t kb = x->dims[x->ndim - 1];
        for (int64_t b = 0; b < B; b++) {
            double *Ab = A + b * n * n, *X = a + b * n * kb;
            bool up = p->upper != p->transpose; /* op(A) is upper triangular */
            for (int64_t c = 0; c < kb; c++)
                for (int64_t t = 0; t < n; t++) {
                    int64_t i = up ? n - 1 - t : t;
                    double s = X[i * kb + c];
                    for (int64_t j = up ? i + 1 : 0; up ? j < n : j < i; j++) {
                        double aij = p->transpose ? Ab[j * n + i] : Ab[i * n + j];
                        s -= aij * X[j * kb + c];
                    }
                    X[i * kb + c] = p->unit ? s : s / (p->transpose ? Ab[i * n + i] : Ab[i * n + i]);
                }
        }
        dn_store(a, acl_exec_out(ex, 0));
        dn_store(A, acl_exec_out(ex, 1));
        free(A);
        break;
    }
    default: break;
    }
    free(a);
    return rc;
}

static aclnnStatus check_mat(const aclTensor *t, const char *name, bool square) {
    ACL_TRY(acl_check_dtype_in(t, k_la, ACL_COUNT_OF(k_la), name));
    ACLNN_CHECK(t->ndim >= 2 && t->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "%s must have 2 to %d dims, has %llu.", name, ACL_MAX_VIEW_RANK, (unsigned long long)t->ndim);
    ACLNN_CHECK(!square || t->dims[t->ndim - 1] == t->dims[t->ndim - 2], ACLNN_ERR_PARAM_INVALID,
                "%s must be a batch of square matrices.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_shape(const aclTensor *t, const char *name, const aclTensor *ref, int64_t m, int64_t n,
                               int trailing) {
    int nd = (int)ref->ndim - 2 + trailing;
    bool ok = (int)t->ndim == nd;
    for (int k = 0; ok && k < (int)ref->ndim - 2; k++) ok = t->dims[k] == ref->dims[k];
    if (ok && trailing >= 1) ok = t->dims[nd - trailing] == m;
    if (ok && trailing == 2) ok = t->dims[nd - 1] == n;
    ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "%s has the wrong shape.", name);
    return ACLNN_SUCCESS;
}

static aclnnStatus la_exec(int op, la_params pp, const aclTensor *const *ins, const char *const *inn, int nin,
                           const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                           aclOpExecutor **exo) {
    for (int i = 0; i < nin; i++)
        if (acl_tensor_empty(ins[i])) return acl_exec_noop(op, ws, exo);
    void *p;
    ACL_TRY(dn_exec(op, la_run, sizeof(la_params), ins, inn, nin, outs, outn, nout, ws, exo, &p));
    *(la_params *)p = pp;
    return ACLNN_SUCCESS;
}

aclnnStatus opws_LinalgCholesky(const aclTensor *self, bool upper, aclTensor *out,
                                uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(check_mat(self, "self", true));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return la_exec(ACL_OP_LinalgCholesky, (la_params){LA_CHOL, upper, 0, 0, 0, 0, 0, 0}, ins, inn, 1, outs, outn, 1,
                   workspaceSize, executor);
}

static aclnnStatus qr_common(int op, const aclTensor *self, bool complete, bool r_only, aclTensor *Q, aclTensor *R,
                             uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    if (!r_only) NN(Q, "Q");
    NN(R, "R");
    WS_EX(ws, exo);
    ACL_TRY(check_mat(self, "self", false));
    const int64_t m = self->dims[self->ndim - 2], n = self->dims[self->ndim - 1], k = m < n ? m : n;
    const int64_t qc = complete ? m : k;
    if (!r_only) ACL_TRY(check_shape(Q, "Q", self, m, qc, 2));
    ACL_TRY(check_shape(R, "R", self, qc, n, 2));
    const aclTensor *ins[] = {self}, *outs[] = {Q, R};
    const char *inn[] = {"self"}, *outn[] = {"Q", "R"};
    return la_exec(op, (la_params){LA_QR, 0, complete, r_only, 0, 0, 0, 0}, ins, inn, 1, outs, outn, 2, ws, exo);
}

aclnnStatus opws_Qr(const aclTensor *self, bool some, aclTensor *Q, aclTensor *R,
                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    return qr_common(ACL_OP_Qr, self, !some, false, Q, R, workspaceSize, executor);
}

aclnnStatus opws_LinalgQr(const aclTensor *self, int64_t mode, aclTensor *Q, aclTensor *R,
                          uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACLNN_CHECK(mode >= 0 && mode <= 2, ACLNN_ERR_PARAM_INVALID, "mode %lld must be 0 (reduced), 1 (complete) or 2 (r).",
                (long long)mode);
    return qr_common(ACL_OP_LinalgQr, self, mode == 1, false, Q, R, workspaceSize, executor);
}

aclnnStatus opws_Svd(const aclTensor *input, const bool fullMatrices, const bool computeUV,
                     aclTensor *sigma, aclTensor *u, aclTensor *v, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    NN(input, "input");
    NN(sigma, "sigma");
    if (computeUV) {
        NN(u, "u");
        NN(v, "v");
    }
    WS_EX(workspaceSize, executor);
    ACL_TRY(check_mat(input, "input", false));
    const int64_t m = input->dims[input->ndim - 2], n = input->dims[input->ndim - 1], k = m < n ? m : n;
    ACL_TRY(check_shape(sigma, "sigma", input, k, 0, 1));
    if (computeUV) {
        ACL_TRY(check_shape(u, "u", input, m, fullMatrices ? m : k, 2));
        ACL_TRY(check_shape(v, "v", input, n, fullMatrices ? n : k, 2));
    }
    const aclTensor *ins[] = {input}, *outs[] = {sigma, u, v};
    const char *inn[] = {"input"}, *outn[] = {"sigma", "u", "v"};
    return la_exec(ACL_OP_Svd, (la_params){LA_SVD, 0, 0, 0, fullMatrices, computeUV, 0, 0}, ins, inn, 1, outs, outn,
                   computeUV ? 3 : 1, workspaceSize, executor);
}

aclnnStatus opws_Slogdet(const aclTensor *self, aclTensor *signOut, aclTensor *logOut,
                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(signOut, "signOut");
    NN(logOut, "logOut");
    WS_EX(workspaceSize, executor);
    ACL_TRY(check_mat(self, "self", true));
    ACL_TRY(check_shape(signOut, "signOut", self, 0, 0, 0));
    ACL_TRY(check_shape(logOut, "logOut", self, 0, 0, 0));
    const aclTensor *ins[] = {self}, *outs[] = {signOut, logOut};
    const char *inn[] = {"self"}, *outn[] = {"signOut", "logOut"};
    return la_exec(ACL_OP_Slogdet, (la_params){LA_SLOGDET, 0, 0, 0, 0, 0, 0, 0}, ins, inn, 1, outs, outn, 2,
                   workspaceSize, executor);
}

aclnnStatus opws_Logdet(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                        aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(check_mat(self, "self", true));
    ACL_TRY(check_shape(out, "out", self, 0, 0, 0));
    const aclTensor *ins[] = {self}, *outs[] = {out};
    const char *inn[] = {"self"}, *outn[] = {"out"};
    return la_exec(ACL_OP_Logdet, (la_params){LA_LOGDET, 0, 0, 0, 0, 0, 0, 0}, ins, inn, 1, outs, outn, 1,
                   workspaceSize, executor);
}

aclnnStatus opws_TriangularSolve(const aclTensor *self, const aclTensor *A, bool upper, bool transpose,
                                 bool unitriangular, aclTensor *xOut, aclTensor *mOut,
                                 uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(A, "A");
    NN(xOut, "xOut");
    NN(mOut, "mOut");
    WS_EX(workspaceSize, executor);
    ACL_TRY(check_mat(self, "self", false));
    ACL_TRY(check_mat(A, "A", true));
    ACLNN_CHECK(self->ndim == A->ndim && self->dims[self->ndim - 2] == A->dims[A->ndim - 1], ACLNN_ERR_PARAM_INVALID,
                "self and A do not fit: A is n x n, self n x k with the same batch dims.");
    for (uint64_t k = 0; k + 2 < A->ndim; k++)
        ACLNN_CHECK(self->dims[k] == A->dims[k], ACLNN_ERR_PARAM_INVALID, "self and A differ in batch dims.");
    ACL_TRY(acl_check_same_shape(self, "self", xOut, "xOut"));
    ACL_TRY(acl_check_same_shape(A, "A", mOut, "mOut"));
    const aclTensor *ins[] = {self, A}, *outs[] = {xOut, mOut};
    const char *inn[] = {"self", "A"}, *outn[] = {"xOut", "mOut"};
    return la_exec(ACL_OP_TriangularSolve, (la_params){LA_TRSV, upper, 0, 0, 0, 0, transpose, unitriangular}, ins,
                   inn, 2, outs, outn, 2, workspaceSize, executor);
}
