/* pyaclnn: the ACL umbrella header (init/finalize plus the runtime). */
#ifndef PYACLNN_ACL_ACL_H
#define PYACLNN_ACL_ACL_H

#include <stdio.h>
#include "acl/acl_rt.h"
#include "acl/acl_op.h"
#include "acl/acl_mdl.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACL_MAJOR_VERSION 8
#define ACL_MINOR_VERSION 0
#define ACL_PATCH_VERSION 0

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY aclError aclFinalizeReference(uint64_t *refCount);
ACL_FUNC_VISIBILITY aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion,
                                             int32_t *patchVersion);

#ifdef __cplusplus
}
#endif

#endif
