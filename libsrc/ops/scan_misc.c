/* Scans (Cumsum, CumsumV2, Cumprod, InplaceCumprod, Cummax, Cummin), tensor-list reductions (Sum, AddN, MaxN,
 * MinN) and small products (Dot, Ger, Addr, InplaceAddr, Trace, Equal, LinalgCross).
 *
 * Validation follows each op's op_api source (hicann/ops-math math/<op>/op_api/aclnn_*.cpp) check by check; the
 * dtype lists are the table's (tools/optable/math_misc.py, ACL_DT_LIST_<Name>). Compute: the views are gathered into
 * contiguous buffers of a compute class (misc_dense.h: double, wrapping int64 or double complex) after the op's own
 * Cast steps, computed per output line (each line owned by one thread, a fixed order inside it: the same bytes for
 * any thread count), and scattered back with one rounding to the result dtype. Accumulations follow PyTorch CPU:
 * f32/f64 scans in double, f16/bf16 in f32 (rounded to f32 after each step). */
#include <math.h>

#include "common/parallel.h"
#include "ops/gen/all_ops.h"
#include "ops/misc_dense.h"

/* A new executor with the given tensors (NULL entries skipped); need[i] false: the op reads only the shape. */
static aclnnStatus mk_exec(int op, acl_run_fn run, size_t psize, const aclTensor *const *ins, const char *const *inn,
                           const bool *need, int nin, const aclTensor *const *outs, const char *const *outn, int nout,
                           uint64_t *ws, aclOpExecutor **exo, void **params, const void *pinit) {
    aclOpExecutor *ex = acl_exec_create(op, run, psize);
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++)
        if (ins[i]) rc = acl_exec_add_input(ex, ins[i], inn[i], (!need || need[i]) && !acl_tensor_empty(ins[i]));
    for (int i = 0; i < nout && !rc; i++)
        if (outs[i]) rc = acl_tensor_empty(outs[i]) ? acl_exec_add_output_nodata(ex, outs[i], outn[i])
                                                     : acl_exec_add_output(ex, outs[i], outn[i]);
    if (rc) return acl_exec_discard(ex, rc);
    if (pinit) memcpy(ex->params, pinit, psize);
    if (params) *params = ex->params;
    return acl_exec_publish(ex, ws, exo);
}

static void split_at(const acl_view *v, int d, int64_t *outer, int64_t *len, int64_t *inner) {
    *outer = 1;
    *inner = 1;
    *len = v->ndim ? v->dims[d] : 1;
    for (int k = 0; k < d; k++) *outer *= v->dims[k];
    for (int k = d + 1; k < v->ndim; k++) *inner *= v->dims[k];
}

static bool is_half(aclDataType d) { return d == ACL_FLOAT16 || d == ACL_BF16; }

/* ================================================================ scans */
enum { SC_SUM, SC_PROD, SC_MAX, SC_MIN };
typedef struct {
    int kind, dim;
    bool exclusive, reverse;
    aclDataType cdt; /* the dtype the op computes in (its Cast of self) */
} scan_params;

static void scan_line(const scan_params *p, md_class c, void *buf, int64_t *idx, int64_t base, int64_t step,
                      int64_t len) {
    const bool half = is_half(p->cdt), mx = p->kind == SC_MAX;
    if (p->kind == SC_MAX || p->kind == SC_MIN) {
        /* PyTorch's cummax/cummin: a NaN is taken (each later NaN too), a tie moves the index to the later one */
        if (c == VC_F) {
            double *d = buf, best = 0;
            int64_t bi = 0;
            for (int64_t i = 0; i < len; i++) {
                const int64_t e = base + i * step;
                const double v = d[e];
                if (i == 0 || isnan(v) || (!isnan(best) && (mx ? v >= best : v <= best))) {
                    best = v;
                    bi = i;
                }
                d[e] = best;
                idx[e] = bi;
            }
        } else {
            int64_t *d = buf, best = 0, bi = 0;
            for (int64_t i = 0; i < len; i++) {
                const int64_t e = base + i * step, v = d[e];
                if (i == 0 || (mx ? v >= best : v <= best)) {
                    best = v;
                    bi = i;
                }
                d[e] = best;
                idx[e] = bi;
            }
        }
        return;
    }
    const bool sum = p->kind == SC_SUM, ex = p->exclusive;
#define SCAN_LOOP(T, ACC_T, LOAD, STORE, ROUND)                            \
    do {                                                                  \
        T *d = buf;                                                       \
        ACC_T acc = sum ? 0 : 1;                                          \
        for (int64_t t = 0; t < len; t++) {                               \
            const int64_t e = base + (p->reverse ? len - 1 - t : t) * step; \
            const ACC_T v = LOAD(d[e]);                                   \
            if (ex) d[e] = STORE(acc);                                    \
            acc = sum ? acc + v : acc * v;                                \
            ROUND;                                                        \
            if (!ex) d[e] = STORE(acc);                                   \
        }                                                                 \
    } while (0)
#define ID(x) (x)
#define U64(x) ((uint64_t)(x))
#define I64(x) ((int64_t)(x))
    if (c == VC_F) SCAN_LOOP(double, double, ID, ID, if (half) acc = (float)acc);
    else if (c == VC_I) SCAN_LOOP(int64_t, uint64_t, U64, I64, (void)0); /* wraps */
    else SCAN_LOOP(double complex, double complex, ID, ID, (void)0);
#undef SCAN_LOOP
#undef ID
#undef U64
#undef I64
}

static aclnnStatus scan_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const scan_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const acl_view *oi = ex->n_out > 1 ? acl_exec_out(ex, 1) : NULL;
    const md_class c = md_class_of(p->cdt);
    const int64_t n = md_numel(x);
    int64_t outer, len, inner;
    split_at(x, p->dim, &outer, &len, &inner);
    void *buf = md_load_via(x, p->cdt, md_class_dt(c));
    int64_t *idx = oi ? md_alloc(n, sizeof(int64_t)) : NULL;
    if (!buf || (oi && !idx)) {
        free(buf);
        free(idx);
        return OOM;
    }
    const int64_t lines = outer * inner;
    ACL_FOR(acl_parallel_worth(n) && lines > 1, l, 0, lines, scan_line(p, c, buf, idx, (l / inner) * len * inner + l % inner, inner, len););
    md_store(buf, md_class_dt(c), o);
    if (oi) md_store(idx, ACL_INT64, oi);
    free(buf);
    free(idx);
    return ACLNN_SUCCESS;
}

static aclnnStatus scan_exec(int op, int kind, const aclTensor *self, const char *sname, int64_t dim, bool excl,
                             bool rev, aclDataType cdt, aclTensor *out, const char *oname, aclTensor *idx,
                             uint64_t *ws, aclOpExecutor **exo) {
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    /* the op's Cast of self: a dtype no Cast kernel takes fails there (an inner error, not a parameter error) */
    ACLNN_CHECK(acl_dt_known(self->dtype), ACLNN_ERR_INNER_NULLPTR, "%s dtype %s can not be cast to %s.", sname,
                acl_dtype_name(self->dtype), acl_dtype_name(cdt));
    const int64_t rank = (int64_t)self->ndim;
    const scan_params pp = {kind, (int)(rank ? (dim < 0 ? dim + rank : dim) : 0), excl, rev, cdt};
    const aclTensor *ins[] = {self}, *outs[] = {out, idx};
    const char *inn[] = {sname}, *outn[] = {oname, "indicesOut"};
    return mk_exec(op, scan_run, sizeof pp, ins, inn, NULL, 1, outs, outn, idx ? 2 : 1, ws, exo, NULL, &pp);
}

/* dim in [-rank, rank - 1], a 0-d tensor counting as 1-d (Cumsum's CheckDim) */
static aclnnStatus check_dim_0d_as_1d(const aclTensor *self, int64_t dim) {
    const int64_t r = self->ndim ? (int64_t)self->ndim : 1;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld should be in the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Cumsum(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    /* self is not checked: it is cast to out's dtype */
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Cumsum, "out"));
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the dtype argument %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(dtype));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(check_dim_0d_as_1d(self, dim));
    return scan_exec(ACL_OP_Cumsum, SC_SUM, self, "self", dim, false, false, out->dtype, out, "out", NULL,
                     workspaceSize, executor);
}

aclnnStatus opws_CumsumV2(const aclTensor *self, int64_t dim, bool exclusive, bool reverse,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_CumsumV2, "self"));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_CumsumV2, "out"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(check_dim_0d_as_1d(self, dim));
    return scan_exec(ACL_OP_CumsumV2, SC_SUM, self, "self", dim, exclusive, reverse, out->dtype, out, "out", NULL,
                     workspaceSize, executor);
}

/* Cumprod and InplaceCumprod share one first phase upstream (doGetWorkspaceSize) */
static aclnnStatus cumprod_common(int op, const aclTensor *input, const aclScalar *dim, aclDataType dtype,
                                  aclTensor *out, uint64_t *ws, aclOpExecutor **exo) {
    NN(input, "input");
    ACLNN_CHECK(dim != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Scalar but got null for argument dim.");
    ACL_TRY(acl_check_dtype_in(input, ACL_DT_LIST_Cumprod, "input"));
    NN(out, "out"); /* upstream reads out's dtype here without a NULL check */
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Cumprod, "out"));
    ACL_TRY(md_check_scalar_dtype(dim, ACL_DT_LIST_Cumprod_dim, "dim"));
    const int64_t r = (int64_t)input->ndim;
    const int32_t axis = (int32_t)acl_read_i64(dim->bytes, dim->dtype); /* aclScalar::ToInt32 */
    if (r == 0)
        ACLNN_CHECK(axis == 0 || axis == -1, ACLNN_ERR_PARAM_INVALID,
                    "dim %d is out of range for a 0-d input (expected -1 or 0).", (int)axis);
    else
        ACLNN_CHECK(axis >= -r && axis < r, ACLNN_ERR_PARAM_INVALID, "dim %d is out of range [%lld, %lld].",
                    (int)axis, (long long)-r, (long long)(r - 1));
    ACL_TRY(acl_check_same_shape(input, "input", out, "out"));
    const aclDataType tdt = dtype == ACL_DT_UNDEFINED ? out->dtype : dtype;
    if (out->dtype != tdt) {
        /* upstream: OP_CHECK_DTYPE_NOT_MATCH(out, dtype, return false) in a function returning aclnnStatus, so the
         * mismatch is logged and the first phase returns ACLNN_SUCCESS (0), with no executor there; here the 0 is
         * kept with an executor that does nothing (a success always hands out an executor), out untouched */
        acl_report(ACLNN_ERR_PARAM_INVALID, __FILE__, __LINE__,
                   "out dtype %s does not match dtype %s (the real op returns 0 here and computes nothing).",
                   acl_dtype_name(out->dtype), acl_dtype_name(tdt));
        return acl_exec_noop(op, ws, exo);
    }
    if (acl_tensor_empty(input) || acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    return scan_exec(op, SC_PROD, input, "input", axis, false, false, tdt, out, "out", NULL, ws, exo);
}

aclnnStatus opws_Cumprod(const aclTensor *input, const aclScalar *dim, const aclDataType dtype,
                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cumprod_common(ACL_OP_Cumprod, input, dim, dtype, out, workspaceSize, executor);
}

aclnnStatus opws_InplaceCumprod(aclTensor *input, const aclScalar *dim, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    NN(input, "input");
    return cumprod_common(ACL_OP_InplaceCumprod, input, dim, input->dtype, input, workspaceSize, executor);
}

static aclnnStatus cummaxmin(int op, int kind, const aclTensor *self, int64_t dim, aclTensor *values,
                             aclTensor *indices, uint64_t *ws, aclOpExecutor **exo) {
    NN(self, "self");
    NN(values, "valuesOut");
    NN(indices, "indicesOut");
    const int64_t r = (int64_t)self->ndim;
    if (r == 0) /* Cummax refuses 0-d; Cummin takes dim 0 or -1 */
        ACLNN_CHECK(kind == SC_MIN && (dim == 0 || dim == -1), ACLNN_ERR_PARAM_INVALID,
                    "dim %lld: self has no dimensions.", (long long)dim);
    else
        ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld should be in the range [%lld, %lld].",
                    (long long)dim, (long long)-r, (long long)(r - 1));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Cummax, "self"));
    ACL_TRY(acl_check_dtype_in(values, ACL_DT_LIST_Cummax, "valuesOut"));
    ACL_TRY(acl_check_dtype_in(indices, ACL_DT_LIST_Cummax_indicesOut, "indicesOut"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", values, "valuesOut"));
    ACL_TRY(acl_check_same_shape(self, "self", indices, "indicesOut"));
    /* bool is compared as uint8; the values are cast to valuesOut's dtype */
    const aclDataType cdt = self->dtype == ACL_BOOL ? ACL_UINT8 : self->dtype;
    return scan_exec(op, kind, self, "self", dim, false, false, cdt, values, "valuesOut", indices, ws, exo);
}

aclnnStatus opws_Cummax(const aclTensor *self, int64_t dim, aclTensor *valuesOut,
                        aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cummaxmin(ACL_OP_Cummax, SC_MAX, self, dim, valuesOut, indicesOut, workspaceSize, executor);
}

aclnnStatus opws_Cummin(const aclTensor *self, int64_t dim, aclTensor *valuesOut,
                        aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    return cummaxmin(ACL_OP_Cummin, SC_MIN, self, dim, valuesOut, indicesOut, workspaceSize, executor);
}

/* ================================================================ tensor lists */
enum { LS_SUM, LS_ADDN, LS_MAX, LS_MIN };
typedef struct {
    int kind;
    aclDataType adt; /* accumulation dtype (Sum promotes f16 to f32) */
    aclDataType rdt; /* result dtype before the copy into out */
} list_params;

#define SUM_GROUP 16 /* aclnnSum adds the last 16 tensors with one AccumulateNV2, repeatedly */

/* input t broadcast to out's shape, in the accumulation class */
static void *list_load(aclOpExecutor *ex, int t, const list_params *p) {
    const acl_view *o = acl_exec_out(ex, 0);
    acl_view b = md_broadcast_view(&ex->io[t], o->dims, o->ndim);
    return md_load_via(&b, p->adt, md_class_dt(md_class_of(p->adt)));
}

/* acc = acc (+|max|min) x over n elements; float sums round to f32 after each addition */
static void list_combine(const list_params *p, md_class c, void *acc, const void *x, int64_t n) {
    if (c == VC_I) {
        int64_t *a = acc;
        const int64_t *v = x;
        for (int64_t i = 0; i < n; i++)
            a[i] = p->kind == LS_MAX ? (v[i] > a[i] ? v[i] : a[i])
                 : p->kind == LS_MIN ? (v[i] < a[i] ? v[i] : a[i])
                 : (int64_t)((uint64_t)a[i] + (uint64_t)v[i]);
        return;
    }
    double *a = acc;
    const double *v = x;
    for (int64_t i = 0; i < n; i++) {
        if (p->kind == LS_MAX || p->kind == LS_MIN) { /* torch.maximum/minimum: NaN propagates */
            if (isnan(a[i])) continue;
            if (isnan(v[i]) || (p->kind == LS_MAX ? v[i] > a[i] : v[i] < a[i])) a[i] = v[i];
        } else {
            a[i] = p->adt == ACL_DOUBLE ? a[i] + v[i] : (double)(float)(a[i] + v[i]);
        }
    }
}

static aclnnStatus list_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const list_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t n = md_numel(o);
    const md_class c = md_class_of(p->adt);
    const int nin = ex->n_in;
    /* items: inputs by slot, or partial sums; aclnnSum's grouping (floats only: integer sums wrap the same) */
    void **part = calloc((size_t)nin + 1, sizeof(void *));
    int *item = calloc((size_t)nin + 1, sizeof(int)); /* >= 0: input slot; < 0: -1 - partial index */
    if (!part || !item) {
        free(part);
        free(item);
        return OOM;
    }
    int cnt = nin, nparts = 0;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin; i++) item[i] = i;
    void *acc = NULL;
    while (rc == ACLNN_SUCCESS) {
        const bool group = p->kind == LS_SUM && c == VC_F && cnt >= SUM_GROUP;
        const int from = group ? cnt - SUM_GROUP : 0;
        acc = NULL;
        for (int k = from; k < cnt && rc == ACLNN_SUCCESS; k++) {
            void *x = item[k] >= 0 ? list_load(ex, item[k], p) : part[-1 - item[k]];
            if (!x) {
                rc = OOM;
                break;
            }
            if (item[k] < 0) part[-1 - item[k]] = NULL;
            if (!acc) {
                acc = x;
                continue;
            }
            list_combine(p, c, acc, x, n);
            free(x);
        }
        if (rc || !group) break;
        part[nparts] = acc;
        cnt = from;
        item[cnt++] = -1 - nparts++;
    }
    if (rc == ACLNN_SUCCESS) rc = md_store_via(acc, md_class_dt(c), p->rdt, o);
    free(acc);
    for (int i = 0; i < nparts; i++) free(part[i]);
    free(part);
    free(item);
    return rc;
}

static aclnnStatus list_exec(int op, list_params pp, const aclTensorList *tensors, aclTensor *out, uint64_t *ws,
                             aclOpExecutor **exo) {
    aclOpExecutor *ex = acl_exec_create(op, list_run, sizeof(list_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    *(list_params *)ex->params = pp;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < tensors->size && !rc; i++) rc = acl_exec_add_input(ex, tensors->v[i], "tensors", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

static aclnnStatus list_not_null(const aclTensorList *tensors, aclTensor *out) {
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper TensorList but got null for tensors.");
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i] != NULL, ACLNN_ERR_PARAM_NULLPTR,
                    "expected a proper Tensor but got null for tensors[%llu].", (unsigned long long)i);
    NN(out, "out");
    return ACLNN_SUCCESS;
}

static aclnnStatus list_dtype_in(const aclTensorList *tensors, const aclDataType *l, int nl) {
    for (uint64_t i = 0; i < tensors->size; i++) {
        bool ok = false;
        for (int k = 0; k < nl; k++) ok = ok || tensors->v[i]->dtype == l[k];
        ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] dtype %s is not supported.", (unsigned long long)i,
                    acl_dtype_name(tensors->v[i]->dtype));
    }
    return ACLNN_SUCCESS;
}

static aclnnStatus list_max_dims(const aclTensorList *tensors, aclTensor *out) {
    for (uint64_t i = 0; i < tensors->size; i++)
        ACLNN_CHECK(tensors->v[i]->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                    "tensors[%llu] has %llu dims; at most %d are supported.", (unsigned long long)i,
                    (unsigned long long)tensors->v[i]->ndim, ACL_MAX_VIEW_RANK);
    return md_check_max_dim(out, "out");
}

/* the broadcast shape of the list must be out's shape */
static aclnnStatus list_broadcast_is_out(const aclTensorList *tensors, const aclTensor *out) {
    ACLNN_CHECK(tensors->size > 0, ACLNN_ERR_PARAM_INVALID, "tensors must not be an empty list.");
    int64_t b[ACL_MAX_TENSOR_DIMS];
    int nb = (int)tensors->v[0]->ndim;
    memcpy(b, tensors->v[0]->dims, sizeof(int64_t) * (size_t)nb);
    for (uint64_t i = 1; i < tensors->size; i++)
        ACLNN_CHECK(md_broadcast(tensors->v[i]->dims, (int)tensors->v[i]->ndim, b, nb, b, &nb),
                    ACLNN_ERR_PARAM_INVALID, "tensors[%llu] can not be broadcast with the tensors before it.",
                    (unsigned long long)i);
    ACLNN_CHECK(md_shape_is(out, b, nb), ACLNN_ERR_PARAM_INVALID,
                "out shape should be the broadcast shape of tensors (%d dims).", nb);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Sum(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    ACL_TRY(list_not_null(tensors, out));
    ACL_TRY(list_dtype_in(tensors, ACL_DT_LIST_Sum));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Sum, "out"));
    ACL_TRY(list_max_dims(tensors, out));
    ACL_TRY(list_broadcast_is_out(tensors, out));
    if (acl_tensor_empty(tensors->v[0]) || acl_tensor_empty(out))
        return acl_exec_noop(ACL_OP_Sum, workspaceSize, executor);
    /* AccumulateNV2 in tensors[0]'s dtype, f16 promoted to f32 and cast back */
    const aclDataType t0 = tensors->v[0]->dtype;
    const list_params pp = {LS_SUM, t0 == ACL_FLOAT16 ? ACL_FLOAT : t0, t0};
    return list_exec(ACL_OP_Sum, pp, tensors, out, workspaceSize, executor);
}

aclnnStatus opws_AddN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    ACL_TRY(list_not_null(tensors, out));
    if (tensors->size == 0) return acl_exec_noop(ACL_OP_AddN, workspaceSize, executor);
    /* upstream: OP_CHECK_DTYPE_NOT_SAME(tensors[0], out, return false) inside a function returning aclnnStatus
     * turns the mismatch into "no error" and skips the remaining checks; what follows then is unknowable (a copy
     * between different dtypes): refused here instead */
    ACL_TRY(acl_check_same_dtype(tensors->v[0], "tensors[0]", out, "out"));
    ACL_TRY(list_dtype_in(tensors, ACL_DT_LIST_AddN));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_AddN, "out"));
    ACL_TRY(list_max_dims(tensors, out));
    for (uint64_t i = 1; i < tensors->size; i++)
        ACLNN_CHECK(md_shape_is(tensors->v[i], tensors->v[0]->dims, (int)tensors->v[0]->ndim),
                    ACLNN_ERR_PARAM_INVALID, "tensors[%llu] should have the shape of tensors[0].",
                    (unsigned long long)i);
    ACL_TRY(acl_check_same_shape(tensors->v[0], "tensors[0]", out, "out"));
    ACLNN_CHECK(out->format != ACL_FORMAT_NC1HWC0 && out->format != ACL_FORMAT_FRACTAL_NZ &&
                tensors->v[0]->format != ACL_FORMAT_NC1HWC0 && tensors->v[0]->format != ACL_FORMAT_FRACTAL_NZ &&
                tensors->v[0]->format != ACL_FORMAT_FRACTAL_Z && tensors->v[0]->format != ACL_FORMAT_NC1HWC0_C04 &&
                tensors->v[0]->format != ACL_FORMAT_NDC1HWC0 && tensors->v[0]->format != ACL_FRACTAL_Z_3D,
                ACLNN_ERR_PARAM_INVALID, "tensors[0] format %s is a private format; ND-like formats only.",
                acl_format_name(tensors->v[0]->format));
    for (uint64_t i = 0; i < tensors->size; i++)
        if (acl_tensor_empty(tensors->v[i])) return acl_exec_noop(ACL_OP_AddN, workspaceSize, executor);
    const aclDataType t0 = tensors->v[0]->dtype;
    const list_params pp = {LS_ADDN, acl_dt_is_float(t0) ? ACL_FLOAT : t0, t0};
    return list_exec(ACL_OP_AddN, pp, tensors, out, workspaceSize, executor);
}

static aclnnStatus maxmin_n(int op, int kind, const aclTensorList *tensors, aclTensor *out, uint64_t *ws,
                            aclOpExecutor **exo) {
    ACL_TRY(list_not_null(tensors, out));
    if (kind == LS_MAX) ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MaxN, "out"));
    for (uint64_t i = 0; i < tensors->size; i++) {
        ACL_TRY(acl_check_dtype_in(tensors->v[i], ACL_DT_LIST_MaxN, "tensors"));
        ACL_TRY(acl_check_same_dtype(out, "out", tensors->v[i], "tensors"));
    }
    if (kind == LS_MIN) ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_MinN, "out"));
    ACL_TRY(list_max_dims(tensors, out));
    ACL_TRY(list_broadcast_is_out(tensors, out));
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    const list_params pp = {kind, out->dtype, out->dtype};
    return list_exec(op, pp, tensors, out, ws, exo);
}

aclnnStatus opws_MaxN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return maxmin_n(ACL_OP_MaxN, LS_MAX, tensors, out, workspaceSize, executor);
}

aclnnStatus opws_MinN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return maxmin_n(ACL_OP_MinN, LS_MIN, tensors, out, workspaceSize, executor);
}

/* ================================================================ small products */
enum { PR_DOT, PR_GER, PR_ADDR, PR_TRACE, PR_EQUAL, PR_CROSS };
typedef struct {
    int kind;
    aclDataType pdt;            /* the dtype the op computes in */
    aclDataType rdt;            /* its result dtype before the cast to out */
    int dim;                    /* LinalgCross: the dim of size 3 in out */
    bool alpha_scale;           /* Addr: alpha given and != 1 */
    int beta_mode;              /* Addr: 0 ignore self (beta == 0), 1 self + outer, 2 beta * self + outer */
    _Alignas(16) unsigned char alpha[16]; /* Addr: alpha/beta converted to pdt */
    _Alignas(16) unsigned char beta[16];
    bool same_shape;            /* Equal: the shapes match */
} prod_params;

/* one input (io slot) seen with out's dims when `bcast`, cast to pdt, in pdt's class */
static void *prod_load(aclOpExecutor *ex, int slot, const prod_params *p, const acl_view *like) {
    acl_view b = like ? md_broadcast_view(&ex->io[slot], like->dims, like->ndim) : ex->io[slot];
    return md_load_via(&b, p->pdt, md_class_dt(md_class_of(p->pdt)));
}

static void run_dot_trace(const prod_params *p, md_class c, void *const *in, const acl_view *a, void *r) {
    int64_t n, step = 1;
    if (p->kind == PR_DOT) {
        n = a->dims[0];
    } else {
        n = acl_min_i64(a->dims[0], a->dims[1]);
        step = a->dims[1] + 1;
    }
    if (c == VC_F) {
        double s = 0;
        const double *x = in[0], *y = p->kind == PR_DOT ? in[1] : NULL;
        for (int64_t i = 0; i < n; i++) s += y ? x[i] * y[i] : x[i * step];
        *(double *)r = s;
    } else if (c == VC_I) {
        uint64_t s = 0;
        const int64_t *x = in[0], *y = p->kind == PR_DOT ? in[1] : NULL;
        for (int64_t i = 0; i < n; i++) s += y ? (uint64_t)x[i] * (uint64_t)y[i] : (uint64_t)x[i * step];
        *(int64_t *)r = (int64_t)s;
    } else {
        double complex s = 0;
        const double complex *x = in[0];
        for (int64_t i = 0; i < n; i++) s += x[i * step];
        *(double complex *)r = s;
    }
}

/* Ger and Addr: outer products in pdt, one rounding to pdt per device step */
static void run_outer(const prod_params *p, md_class c, void *const *in, int64_t m, int64_t n, void *r) {
    const bool addr = p->kind == PR_ADDR;
    const void *v1 = in[addr ? 1 : 0], *v2 = in[addr ? 2 : 1], *self = addr ? in[0] : NULL;
    if (c == VC_F) {
        const double al = acl_read_f64(p->alpha, p->pdt), be = acl_read_f64(p->beta, p->pdt);
        const double *a = v1, *b = v2, *s = self;
        double *o = r;
        for (int64_t i = 0; i < m; i++) {
            const double ai = p->alpha_scale ? md_round(al * a[i], p->pdt) : a[i];
            for (int64_t j = 0; j < n; j++) {
                double v = md_round(ai * b[j], p->pdt);
                if (addr && p->beta_mode == 1) v = md_round(s[i * n + j] + v, p->pdt);
                if (addr && p->beta_mode == 2) v = md_round(md_round(s[i * n + j] * be, p->pdt) + v, p->pdt);
                o[i * n + j] = v;
            }
        }
    } else if (c == VC_I) {
        /* integers wrap (the cast to pdt at the store reduces modulo its width); bool: and / or */
        const bool bl = p->pdt == ACL_BOOL;
        const int64_t al = acl_read_i64(p->alpha, p->pdt), be = acl_read_i64(p->beta, p->pdt);
        const int64_t *a = v1, *b = v2, *s = self;
        int64_t *o = r;
        for (int64_t i = 0; i < m; i++) {
            const uint64_t ai = p->alpha_scale ? (bl ? (uint64_t)(al && a[i]) : (uint64_t)al * (uint64_t)a[i])
                                               : (uint64_t)a[i];
            for (int64_t j = 0; j < n; j++) {
                uint64_t v = bl ? (uint64_t)(ai && b[j]) : ai * (uint64_t)b[j];
                const uint64_t sv = addr && p->beta_mode ? (uint64_t)s[i * n + j] : 0;
                if (addr && p->beta_mode == 1) v = bl ? (uint64_t)(sv || v) : sv + v;
                if (addr && p->beta_mode == 2) v = bl ? (uint64_t)((sv && be) || v) : sv * (uint64_t)be + v;
                o[i * n + j] = (int64_t)v;
            }
        }
    } else {
        const double complex *a = v1, *b = v2;
        double complex *o = r;
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) o[i * n + j] = a[i] * b[j];
    }
}

static void run_cross(const prod_params *p, md_class c, void *const *in, const acl_view *o, void *r) {
    int64_t outer, len, inner;
    split_at(o, p->dim, &outer, &len, &inner);
    const bool f32 = p->pdt == ACL_FLOAT || is_half(p->pdt); /* f32 arithmetic, as PyTorch's float kernel */
    for (int64_t x = 0; x < outer; x++)
        for (int64_t k = 0; k < inner; k++) {
            const int64_t e0 = x * 3 * inner + k, e1 = e0 + inner, e2 = e1 + inner;
            if (c == VC_F) {
                const double *a = in[0], *b = in[1];
                double *d = r;
                if (f32) {
                    const float a0 = (float)a[e0], a1 = (float)a[e1], a2 = (float)a[e2];
                    const float b0 = (float)b[e0], b1 = (float)b[e1], b2 = (float)b[e2];
                    d[e0] = a1 * b2 - a2 * b1;
                    d[e1] = a2 * b0 - a0 * b2;
                    d[e2] = a0 * b1 - a1 * b0;
                } else {
                    d[e0] = a[e1] * b[e2] - a[e2] * b[e1];
                    d[e1] = a[e2] * b[e0] - a[e0] * b[e2];
                    d[e2] = a[e0] * b[e1] - a[e1] * b[e0];
                }
            } else if (c == VC_I) {
                const int64_t *a = in[0], *b = in[1];
                int64_t *d = r;
#define M(u, v) ((uint64_t)a[u] * (uint64_t)b[v])
                d[e0] = (int64_t)(M(e1, e2) - M(e2, e1));
                d[e1] = (int64_t)(M(e2, e0) - M(e0, e2));
                d[e2] = (int64_t)(M(e0, e1) - M(e1, e0));
#undef M
            } else {
                const double complex *a = in[0], *b = in[1];
                double complex *d = r;
                d[e0] = a[e1] * b[e2] - a[e2] * b[e1];
                d[e1] = a[e2] * b[e0] - a[e0] * b[e2];
                d[e2] = a[e0] * b[e1] - a[e1] * b[e0];
            }
        }
    (void)len;
}

static aclnnStatus prod_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const prod_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const md_class c = md_class_of(p->pdt);
    const int nin = ex->n_in;
    if (p->kind == PR_EQUAL && !p->same_shape) {
        const int64_t f = 0;
        md_store(&f, ACL_INT64, o);
        return ACLNN_SUCCESS;
    }
    void *in[3] = {NULL, NULL, NULL};
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int i = 0; i < nin && !rc; i++) {
        if (p->kind == PR_ADDR && i == 0 && p->beta_mode == 0) continue; /* self ignored (beta == 0): never read */
        const bool bc = p->kind == PR_CROSS || (p->kind == PR_ADDR && i == 0);
        in[i] = prod_load(ex, i, p, bc ? o : NULL);
        if (!in[i]) rc = OOM;
    }
    void *r = rc ? NULL : md_alloc(md_numel(o), md_class_size(c));
    if (!rc && !r) rc = OOM;
    if (!rc) {
        switch (p->kind) {
        case PR_DOT:
        case PR_TRACE: run_dot_trace(p, c, in, &ex->io[0], r); break;
        case PR_GER:
        case PR_ADDR: run_outer(p, c, in, o->dims[0], o->dims[1], r); break;
        case PR_CROSS: run_cross(p, c, in, o, r); break;
        case PR_EQUAL: {
            const int64_t n = md_numel(&ex->io[0]);
            bool eq = true;
            for (int64_t i = 0; eq && i < n; i++)
                eq = c == VC_F ? ((double *)in[0])[i] == ((double *)in[1])[i]
                               : ((int64_t *)in[0])[i] == ((int64_t *)in[1])[i];
            *(int64_t *)r = eq;
            break;
        }
        default: break;
        }
        rc = p->kind == PR_EQUAL ? (md_store(r, ACL_INT64, o), ACLNN_SUCCESS)
                                 : md_store_via(r, md_class_dt(c), p->rdt, o);
    }
    free(r);
    for (int i = 0; i < nin; i++) free(in[i]);
    return rc;
}

static aclnnStatus prod_exec(int op, const prod_params *pp, const aclTensor *const *ins, const char *const *inn,
                             const bool *need, int nin, aclTensor *out, const char *oname, uint64_t *ws,
                             aclOpExecutor **exo) {
    const aclTensor *outs[] = {out};
    const char *outn[] = {oname};
    return mk_exec(op, prod_run, sizeof *pp, ins, inn, need, nin, outs, outn, 1, ws, exo, NULL, pp);
}

aclnnStatus opws_Dot(const aclTensor *self, const aclTensor *tensor, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(tensor, "tensor");
    NN(out, "out");
    ACL_TRY(acl_check_same_dtype(self, "self", tensor, "tensor"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Dot, "self"));
    ACLNN_CHECK(self->ndim == 1 && tensor->ndim == 1, ACLNN_ERR_PARAM_INVALID,
                "expected 1-D self and tensor, got %llu-D and %llu-D.", (unsigned long long)self->ndim,
                (unsigned long long)tensor->ndim);
    ACLNN_CHECK(self->dims[0] == tensor->dims[0], ACLNN_ERR_PARAM_INVALID,
                "self and tensor should have the same size, got %lld and %lld.", (long long)self->dims[0],
                (long long)tensor->dims[0]);
    ACLNN_CHECK(out->ndim == 0, ACLNN_ERR_PARAM_INVALID, "expected a 0-D out, got %llu-D.",
                (unsigned long long)out->ndim);
    /* empty vectors: out is filled with 0 (the sum over nothing) */
    const prod_params pp = {.kind = PR_DOT, .pdt = self->dtype, .rdt = self->dtype};
    const aclTensor *ins[] = {self, tensor};
    const char *inn[] = {"self", "tensor"};
    return prod_exec(ACL_OP_Dot, &pp, ins, inn, NULL, 2, out, "out", workspaceSize, executor);
}

aclnnStatus opws_Ger(const aclTensor *self, const aclTensor *vec2, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(vec2, "vec2");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Ger, "self"));
    ACL_TRY(acl_check_dtype_in(vec2, ACL_DT_LIST_Ger, "vec2"));
    const aclDataType p = acl_promote(self->dtype, vec2->dtype);
    ACLNN_CHECK(p != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "self dtype %s and vec2 dtype %s can not promote.",
                acl_dtype_name(self->dtype), acl_dtype_name(vec2->dtype));
    ACLNN_CHECK(acl_dt_known(out->dtype) && acl_can_cast(p, out->dtype), ACLNN_ERR_PARAM_INVALID,
                "the promoted dtype %s can not be cast to out dtype %s.", acl_dtype_name(p),
                acl_dtype_name(out->dtype));
    ACLNN_CHECK(self->ndim == 1, ACLNN_ERR_PARAM_INVALID, "self should be 1-D, got %llu-D.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(vec2->ndim == 1, ACLNN_ERR_PARAM_INVALID, "vec2 should be 1-D, got %llu-D.",
                (unsigned long long)vec2->ndim);
    ACLNN_CHECK(out->ndim == 2, ACLNN_ERR_PARAM_INVALID, "out should be 2-D, got %llu-D.",
                (unsigned long long)out->ndim);
    ACLNN_CHECK(out->dims[0] == self->dims[0] && out->dims[1] == vec2->dims[0], ACLNN_ERR_PARAM_INVALID,
                "out shape should be [%lld, %lld].", (long long)self->dims[0], (long long)vec2->dims[0]);
    if (acl_tensor_empty(self) || acl_tensor_empty(vec2)) return acl_exec_noop(ACL_OP_Ger, workspaceSize, executor);
    const prod_params pp = {.kind = PR_GER, .pdt = p, .rdt = p};
    const aclTensor *ins[] = {self, vec2};
    const char *inn[] = {"self", "vec2"};
    return prod_exec(ACL_OP_Ger, &pp, ins, inn, NULL, 2, out, "out", workspaceSize, executor);
}

static bool is_integral(aclDataType d) { return acl_dt_is_int(d) || d == ACL_BOOL; }

static aclnnStatus addr_common(int op, const aclTensor *self, const aclTensor *vec1, const aclTensor *vec2,
                               const aclScalar *beta, const aclScalar *alpha, aclTensor *out, bool inplace,
                               uint64_t *ws, aclOpExecutor **exo) {
    const char *sn = inplace ? "selfRef" : "self";
    NN(self, sn);
    NN(vec1, "vec1");
    NN(vec2, "vec2");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Addr, sn));
    ACL_TRY(acl_check_dtype_in(vec1, ACL_DT_LIST_Addr, "vec1"));
    ACL_TRY(acl_check_dtype_in(vec2, ACL_DT_LIST_Addr, "vec2"));
    if (!inplace) ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Addr, "out"));
    if (beta) ACL_TRY(md_check_scalar_dtype(beta, ACL_DT_LIST_Addr, "betaOptional"));
    if (alpha) ACL_TRY(md_check_scalar_dtype(alpha, ACL_DT_LIST_Addr, "alphaOptional"));
    const aclDataType p = acl_promote(self->dtype, acl_promote(vec2->dtype, vec1->dtype));
    const bool ints = is_integral(self->dtype) && is_integral(vec1->dtype) && is_integral(vec2->dtype);
    ACLNN_CHECK(!(beta && p != ACL_BOOL && beta->dtype == ACL_BOOL), ACLNN_ERR_PARAM_INVALID,
                "Boolean betaOptional only supported for Boolean results.");
    ACLNN_CHECK(!(alpha && p != ACL_BOOL && alpha->dtype == ACL_BOOL), ACLNN_ERR_PARAM_INVALID,
                "Boolean alphaOptional only supported for Boolean results.");
    ACLNN_CHECK(!(ints && beta && !is_integral(beta->dtype)), ACLNN_ERR_PARAM_INVALID,
                "For integral input tensors, betaOptional must not be a floating point number.");
    ACLNN_CHECK(!(ints && alpha && !is_integral(alpha->dtype)), ACLNN_ERR_PARAM_INVALID,
                "For integral input tensors, alphaOptional must not be a floating point number.");
    ACLNN_CHECK(vec1->ndim == 1, ACLNN_ERR_PARAM_INVALID, "vec1 should be 1-D, got %llu-D.",
                (unsigned long long)vec1->ndim);
    ACLNN_CHECK(vec2->ndim == 1, ACLNN_ERR_PARAM_INVALID, "vec2 should be 1-D, got %llu-D.",
                (unsigned long long)vec2->ndim);
    ACLNN_CHECK(self->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "%s should have at most 2 dims, has %llu.", sn,
                (unsigned long long)self->ndim);
    if (self == out)
        ACLNN_CHECK(self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "%s should be 2-D, got %llu-D.", sn,
                    (unsigned long long)self->ndim);
    const int64_t outer[2] = {vec1->dims[0], vec2->dims[0]};
    int64_t b[ACL_MAX_TENSOR_DIMS];
    int nb = (int)self->ndim;
    memcpy(b, self->dims, sizeof(int64_t) * (size_t)nb);
    if (self != out)
        ACLNN_CHECK(md_broadcast(self->dims, (int)self->ndim, outer, 2, b, &nb), ACLNN_ERR_PARAM_INVALID,
                    "the size of %s can not be broadcast to the outer product [%lld, %lld].", sn,
                    (long long)outer[0], (long long)outer[1]);
    ACLNN_CHECK(nb == 2 && b[0] == outer[0] && b[1] == outer[1], ACLNN_ERR_PARAM_INVALID,
                "size mismatch: %s broadcasts to %d dims, vec1 %lld, vec2 %lld.", sn, nb, (long long)outer[0],
                (long long)outer[1]);
    if (acl_tensor_empty(vec1) || acl_tensor_empty(vec2)) return acl_exec_noop(op, ws, exo);
    /* out's shape is checked on the compute path only (addrOutHandle) */
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == outer[0] && out->dims[1] == outer[1], ACLNN_ERR_PARAM_INVALID,
                "out shape should be [%lld, %lld].", (long long)outer[0], (long long)outer[1]);
    prod_params pp = {.kind = PR_ADDR, .pdt = p, .rdt = p};
    /* alpha scales vec1 when given and != 1 (its float value); beta: NULL or 1 -> self + outer, 0 -> outer only */
    pp.alpha_scale = alpha && acl_read_f64(alpha->bytes, alpha->dtype) != 1.0;
    const double bv = beta ? acl_read_f64(beta->bytes, beta->dtype) : 1.0;
    pp.beta_mode = bv == 0.0 ? 0 : bv == 1.0 ? 1 : 2;
    if (alpha) acl_convert(alpha->bytes, alpha->dtype, 1, pp.alpha, p, 1, 1);
    if (beta) acl_convert(beta->bytes, beta->dtype, 1, pp.beta, p, 1, 1);
    const aclTensor *ins[] = {self, vec1, vec2};
    const char *inn[] = {sn, "vec1", "vec2"};
    const bool need[] = {pp.beta_mode != 0, true, true};
    return prod_exec(op, &pp, ins, inn, need, 3, out, inplace ? "selfRef" : "out", ws, exo);
}

aclnnStatus opws_Addr(const aclTensor *self, const aclTensor *vec1, const aclTensor *vec2,
                      const aclScalar *betaOptional, const aclScalar *alphaOptional, aclTensor *out,
                      uint64_t *workspaceSize, aclOpExecutor **executor) {
    return addr_common(ACL_OP_Addr, self, vec1, vec2, betaOptional, alphaOptional, out, false, workspaceSize,
                       executor);
}

aclnnStatus opws_InplaceAddr(aclTensor *selfRef, const aclTensor *vec1, const aclTensor *vec2,
                             const aclScalar *betaOptional, const aclScalar *alphaOptional,
                             uint64_t *workspaceSize, aclOpExecutor **executor) {
    return addr_common(ACL_OP_InplaceAddr, selfRef, vec1, vec2, betaOptional, alphaOptional, selfRef, true,
                       workspaceSize, executor);
}

aclnnStatus opws_Trace(const aclTensor *self, aclTensor *out, uint64_t *workspaceSize,
                       aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    ACLNN_CHECK(self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "self should be a matrix (2-D), got a tensor with %llu dims.",
                (unsigned long long)self->ndim);
    ACLNN_CHECK(out->ndim == 0, ACLNN_ERR_PARAM_INVALID, "expected a 0-D out, got %llu-D.",
                (unsigned long long)out->ndim);
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_Trace, "self"));
    const aclDataType want = is_integral(self->dtype) ? ACL_INT64 : self->dtype;
    ACLNN_CHECK(out->dtype == want, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be %s.", acl_dtype_name(out->dtype),
                acl_dtype_name(want));
    /* f16/bf16 are summed as f32 and cast back; an empty matrix gives 0 */
    const aclDataType cdt = is_half(self->dtype) ? ACL_FLOAT : self->dtype;
    const prod_params pp = {.kind = PR_TRACE, .pdt = cdt, .rdt = want == ACL_INT64 ? ACL_INT64 : cdt};
    const aclTensor *ins[] = {self};
    const char *inn[] = {"self"};
    return prod_exec(ACL_OP_Trace, &pp, ins, inn, NULL, 1, out, "out", workspaceSize, executor);
}

aclnnStatus opws_Equal(const aclTensor *self, const aclTensor *other, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(other, "other");
    NN(out, "out");
    aclDataType p = acl_promote(self->dtype, other->dtype);
    ACLNN_CHECK(p != ACL_DT_UNDEFINED, ACLNN_ERR_PARAM_INVALID, "self dtype %s and other dtype %s can not promote.",
                acl_dtype_name(self->dtype), acl_dtype_name(other->dtype));
    ACLNN_CHECK(md_dt_in(p, ACL_DT_LIST_Equal), ACLNN_ERR_PARAM_INVALID,
                "self dtype %s and other dtype %s promote to %s, which is not supported.",
                acl_dtype_name(self->dtype), acl_dtype_name(other->dtype), acl_dtype_name(p));
    ACL_TRY(acl_check_dtype_in(out, ACL_DT_LIST_Equal_out, "out"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(other, "other"));
    ACL_TRY(md_check_max_dim(out, "out"));
    ACLNN_CHECK(out->ndim == 1 && out->dims[0] == 1, ACLNN_ERR_PARAM_INVALID, "out shape should be [1].");
    const bool same = md_shape_is(self, other->dims, (int)other->ndim);
    /* different shapes: false; the same empty shape: true; else compared in the promoted dtype (bf16 as f32) */
    if (p == ACL_BF16) p = ACL_FLOAT;
    const prod_params pp = {.kind = PR_EQUAL, .pdt = p, .rdt = ACL_BOOL, .same_shape = same};
    const aclTensor *ins[] = {self, other};
    const char *inn[] = {"self", "other"};
    const bool need[] = {same, same};
    return prod_exec(ACL_OP_Equal, &pp, ins, inn, need, 2, out, "out", workspaceSize, executor);
}

aclnnStatus opws_LinalgCross(const aclTensor *self, const aclTensor *other, int64_t dim,
                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(other, "other");
    NN(out, "out");
    ACL_TRY(acl_check_dtype_in(self, ACL_DT_LIST_LinalgCross, "self"));
    ACL_TRY(acl_check_same_dtype(other, "other", self, "self"));
    ACL_TRY(acl_check_same_dtype(out, "out", self, "self"));
    ACL_TRY(md_check_max_dim(self, "self"));
    ACL_TRY(md_check_max_dim(other, "other"));
    ACL_TRY(md_check_max_dim(out, "out"));
    int64_t b[ACL_MAX_TENSOR_DIMS];
    int nb = 0;
    ACLNN_CHECK(md_broadcast(self->dims, (int)self->ndim, other->dims, (int)other->ndim, b, &nb),
                ACLNN_ERR_PARAM_INVALID, "self and other can not be broadcast.");
    ACLNN_CHECK(md_shape_is(out, b, nb), ACLNN_ERR_PARAM_INVALID,
                "out shape should be the broadcast shape of self and other.");
    const int64_t r = (int64_t)self->ndim;
    ACLNN_CHECK(dim >= -r && dim < r, ACLNN_ERR_PARAM_INVALID, "dim %lld should be in the range [%lld, %lld].",
                (long long)dim, (long long)-r, (long long)(r - 1));
    if (acl_tensor_empty(out)) return acl_exec_noop(ACL_OP_LinalgCross, workspaceSize, executor);
    /* a non-negative dim counts from self's first dim, shifted when other has more dims (upstream's dimInner) */
    int64_t d = dim;
    if (!md_shape_is(self, other->dims, (int)other->ndim) && d >= 0 && self->ndim < other->ndim)
        d += (int64_t)(other->ndim - self->ndim);
    if (d < 0) d += nb;
    ACLNN_CHECK(d >= 0 && d < nb && b[d] == 3, ACLNN_ERR_PARAM_INVALID, "dimension %lld does not have size 3.",
                (long long)dim);
    const prod_params pp = {.kind = PR_CROSS, .pdt = self->dtype, .rdt = self->dtype, .dim = (int)d};
    const aclTensor *ins[] = {self, other};
    const char *inn[] = {"self", "other"};
    return prod_exec(ACL_OP_LinalgCross, &pp, ins, inn, NULL, 2, out, "out", workspaceSize, executor);
}
