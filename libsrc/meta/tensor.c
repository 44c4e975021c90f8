/* aclTensor: creation, accessors, address setters, validation helpers and kernel views. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/dtype.h"
#include "common/shape.h"
#include "common/status.h"
#include "meta/meta.h"
#include "runtime/runtime.h"

static void fill(aclTensor *t, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                 const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                 uint64_t storageDimsNum, void *data, bool keep_old) {
    if (viewDims || !keep_old) {
        t->ndim = viewDimsNum;
        for (uint64_t i = 0; i < viewDimsNum; i++) t->dims[i] = viewDims[i];
    }
    if (stride) {
        for (uint64_t i = 0; i < t->ndim; i++) t->strides[i] = stride[i];
    } else {
        int64_t s = 1;
        for (uint64_t i = t->ndim; i-- > 0;) {
            t->strides[i] = s;
            int64_t d = t->dims[i] > 0 ? t->dims[i] : 1;
            if (!acl_mul_i64(s, d, &s)) s = INT64_MAX; /* absurd shapes are rejected when used */
        }
    }
    t->dtype = dataType;
    t->offset = offset;
    t->format = format;
    if (storageDims || !keep_old) {
        t->storage_ndim = storageDimsNum;
        for (uint64_t i = 0; i < storageDimsNum; i++) t->storage_dims[i] = storageDims[i];
    }
    if (data || !keep_old) t->data = data;
}

aclTensor *aclCreateTensor(const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType, const int64_t *stride,
                           int64_t offset, aclFormat format, const int64_t *storageDims, uint64_t storageDimsNum,
                           void *tensorData) {
    acl_set_api("aclCreateTensor");
    if ((viewDims == NULL && viewDimsNum > 0) || (storageDims == NULL && storageDimsNum > 0)) {
        ACL_REPORT(ACLNN_ERR_PARAM_NULLPTR, "viewDims/storageDims is NULL with a non-zero count");
        return NULL;
    }
    if (viewDimsNum > ACL_MAX_TENSOR_DIMS || storageDimsNum > ACL_MAX_TENSOR_DIMS) {
        ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "at most %d dims are supported", ACL_MAX_TENSOR_DIMS);
        return NULL;
    }
    aclTensor *t = calloc(1, sizeof *t);
    if (!t) return NULL;
    fill(t, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorData, false);
    if (!acl_reg_add(t, ACL_KIND_TENSOR)) { free(t); return NULL; }
    return t;
}

aclnnStatus aclInitTensor(aclTensor *tensor, const int64_t *viewDims, uint64_t viewDimsNum, aclDataType dataType,
                          const int64_t *stride, int64_t offset, aclFormat format, const int64_t *storageDims,
                          uint64_t storageDimsNum, void *tensorDataAddr) {
    acl_set_api("aclInitTensor");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    ACLNN_CHECK(viewDimsNum <= ACL_MAX_TENSOR_DIMS && storageDimsNum <= ACL_MAX_TENSOR_DIMS, ACLNN_ERR_PARAM_INVALID,
                "at most %d dims are supported", ACL_MAX_TENSOR_DIMS);
    fill(tensor, viewDims, viewDimsNum, dataType, stride, offset, format, storageDims, storageDimsNum, tensorDataAddr,
         true);
    return ACLNN_SUCCESS;
}

aclnnStatus aclDestroyTensor(const aclTensor *tensor) {
    acl_set_api("aclDestroyTensor");
    if (!tensor) return ACLNN_SUCCESS;
    ACLNN_CHECK(acl_reg_remove(tensor, ACL_KIND_TENSOR), ACLNN_ERR_PARAM_INVALID,
                "%p is not a live aclTensor (destroyed twice, or owned by a destroyed aclTensorList?)", (void *)tensor);
    free((void *)tensor);
    return ACLNN_SUCCESS;
}

static aclnnStatus copy_dims(const int64_t *src, uint64_t n, int64_t **out, uint64_t *num) {
    int64_t *a = acl_new_i64_array(n);
    ACLNN_CHECK(a != NULL, ACLNN_ERR_INNER, "out of memory");
    for (uint64_t i = 0; i < n; i++) a[i] = src[i];
    *out = a;
    *num = n;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetViewShape(const aclTensor *tensor, int64_t **viewDims, uint64_t *viewDimsNum) {
    acl_set_api("aclGetViewShape");
    ACLNN_CHECK(viewDims && viewDimsNum, ACLNN_ERR_PARAM_NULLPTR, "viewDims and viewDimsNum must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    return copy_dims(tensor->dims, tensor->ndim, viewDims, viewDimsNum);
}

aclnnStatus aclGetStorageShape(const aclTensor *tensor, int64_t **storageDims, uint64_t *storageDimsNum) {
    acl_set_api("aclGetStorageShape");
    ACLNN_CHECK(storageDims && storageDimsNum, ACLNN_ERR_PARAM_NULLPTR, "storageDims and storageDimsNum must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    return copy_dims(tensor->storage_dims, tensor->storage_ndim, storageDims, storageDimsNum);
}

aclnnStatus aclGetViewStrides(const aclTensor *tensor, int64_t **stridesValue, uint64_t *stridesNum) {
    acl_set_api("aclGetViewStrides");
    ACLNN_CHECK(stridesValue && stridesNum, ACLNN_ERR_PARAM_NULLPTR, "stridesValue and stridesNum must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    return copy_dims(tensor->strides, tensor->ndim, stridesValue, stridesNum);
}

aclnnStatus aclGetViewOffset(const aclTensor *tensor, int64_t *offset) {
    acl_set_api("aclGetViewOffset");
    ACLNN_CHECK(offset, ACLNN_ERR_PARAM_NULLPTR, "offset must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    *offset = tensor->offset;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetFormat(const aclTensor *tensor, aclFormat *format) {
    acl_set_api("aclGetFormat");
    ACLNN_CHECK(format, ACLNN_ERR_PARAM_NULLPTR, "format must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    *format = tensor->format;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetDataType(const aclTensor *tensor, aclDataType *dataType) {
    acl_set_api("aclGetDataType");
    ACLNN_CHECK(dataType, ACLNN_ERR_PARAM_NULLPTR, "dataType must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    *dataType = tensor->dtype;
    return ACLNN_SUCCESS;
}

aclnnStatus aclSetRawTensorAddr(aclTensor *tensor, void *addr) {
    acl_set_api("aclSetRawTensorAddr");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    tensor->data = addr;
    return ACLNN_SUCCESS;
}

aclnnStatus aclGetRawTensorAddr(const aclTensor *tensor, void **addr) {
    acl_set_api("aclGetRawTensorAddr");
    ACLNN_CHECK(addr, ACLNN_ERR_PARAM_NULLPTR, "addr must not be NULL");
    ACL_TRY(acl_check_tensor(tensor, "tensor"));
    *addr = tensor->data;
    return ACLNN_SUCCESS;
}

/* ---- validation helpers ---- */

int acl_check_tensor(const aclTensor *t, const char *name) {
    ACLNN_CHECK(t != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper Tensor but got null for argument %s.", name);
    acl_kind k = acl_reg_kind(t);
    ACLNN_CHECK(k == ACL_KIND_TENSOR, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclTensor (it is %s)", name,
                acl_kind_name(k));
    return 0;
}

int acl_check_int_array(const aclIntArray *a, const char *name) {
    ACLNN_CHECK(a != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper IntArray but got null for argument %s.", name);
    acl_kind k = acl_reg_kind(a);
    ACLNN_CHECK(k == ACL_KIND_INT_ARRAY, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclIntArray (it is %s)", name,
                acl_kind_name(k));
    return 0;
}

int acl_check_bool_array(const aclBoolArray *a, const char *name) {
    ACLNN_CHECK(a != NULL, ACLNN_ERR_PARAM_NULLPTR, "Expected a proper BoolArray but got null for argument %s.", name);
    acl_kind k = acl_reg_kind(a);
    ACLNN_CHECK(k == ACL_KIND_BOOL_ARRAY, ACLNN_ERR_PARAM_INVALID, "%s is not a live aclBoolArray (it is %s)", name,
                acl_kind_name(k));
    return 0;
}

int acl_check_dtype_in(const aclTensor *t, const aclDataType *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (t->dtype == list[i]) return 0;
    char buf[256] = "";
    for (int i = 0; i < n; i++) {
        strncat(buf, acl_dtype_name(list[i]), sizeof buf - strlen(buf) - 1);
        if (i + 1 < n) strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
    }
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s dtype %s (%d) should be in dtype support list [%s].", name,
                      acl_dtype_name(t->dtype), (int)t->dtype, buf);
}

int acl_check_same_dtype(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    ACLNN_CHECK(a->dtype == b->dtype, ACLNN_ERR_PARAM_INVALID, "%s dtype %s should be the same as %s dtype %s.", bn,
                acl_dtype_name(b->dtype), an, acl_dtype_name(a->dtype));
    return 0;
}

int acl_check_format_in(const aclTensor *t, const aclFormat *list, int n, const char *name) {
    for (int i = 0; i < n; i++)
        if (t->format == list[i]) return 0;
    char buf[256] = "";
    for (int i = 0; i < n; i++) {
        strncat(buf, acl_format_name(list[i]), sizeof buf - strlen(buf) - 1);
        if (i + 1 < n) strncat(buf, ", ", sizeof buf - strlen(buf) - 1);
    }
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s format %s (%d) should be in [%s].", name, acl_format_name(t->format),
                      (int)t->format, buf);
}

void acl_shape_str(const aclTensor *t, char *buf, size_t cap) {
    size_t n = 0;
    n += (size_t)snprintf(buf + n, cap - n, "[");
    for (uint64_t i = 0; i < t->ndim && n < cap; i++)
        n += (size_t)snprintf(buf + n, cap - n, "%s%lld", i ? ", " : "", (long long)t->dims[i]);
    if (n < cap) snprintf(buf + n, cap - n, "]");
}

int acl_check_rank(const aclTensor *t, uint64_t rank, const char *name) {
    if (t->ndim == rank) return 0;
    char s[256];
    acl_shape_str(t, s, sizeof s);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s should be %llu-dimensional, but its shape is %s.", name,
                      (unsigned long long)rank, s);
}

int acl_check_nonneg_dims(const aclTensor *t, const char *name) {
    for (uint64_t i = 0; i < t->ndim; i++) {
        if (t->dims[i] < 0) {
            char s[256];
            acl_shape_str(t, s, sizeof s);
            return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s has a negative dimension: %s.", name, s);
        }
    }
    return 0;
}

int acl_check_same_shape(const aclTensor *a, const char *an, const aclTensor *b, const char *bn) {
    bool same = a->ndim == b->ndim;
    for (uint64_t i = 0; same && i < a->ndim; i++) same = a->dims[i] == b->dims[i];
    if (same) return 0;
    char sa[256], sb[256];
    acl_shape_str(a, sa, sizeof sa);
    acl_shape_str(b, sb, sizeof sb);
    return ACL_REPORT(ACLNN_ERR_PARAM_INVALID, "%s shape %s should be the same as %s shape %s.", bn, sb, an, sa);
}

bool acl_tensor_empty(const aclTensor *t) {
    for (uint64_t i = 0; i < t->ndim; i++)
        if (t->dims[i] == 0) return true;
    return false;
}

bool acl_tensor_row_major(const aclTensor *t) {
    if (acl_tensor_empty(t)) return true;
    int64_t st = 1;
    for (int k = (int)t->ndim - 1; k >= 0; k--) {
        if (t->dims[k] != 1 && t->strides[k] != st) return false;
        st *= t->dims[k];
    }
    return true;
}

int64_t acl_tensor_numel(const aclTensor *t) {
    int64_t n;
    return acl_numel(t->dims, (int64_t)t->ndim, &n) ? n : -1;
}

int acl_view_init(acl_view *v, const aclTensor *t, const char *name, bool needs_data) {
    ACLNN_CHECK(t->ndim <= ACL_MAX_VIEW_RANK, ACLNN_ERR_PARAM_INVALID, "%s has %llu dims; at most %d are supported",
                name, (unsigned long long)t->ndim, ACL_MAX_VIEW_RANK);
    size_t es = acl_dtype_size(t->dtype);
    ACLNN_CHECK(es > 0, ACLNN_ERR_PARAM_INVALID, "%s has dtype %s without a byte size", name, acl_dtype_name(t->dtype));
    memset(v, 0, sizeof *v);
    v->dtype = t->dtype;
    v->ndim = (int)t->ndim;
    v->data = t->data;
    v->offset = t->offset;
    int64_t hi = t->offset;
    bool ok = t->offset >= 0, empty = false;
    for (int i = 0; i < v->ndim; i++) {
        v->dims[i] = t->dims[i];
        v->strides[i] = t->strides[i];
        ACLNN_CHECK(t->dims[i] >= 0, ACLNN_ERR_PARAM_INVALID, "%s has a negative dimension", name);
        ACLNN_CHECK(t->strides[i] >= 0, ACLNN_ERR_PARAM_INVALID,
                    "%s has a negative stride %lld in dim %d; only non-negative strides are supported", name,
                    (long long)t->strides[i], i);
        int64_t span;
        if (t->dims[i] > 0) ok = ok && acl_mul_i64(t->dims[i] - 1, t->strides[i], &span) && acl_add_i64(hi, span, &hi);
        if (t->dims[i] == 0) empty = true; /* not "element count == 0": a product can wrap to 0 */
    }
    const int64_t n = empty ? 0 : 1;
    ACLNN_CHECK(t->offset >= 0, ACLNN_ERR_PARAM_INVALID, "%s has a negative view offset %lld", name, (long long)t->offset);
    int64_t bytes_hi = 0;
    ok = ok && acl_add_i64(hi, 1, &bytes_hi) && acl_mul_i64(bytes_hi, (int64_t)es, &bytes_hi);
    ACLNN_CHECK(ok || n == 0, ACLNN_ERR_PARAM_INVALID, "%s: the extent of the view overflows int64", name);
    v->base = t->data ? (char *)t->data + (n ? t->offset * (int64_t)es : 0) : NULL; /* no arithmetic on NULL */
    if (n == 0 || !needs_data) return 0;
    /* kernels read elements in place: an address that is not a multiple of the element size (possible only by
     * pointer arithmetic on device memory) is refused rather than read misaligned */
    ACLNN_CHECK((uintptr_t)t->data % (es > 8 ? 8 : es) == 0, ACLNN_ERR_PARAM_INVALID,
                "%s: address %p is not aligned to its %zu-byte elements", name, t->data, es);
    /* a first phase never touches data: the address may still be NULL here and be set later with
     * aclSetInputTensorAddr / aclSetRawTensorAddr (SPEC 1.6); acl_view_check_memory refuses it at run time */
    if (t->data == NULL) return 0;
    if (acl_mem_guards_enabled()) {
        if (t->storage_ndim == 0 && acl_mem_contains(t->data, (uint64_t)bytes_hi)) return 0; /* one lookup */
        if (t->storage_ndim > 0) { /* one lookup for the view and the storage shape when both are inside */
            int64_t sn;
            if (acl_numel(t->storage_dims, (int64_t)t->storage_ndim, &sn) && acl_mul_i64(sn, (int64_t)es, &sn) &&
                acl_mem_contains(t->data, (uint64_t)(sn > bytes_hi ? sn : bytes_hi)))
                return 0;
        }
        /* something is outside: the checks one by one, for the message that names it */
        ACLNN_CHECK(acl_mem_contains(t->data, 0), ACLNN_ERR_PARAM_INVALID,
                    "%s: address %p is not device memory from aclrtMalloc (or memory registered with "
                    "aclrtHostRegister)", name, t->data);
        ACLNN_CHECK(acl_mem_contains(t->data, (uint64_t)bytes_hi), ACLNN_ERR_PARAM_INVALID,
                    "%s: the view (offset %lld, %lld bytes from the address) reaches outside its allocation", name,
                    (long long)t->offset, (long long)bytes_hi);
        /* the storage shape is the tensor's physical extent from its address: it must be memory too */
        if (t->storage_ndim > 0) {
            int64_t sn;
            bool sok = acl_numel(t->storage_dims, (int64_t)t->storage_ndim, &sn) && acl_mul_i64(sn, (int64_t)es, &sn);
            if (!sok || !acl_mem_contains(t->data, (uint64_t)sn)) { /* the message's shape only on the error path */
                char sshape[256];
                size_t k = 0;
                for (uint64_t i = 0; i < t->storage_ndim && k < sizeof sshape - 24; i++)
                    k += (size_t)snprintf(sshape + k, sizeof sshape - k, "%s%lld", i ? ", " : "",
                                          (long long)t->storage_dims[i]);
                sshape[k] = '\0';
                ACLNN_CHECK(sok, ACLNN_ERR_PARAM_INVALID, "%s: storage shape [%s] is negative or overflows int64",
                            name, sshape);
                ACLNN_CHECK(false, ACLNN_ERR_PARAM_INVALID,
                            "%s: storage shape [%s] (%lld bytes from the address) reaches outside its allocation",
                            name, sshape, (long long)sn);
            }
        }
    }
    return 0;
}

int acl_view_check_memory(const acl_view *v, const char *name, uintptr_t *base, bool *have) {
    uint64_t size;
    *have = false;
    for (int i = 0; i < v->ndim; i++)
        if (v->dims[i] == 0) { /* an empty view touches no memory */
            *have = v->data != NULL && acl_mem_block_of(v->data, base, &size);
            return 0;
        }
    ACLNN_CHECK(v->data != NULL, ACLNN_ERR_PARAM_NULLPTR,
                "%s has no device address (tensorData is NULL and no address was set before the run)", name);
    if (!acl_mem_guards_enabled()) {
        *have = acl_mem_block_of(v->data, base, &size);
        return 0;
    }
    int64_t hi = v->offset; /* no overflow: acl_view_init checked the extent of a non-empty view */
    for (int i = 0; i < v->ndim; i++) hi += (v->dims[i] - 1) * v->strides[i];
    const uint64_t bytes = (uint64_t)(hi + 1) * acl_dtype_size(v->dtype);
    bool inside;
    *have = acl_mem_probe(v->data, bytes, &inside, base);
    ACLNN_CHECK(inside, ACLNN_ERR_PARAM_INVALID,
                "%s: its memory %p (%llu bytes) is no longer a live allocation (freed or unregistered after the "
                "first phase?)", name, v->data, (unsigned long long)bytes);
    return 0;
}

bool acl_format_is_private(aclFormat f) {
    switch (f) {
    case ACL_FORMAT_NC1HWC0: case ACL_FORMAT_FRACTAL_Z: case ACL_FORMAT_NC1HWC0_C04: case ACL_FORMAT_FRACTAL_NZ:
    case ACL_FORMAT_NDC1HWC0: case ACL_FRACTAL_Z_3D: case ACL_FORMAT_FRACTAL_NZ_C0_16:
    case ACL_FORMAT_FRACTAL_NZ_C0_32: case ACL_FORMAT_FRACTAL_NZ_C0_2: case ACL_FORMAT_FRACTAL_NZ_C0_4:
    case ACL_FORMAT_FRACTAL_NZ_C0_8:
        return true;
    default:
        return false;
    }
}
