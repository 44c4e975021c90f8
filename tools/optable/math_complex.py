"""ops-math complex numbers: Complex, Polar (real inputs, complex result), Real, AngleV2 (complex or real inputs,
real result)."""
from . import ew

OPS = [
    # Complex: empty inputs return before any dtype check; real and imag of one dtype, out its complex pair
    # (fp16 -> COMPLEX32)
    ew("Complex", "const aclTensor* real, const aclTensor* imag, aclTensor* out", "aclnn_complex.h",
       dtypes=("f16", "f32", "f64"), result="complex", out_rule="list", out_dtypes=("c32", "c64", "c128"),
       same_dtype=("imag",), check="ew_check_complex_pair", order="edhps", formula={"f": "EW_CMPLX(a, b)"},
       skip_dtypes=("f16",), torch="torch.complex(a, b)"),
    # Polar: float32 only (complex64 out)
    ew("Polar", "const aclTensor* input, const aclTensor* angle, aclTensor* out", "aclnn_polar.h",
       dtypes=("f32",), result="complex", out_rule="list", out_dtypes=("c64",), same_dtype=("angle",),
       formula={"f": "EW_CMPLX(a * cos(b), a * sin(b))"}, torch="torch.polar(a, b)", domain=(0, 3)),
    ew("Real", "const aclTensor* self, aclTensor* out", "aclnn_real.h", dtypes=("f32", "f16", "c64", "c128"),
       result="real", formula={"f": "a", "c": "creal(a)"}, torch="torch.real(a)"),
    ew("AngleV2", "const aclTensor* x, aclTensor* y", "aclnn_angle_v2.h",
       dtypes=("f32", "f16", "c64", "c128", "i8", "i16", "i32", "i64", "u8", "bool"), result="real",
       compute="float", formula={"f": "isnan(a) ? a : (a < 0 ? 3.14159265358979323846 : 0)", "c": "carg(a)"},
       torch="torch.angle(a)"),
]
