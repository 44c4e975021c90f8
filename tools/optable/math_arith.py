"""ops-math: elementwise arithmetic (math/add, math/mul, ...)."""
from . import ALL, ew

ADDV3 = ("f32", "i32", "f16", "bf16", "i8")
ADDV3_F = {"f": "s0 + s1 * a", "i": "(int64_t)((uint64_t)s0 + (uint64_t)s1 * (uint64_t)a)", "c": "s0 + s1 * a"}

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
    # AddV3: scalar self + alpha * tensor other; the promotion follows the A2 rule of ew_promote_addv3 (a floating
    # other computes in FLOAT); alpha must cast to it; InplaceAddV3 writes other
    ew("AddV3", "const aclScalar* self, const aclTensor* other, const aclScalar* alpha, aclTensor* out",
       "aclnn_add_v3.h", dtypes=ADDV3, promote="ew_promote_addv3", scalar_cast_check=("alpha",), order="dps",
       formula=ADDV3_F, torch="torch.add(torch.tensor(s0, dtype=a.dtype), a, alpha=s1)"),
    ew("InplaceAddV3", "const aclScalar* selfRef, const aclTensor* other, const aclScalar* alpha", "aclnn_add_v3.h",
       dtypes=ADDV3, promote="ew_promote_addv3", scalar_cast_check=("alpha",), order="dps", inout="other",
       formula=ADDV3_F, torch="a.copy_(torch.add(torch.tensor(s0, dtype=a.dtype), a, alpha=s1))"),
]
