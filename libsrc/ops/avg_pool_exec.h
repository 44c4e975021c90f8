/* The executor shared by the ops that run on the avg_pool2d kernels (AvgPool2d, AvgPool2dBackward,
 * AdaptiveAvgPool2d, AdaptiveAvgPool2dBackward): one run per direction and the plan's geometry. */
#ifndef PYACLNN_OPS_AVG_POOL_EXEC_H
#define PYACLNN_OPS_AVG_POOL_EXEC_H

#include "kernels/avg_pool2d.h"
#include "meta/meta.h"

/* Creates op's executor: input `in` (read), optionally `shape_only` (an input whose data is not read), output
 * `out`; the plan's n, c, ih, iw come from `big` ((N,)C,H,W: the pooled side) and oh, ow from `small`. The caller
 * plans (avgpool_plan_*) into avgpool_exec_plan(ex) and publishes, or discards on failure. */
aclnnStatus avgpool_exec_create(int op, bool backward, const aclTensor *in, const char *in_name,
                                const aclTensor *shape_only, const char *shape_only_name, aclTensor *out,
                                const char *out_name, const aclTensor *big, const aclTensor *small,
                                aclOpExecutor **exo);

static inline avgpool_plan *avgpool_exec_plan(aclOpExecutor *ex) { return ex->params; }

#endif
