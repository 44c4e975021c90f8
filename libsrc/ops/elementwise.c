/* The elementwise engine (see elementwise.h). */
#include "ops/elementwise.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/cpu.h"
#include "common/dtype.h"
#include "common/parallel.h"
#include "common/shape.h"
#include "common/status.h"
#include "kernels/f16_rows.h"
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

static bool is_tensor_in(const ew_desc *d, int i) { return d->kind[i] == EW_ARG_TENSOR || d->kind[i] == EW_ARG_INOUT; }

bool ew_in_list(aclDataType dt, const aclDataType *l, int n) {
    for (int i = 0; i < n; i++)
        if (l[i] == dt) return true;
    return false;
}

int ew_arg_index(const ew_desc *d, const char *name) {
    for (int i = 0; i < d->nargs; i++)
        if (strcmp(d->name[i], name) == 0) return i;
    return -1;
}


aclnnStatus ew_check_not_on_a2(ew_ctx *c) {
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s is not implemented for ASCEND910B (its op_api supports the 950 "
                      "series only).", acl_op_name(c->d->op));
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

aclnnStatus ew_check_dtype_list(const aclDataType *l, int n, const aclTensor *t, const char *name) {
    if (ew_in_list(t->dtype, l, n)) return ACLNN_SUCCESS;
    char buf[256];
    list_str(l, n, buf, sizeof buf);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", name,
                      acl_dtype_name(t->dtype), buf);
}

/* The promoted dtype of the tensor inputs, then the selected scalars (scalar_mode). */
static aclDataType promote_all(const ew_desc *d, const void *const *args) {
    aclDataType t = ACL_DT_UNDEFINED;
    for (int i = 0; i < d->nargs; i++) {
        if (!is_tensor_in(d, i) || (d->no_promote >> i & 1u)) continue;
        aclDataType x = ((const aclTensor *)args[i])->dtype;
        t = t == ACL_DT_UNDEFINED ? x : acl_promote(t, x);
        if (t == ACL_DT_UNDEFINED) return t;
    }
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_SCALAR || args[i] == NULL || !(d->scalar_promote >> i & 1u)) continue;
        aclDataType s = ((const aclScalar *)args[i])->dtype;
        if (!acl_dt_known(s)) return ACL_DT_UNDEFINED;
        if (t == ACL_DT_UNDEFINED) { t = s; continue; }
        if (d->scalar_mode == EW_SP_FULL) { t = acl_promote(t, s); continue; }
        if (d->scalar_mode == EW_SP_FLOAT) {
            if (!acl_dt_is_float(t) && acl_dt_is_float(s)) t = acl_promote(s, t);
            continue;
        }
        int cs = cat_of(s), ct = cat_of(t);
        if (cs <= ct) continue;
        if (cs == 3) t = ct == 2 ? acl_to_complex(t) : ACL_COMPLEX64;
        else if (cs == 2) t = ACL_FLOAT;
        else t = ACL_INT64;
    }
    return t;
}

static bool tensor_contiguous(const aclTensor *t) {
    int64_t want = 1;
    for (int k = (int)t->ndim - 1; k >= 0; k--) {
        if (t->dims[k] == 0) return true;
        if (t->dims[k] != 1 && t->strides[k] != want) return false;
        if (!acl_mul_i64(want, t->dims[k], &want)) return false;
    }
    return true;
}

static aclnnStatus check_rank(const ew_desc *d, const aclTensor *t, const char *name) {
    if (d->max_rank == 0 || t->ndim <= d->max_rank || (d->rank_contig && tensor_contiguous(t))) return ACLNN_SUCCESS;
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; the dim of a tensor should be at most %d.", name,
                      (unsigned long long)t->ndim, (int)d->max_rank);
}

static aclnnStatus stage_dtype(ew_ctx *c) {
    const ew_desc *d = c->d;
    for (int i = 0; i < d->nargs; i++) {
        if (!is_tensor_in(d, i)) continue;
        if (d->arg_dtypes[i]) ACL_TRY(ew_check_dtype_list(d->arg_dtypes[i], d->n_arg_dtypes[i], c->args[i], d->name[i]));
        else ACL_TRY(ew_check_dtype_list(d->dtypes, d->n_dtypes, c->args[i], d->name[i]));
    }
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_SCALAR || c->args[i] == NULL) continue;
        const aclDataType *l = d->arg_dtypes[i] ? d->arg_dtypes[i] : d->scalar_dtypes;
        int n = d->arg_dtypes[i] ? d->n_arg_dtypes[i] : d->n_scalar_dtypes;
        if (!l) continue;
        aclDataType s = ((const aclScalar *)c->args[i])->dtype;
        if (ew_in_list(s, l, n)) continue;
        char buf[256];
        list_str(l, n, buf, sizeof buf);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in dtype support list %s.", d->name[i],
                          acl_dtype_name(s), buf);
    }
    int first = -1;
    for (int i = 0; i < d->nargs && first < 0; i++)
        if (is_tensor_in(d, i)) first = i;
    for (int i = 0; i < d->nargs; i++) {
        if (!(d->same_dtype >> i & 1u) || first < 0) continue;
        const aclTensor *a = c->args[first], *b = c->args[i];
        ACLNN_CHECK(a->dtype == b->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as %s dtype %s.",
                    d->name[i], acl_dtype_name(b->dtype), d->name[first], acl_dtype_name(a->dtype));
    }
    if (d->out_rule == EW_OUT_LIST && d->kind[c->iout] == EW_ARG_OUT)
        ACL_TRY(d->out_dtypes ? ew_check_dtype_list(d->out_dtypes, d->n_out_dtypes, c->args[c->iout], d->name[c->iout])
                              : ew_check_dtype_list(d->dtypes, d->n_dtypes, c->args[c->iout], d->name[c->iout]));
    return ACLNN_SUCCESS;
}

/* can the result dtype be written to out? COMPLEX32 (no kernel dtype here) stands for complex64's rules */
static bool out_castable(aclDataType rdt, aclDataType odt) {
    if (odt == ACL_COMPLEX32) return acl_dt_is_complex(rdt);
    return acl_dt_known(odt) && acl_can_cast(rdt, odt);
}

static aclnnStatus stage_promote(ew_ctx *c) {
    const ew_desc *d = c->d;
    const aclTensor *out = c->args[c->iout];
    if (d->promote) {
        ACL_TRY(d->promote(c));
    } else {
        c->pdt = promote_all(d, c->args);
    }
    ACLNN_CHECK(c->pdt != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "the input dtypes can not promote to a common dtype.");
    if (d->promoted && !ew_in_list(c->pdt, d->promoted, d->n_promoted)) {
        char buf[256];
        list_str(d->promoted, d->n_promoted, buf, sizeof buf);
        char who[160];
        size_t used = 0;
        who[0] = 0;
        for (int i = 0; i < d->nargs && used + 40 < sizeof who; i++)
            if (is_tensor_in(d, i) && !(d->no_promote >> i & 1u))
                used += (size_t)snprintf(who + used, sizeof who - used, "%s%s", used ? ", " : "", d->name[i]);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "the promoted dtype %s of %s should be in dtype support list %s.",
                          acl_dtype_name(c->pdt), who, buf);
    }
    aclDataType cdt = c->pdt;
    if (d->compute == EW_COMPUTE_FLOAT && (acl_dt_is_int(cdt) || cdt == ACL_BOOL)) cdt = ACL_FLOAT;
    if (d->compute == EW_COMPUTE_OUT) {
        for (int i = 0; i < d->nargs; i++) {
            if (!is_tensor_in(d, i) || i == c->iout) continue;
            aclDataType x = ((const aclTensor *)c->args[i])->dtype;
            ACLNN_CHECK(x == out->dtype || out_castable(x, out->dtype), ACLNN_ERR_PARAM_INVALID,
                        "%s dtype %s can't be cast to the desired output dtype %s.", d->name[i], acl_dtype_name(x),
                        acl_dtype_name(out->dtype));
        }
        cdt = out->dtype;
    }
    c->cdt = cdt;
    aclDataType kdt = c->kdt != ACL_DT_UNDEFINED ? c->kdt : cdt;
    int cls = class_of(kdt);
    ACLNN_CHECK(cls >= 0 && d->k[cls] != NULL, ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s is not supported by %s.", acl_dtype_name(kdt), acl_op_name(d->op));
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] != EW_ARG_SCALAR || c->args[i] == NULL) continue;
        aclDataType s = ((const aclScalar *)c->args[i])->dtype;
        ACLNN_CHECK(acl_dt_known(s), ACLNN_ERR_PARAM_INVALID, "%s has dtype %d, which is not a numeric dtype.",
                    d->name[i], (int)s);
        if (!(d->scalar_cast_check >> i & 1u)) continue;
        ACLNN_CHECK(acl_can_cast(s, cdt) || (cdt == ACL_BOOL && acl_dt_is_int(s)), ACLNN_ERR_PARAM_INVALID,
                    "%s dtype %s can't be cast to the promote dtype %s.", d->name[i], acl_dtype_name(s),
                    acl_dtype_name(cdt));
    }
    c->rdt = d->result == EW_RESULT_BOOL ? ACL_BOOL : d->result == EW_RESULT_REAL ? acl_to_real(cdt)
             : d->result == EW_RESULT_COMPLEX ? acl_to_complex(cdt) : cdt;
    if (d->out_rule == EW_OUT_SAME)
        ACLNN_CHECK(out->dtype == c->rdt, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be %s.", d->name[c->iout],
                    acl_dtype_name(out->dtype), acl_dtype_name(c->rdt));
    if (d->out_rule == EW_OUT_ANY) {
        ACLNN_CHECK(acl_dt_known(out->dtype), ACLNN_ERR_PARAM_INVALID, "%s dtype %s is not supported.",
                    d->name[c->iout], acl_dtype_name(out->dtype));
        return ACLNN_SUCCESS;
    }
    ACLNN_CHECK(out_castable(c->rdt, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "the result dtype %s can't be cast to the desired output dtype %s of %s.", acl_dtype_name(c->rdt),
                acl_dtype_name(out->dtype), d->name[c->iout]);
    return ACLNN_SUCCESS;
}

static aclnnStatus stage_format(ew_ctx *c) {
    const ew_desc *d = c->d;
    for (int r = 0; r < d->n_fmt; r++) {
        int a = d->fmt[r][1], b = d->fmt[r][2];
        const aclTensor *ta = c->args[a];
        if (d->fmt[r][0] == EW_FMT_SAME) {
            const aclTensor *tb = c->args[b];
            ACLNN_CHECK(ta->format == tb->format, ACLNN_ERR_PARAM_INVALID,
                        "Format of %s and %s should be equal, %s [%s], %s [%s].", d->name[a], d->name[b], d->name[a],
                        acl_format_name(ta->format), d->name[b], acl_format_name(tb->format));
        } else {
            ACLNN_CHECK(!acl_format_is_private(ta->format), ACLNN_ERR_PARAM_INVALID,
                        "%s format %s is not supported: the format should be ND, NCHW, NHWC, HWCN, NDHWC or NCDHW.",
                        d->name[a], acl_format_name(ta->format));
        }
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus stage_shape(ew_ctx *c) {
    const ew_desc *d = c->d;
    int64_t *bdims = c->bd;
    int nd = 0;
    for (int i = 0; i < ACL_MAX_TENSOR_DIMS; i++) bdims[i] = 1;
    for (int i = 0; i < d->nargs; i++) {
        if (!is_tensor_in(d, i)) continue;
        const aclTensor *t = c->args[i];
        ACL_TRY(check_rank(d, t, d->name[i]));
        ACL_TRY(acl_check_nonneg_dims(t, d->name[i]));
        int n = (int)t->ndim;
        if (n > nd) {
            /* right-align the dims seen so far */
            int64_t tmp[ACL_MAX_TENSOR_DIMS];
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
    c->bnd = nd;
    const aclTensor *out = c->args[c->iout];
    if (d->kind[c->iout] == EW_ARG_OUT) ACL_TRY(check_rank(d, out, d->name[c->iout]));
    bool same = (int)out->ndim == nd;
    for (int k = 0; same && k < nd; k++) same = out->dims[k] == bdims[k];
    if (!same) {
        char s1[200], s2[200];
        dims_str(bdims, nd, s1, sizeof s1);
        dims_str(out->dims, (int)out->ndim, s2, sizeof s2);
        return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "Shape of %s should be %s, but current is %s.", d->name[c->iout], s1,
                          s2);
    }
    return ACLNN_SUCCESS;
}

static bool any_input_empty(const ew_ctx *c) {
    for (int i = 0; i < c->d->nargs; i++)
        if (is_tensor_in(c->d, i) && acl_tensor_empty(c->args[i])) return true;
    return false;
}

/* A tensor's view reduced to at most ACL_MAX_VIEW_RANK dims for the executor (ops that accept more dims than the
 * kernels' views hold): `dims`/`st` are the coalesced iteration space and this operand's strides in it. */
static void reduced_tensor(aclTensor *dst, const aclTensor *src, int m, const int64_t *dims, const int64_t *st) {
    memcpy(dst, src, sizeof *dst);
    dst->ndim = (uint64_t)m;
    for (int k = 0; k < m; k++) {
        dst->dims[k] = dims[k];
        dst->strides[k] = st[k];
    }
}

/* Coalesces the iteration space (out's dims) for every operand: drops size-1 dims and merges a dim into the next
 * inner one when every operand allows it. ops: the tensors (inputs then out); returns the rank m (>= 1). */
static int coalesce(const aclTensor *const *ops, int nops, const aclTensor *out, int64_t *cd,
                    int64_t cst[][ACL_MAX_TENSOR_DIMS]) {
    int nd = (int)out->ndim, m = 0;
    for (int k = 0; k < nd; k++) {
        if (out->dims[k] == 1) continue;
        int64_t stk[EW_MAX_ARGS];
        for (int o = 0; o < nops; o++) {
            const aclTensor *v = ops[o];
            int kk = k - (nd - (int)v->ndim);
            stk[o] = (kk < 0 || v->dims[kk] == 1) ? 0 : v->strides[kk];
        }
        if (m > 0) {
            /* checked: this runs before the views are validated (huge strides or dims do not merge) */
            int64_t prod, n;
            bool merge = acl_mul_i64(cd[m - 1], out->dims[k], &n);
            for (int o = 0; o < nops && merge; o++) merge = acl_mul_i64(stk[o], out->dims[k], &prod) && cst[o][m - 1] == prod;
            if (merge) {
                cd[m - 1] = n;
                for (int o = 0; o < nops; o++) cst[o][m - 1] = stk[o];
                continue;
            }
        }
        cd[m] = out->dims[k];
        for (int o = 0; o < nops; o++) cst[o][m] = stk[o];
        m++;
    }
    if (m == 0) {
        cd[0] = 1;
        for (int o = 0; o < nops; o++) cst[o][0] = 0;
        m = 1;
    }
    return m;
}

static aclnnStatus build_plan(ew_ctx *c, uint64_t *workspaceSize, aclOpExecutor **executor) {
    const ew_desc *d = c->d;
    const aclTensor *out = c->args[c->iout];
    aclOpExecutor *ex = acl_exec_create(d->op, ew_run, sizeof(ew_plan));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ew_plan *pl = ex->params;
    /* operands: the tensor inputs in API order, then out */
    const aclTensor *ops[EW_MAX_ARGS + 1];
    const char *names[EW_MAX_ARGS + 1];
    int nops = 0, ns = 0;
    bool big = out->ndim > ACL_MAX_VIEW_RANK;
    for (int i = 0; i < d->nargs; i++) {
        if (is_tensor_in(d, i)) {
            ops[nops] = c->args[i];
            names[nops++] = d->name[i];
            big = big || ((const aclTensor *)c->args[i])->ndim > ACL_MAX_VIEW_RANK;
        } else if (d->kind[i] == EW_ARG_ATTR) {
            if (ns < EW_MAX_SCALARS) {
                pl->s.d[ns] = c->attr_f[i];
                pl->s.i[ns] = c->attr_i[i];
                pl->s.has[ns] = 1;
            }
            ns++;
        } else if (d->kind[i] == EW_ARG_SCALAR) {
            const aclScalar *s = c->args[i];
            if (s != NULL && ns < EW_MAX_SCALARS) {
                double complex v = acl_read_c128(s->bytes, s->dtype);
                pl->s.has[ns] = 1;
                pl->s.d[ns] = creal(v);
                pl->s.di[ns] = cimag(v);
                pl->s.i[ns] = acl_read_i64(s->bytes, s->dtype);
                /* a scalar taken as the (rounded) compute type, as the device converts it */
                aclDataType kdt = c->kdt != ACL_DT_UNDEFINED ? c->kdt : c->cdt;
                if (kdt == ACL_FLOAT16 || kdt == ACL_BF16 || kdt == ACL_FLOAT) {
                    float f = (float)pl->s.d[ns];
                    pl->s.d[ns] = f;
                }
            }
            ns++;
        }
    }
    ops[nops] = out;
    names[nops] = d->name[c->iout];
    int64_t cd[ACL_MAX_TENSOR_DIMS], cst[EW_MAX_ARGS + 1][ACL_MAX_TENSOR_DIMS];
    int m = coalesce(ops, nops + 1, out, cd, cst);
    aclnnStatus rc = ACLNN_SUCCESS;
    aclTensor tmp[EW_MAX_ARGS + 1];
    if (big) {
        /* more dims than a view holds (ops without the rank limit): the operands as their coalesced views */
        if (m > ACL_MAX_VIEW_RANK)
            rc = ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s: the layout of the tensors needs %d dims after merging; at "
                            "most %d are supported.", acl_op_name(d->op), m, ACL_MAX_VIEW_RANK);
        for (int o = 0; o <= nops && rc == ACLNN_SUCCESS; o++) {
            reduced_tensor(&tmp[o], ops[o], m, cd, cst[o]);
            rc = o < nops ? acl_exec_add_input(ex, &tmp[o], names[o], true) : acl_exec_add_output(ex, &tmp[o], names[o]);
        }
    } else {
        for (int o = 0; o < nops && rc == ACLNN_SUCCESS; o++) rc = acl_exec_add_input(ex, ops[o], names[o], true);
        if (rc == ACLNN_SUCCESS) rc = acl_exec_add_output(ex, out, names[nops]);
    }
    if (rc) return acl_exec_discard(ex, rc);
    int cls = class_of(c->kdt != ACL_DT_UNDEFINED ? c->kdt : c->cdt);
    if (cls < 0) return acl_exec_discard(ex, ACL_REPORT(ACLNN_ERR_INNER, "no compute class")); /* checked at 'p' */
    pl->k = d->k[cls];
    if (cls == EW_F32 && d->kv[0]) {
        const int lv = acl_simd_level();
        pl->k = d->kv[lv >= ACL_SIMD_AVX512 ? 2 : lv >= ACL_SIMD_AVX2 ? 1 : 0];
    }
    pl->nin = ex->n_in;
    for (int k = 0; k < ex->n_in && k < EW_MAX_ARGS; k++) pl->s.in_dt[k] = ex->io[k].dtype;
    pl->s.pdt = c->pdt;
    pl->s.odt = out->dtype;
    pl->cdt = k_class_dt[cls];
    pl->rdt = d->result == EW_RESULT_BOOL ? ACL_BOOL : d->result == EW_RESULT_REAL ? acl_to_real(k_class_dt[cls])
              : d->result == EW_RESULT_COMPLEX ? acl_to_complex(k_class_dt[cls]) : k_class_dt[cls];
    pl->ndim = m;
    for (int k = 0; k < m; k++) {
        pl->dims[k] = cd[k];
        for (int o = 0; o <= nops; o++) pl->st[o][k] = cst[o][k];
    }
    for (int o = 0; o <= nops; o++) {
        int64_t want = 1;
        pl->flat[o] = true;
        for (int k = m - 1; k >= 0; k--) {
            if (pl->dims[k] != 1 && pl->st[o][k] != want) pl->flat[o] = false;
            want *= pl->dims[k];
        }
    }
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus ew_get_workspace(const ew_desc *d, const void *const *args, const double *attr_f, const int64_t *attr_i,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    acl_set_api(acl_op_ws_name(d->op));
    /* 0. as opbase's L2_DFX_PHASE_1, before the op's own checks */
    ACLNN_CHECK(workspaceSize != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize must not be NULL.");
    ACLNN_CHECK(executor != NULL, ACLNN_ERR_PARAM_NULLPTR, "executor must not be NULL.");
    ew_ctx c = {.d = d, .args = args, .attr_f = attr_f, .attr_i = attr_i, .iout = -1,
                .pdt = ACL_DT_UNDEFINED, .cdt = ACL_DT_UNDEFINED, .rdt = ACL_DT_UNDEFINED, .kdt = ACL_DT_UNDEFINED};
    /* 1. null pointers, API order */
    for (int i = 0; i < d->nargs; i++) {
        if (d->kind[i] == EW_ARG_ATTR) continue;
        if (d->kind[i] == EW_ARG_OUT || d->kind[i] == EW_ARG_INOUT) c.iout = i;
        if (args[i] == NULL && (d->optional >> i & 1u)) continue;
        ACLNN_CHECK(args[i] != NULL, (d->null_inner >> i & 1u) ? ACLNN_ERR_INNER_NULLPTR : ACLNN_ERR_PARAM_NULLPTR,
                    "%s must not be NULL.", d->name[i]);
        if (d->kind[i] == EW_ARG_SCALAR)
            ACLNN_CHECK(acl_reg_is(args[i], ACL_KIND_SCALAR), ACLNN_ERR_PARAM_INVALID, "%s is not a live aclScalar.",
                        d->name[i]);
        else
            ACL_TRY(acl_check_tensor(args[i], d->name[i]));
    }
    if (d->need_one) {
        bool any = false;
        for (int i = 0; i < d->nargs; i++)
            if ((d->need_one >> i & 1u) && args[i] != NULL) any = true;
        if (!any) {
            char buf[200];
            size_t used = 0;
            buf[0] = 0;
            for (int i = 0; i < d->nargs && used + 40 < sizeof buf; i++)
                if (d->need_one >> i & 1u)
                    used += (size_t)snprintf(buf + used, sizeof buf - used, "%s%s", used ? " or " : "", d->name[i]);
            return ACL_REPORT(ACLNN_ERR_PARAM_NULLPTR, "at least one of %s must not be NULL.", buf);
        }
    }
    /* 2. the op's stages, in its order */
    for (const char *st = d->order; *st; st++) {
        switch (*st) {
        case 'd': ACL_TRY(stage_dtype(&c)); break;
        case 'p': ACL_TRY(stage_promote(&c)); break;
        case 'f': ACL_TRY(stage_format(&c)); break;
        case 's': ACL_TRY(stage_shape(&c)); break;
        case 'h': if (d->check) ACL_TRY(d->check(&c)); break;
        case 'e': if (any_input_empty(&c)) return acl_exec_noop(d->op, workspaceSize, executor); break;
        default: return ACL_REPORT(ACLNN_ERR_INNER, "unknown elementwise stage '%c'", *st);
        }
    }
    if (acl_tensor_empty(args[c.iout])) return acl_exec_noop(d->op, workspaceSize, executor);
    return build_plan(&c, workspaceSize, executor);
}

/* ---- run ---- */

/* The units of work: with a long innermost dimension, pieces of one row (operands that are contiguous there are
 * used in place); with a short one (broadcast shapes such as (N, 4) + (4,)), flat ranges of EW_CHUNK elements that
 * span rows, gathered segment by segment, so the inner loop always runs on a full chunk. */
#define EW_ROW_UNITS_MIN 512
#ifndef EW_SUB
#define EW_SUB 512 /* elements per sub-block of a chunk whose flat operands are staged */
#endif

/* The result buffer (compute form) into out: acl_convert, plus complex64 -> COMPLEX32 (pairs of fp16, rounded to
 * nearest even), which out may be for ops with a complex32 output (aclnnComplex of fp16 parts). */
static void store_conv(const void *src, aclDataType sdt, void *dst, aclDataType ddt, int64_t ds, int64_t n) {
    if (ddt != ACL_COMPLEX32) {
        acl_convert(src, sdt, 1, dst, ddt, ds, n);
        return;
    }
    const float *f = src; /* sdt is complex64 here: the only complex class whose result reaches COMPLEX32 */
    uint16_t *h = dst;
    for (int64_t i = 0; i < n; i++) {
        h[2 * i * ds] = acl_f32_to_f16(f[2 * i]);
        h[2 * i * ds + 1] = acl_f32_to_f16(f[2 * i + 1]);
    }
}

/* A flat piece of an operand between its memory and the compute buffer: fp16 / bf16 <-> fp32 through the
 * converters of the run's SIMD level (kernels/f16_rows.h: every level gives acl_convert's bits), else acl_convert. */
static void sub_load(const char *mem, aclDataType sdt, char *buf, aclDataType bdt, int64_t n) {
    if (bdt == ACL_FLOAT && sdt == ACL_FLOAT16) acl_row_f16_to_f32_lv((float *)buf, (const uint16_t *)mem, n);
    else if (bdt == ACL_FLOAT && sdt == ACL_BF16) acl_row_bf16_to_f32_lv((float *)buf, (const uint16_t *)mem, n);
    else acl_convert(mem, sdt, 1, buf, bdt, 1, n);
}
static void sub_store(const char *buf, aclDataType bdt, char *mem, aclDataType ddt, int64_t n) {
    if (bdt == ACL_FLOAT && ddt == ACL_FLOAT16) acl_row_f32_to_f16_lv((uint16_t *)mem, (const float *)buf, n);
    else if (bdt == ACL_FLOAT && ddt == ACL_BF16) acl_row_f32_to_bf16_lv((uint16_t *)mem, (const float *)buf, n);
    else store_conv(buf, bdt, mem, ddt, 1, n);
}

/* Moves `len` elements of operand `k` starting at the flat output index `start` between its memory and `buf` (the
 * compute type `bdt`, contiguous): load (store false) or store. Segment by segment along the innermost dim. */
static void gather(const ew_plan *pl, int k, const acl_view *v, int64_t start, int64_t len, char *buf, bool store,
                   aclDataType bdt) {
    const int nd = pl->ndim;
    const size_t es = acl_dtype_size(v->dtype), bes = acl_dtype_size(bdt);
    if (pl->flat[k]) { /* one piece */
        char *mem = v->base + start * (int64_t)es;
        if (store) store_conv(buf, bdt, mem, v->dtype, 1, len);
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
            store_conv(b, bdt, mem, v->dtype, sin, seg);
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

/* The work units of one thread of the team (or of the calling thread alone: an orphaned `omp for` outside a
 * parallel region runs every unit). The chunk buffers are allocated at the first unit that needs one (a
 * contiguous operand of the compute dtype is read and written in place). */
static void ew_units(aclOpExecutor *ex, const ew_plan *pl, bool rows, int64_t nch, int64_t units,
                     int64_t total, bool *oom) {
    const int nin = pl->nin, nd = pl->ndim;
    const int64_t inner = pl->dims[nd - 1];
    const acl_view *ov = acl_exec_out(ex, 0);
    const size_t ces = acl_dtype_size(pl->cdt), res = acl_dtype_size(pl->rdt);
    char *bufs = NULL;
    bool failed = false;
    bool all_flat = true;
    for (int k = 0; k <= nin; k++) all_flat = all_flat && pl->flat[k];
#pragma omp for schedule(static)
    for (int64_t u = 0; u < units; u++) {
        if (failed) continue;
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
        bool direct_out = ov->dtype == pl->rdt && (rows ? pl->st[nin][nd - 1] == 1 : pl->flat[nin]);
        bool need = !direct_out;
        for (int k = 0; k < nin; k++) {
            const acl_view *v = acl_exec_in(ex, k);
            need = need || !(v->dtype == pl->cdt && (rows ? pl->st[k][nd - 1] == 1 : pl->flat[k]));
        }
        if (need && !bufs) {
            bufs = malloc((size_t)EW_CHUNK * (ces * (size_t)nin + res) + 64);
            if (!bufs) {
                failed = true;
#pragma omp atomic write
                *oom = true;
                continue;
            }
        }
        if (need && all_flat) {
            /* every operand flat and one at least staged (fp16 / bf16 / mixed dtypes): sub-blocks that keep the
             * staged pieces in L1 and the operands' memory streams running side by side, instead of one chunk-long
             * stream at a time. The same converters and kernel on a shorter range: the same bytes. */
            for (int64_t j = 0; j < len; j += EW_SUB) {
                const int64_t m = len - j < EW_SUB ? len - j : EW_SUB;
                for (int k = 0; k < nin; k++) {
                    const acl_view *v = acl_exec_in(ex, k);
                    const size_t es = acl_dtype_size(v->dtype);
                    if (v->dtype == pl->cdt) {
                        in[k] = v->base + (start + j) * (int64_t)ces;
                    } else {
                        in[k] = bufs + (size_t)k * EW_CHUNK * ces;
                        sub_load(v->base + (start + j) * (int64_t)es, v->dtype, in[k], pl->cdt, m);
                    }
                }
                if (direct_out) {
                    pl->k(m, in, ov->base + (start + j) * (int64_t)res, &pl->s);
                } else {
                    char *tmp = bufs + (size_t)nin * EW_CHUNK * ces;
                    pl->k(m, in, tmp, &pl->s);
                    sub_store(tmp, pl->rdt, ov->base + (start + j) * (int64_t)acl_dtype_size(ov->dtype), ov->dtype, m);
                }
            }
            continue;
        }
        for (int k = 0; k < nin; k++) {
            const acl_view *v = acl_exec_in(ex, k);
            if (v->dtype == pl->cdt && (rows ? pl->st[k][nd - 1] == 1 : pl->flat[k])) {
                in[k] = v->base + (rows ? off[k] : start) * (int64_t)ces;
            } else {
                in[k] = bufs + (size_t)k * EW_CHUNK * ces;
                gather(pl, k, v, start, len, in[k], false, pl->cdt);
            }
        }
        if (direct_out) {
            pl->k(len, in, ov->base + (rows ? off[nin] : start) * (int64_t)res, &pl->s);
        } else {
            char *tmp = bufs + (size_t)nin * EW_CHUNK * ces;
            pl->k(len, in, tmp, &pl->s);
            gather(pl, nin, ov, start, len, tmp, true, pl->rdt);
        }
    }
    free(bufs);
}

static aclnnStatus ew_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const ew_plan *pl = ex->params;
    const int nd = pl->ndim;
    const int64_t inner = pl->dims[nd - 1];
    int64_t total = 1;
    for (int k = 0; k < nd; k++) total *= pl->dims[k];
    const bool rows = inner >= EW_ROW_UNITS_MIN || nd == 1;
    const int64_t nch = rows ? (inner + EW_CHUNK - 1) / EW_CHUNK : 0;
    const int64_t units = rows ? (total / inner) * nch : (total + EW_CHUNK - 1) / EW_CHUNK;
    bool oom = false;
    if (acl_parallel_worth(total)) {
#pragma omp parallel
        ew_units(ex, pl, rows, nch, units, total, &oom);
    } else {
        ew_units(ex, pl, rows, nch, units, total, &oom); /* no team below the grain: not even a team of one */
    }
    ACLNN_CHECK(!oom, ACLNN_ERR_INNER, "out of memory for the elementwise buffers");
    return ACLNN_SUCCESS;
}
