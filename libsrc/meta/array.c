/* aclScalar, aclIntArray/FloatArray/BoolArray, aclTensorList and aclScalarList. */
#include <stdlib.h>
#include <string.h>

#include "runtime/queue.h"
#include "common/dtype.h"
#include "common/status.h"
#include "meta/meta.h"

aclScalar *aclCreateScalar(void *value, aclDataType dataType) {
    acl_set_api("aclCreateScalar");
    size_t es = acl_dtype_size(dataType);
    if (!value) { ACL_REPORT(ACLNN_ERR_PARAM_NULLPTR, "value must not be NULL"); return NULL; }
    if (es == 0 || es > 16) { ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "dtype %d has no scalar form", (int)dataType); return NULL; }
    aclScalar *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->dtype = dataType;
    memcpy(s->bytes, value, es);
    if (!acl_reg_add(s, ACL_KIND_SCALAR)) { free(s); return NULL; }
    return s;
}

/* Shared by the three flat arrays: copies size elements of elem bytes (NULL or 0 -> empty array). */
static void *create_array(const void *value, uint64_t size, size_t elem, acl_kind kind) {
    struct { uint64_t size; void *v; } *a = calloc(1, sizeof *a);
    if (!a) return NULL;
    if (value && size > 0) {
        if (size > SIZE_MAX / elem) { free(a); ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "size %llu is too large", (unsigned long long)size); return NULL; }
        a->v = malloc(size * elem);
        if (!a->v) { free(a); ACL_REPORT(ACLNN_ERR_INNER, "out of memory"); return NULL; }
        memcpy(a->v, value, size * elem);
        a->size = size;
    }
    if (!acl_reg_add(a, kind)) { free(a->v); free(a); return NULL; }
    return a;
}

aclIntArray *aclCreateIntArray(const int64_t *value, uint64_t size) {
    acl_set_api("aclCreateIntArray");
    return create_array(value, size, sizeof(int64_t), ACL_KIND_INT_ARRAY);
}

aclFloatArray *aclCreateFloatArray(const float *value, uint64_t size) {
    acl_set_api("aclCreateFloatArray");
    return create_array(value, size, sizeof(float), ACL_KIND_FLOAT_ARRAY);
}

aclBoolArray *aclCreateBoolArray(const bool *value, uint64_t size) {
    acl_set_api("aclCreateBoolArray");
    return create_array(value, size, sizeof(bool), ACL_KIND_BOOL_ARRAY);
}

static void *create_list(const void *const *value, uint64_t size, acl_kind elem_kind, acl_kind kind) {
    struct { uint64_t size; void **v; } *l = calloc(1, sizeof *l);
    if (!l) return NULL;
    if (value && size > 0) {
        for (uint64_t i = 0; i < size; i++) {
            if (value[i] && !acl_reg_is(value[i], elem_kind)) {
                ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "element %llu is not a live %s", (unsigned long long)i,
                           acl_kind_name(elem_kind));
                free(l);
                return NULL;
            }
        }
        if (size > SIZE_MAX / sizeof(void *)) { free(l); return NULL; }
        l->v = malloc(size * sizeof(void *));
        if (!l->v) { free(l); return NULL; }
        memcpy(l->v, value, size * sizeof(void *));
        l->size = size;
    }
    if (!acl_reg_add(l, kind)) { free(l->v); free(l); return NULL; }
    return l;
}

aclTensorList *aclCreateTensorList(const aclTensor *const *value, uint64_t size) {
    acl_set_api("aclCreateTensorList");
    return create_list((const void *const *)value, size, ACL_KIND_TENSOR, ACL_KIND_TENSOR_LIST);
}

aclScalarList *aclCreateScalarList(const aclScalar *const *value, uint64_t size) {
    acl_set_api("aclCreateScalarList");
    return create_list((const void *const *)value, size, ACL_KIND_SCALAR, ACL_KIND_SCALAR_LIST);
}

/* Destroy: NULL is fine; a pointer that is not a live object of the kind is reported, never freed. */
static aclnnStatus destroy_obj(const void *p, acl_kind kind, void *payload) {
    if (!p) return ACLNN_SUCCESS;
    ACLNN_CHECK(acl_reg_remove(p, kind), ACLNN_ERR_PARAM_INVALID, "%p is not a live %s (destroyed twice?)", p,
                acl_kind_name(kind));
    free(payload);
    free((void *)p);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyScalar(const aclScalar *scalar) {
    acl_set_api("aclDestroyScalar");
    return destroy_obj(scalar, ACL_KIND_SCALAR, NULL);
}

aclnnStatus aclDestroyIntArray(const aclIntArray *array) {
    acl_set_api("aclDestroyIntArray");
    return destroy_obj(array, ACL_KIND_INT_ARRAY, acl_reg_is(array, ACL_KIND_INT_ARRAY) ? array->v : NULL);
}

aclnnStatus aclDestroyFloatArray(const aclFloatArray *array) {
    acl_set_api("aclDestroyFloatArray");
    return destroy_obj(array, ACL_KIND_FLOAT_ARRAY, acl_reg_is(array, ACL_KIND_FLOAT_ARRAY) ? array->v : NULL);
}

aclnnStatus aclDestroyBoolArray(const aclBoolArray *array) {
    acl_set_api("aclDestroyBoolArray");
    return destroy_obj(array, ACL_KIND_BOOL_ARRAY, acl_reg_is(array, ACL_KIND_BOOL_ARRAY) ? array->v : NULL);
}

aclnnStatus aclDestroyTensorList(const aclTensorList *array) {
    acl_set_api("aclDestroyTensorList");
    if (!array) return ACLNN_SUCCESS;
    ACLNN_CHECK(acl_reg_is(array, ACL_KIND_TENSOR_LIST), ACLNN_ERR_PARAM_INVALID, "%p is not a live aclTensorList",
                (void *)array);
    for (uint64_t i = 0; i < array->size; i++)
        if (array->v[i] && acl_reg_is(array->v[i], ACL_KIND_TENSOR)) aclDestroyTensor(array->v[i]);
    acl_set_api("aclDestroyTensorList");
    return destroy_obj(array, ACL_KIND_TENSOR_LIST, array->v);
}

aclnnStatus aclDestroyScalarList(const aclScalarList *array) {
    acl_set_api("aclDestroyScalarList");
    if (!array) return ACLNN_SUCCESS;
    ACLNN_CHECK(acl_reg_is(array, ACL_KIND_SCALAR_LIST), ACLNN_ERR_PARAM_INVALID, "%p is not a live aclScalarList",
                (void *)array);
    for (uint64_t i = 0; i < array->size; i++)
        if (array->v[i] && acl_reg_is(array->v[i], ACL_KIND_SCALAR)) aclDestroyScalar(array->v[i]);
    acl_set_api("aclDestroyScalarList");
    return destroy_obj(array, ACL_KIND_SCALAR_LIST, array->v);
}

#define SIZE_GETTER(fn, type, kind)                                                                  \
    aclnnStatus fn(const type *obj, uint64_t *size) {                                                \
        acl_set_api(#fn);                                                                            \
        ACLNN_CHECK(obj && size, ACLNN_ERR_PARAM_NULLPTR, "the object and size must not be NULL");   \
        ACLNN_CHECK(acl_reg_is(obj, kind), ACLNN_ERR_PARAM_INVALID, "%p is not a live %s", (void *)obj, \
                    acl_kind_name(kind));                                                            \
        *size = obj->size;                                                                           \
        return ACLNN_SUCCESS;                                                                        \
    }

SIZE_GETTER(aclGetIntArraySize, aclIntArray, ACL_KIND_INT_ARRAY)
SIZE_GETTER(aclGetFloatArraySize, aclFloatArray, ACL_KIND_FLOAT_ARRAY)
SIZE_GETTER(aclGetBoolArraySize, aclBoolArray, ACL_KIND_BOOL_ARRAY)
SIZE_GETTER(aclGetTensorListSize, aclTensorList, ACL_KIND_TENSOR_LIST)
SIZE_GETTER(aclGetScalarListSize, aclScalarList, ACL_KIND_SCALAR_LIST)

/* A tensor whose element count (of |dims|) does not fit in int64 exists only in a fuzzer: reported before any op
 * forms products of its dims. */
static int check_countable(const aclTensor *t, const char *name, uint64_t j, bool in_list) {
    uint64_t n = 1;
    for (uint64_t d = 0; d < t->ndim; d++) { /* a zero dim makes any count fine */
        const uint64_t v = t->dims[d] < 0 ? 0 - (uint64_t)t->dims[d] : (uint64_t)t->dims[d];
        if (v == 0) return 0;
        if (__builtin_mul_overflow(n, v, &n) || n > (uint64_t)INT64_MAX) {
            if (in_list)
                return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s[%llu] has more elements than int64 can count", name,
                                  (unsigned long long)j);
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has more elements than int64 can count", name);
        }
    }
    return 0;
}

/* The generated prologue of every hand-written first phase (tools/gen_ops.py): each non-NULL object argument must
 * be a live object of the kind its parameter declares (a tensor's element count countable in int64), and a list's
 * non-NULL elements live tensors / scalars. NULL arguments are left to the op's own checks (their order is the
 * op's). A destroyed, foreign or wrong-kind pointer is 161002 naming the argument, before anything reads through
 * it. */
int acl_check_live_objects(const void *const *objs, const unsigned char *kinds, const char *const *names, int n) {
    /* Some first phases read tensor data (index checks, data-dependent shapes). With the queue on, a first phase
     * waits for the queues only when a queued task writes memory one of its tensors (or list elements) lies in;
     * otherwise it reads metadata only and returns at once. */
    bool drained = false;
    /* the kinds the first pass looked up; the second uses them unless queued tasks ran in between */
    enum { KNOWN = 16 };
    acl_kind known[KNOWN];
    int nknown = 0;
    for (int i = 0; i < n && !drained; i++) {
        if (!objs[i]) {
            if (i < KNOWN) known[nknown++] = ACL_KIND_NONE;
            continue;
        }
        acl_kind k = acl_reg_kind(objs[i]);
        if (i < KNOWN) known[nknown++] = k;
        if (k == ACL_KIND_TENSOR) {
            const aclTensor *t = objs[i];
            if (t->data && acl_q_writes_pending(t->data)) drained = true;
        } else if (k == ACL_KIND_TENSOR_LIST) {
            const aclTensorList *tl = objs[i];
            for (uint64_t j = 0; j < tl->size && !drained; j++) {
                const aclTensor *e = tl->v[j];
                if (e && acl_reg_kind(e) == ACL_KIND_TENSOR && e->data && acl_q_writes_pending(e->data)) drained = true;
            }
        }
    }
    if (drained) {
        acl_q_drain_all();
        nknown = 0;
    }
    for (int i = 0; i < n; i++) {
        if (!objs[i]) continue;
        acl_kind k = i < nknown ? known[i] : acl_reg_kind(objs[i]);
        ACLNN_CHECK(k == (acl_kind)kinds[i], ACLNN_ERR_PARAM_INVALID, "%s is not a live %s (it is %s)", names[i],
                    acl_kind_name((acl_kind)kinds[i]), acl_kind_name(k));
        if (k == ACL_KIND_TENSOR) ACL_TRY(check_countable(objs[i], names[i], 0, false));
        const aclTensorList *tl = k == ACL_KIND_TENSOR_LIST ? objs[i] : NULL;
        const aclScalarList *sl = k == ACL_KIND_SCALAR_LIST ? objs[i] : NULL;
        const uint64_t len = tl ? tl->size : sl ? sl->size : 0;
        const acl_kind ek = tl ? ACL_KIND_TENSOR : ACL_KIND_SCALAR;
        for (uint64_t j = 0; j < len; j++) {
            const void *e = tl ? (const void *)tl->v[j] : (const void *)sl->v[j];
            ACLNN_CHECK(!e || acl_reg_kind(e) == ek, ACLNN_ERR_PARAM_INVALID, "%s[%llu] is not a live %s", names[i],
                        (unsigned long long)j, acl_kind_name(ek));
            if (e && tl) ACL_TRY(check_countable(e, names[i], j, true));
        }
    }
    return 0;
}
