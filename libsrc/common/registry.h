/* A thread-safe set of live API objects, so that a destroyed, foreign or wrong-kind pointer is reported
 * as an error instead of being dereferenced. */
#ifndef PYACLNN_COMMON_REGISTRY_H
#define PYACLNN_COMMON_REGISTRY_H

#include <stdbool.h>
#include <stdint.h>

typedef enum {
    ACL_KIND_NONE = 0,
    ACL_KIND_TENSOR,
    ACL_KIND_SCALAR,
    ACL_KIND_INT_ARRAY,
    ACL_KIND_FLOAT_ARRAY,
    ACL_KIND_BOOL_ARRAY,
    ACL_KIND_TENSOR_LIST,
    ACL_KIND_SCALAR_LIST,
    ACL_KIND_EXECUTOR,
    ACL_KIND_STREAM,
    ACL_KIND_EVENT,
    ACL_KIND_CONTEXT,
    ACL_KIND_TENSOR_DESC,
    ACL_KIND_DATA_BUFFER,
    ACL_KIND_OP_ATTR,
    ACL_KIND_PHYS_MEM,
    ACL_KIND_LAST = ACL_KIND_PHYS_MEM
} acl_kind;

/* false when out of memory */
bool acl_reg_add(const void *p, acl_kind kind);
/* The kind registered for p, or ACL_KIND_NONE. */
acl_kind acl_reg_kind(const void *p);
/* Removes p if it is registered with that kind; returns whether it was. */
bool acl_reg_remove(const void *p, acl_kind kind);
static inline bool acl_reg_is(const void *p, acl_kind kind) { return p != 0 && acl_reg_kind(p) == kind; }
const char *acl_kind_name(acl_kind kind);

#endif
