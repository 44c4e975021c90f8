/* aclnnChamferDistanceBackward (ops-nn loss/chamfer_distance_grad): 2-D point sets xyz1 [B, N, 2], xyz2 [B, M, 2], the
 * forward's nearest indices idx1 [B, N] (into xyz2) and idx2 [B, M] (into xyz1), the distances' gradients gradDist1
 * [B, N], gradDist2 [B, M]. Each pair (i, idx1[i]) adds 2 g (p1_i - p2_idx) to gradXyz1[i] and subtracts it from
 * gradXyz2[idx]; likewise for idx2. Accumulated in double in index order (one thread: the same bytes for any thread
 * count), rounded once. An index outside its set is skipped. The op_api checks NULLs and dtypes only; the shapes
 * (its tiling's business) are checked here too, so that nothing is read or written outside the tensors. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/mx_util.h"

typedef struct {
    int64_t B, N, M;
} cd_params;

static aclnnStatus cd_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const cd_params *p = ex->params;
    const int64_t B = p->B, N = p->N, M = p->M;
    double *x1 = malloc(sizeof(double) * (size_t)(B * N * 2 + 1)), *x2 = malloc(sizeof(double) * (size_t)(B * M * 2 + 1));
    double *g1 = malloc(sizeof(double) * (size_t)(B * N + 1)), *g2 = malloc(sizeof(double) * (size_t)(B * M + 1));
    int64_t *i1 = malloc(sizeof(int64_t) * (size_t)(B * N + 1)), *i2 = malloc(sizeof(int64_t) * (size_t)(B * M + 1));
    double *o1 = calloc((size_t)(B * N * 2 + 1), sizeof(double)), *o2 = calloc((size_t)(B * M * 2 + 1), sizeof(double));
    bool ok = x1 && x2 && g1 && g2 && i1 && i2 && o1 && o2;
    if (ok) {
        const acl_view *v[6];
        for (int k = 0; k < 6; k++) v[k] = acl_exec_in(ex, k);
        mx_load_bcast(v[0], v[0]->dims, v[0]->ndim, ACL_DOUBLE, x1);
        mx_load_bcast(v[1], v[1]->dims, v[1]->ndim, ACL_DOUBLE, x2);
        mx_load_bcast(v[2], v[2]->dims, v[2]->ndim, ACL_INT64, i1);
        mx_load_bcast(v[3], v[3]->dims, v[3]->ndim, ACL_INT64, i2);
        mx_load_bcast(v[4], v[4]->dims, v[4]->ndim, ACL_DOUBLE, g1);
        mx_load_bcast(v[5], v[5]->dims, v[5]->ndim, ACL_DOUBLE, g2);
        for (int64_t b = 0; b < B; b++) {
            for (int64_t i = 0; i < N; i++) { /* dist1: xyz1[i] to its nearest xyz2[idx1[i]] */
                const int64_t j = i1[b * N + i];
                if (j < 0 || j >= M) continue;
                for (int d = 0; d < 2; d++) {
                    const double t = 2.0 * g1[b * N + i] * (x1[(b * N + i) * 2 + d] - x2[(b * M + j) * 2 + d]);
                    o1[(b * N + i) * 2 + d] += t;
                    o2[(b * M + j) * 2 + d] -= t;
                }
            }
            for (int64_t j = 0; j < M; j++) { /* dist2: xyz2[j] to its nearest xyz1[idx2[j]] */
                const int64_t i = i2[b * M + j];
                if (i < 0 || i >= N) continue;
                for (int d = 0; d < 2; d++) {
                    const double t = 2.0 * g2[b * M + j] * (x2[(b * M + j) * 2 + d] - x1[(b * N + i) * 2 + d]);
                    o2[(b * M + j) * 2 + d] += t;
                    o1[(b * N + i) * 2 + d] -= t;
                }
            }
        }
        /* the kernel works in f32: round there, then to the output dtype */
        const acl_view *r1 = acl_exec_out(ex, 0), *r2 = acl_exec_out(ex, 1);
        ok = mx_store_via(o1, ACL_DOUBLE, ACL_FLOAT, r1) && mx_store_via(o2, ACL_DOUBLE, ACL_FLOAT, r2);
    }
    free(x1);
    free(x2);
    free(g1);
    free(g2);
    free(i1);
    free(i2);
    free(o1);
    free(o2);
    return ok ? ACLNN_SUCCESS : OOM;
}

static aclnnStatus shape3(const aclTensor *t, const char *name, int64_t a, int64_t b, int64_t c, int nd) {
    const int64_t d[3] = {a, b, c};
    if (mx_shape_is(t, d, nd)) return ACLNN_SUCCESS;
    return mx_check_shape(t, name, d, nd);
}

aclnnStatus opws_ChamferDistanceBackward(const aclTensor *xyz1, const aclTensor *xyz2, const aclTensor *idx1,
                                         const aclTensor *idx2, const aclTensor *gradDist1,
                                         const aclTensor *gradDist2, aclTensor *gradXyz1, aclTensor *gradXyz2,
                                         uint64_t *workspaceSize, aclOpExecutor **executor) {
    const aclTensor *all[] = {xyz1, xyz2, idx1, idx2, gradDist1, gradDist2, gradXyz1, gradXyz2};
    const char *names[] = {"xyz1", "xyz2", "idx1", "idx2", "gradDist1", "gradDist2", "gradXyz1", "gradXyz2"};
    for (int k = 0; k < 8; k++)
        ACLNN_CHECK(all[k] != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", names[k]);
    for (int k = 0; k < 8; k++) {
        if (k == 2 || k == 3) ACL_TRY(acl_check_dtype_in(all[k], ACL_DT_LIST_ChamferDistanceBackward_idx1, names[k]));
        else ACL_TRY(acl_check_dtype_in(all[k], ACL_DT_LIST_ChamferDistanceBackward, names[k]));
    }
    ACLNN_CHECK(xyz1->ndim == 3 && xyz1->dims[2] == 2, ACLNN_ERR_PARAM_INVALID, "xyz1 must be [B, N, 2].");
    const int64_t B = xyz1->dims[0], N = xyz1->dims[1];
    ACLNN_CHECK(xyz2->ndim == 3 && xyz2->dims[0] == B && xyz2->dims[2] == 2, ACLNN_ERR_PARAM_INVALID,
                "xyz2 must be [B, M, 2] with xyz1's B.");
    const int64_t M = xyz2->dims[1];
    ACL_TRY(shape3(idx1, "idx1", B, N, 0, 2));
    ACL_TRY(shape3(idx2, "idx2", B, M, 0, 2));
    ACL_TRY(shape3(gradDist1, "gradDist1", B, N, 0, 2));
    ACL_TRY(shape3(gradDist2, "gradDist2", B, M, 0, 2));
    ACL_TRY(shape3(gradXyz1, "gradXyz1", B, N, 2, 3));
    ACL_TRY(shape3(gradXyz2, "gradXyz2", B, M, 2, 3));
    for (int k = 0; k < 6; k++)
        if (acl_tensor_empty(all[k])) return acl_exec_noop(ACL_OP_ChamferDistanceBackward, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_ChamferDistanceBackward, cd_run, sizeof(cd_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int k = 0; k < 6 && !rc; k++) rc = acl_exec_add_input(ex, all[k], names[k], true);
    if (!rc) rc = acl_exec_add_output(ex, gradXyz1, "gradXyz1");
    if (!rc) rc = acl_exec_add_output(ex, gradXyz2, "gradXyz2");
    if (rc) return acl_exec_discard(ex, rc);
    *(cd_params *)ex->params = (cd_params){.B = B, .N = N, .M = M};
    return acl_exec_publish(ex, workspaceSize, executor);
}
