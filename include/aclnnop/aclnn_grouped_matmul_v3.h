/* Written by hand. aclnnGroupedMatmulV3 (ops-transformer gmm/grouped_matmul) is NOT implemented by this emulator: the header exists so that
 * clients which include it unconditionally (llama.cpp's ggml-cann includes it but does not call it) compile.
 * It deliberately declares nothing: a program that calls aclnnGroupedMatmulV3 fails to compile against this tree
 * rather than linking to a stub. */
#ifndef PYACLNN_ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H
#define PYACLNN_ACLNNOP_ACLNN_GROUPED_MATMUL_V3_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#endif
