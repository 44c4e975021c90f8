/* Op ids and names generated from ops.inc, plus the helpers every op file uses. */
#ifndef PYACLNN_OPS_OPS_H
#define PYACLNN_OPS_OPS_H

#include "common/status.h"
#include "meta/meta.h"

typedef enum {
#define ACL_OP(name) ACL_OP_##name,
#include "ops/ops.inc"
#undef ACL_OP
    ACL_OP_COUNT
} acl_op_id;

const char *acl_op_name(int op);           /* "aclnn<Name>" */
const char *acl_op_ws_name(int op);        /* "aclnn<Name>GetWorkspaceSize" */

#define ACL_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

#endif
