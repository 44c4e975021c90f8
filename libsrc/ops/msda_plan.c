#include "ops/msda_plan.h"

#include <stdlib.h>

#include "common/shape.h"

static void fill_ten(msda_ten *t, const acl_view *v) {
    t->base = v->base;
    t->dtype = v->dtype;
    for (int i = 0; i < 6; i++) t->st[i] = i < v->ndim ? v->strides[i] : 0;
}

/* The kernel's problem. The per-query rows (gradOutput, or the forward's output) may be (bs, nq, nh*C); they are
 * seen as (bs, nq, nh, C) with head stride C*s2, which cannot overflow unless nh == 1, where it is never
 * multiplied by a non-zero head index. */
static void build_problem(aclOpExecutor *ex, bool backward, msda_problem *p) {
    const acl_view *value = acl_exec_in(ex, 0), *loc = acl_exec_in(ex, 3);
    *p = (msda_problem){.bs = value->dims[0], .K = value->dims[1], .nh = value->dims[2], .C = value->dims[3],
                        .nl = loc->dims[3], .nq = loc->dims[1], .np = loc->dims[4]};
    fill_ten(&p->value, value);
    fill_ten(&p->shape, acl_exec_in(ex, 1));
    fill_ten(&p->start, acl_exec_in(ex, 2));
    fill_ten(&p->loc, loc);
    fill_ten(&p->attn, acl_exec_in(ex, 4));
    const acl_view *rows = backward ? acl_exec_in(ex, 5) : acl_exec_out(ex, 0);
    fill_ten(&p->rows, rows);
    if (rows->ndim == 3) {
        int64_t hs;
        p->rows.st[3] = rows->strides[2];
        p->rows.st[2] = acl_mul_i64(p->C, rows->strides[2], &hs) ? hs : 0;
    }
    if (backward) {
        fill_ten(&p->gv, acl_exec_out(ex, 0));
        fill_ten(&p->gloc, acl_exec_out(ex, 1));
        fill_ten(&p->gattn, acl_exec_out(ex, 2));
    }
}

aclnnStatus msda_plan_run(aclOpExecutor *ex, void *workspace, uint64_t workspaceSize) {
    (void)workspace;
    (void)workspaceSize;
    const msda_plan *plan = ex->params;
    msda_problem p;
    build_problem(ex, plan->backward, &p);
    if (plan->backward)
        msda_backward(&p, &plan->scratch);
    else
        msda_forward(&p, &plan->scratch);
    return ACLNN_SUCCESS;
}

void msda_plan_free(void *params) {
    msda_plan *plan = params;
    if (plan) msda_free_scratch(&plan->scratch);
    free(plan);
}

aclnnStatus msda_plan_publish(aclOpExecutor *ex, bool backward, uint64_t *workspaceSize, aclOpExecutor **executor) {
    msda_plan *plan = ex->params;
    plan->backward = backward;
    msda_problem p;
    build_problem(ex, backward, &p);
    aclnnStatus rc = msda_alloc_scratch(&p, backward, &plan->scratch);
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
