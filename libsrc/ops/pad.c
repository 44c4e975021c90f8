/* Reflection / replication / circular padding over the last 1, 2 or 3 dims, and their backward passes.
 *
 * Validation follows each op family of ops-math conversion/ in its own order (the reflection forward ops of
 * mirror_pad, the replication forward ops of pad_v3, the circular ops, and the three backward families), see
 * check_forward / check_backward. The compute is one index map per padded dim (out index -> input index):
 * the forward is a byte gather (exact for every dtype, complex included); the backward is the same map inverted
 * into per-dim lists (input index -> the out indices reading it), so each gradInput element is a gather summed
 * in a fixed order (double / complex double accumulation, one rounding): no scatter, no atomics, the same bytes
 * for any thread count. */
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "ops/gen/all_ops.h"
#include "ops/ops.h"

enum { PAD_REFLECT, PAD_REPLICATE, PAD_CIRCULAR };

typedef struct {
    int k;                          /* padded dims: the last k of the tensor */
    int nd;
    int64_t *map[3];                /* per padded dim: out index -> in index */
    int64_t *start[3], *list[3];    /* backward: CSR of in index -> out indices */
    int64_t in_n[3], out_n[3];
    bool backward, cplx;
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

/* Out index o of a dim padded by (lo, hi) over n > 0 input elements -> input index, PyTorch's semantics for every
 * padding the op lets through. A negative padding crops. Replication clamps to the edges of the input. Reflection
 * reflects about the edges of the input; the validation keeps lo, hi < n, so an index stays within one period as
 * in PyTorch's formula. Circular wraps within the cropped input [max(0, -lo), n - max(0, -hi)) of m elements
 * (pad_common refuses m <= 0 with a non-empty out) and, unlike PyTorch, for any padding (the op_api does not bound
 * it): the index is taken modulo m. */
static int64_t map_index(int mode, int64_t o, int64_t lo, int64_t hi, int64_t n) {
    int64_t i;
    if (__builtin_sub_overflow(o, lo, &i)) i = INT64_MAX; /* o >= 0: only a lo near INT64_MIN overflows */
    if (mode == PAD_REPLICATE) return i < 0 ? 0 : (i >= n ? n - 1 : i);
    if (mode == PAD_CIRCULAR) {
        int64_t cs = lo < 0 ? -lo : 0, m = n + (lo < 0 ? lo : 0) + (hi < 0 ? hi : 0);
        int64_t j = o - (lo > 0 ? lo : 0);
        return cs + ((j % m) + m) % m;
    }
    if (n == 1) return 0;
    int64_t period = 2 * (n - 1);
    i = ((i % period) + period) % period;
    return i < n ? i : period - i;
}

/* the dst row t -> offsets of src and dst (leading dims then the padded dims above the last) */
static void row_offsets(const pad_params *p, const acl_view *src, const acl_view *dst, int64_t t, int64_t *so,
                        int64_t *dof, int64_t *idx) {
    const int nd = p->nd, k = p->k;
    *so = 0;
    *dof = 0;
    for (int d = nd - 2; d >= 0; d--) {
        int64_t i = t % dst->dims[d];
        t /= dst->dims[d];
        *dof += i * dst->strides[d];
        if (d < nd - k) {
            *so += i * src->strides[d];
        } else {
            idx[d - (nd - k)] = i;
            if (!p->backward) *so += p->map[d - (nd - k)][i] * src->strides[d];
        }
    }
}

static void copy_elem(char *d, const char *s, size_t es) {
    switch (es) {
    case 1: *d = *s; break;
    case 2: memcpy(d, s, 2); break;
    case 4: memcpy(d, s, 4); break;
    case 8: memcpy(d, s, 8); break;
    default: memcpy(d, s, es); break;
    }
}

static aclnnStatus pad_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const pad_params *p = ex->params;
    const int k = p->k, nd = p->nd, L = k - 1;
    /* forward: src = self (io 0), dst = out; backward: src = gradOutput (io 0), dst = gradInput */
    const acl_view *src = acl_exec_in(ex, 0), *dst = acl_exec_out(ex, 0);
    const int64_t W = dst->dims[nd - 1], WS = src->dims[nd - 1];
    int64_t rows = 1;
    for (int d = 0; d < nd - 1; d++) rows *= dst->dims[d];
    const size_t es = acl_dtype_size(src->dtype);
    const int64_t ss = src->strides[nd - 1], ds = dst->strides[nd - 1];
    const aclDataType acc_dt = p->cplx ? ACL_COMPLEX128 : ACL_DOUBLE;
    const int w2 = p->cplx ? 2 : 1;
    int64_t work = rows * W;
    if (p->backward) work = rows * (W + WS) * 4;
    bool oom = false;
#pragma omp parallel if (acl_parallel_worth(work)) reduction(|| : oom)
    {
        double *acc = NULL, *tmp = NULL;
        if (p->backward) {
            acc = malloc(sizeof(double) * (size_t)(W * w2));
            tmp = malloc(sizeof(double) * (size_t)(WS * w2));
            if (!acc || !tmp) oom = true;
        }
#pragma omp for schedule(static)
        for (int64_t t = 0; t < rows; t++) {
            if (p->backward && (!acc || !tmp)) continue;
            int64_t so, dof, idx[3] = {0, 0, 0};
            row_offsets(p, src, dst, t, &so, &dof, idx);
            if (!p->backward) {
                const char *sb = src->base + so * (int64_t)es;
                char *db = dst->base + dof * (int64_t)es;
                for (int64_t w = 0; w < W; w++)
                    copy_elem(db + w * ds * (int64_t)es, sb + p->map[L][w] * ss * (int64_t)es, es);
                continue;
            }
            memset(acc, 0, sizeof(double) * (size_t)(W * w2));
            /* sum over the product of the per-dim lists of the dims above the last, in index order */
            int64_t c0 = k > 1 ? p->start[0][idx[0]] : 0, c0e = k > 1 ? p->start[0][idx[0] + 1] : 1;
            for (int64_t a0 = c0; a0 < c0e; a0++) {
                int64_t off0 = so + (k > 1 ? p->list[0][a0] * src->strides[nd - k] : 0);
                int64_t c1 = k > 2 ? p->start[1][idx[1]] : 0, c1e = k > 2 ? p->start[1][idx[1] + 1] : 1;
                for (int64_t a1 = c1; a1 < c1e; a1++) {
                    int64_t off1 = off0 + (k > 2 ? p->list[1][a1] * src->strides[nd - k + 1] : 0);
                    acl_convert(src->base + off1 * (int64_t)es, src->dtype, ss, tmp, acc_dt, 1, WS);
                    for (int64_t w = 0; w < W; w++)
                        for (int64_t a2 = p->start[L][w]; a2 < p->start[L][w + 1]; a2++) {
                            int64_t o = p->list[L][a2];
                            acc[w * w2] += tmp[o * w2];
                            if (w2 == 2) acc[w * 2 + 1] += tmp[o * 2 + 1];
                        }
                }
            }
            acl_convert(acc, acc_dt, 1, dst->base + dof * (int64_t)es, dst->dtype, ds, W);
        }
        free(acc);
        free(tmp);
    }
    return oom ? ACL_REPORT(ACLNN_ERR_INNER, "out of memory") : ACLNN_SUCCESS;
}

/* ---------------------------------------------------------------- validation ---------------------------- */

enum { FAM_REFLECT_FWD, FAM_REPLICATE_FWD, FAM_CIRCULAR_FWD, FAM_GRAD, FAM_CIRCULAR_GRAD };

typedef struct {
    int family, mode, k;
    const aclDataType *dts;
    int ndt;
} pad_spec;


/* n + l + r of a padded dim, or -1 when it does not fit (no real tensor has that size) */
static int64_t padded(int64_t n, int64_t l, int64_t r) {
    int64_t s;
    if (!acl_add_i64(n, l, &s) || !acl_add_i64(s, r, &s)) return -1;
    return s;
}

/* padding (l, r) pairs, the last dim first: each value less than its dim (reflection; circular 3d backward) */
static aclnnStatus check_pad_lt_dims(const aclTensor *self, const aclIntArray *padding, int k) {
    const int nd = (int)self->ndim;
    for (int j = 0; j < k; j++)
        ACLNN_CHECK(padding->v[2 * j] < self->dims[nd - 1 - j] && padding->v[2 * j + 1] < self->dims[nd - 1 - j],
                    ACLNN_ERR_PARAM_INVALID,
                    "padding (%lld, %lld) must be less than the size %lld of dim %d of self.",
                    (long long)padding->v[2 * j], (long long)padding->v[2 * j + 1], (long long)self->dims[nd - 1 - j],
                    nd - 1 - j);
    return ACLNN_SUCCESS;
}

/* the padded dims of `big` are self's plus the padding */
static aclnnStatus check_padded_dims(const aclTensor *big, const char *name, const aclTensor *self,
                                     const aclIntArray *padding, int k) {
    const int nd = (int)self->ndim;
    for (int j = 0; j < k; j++) {
        int d = nd - 1 - j;
        ACLNN_CHECK(big->dims[d] == padded(self->dims[d], padding->v[2 * j], padding->v[2 * j + 1]),
                    ACLNN_ERR_PARAM_INVALID, "wrong %s shape: dim %d is %lld, self's %lld padded by (%lld, %lld).",
                    name, d, (long long)big->dims[d], (long long)self->dims[d], (long long)padding->v[2 * j],
                    (long long)padding->v[2 * j + 1]);
    }
    return ACLNN_SUCCESS;
}

/* the unpadded (leading) dims of `big` are self's */
static aclnnStatus check_lead_dims(const aclTensor *big, const char *name, const aclTensor *self, int k) {
    for (int d = 0; d < (int)self->ndim - k; d++)
        ACLNN_CHECK(big->dims[d] == self->dims[d], ACLNN_ERR_PARAM_INVALID,
                    "wrong %s shape: dim %d is %lld, self has %lld.", name, d, (long long)big->dims[d],
                    (long long)self->dims[d]);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_rank(const aclTensor *self, int k) {
    ACLNN_CHECK(self->ndim >= (uint64_t)(k + 1), ACLNN_ERR_PARAM_INVALID,
                "self must have at least %d dims, has %llu.", k + 1, (unsigned long long)self->ndim);
    ACLNN_CHECK(self->ndim <= (uint64_t)(k + 2), ACLNN_ERR_PARAM_INVALID,
                "self must have at most %d dims, has %llu.", k + 2, (unsigned long long)self->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_padding_len(const aclIntArray *padding, int k) {
    ACLNN_CHECK(padding->size == (uint64_t)(2 * k), ACLNN_ERR_PARAM_INVALID,
                "padding length should be %d, but got %llu.", 2 * k, (unsigned long long)padding->size);
    return ACLNN_SUCCESS;
}

static bool any_zero_from(const aclTensor *t, int first) {
    for (int d = first; d < (int)t->ndim; d++)
        if (t->dims[d] == 0) return true;
    return false;
}

/* forward: (self, padding, out). Returns 0 to go on, 1 for the empty early success, or a status. */
static aclnnStatus check_forward(const pad_spec *s, const aclTensor *self, const aclIntArray *padding,
                                 const aclTensor *out, bool *empty) {
    const int k = s->k;
    NN(self, "self");
    ACL_TRY(acl_check_int_array(padding, "padding"));
    NN(out, "out");
    bool fmt_first = s->family == FAM_REPLICATE_FWD && k == 2; /* aclnnReplicationPad2d checks formats first */
    if (fmt_first)
        ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                    "Format of self [%s] and out [%s] should be equal.", acl_format_name(self->format),
                    acl_format_name(out->format));
    ACL_TRY(acl_check_dtype_in(self, s->dts, s->ndt, "self"));
    ACL_TRY(acl_check_dtype_in(out, s->dts, s->ndt, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    if (s->family == FAM_CIRCULAR_FWD)
        ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID,
                    "self format %s is not supported: ND, NCHW, NHWC, HWCN, NDHWC, NCDHW or NCL.",
                    acl_format_name(self->format));
    if (!fmt_first)
        ACLNN_CHECK(self->format == out->format, ACLNN_ERR_PARAM_INVALID,
                    "Format of self [%s] and out [%s] should be equal.", acl_format_name(self->format),
                    acl_format_name(out->format));
    ACL_TRY(check_rank(self, k));
    ACLNN_CHECK(out->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID, "self and out must have the same rank (%llu, %llu).",
                (unsigned long long)self->ndim, (unsigned long long)out->ndim);
    ACL_TRY(check_padding_len(padding, k));
    if (s->family == FAM_REFLECT_FWD) {
        /* mirror_pad: the padding range, then the padded dims of out; the leading dims after the compute */
        ACL_TRY(check_pad_lt_dims(self, padding, k));
        ACL_TRY(check_padded_dims(out, "out", self, padding, k));
    } else {
        ACL_TRY(check_lead_dims(out, "out", self, k));
        ACL_TRY(check_padded_dims(out, "out", self, padding, k));
    }
    if (acl_tensor_empty(self) || acl_tensor_empty(out)) {
        ACLNN_CHECK(self->ndim == (uint64_t)(k + 2) && !any_zero_from(self, 1), ACLNN_ERR_PARAM_INVALID,
                    "Expected %dD or %dD self with possibly 0 batch size and other non-zero dimensions.", k + 1,
                    k + 2);
        *empty = true;
        return ACLNN_SUCCESS;
    }
    if (s->family == FAM_REFLECT_FWD) ACL_TRY(check_lead_dims(out, "out", self, k));
    return ACLNN_SUCCESS;
}

/* backward: (gradOutput, self, padding, gradInput) */
static aclnnStatus check_backward(const pad_spec *s, const aclTensor *go, const aclTensor *self,
                                  const aclIntArray *padding, const aclTensor *gi, bool *empty) {
    const int k = s->k;
    if (s->family == FAM_CIRCULAR_GRAD && k == 3) {
        /* aclnnCircularPad3dBackward reports a NULL argument as an inner null pointer */
        const void *objs[] = {go, self, padding, gi};
        const char *names[] = {"gradOutput", "self", "padding", "gradInput"};
        for (int i = 0; i < 4; i++)
            ACLNN_CHECK(objs[i] != NULL, ACLNN_ERR_INNER_NULLPTR, "%s must not be NULL.", names[i]);
    }
    NN(go, "gradOutput");
    NN(self, "self");
    ACL_TRY(acl_check_int_array(padding, "padding"));
    NN(gi, "gradInput");
    ACL_TRY(acl_check_dtype_in(go, s->dts, s->ndt, "gradOutput"));
    ACL_TRY(acl_check_dtype_in(self, s->dts, s->ndt, "self"));
    ACL_TRY(acl_check_dtype_in(gi, s->dts, s->ndt, "gradInput"));
    ACL_TRY(acl_check_same_dtype(self, "self", go, "gradOutput"));
    ACL_TRY(acl_check_same_dtype(self, "self", gi, "gradInput"));
    ACLNN_CHECK(!acl_format_is_private(go->format), ACLNN_ERR_PARAM_INVALID, "gradOutput format %s is not supported.",
                acl_format_name(go->format));
    if (s->family == FAM_GRAD) {
        ACLNN_CHECK(!acl_format_is_private(self->format), ACLNN_ERR_PARAM_INVALID, "self format %s is not supported.",
                    acl_format_name(self->format));
        ACLNN_CHECK(!acl_format_is_private(gi->format), ACLNN_ERR_PARAM_INVALID, "gradInput format %s is not supported.",
                    acl_format_name(gi->format));
    }
    ACLNN_CHECK(go->format == self->format && go->format == gi->format, ACLNN_ERR_PARAM_INVALID,
                "Format of gradOutput [%s], self [%s] and gradInput [%s] should be equal.", acl_format_name(go->format),
                acl_format_name(self->format), acl_format_name(gi->format));
    ACL_TRY(acl_check_same_shape(self, "self", gi, "gradInput"));
    ACL_TRY(check_rank(self, k));
    ACLNN_CHECK(go->ndim == self->ndim && gi->ndim == self->ndim, ACLNN_ERR_PARAM_INVALID,
                "gradOutput, self and gradInput must have the same rank.");
    ACL_TRY(check_padding_len(padding, k));
    const bool reflect = s->mode == PAD_REFLECT;
    if (k == 1) {
        ACL_TRY(check_padded_dims(go, "gradOutput", self, padding, k));
        if (reflect) ACL_TRY(check_pad_lt_dims(self, padding, k));
    } else {
        if (reflect || (s->family == FAM_CIRCULAR_GRAD && k == 3)) ACL_TRY(check_pad_lt_dims(self, padding, k));
        if (s->family == FAM_GRAD && k == 2 && go->dtype == ACL_BF16) {
            /* bf16 of the 2d backward: non-negative paddings, and at most 7 unless the H dim is not padded */
            const int64_t *v = padding->v;
            bool ok = v[0] >= 0 && v[1] >= 0 && v[2] >= 0 && v[3] >= 0 &&
                      ((v[2] == 0 && v[3] == 0) || (v[0] <= 7 && v[1] <= 7 && v[2] <= 7 && v[3] <= 7));
            ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID,
                        "bf16 gradOutput supports padding values in [0, 7], or an unpadded H dim, got padding "
                        "(%lld, %lld, %lld, %lld).", (long long)v[0], (long long)v[1], (long long)v[2],
                        (long long)v[3]);
        }
        ACL_TRY(check_padded_dims(go, "gradOutput", self, padding, k));
    }
    if (acl_tensor_empty(go) || acl_tensor_empty(self) || acl_tensor_empty(gi)) {
        bool bad;
        const int nd = (int)self->ndim;
        if (nd == k + 2) bad = any_zero_from(self, 1);
        else if (k == 3) bad = true;                                     /* 4-d self */
        else if (k == 2) bad = any_zero_from(self, 1) || (s->family == FAM_GRAD && !reflect);
        else bad = !reflect || any_zero_from(self, 1);                   /* 2-d self of the 1d ops */
        ACLNN_CHECK(!bad, ACLNN_ERR_PARAM_INVALID,
                    "self %s be empty: only a 0 batch size of a %dD self is allowed.", "must not", k + 2);
        *empty = true;
        return ACLNN_SUCCESS;
    }
    /* The upstream ops compare only the padded dims of gradOutput; a gradOutput whose leading dims differ from
     * self's has no meaning (its result could not be copied to gradInput), so it is refused here. */
    ACL_TRY(check_lead_dims(go, "gradOutput", self, k));
    return ACLNN_SUCCESS;
}

static aclnnStatus pad_common(int op, const pad_spec *s, bool backward, const aclTensor *gradOutput,
                              const aclTensor *self, const aclIntArray *padding, aclTensor *out, uint64_t *ws,
                              aclOpExecutor **exo) {
    bool empty = false;
    if (backward) ACL_TRY(check_backward(s, gradOutput, self, padding, out, &empty));
    else ACL_TRY(check_forward(s, self, padding, out, &empty));
    if (empty) return acl_exec_noop(op, ws, exo);
    const int k = s->k, nd = (int)self->ndim;
    aclOpExecutor *ex = acl_exec_create(op, pad_run, sizeof(pad_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ex->free_params = pad_free;
    aclnnStatus rc = acl_exec_add_input(ex, backward ? gradOutput : self, backward ? "gradOutput" : "self", true);
    if (!rc) rc = acl_exec_add_output(ex, out, backward ? "gradInput" : "out");
    if (rc) return acl_exec_discard(ex, rc);
    pad_params *p = ex->params;
    p->k = k;
    p->nd = nd;
    p->backward = backward;
    p->cplx = acl_dt_is_complex(self->dtype);
    const aclTensor *big = backward ? gradOutput : out;
    for (int j = 0; j < k && !rc; j++) {
        int d = nd - k + j;
        int64_t n = self->dims[d], on = big->dims[d], lo = padding->v[2 * (k - 1 - j)],
                hi = padding->v[2 * (k - 1 - j) + 1];
        if (s->mode == PAD_CIRCULAR && n + acl_min_i64(lo, 0) + acl_min_i64(hi, 0) <= 0) {
            /* nothing is left to wrap around: the op_api lets it through, the kernel has no defined result */
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID,
                            "padding (%lld, %lld) crops all %lld elements of dim %d of self: nothing to wrap.",
                            (long long)lo, (long long)hi, (long long)n, d);
            break;
        }
        p->in_n[j] = n;
        p->out_n[j] = on;
        p->map[j] = malloc(sizeof(int64_t) * (size_t)on);
        if (!p->map[j]) {
            rc = OOM;
            break;
        }
        for (int64_t o = 0; o < on; o++) p->map[j][o] = map_index(s->mode, o, lo, hi, n);
        if (!backward) continue;
        /* CSR inverse: for each input index, the out indices mapping to it, ascending */
        p->start[j] = calloc((size_t)n + 1, sizeof(int64_t));
        p->list[j] = malloc(sizeof(int64_t) * (size_t)on);
        int64_t *fill = calloc((size_t)n + 1, sizeof(int64_t));
        if (!p->start[j] || !p->list[j] || !fill) {
            free(fill);
            rc = OOM;
            break;
        }
        for (int64_t o = 0; o < on; o++) p->start[j][p->map[j][o] + 1]++;
        for (int64_t i = 0; i < n; i++) p->start[j][i + 1] += p->start[j][i];
        for (int64_t o = 0; o < on; o++) {
            int64_t i = p->map[j][o];
            p->list[j][p->start[j][i] + fill[i]++] = o;
        }
        free(fill);
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

#define PAD_FWD(NAME, FAM, MODE, K)                                                                                \
    aclnnStatus opws_##NAME(const aclTensor *self, const aclIntArray *padding, aclTensor *out,                     \
                            uint64_t *workspaceSize, aclOpExecutor **executor) {                                   \
        const pad_spec s = {FAM, MODE, K, ACL_DT_LIST_##NAME};                                              \
        return pad_common(ACL_OP_##NAME, &s, false, NULL, self, padding, out, workspaceSize, executor);            \
    }
#define PAD_BWD(NAME, FAM, MODE, K)                                                                                \
    aclnnStatus opws_##NAME(const aclTensor *gradOutput, const aclTensor *self, const aclIntArray *padding,        \
                            aclTensor *gradInput, uint64_t *workspaceSize, aclOpExecutor **executor) {             \
        const pad_spec s = {FAM, MODE, K, ACL_DT_LIST_##NAME};                                              \
        return pad_common(ACL_OP_##NAME, &s, true, gradOutput, self, padding, gradInput, workspaceSize, executor); \
    }

PAD_FWD(ReflectionPad1d, FAM_REFLECT_FWD, PAD_REFLECT, 1)
PAD_FWD(ReflectionPad2d, FAM_REFLECT_FWD, PAD_REFLECT, 2)
PAD_FWD(ReflectionPad3d, FAM_REFLECT_FWD, PAD_REFLECT, 3)
PAD_FWD(ReplicationPad1d, FAM_REPLICATE_FWD, PAD_REPLICATE, 1)
PAD_FWD(ReplicationPad2d, FAM_REPLICATE_FWD, PAD_REPLICATE, 2)
PAD_FWD(ReplicationPad3d, FAM_REPLICATE_FWD, PAD_REPLICATE, 3)
PAD_FWD(CircularPad2d, FAM_CIRCULAR_FWD, PAD_CIRCULAR, 2)
PAD_FWD(CircularPad3d, FAM_CIRCULAR_FWD, PAD_CIRCULAR, 3)
PAD_BWD(ReflectionPad1dBackward, FAM_GRAD, PAD_REFLECT, 1)
PAD_BWD(ReflectionPad2dBackward, FAM_GRAD, PAD_REFLECT, 2)
PAD_BWD(ReflectionPad3dBackward, FAM_GRAD, PAD_REFLECT, 3)
PAD_BWD(ReplicationPad1dBackward, FAM_GRAD, PAD_REPLICATE, 1)
PAD_BWD(ReplicationPad2dBackward, FAM_GRAD, PAD_REPLICATE, 2)
PAD_BWD(ReplicationPad3dBackward, FAM_GRAD, PAD_REPLICATE, 3)
PAD_BWD(CircularPad2dBackward, FAM_CIRCULAR_GRAD, PAD_CIRCULAR, 2)
PAD_BWD(CircularPad3dBackward, FAM_CIRCULAR_GRAD, PAD_CIRCULAR, 3)
