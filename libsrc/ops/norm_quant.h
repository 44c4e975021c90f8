/* The quantisation step shared by the quantised norm ops (libsrc/ops/norm_*_quant.c). */
#ifndef PYACLNN_OPS_NORM_QUANT_H
#define PYACLNN_OPS_NORM_QUANT_H

#include <stdbool.h>
#include <stdint.h>

#include "ops/norm_common.h"

/* v rounded half to even and saturated to [lo, hi]; NaN -> 0 (the kernels' NaN rule) */
double nq_sat(double v, double lo, double hi);
/* store total values (already divided by the scale and offset) into an integer view: INT8 saturated to
 * [-128, 127]; INT32 packs eight int4 (saturated to [-8, 7], the first in the low nibble) per element.
 * Returns nonzero on allocation failure. */
int nq_store(const double *v, int64_t total, const acl_view *y);
/* an INT4 tensor has no storage in this emulator: 161002 naming the tensor (use INT32, eight int4 per element) */
aclnnStatus nq_int4_storage(const aclTensor *t, const char *name);

/* dynamic per-row quantisation of y (rows x n), in place: v = y * smooth[j] (smooth NULL: y),
 * scale[r] = max_j |v| / qmax, y <- v / scale[r] (still to be rounded by nq_store) */
void nq_dynamic(double *y, int64_t rows, int64_t n, const double *smooth, double qmax, double *scale);
/* static quantisation of y (rows x n) into q (still to be rounded by nq_store): q = y / s[j] + z[j] (div) or
 * y * s[j] + z[j]; z may be NULL (0); per_tensor: s[0], z[0] for every element */
void nq_static(const double *y, int64_t rows, int64_t n, const double *s, const double *z, bool div, bool per_tensor,
               double *q);

#endif
