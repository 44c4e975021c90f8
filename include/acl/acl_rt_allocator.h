/* pyaclnn: external allocator hooks of the ACL runtime. Not used by the emulator; kept for the include chain. */
#ifndef PYACLNN_ACL_ACL_RT_ALLOCATOR_H
#define PYACLNN_ACL_ACL_RT_ALLOCATOR_H

#include "acl/acl_base.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef void *aclrtAllocatorDesc;
typedef void *aclrtAllocator;
typedef void *aclrtAllocatorBlock;
typedef void *aclrtAllocatorAddr;

#ifdef __cplusplus
}
#endif

#endif
