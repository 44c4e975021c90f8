/* Written by hand. aclnnRecurrentGatedDeltaRule (ops-transformer (not in the mirrored revision)) is NOT implemented by this emulator: the header exists so that
 * clients which include it unconditionally (llama.cpp's ggml-cann includes it but does not call it) compile.
 * It deliberately declares nothing: a program that calls aclnnRecurrentGatedDeltaRule fails to compile against this tree
 * rather than linking to a stub. */
#ifndef PYACLNN_ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H
#define PYACLNN_ACLNNOP_ACLNN_RECURRENT_GATED_DELTA_RULE_H

#include "aclnn/aclnn_base.h"
#include "aclnnop/aclnn_util.h"

#endif
