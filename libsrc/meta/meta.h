/* Internal layout of the aclnn meta objects, tensor views for kernels, and validation helpers. */
#ifndef PYACLNN_META_META_H
#define PYACLNN_META_META_H

#include <stdbool.h>
#include <stdint.h>

#include "aclnn/aclnn_base.h"
#include "common/registry.h"

#define ACL_MAX_TENSOR_DIMS 64 /* aclCreateTensor refuses more */
#define ACL_MAX_VIEW_RANK 8    /* ops handle at most this many dims */

struct aclTensor {
    aclDataType dtype;
    aclFormat format;
    uint64_t ndim;
    int64_t dims[ACL_MAX_TENSOR_DIMS];
    int64_t strides[ACL_MAX_TENSOR_DIMS];
    int64_t offset;
    uint64_t storage_ndim;
    int64_t storage_dims[ACL_MAX_TENSOR_DIMS];
    void *data;
};

struct aclScalar {
    aclDataType dtype;
    unsigned char bytes[16] __attribute__((aligned(16))); /* read in place as any dtype */
};

struct aclIntArray { uint64_t size; int64_t *v; };
struct aclFloatArray { uint64_t size; float *v; };
struct aclBoolArray { uint64_t size; bool *v; };
struct aclTensorList { uint64_t size; aclTensor **v; };
struct aclScalarList { uint64_t size; aclScalar **v; };

/* A tensor as a kernel sees it: element strides, and base already advanced by the view offset. */
typedef struct {
    char *base;
    void *data;
    int64_t offset;
    aclDataType dtype;
    int ndim;
    int64_t dims[ACL_MAX_VIEW_RANK];
    int64_t strides[ACL_MAX_VIEW_RANK];
} acl_view;

/* The bytes from v->base to one past the view's last element, or -1 when a stride is negative or the view is
 * empty. With acl_ranges_overlap (common/cpu.h): whether an output view may share memory with an input. */
static inline int64_t acl_view_span_bytes(const acl_view *v, int64_t elem_size) {
    int64_t last = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (v->dims[d] <= 0 || v->strides[d] < 0) return -1;
        last += (v->dims[d] - 1) * v->strides[d];
    }
    return (last + 1) * elem_size;
}

/* ---- validation helpers: each records a message naming `name` and returns its status, 0 when fine ---- */

/* NULL -> 161001; not a live aclTensor -> 161002 */
int acl_check_tensor(const aclTensor *t, const char *name);
/* NULL -> 161001; not a live aclIntArray -> 161002 */
int acl_check_int_array(const aclIntArray *a, const char *name);
int acl_check_bool_array(const aclBoolArray *a, const char *name);
/* objs[i] (when not NULL) must be a live object of kind kinds[i] (acl_kind), a list's non-NULL elements live too;
 * else 161002 naming names[i]. The generated prologue of every hand-written first phase. */
int acl_check_live_objects(const void *const *objs, const unsigned char *kinds, const char *const *names, int n);
/* dtype membership -> 161002 */
int acl_check_dtype_in(const aclTensor *t, const aclDataType *list, int n, const char *name);
int acl_check_same_dtype(const aclTensor *a, const char *an, const aclTensor *b, const char *bn);
int acl_check_format_in(const aclTensor *t, const aclFormat *list, int n, const char *name);
int acl_check_rank(const aclTensor *t, uint64_t rank, const char *name);
int acl_check_nonneg_dims(const aclTensor *t, const char *name);
int acl_check_same_shape(const aclTensor *a, const char *an, const aclTensor *b, const char *bn);

bool acl_tensor_empty(const aclTensor *t); /* any view dim equal to 0 */
/* the view's elements lie densely in row-major order (strides of size-1 dims ignored); an empty view counts */
bool acl_tensor_row_major(const aclTensor *t);
/* opbase's IsPrivateFormat: the device-private storage layouts (C0-blocked NC1HWC0/NDC1HWC0, the FRACTAL tiles) */
bool acl_format_is_private(aclFormat f);
int64_t acl_tensor_numel(const aclTensor *t); /* -1 on overflow */
void acl_shape_str(const aclTensor *t, char *buf, size_t cap);

/* Builds a view; checks rank <= 8, non-negative strides, no int64 overflow and, with the memory guards on,
 * that the whole view lies in one live allocation. `needs_data` false skips the memory check (the op only
 * reads the tensor's shape). -> 161002 with a message. */
int acl_view_init(acl_view *v, const aclTensor *t, const char *name, bool needs_data);
/* With the memory guards on: the view (built by acl_view_init) still lies in one live allocation. Phase 2 calls
 * it, so memory released between the phases is reported instead of being used. -> 161002 with a message.
 * On success *have / *base are what acl_mem_block_of(v->data) gives (false when data is NULL or outside memory the
 * runtime knows): the stream checker's and the queue's view of the access, from the same lookup. */
int acl_view_check_memory(const acl_view *v, const char *name, uintptr_t *base, bool *have);

/* Element [i0..] address helpers for kernels. */
static inline int64_t acl_view_numel(const acl_view *v) {
    int64_t n = 1;
    for (int i = 0; i < v->ndim; i++) n *= v->dims[i];
    return n;
}

/* ---- executor ---- */

#define ACL_EXEC_MAX_IO 4096 /* tensors per executor (tensor-list ops such as aclnnCat add one per element) */

typedef aclnnStatus (*acl_run_fn)(aclOpExecutor *ex, void *workspace, uint64_t workspaceSize);

struct aclOpExecutor {
    int op;
    acl_run_fn run; /* NULL: nothing to do (empty inputs) */
    void *params;
    void (*free_params)(void *params);
    uint64_t workspace_size;
    bool repeatable;
    int n_in, n_out;
    int io_cap;
    acl_view *io;                     /* inputs first, then outputs (grown as tensors are added) */
    bool *io_needs_data;
    const char **io_name;
};

/* A new executor for `op` with `params_size` zeroed bytes of params; NULL (with a message) when out of memory. */
aclOpExecutor *acl_exec_create(int op, acl_run_fn run, size_t params_size);
/* Appends the tensor to the executor's inputs (in API order) or outputs, building its view. */
int acl_exec_add_input(aclOpExecutor *ex, const aclTensor *t, const char *name, bool needs_data);
int acl_exec_add_output(aclOpExecutor *ex, const aclTensor *t, const char *name);
/* An output the op does not write (e.g. masked off): recorded so output indices keep their API meaning, no
 * memory check. */
int acl_exec_add_output_nodata(aclOpExecutor *ex, const aclTensor *t, const char *name);
static inline acl_view *acl_exec_in(aclOpExecutor *ex, int i) { return &ex->io[i]; }
static inline acl_view *acl_exec_out(aclOpExecutor *ex, int i) { return &ex->io[ex->n_in + i]; }
/* Registers the executor and hands it to the caller; on failure frees it. */
aclnnStatus acl_exec_publish(aclOpExecutor *ex, uint64_t *workspaceSize, aclOpExecutor **executor);
/* Frees an executor that was never published (validation failed after creation). Returns rc. */
aclnnStatus acl_exec_discard(aclOpExecutor *ex, aclnnStatus rc);
/* The early-success path: an executor whose run does nothing. */
aclnnStatus acl_exec_noop(int op, uint64_t *workspaceSize, aclOpExecutor **executor);
/* The whole second phase of every op. */
aclnnStatus acl_exec_launch(int op, void *workspace, uint64_t workspaceSize, aclOpExecutor *ex, aclrtStream stream);

/* ---- C++ allocation for arrays the caller releases with delete[] ---- */
int64_t *acl_new_i64_array(uint64_t n);

#endif
