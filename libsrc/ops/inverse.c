/* aclnnInverse (ops-nn index/matrix_inverse): the inverse of each square matrix of self's last two dims.
 *
 * Checks in the op_api's order: NULL (self, out); self's dtype in the A2 list, self's dtype castable to out's;
 * out's shape == self's, rank <= 8, then (non-empty self) rank >= 2 and square matrices. An empty self returns
 * at once. The kernel (MatrixInverse, an AI CPU kernel) computes float32/float64/complex64/complex128 in that
 * dtype (float16 is cast to float32 first) and the result is cast to out's dtype.
 *
 * The kernel inverts with a full-pivoting LU (rank-revealing) and does not check invertibility: here the same
 * algorithm in the kernel's dtype - the largest |entry| of the remaining corner as pivot (first in column-major
 * order), the pivots above eps * n * (largest pivot) counted as the rank, then P A Q = L U solved for the identity
 * with the components past the rank set to 0. An invertible matrix gets its inverse; a singular one a finite
 * pseudo-solution (no inf/NaN, and no error - PyTorch raises instead). The kernel works on the column-major
 * reading of the row-major data (the transpose), then writes column-major: the same transposition here.
 * Batches run in parallel, one matrix per iteration. */
#include <complex.h>
#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

/* E (n x n, E(i, j) at e[i + j * n], column-major) -> its full-pivot-LU "inverse" R (same layout); w: scratch of
 * 2 n^2 elements, iw: 3 n ints */
#define INV_KERNEL(NAME, T, R, ABS, EPS)                                                                      \
    static void NAME(const T *e, T *res, int64_t n, T *w, int64_t *iw) {                                      \
        T *lu = w, *c = w + n * n;                                                                            \
        int64_t *rt = iw, *ct = iw + n, *qi = iw + 2 * n;                                                     \
        memcpy(lu, e, sizeof(T) * (size_t)(n * n));                                                           \
        int64_t nz = n;                                                                                       \
        R maxpivot = 0;                                                                                       \
        for (int64_t k = 0; k < n; k++) {                                                                     \
            int64_t br = k, bc = k;                                                                           \
            R best = -1;                                                                                      \
            for (int64_t j = k; j < n; j++)                                                                   \
                for (int64_t i = k; i < n; i++) {                                                             \
                    R s = ABS(lu[i + j * n]);                                                                 \
                    if (s > best) { best = s; br = i; bc = j; }                                               \
                }                                                                                             \
            if (!(best > 0)) {                                                                                \
                nz = k;                                                                                       \
                for (int64_t i = k; i < n; i++) { rt[i] = i; ct[i] = i; }                                     \
                break;                                                                                        \
            }                                                                                                 \
            if (best > maxpivot) maxpivot = best;                                                             \
            rt[k] = br;                                                                                       \
            ct[k] = bc;                                                                                       \
            if (br != k)                                                                                      \
                for (int64_t j = 0; j < n; j++) { T x = lu[k + j * n]; lu[k + j * n] = lu[br + j * n]; lu[br + j * n] = x; } \
            if (bc != k)                                                                                      \
                for (int64_t i = 0; i < n; i++) { T x = lu[i + k * n]; lu[i + k * n] = lu[i + bc * n]; lu[i + bc * n] = x; } \
            const T p = lu[k + k * n];                                                                        \
            for (int64_t i = k + 1; i < n; i++) lu[i + k * n] /= p;                                           \
            for (int64_t j = k + 1; j < n; j++)                                                               \
                for (int64_t i = k + 1; i < n; i++) lu[i + j * n] -= lu[i + k * n] * lu[k + j * n];           \
        }                                                                                                     \
        const R thr = maxpivot * (R)EPS * (R)n;                                                               \
        int64_t rank = 0;                                                                                     \
        for (int64_t i = 0; i < nz; i++) rank += ABS(lu[i + i * n]) > thr;                                    \
        memset(res, 0, sizeof(T) * (size_t)(n * n));                                                          \
        if (rank == 0) return;                                                                                \
        for (int64_t i = 0; i < n; i++) qi[i] = i;                                                            \
        for (int64_t k = 0; k < n; k++) { int64_t x = qi[k]; qi[k] = qi[ct[k]]; qi[ct[k]] = x; }             \
        /* c = P I, then L (unit lower) and U (rank x rank, upper) solves, column by column */                \
        for (int64_t j = 0; j < n; j++) {                                                                     \
            T *cj = c + j * n;                                                                                \
            for (int64_t i = 0; i < n; i++) cj[i] = i == j ? 1 : 0;                                           \
            for (int64_t k = 0; k < n; k++) { T x = cj[k]; cj[k] = cj[rt[k]]; cj[rt[k]] = x; }               \
            for (int64_t i = 0; i < n; i++)                                                                   \
                for (int64_t k = 0; k < i; k++) cj[i] -= lu[i + k * n] * cj[k];                               \
            for (int64_t i = rank - 1; i >= 0; i--) {                                                         \
                for (int64_t k = i + 1; k < rank; k++) cj[i] -= lu[i + k * n] * cj[k];                        \
                cj[i] /= lu[i + i * n];                                                                       \
            }                                                                                                 \
            for (int64_t i = 0; i < rank; i++) res[qi[i] + j * n] = cj[i];                                   \
        }                                                                                                     \
    }

INV_KERNEL(inv_f, float, float, fabsf, FLT_EPSILON)
INV_KERNEL(inv_d, double, double, fabs, DBL_EPSILON)
INV_KERNEL(inv_c, float complex, float, cabsf, FLT_EPSILON)
INV_KERNEL(inv_z, double complex, double, cabs, DBL_EPSILON)

typedef struct { aclDataType cdt; } inv_params;

static aclnnStatus inv_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const inv_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const aclDataType cdt = p->cdt;
    const size_t es = acl_dtype_size(cdt);
    const int64_t n = x->dims[x->ndim - 1], total = acl_view_numel(x), B = n ? total / (n * n) : 0;
    /* each matrix gathered row-major and contiguous, as the kernel gets it; the kernel reads that memory
     * column-major (E = self^T) and writes its result column-major, so out's row-major reading is R^T */
    int64_t st[ACL_MAX_VIEW_RANK];
    const int nd = x->ndim;
    mx_contig_strides(x->dims, nd, st);
    char *a = malloc(es * (size_t)(total + 1)), *y = malloc(es * (size_t)(total + 1));
    if (!a || !y) {
        free(a); free(y);
        return OOM;
    }
    cp_copy(x->base, x->dtype, x->strides, a, cdt, st, x->dims, nd);
    bool ok = true;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (B > 1 && acl_parallel_worth(mx_work(B, n, n, n)))
    for (int64_t b = 0; b < B; b++) {
        char *w = malloc(es * (size_t)(2 * n * n + 1));
        int64_t *iw = malloc(sizeof(int64_t) * (size_t)(3 * n + 1));
        if (!w || !iw) { free(w); free(iw); ok = false; continue; }
        char *ab = a + es * (size_t)(b * n * n), *yb = y + es * (size_t)(b * n * n);
        switch (cdt) {
        case ACL_FLOAT: inv_f((const float *)ab, (float *)yb, n, (float *)w, iw); break;
        case ACL_DOUBLE: inv_d((const double *)ab, (double *)yb, n, (double *)w, iw); break;
        case ACL_COMPLEX64: inv_c((const float complex *)ab, (float complex *)yb, n, (float complex *)w, iw); break;
        default: inv_z((const double complex *)ab, (double complex *)yb, n, (double complex *)w, iw); break;
        }
        free(w);
        free(iw);
    }
    if (ok) cp_copy(y, cdt, st, o->base, o->dtype, o->strides, o->dims, nd);
    free(a);
    free(y);
    return ok ? ACLNN_SUCCESS : OOM;
}

aclnnStatus opws_Inverse(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Inverse, "self"));
    ACLNN_CHECK(acl_can_cast(self->dtype, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "self dtype %s can not be cast to out dtype %s.", acl_dtype_name(self->dtype), acl_dtype_name(out->dtype));
    ACL_TRY(acl_check_same_shape(out, "out", self, "self"));
    ACLNN_CHECK(self->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "self has %llu dims; at most 8 are supported.",
                (unsigned long long)self->ndim);
    ACL_TRY(acl_check_nonneg_dims(self, "self"));
    if (acl_tensor_empty(self)) return acl_exec_noop(ACL_OP_Inverse, workspaceSize, executor);
    ACLNN_CHECK(self->ndim >= 2, ACLNN_ERR_PARAM_INVALID, "self has %llu dims; at least 2 are needed.",
                (unsigned long long)self->ndim);
    const int64_t r = self->dims[self->ndim - 1], c = self->dims[self->ndim - 2];
    ACLNN_CHECK(r == c, ACLNN_ERR_PARAM_INVALID,
                "self must be batches of square matrices, but they are %lld by %lld matrices.", (long long)c,
                (long long)r);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_Inverse, inv_run, sizeof(inv_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, self, "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    ((inv_params *)ex->params)->cdt = self->dtype == ACL_FLOAT16 ? ACL_FLOAT : self->dtype;
    return acl_exec_publish(ex, workspaceSize, executor);
}
