/* Reflection / replication / circular padding over the last 1, 2 or 3 dims, and their backward passes. One index
 * map per padded dim (out index -> input index) drives the forward gather; the backward is the same map inverted
 * into per-dim lists (input index -> the out indices reading it), so each gradInput element is a gather summed in a
 * fixed order (double accumulation, one rounding): no scatter, no atomics, any thread count gives the same bytes. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/gen/all_ops.h"

enum { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };

typedef struct {
    int k;                          /* padded dims: the last k of the tensor */
    int nd;
    int64_t *map[3];                /* per padded dim: out index -> in index */
    int64_t *start[3], *list[3];    /* backward: CSR of in index -> out indices */
    int64_t in_n[3], out_n[3];
    bool backward;
} pad_params;

static void pad_free(void *pp) {
    pad_params *p = pp;
    if (!p) return;
    for (int i = 0; i < 3; i++) {
        free(p->map[i]);
        free(p->start[i]);
        free(p->list[i]);
    }
    free(p);
}

static int64_t map_index(int mode, int64_t o, int64_t lo, int64_t n) {
    int64_t i = o - lo;
    if (mode == PAD_REPLICATE) return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == PAD_CIRCULAR) return ((i % n) + n) % n;
    if (n == 1) return 0;
    int64_t period = 2 * (n - 1);
    i = ((i % period) + period) % period;
    return i < n ? i : period - i;
}

/* in/out offsets of the leading (unpadded) part of a flat row index */
static void lead_offsets(const acl_view *a, const acl_view *b, int lead, int64_t r, int64_t *oa, int64_t *ob) {
    *oa = 0;
    *ob = 0;
    for (int d = lead - 1; d >= 0; d--) {
        int64_t i = r % a->dims[d];
        r /= a->dims[d];
        *oa += i * a->strides[d];
        *ob += i * b->strides[d];
    }
}

static aclnnStatus pad_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const pad_params *p = ex->params;
    const int k = p->k, nd = p->nd, lead = nd - k;
    /* forward: src = in (io 0), dst = out; backward: src = gradOutput (io 0), dst = gradInput */
    const acl_view *src = acl_exec_in(ex, 0), *dst = acl_exec_out(ex, 0);
    int64_t rows = 1;
    for (int d = 0; d < lead; d++) rows *= dst->dims[d];
    int64_t inner = 1; /* dst elements per leading row */
    for (int d = lead; d < nd; d++) inner *= dst->dims[d];
    const size_t ses = acl_dtype_size(src->dtype), des = acl_dtype_size(dst->dtype);
    const int64_t W = dst->dims[nd - 1];
#pragma omp parallel if (acl_parallel_worth(rows * inner * (p->backward ? 4 : 1)))
    {
        double *row = malloc(sizeof(double) * (size_t)(W > 0 ? W : 1));
#pragma omp for schedule(static)
        for (int64_t t = 0; t < rows * (inner / (W ? W : 1)); t++) {
            if (!row) continue;
            const int64_t per = inner / W, r = t / per, q = t % per;
            int64_t so, dof;
            lead_offsets(lead ? src : dst, dst, lead, r, &so, &dof);
            if (lead == 0) so = dof = 0;
            /* the dst row's indices in the padded dims above the last */
            int64_t idx[3] = {0, 0, 0}, rem = q;
            for (int j = k - 2; j >= 0; j--) {
                idx[j] = rem % dst->dims[lead + j];
                rem /= dst->dims[lead + j];
            }
            for (int j = 0; j < k - 1; j++) dof += idx[j] * dst->strides[lead + j];
            const int L = k - 1; /* the last padded dim's table index */
            for (int64_t w = 0; w < W; w++) {
                double acc = 0;
                if (!p->backward) {
                    int64_t off = so + p->map[L][w] * src->strides[nd - 1];
                    for (int j = 0; j < k - 1; j++) off += p->map[j][idx[j]] * src->strides[lead + j];
                    acl_convert(src->base + off * (int64_t)ses, src->dtype, 1, &acc, ACL_DOUBLE, 1, 1);
                } else {
                    /* sum over the product of the per-dim lists, in index order */
                    int64_t c0 = k > 1 ? p->start[0][idx[0]] : 0, c0e = k > 1 ? p->start[0][idx[0] + 1] : 1;
                    for (int64_t a0 = c0; a0 < c0e; a0++) {
                        int64_t off0 = so + (k > 1 ? p->list[0][a0] * src->strides[lead] : 0);
                        int64_t c1 = k > 2 ? p->start[1][idx[1]] : 0, c1e = k > 2 ? p->start[1][idx[1] + 1] : 1;
                        for (int64_t a1 = c1; a1 < c1e; a1++) {
                            int64_t off1 = off0 + (k > 2 ? p->list[1][a1] * src->strides[lead + 1] : 0);
                            for (int64_t a2 = p->start[L][w]; a2 < p->start[L][w + 1]; a2++) {
                                double v;
                                acl_convert(src->base + (off1 + p->list[L][a2] * src->strides[nd - 1]) * (int64_t)ses,
                                            src->dtype, 1, &v, ACL_DOUBLE, 1, 1);
                                acc += v;
                            }
                        }
                    }
                }
                row[w] = acc;
            }
            acl_convert(row, ACL_DOUBLE, 1, dst->base + dof * (int64_t)des, dst->dtype, dst->strides[nd - 1], W);
        }
        free(row);
    }
    return ACLNN_SUCCESS;
}

static const aclDataType k_pad_dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16,
                                           ACL_INT32, ACL_INT64, ACL_UINT8, ACL_BOOL, ACL_COMPLEX64, ACL_COMPLEX128};
static const aclDataType k_grad_dtypes[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE};

/* forward: (self, padding, out); backward: (gradOutput, self, padding, gradInput) */
static aclnnStatus pad_common(int op, int mode, int k, bool backward, const aclTensor *gradOutput,
                              const aclTensor *self, const aclIntArray *padding, aclTensor *out, uint64_t *ws,
                              aclOpExecutor **exo) {
    if (backward) ACL_TRY(acl_check_tensor(gradOutput, "gradOutput"));
    ACL_TRY(acl_check_tensor(self, "self"));
    ACL_TRY(acl_check_int_array(padding, "padding"));
    ACL_TRY(acl_check_tensor(out, backward ? "gradInput" : "out"));
    ACLNN_CHECK(ws != NULL && exo != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.");
    if (backward) {
        ACL_TRY(acl_check_dtype_in(gradOutput, k_grad_dtypes, ACL_COUNT_OF(k_grad_dtypes), "gradOutput"));
        ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", self, "self"));
        ACL_TRY(acl_check_same_dtype(gradOutput, "gradOutput", out, "gradInput"));
    } else {
        ACL_TRY(acl_check_dtype_in(self, k_pad_dtypes, ACL_COUNT_OF(k_pad_dtypes), "self"));
        ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    }
    const int nd = (int)self->ndim;
    ACLNN_CHECK(nd == k + 1 || nd == k + 2, ACLNN_ERR_PARAM_INVALID, "self must have %d or %d dims, has %d.", k + 1,
                k + 2, nd);
    ACLNN_CHECK(padding->size == (uint64_t)(2 * k), ACLNN_ERR_PARAM_INVALID, "padding must have %d entries, has %llu.",
                2 * k, (unsigned long long)padding->size);
    int64_t want[ACL_MAX_VIEW_RANK], lo[3];
    for (int d = 0; d < nd; d++) want[d] = self->dims[d];
    for (int j = 0; j < k; j++) { /* padding: (left, right) of the last dim first */
        int d = nd - 1 - j;
        int64_t l = padding->v[2 * j], r = padding->v[2 * j + 1], n = self->dims[d];
        if (mode == PAD_REFLECT)
            ACLNN_CHECK(l < n && r < n && l >= 0 && r >= 0, ACLNN_ERR_PARAM_INVALID,
                        "padding (%lld, %lld) must be non-negative and less than the dim size %lld.", (long long)l,
                        (long long)r, (long long)n);
        if (mode == PAD_CIRCULAR)
            ACLNN_CHECK(l <= n && r <= n, ACLNN_ERR_PARAM_INVALID,
                        "padding (%lld, %lld) must not exceed the dim size %lld.", (long long)l, (long long)r,
                        (long long)n);
        ACLNN_CHECK(n > 0 || (l == 0 && r == 0), ACLNN_ERR_PARAM_INVALID, "a padded dim of self is empty.");
        want[d] = n + l + r;
        ACLNN_CHECK(want[d] >= 0, ACLNN_ERR_PARAM_INVALID, "the padded size of dim %d is negative.", d);
        lo[k - 1 - j] = l;
    }
    const aclTensor *big = backward ? gradOutput : out;
    bool same = (int)big->ndim == nd;
    for (int d = 0; same && d < nd; d++) same = big->dims[d] == want[d];
    ACLNN_CHECK(same, ACLNN_ERR_PARAM_INVALID, "%s has the wrong shape for this padding.",
                backward ? "gradOutput" : "out");
    if (backward) ACL_TRY(acl_check_same_shape(self, "self", out, "gradInput"));
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, pad_run, sizeof(pad_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = pad_free;
    pad_params *p = ex->params;
    p->k = k;
    p->nd = nd;
    p->backward = backward;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int j = 0; j < k && !rc; j++) {
        int d = nd - k + j;
        int64_t n = self->dims[d], on = want[d];
        p->in_n[j] = n;
        p->out_n[j] = on;
        p->map[j] = malloc(sizeof(int64_t) * (size_t)(on ? on : 1));
        if (!p->map[j]) rc = ACL_REPORT(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
        for (int64_t o = 0; !rc && o < on; o++) p->map[j][o] = map_index(mode, o, lo[j], n);
        if (!rc && backward) { /* CSR inverse: for each input index, the out indices mapping to it, ascending */
            p->start[j] = calloc((size_t)n + 1, sizeof(int64_t));
            p->list[j] = malloc(sizeof(int64_t) * (size_t)(on ? on : 1));
            if (!p->start[j] || !p->list[j]) {
                rc = ACL_REPORT(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory");
                break;
            }
            for (int64_t o = 0; o < on; o++) p->start[j][p->map[j][o] + 1]++;
            for (int64_t i = 0; i < n; i++) p->start[j][i + 1] += p->start[j][i];
            int64_t *fill = calloc((size_t)n + 1, sizeof(int64_t));
            if (!fill) { rc = ACL_REPORT(ACLNN_ERR_INNER_CREATE_EXECUTOR, "out of memory"); break; }
            for (int64_t o = 0; o < on; o++) {
                int64_t i = p->map[j][o];
                p->list[j][p->start[j][i] + fill[i]++] = o;
            }
            free(fill);
        }
    }
    if (!rc) rc = acl_exec_add_input(ex, backward ? gradOutput : self, backward ? "gradOutput" : "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, backward ? "gradInput" : "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

#define PAD_FWD(NAME, MODE, K)                                                                                     \
    aclnnStatus opws_##NAME(const aclTensor *self, const aclIntArray *padding, aclTensor *out,                     \
                            uint64_t *workspaceSize, aclOpExecutor **executor) {                                   \
        return pad_common(ACL_OP_##NAME, MODE, K, false, NULL, self, padding, out, workspaceSize, executor);       \
    }
#define PAD_BWD(NAME, MODE, K)                                                                                     \
    aclnnStatus opws_##NAME(const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *padding,        \
                            aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {             \
        return pad_common(ACL_OP_##NAME, MODE, K, true, gradOutput, self, padding, gradInput, workspaceSize,       \
                          executor);                                                                               \
    }

PAD_FWD(ReflectionPad1d, PAD_REFLECT, 1)
PAD_FWD(ReflectionPad2d, PAD_REFLECT, 2)
PAD_FWD(ReflectionPad3d, PAD_REFLECT, 3)
PAD_FWD(ReplicationPad1d, PAD_REPLICATE, 1)
PAD_FWD(ReplicationPad2d, PAD_REPLICATE, 2)
PAD_FWD(ReplicationPad3d, PAD_REPLICATE, 3)
PAD_FWD(CircularPad2d, PAD_CIRCULAR, 2)
PAD_FWD(CircularPad3d, PAD_CIRCULAR, 3)
PAD_BWD(ReflectionPad1dBackward, PAD_REFLECT, 1)
PAD_BWD(ReflectionPad2dBackward, PAD_REFLECT, 2)
PAD_BWD(ReflectionPad3dBackward, PAD_REFLECT, 3)
PAD_BWD(ReplicationPad1dBackward, PAD_REPLICATE, 1)
PAD_BWD(ReplicationPad2dBackward, PAD_REPLICATE, 2)
PAD_BWD(ReplicationPad3dBackward, PAD_REPLICATE, 3)
PAD_BWD(CircularPad2dBackward, PAD_CIRCULAR, 2)
PAD_BWD(CircularPad3dBackward, PAD_CIRCULAR, 3)
