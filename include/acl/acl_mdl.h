/* pyaclnn: model API. Models are not emulated; the dump configuration calls accept and record their
 * configuration (nothing is dumped, since no model runs). */
#ifndef PYACLNN_ACL_ACL_MDL_H
#define PYACLNN_ACL_ACL_MDL_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

ACL_FUNC_VISIBILITY aclError aclmdlInitDump(void);
ACL_FUNC_VISIBILITY aclError aclmdlSetDump(const char *dumpCfgPath);
ACL_FUNC_VISIBILITY aclError aclmdlFinalizeDump(void);

#ifdef __cplusplus
}
#endif

#endif
