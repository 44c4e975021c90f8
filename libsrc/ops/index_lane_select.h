/* Order-statistic selection along one dim, shared by Kthvalue (libsrc/ops/index_kthvalue.c) and
 * Median/NanMedian(Dim) (libsrc/ops/index_median.c): each lane (the elements of one output position along dim)
 * is gathered into a per-thread scratch, sorted stably (ascending, NaN after every number, ties by position) and
 * one element picked from it. Float dtypes are held as double, integers as exact int64. One thread owns each lane:
 * the same bytes for any thread count. */
#ifndef PYACLNN_OPS_INDEX_LANE_SELECT_H
#define PYACLNN_OPS_INDEX_LANE_SELECT_H

#include "ops/index_common.h"

typedef struct {
    double v;      /* the value (float dtypes) */
    int64_t key;   /* the value (integer dtypes) */
    int64_t i;     /* the position along dim */
} ls_item;

/* What one lane yields: the sorted items (n of them; NaN left out when the selection skips NaN, first_nan its
 * first position or -1) -> *out. Returning false makes the lane NaN at position *nan_pos. */
typedef bool (*ls_pick_fn)(const void *params, const ls_item *sorted, int64_t n, int64_t first_nan, ls_item *out,
                           int64_t *nan_pos);

typedef struct {
    int64_t outer, len, inner; /* the lanes: outer * inner of them, len long */
    bool skip_nan;             /* leave NaN out of the sort (their first position goes to the pick) */
    ls_pick_fn pick;
    const void *params;
} ls_plan;

/* Runs the selection on x and stores the picked values into vo (x's dtype) and, when io is not NULL, the positions
 * into io (int64); lanes in row-major order fill the reduced shape. OOM (ops.h) when out of memory. */
aclnnStatus ls_run(const ls_plan *plan, const acl_view *x, const acl_view *vo, const acl_view *io);

#endif
