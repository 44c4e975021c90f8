/* Order-statistic selection along one dim (libsrc/ops/index_lane_select.h). */
#include "ops/index_lane_select.h"

static int ls_cmp_f(const void *a, const void *b) {
    const ls_item *x = a, *y = b;
    const int nx = isnan(x->v), ny = isnan(y->v);
    if (nx != ny) return nx - ny;
    if (!nx && x->v != y->v) return x->v < y->v ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

static int ls_cmp_i(const void *a, const void *b) {
    const ls_item *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->i > y->i) - (x->i < y->i);
}

aclnnStatus ls_run(const ls_plan *plan, const acl_view *x, const acl_view *vo, const acl_view *io) {
    const bool isf = acl_dt_is_float(x->dtype);
    const int64_t len = plan->len, inner = plan->inner, lanes = plan->outer * plan->inner;
    double *fb = isf ? md_load(x, ACL_DOUBLE) : NULL;
    int64_t *ib = isf ? NULL : md_load(x, ACL_INT64);
    double *vals = md_alloc(lanes, sizeof(double));
    int64_t *ivals = md_alloc(lanes, sizeof(int64_t)), *idx = md_alloc(lanes, sizeof(int64_t));
    const int64_t blk = acl_team_block(len, sizeof(ls_item)); /* whole lines a thread */
    ls_item *items = acl_team_alloc(acl_max_threads() + 1, len, sizeof(ls_item), 1);
    aclnnStatus rc = ACLNN_SUCCESS;
    if ((isf ? !fb : !ib) || !vals || !ivals || !idx || !items) rc = OOM;
    else {
#pragma omp parallel for schedule(static) if (acl_parallel_worth(lanes * len))
        for (int64_t l = 0; l < lanes; l++) {
            ls_item *it = items;
#ifdef _OPENMP
            it = items + (size_t)(omp_get_thread_num() + 1) * (size_t)blk;
#endif
            const int64_t o = l / inner, i = l % inner;
            int64_t c = 0, first_nan = -1;
            for (int64_t j = 0; j < len; j++) {
                const int64_t e = (o * len + j) * inner + i;
                const double v = isf ? fb[e] : 0;
                if (plan->skip_nan && isnan(v)) {
                    if (first_nan < 0) first_nan = j;
                    continue;
                }
                it[c].v = v;
                it[c].key = isf ? 0 : ib[e];
                it[c++].i = j;
            }
            qsort(it, (size_t)c, sizeof(ls_item), isf ? ls_cmp_f : ls_cmp_i);
            ls_item m;
            int64_t nan_pos = 0;
            if (plan->pick(plan->params, it, c, first_nan, &m, &nan_pos)) {
                vals[l] = m.v;
                ivals[l] = m.key;
                idx[l] = m.i;
            } else {
                vals[l] = NAN;
                ivals[l] = 0;
                idx[l] = nan_pos;
            }
        }
        if (isf) md_store(vals, ACL_DOUBLE, vo);
        else md_store(ivals, ACL_INT64, vo);
        if (io) md_store(idx, ACL_INT64, io);
    }
    free(fb);
    free(ib);
    free(vals);
    free(ivals);
    free(idx);
    free(items);
    return rc;
}
