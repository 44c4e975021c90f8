/* The gather / fp32 kernel / scatter runner of the optimizer ops (see optim_plan.h). */
#include <stdlib.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/ops.h"
#include "ops/optim_plan.h"

#define OPT_CHUNK 4096

static void contig_strides(const acl_view *v, int64_t *st) {
    int64_t s = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= v->dims[k];
    }
}

double opt_elem(const acl_view *v, int64_t i) {
    int64_t off = 0, rem = i;
    for (int k = v->ndim - 1; k >= 0; k--) {
        off += (rem % v->dims[k]) * v->strides[k];
        rem /= v->dims[k];
    }
    double r = 0;
    acl_convert(v->base + off * (int64_t)acl_dtype_size(v->dtype), v->dtype, 1, &r, ACL_DOUBLE, 1, 1);
    return r;
}

int opt_add_first_elem(aclOpExecutor *ex, const aclTensor *t, const char *name) {
    aclTensor one = *t;
    one.ndim = 1;
    one.dims[0] = 1;
    one.strides[0] = 1;
    one.storage_ndim = 0; /* the element itself is what must lie in the allocation */
    return acl_exec_add_input(ex, &one, name, true);
}

aclnnStatus opt_apply(const acl_view *const *rd, const acl_view *const *wr, int nslots, opt_kernel k,
                      const float *sc) {
    const acl_view *shape = NULL;
    for (int s = 0; s < nslots && !shape; s++) shape = rd[s] ? rd[s] : wr[s];
    if (!shape) return ACLNN_SUCCESS;
    const int64_t m = acl_view_numel(shape);
    if (m == 0) return ACLNN_SUCCESS;
    float *b[OPT_MAX_SLOTS] = {0};
    aclnnStatus rc = ACLNN_SUCCESS;
    int64_t st[ACL_MAX_VIEW_RANK];
    contig_strides(shape, st);
    for (int s = 0; s < nslots && !rc; s++) {
        if (!rd[s] && !wr[s]) continue;
        b[s] = malloc(sizeof(float) * (size_t)m);
        if (!b[s]) {
            rc = OOM;
            break;
        }
        if (rd[s]) cp_copy(rd[s]->base, rd[s]->dtype, rd[s]->strides, (char *)b[s], ACL_FLOAT, st, rd[s]->dims,
                           rd[s]->ndim);
        else for (int64_t i = 0; i < m; i++) b[s][i] = 0.0f;
    }
    if (!rc) {
        const int64_t nch = (m + OPT_CHUNK - 1) / OPT_CHUNK;
        ACL_FOR(nch > 1 && acl_parallel_worth(m), c, 0, nch, {
            const int64_t o0 = c * OPT_CHUNK, len = m - o0 < OPT_CHUNK ? m - o0 : OPT_CHUNK;
            float *bc[OPT_MAX_SLOTS];
            for (int s = 0; s < nslots; s++) bc[s] = b[s] ? b[s] + o0 : NULL;
            k(len, bc, sc);
        });
        for (int s = 0; s < nslots; s++)
            if (wr[s]) cp_copy((const char *)b[s], ACL_FLOAT, st, wr[s]->base, wr[s]->dtype, wr[s]->strides,
                               wr[s]->dims, wr[s]->ndim);
    }
    for (int s = 0; s < nslots; s++) free(b[s]);
    return rc;
}
