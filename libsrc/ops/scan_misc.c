/* Scans (Cumsum, CumsumV2, Cumprod, InplaceCumprod, Cummax, Cummin), tensor-list sums (Sum, AddN, MaxN, MinN),
 * small products (Dot, Ger, Addr, InplaceAddr, Trace, LinalgCross), Equal, Sort, Argsort, SearchSorted(s), Bincount,
 * Histc, OneHot, MaskedSelect, InplaceFillDiagonal, IsInScalarTensor: dense computations (dense.h) in double or
 * int64, one rounding to the output dtype, serial (deterministic). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/dense.h"
#include "ops/gen/all_ops.h"


static const aclDataType k_real[] = {ACL_FLOAT, ACL_FLOAT16, ACL_BF16, ACL_DOUBLE, ACL_INT8, ACL_INT16, ACL_INT32,
                                     ACL_INT64, ACL_UINT8, ACL_BOOL};
#define NREAL ACL_COUNT_OF(k_real)

static bool is_int_dt(aclDataType d) { return acl_dt_is_int(d) || d == ACL_BOOL; }

/* ================================================================ scans */
enum { SC_SUM, SC_PROD, SC_MAX, SC_MIN };
typedef struct { int kind, dim; bool exclusive, reverse; } scan_params;

static aclnnStatus scan_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const scan_params *p = ex->params;
    const acl_view *x = acl_exec_in(ex, 0), *o = acl_exec_out(ex, 0);
    const acl_view *oi = ex->n_out > 1 ? acl_exec_out(ex, 1) : NULL;
    int64_t outer, len, inner;
    dn_split(x, p->dim, &outer, &len, &inner);
    const bool ints = is_int_dt(x->dtype) && (p->kind == SC_SUM || p->kind == SC_PROD) && is_int_dt(o->dtype);
    double *d = ints ? NULL : dn_load(x);
    int64_t *iv = ints ? dn_load_i64(x) : NULL;
    int64_t *idx = oi ? malloc(sizeof(int64_t) * (size_t)(dn_numel(x) + 1)) : NULL;
    if ((!ints && !d) || (ints && !iv) || (oi && !idx)) {
        free(d); free(iv); free(idx);
        return OOM;
    }
    for (int64_t a = 0; a < outer; a++)
        for (int64_t n = 0; n < inner; n++) {
            double acc = p->kind == SC_PROD ? 1 : 0;
            int64_t iacc = p->kind == SC_PROD ? 1 : 0, best = 0;
            for (int64_t t = 0; t < len; t++) {
                int64_t i = p->reverse ? len - 1 - t : t;
                int64_t e = (a * len + i) * inner + n;
                if (p->kind == SC_MAX || p->kind == SC_MIN) {
                    double v = d[e];
                    /* PyTorch: the running extreme, ties move to the later index, NaN sticks */
                    if (t == 0 || isnan(v) || (!isnan(acc) && (p->kind == SC_MAX ? v >= acc : v <= acc))) {
                        if (!(t > 0 && isnan(acc))) { acc = v; best = i; }
                    }
                    d[e] = acc;
                    idx[e] = best;
                    continue;
                }
                if (ints) {
                    int64_t v = iv[e];
                    if (p->exclusive) iv[e] = iacc;
                    iacc = p->kind == SC_SUM ? (int64_t)((uint64_t)iacc + (uint64_t)v)
                                             : (int64_t)((uint64_t)iacc * (uint64_t)v);
                    if (!p->exclusive) iv[e] = iacc;
                } else {
                    double v = d[e];
                    if (p->exclusive) d[e] = acc;
                    acc = p->kind == SC_SUM ? acc + v : acc * v;
                    if (!p->exclusive) d[e] = acc;
                }
            }
        }
    if (ints) dn_store_i64(iv, o);
    else dn_store(d, o);
    if (oi) dn_store_i64(idx, oi);
    free(d);
    free(iv);
    free(idx);
    return ACLNN_SUCCESS;
}

static aclnnStatus scan_plan(int op, int kind, const aclTensor *self, const char *sname, int64_t dim, bool excl,
                             bool rev, aclTensor *out, const char *oname, aclTensor *idx, uint64_t *ws,
                             aclOpExecutor **exo) {
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, sname));
    ACLNN_CHECK(self->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has too many dims.", sname);
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0, ACLNN_ERR_PARAM_INVALID, "dim %lld is out of range for %s's %llu dims.", (long long)dim, sname,
                (unsigned long long)self->ndim);
    if (out != self) ACL_TRY(acl_check_same_shape(self, sname, out, oname));
    if (idx) ACL_TRY(acl_check_same_shape(self, sname, idx, "indicesOut"));
    if (acl_tensor_empty(self)) return acl_exec_noop(op, ws, exo);
    const aclTensor *ins[] = {self}, *outs[] = {out, idx};
    const char *inn[] = {sname}, *outn[] = {oname, "indicesOut"};
    void *pp;
    ACL_TRY(dn_exec(op, scan_run, sizeof(scan_params), ins, inn, 1, outs, outn, idx ? 2 : 1, ws, exo, &pp));
    *(scan_params *)pp = (scan_params){kind, (int)d, excl, rev};
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Cumsum(const aclTensor *self, int64_t dim, aclDataType dtype, aclTensor *out,
                        uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACLNN_CHECK(out->dtype == dtype, ACLNN_ERR_PARAM_INVALID, "out dtype %s should be the dtype argument %s.",
                acl_dtype_name(out->dtype), acl_dtype_name(dtype));
    return scan_plan(ACL_OP_Cumsum, SC_SUM, self, "self", dim, false, false, out, "out", NULL, workspaceSize, executor);
}

aclnnStatus opws_CumsumV2(const aclTensor *self, int64_t dim, bool exclusive, bool reverse,
                          aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    return scan_plan(ACL_OP_CumsumV2, SC_SUM, self, "self", dim, exclusive, reverse, out, "out", NULL, workspaceSize,
                     executor);
}

aclnnStatus opws_Cumprod(const aclTensor *input, const aclScalar *dim, const aclDataType dtype,
                         aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(input, "input");
    ACLNN_CHECK(dim != NULL, ACLNN_ERR_PARAM_NULLPTR, "dim must not be NULL.");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    (void)dtype;
    return scan_plan(ACL_OP_Cumprod, SC_PROD, input, "input", acl_read_i64(dim->bytes, dim->dtype), false, false, out,
                     "out", NULL, workspaceSize, executor);
}

aclnnStatus opws_InplaceCumprod(aclTensor *input, const aclScalar *dim, uint64_t *workspaceSize,
                                aclOpExecutor **executor) {
    NN(input, "input");
    ACLNN_CHECK(dim != NULL, ACLNN_ERR_PARAM_NULLPTR, "dim must not be NULL.");
    WS_EX(workspaceSize, executor);
    return scan_plan(ACL_OP_InplaceCumprod, SC_PROD, input, "input", acl_read_i64(dim->bytes, dim->dtype), false,
                     false, input, "input", NULL, workspaceSize, executor);
}

aclnnStatus opws_Cummax(const aclTensor *self, int64_t dim, aclTensor *valuesOut,
                        aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    WS_EX(workspaceSize, executor);
    return scan_plan(ACL_OP_Cummax, SC_MAX, self, "self", dim, false, false, valuesOut, "valuesOut", indicesOut,
                     workspaceSize, executor);
}

aclnnStatus opws_Cummin(const aclTensor *self, int64_t dim, aclTensor *valuesOut,
                        aclTensor *indicesOut, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(valuesOut, "valuesOut");
    NN(indicesOut, "indicesOut");
    WS_EX(workspaceSize, executor);
    return scan_plan(ACL_OP_Cummin, SC_MIN, self, "self", dim, false, false, valuesOut, "valuesOut", indicesOut,
                     workspaceSize, executor);
}

/* ================================================================ tensor-list sums */
enum { LS_SUM, LS_MAX, LS_MIN };
typedef struct { int kind; } list_params;

static aclnnStatus list_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const list_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int64_t n = dn_numel(o);
    const bool ints = is_int_dt(o->dtype);
    double *acc = calloc((size_t)n + 1, sizeof(double));
    int64_t *iacc = calloc((size_t)n + 1, sizeof(int64_t));
    if (!acc || !iacc) { free(acc); free(iacc); return OOM; }
    for (int t = 0; t < ex->n_in; t++) {
        acl_view v = ex->io[t];
        /* broadcast the input against out */
        acl_view b = *o;
        b.base = v.base;
        b.dtype = v.dtype;
        for (int k = 0; k < o->ndim; k++) {
            int kk = k - (o->ndim - v.ndim);
            b.strides[k] = (kk < 0 || v.dims[kk] == 1) ? 0 : v.strides[kk];
        }
        double *d = dn_load(&b);
        int64_t *iv = ints ? dn_load_i64(&b) : NULL;
        if (!d || (ints && !iv)) { free(d); free(iv); free(acc); free(iacc); return OOM; }
        for (int64_t i = 0; i < n; i++) {
            double x = d[i];
            if (p->kind == LS_SUM) {
                acc[i] = t ? acc[i] + x : x;
                if (ints) iacc[i] = t ? (int64_t)((uint64_t)iacc[i] + (uint64_t)iv[i]) : iv[i];
            } else if (t == 0 || isnan(x) || (!isnan(acc[i]) && (p->kind == LS_MAX ? x > acc[i] : x < acc[i]))) {
                acc[i] = x;
                if (ints) iacc[i] = iv[i];
            }
        }
        free(d);
        free(iv);
    }
    if (ints) dn_store_i64(iacc, o);
    else dn_store(acc, o);
    free(acc);
    free(iacc);
    return ACLNN_SUCCESS;
}

static aclnnStatus list_plan(int op, int kind, const aclTensorList *tensors, aclTensor *out, uint64_t *ws,
                             aclOpExecutor **exo) {
    ACLNN_CHECK(tensors != NULL, ACLNN_ERR_PARAM_NULLPTR, "tensors must not be NULL.");
    ACLNN_CHECK(acl_reg_is(tensors, ACL_KIND_TENSOR_LIST), ACLNN_ERR_PARAM_INVALID, "tensors is not a live list.");
    for (uint64_t i = 0; i < tensors->size; i++) NN(tensors->v[i], "tensors");
    NN(out, "out");
    WS_EX(ws, exo);
    ACLNN_CHECK(tensors->size > 0 && tensors->size <= 1024, ACLNN_ERR_PARAM_INVALID,
                "tensors must hold 1 to 1024 tensors, holds %llu.", (unsigned long long)tensors->size);
    ACL_TRY(acl_check_dtype_in(out, k_real, NREAL, "out"));
    for (uint64_t i = 0; i < tensors->size; i++) {
        const aclTensor *t = tensors->v[i];
        ACL_TRY(acl_check_dtype_in(t, k_real, NREAL, "tensors"));
        ACLNN_CHECK(t->ndim <= out->ndim && out->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                    "tensors[%llu] can not be broadcast to out.", (unsigned long long)i);
        for (uint64_t k = 0; k < t->ndim; k++) {
            int64_t a = t->dims[k], b = out->dims[out->ndim - t->ndim + k];
            ACLNN_CHECK(a == b || a == 1, ACLNN_ERR_PARAM_INVALID, "tensors[%llu] can not be broadcast to out's shape.",
                        (unsigned long long)i);
        }
    }
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    aclOpExecutor *ex = acl_exec_create(op, list_run, sizeof(list_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    ((list_params *)ex->params)->kind = kind;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (uint64_t i = 0; i < tensors->size && !rc; i++) rc = acl_exec_add_input(ex, tensors->v[i], "tensors", true);
    if (!rc) rc = acl_exec_add_output(ex, out, "out");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, ws, exo);
}

aclnnStatus opws_Sum(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                     aclOpExecutor **executor) {
    return list_plan(ACL_OP_Sum, LS_SUM, tensors, out, workspaceSize, executor);
}
aclnnStatus opws_AddN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return list_plan(ACL_OP_AddN, LS_SUM, tensors, out, workspaceSize, executor);
}
aclnnStatus opws_MaxN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return list_plan(ACL_OP_MaxN, LS_MAX, tensors, out, workspaceSize, executor);
}
aclnnStatus opws_MinN(const aclTensorList *tensors, aclTensor *out, uint64_t *workspaceSize,
                      aclOpExecutor **executor) {
    return list_plan(ACL_OP_MinN, LS_MIN, tensors, out, workspaceSize, executor);
}

/* ================================================================ small products */
enum { PR_DOT, PR_GER, PR_ADDR, PR_TRACE, PR_EQUAL, PR_CROSS };
typedef struct { int kind; double beta, alpha; bool has_beta; int dim; } prod_params;

static aclnnStatus prod_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const prod_params *p = ex->params;
    const acl_view *o = acl_exec_out(ex, 0);
    const int nin = ex->n_in;
    double *in[3] = {NULL, NULL, NULL};
    for (int i = 0; i < nin; i++) {
        in[i] = dn_load(&ex->io[i]);
        if (!in[i]) { for (int j = 0; j < i; j++) free(in[j]); return OOM; }
    }
    double *r = calloc((size_t)dn_numel(o) + 1, sizeof(double));
    if (!r) { for (int j = 0; j < nin; j++) free(in[j]); return OOM; }
    const acl_view *a = &ex->io[0];
    switch (p->kind) {
    case PR_DOT: {
        double s = 0;
        for (int64_t i = 0; i < dn_numel(a); i++) s += in[0][i] * in[1][i];
        r[0] = s;
        break;
    }
    case PR_GER: case PR_ADDR: {
        const double *v1 = p->kind == PR_GER ? in[0] : in[1], *v2 = p->kind == PR_GER ? in[1] : in[2];
        const int64_t m = o->dims[0], n = o->dims[1];
        for (int64_t i = 0; i < m; i++)
            for (int64_t j = 0; j < n; j++) {
                double v = v1[i] * v2[j];
                if (p->kind == PR_ADDR) {
                    /* self broadcast to (m, n) */
                    const acl_view *s = &ex->io[0];
                    int64_t si = s->ndim == 2 ? (s->dims[0] == 1 ? 0 : i) * s->dims[1] + (s->dims[1] == 1 ? 0 : j)
                               : s->ndim == 1 ? (s->dims[0] == 1 ? 0 : j) : 0;
                    double sv = in[0][si];
                    v = (p->beta == 0 ? 0 : p->beta * sv) + p->alpha * v;
                }
                r[i * n + j] = v;
            }
        break;
    }
    case PR_TRACE: {
        double s = 0;
        int64_t n = a->dims[0] < a->dims[1] ? a->dims[0] : a->dims[1];
        for (int64_t i = 0; i < n; i++) s += in[0][i * a->dims[1] + i];
        r[0] = s;
        break;
    }
    case PR_EQUAL: {
        const acl_view *b = &ex->io[1];
        bool eq = a->ndim == b->ndim;
        for (int k = 0; eq && k < a->ndim; k++) eq = a->dims[k] == b->dims[k];
        for (int64_t i = 0; eq && i < dn_numel(a); i++) eq = in[0][i] == in[1][i];
        r[0] = eq;
        break;
    }
    case PR_CROSS: {
        int64_t outer, len, inner;
        dn_split(o, p->dim, &outer, &len, &inner);
        for (int64_t x = 0; x < outer; x++)
            for (int64_t n = 0; n < inner; n++) {
#define E(arr, c) arr[(x * 3 + (c)) * inner + n]
                E(r, 0) = E(in[0], 1) * E(in[1], 2) - E(in[0], 2) * E(in[1], 1);
                E(r, 1) = E(in[0], 2) * E(in[1], 0) - E(in[0], 0) * E(in[1], 2);
                E(r, 2) = E(in[0], 0) * E(in[1], 1) - E(in[0], 1) * E(in[1], 0);
#undef E
            }
        break;
    }
    default: break;
    }
    dn_store(r, o);
    free(r);
    for (int j = 0; j < nin; j++) free(in[j]);
    return ACLNN_SUCCESS;
}

static aclnnStatus prod_exec(int op, prod_params pp, const aclTensor *const *ins, const char *const *inn, int nin,
                             aclTensor *out, const char *oname, uint64_t *ws, aclOpExecutor **exo) {
    if (acl_tensor_empty(out)) return acl_exec_noop(op, ws, exo);
    const aclTensor *outs[] = {out};
    const char *outn[] = {oname};
    void *p;
    ACL_TRY(dn_exec(op, prod_run, sizeof(prod_params), ins, inn, nin, outs, outn, 1, ws, exo, &p));
    *(prod_params *)p = pp;
    return ACLNN_SUCCESS;
}

static aclnnStatus check_1d(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t->ndim == 1, ACLNN_ERR_PARAM_INVALID, "%s must be 1-d, has %llu dims.", name,
                (unsigned long long)t->ndim);
    return ACLNN_SUCCESS;
}

static aclnnStatus check_numel1(const aclTensor *t, const char *name) {
    ACLNN_CHECK(acl_tensor_numel(t) == 1 && t->ndim <= 1, ACLNN_ERR_PARAM_INVALID,
                "%s must be 0-d or hold one element.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus opws_Dot(const aclTensor *self, const aclTensor *tensor, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(tensor, "tensor");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACL_TRY(acl_check_same_dtype(self, "self", tensor, "tensor"));
    ACL_TRY(acl_check_same_dtype(self, "self", out, "out"));
    ACL_TRY(check_1d(self, "self"));
    ACL_TRY(check_1d(tensor, "tensor"));
    ACLNN_CHECK(self->dims[0] == tensor->dims[0], ACLNN_ERR_PARAM_INVALID, "self and tensor differ in length.");
    ACLNN_CHECK(out->ndim == 0 || acl_tensor_numel(out) == 1, ACLNN_ERR_PARAM_INVALID, "out must be 0-d.");
    const aclTensor *ins[] = {self, tensor};
    const char *inn[] = {"self", "tensor"};
    return prod_exec(ACL_OP_Dot, (prod_params){PR_DOT, 0, 0, false, 0}, ins, inn, 2, out, "out", workspaceSize,
                     executor);
}

aclnnStatus opws_Ger(const aclTensor *self, const aclTensor *vec2, aclTensor *out,
                     uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(vec2, "vec2");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACL_TRY(acl_check_dtype_in(vec2, k_real, NREAL, "vec2"));
    ACL_TRY(check_1d(self, "self"));
    ACL_TRY(check_1d(vec2, "vec2"));
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == self->dims[0] && out->dims[1] == vec2->dims[0],
                ACLNN_ERR_PARAM_INVALID, "out must have shape [%lld, %lld].", (long long)self->dims[0],
                (long long)vec2->dims[0]);
    const aclTensor *ins[] = {self, vec2};
    const char *inn[] = {"self", "vec2"};
    return prod_exec(ACL_OP_Ger, (prod_params){PR_GER, 0, 0, false, 0}, ins, inn, 2, out, "out", workspaceSize,
                     executor);
}

static aclnnStatus addr_common(int op, const aclTensor *self, const aclTensor *vec1, const aclTensor *vec2,
                               const aclScalar *beta, const aclScalar *alpha, aclTensor *out, bool inplace,
                               uint64_t *ws, aclOpExecutor **exo) {
    NN(self, inplace ? "selfRef" : "self");
    NN(vec1, "vec1");
    NN(vec2, "vec2");
    if (!inplace) NN(out, "out");
    WS_EX(ws, exo);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACL_TRY(check_1d(vec1, "vec1"));
    ACL_TRY(check_1d(vec2, "vec2"));
    ACLNN_CHECK(out->ndim == 2 && out->dims[0] == vec1->dims[0] && out->dims[1] == vec2->dims[0],
                ACLNN_ERR_PARAM_INVALID, "%s must have shape [%lld, %lld].", inplace ? "selfRef" : "out",
                (long long)vec1->dims[0], (long long)vec2->dims[0]);
    ACLNN_CHECK(self->ndim <= 2, ACLNN_ERR_PARAM_INVALID, "self must have at most 2 dims.");
    prod_params pp = {PR_ADDR, beta ? acl_read_f64(beta->bytes, beta->dtype) : 1.0,
                      alpha ? acl_read_f64(alpha->bytes, alpha->dtype) : 1.0, beta != NULL, 0};
    const aclTensor *ins[] = {self, vec1, vec2};
    const char *inn[] = {"self", "vec1", "vec2"};
    return prod_exec(op, pp, ins, inn, 3, out, inplace ? "selfRef" : "out", ws, exo);
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
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACLNN_CHECK(self->ndim == 2, ACLNN_ERR_PARAM_INVALID, "self must be 2-d, has %llu dims.",
                (unsigned long long)self->ndim);
    ACL_TRY(check_numel1(out, "out"));
    const aclTensor *ins[] = {self};
    const char *inn[] = {"self"};
    return prod_exec(ACL_OP_Trace, (prod_params){PR_TRACE, 0, 0, false, 0}, ins, inn, 1, out, "out", workspaceSize,
                     executor);
}

aclnnStatus opws_Equal(const aclTensor *self, const aclTensor *other, aclTensor *out,
                       uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(other, "other");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACL_TRY(acl_check_dtype_in(other, k_real, NREAL, "other"));
    ACL_TRY(check_numel1(out, "out"));
    ACLNN_CHECK(self->ndim <= ACL_MAX_VIEW_RANK && other->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID,
                "too many dims.");
    const aclTensor *ins[] = {self, other};
    const char *inn[] = {"self", "other"};
    return prod_exec(ACL_OP_Equal, (prod_params){PR_EQUAL, 0, 0, false, 0}, ins, inn, 2, out, "out", workspaceSize,
                     executor);
}

aclnnStatus opws_LinalgCross(const aclTensor *self, const aclTensor *other, int64_t dim,
                             aclTensor *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    NN(self, "self");
    NN(other, "other");
    NN(out, "out");
    WS_EX(workspaceSize, executor);
    ACL_TRY(acl_check_dtype_in(self, k_real, NREAL, "self"));
    ACL_TRY(acl_check_same_shape(self, "self", other, "other"));
    ACL_TRY(acl_check_same_shape(self, "self", out, "out"));
    int64_t d = cp_wrap_dim(dim, (int64_t)self->ndim);
    ACLNN_CHECK(d >= 0 && self->dims[d] == 3, ACLNN_ERR_PARAM_INVALID, "dim %lld must index a dim of size 3.",
                (long long)dim);
    const aclTensor *ins[] = {self, other};
    const char *inn[] = {"self", "other"};
    return prod_exec(ACL_OP_LinalgCross, (prod_params){PR_CROSS, 0, 0, false, (int)d}, ins, inn, 2, out, "out",
                     workspaceSize, executor);
}
