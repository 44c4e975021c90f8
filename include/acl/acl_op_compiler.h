/* pyaclnn: single-operator compilation and execution. The emulator compiles nothing: aclopCompileAndExecute
 * runs the operator types listed in docs/TORCH_NPU.md (through aclnn or on the host), and returns ACL_ERROR_OP_NOT_FOUND (with a message
 * naming the type) for any other. */
#ifndef PYACLNN_ACL_ACL_OP_COMPILER_H
#define PYACLNN_ACL_ACL_OP_COMPILER_H

#include "acl/acl_base.h"
#include "acl/acl_op.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum aclCompileType {
    ACL_COMPILE_SYS,
    ACL_COMPILE_UNREGISTERED
} aclopCompileType;

typedef enum {
    ACL_PRECISION_MODE,
    ACL_AICORE_NUM,
    ACL_AUTO_TUNE_MODE,
    ACL_OP_SELECT_IMPL_MODE,
    ACL_OPTYPELIST_FOR_IMPLMODE,
    ACL_OP_DEBUG_LEVEL,
    ACL_DEBUG_DIR,
    ACL_OP_COMPILER_CACHE_MODE,
    ACL_OP_COMPILER_CACHE_DIR,
    ACL_OP_PERFORMANCE_MODE,
    ACL_OP_JIT_COMPILE,
    ACL_OP_DETERMINISTIC,
    ACL_CUSTOMIZE_DTYPES,
    ACL_OP_PRECISION_MODE,
    ACL_ALLOW_HF32,
    ACL_PRECISION_MODE_V2,
    ACL_OP_DEBUG_OPTION
} aclCompileOpt;

ACL_FUNC_VISIBILITY aclError aclopCompileAndExecute(const char *opType, int numInputs,
                                                    const aclTensorDesc *const inputDesc[],
                                                    const aclDataBuffer *const inputs[], int numOutputs,
                                                    const aclTensorDesc *const outputDesc[],
                                                    aclDataBuffer *const outputs[], const aclopAttr *attr,
                                                    aclopEngineType engineType, aclopCompileType compileFlag,
                                                    const char *opPath, aclrtStream stream);
/* The same, for operators whose output shapes are known only when they run: the output descriptions may be updated. */
ACL_FUNC_VISIBILITY aclError aclopCompileAndExecuteV2(const char *opType, int numInputs, aclTensorDesc *inputDesc[],
                                                      aclDataBuffer *inputs[], int numOutputs,
                                                      aclTensorDesc *outputDesc[], aclDataBuffer *outputs[],
                                                      aclopAttr *attr, aclopEngineType engineType,
                                                      aclopCompileType compileFlag, const char *opPath,
                                                      aclrtStream stream);
ACL_FUNC_VISIBILITY aclError aclSetCompileopt(aclCompileOpt opt, const char *value);
ACL_FUNC_VISIBILITY size_t aclGetCompileoptSize(aclCompileOpt opt);
ACL_FUNC_VISIBILITY aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length);

#ifdef __cplusplus
}
#endif

#endif
