/* The operator types aclopCompileAndExecute runs (single_op_dispatch.c): each maps the type's tensors and
 * attributes to an aclnn call of the same computation. */
#ifndef PYACLNN_RUNTIME_SINGLE_OP_H
#define PYACLNN_RUNTIME_SINGLE_OP_H

#include <stdbool.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"

typedef struct {
    const char *type;
    int nin;
    const aclTensorDesc *const *in_desc;
    const aclDataBuffer *const *in;
    int nout;
    const aclTensorDesc *const *out_desc;
    aclDataBuffer *const *out;
    const aclopAttr *attr;
    aclrtStream stream;
} acl_single_op_call;

typedef struct {
    const char *type;
    aclError (*run)(const acl_single_op_call *call);
} acl_single_op;

const acl_single_op *acl_single_op_find(const char *type);
bool acl_op_attr_int(const aclopAttr *attr, const char *name, int64_t *value);
bool acl_op_attr_float(const aclopAttr *attr, const char *name, double *value);
const char *acl_op_attr_string(const aclopAttr *attr, const char *name);

/* The recurrent types (single_op_rnn.c). */
aclError acl_single_op_dynamic_rnn(const acl_single_op_call *c);
aclError acl_single_op_dynamic_rnn_v2(const acl_single_op_call *c);
aclError acl_single_op_dynamic_gru_v2(const acl_single_op_call *c);
aclError acl_single_op_dynamic_rnn_grad(const acl_single_op_call *c);
aclError acl_single_op_dynamic_gru_v2_grad(const acl_single_op_call *c);

#endif
