/* The shared first phase and runner of the foreach family (ops-nn foreach/, see ops/foreach.h).
 *
 * Validation, in the order the op_api sources of the V2 ops check (the auto-generated first phases of the other
 * ops check the same facts: required arguments, the dtype combinations of their binaries, equal list lengths and
 * shapes): NULL arguments in API order (161001); then, when the lists are not empty, a NULL tensor in a list, the
 * first tensor's dtype among the op's combinations, every tensor of every input list of that dtype, every output
 * of the combination's output dtype, the scalar's dtype (161002); then list lengths (inputs, scalar list / per-list
 * scalar tensor, outputs), ranks <= 8 and equal shapes tensor by tensor (161002); private formats (161002). An
 * empty list returns a no-op executor.
 *
 * Run: tensor by tensor, every input gathered into a contiguous float32 (float lists) or int64 (integer lists)
 * buffer, the generated kernel applied in fixed chunks (owner partitions: the same bytes for any thread count),
 * the result rounded once to the output's dtype and scattered into the output view. Inputs are gathered before
 * the output of the same index is written, so in-place ops and outputs aliasing their own inputs are exact. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/dtype_rules.h"
#include "common/parallel.h"
#include "common/status.h"
#include "ops/copy_plan.h"
#include "ops/foreach.h"
#include "ops/gen/all_ops.h"

#define FE_CHUNK 4096

typedef struct {
    const fe_desc *d;
    int64_t n;              /* tensors per list */
    aclDataType xdt;
    bool int_class;         /* compute in int64 */
    int sslot;              /* io slot of a scalar tensor, -1 */
    double *sv;             /* per-tensor scalar values (aclScalar / aclScalarList), already in the scalar dtype */
} fe_params;

static void fe_free(void *p) {
    fe_params *fp = p;
    if (fp) free(fp->sv);
    free(fp);
}

static bool is_int_dt(aclDataType d) {
    return d == ACL_INT8 || d == ACL_INT16 || d == ACL_INT32 || d == ACL_INT64 || d == ACL_UINT8 ||
           d == ACL_UINT16 || d == ACL_UINT32 || d == ACL_UINT64 || d == ACL_BOOL;
}

static void contig_strides(const acl_view *v, int64_t *st) {
    int64_t s = 1;
    for (int k = v->ndim - 1; k >= 0; k--) {
        st[k] = s;
        s *= v->dims[k];
    }
}

static double read_elem(const acl_view *v, int64_t i) {
    int64_t off = 0, rem = i;
    for (int k = v->ndim - 1; k >= 0; k--) {
        off += (rem % v->dims[k]) * v->strides[k];
        rem /= v->dims[k];
    }
    double r = 0;
    acl_convert(v->base + off * (int64_t)acl_dtype_size(v->dtype), v->dtype, 1, &r, ACL_DOUBLE, 1, 1);
    return r;
}

static aclnnStatus fe_run(aclOpExecutor *ex, void *ws, uint64_t wss) {
    (void)ws;
    (void)wss;
    const fe_params *p = ex->params;
    const fe_desc *d = p->d;
    const aclDataType cdt = p->int_class ? ACL_INT64 : ACL_FLOAT;
    const size_t es = p->int_class ? sizeof(int64_t) : sizeof(float);
    for (int64_t i = 0; i < p->n; i++) {
        const acl_view *o = acl_exec_out(ex, (int)i);
        const int64_t m = acl_view_numel(o);
        if (m == 0) continue;
        if (d->mode == FE_NORM || d->mode == FE_UNSCALE) {
            const acl_view *x = acl_exec_in(ex, (int)i);
            const int64_t mx = acl_view_numel(x);
            float *buf = malloc(sizeof(float) * (size_t)(mx ? mx : 1));
            if (!buf) return OOM;
            int64_t st[ACL_MAX_VIEW_RANK];
            contig_strides(x, st);
            if (mx) cp_copy(x->base, x->dtype, x->strides, (char *)buf, ACL_FLOAT, st, x->dims, x->ndim);
            if (d->mode == FE_NORM) { /* in element order, in double: deterministic */
                const bool l1 = (int)p->sv[0] == 1;
                double acc = 0;
                for (int64_t k = 0; k < mx; k++) acc += l1 ? fabs((double)buf[k]) : (double)buf[k] * buf[k];
                const float r = (float)(l1 ? acc : sqrt(acc));
                acl_convert(&r, ACL_FLOAT, 1, o->base, o->dtype, 1, 1);
            } else {
                const float inv = (float)read_elem(acl_exec_in(ex, p->sslot), 0);
                bool bad = false;
                for (int64_t k = 0; k < mx; k++) {
                    bad = bad || !isfinite(buf[k]);
                    buf[k] *= inv;
                }
                cp_copy((const char *)buf, ACL_FLOAT, st, o->base, o->dtype, o->strides, o->dims, o->ndim);
                if (bad) {
                    const acl_view *fi = acl_exec_out(ex, (int)p->n);
                    const float one = 1.0f;
                    acl_convert(&one, ACL_FLOAT, 1, fi->base, fi->dtype, 1, 1);
                }
            }
            free(buf);
            continue;
        }
        if (d->copy) { /* the gather-free conversion, staged when it aliases */
            const acl_view *x = acl_exec_in(ex, (int)i);
            char *buf = malloc(acl_dtype_size(x->dtype) * (size_t)m);
            if (!buf) return OOM;
            int64_t st[ACL_MAX_VIEW_RANK];
            contig_strides(x, st);
            cp_copy(x->base, x->dtype, x->strides, buf, x->dtype, st, x->dims, x->ndim);
            cp_copy(buf, x->dtype, st, o->base, o->dtype, o->strides, o->dims, o->ndim);
            free(buf);
            continue;
        }
        char *in[3] = {NULL, NULL, NULL};
        char *y = malloc(es * (size_t)m);
        bool ok = y != NULL;
        int64_t st[ACL_MAX_VIEW_RANK];
        contig_strides(o, st);
        for (int l = 0; l < d->nlists && ok; l++) {
            const acl_view *x = acl_exec_in(ex, (int)(l * p->n + i));
            in[l] = malloc(es * (size_t)m);
            ok = in[l] != NULL;
            if (ok) cp_copy(x->base, x->dtype, x->strides, in[l], cdt, st, x->dims, x->ndim);
        }
        if (!ok) {
            for (int l = 0; l < 3; l++) free(in[l]);
            free(y);
            return OOM;
        }
        double sd = 0;
        if (p->sslot >= 0) {
            const acl_view *sv = acl_exec_in(ex, p->sslot);
            sd = read_elem(sv, d->skind == FE_S_TENSOR_PER ? i : 0);
        } else if (p->sv) {
            sd = p->sv[i];
        }
        const int64_t nch = (m + FE_CHUNK - 1) / FE_CHUNK;
        if (p->int_class) {
            const int64_t si = (int64_t)sd;
            const int64_t *a = (const int64_t *)in[0], *b = (const int64_t *)in[1], *c = (const int64_t *)in[2];
            ACL_FOR(nch > 1 && acl_parallel_worth(m), k, 0, nch, {
                const int64_t o0 = k * FE_CHUNK, len = m - o0 < FE_CHUNK ? m - o0 : FE_CHUNK;
                d->ki(len, a + o0, b ? b + o0 : NULL, c ? c + o0 : NULL, si, (int64_t *)y + o0);
            });
        } else {
            const float sf = (float)sd;
            const float *a = (const float *)in[0], *b = (const float *)in[1], *c = (const float *)in[2];
            ACL_FOR(nch > 1 && acl_parallel_worth(m), k, 0, nch, {
                const int64_t o0 = k * FE_CHUNK, len = m - o0 < FE_CHUNK ? m - o0 : FE_CHUNK;
                d->kf(len, a + o0, b ? b + o0 : NULL, c ? c + o0 : NULL, sf, (float *)y + o0);
            });
        }
        cp_copy(y, cdt, st, o->base, o->dtype, o->strides, o->dims, o->ndim);
        for (int l = 0; l < 3; l++) free(in[l]);
        free(y);
    }
    return ACLNN_SUCCESS;
}

static bool same_shape(const aclTensor *a, const aclTensor *b) {
    if (a->ndim != b->ndim) return false;
    for (uint64_t k = 0; k < a->ndim; k++)
        if (a->dims[k] != b->dims[k]) return false;
    return true;
}

static const fe_combo *find_combo(const fe_desc *d, aclDataType x) {
    for (int k = 0; k < d->ncombos; k++)
        if (d->combos[k].x == x) return &d->combos[k];
    return NULL;
}

/* the dtype a scalar of this combination must have (V2: the rule of the op_api sources) */
static bool scalar_dtype_ok(const fe_desc *d, aclDataType x, aclDataType s) {
    if (d->srule == FE_SR_NONE) return true;
    if (d->skind == FE_S_SCALAR_V2 || d->srule == FE_SR_V2) {
        if (x == ACL_FLOAT || x == ACL_BF16) return s == ACL_FLOAT || s == ACL_DOUBLE;
        if (x == ACL_FLOAT16) return s == ACL_FLOAT16 || s == ACL_DOUBLE;
        return s == ACL_INT32 || s == ACL_INT64;
    }
    for (int k = 0; k < d->ncombos; k++)
        if (d->combos[k].x == x && d->combos[k].s == s) return true;
    return false;
}

/* the dtype the device converts an aclScalar to before the kernel (ConvertToTensor) */
static aclDataType scalar_target(const fe_desc *d, const fe_combo *c) {
    if (d->skind == FE_S_SCALAR_V2) return c->x == ACL_BF16 ? ACL_FLOAT : is_int_dt(c->x) ? ACL_INT32 : c->x;
    return c->s;
}

static aclnnStatus check_list(const aclTensorList *l, const char *name) {
    ACLNN_CHECK(l != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", name);
    return ACLNN_SUCCESS;
}

aclnnStatus fe_workspace(const fe_desc *d, const aclTensorList *const *lists, const void *scalar,
                         const aclTensorList *out, uint64_t *workspaceSize, aclOpExecutor **executor) {
    /* NULL arguments, in API order */
    const bool has_s = d->skind != FE_S_NONE;
    if (has_s && d->scalar_first) ACLNN_CHECK(scalar != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", d->sname);
    for (int l = 0; l < d->nlists; l++) ACL_TRY(check_list(lists[l], d->lname[l]));
    if (has_s && !d->scalar_first) ACLNN_CHECK(scalar != NULL, ACLNN_ERR_PARAM_NULLPTR, "%s must not be NULL.", d->sname);
    if (!d->inplace) ACL_TRY(check_list(out, d->oname));
    ACLNN_CHECK(!d->not_on_a2, ACLNN_ERR_PARAM_INVALID,
                "%s: this interface is not supported on Atlas A2 (ASCEND910B); its kernels exist for ASCEND950 only.",
                acl_op_name(d->op));
    const aclTensorList *ol = d->inplace ? lists[0] : out;
    const char *on = d->inplace ? d->lname[0] : d->oname;
    const aclTensorList *x = lists[0];
    const int64_t n = (int64_t)x->size;
    const aclTensor *st = (d->skind == FE_S_TENSOR || d->skind == FE_S_TENSOR_PER) ? scalar : NULL;
    const aclScalar *ss = (d->skind == FE_S_SCALAR || d->skind == FE_S_SCALAR_V2) ? scalar : NULL;
    const aclScalarList *sl = d->skind == FE_S_LIST ? scalar : NULL;
    /* dtypes */
    const fe_combo *c = NULL;
    if (n > 0) {
        for (int l = 0; l < d->nlists; l++)
            for (uint64_t i = 0; i < lists[l]->size; i++)
                ACLNN_CHECK(lists[l]->v[i] != NULL, ACLNN_ERR_PARAM_INVALID, "%s[%llu] must not be NULL.",
                            d->lname[l], (unsigned long long)i);
        for (uint64_t i = 0; i < ol->size; i++)
            ACLNN_CHECK(ol->v[i] != NULL, ACLNN_ERR_PARAM_INVALID, "%s[%llu] must not be NULL.", on,
                        (unsigned long long)i);
        const aclDataType xdt = x->v[0]->dtype;
        c = find_combo(d, xdt);
        ACLNN_CHECK(c != NULL, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be in the dtype support list.",
                    d->lname[0], acl_dtype_name(xdt));
        for (int l = 0; l < d->nlists; l++)
            for (uint64_t i = 0; i < lists[l]->size; i++)
                ACLNN_CHECK(lists[l]->v[i]->dtype == xdt, ACLNN_ERR_PARAM_INVALID,
                            "%s[%llu] dtype %s should be %s (the dtype of %s[0]).", d->lname[l], (unsigned long long)i,
                            acl_dtype_name(lists[l]->v[i]->dtype), acl_dtype_name(xdt), d->lname[0]);
        for (uint64_t i = 0; i < ol->size && !d->inplace; i++)
            ACLNN_CHECK(ol->v[i]->dtype == ol->v[0]->dtype, ACLNN_ERR_PARAM_INVALID,
                        "%s[%llu] dtype %s should be %s (the dtype of %s[0]).", on, (unsigned long long)i,
                        acl_dtype_name(ol->v[i]->dtype), acl_dtype_name(ol->v[0]->dtype), on);
        for (uint64_t i = 0; i < ol->size && !d->inplace; i++) {
            aclDataType od = ol->v[i]->dtype;
            bool ok = false;
            for (int k = 0; k < d->ncombos && !ok; k++) ok = d->combos[k].x == xdt && d->combos[k].y == od;
            ACLNN_CHECK(ok, ACLNN_ERR_PARAM_INVALID, "%s[%llu] dtype %s does not match %s dtype %s.", on,
                        (unsigned long long)i, acl_dtype_name(od), d->lname[0], acl_dtype_name(xdt));
        }
        if (st) ACLNN_CHECK(scalar_dtype_ok(d, xdt, st->dtype), ACLNN_ERR_PARAM_INVALID,
                            "%s dtype %s is not supported for %s dtype %s.", d->sname, acl_dtype_name(st->dtype),
                            d->lname[0], acl_dtype_name(xdt));
        if (ss) ACLNN_CHECK(scalar_dtype_ok(d, xdt, ss->dtype) || (d->skind == FE_S_SCALAR && !d->strict_scalar),
                            ACLNN_ERR_PARAM_INVALID,
                            "%s dtype %s is not supported for %s dtype %s.", d->sname, acl_dtype_name(ss->dtype),
                            d->lname[0], acl_dtype_name(xdt));
    }
    /* lengths, ranks, shapes */
    for (int l = 1; l < d->nlists; l++)
        ACLNN_CHECK(lists[l]->size == x->size, ACLNN_ERR_PARAM_INVALID,
                    "%s has %llu tensors, %s has %llu: the lengths must be equal.", d->lname[l],
                    (unsigned long long)lists[l]->size, d->lname[0], (unsigned long long)x->size);
    if (sl) ACLNN_CHECK(sl->size == x->size, ACLNN_ERR_PARAM_INVALID,
                        "%s has %llu scalars, %s has %llu tensors: the lengths must be equal.", d->sname,
                        (unsigned long long)sl->size, d->lname[0], (unsigned long long)x->size);
    for (uint64_t i = 0; sl && i < sl->size; i++)
        ACLNN_CHECK(sl->v[i] != NULL, ACLNN_ERR_PARAM_INVALID, "%s[%llu] must not be NULL.", d->sname,
                    (unsigned long long)i);
    ACLNN_CHECK(ol->size == x->size, ACLNN_ERR_PARAM_INVALID,
                "%s has %llu tensors, %s has %llu: the lengths must be equal.", on, (unsigned long long)ol->size,
                d->lname[0], (unsigned long long)x->size);
    if (st && n > 0) {
        const int64_t sn = acl_tensor_numel(st);
        ACLNN_CHECK(d->skind == FE_S_TENSOR ? sn >= 1 : sn >= n, ACLNN_ERR_PARAM_INVALID,
                    "%s holds %lld elements, %lld are needed.", d->sname, (long long)sn,
                    (long long)(d->skind == FE_S_TENSOR ? 1 : n));
    }
    for (int l = 0; l < d->nlists; l++)
        for (int64_t i = 0; i < n; i++) {
            const aclTensor *t = lists[l]->v[i];
            ACLNN_CHECK(t->ndim <= 8, ACLNN_ERR_PARAM_INVALID, "%s[%lld] has %llu dims, more than 8.", d->lname[l],
                        (long long)i, (unsigned long long)t->ndim);
            ACL_TRY(acl_check_nonneg_dims(t, d->lname[l]));
            ACLNN_CHECK(same_shape(t, x->v[i]), ACLNN_ERR_PARAM_INVALID,
                        "%s[%lld] must have the shape of %s[%lld].", d->lname[l], (long long)i, d->lname[0],
                        (long long)i);
        }
    for (int64_t i = 0; i < n && !d->inplace; i++) {
        if (d->mode == FE_NORM) {
            ACLNN_CHECK(acl_tensor_numel(ol->v[i]) == 1, ACLNN_ERR_PARAM_INVALID,
                        "%s[%lld] must hold one element (the norm of %s[%lld]).", on, (long long)i, d->lname[0],
                        (long long)i);
            continue;
        }
        ACLNN_CHECK(same_shape(ol->v[i], x->v[i]), ACLNN_ERR_PARAM_INVALID,
                    "%s[%lld] must have the shape of %s[%lld].", on, (long long)i, d->lname[0], (long long)i);
    }
    for (int l = 0; l < d->nlists; l++)
        for (int64_t i = 0; i < n; i++)
            ACLNN_CHECK(!acl_format_is_private(lists[l]->v[i]->format), ACLNN_ERR_PARAM_INVALID,
                        "%s[%lld]: format only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW.", d->lname[l],
                        (long long)i);
    for (int64_t i = 0; i < n; i++)
        ACLNN_CHECK(!acl_format_is_private(ol->v[i]->format), ACLNN_ERR_PARAM_INVALID,
                    "%s[%lld]: format only supports ND, NCHW, NHWC, HWCN, NDHWC, NCDHW.", on, (long long)i);
    if (n == 0) return acl_exec_noop(d->op, workspaceSize, executor);
    ACLNN_CHECK(n * (d->nlists + 2) < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "%s has %lld tensors, too many.",
                d->lname[0], (long long)n);
    /* the plan */
    aclOpExecutor *ex = acl_exec_create(d->op, fe_run, sizeof(fe_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    fe_params *p = ex->params;
    ex->free_params = fe_free;
    p->d = d;
    p->n = n;
    p->xdt = c->x;
    p->int_class = is_int_dt(c->x) && !d->int_as_float && d->ki != NULL;
    p->sslot = -1;
    aclnnStatus rc = ACLNN_SUCCESS;
    for (int l = 0; l < d->nlists && !rc; l++)
        for (int64_t i = 0; i < n && !rc; i++) {
            const aclTensor *t = lists[l]->v[i];
            rc = acl_exec_add_input(ex, t, d->lname[l], !acl_tensor_empty(t));
        }
    if (!rc && st) {
        p->sslot = ex->n_in;
        rc = acl_exec_add_input(ex, st, d->sname, true);
    }
    for (int64_t i = 0; i < n && !rc; i++) rc = acl_exec_add_output(ex, ol->v[i], on);
    if (!rc && (ss || sl)) {
        p->sv = malloc(sizeof(double) * (size_t)n);
        if (!p->sv) rc = OOM;
        const aclDataType tdt = scalar_target(d, c);
        for (int64_t i = 0; i < n && !rc; i++) {
            const aclScalar *s = ss ? ss : sl->v[i];
            _Alignas(16) unsigned char tmp[16];
            acl_convert(s->bytes, s->dtype, 1, tmp, tdt == ACL_DT_UNDEFINED ? s->dtype : tdt, 1, 1);
            acl_convert(tmp, tdt == ACL_DT_UNDEFINED ? s->dtype : tdt, 1, &p->sv[i], ACL_DOUBLE, 1, 1);
        }
    }
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}

aclnnStatus fe_unscale_workspace(const fe_desc *d, const aclTensorList *grads, const aclTensor *foundInf,
                                 const aclTensor *invScale, uint64_t *workspaceSize, aclOpExecutor **executor) {
    ACL_TRY(check_list(grads, d->lname[0]));
    ACL_TRY(acl_check_tensor(foundInf, "foundInf"));
    ACL_TRY(acl_check_tensor(invScale, "invScale"));
    ACLNN_CHECK(foundInf->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "foundInf dtype %s should be FLOAT.",
                acl_dtype_name(foundInf->dtype));
    ACLNN_CHECK(invScale->dtype == ACL_FLOAT, ACLNN_ERR_PARAM_INVALID, "invScale dtype %s should be FLOAT.",
                acl_dtype_name(invScale->dtype));
    ACLNN_CHECK(acl_tensor_numel(foundInf) == 1, ACLNN_ERR_PARAM_INVALID, "foundInf must hold one element.");
    ACLNN_CHECK(acl_tensor_numel(invScale) == 1, ACLNN_ERR_PARAM_INVALID, "invScale must hold one element.");
    const aclTensorList *lists[3] = {grads, NULL, NULL};
    /* the list checks of every foreach op; an empty list ends here */
    uint64_t ws0 = 0;
    aclOpExecutor *probe = NULL;
    fe_desc dd = *d;
    dd.mode = FE_MAP; /* validation only: the list rules, then the real plan below */
    dd.skind = FE_S_NONE;
    aclnnStatus rc = fe_workspace(&dd, lists, NULL, NULL, &ws0, &probe);
    if (rc) return rc;
    aclDestroyAclOpExecutor(probe);
    if (grads->size == 0) return acl_exec_noop(d->op, workspaceSize, executor);
    const int64_t n = (int64_t)grads->size;
    ACLNN_CHECK(n + 3 < ACL_EXEC_MAX_IO, ACLNN_ERR_PARAM_INVALID, "scaledGrads has %lld tensors, too many.",
                (long long)n);
    aclOpExecutor *ex = acl_exec_create(d->op, fe_run, sizeof(fe_params));
    if (!ex) return ACLNN_ERR_INNER_CREATE_EXECUTOR;
    fe_params *p = ex->params;
    ex->free_params = fe_free;
    p->d = d;
    p->n = n;
    p->xdt = grads->v[0]->dtype;
    p->sslot = -1;
    rc = ACLNN_SUCCESS;
    for (int64_t i = 0; i < n && !rc; i++)
        rc = acl_exec_add_input(ex, grads->v[i], d->lname[0], !acl_tensor_empty(grads->v[i]));
    if (!rc) {
        p->sslot = ex->n_in;
        rc = acl_exec_add_input(ex, invScale, "invScale", true);
    }
    for (int64_t i = 0; i < n && !rc; i++) rc = acl_exec_add_output(ex, grads->v[i], d->lname[0]);
    if (!rc) rc = acl_exec_add_output(ex, foundInf, "foundInf");
    if (rc) return acl_exec_discard(ex, rc);
    return acl_exec_publish(ex, workspaceSize, executor);
}
