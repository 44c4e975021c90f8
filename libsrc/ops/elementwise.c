/* The elementwise engine (see elementwise.h). */
#include "ops/elementwise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "meta/meta.h"

#define EW_CHUNK 2048 /* elements per work item along the innermost dimension */

static const aclDataType k_class_dt[EW_NCLASS] = {ACL_FLOAT, ACL_DOUBLE, ACL_INT64, ACL_COMPLEX64, ACL_COMPLEX128};

static int class_of(aclDataType d) {
    switch (d) {
    case ACL_FLOAT: case ACL_FLOAT16: case ACL_BF16: return EW_F32;
    case ACL_DOUBLE: return EW_F64;
    case ACL_COMPLEX64: return EW_C64;
    case ACL_COMPLEX128: return EW_C128;
    default: return acl_dt_is_int(d) || d == ACL_BOOL ? EW_I64 : -1;
    }
}

typedef struct {
    ew_kernel k;
    int nin;
    aclDataType cdt, rdt;           /* compute dtype of the inputs, result dtype of the kernel */
    int ndim;                       /* coalesced iteration rank, >= 1 */
    int64_t dims[ACL_MAX_VIEW_RANK];
    int64_t st[EW_MAX_ARGS][ACL_MAX_VIEW_RANK]; /* element strides per operand: inputs, then out */
    bool flat[EW_MAX_ARGS];         /* the operand is row-major contiguous over the whole iteration space */
    ew_scalars s;
} ew_plan;

static aclnnStatus ew_run(aclOpExecutor *ex, void *ws, uint64_t wss);

/* ---- validation ---- */

static int cat_of(aclDataType d) {
    return d == ACL_BOOL ? 0 : acl_dt_is_int(d) ? 1 : acl_dt_is_float(d) ? 2 : 3;
}

static bool in_list(aclDataType dt, const aclDataType *l, int n) {
    for (int i = 0; i < n; i++)
        if (l[i] == dt) return true;
    return false;
}

static void list_str(const aclDataType *l, int n, char *buf, size_t cap) {
    size_t used = 0;
    buf[0] = 0;
    for (int i = 0; i < n && used + 16 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "[", acl_dtype_name(l[i]));
    if (used + 2 < cap) snprintf(buf + used, cap - used, "]");
}

static void dims_str(const int64_t *d, int n, char *buf, size_t cap) {
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && used + 24 < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? ", " : "", (long long)d[i]);
    snprintf(buf + used, cap - used, "]");
}

static aclnnStatus check_dtype_list(const aclDataType *l, int n, const aclTensor *t, const char *name) {
    if (in_list(t->dtype, l, n)) return ACLNN_SUCCESS;
    char buf[256];
    list_str(l, n, buf, sizeof buf);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
                      acl_dtype_name(t->dtype), buf);
}

static aclnnStatus check_dtype(const ew_desc *d, const aclTensor *t, const char *name) {
    return check_dtype_list(d->dtypes, d->n_dtypes, t, name);
}

/* The promoted dtype of the tensor inputs, then the scalars as PyTorch's wrapped numbers (a scalar changes the
 * result only when its category - bool < integer < float < complex - is higher than the tensors'). */
static aclDataType promote_all(const ew_desc *d, const void *const *args) {
    aclDataType t = ACL_DT_UNDEFINED;
    for (int i = 0; i < d->nargs; i++) {
        if ((d->kind[i] != EW_ARG_TENSOR && d->kind[i] != EW_ARG_INOUT) || (d->no_promote >> i & 1u)) continue;
        aclDataType x = ((const aclTensor *)args[i])->dtype;
        t = t == ACL_DT_UNDEFINED ? x : acl_promote(t, x);
        if (t == ACL_DT_UNDEFINED) return t;
    }
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_SCALAR || args[i] == NULL || !(d->scalar_promote >> i & 1u)) continue;
        aclDataType s = ((const aclScalar *)args[i])->dtype;
        if (!acl_dt_known(s)) return ACL_DT_UNDEFINED;
        if (t == ACL_DT_UNDEFINED) { t = s; continue; }
        int cs = cat_of(s), ct = cat_of(t);
        if (cs <= ct) continue;
        if (cs == 3) t = ct == 2 ? acl_to_complex(t) : ACL_COMPLEX64;
        else if (cs == 2) t = ACL_FLOAT;
        else t = ACL_INT64;
    }
    return t;
}

static aclnnStatus check_shapes(const ew_desc *d, const void *const *args, int64_t *bdims, int *bnd) {
    int nd = 0;
    for (int i = 0; i < ACL_MAX_VIEW_RANK; i++) bdims[i] = 1;
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_TENSOR && d->kind[i] != EW_ARG_INOUT) continue;
        const aclTensor *t = args[i];
        ACLNN_CHECK(t->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                    "%s has %llu dims; the dim of a tensor should be at most %d.", d->name[i],
                    (unsigned long long)t->ndim, ACL_MAX_VIEW_RANK);
        ACL_TRY(acl_check_nonneg_dims(t, d->name[i]));
        int n = (int)t->ndim;
        if (n > nd) {
            /* right-align the dims seen so far */
            int64_t tmp[ACL_MAX_VIEW_RANK];
            for (int k = 0; k < n; k++) tmp[k] = k < n - nd ? 1 : bdims[k - (n - nd)];
            memcpy(bdims, tmp, sizeof(int64_t) * (size_t)n);
            nd = n;
        }
        for (int k = 0; k < n; k++) {
            int64_t *b = &bdims[nd - n + k];
            int64_t x = t->dims[k];
            if (x == *b || x == 1) continue;
            if (*b == 1) { *b = x; continue; }
            char s1[200], s2[200];
            dims_str(bdims, nd, s1, sizeof s1);
            dims_str(t->dims, n, s2, sizeof s2);
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s can not broadcast with %s.", d->name[i], s2, s1);
        }
    }
    *bnd = nd;
    return ACLNN_SUCCESS;
}

aclnnStatus ew_get_workspace(const ew_desc *d, const void *const *args, const double *attr_f, const int64_t *attr_i,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    acl_set_api(acl_op_ws_name(d->op));
    /* 0. as opbase's L2_DFX_PHASE_1, before the op's own checks */
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    int iout = -1;
    /* 1. null pointers, API order */
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] == EW_ARG_ATTR) continue;
        if (d->kind[i] == EW_ARG_SCALAR) {
            if (args[i] == NULL && (d->optional >> i & 1u)) continue;
            ACLNN_CHECK(args[i] != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", d->name[i]);
            ACLNN_CHECK(acl_reg_is(args[i], ACL_KIND_SCALAR), ACLNN_ERR_PARAM_INVALID,
                        "%s is not a live aclScalar.", d->name[i]);
        } else {
            ACL_TRY(acl_check_tensor(args[i], d->name[i]));
        }
        if (d->kind[i] == EW_ARG_OUT || d->kind[i] == EW_ARG_INOUT) iout = i;
    }
    const aclTensor *out = args[iout];
    /* 2. dtype support of the tensor inputs (and of the aclScalar arguments that have their own list), API order */
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] == EW_ARG_SCALAR && args[i] && d->arg_dtypes[i]) {
            const aclDataType s = ((const aclScalar *)args[i])->dtype;
            if (!in_list(s, d->arg_dtypes[i], d->n_arg_dtypes[i])) {
                char buf[256];
                list_str(d->arg_dtypes[i], d->n_arg_dtypes[i], buf, sizeof buf);
                return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.",
                                  d->name[i], acl_dtype_name(s), buf);
            }
            continue;
        }
        if (d->kind[i] != EW_ARG_TENSOR && d->kind[i] != EW_ARG_INOUT) continue;
        if (d->arg_dtypes[i]) ACL_TRY(check_dtype_list(d->arg_dtypes[i], d->n_arg_dtypes[i], args[i], d->name[i]));
        else ACL_TRY(check_dtype(d, args[i], d->name[i]));
    }
    /* 3. promotion, compute type, result type -> out */
    aclDataType p = promote_all(d, args);
    ACLNN_CHECK(p != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "the input dtypes can not promote to a common dtype.");
    aclDataType cdt = p;
    if (d->compute == EW_COMPUTE_FLOAT && (acl_dt_is_int(p) || p == ACL_BOOL)) cdt = ACL_FLOAT;
    int cls = class_of(cdt);
    ACLNN_CHECK(cls >= 0 && d->k[cls] != NULL, ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s is not supported by %s.", acl_dtype_name(cdt), acl_op_name(d->op));
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_SCALAR || args[i] == NULL) continue;
        aclDataType s = ((const aclScalar *)args[i])->dtype;
        ACLNN_CHECK(acl_dt_known(s), ACLNN_ERR_PARAM_INVALID, "%s has dtype %d, which is not a numeric dtype.",
                    d->name[i], (int)s);
        if (!d->scalar_cast_check) continue;
        ACLNN_CHECK(acl_dt_known(s) && (acl_can_cast(s, cdt) || (cdt == ACL_BOOL && acl_dt_is_int(s))),
                    ACLNN_ERR_PARAM_INVALID, "%s dtype %s can't be cast to the promote dtype %s.", d->name[i],
                    acl_dtype_name(s), acl_dtype_name(cdt));
    }
    aclDataType rdt = d->result == EW_RESULT_BOOL ? ACL_BOOL : d->result == EW_RESULT_REAL ? acl_to_real(cdt)
                      : d->result == EW_RESULT_COMPLEX ? acl_to_complex(cdt) : cdt;
    if (d->out_rule == EW_OUT_LIST && d->kind[iout] == EW_ARG_OUT)
        ACL_TRY(d->out_dtypes ? check_dtype_list(d->out_dtypes, d->n_out_dtypes, out, d->name[iout])
                              : check_dtype(d, out, d->name[iout]));
    if (d->out_rule == EW_OUT_SAME)
        ACLNN_CHECK(out->dtype == rdt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", d->name[iout],
                    acl_dtype_name(out->dtype), acl_dtype_name(rdt));
    ACLNN_CHECK(acl_dt_known(out->dtype) && acl_can_cast(rdt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "the result dtype %s can't be cast to the desired output dtype %s of %s.", acl_dtype_name(rdt),
                acl_dtype_name(out->dtype), d->name[iout]);
    /* 4. shapes: rank <= 8, broadcast, out shape */
    int64_t bd[ACL_MAX_VIEW_RANK];
    int bnd = 0;
    ACL_TRY(check_shapes(d, args, bd, &bnd));
    ACLNN_CHECK(out->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported.",
                d->name[iout], (unsigned long long)out->ndim, ACL_MAX_VIEW_RANK);
    bool same = (int)out->ndim == bnd;
    for (int k = 0; same && k < bnd; k++) same = out->dims[k] == bd[k];
    if (!same) {
        char s1[200], s2[200];
        dims_str(bd, bnd, s1, sizeof s1);
        dims_str(out->dims, (int)out->ndim, s2, sizeof s2);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "Shape of %s should be %s, but current is %s.", d->name[iout], s1, s2);
    }
    /* 5. the op's own rule */
    if (d->check) ACL_TRY(d->check(d, args));

    if (acl_tensor_empty(out)) return acl_exec_noop(d->op, workspaceSize, executor);
    aclOpExecutor *ex = acl_exec_create(d->op, ew_run, sizeof(ew_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ew_plan *pl = ex->params;
    aclnnStatus rc = ACLNN_SUCCESS;
    int ns = 0;
    for (int i = 0; i < d->nargs && rc == ACLNN_SUCCESS; i++) {
        if (d->kind[i] == EW_ARG_TENSOR || d->kind[i] == EW_ARG_INOUT) {
            rc = acl_exec_add_input(ex, args[i], d->name[i], true);
        } else if (d->kind[i] == EW_ARG_ATTR) {
            if (ns < EW_MAX_SCALARS) {
                pl->s.d[ns] = attr_f[i];
                pl->s.i[ns] = attr_i[i];
                pl->s.has[ns] = 1;
            }
            ns++;
        } else if (d->kind[i] == EW_ARG_SCALAR) {
            const aclScalar *s = args[i];
            if (s == NULL) {
                ns++;
                continue;
            }
            if (ns < EW_MAX_SCALARS) {
                double complex c = acl_read_c128(s->bytes, s->dtype);
                pl->s.has[ns] = 1;
                pl->s.d[ns] = creal(c);
                pl->s.di[ns] = cimag(c);
                pl->s.i[ns] = acl_read_i64(s->bytes, s->dtype);
                /* a scalar taken as the (rounded) compute type, as the device converts it */
                if (cdt == ACL_FLOAT16 || cdt == ACL_BF16 || cdt == ACL_FLOAT) {
                    float f = (float)pl->s.d[ns];
                    pl->s.d[ns] = f;
                }
            }
            ns++;
        }
    }
    if (rc == ACLNN_SUCCESS) rc = acl_exec_add_output(ex, out, d->name[iout]);
    if (rc) return acl_exec_discard(ex, rc);
    pl->k = d->k[cls];
    pl->nin = ex->n_in;
    for (int k = 0; k < ex->n_in && k < EW_MAX_ARGS; k++) pl->s.in_dt[k] = ex->io[k].dtype;
    pl->cdt = k_class_dt[cls];
    pl->rdt = d->result == EW_RESULT_BOOL ? ACL_BOOL : d->result == EW_RESULT_REAL ? acl_to_real(k_class_dt[cls])
              : d->result == EW_RESULT_COMPLEX ? acl_to_complex(k_class_dt[cls]) : k_class_dt[cls];
    /* iteration space: out's dims; each operand's strides broadcast against them (0 where broadcast) */
    int nd = (int)out->ndim, nops = ex->n_in + 1;
    int64_t dims[ACL_MAX_VIEW_RANK], st[EW_MAX_ARGS][ACL_MAX_VIEW_RANK];
    for (int k = 0; k < nd; k++) dims[k] = out->dims[k];
    for (int o = 0; o < nops; o++) {
        const acl_view *v = &ex->io[o];
        for (int k = 0; k < nd; k++) {
            int kk = k - (nd - v->ndim);
            st[o][k] = (kk < 0 || v->dims[kk] == 1) ? 0 : v->strides[kk];
        }
    }
    /* coalesce: drop size-1 dims, merge a dim into the next inner one when every operand allows it */
    int m = 0;
    for (int k = 0; k < nd; k++) {
        if (dims[k] == 1) continue;
        if (m > 0) {
            bool merge = true;
            for (int o = 0; o < nops && merge; o++) merge = st[o][m - 1] == st[o][k] * dims[k];
            if (merge) {
                pl->dims[m - 1] *= dims[k];
                for (int o = 0; o < nops; o++) pl->st[o][m - 1] = st[o][k];
                continue;
            }
        }
        pl->dims[m] = dims[k];
        for (int o = 0; o < nops; o++) pl->st[o][m] = st[o][k];
        m++;
    }
    if (m == 0) {
        pl->dims[0] = 1;
        for (int o = 0; o < nops; o++) pl->st[o][0] = 0;
        m = 1;
    }
    pl->ndim = m;
    for (int o = 0; o < nops; o++) {
        int64_t want = 1;
        pl->flat[o] = true;
        for (int k = m - 1; k >= 0; k--) {
            if (pl->dims[k] != 1 && pl->st[o][k] != want) pl->flat[o] = false;
            want *= pl->dims[k];
        }
    }
    return acl_exec_publish(ex, workspaceSize, executor);
}

/* ---- run ---- */

/* The units of work: with a long innermost dimension, pieces of one row (operands that are contiguous there are
 * used in place); with a short one (broadcast shapes such as (N, 4) + (4,)), flat ranges of EW_CHUNK elements that
 * span rows, gathered segment by segment, so the inner loop always runs on a full chunk. */
#define EW_ROW_UNITS_MIN 512

/* Moves `len` elements of operand `k` starting at the flat output index `start` between its memory and `buf` (the
 * compute type `bdt`, contiguous): load (store false) or store. Segment by segment along the innermost dim. */
static void gather(const ew_plan *pl, int k, const acl_view *v, int64_t start, int64_t len, char *buf, bool store,
                   aclDataType bdt) {
    const int nd = pl->ndim;
    const size_t es = acl_dtype_size(v->dtype), bes = acl_dtype_size(bdt);
    if (pl->flat[k]) { /* one piece */
        char *mem = v->base + start * (int64_t)es;
        if (store) acl_convert(buf, bdt, 1, mem, v->dtype, 1, len);
        else acl_convert(mem, v->dtype, 1, buf, bdt, 1, len);
        return;
    }
    const int64_t inner = pl->dims[nd - 1], sin = pl->st[k][nd - 1];
    int64_t idx[ACL_MAX_VIEW_RANK], rem = start;
    for (int j = nd - 1; j >= 0; j--) {
        idx[j] = rem % pl->dims[j];
        rem /= pl->dims[j];
    }
    int64_t off = 0;
    for (int j = 0; j < nd; j++) off += idx[j] * pl->st[k][j];
    const bool same = v->dtype == bdt && (es == 4 || es == 8);
    int64_t done = 0;
    while (done < len) {
        int64_t seg = inner - idx[nd - 1];
        if (seg > len - done) seg = len - done;
        char *mem = v->base + off * (int64_t)es, *b = buf + (size_t)done * bes;
        if (same && !store && sin == 0) { /* a broadcast value: one fill */
            if (es == 4) {
                uint32_t x;
                memcpy(&x, mem, 4);
                uint32_t *d_ = (uint32_t *)b;
                for (int64_t i = 0; i < seg; i++) d_[i] = x;
            } else {
                uint64_t x;
                memcpy(&x, mem, 8);
                uint64_t *d_ = (uint64_t *)b;
                for (int64_t i = 0; i < seg; i++) d_[i] = x;
            }
        } else if (same && !store && sin == 1) {
            memcpy(b, mem, (size_t)seg * es);
        } else if (same && !store && es == 4) { /* a strided operand: inline, no call */
            const uint32_t *s_ = (const uint32_t *)mem;
            uint32_t *d_ = (uint32_t *)b;
            for (int64_t i = 0; i < seg; i++) d_[i] = s_[i * sin];
        } else if (same && !store) {
            const uint64_t *s_ = (const uint64_t *)mem;
            uint64_t *d_ = (uint64_t *)b;
            for (int64_t i = 0; i < seg; i++) d_[i] = s_[i * sin];
        } else if (store) {
            acl_convert(b, bdt, 1, mem, v->dtype, sin, seg);
        } else {
            acl_convert(mem, v->dtype, sin, b, bdt, 1, seg);
        }
        done += seg;
        idx[nd - 1] += seg;
        off += seg * sin;
        for (int j = nd - 1; j > 0 && idx[j] == pl->dims[j]; j--) { /* carry: rewind dim j, step dim j - 1 */
            off += pl->st[k][j - 1] - idx[j] * pl->st[k][j];
            idx[j] = 0;
            idx[j - 1]++;
        }
    }
}

static aclnnStatus ew_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ew_plan *pl = ex->params;
    const int nin = pl->nin, nd = pl->ndim;
    const int64_t inner = pl->dims[nd - 1];
    int64_t total = 1;
    for (int k = 0; k < nd; k++) total *= pl->dims[k];
    const bool rows = inner >= EW_ROW_UNITS_MIN || nd == 1;
    const int64_t nch = rows ? (inner + EW_CHUNK - 1) / EW_CHUNK : 0;
    const int64_t units = rows ? (total / inner) * nch : (total + EW_CHUNK - 1) / EW_CHUNK;
    const acl_view *ov = acl_exec_out(ex, 0);
    const size_t ces = acl_dtype_size(pl->cdt), res = acl_dtype_size(pl->rdt);
    bool oom = false;
#pragma omp parallel if (acl_parallel_worth(total))
    {
        char *bufs = malloc((size_t)EW_CHUNK * (ces * (size_t)nin + res) + 64);
        if (!bufs) {
#pragma omp atomic write
            oom = true;
        }
#pragma omp for schedule(static)
        for (int64_t u = 0; u < units; u++) {
            if (!bufs) continue;
            /* the flat output range [start, start + len); a row unit lies inside one row */
            int64_t start, len;
            if (rows) {
                int64_t o = u / nch, c0 = (u % nch) * EW_CHUNK;
                start = o * inner + c0;
                len = inner - c0 < EW_CHUNK ? inner - c0 : EW_CHUNK;
            } else {
                start = u * EW_CHUNK;
                len = total - start < EW_CHUNK ? total - start : EW_CHUNK;
            }
            int64_t off[EW_MAX_ARGS] = {0};
            if (rows) {
                int64_t rem = start;
                for (int j = nd - 1; j >= 0; j--) {
                    int64_t idx = rem % pl->dims[j];
                    rem /= pl->dims[j];
                    for (int k = 0; k <= nin; k++) off[k] += idx * pl->st[k][j];
                }
            }
            char *in[EW_MAX_ARGS];
            for (int k = 0; k < nin; k++) {
                const acl_view *v = acl_exec_in(ex, k);
                if (v->dtype == pl->cdt && (rows ? pl->st[k][nd - 1] == 1 : pl->flat[k])) {
                    in[k] = v->base + (rows ? off[k] : start) * (int64_t)ces;
                } else {
                    in[k] = bufs + (size_t)k * EW_CHUNK * ces;
                    gather(pl, k, v, start, len, in[k], false, pl->cdt);
                }
            }
            if (ov->dtype == pl->rdt && (rows ? pl->st[nin][nd - 1] == 1 : pl->flat[nin])) {
                pl->k(len, in, ov->base + (rows ? off[nin] : start) * (int64_t)res, &pl->s);
            } else {
                char *tmp = bufs + (size_t)nin * EW_CHUNK * ces;
                pl->k(len, in, tmp, &pl->s);
                gather(pl, nin, ov, start, len, tmp, true, pl->rdt);
            }
        }
        free(bufs);
    }
    ACLNN_CHECK(!oom, ACLNN_ERR_INNER, "out of memory for the elementwise buffers");
    return ACLNN_SUCCESS;
}
