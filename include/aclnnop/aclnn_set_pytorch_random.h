/* Written by hand (not an op-table entry: no two-phase interface). The random-mode switch of CANN's
 * random/random_common: 0 (default) keeps the A2/A3-compatible generators, 1 follows PyTorch's; on Atlas A2 (what
 * this library emulates) the mode changes nothing. Implemented in libsrc/ops/random.c. */
#ifndef PYACLNN_ACLNNOP_ACLNN_SET_PYTORCH_RANDOM_H
#define PYACLNN_ACLNNOP_ACLNN_SET_PYTORCH_RANDOM_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#ifdef __cplusplus
extern "C" {
#endif

ACLNN_API aclnnStatus aclnnSetPytorchRandom(int32_t pytorchRandom);

ACLNN_API int32_t aclnnGetPytorchRandom(void);

#ifdef __cplusplus
}
#endif

#endif
