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

typedef struct {
    int n, cap;
    cp_item *items;
    int fill_slot;                /* -1: none; else io slot filled with fill_value before the copies */
    double fill_value;
    double fill_imag;
} cp_plan;

/* A new executor whose params are an empty cp_plan (run = the copy runner); NULL on OOM (message recorded). */
aclOpExecutor *cp_exec_create(int op);
static inline cp_plan *cp_of(aclOpExecutor *ex) { return (cp_plan *)ex->params; }
/* Appends an item copying io slot `src` (dims/strides given, element offset soff) to slot `dst`. */
aclnnStatus cp_add(aclOpExecutor *ex, int src, int64_t soff, const int64_t *sst, int dst, int64_t doff,
                   const int64_t *dstt, const int64_t *dims, int ndim);
/* The common case: a whole-view copy of io slot src (broadcast with stride 0 where it has size 1 / fewer dims)
 * into slot dst (same dims as dst). */
aclnnStatus cp_add_broadcast(aclOpExecutor *ex, int src, int dst);

/* Copies n-d `dims` elements between two strided places with conversion (serial per item, rows in parallel). */
void cp_copy(const char *sbase, aclDataType sdt, const int64_t *sst, char *dbase, aclDataType ddt,
             const int64_t *dstt, const int64_t *dims, int ndim);
/* Normalises a possibly negative dim against rank (PyTorch's wrap); -1 when out of range. */
static inline int64_t cp_wrap_dim(int64_t d, int64_t rank) {
    int64_t r = rank > 0 ? rank : 1;
    if (d < -r || d >= r) return -1;
    return d < 0 ? d + r : d;
}

#endif
