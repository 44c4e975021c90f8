/* pyaclnn: model-management base types. Nothing in this emulator uses models; kept for the include chain. */
#ifndef PYACLNN_ACL_ACL_BASE_MDL_H
#define PYACLNN_ACL_ACL_BASE_MDL_H

#include "acl/acl_base_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclmdlDesc aclmdlDesc;

#ifdef __cplusplus
}
#endif

#endif
