/* aclTensorDesc: the tensor descriptions of the single-op and model interfaces (acl/acl_base_mdl.h). A
 * description is a host object: data type, format, shape (with -1 for a dynamic dim, {-2} for an unknown rank),
 * per-dim shape ranges, the storage and origin shape/format, a name and optional constant data. The getters
 * follow the real ones' conventions for a NULL or invalid description (ACL_DT_UNDEFINED, ACL_FORMAT_UNDEFINED,
 * 0, -1, ""); the setters return ACL_ERROR_INVALID_PARAM with a message naming the argument. */
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "common/dtype.h"
#include "common/registry.h"
#include "common/status.h"

#define DESC_MAX_DIMS 64

struct aclTensorDesc {
    aclDataType dtype;
    aclFormat format, storage_format, origin_format;
    int ndim, storage_ndim, origin_ndim; /* -1: unknown rank */
    int64_t dims[DESC_MAX_DIMS], storage_dims[DESC_MAX_DIMS], origin_dims[DESC_MAX_DIMS];
    int64_t range[DESC_MAX_DIMS][ACL_TENSOR_SHAPE_RANGE_NUM];
    int has_range;
    char *name;
    void *const_data;
    size_t const_len;
    aclMemType placement;
};

static int live(const aclTensorDesc *d) { return acl_reg_is(d, ACL_KIND_TENSOR_DESC); }

static aclError check_desc(const aclTensorDesc *d) {
    if (!d) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "desc must not be NULL");
    if (!live(d)) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "desc is not a live aclTensorDesc");
    return ACL_SUCCESS;
}

/* Copies a shape: numDims >= 0 dims (each >= -1), or the unknown rank {-2}; -1 in *ndim_out for the latter. */
static aclError set_shape(int numDims, const int64_t *dims, int *ndim_out, int64_t *out) {
    if (numDims < 0 || numDims > DESC_MAX_DIMS)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "numDims %d is outside [0, %d]", numDims, DESC_MAX_DIMS);
    if (numDims > 0 && !dims) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dims must not be NULL for numDims %d", numDims);
    if (numDims == 1 && dims[0] == -2) { *ndim_out = -1; return ACL_SUCCESS; }
    for (int i = 0; i < numDims; i++)
        if (dims[i] < -1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dims[%d] = %lld is invalid", i, (long long)dims[i]);
    if (numDims) memcpy(out, dims, (size_t)numDims * sizeof *out); /* dims may be NULL for a 0-d shape */
    *ndim_out = numDims;
    return ACL_SUCCESS;
}

aclTensorDesc *aclCreateTensorDesc(aclDataType dataType, int numDims, const int64_t *dims, aclFormat format) {
    acl_set_api("aclCreateTensorDesc");
    aclTensorDesc *d = calloc(1, sizeof *d);
    if (!d) { ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory"); return NULL; }
    if (set_shape(numDims, dims, &d->ndim, d->dims) != ACL_SUCCESS) { free(d); return NULL; }
    d->dtype = dataType;
    d->format = d->storage_format = d->origin_format = format;
    d->storage_ndim = d->origin_ndim = d->ndim;
    memcpy(d->storage_dims, d->dims, sizeof d->dims);
    memcpy(d->origin_dims, d->dims, sizeof d->dims);
    if (!acl_reg_add(d, ACL_KIND_TENSOR_DESC)) { free(d); ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory"); return NULL; }
    return d;
}

void aclDestroyTensorDesc(const aclTensorDesc *desc) {
    acl_set_api("aclDestroyTensorDesc");
    if (!desc || !acl_reg_remove(desc, ACL_KIND_TENSOR_DESC)) return;
    aclTensorDesc *d = (aclTensorDesc *)desc;
    free(d->name);
    free(d->const_data);
    free(d);
}

aclError aclSetTensorShapeRange(aclTensorDesc *desc, size_t dimsCount, int64_t dimsRange[][ACL_TENSOR_SHAPE_RANGE_NUM]) {
    acl_set_api("aclSetTensorShapeRange");
    ACL_TRY(check_desc(desc));
    if (desc->ndim < 0 || dimsCount != (size_t)desc->ndim)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimsCount %zu differs from the description's %d dims", dimsCount,
                          desc->ndim);
    if (dimsCount && !dimsRange) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimsRange must not be NULL");
    for (size_t i = 0; i < dimsCount; i++) {
        if (dimsRange[i][0] < 0 || (dimsRange[i][1] != -1 && dimsRange[i][1] < dimsRange[i][0]))
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimsRange[%zu] = [%lld, %lld] is invalid", i,
                              (long long)dimsRange[i][0], (long long)dimsRange[i][1]);
    }
    if (dimsCount) memcpy(desc->range, dimsRange, dimsCount * sizeof desc->range[0]);
    desc->has_range = 1;
    return ACL_SUCCESS;
}

aclDataType aclGetTensorDescType(const aclTensorDesc *desc) { return live(desc) ? desc->dtype : ACL_DT_UNDEFINED; }

aclFormat aclGetTensorDescFormat(const aclTensorDesc *desc) { return live(desc) ? desc->format : ACL_FORMAT_UNDEFINED; }

/* The element count of a static shape; 0 for a dynamic or unknown one (and on overflow). */
size_t aclGetTensorDescElementCount(const aclTensorDesc *desc) {
    if (!live(desc) || desc->ndim < 0) return 0;
    size_t n = 1;
    for (int i = 0; i < desc->ndim; i++) {
        if (desc->dims[i] < 0) return 0;
        if (desc->dims[i] && n > SIZE_MAX / (size_t)desc->dims[i]) return 0;
        n *= (size_t)desc->dims[i];
    }
    return n;
}

size_t aclGetTensorDescSize(const aclTensorDesc *desc) {
    size_t n = aclGetTensorDescElementCount(desc), es = live(desc) ? acl_dtype_size(desc->dtype) : 0;
    return (es && n <= SIZE_MAX / es) ? n * es : 0;
}

size_t aclGetTensorDescNumDims(const aclTensorDesc *desc) {
    if (!live(desc)) return 0;
    return desc->ndim < 0 ? (size_t)ACL_UNKNOWN_RANK : (size_t)desc->ndim;
}

int64_t aclGetTensorDescDim(const aclTensorDesc *desc, size_t index) {
    if (!live(desc) || desc->ndim < 0 || index >= (size_t)desc->ndim) return -1;
    return desc->dims[index];
}

aclError aclGetTensorDescDimV2(const aclTensorDesc *desc, size_t index, int64_t *dimSize) {
    acl_set_api("aclGetTensorDescDimV2");
    ACL_TRY(check_desc(desc));
    if (!dimSize) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimSize must not be NULL");
    if (desc->ndim < 0 || index >= (size_t)desc->ndim)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "index %zu is outside the description's %d dims", index, desc->ndim);
    *dimSize = desc->dims[index];
    return ACL_SUCCESS;
}

aclError aclGetTensorDescDimRange(const aclTensorDesc *desc, size_t index, size_t dimRangeNum, int64_t *dimRange) {
    acl_set_api("aclGetTensorDescDimRange");
    ACL_TRY(check_desc(desc));
    if (!dimRange) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimRange must not be NULL");
    if (dimRangeNum < ACL_TENSOR_SHAPE_RANGE_NUM)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dimRangeNum %zu is below %d", dimRangeNum, ACL_TENSOR_SHAPE_RANGE_NUM);
    if (desc->ndim < 0 || index >= (size_t)desc->ndim)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "index %zu is outside the description's %d dims", index, desc->ndim);
    if (desc->has_range) {
        dimRange[0] = desc->range[index][0];
        dimRange[1] = desc->range[index][1];
    } else { /* a static dim ranges over itself; a dynamic one has no bound */
        dimRange[0] = desc->dims[index] < 0 ? 0 : desc->dims[index];
        dimRange[1] = desc->dims[index];
    }
    return ACL_SUCCESS;
}

void aclSetTensorDescName(aclTensorDesc *desc, const char *name) {
    acl_set_api("aclSetTensorDescName");
    if (check_desc(desc) != ACL_SUCCESS) return;
    char *copy = name ? strdup(name) : NULL;
    free(desc->name);
    desc->name = copy;
}

const char *aclGetTensorDescName(aclTensorDesc *desc) { return (live(desc) && desc->name) ? desc->name : ""; }

aclError aclSetTensorFormat(aclTensorDesc *desc, aclFormat format) {
    acl_set_api("aclSetTensorFormat");
    ACL_TRY(check_desc(desc));
    desc->storage_format = format;
    return ACL_SUCCESS;
}

aclError aclSetTensorStorageFormat(aclTensorDesc *desc, aclFormat format) { return aclSetTensorFormat(desc, format); }

aclError aclSetTensorShape(aclTensorDesc *desc, int numDims, const int64_t *dims) {
    acl_set_api("aclSetTensorShape");
    ACL_TRY(check_desc(desc));
    return set_shape(numDims, dims, &desc->storage_ndim, desc->storage_dims);
}

aclError aclSetTensorStorageShape(aclTensorDesc *desc, int numDims, const int64_t *dims) {
    return aclSetTensorShape(desc, numDims, dims);
}

aclError aclSetTensorOriginFormat(aclTensorDesc *desc, aclFormat format) {
    acl_set_api("aclSetTensorOriginFormat");
    ACL_TRY(check_desc(desc));
    desc->origin_format = format;
    return ACL_SUCCESS;
}

aclError aclSetTensorOriginShape(aclTensorDesc *desc, int numDims, const int64_t *dims) {
    acl_set_api("aclSetTensorOriginShape");
    ACL_TRY(check_desc(desc));
    return set_shape(numDims, dims, &desc->origin_ndim, desc->origin_dims);
}

void *aclGetTensorDescAddress(const aclTensorDesc *desc) { return live(desc) ? desc->const_data : NULL; }

/* The constant data is copied: the caller's buffer may go away after the call. */
aclError aclSetTensorConst(aclTensorDesc *desc, void *dataBuffer, size_t length) {
    acl_set_api("aclSetTensorConst");
    ACL_TRY(check_desc(desc));
    if (!dataBuffer || length == 0)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dataBuffer must not be NULL and length must not be 0");
    void *copy = malloc(length);
    if (!copy) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory copying %zu bytes of constant data", length);
    memcpy(copy, dataBuffer, length);
    free(desc->const_data);
    desc->const_data = copy;
    desc->const_len = length;
    return ACL_SUCCESS;
}

aclError aclSetTensorPlaceMent(aclTensorDesc *desc, aclMemType memType) {
    acl_set_api("aclSetTensorPlaceMent");
    ACL_TRY(check_desc(desc));
    if (memType != ACL_MEMTYPE_DEVICE && memType != ACL_MEMTYPE_HOST && memType != ACL_MEMTYPE_HOST_COMPILE_INDEPENDENT)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "memType %d is not an aclMemType value", (int)memType);
    desc->placement = memType;
    return ACL_SUCCESS;
}
