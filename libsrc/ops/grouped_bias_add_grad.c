/* aclnnGroupedBiasAddGrad and aclnnGroupedBiasAddGradV2 (ops-math math/grouped_bias_add_grad): per group, the sum of
 * gradY's rows.
 *   groupIdxOptional NULL:  gradY (G, C, H) -> out[g, h] = sum_c gradY[g, c, h]
 *   groupIdxOptional (G,):  gradY (M, H)    -> out[g, h] = sum of rows [start_g, end_g) of gradY, where
 *       groupIdxType 0: end_g = groupIdx[g], start_g = end_{g-1} (0 for g = 0)  (cumulative end indices)
 *       groupIdxType 1: start_g = groupIdx[0] + ... + groupIdx[g-1], end_g = start_g + groupIdx[g]  (group sizes)
 * The doc requires the ends increasing and the last equal to M (type 0) or the sizes summing to M (type 1); the
 * kernel reads whatever rows the indices name. Here a group's range is clamped to [0, M) and an empty or inverted
 * range gives 0, so hostile indices never reach outside gradY.
 * Each out element is summed in row order in double and rounded once; (group, column block) pairs are the owners. */
#include <stdlib.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"

#define GB_MAX_GROUPS 2048
#define GB_HBLOCK 256

typedef struct { bool has_idx; int64_t type; int64_t G, H, M; } gb_params;

static int64_t sat_add(int64_t a, int64_t b) {
    int64_t r;
    if (!__builtin_add_overflow(a, b, &r)) return r;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

static aclnnStatus gb_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const gb_params *p = ex->params;
    const acl_view *yv = acl_exec_in(ex, 0), *ov = acl_exec_out(ex, 0);
    const int64_t G = p->G, H = p->H, M = p->M;
    double *y = dn_load(yv);
    int64_t *se = malloc(sizeof(int64_t) * (size_t)(2 * G + 1));
    double *res = malloc(sizeof(double) * (size_t)(G * H + 1));
    int64_t *idx = p->has_idx ? dn_load_i64(acl_exec_in(ex, 1)) : NULL;
    if (!y || !se || !res || (p->has_idx && !idx)) {
        free(y); free(se); free(res); free(idx);
        return OOM;
    }
    /* row ranges per group, clamped to [0, M) */
    int64_t run = 0;
    for (int64_t g = 0; g < G; g++) {
        int64_t s, e;
        if (!p->has_idx) {
            s = g * M;
            e = s + M;
        } else if (p->type == 0) {
            s = g == 0 ? 0 : idx[g - 1];
            e = idx[g];
        } else {
            s = run;
            e = sat_add(run, idx[g]);
            run = e;
        }
        if (p->has_idx) {
            s = acl_max_i64(0, acl_min_i64(s, M));
            e = acl_max_i64(0, acl_min_i64(e, M));
        }
        se[2 * g] = s;
        se[2 * g + 1] = e;
    }
    const int64_t nb = (H + GB_HBLOCK - 1) / GB_HBLOCK;
    ACL_FOR(acl_parallel_worth(M * H * (p->has_idx ? 1 : G)), t, 0, G * nb, {
        const int64_t g = t / nb, h0 = (t % nb) * GB_HBLOCK, h1 = acl_min_i64(H, h0 + GB_HBLOCK);
        double *o = res + g * H;
        for (int64_t h = h0; h < h1; h++) o[h] = 0;
        for (int64_t r = se[2 * g]; r < se[2 * g + 1]; r++) {
            const double *row = y + r * H;
            for (int64_t h = h0; h < h1; h++) o[h] += row[h];
        }
    });
    dn_store(res, ov);
    free(y);
    free(se);
    free(res);
    free(idx);
    return ACLNN_SUCCESS;
}

static aclnnStatus gb_plan(int op, const aclTensor *gradY, const aclTensor *groupIdx, int64_t type, aclTensor *out,
                           uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(gradY, "gradY");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(gradY, ACL_DT_LIST_GroupedBiasAddGrad, "gradY"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_GroupedBiasAddGrad, "out"));
    ACLNN_CHECK(out->dtype == gradY->dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the same as gradY dtype %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(gradY->dtype));
    if (groupIdx) ACL_TRY(acl_check_dtype_in(groupIdx, ACL_DT_LIST_GroupedBiasAddGrad_groupIdxOptional,
                                             "groupIdxOptional"));
    int64_t G, H;
    if (!groupIdx) {
        ACLNN_CHECK(gradY->ndim == 3, ACLNN_ERR_PARAM_INVALID,
                    "gradY should have 3 dims when groupIdxOptional is NULL, but has %llu.",
                    (unsigned long long)gradY->ndim);
        G = gradY->dims[0];
        H = gradY->dims[2];
    } else {
        ACLNN_CHECK(gradY->ndim == 2 && groupIdx->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                    "gradY should have 2 dims (has %llu) and groupIdxOptional 1 dim (has %llu).",
                    (unsigned long long)gradY->ndim, (unsigned long long)groupIdx->ndim);
        G = groupIdx->dims[0];
        ACLNN_CHECK(G <= GB_MAX_GROUPS, ACLNN_ERR_PARAM_INVALID,
                    "groupIdxOptional holds %lld groups; at most %d are supported.", (long long)G, GB_MAX_GROUPS);
        H = gradY->dims[1];
    }
    ACLNN_CHECK(out->ndim == 2, ACLNN_ERR_PARAM_INVALID, "out should have 2 dims, but has %llu.",
                (unsigned long long)out->ndim);
    ACLNN_CHECK(out->dims[0] == G && out->dims[1] == H, ACLNN_ERR_PARAM_INVALID,
                "out shape should be [%lld, %lld], but is [%lld, %lld].", (long long)G, (long long)H,
                (long long)out->dims[0], (long long)out->dims[1]);
    ACLNN_CHECK(type == 0 || type == 1, ACLNN_ERR_PARAM_INVALID, "groupIdxType should be 0 or 1, but is %lld.",
                (long long)type);
    if (acl_tensor_empty(gradY)) return acl_exec_noop(op, workspaceSize, executor);
    ACLNN_CHECK(acl_tensor_numel(gradY) >= 0, ACLNN_ERR_PARAM_INVALID, "gradY has more elements than int64 holds.");
    const aclTensor *ins[] = {gradY, groupIdx}, *outs[] = {out};
    const char *inn[] = {"gradY", "groupIdxOptional"}, *outn[] = {"out"};
    void *pp;
    ACL_TRY(dn_exec(op, gb_run, sizeof(gb_params), ins, inn, groupIdx ? 2 : 1, outs, outn, 1, workspaceSize, executor,
                    &pp));
    *(gb_params *)pp = (gb_params){groupIdx != NULL, type, G, H, groupIdx ? gradY->dims[0] : gradY->dims[1]};
    return ACLNN_SUCCESS;
}

aclnnStatus opws_GroupedBiasAddGrad(const aclTensor *gradY, const aclTensor *groupIdxOptional, aclTensor *out,
                                    uint64_t *workspaceSize, aclOpExecutor **executor) {
    return gb_plan(ACL_OP_GroupedBiasAddGrad, gradY, groupIdxOptional, 0, out, workspaceSize, executor);
}

aclnnStatus opws_GroupedBiasAddGradV2(const aclTensor *gradY, const aclTensor *groupIdxOptional, int64_t groupIdxType,
                                      aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return gb_plan(ACL_OP_GroupedBiasAddGradV2, gradY, groupIdxOptional, groupIdxType, out, workspaceSize, executor);
}
