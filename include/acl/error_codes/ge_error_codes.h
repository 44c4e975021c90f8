/* pyaclnn: graph-engine status codes referenced by the ACL include chain (none are produced here). */
#ifndef PYACLNN_ACL_ERROR_CODES_GE_ERROR_CODES_H
#define PYACLNN_ACL_ERROR_CODES_GE_ERROR_CODES_H

#define ACL_ERROR_GE_PARAM_INVALID 145000
#define ACL_ERROR_GE_EXEC_NOT_INIT 145001
#define ACL_ERROR_GE_INTERNAL_ERROR 545000

#endif
