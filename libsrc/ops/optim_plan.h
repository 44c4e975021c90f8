/* The shared runner of the optimizer ops (ops-nn optim/, tools/optable/nn_optim.py).
 *
 * An optimizer op updates, element by element, a few same-shaped tensors (parameter, moments, gradient) with
 * per-call scalars. opt_apply() gathers every slot of one such group into a contiguous float32 buffer (f16/bf16
 * widened exactly), runs the op's kernel over fixed chunks (each chunk owns its elements: the same bytes for any
 * thread count) and scatters the slots the op writes back into their views, each rounded once to its own dtype.
 * All slots are gathered before any is written, so aliased views read their old values. */
#ifndef PYACLNN_OPS_OPTIM_PLAN_H
#define PYACLNN_OPS_OPTIM_PLAN_H

#include "meta/meta.h"

#define OPT_MAX_SLOTS 8

/* n elements; b[s] the float32 buffer of slot s (NULL when the slot is absent); sc the op's scalars */
typedef void (*opt_kernel)(int64_t n, float *const *b, const float *sc);

/* rd[s]: the view slot s is read from (NULL: absent); wr[s]: the view it is written to (NULL: not written) */
aclnnStatus opt_apply(const acl_view *const *rd, const acl_view *const *wr, int nslots, opt_kernel k,
                      const float *sc);

/* Adds only element 0 of t as an executor input (a step / scale tensor of which the kernel reads the first value):
 * the memory guards then ask for that element alone. */
int opt_add_first_elem(aclOpExecutor *ex, const aclTensor *t, const char *name);

/* element i (row-major) of a view, converted to double */
double opt_elem(const acl_view *v, int64_t i);

#endif
