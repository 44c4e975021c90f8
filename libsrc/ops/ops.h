/* Op ids and names generated from ops.inc, plus the helpers every op file uses. */
#ifndef PYACLNN_OPS_OPS_H
#define PYACLNN_OPS_OPS_H

#include "common/status.h"
#include "meta/meta.h"

typedef enum {
#define ACL_OP(name, prefix) ACL_OP_##name,
#include "ops/ops.inc"
#undef ACL_OP
    ACL_OP_COUNT
} acl_op_id;

const char *acl_op_name(int op);           /* "aclnn<Name>" (the op's C symbol: "aclStft") */
const char *acl_op_ws_name(int op);        /* "aclnn<Name>GetWorkspaceSize" */

#define ACL_COUNT_OF(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* the first-phase checks every hand-written op makes, each recording a message naming the argument */
#define NN(t, n) ACL_TRY(acl_check_tensor((t), (n)))  /* NULL -> 161001, not a live tensor -> 161002 */
#define WS_EX(ws, ex) \
    ACLNN_CHECK((ws) != NULL && (ex) != NULL, ACLNN_ERR_PARAM_NULLPTR, "workspaceSize and executor must not be NULL.")
#define OOM ACL_REPORT(ACLNN_ERR_INNER, "out of memory")

#endif
