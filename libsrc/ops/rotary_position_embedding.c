/* aclnnRotaryPositionEmbedding (ops-transformer posembedding/rotary_position_embedding): rotary position embedding
 * of a 4-d x with position tables cos and sin, y = x * cos + rotate(x) * sin over the last dim D:
 *   mode 0 (half):       rotate(x) = cat(-x[D/2:], x[:D/2])
 *   mode 1 (interleave): rotate(x)[2i] = -x[2i+1], rotate(x)[2i+1] = x[2i]
 * The first phase is the one CANN generates from the op definition (NULL 161001; x, cos, sin and out of one dtype
 * of the definition's list, 161002), then the ascend910b tiling's rules (561002): four dims each, an even D of at
 * most 896 (half), equal cos and sin shapes with x's D, out shaped like x, cos's first three dims 1 or x's (half;
 * interleave: exactly the layouts 1S1D-like, one of them x's and the other two 1), mode 0 or 1 (the A2 tiling
 * templates; quarter and interleave-half are not A2 modes). An empty x gives an empty out without shape rules.
 *
 * Compute: x, cos and sin are read as float (exact for f16/bf16/f32), each output is x*cos + r*sin in float,
 * rounded once to out's dtype. Each output is written by one iteration: the same bytes for any OMP_NUM_THREADS. */
#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

enum { ROPE_D_LIMIT = 896 };

typedef struct {
    int mode;
} rope_params;

static aclnnStatus rope_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const rope_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *y = acl_exec_out(ex, 0);
    const acl_view cb = md_broadcast_view(acl_exec_in(ex, 1), x->dims, x->ndim);
    const acl_view sb = md_broadcast_view(acl_exec_in(ex, 2), x->dims, x->ndim);
    const int64_t n = md_numel(x), d = x->dims[3], h = d / 2;
    float *xs = md_load(x, ACL_FLOAT), *cs = md_load(&cb, ACL_FLOAT), *ss = md_load(&sb, ACL_FLOAT);
    float *r = md_alloc(n, sizeof(float));
    aclnnStatus rc;
    if (!(xs && cs && ss && r)) rc = OOM;
    else {
        const int64_t rows = n / d;
        const int mode = p->mode;
        ACL_FOR(acl_parallel_worth(n), row, 0, rows, {
            const float *xr = xs + row * d, *cr = cs + row * d, *sr = ss + row * d;
            float *o = r + row * d;
            for (int64_t k = 0; k < d; k++) {
                float rot;
                if (mode == 0) rot = k < h ? -xr[k + h] : xr[k - h];
                else rot = (k & 1) ? xr[k - 1] : -xr[k + 1];
                o[k] = xr[k] * cr[k] + rot * sr[k];
            }
        });
        rc = md_store_via(r, ACL_FLOAT, y->dtype, y);
    }
    free(xs);
    free(cs);
    free(ss);
    free(r);
    return rc;
}

static aclnnStatus rope_shape_error(const char *what, const aclTensor *t) {
    char s[256];
    acl_shape_str(t, s, sizeof s);
    return ACL_REPORT(ACLNN_ERR_INNER_TILING_ERROR, "%s, but it is %s.", what, s);
}

aclnnStatus opws_RotaryPositionEmbedding(const aclTensor *x, const aclTensor *cos, const aclTensor *sin, int64_t mode,
                                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(acl_check_tensor(x, "x"));
    ACL_TRY(acl_check_tensor(cos, "cos"));
    ACL_TRY(acl_check_tensor(sin, "sin"));
    ACL_TRY(acl_check_tensor(out, "out"));
    ACL_TRY(acl_check_dtype_in(x, ACL_DT_LIST_RotaryPositionEmbedding, "x"));
    ACL_TRY(acl_check_same_dtype(x, "x", cos, "cos"));
    ACL_TRY(acl_check_same_dtype(x, "x", sin, "sin"));
    ACL_TRY(acl_check_same_dtype(x, "x", out, "out"));
    if (!acl_tensor_empty(x)) {
        if (x->ndim != 4) return rope_shape_error("x must have 4 dims", x);
        if (cos->ndim != 4) return rope_shape_error("cos must have 4 dims", cos);
        if (sin->ndim != 4) return rope_shape_error("sin must have 4 dims", sin);
        const int64_t d = x->dims[3];
        ACLNN_CHECK(d % 2 == 0, ACLNN_ERR_INNER_TILING_ERROR, "x's last dim (head dim) %lld must be even.",
                    (long long)d);
        ACLNN_CHECK(mode == 0 || mode == 1, ACLNN_ERR_INNER_TILING_ERROR,
                    "mode %lld is not supported: 0 (half) or 1 (interleave).", (long long)mode);
        ACLNN_CHECK(mode != 0 || d <= ROPE_D_LIMIT, ACLNN_ERR_INNER_TILING_ERROR,
                    "x's last dim (head dim) %lld must be at most %d.", (long long)d, ROPE_D_LIMIT);
        if (!md_shape_is(sin, cos->dims, 4)) return rope_shape_error("sin's shape must be cos's", sin);
        if (cos->dims[3] != d) return rope_shape_error("cos's last dim must be x's", cos);
        if (!md_shape_is(out, x->dims, 4)) return rope_shape_error("out's shape must be x's", out);
        int match = 0, ones = 0;
        for (int k = 0; k < 3; k++) {
            if (cos->dims[k] != 1 && cos->dims[k] != x->dims[k])
                return rope_shape_error("cos's first three dims must each be 1 or x's", cos);
            match += cos->dims[k] == x->dims[k];
            ones += cos->dims[k] == 1;
        }
        if (mode == 1 && !(ones >= 2 && match >= 1))
            return rope_shape_error("in interleave mode cos must be 1S1D-like (one of its first three dims x's, the "
                                    "others 1)", cos);
    } else if (!md_shape_is(out, x->dims, (int)x->ndim)) {
        return rope_shape_error("out's shape must be x's", out);
    }
    if (acl_tensor_empty(x)) return acl_exec_noop(ACL_OP_RotaryPositionEmbedding, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(ACL_OP_RotaryPositionEmbedding, rope_run, sizeof(rope_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = acl_exec_add_input(ex, x, "x", true);
    if (!rc) rc = acl_exec_add_input(ex, cos, "cos", true);
    if (!rc) rc = acl_exec_add_input(ex, sin, "sin", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    *(rope_params *)ex->params = (rope_params){(int)mode};
    return acl_exec_publish(ex, workspaceSize, executor);
}
