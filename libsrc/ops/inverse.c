/* aclnnInverse (ops-nn index/matrix_inverse): the inverse of each square matrix of self's last two dims.
 *
 * Checks in the op_api's order: NULL (self, out); self's dtype in the A2 list, self's dtype castable to out's;
 * out's shape == self's, rank <= 8, then (non-empty self) rank >= 2 and square matrices. An empty self returns
 * at once. The kernel (MatrixInverse, an AI CPU kernel) computes float32/float64/complex64/complex128 (float16 is
 * cast to float32 first); the result is cast to out's dtype. Here each matrix is inverted in double (complex) by
 * LU with partial pivoting, rounded to the kernel's dtype, then converted to out's. A singular matrix is not an
 * error (the kernel does not check invertibility): its zero pivot gives inf/NaN entries. Batches run in
 * parallel, one matrix per iteration. */
#include <complex.h>
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

typedef double complex inv_zc;

/* a (n x n, row-major) -> its inverse in y; w: n ints of pivot scratch */
#define INV_KERNEL(NAME, T, ABS)                                                                              \
    static void NAME(T *a, T *y, int64_t n, int64_t *piv) {                                               \
        for (int64_t k = 0; k < n; k++) {                                                                     \
            int64_t pr = k;                                                                                   \
            double best = ABS(a[k * n + k]);                                                                  \
            for (int64_t i = k + 1; i < n; i++)                                                               \
                if (ABS(a[i * n + k]) > best) { best = ABS(a[i * n + k]); pr = i; }                           \
            piv[k] = pr;                                                                                      \
            if (pr != k)                                                                                      \
                for (int64_t j = 0; j < n; j++) { T t = a[k * n + j]; a[k * n + j] = a[pr * n + j]; a[pr * n + j] = t; } \
            const T d = a[k * n + k];                                                                         \
            for (int64_t i = k + 1; i < n; i++) {                                                             \
                const T l = a[i * n + k] / d;                                                                 \
                a[i * n + k] = l;                                                                             \
                for (int64_t j = k + 1; j < n; j++) a[i * n + j] -= l * a[k * n + j];                         \
            }                                                                                                 \
        }                                                                                                     \
        /* solve L U X = P I column by column */                                                              \
        for (int64_t c = 0; c < n; c++) {                                                                     \
            T *x = y + c * n; /* column c, stored as a row; transposed at the end */                          \
            for (int64_t i = 0; i < n; i++) x[i] = i == c ? 1 : 0;                                            \
            for (int64_t k = 0; k < n; k++)                                                                   \
                if (piv[k] != k) { T t = x[k]; x[k] = x[piv[k]]; x[piv[k]] = t; }                             \
            for (int64_t i = 0; i < n; i++) {                                                                 \
                T s = x[i];                                                                                   \
                for (int64_t j = 0; j < i; j++) s -= a[i * n + j] * x[j];                                     \
                x[i] = s;                                                                                     \
            }                                                                                                 \
            for (int64_t i = n - 1; i >= 0; i--) {                                                            \
                T s = x[i];                                                                                   \
                for (int64_t j = i + 1; j < n; j++) s -= a[i * n + j] * x[j];                                 \
                x[i] = s / a[i * n + i];                                                                      \
            }                                                                                                 \
        }                                                                                                     \
        for (int64_t i = 0; i < n; i++)                                                                       \
            for (int64_t j = i + 1; j < n; j++) { T t = y[i * n + j]; y[i * n + j] = y[j * n + i]; y[j * n + i] = t; } \
    }

INV_KERNEL(inv_d, double, fabs)
INV_KERNEL(inv_z, inv_zc, cabs)

typedef struct { aclDataType cdt; } inv_params;

static aclnnStatus inv_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const inv_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const bool cplx = acl_dt_is_complex(p->cdt);
    const size_t es = cplx ? sizeof(inv_zc) : sizeof(double);
    const int64_t n = x->dims[x->ndim - 1], total = acl_view_numel(x), B = n ? total / (n * n) : 0;
    int64_t st[ACL_MAX_VIEW_RANK];
    mx_contig_strides(x->dims, x->ndim, st);
    char *a = malloc(es * (size_t)(total + 1)), *y = malloc(es * (size_t)(total + 1));
    int64_t *piv = malloc(sizeof(int64_t) * (size_t)(n * (B > 0 ? B : 1) + 1));
    if (!a || !y || !piv) {
        free(a); free(y); free(piv);
        return OOM;
    }
    cp_copy(x->base, x->dtype, x->strides, a, cplx ? ACL_COMPLEX128 : ACL_DOUBLE, st, x->dims, x->ndim);
#pragma omp parallel for schedule(static) if (B > 1 && acl_parallel_worth(mx_work(B, n, n, n)))
    for (int64_t b = 0; b < B; b++) {
        if (cplx) inv_z((inv_zc *)a + b * n * n, (inv_zc *)y + b * n * n, n, piv + b * n);
        else inv_d((double *)a + b * n * n, (double *)y + b * n * n, n, piv + b * n);
    }
    bool ok = mx_store_via(y, cplx ? ACL_COMPLEX128 : ACL_DOUBLE, p->cdt, o);
    free(a); free(y); free(piv);
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
