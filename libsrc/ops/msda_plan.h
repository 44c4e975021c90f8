/* Executor plumbing shared by the two multi-scale deformable attention ops (multi_scale_deformable_attn_function.c,
 * multi_scale_deformable_attention_grad.c): each op file validates in its own SPEC order, creates its executor with
 * msda_plan_run / sizeof(msda_plan), adds its tensors in the kernel's order, and hands over to msda_plan_publish.
 *
 * Executor tensor order: inputs value, spatialShape, levelStartIndex, location, attnWeight (+ gradOutput for the
 * backward); outputs output (forward) or gradValue, gradLocation, gradAttnWeight (backward). */
#ifndef PYACLNN_OPS_MSDA_PLAN_H
#define PYACLNN_OPS_MSDA_PLAN_H

#include <stdbool.h>

#include "kernels/msda.h"
#include "ops/ops.h"

/* One dimension-equality rule: `name` dim `i` must equal `want` (`what` says what it is compared with). */
#define MSDA_CHECK_DIM(t, name, i, want, what)                                                                   \
    ACLNN_CHECK((t)->dims[i] == (want), ACLNN_ERR_PARAM_INVALID, "%s dim %d is %lld but should equal %s (%lld).", \
                name, i, (long long)(t)->dims[i], what, (long long)(want))

typedef struct {
    bool backward;
    msda_scratch scratch; /* phase-1 scratch, released with the executor */
} msda_plan;

/* The second phase of both ops: the kernel's problem from the executor's (possibly retargeted) views, then the
 * forward or backward kernel. */
aclnnStatus msda_plan_run(aclOpExecutor *ex, void *workspace, uint64_t workspaceSize);
void msda_plan_free(void *params);

/* Phase 1 after validation and the tensors were added: allocates the scratch and publishes the executor
 * (discarding it on failure). */
aclnnStatus msda_plan_publish(aclOpExecutor *ex, bool backward, uint64_t *workspaceSize, aclOpExecutor **executor);

#endif
