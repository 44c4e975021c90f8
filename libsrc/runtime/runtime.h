/* Runtime internals shared with the meta objects and ops. */
#ifndef PYACLNN_RUNTIME_RUNTIME_H
#define PYACLNN_RUNTIME_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include "acl/acl.h"

/* True when [p, p+len) lies inside one live allocation (aclrtMalloc, aclrtMallocHost or aclrtHostRegister).
 * len == 0 asks only whether p is inside (or one past the end of) an allocation. */
bool acl_mem_contains(const void *p, uint64_t len);

/* A range mapped by aclrtMapMem joins the guarded memory (as device memory without padding) until unmapped. */
bool acl_mem_add_mapped(const void *p, uint64_t size);
bool acl_mem_remove_mapped(const void *p);

/* Memory guards are on unless PYACLNN_UNCHECKED_MEMORY=1 is set in the environment. */
bool acl_mem_guards_enabled(void);

/* NULL (the default stream) or a live stream; otherwise records a message and returns false. */
bool acl_stream_valid(aclrtStream stream);

/* The deterministic level as the aclnn framework reads it (process-wide table). */
int64_t acl_deterministic_level(void);

/* ACL_SUCCESS when the calling thread has a current context, else 107002 with a message. */
int acl_require_context(void);

#endif
