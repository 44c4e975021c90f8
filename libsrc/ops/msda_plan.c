#include "ops/msda_plan.h"

#include <stdlib.h>

#include "common/shape.h"

static void fill_ten(msda_ten *t, const acl_view *v) {
    t->base = v->base;
    t->dtype = v->dtype;
    for (int i = 0; i < 6; i++) t->st[i] = i < v->ndim ? v->strides[i] : 0;
}

static int64_t min64(int64_t a, int64_t b) { return a < b ? a : b; }

/* The kernel's problem. The per-query rows (gradOutput, or the forward's output) may be (bs, nq, nh*C); they are
 * seen as (bs, nq, nh, C) with head stride C*s2, which cannot overflow unless nh == 1, where it is never
 * multiplied by a non-zero head index.
 *
 * Loop extents ([EMU]). The real host code leaves some shared dimensions unchecked (the forward checks only the
 * number of levels across tensors; its kernel then reads past the smaller tensors), so every extent is the
 * smallest one among the tensors that carry it: batch (value, location, attnWeight, rows), queries (location,
 * attnWeight, rows), heads (value, location, attnWeight, rows), points (location, attnWeight). No view is read or
 * written outside itself, and rows of an output beyond these extents are left untouched. Levels are location's
 * dim 3 (= spatialShape dim 0 = attnWeight dim 3, checked by both ops); a level without a levelStartIndex entry
 * contributes nothing (nstart, kernels/msda.c). The backward checks all of these equal, so there the minimum is
 * every tensor's own extent. */
static void build_problem(aclOpExecutor *ex, bool backward, msda_problem *p) {
    const acl_view *value = acl_exec_in(ex, 0), *start = acl_exec_in(ex, 2), *loc = acl_exec_in(ex, 3),
                   *attn = acl_exec_in(ex, 4);
    const acl_view *rows = backward ? acl_exec_in(ex, 5) : acl_exec_out(ex, 0);
    const int64_t C = value->dims[3];
    /* heads of the rows: dim 2 of a (bs, nq, nh, C) view, dim 2 / C of a (bs, nq, nh*C) one (C > 0: not empty) */
    const int64_t rows_nh = rows->ndim == 3 ? rows->dims[2] / C : rows->dims[2];
    *p = (msda_problem){.bs = min64(min64(value->dims[0], loc->dims[0]), min64(attn->dims[0], rows->dims[0])),
                        .K = value->dims[1],
                        .nh = min64(min64(value->dims[2], loc->dims[2]), min64(attn->dims[2], rows_nh)),
                        .C = C,
                        .nl = loc->dims[3],
                        .nq = min64(min64(loc->dims[1], attn->dims[1]), rows->dims[1]),
                        .np = min64(loc->dims[4], attn->dims[4]),
                        .nstart = start->dims[0]};
    fill_ten(&p->value, value);
    fill_ten(&p->shape, acl_exec_in(ex, 1));
    fill_ten(&p->start, start);
    fill_ten(&p->loc, loc);
    fill_ten(&p->attn, attn);
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
