"""ops-math spectral ops, whose interfaces carry the `acl` prefix (aclStft, aclRfft1D; libsrc/ops/fft.c)."""
from . import Op

OPS = [
    Op("Stft", "const aclTensor* self, const aclTensor* windowOptional, aclTensor* out, int64_t nFft, "
       "int64_t hopLength, int64_t winLength, bool normalized, bool onesided, bool returnComplex", "acl_stft.h",
       prefix="acl", dtypes=("f32", "f64", "c64", "c128")),
    Op("Rfft1D", "const aclTensor* self, int64_t n, int64_t dim, int64_t norm, aclTensor* out", "acl_rfft1d.h",
       prefix="acl", dtypes=("f32",)),
]
