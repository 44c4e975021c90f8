/* pyaclnn: single-operator (acl_op) API. The emulator provides the aclnn two-phase API instead; this header
 * only keeps the include chain of acl/acl.h intact. */
#ifndef PYACLNN_ACL_ACL_OP_H
#define PYACLNN_ACL_ACL_OP_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct aclopAttr aclopAttr;

#ifdef __cplusplus
}
#endif

#endif
