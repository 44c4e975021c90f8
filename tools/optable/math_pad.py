"""ops-math conversion/: reflection, replication and circular padding and their backward passes (libsrc/ops/pad.c)."""
from . import Op

FW = "const aclTensor* self, const aclIntArray* padding, aclTensor* out"
BW = "const aclTensor* gradOutput, const aclTensor* self, const aclIntArray* padding, aclTensor* gradInput"

OPS = [
    Op("ReflectionPad1d", FW, "aclnn_reflection_pad1d.h"),
    Op("ReflectionPad2d", FW, "aclnn_reflection_pad2d.h"),
    Op("ReflectionPad3d", FW, "aclnn_reflection_pad3d.h"),
    Op("ReplicationPad1d", FW, "aclnn_replication_pad1d.h"),
    Op("ReplicationPad2d", FW, "aclnn_replication_pad2d.h"),
    Op("ReplicationPad3d", FW, "aclnn_replication_pad3d.h"),
    Op("CircularPad2d", FW, "aclnn_circular_pad2d.h"),
    Op("CircularPad3d", FW, "aclnn_circular_pad3d.h"),
    Op("ReflectionPad1dBackward", BW, "aclnn_reflection_pad1d_backward.h"),
    Op("ReflectionPad2dBackward", BW, "aclnn_pad2d_backward.h"),
    Op("ReflectionPad3dBackward", BW, "aclnn_reflection_pad3d_backward.h"),
    Op("ReplicationPad1dBackward", BW, "aclnn_replication_pad1d_backward.h"),
    Op("ReplicationPad2dBackward", BW, "aclnn_pad2d_backward.h"),
    Op("ReplicationPad3dBackward", BW, "aclnn_replication_pad3d_backward.h"),
    Op("CircularPad2dBackward", BW, "aclnn_circular_pad2d_backward.h"),
    Op("CircularPad3dBackward", BW, "aclnn_circular_pad3d_backward.h"),
]
