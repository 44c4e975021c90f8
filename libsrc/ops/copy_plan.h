/* Copy plans: the shape ops (cast, copy, permute, expand, repeat, slice, cat, stack, split, roll, flatten, ...) are
 * lists of strided copies between remapped views of their tensors, with dtype conversion (acl_convert) and an
 * optional fill of the output first. A copy item names its source and destination by executor io slot plus an
 * element offset, so an executor retargeted with aclSetInputTensorAddr copies from the new address. */
#ifndef PYACLNN_OPS_COPY_PLAN_H
#define PYACLNN_OPS_COPY_PLAN_H

#include "ops/ops.h"

typedef struct {
    int src, dst;                 /* io slots */
    int ndim;                     /* <= ACL_MAX_VIEW_RANK */
    int64_t dims[ACL_MAX_VIEW_RANK];
    int64_t sst[ACL_MAX_VIEW_RANK], dstt[ACL_MAX_VIEW_RANK];
    int64_t soff, doff;           /* element offsets from the io views' bases */
} cp_item;

typedef struct cp_plan cp_plan;
/* a computation run after the fill and the copies, on the run's views (inputs staged as below) */
typedef void (*cp_kernel)(const cp_plan *p, const acl_view *io);

struct cp_plan {
    int n, cap;
    cp_item *items;
    int fill_slot;                /* -1: none; else io slot filled with fill_value before the copies */
    double fill_value;
    double fill_imag;
    bool fill_exact;              /* fill with fill_bytes (already in the slot's dtype: an int64 is not rounded) */
    unsigned char fill_bytes[16] __attribute__((aligned(16)));
    aclDataType mid;              /* ACL_DT_UNDEFINED, or every item converts src -> mid -> dst (cat/stack cast each
                                     input to the promoted dtype, then to out's: i32 + f16 into f32 rounds via f16) */
    cp_kernel kernel;             /* NULL, or run last (flat roll, triangles) */
    int64_t iparam[4];            /* the kernel's parameters */
};

/* A new executor whose params are an empty cp_plan (run = the copy runner: no fill, no middle dtype, no kernel);
 * NULL on OOM (message recorded). The runner stages an input whose memory overlaps an output's (copies its span
 * aside before anything is written), so `out` may alias `self` as on the device, where results go through a
 * temporary before the final ViewCopy. */
aclOpExecutor *cp_exec_create(int op);
static inline cp_plan *cp_of(aclOpExecutor *ex) { return (cp_plan *)ex->params; }
/* Appends an item copying io slot `src` (dims/strides given, element offset soff) to slot `dst`. */
aclnnStatus cp_add(aclOpExecutor *ex, int src, int64_t soff, const int64_t *sst, int dst, int64_t doff,
                   const int64_t *dstt, const int64_t *dims, int ndim);
/* The common case: a whole-view copy of io slot src (broadcast with stride 0 where it has size 1 / fewer dims)
 * into slot dst (same dims as dst). */
aclnnStatus cp_add_broadcast(aclOpExecutor *ex, int src, int dst);

/* Copies n-d `dims` elements between two strided places with conversion (serial per item, rows in parallel);
 * cp_copy_via converts through `mid` (ACL_DT_UNDEFINED: directly). */
void cp_copy_via(const char *sbase, aclDataType sdt, const int64_t *sst, aclDataType mid, char *dbase,
                 aclDataType ddt, const int64_t *dstt, const int64_t *dims, int ndim);
void cp_copy(const char *sbase, aclDataType sdt, const int64_t *sst, char *dbase, aclDataType ddt,
             const int64_t *dstt, const int64_t *dims, int ndim);
/* Normalises a possibly negative dim against rank (PyTorch's wrap); -1 when out of range. */
static inline int64_t cp_wrap_dim(int64_t d, int64_t rank) {
    int64_t r = rank > 0 ? rank : 1;
    if (d < -r || d >= r) return -1;
    return d < 0 ? d + r : d;
}

#endif
