/* Dense helpers for the ops whose work is small next to its bookkeeping (scans, sorts, searches, counts, small
 * linear algebra): a view gathered into a contiguous row-major double (or int64) array, computed in plain C, and
 * scattered back with one conversion to the output's dtype. Serial per call, so deterministic by construction. */
#ifndef PYACLNN_OPS_DENSE_H
#define PYACLNN_OPS_DENSE_H

#include "ops/ops.h"

int64_t dn_numel(const acl_view *v);
double *dn_load(const acl_view *v);                 /* NULL on OOM (or an empty view: returns a 1-element buffer) */
int64_t *dn_load_i64(const acl_view *v);
void dn_store(const double *src, const acl_view *v);
void dn_store_i64(const int64_t *src, const acl_view *v);

/* outer/len/inner of a view around dim d (row-major: element (o, i, n) at (o * len + i) * inner + n) */
void dn_split(const acl_view *v, int d, int64_t *outer, int64_t *len, int64_t *inner);

/* phase-1 helper: an executor with `nin` inputs and `nout` outputs (tensors may be NULL: skipped) */
aclnnStatus dn_exec(int op, acl_run_fn run, size_t params_size, const aclTensor *const *ins, const char *const *inn,
                    int nin, const aclTensor *const *outs, const char *const *outn, int nout, uint64_t *ws,
                    aclOpExecutor **exo, void **params);

#endif
