/* pyaclnn: ACL base header (types, enumerations, status codes). */
#ifndef PYACLNN_ACL_ACL_BASE_H
#define PYACLNN_ACL_ACL_BASE_H

#include "acl/acl_base_rt.h"
#include "acl/acl_base_mdl.h"
#include "acl/error_codes/rt_error_codes.h"
#include "acl/error_codes/ge_error_codes.h"

#endif
