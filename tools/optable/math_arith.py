"""ops-math: elementwise arithmetic (math/add, math/mul, ...)."""
from . import ALL, ew

OPS = [
    ew("Add", "const aclTensor* self, const aclTensor* other, const aclScalar* alpha, aclTensor* out", "aclnn_add.h",
       dtypes=ALL, formula={"f": "a + s0 * b", "i": "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b)",
                            "c": "a + s0 * b"},
       scalar_promote=False, torch="torch.add(a, b, alpha=s0)"),
    ew("Adds", "const aclTensor* self, const aclScalar* other, const aclScalar* alpha, aclTensor* out", "aclnn_add.h",
       dtypes=ALL, formula={"f": "a + s1 * s0", "i": "(int64_t)((uint64_t)a + (uint64_t)s1 * (uint64_t)s0)",
                            "c": "a + s1 * s0"},
       scalar_promote=("other",), torch="torch.add(a, s0, alpha=s1)"),
    ew("InplaceAdd", "const aclTensor* selfRef, const aclTensor* other, const aclScalar* alpha", "aclnn_add.h",
       dtypes=ALL, formula={"f": "a + s0 * b", "i": "(int64_t)((uint64_t)a + (uint64_t)s0 * (uint64_t)b)",
                            "c": "a + s0 * b"},
       scalar_promote=False, torch="a.add_(b, alpha=s0)"),
    ew("InplaceAdds", "const aclTensor* selfRef, const aclScalar* other, const aclScalar* alpha", "aclnn_add.h",
       dtypes=ALL, formula={"f": "a + s1 * s0", "i": "(int64_t)((uint64_t)a + (uint64_t)s1 * (uint64_t)s0)",
                            "c": "a + s1 * s0"},
       scalar_promote=("other",), torch="a.add_(s0, alpha=s1)"),
]
