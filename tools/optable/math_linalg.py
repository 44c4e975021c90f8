"""ops-math linear algebra (libsrc/ops/linalg.c over dense.h)."""
from . import Op

OPS = [Op(n, a, h) for n, a, h in (
    ("LinalgCholesky", "const aclTensor* self, bool upper, aclTensor* out", "aclnn_linalg_cholesky.h"),
    ("Qr", "const aclTensor* self, bool some, aclTensor* Q, aclTensor* R", "aclnn_qr.h"),
    ("LinalgQr", "const aclTensor* self, int64_t mode, aclTensor* Q, aclTensor* R", "aclnn_linalg_qr.h"),
    ("Svd", "const aclTensor *input, const bool fullMatrices, const bool computeUV, aclTensor *sigma, aclTensor *u, "
     "aclTensor *v", "aclnn_svd.h"),
    ("Slogdet", "const aclTensor* self, aclTensor* signOut, aclTensor* logOut", "aclnn_slogdet.h"),
    ("Logdet", "const aclTensor* self, aclTensor* out", "aclnn_logdet.h"),
    ("TriangularSolve", "const aclTensor* self, const aclTensor* A, bool upper, bool transpose, bool unitriangular, "
     "aclTensor* xOut, aclTensor* mOut", "aclnn_triangular_solve.h"),
)]
