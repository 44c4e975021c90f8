"""ops-math conversion/: reflection, replication and circular padding and their backward passes (libsrc/ops/pad.c).
The dtype lists are the ASCEND910B lists of the op_api sources: mirror_pad (reflection forward), pad_v3
(replication forward), circular_pad, pad_v3_grad_replicate / pad_v4_grad / pad_v3_grad_replication (reflection and
replication backward), circular_pad_grad."""
from . import Op

FW = "const aclTensor* self, const aclIntArray* padding, aclTensor* out"
BW = "const aclTensor* gradOutput, const aclTensor* self, const aclIntArray* padding, aclTensor* gradInput"

REFLECT = ("f32", "i32", "i64", "f16", "i16", "f64", "i8", "u8", "bool", "bf16", "c64", "c128")
REPLICATE = ("f32", "i32", "i64", "f16", "i16", "f64", "i8", "u8", "c64", "c128", "bf16")
CIRCULAR = ("f32", "bf16", "f16", "i32", "i8")
GRAD = ("f32", "f16", "bf16", "f64", "c64", "c128")
CIRCULAR_GRAD = ("f32", "f16", "bf16")

OPS = [
    Op("ReflectionPad1d", FW, "aclnn_reflection_pad1d.h", dtypes=REFLECT),
    Op("ReflectionPad2d", FW, "aclnn_reflection_pad2d.h", dtypes=REFLECT),
    Op("ReflectionPad3d", FW, "aclnn_reflection_pad3d.h", dtypes=REFLECT),
    Op("ReplicationPad1d", FW, "aclnn_replication_pad1d.h", dtypes=REPLICATE),
    Op("ReplicationPad2d", FW, "aclnn_replication_pad2d.h", dtypes=REPLICATE),
    Op("ReplicationPad3d", FW, "aclnn_replication_pad3d.h", dtypes=REPLICATE),
    Op("CircularPad2d", FW, "aclnn_circular_pad2d.h", dtypes=CIRCULAR),
    Op("CircularPad3d", FW, "aclnn_circular_pad3d.h", dtypes=CIRCULAR),
    Op("ReflectionPad1dBackward", BW, "aclnn_reflection_pad1d_backward.h", dtypes=GRAD),
    Op("ReflectionPad2dBackward", BW, "aclnn_pad2d_backward.h", dtypes=GRAD),
    Op("ReflectionPad3dBackward", BW, "aclnn_reflection_pad3d_backward.h", dtypes=GRAD),
    Op("ReplicationPad1dBackward", BW, "aclnn_replication_pad1d_backward.h", dtypes=GRAD),
    Op("ReplicationPad2dBackward", BW, "aclnn_pad2d_backward.h", dtypes=GRAD),
    Op("ReplicationPad3dBackward", BW, "aclnn_replication_pad3d_backward.h", dtypes=GRAD),
    Op("CircularPad2dBackward", BW, "aclnn_circular_pad2d_backward.h", dtypes=CIRCULAR_GRAD),
    Op("CircularPad3dBackward", BW, "aclnn_circular_pad3d_backward.h", dtypes=CIRCULAR_GRAD),
]
