/* pyaclnn: model API. Not emulated; this header only keeps the include chain of acl/acl.h intact. */
#ifndef PYACLNN_ACL_ACL_MDL_H
#define PYACLNN_ACL_ACL_MDL_H

#include "acl/acl_base.h"
#include "acl/acl_rt.h"

#endif
