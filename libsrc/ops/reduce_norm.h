/* The p-norm reduction of the reduction engine (libsrc/ops/reduce.c), for aclnnNorm (libsrc/ops/norm.c). */
#ifndef PYACLNN_OPS_REDUCE_NORM_H
#define PYACLNN_OPS_REDUCE_NORM_H

#include "ops/ops.h"

/* out = (sum |x|^p)^(1/p) over the dims in `mask` (keep: reduced dims stay as 1s); p = 0 counts non-zeros, 1 and 2
 * are exact sums, +-INFINITY the max / min of |x|. x is read as float32, accumulated in double, rounded to rdt,
 * converted to out's dtype. An empty x fills out with 0. */
aclnnStatus acl_reduce_norm(int op, const aclTensor *x, uint64_t mask, bool keep, aclTensor *out, double p,
                            aclDataType rdt, uint64_t *ws, aclOpExecutor **exo);

#endif
