/* Adaptive 3-D average pooling forward: the window sums of one output row in eight lanes per output cell. */
#ifndef PYACLNN_KERNELS_POOL3D_ADAVG_H
#define PYACLNN_KERNELS_POOL3D_ADAVG_H

#include <stdint.h>

/* Output cell o (0 <= o < n) owns the lanes acc[8 o .. 8 o + 7]; its window's terms in input row r are
 * rows[r][lo[o] .. lo[o] + len[o]), term lo[o] + k + 8 m added into lane k (m ascending), rows r = 0 .. nr - 1 in
 * order (the caller passes a cell's window rows in (d, h) order, in as many calls as it likes). p3_adavg_join then
 * gives the cell's sum: the same bytes at every SIMD level for a non-NaN sum; the caller recomputes a NaN sum with
 * p3_adavg_rule_add / p3_adavg_rule_join. */
void p3_adavg_rows_add(double *acc, const float *const *rows, int64_t nr, const int64_t *lo, const int64_t *len,
                       int64_t n);
/* ((l0 + l1) + (l2 + l3)) + ((l4 + l5) + (l6 + l7)) */
double p3_adavg_join(const double *l);
/* the same two steps under the NaN rule of common/nan_order.h (one term into lane k % 8; the join) */
void p3_adavg_rule_add(double *l, int64_t k, double v);
double p3_adavg_rule_join(const double *l);

#endif
