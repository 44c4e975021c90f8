/* The executor of the shape, copy and creation ops (shape_views.c, shape_lists.c, creation.c): a copy plan
 * (copy_plan.h) run with what those ops need beyond cp_run:
 *  - inputs whose memory overlaps an output's are staged (their span copied aside) before anything is written, so
 *    `out` may alias `self` as on the device, where every result goes through a temporary before ViewCopy;
 *  - an exact fill: bytes already in the filled slot's dtype (an int64 fill value is not rounded through double);
 *  - a middle dtype: every item converts src -> mid -> dst (cat/stack cast each input to the promoted dtype, then the
 *    result to out's dtype: i32 + f16 into an f32 out rounds through f16);
 *  - an optional kernel run after the fill and the items (flat roll, triangles), on the staged views. */
#ifndef PYACLNN_OPS_SHAPE_PLAN_H
#define PYACLNN_OPS_SHAPE_PLAN_H

#include "ops/copy_plan.h"

typedef struct sp_plan sp_plan;
typedef void (*sp_kernel)(const sp_plan *p, const acl_view *io);

struct sp_plan {
    cp_plan pl;                    /* first: cp_add/cp_of work on it */
    aclDataType mid;               /* ACL_DT_UNDEFINED: items convert src -> dst directly */
    bool fill_exact;               /* pl.fill_slot is filled with fill_bytes (its own dtype), not pl.fill_value */
    unsigned char fill_bytes[16] __attribute__((aligned(16)));
    sp_kernel kernel;              /* NULL, or run last */
    int64_t iparam[4];             /* the kernel's parameters */
};

/* A new executor whose params are an empty sp_plan (no fill, no middle dtype, no kernel); NULL on OOM. */
aclOpExecutor *sp_exec_create(int op);
static inline sp_plan *sp_of(aclOpExecutor *ex) { return (sp_plan *)ex->params; }

/* The view's elements in row-major order: 0 for an empty view. */
int64_t sp_numel(const acl_view *v);

#endif
