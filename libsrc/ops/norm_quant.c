/* The quantisation step shared by the quantised norm ops (see norm_quant.h). */
#include "ops/norm_quant.h"

#include <math.h>
#include <stdlib.h>

#include "common/dtype.h"
#include "common/status.h"

double nq_sat(double v, double lo, double hi) {
    if (isnan(v)) return 0.0;
    v = nearbyint(v);
    return v < lo ? lo : v > hi ? hi : v;
}

int nq_store(const double *v, int64_t total, const acl_view *y) {
    if (!y) return 0;
    if (y->dtype == ACL_INT32) {
        const int64_t m = total / 8;
        double *w = malloc(sizeof(double) * (size_t)(m > 0 ? m : 1));
        if (!w) return 1;
        for (int64_t i = 0; i < m; i++) {
            uint32_t u = 0;
            for (int k = 0; k < 8; k++) {
                int q = (int)nq_sat(v[i * 8 + k], -8.0, 7.0);
                u |= (uint32_t)(q & 0xF) << (4 * k);
            }
            w[i] = (double)(int32_t)u;
        }
        nm_store(w, y);
        free(w);
        return 0;
    }
    double *w = malloc(sizeof(double) * (size_t)(total > 0 ? total : 1));
    if (!w) return 1;
    for (int64_t i = 0; i < total; i++) w[i] = nq_sat(v[i], -128.0, 127.0);
    nm_store(w, y);
    free(w);
    return 0;
}

aclnnStatus nq_int4_storage(const aclTensor *t, const char *name) {
    ACLNN_CHECK(!t || t->dtype != ACL_INT4, ACLNN_ERR_PARAM_INVALID, "%s of dtype INT4 has no storage in this "
                "emulator; pass an INT32 tensor holding eight int4 values per element.", name);
    return ACLNN_SUCCESS;
}

void nq_dynamic(double *y, int64_t rows, int64_t n, const double *smooth, double qmax, double *scale) {
    for (int64_t r = 0; r < rows; r++) {
        double *v = y + r * n, m = 0.0;
        for (int64_t j = 0; j < n; j++) {
            if (smooth) v[j] *= smooth[j];
            const double a = fabs(v[j]);
            if (a > m || isnan(a)) m = isnan(m) ? m : a;
        }
        scale[r] = m / qmax;
        for (int64_t j = 0; j < n; j++) v[j] /= scale[r]; /* a zero row gives 0/0 = NaN -> 0 at the store */
    }
}

void nq_static(const double *y, int64_t rows, int64_t n, const double *s, const double *z, bool div, bool per_tensor,
               double *q) {
    for (int64_t r = 0; r < rows; r++)
        for (int64_t j = 0; j < n; j++) {
            const double v = y[r * n + j];
            const int64_t k = per_tensor ? 0 : j;
            q[r * n + j] = (div ? v / s[k] : v * s[k]) + (z ? z[k] : 0.0);
        }
}
