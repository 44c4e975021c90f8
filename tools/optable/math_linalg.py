"""ops-math linear algebra (libsrc/ops/linalg.c). Dtype lists: the ASCEND910B lists of each op_api source."""
from . import Op

QR_DT = ("f32", "f16", "f64", "c64", "c128")   # math/qr/op_api: self, Q and R each from this list
LA_DT = ("f32", "f64", "c64", "c128")          # slogdet, logdet, triangular_solve
OPS = [
    Op("LinalgCholesky", "const aclTensor* self, bool upper, aclTensor* out", "aclnn_linalg_cholesky.h",
       dtypes=("f32", "bf16", "f16")),
    Op("Qr", "const aclTensor* self, bool some, aclTensor* Q, aclTensor* R", "aclnn_qr.h", dtypes=QR_DT,
       arg_dtypes={"Q": QR_DT, "R": QR_DT}),
    Op("LinalgQr", "const aclTensor* self, int64_t mode, aclTensor* Q, aclTensor* R", "aclnn_linalg_qr.h",
       dtypes=QR_DT, arg_dtypes={"Q": QR_DT, "R": QR_DT}),
    Op("Svd", "const aclTensor *input, const bool fullMatrices, const bool computeUV, aclTensor *sigma, aclTensor *u, "
       "aclTensor *v", "aclnn_svd.h", dtypes=("f64", "f32", "c64", "c128")),
    Op("Slogdet", "const aclTensor* self, aclTensor* signOut, aclTensor* logOut", "aclnn_slogdet.h", dtypes=LA_DT,
       arg_dtypes={"signOut": LA_DT, "logOut": LA_DT}),
    Op("Logdet", "const aclTensor* self, aclTensor* out", "aclnn_logdet.h", dtypes=LA_DT, out_dtypes=LA_DT),
    Op("TriangularSolve", "const aclTensor* self, const aclTensor* A, bool upper, bool transpose, bool unitriangular, "
       "aclTensor* xOut, aclTensor* mOut", "aclnn_triangular_solve.h", dtypes=LA_DT, optional=("mOut",)),
]
