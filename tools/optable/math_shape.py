"""ops-math conversion/: casts, copies, views and creation ops (hand-written first phases over copy plans,
libsrc/ops/shape_views.c, shape_lists.c, creation.c), and the fills (elementwise table entries)."""
from . import ALL, Op, ew

# ASCEND910B dtype lists (op_api/aclnn_*.cpp of each op, DAV_2201 branch)
ALL15 = ALL + ("u16", "u32", "u64")
SLICE = ("f32", "f16", "i64", "i8", "i32", "u8", "bool", "bf16")
SPLIT = ("f64", "f32", "f16", "bf16", "i64", "i32", "i16", "i8", "u8", "bool", "c128", "c64")
DIAG = ("f16", "f32", "i64", "i32", "i16", "i8", "u8", "f64", "bool", "c64", "bf16")
TRI = ("u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "bool", "bf16", "u16", "u32", "u64")
RANGE_IN = ("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16")
RANGE_OUT = ("f16", "f32", "f64", "i64", "i32", "bf16")

OPS = [
    Op("Cast", "const aclTensor* self, const aclDataType dtype, aclTensor* out", "aclnn_cast.h", dtypes=ALL15),
    Op("InplaceCopy", "aclTensor* selfRef, const aclTensor* src", "aclnn_copy.h", dtypes=ALL15),
    Op("Permute", "const aclTensor* self, const aclIntArray* dims, aclTensor* out", "aclnn_permute.h",
       dtypes=ALL15),
    Op("Expand", "const aclTensor* self, const aclIntArray* size, aclTensor* out", "aclnn_expand.h",
       dtypes=("f16", "f32", "u8", "i8", "i32", "i64", "bool", "bf16")),
    Op("Repeat", "const aclTensor* self, const aclIntArray* repeats, aclTensor* out", "aclnn_repeat.h",
       dtypes=ALL15),
    Op("Flatten", "const aclTensor* self, int64_t axis, aclTensor* out", "aclnn_flatten.h",
       dtypes=("f32", "f16", "i32", "i8", "u8", "i64", "i16", "u16", "u32", "u64", "bool", "bf16")),
    Op("Slice", "const aclTensor* self, int64_t dim, int64_t start, int64_t end, int64_t step, aclTensor* out",
       "aclnn_slice.h", dtypes=SLICE),
    Op("SliceV2", "const aclTensor* self, const aclIntArray* starts, const aclIntArray* ends, const aclIntArray* axes, "
       "const aclIntArray* steps, aclTensor* out", "aclnn_slice_v2.h", dtypes=SLICE),
    Op("Roll", "const aclTensor* x, const aclIntArray* shifts, const aclIntArray* dims, aclTensor* out",
       "aclnn_roll.h", dtypes=("f32", "f16", "i8", "u8", "i32", "u32", "bool", "i64", "bf16", "i16")),
    Op("ChannelShuffle", "const aclTensor* self, int64_t groups, aclTensor* out", "aclnn_channel_shuffle.h",
       dtypes=("f16", "f32", "f64", "i8", "u8", "i16", "i32", "i64", "bool", "c64", "c128", "bf16")),
    Op("Diag", "const aclTensor* self, int64_t diagonal, aclTensor* out", "aclnn_diag.h", dtypes=DIAG,
       # an empty self with diagonal != 0 fills out with zeros: out's own list (no complex)
       out_dtypes=("f16", "f32", "i64", "i32", "i16", "i8", "u8", "f64", "bool", "bf16")),
    Op("DiagFlat", "const aclTensor* self, int64_t diagonal, aclTensor* out", "aclnn_diag_flat.h", dtypes=DIAG),
    Op("ConstantPadNd", "const aclTensor* self, const aclIntArray* pad, const aclScalar* value, aclTensor* out",
       "aclnn_constant_pad_nd.h", dtypes=ALL15),
    Op("Cat", "const aclTensorList* tensors, int64_t dim, aclTensor* out", "aclnn_cat.h",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "c64", "bf16", "bool")),
    Op("Stack", "const aclTensorList* tensors, int64_t dim, aclTensor* out", "aclnn_stack.h", dtypes=ALL15),
    Op("SplitTensor", "const aclTensor* self, uint64_t splitSections, int64_t dim, aclTensorList* out",
       "aclnn_split_tensor.h", dtypes=SPLIT),
    Op("SplitWithSize", "const aclTensor* self, const aclIntArray* splitSize, int64_t dim, aclTensorList* out",
       "aclnn_split_with_size.h", dtypes=SPLIT),
    Op("Arange", "const aclScalar* start, const aclScalar* end, const aclScalar* step, aclTensor* out",
       "aclnn_arange.h", dtypes=RANGE_OUT, arg_dtypes={"start": RANGE_IN, "end": RANGE_IN, "step": RANGE_IN}),
    Op("Range", "const aclScalar* start, const aclScalar* end, const aclScalar* step, aclTensor* out",
       "aclnn_range.h", dtypes=RANGE_OUT, arg_dtypes={"start": RANGE_IN, "end": RANGE_IN, "step": RANGE_IN}),
    Op("Linspace", "const aclScalar* start, const aclScalar* end, int64_t steps, aclTensor* out", "aclnn_linspace.h",
       dtypes=("f32", "f16", "bf16", "i32", "i16", "i8", "u8", "i64", "f64")),
    Op("Eye", "int64_t n, int64_t m, aclTensor* out", "aclnn_eye.h",
       dtypes=("f32", "i32", "f16", "i8", "i16", "u8", "i64", "bool", "bf16")),
    Op("Tril", "const aclTensor* self, int64_t diagonal, aclTensor* out", "aclnn_tril.h", dtypes=TRI),
    Op("InplaceTril", "const aclTensor* selfRef, int64_t diagonal", "aclnn_tril.h", dtypes=TRI),
    Op("Triu", "const aclTensor* self, int64_t diagonal, aclTensor* out", "aclnn_triu.h", dtypes=TRI),
    Op("InplaceTriu", "aclTensor* selfRef, int64_t diagonal", "aclnn_triu.h", dtypes=TRI),
    # fills: elementwise ops of the written tensor alone
    # fill: PromoteType(selfRef, value) must exist (uint16/32/64 take only their own dtype); the value converted
    ew("InplaceFillScalar", "aclTensor* selfRef, const aclScalar* value", "aclnn_fill_scalar.h",
       dtypes=ALL + ("u16", "u32", "u64"), formula="s0", scalar_mode="full", out_rule="any", scalar_cast_check=False,
       scalars=[lambda dt: True if dt == "bool" else 3],
       torch="a.fill_(s0)"),
    ew("InplaceFillTensor", "aclTensor* selfRef, const aclTensor* value", "aclnn_fill_tensor.h", dtypes=ALL,
       formula="b", no_promote=("value",), test=False, torch="a.fill_(b)"),
    # zero: no rank limit
    ew("InplaceZero", "aclTensor* selfRef", "aclnn_zero.h", formula="0", rank=None, torch="a.zero_()",
       dtypes=("i8", "i32", "i64", "u8", "f16", "f32", "bool", "f64", "i16", "u16", "c128", "c64", "bf16")),
    ew("InplaceOne", "const aclTensor* selfRef", "aclnn_ones.h", formula="1", torch="a.fill_(1)",
       dtypes=("f32", "f16", "i8", "i16", "i32", "i64", "u8", "bool", "f64", "bf16")),
]
