"""ops-math sort, search and count ops (libsrc/ops/sort_search.c). The dtype lists are the ASCEND910B lists of
each op's op_api source (hicann/ops-math math/<op>/op_api/aclnn_*.cpp, conversion/<op>/...)."""
from . import Op

SEARCH = ("f16", "f32", "i16", "i8", "u8", "i32", "i64", "f64")

OPS = [
    Op("Sort", "const aclTensor* self, bool stable, int64_t dim, bool descending, aclTensor* valuesOut, "
       "aclTensor* indicesOut", "aclnn_sort.h", dtypes=("f16", "f32", "bf16", "u8", "i8", "i16", "i32", "i64", "bool"),
       arg_dtypes={"valuesOut": ("f16", "f32", "f64", "u8", "i8", "i16", "i32", "i64", "bf16", "bool"),
                   "indicesOut": ("i64",)}),
    Op("Argsort", "const aclTensor* self, int64_t dim, bool descending, aclTensor* out", "aclnn_argsort.h",
       dtypes=("f32", "f16", "i8", "i16", "i32", "i64", "u8", "bf16"), out_dtypes=("i64",)),
    Op("SearchSorted", "const aclTensor* sortedSequence, const aclTensor* self, bool outInt32, bool right, "
       "const aclTensor* sorter, aclTensor* out", "aclnn_searchsorted.h", dtypes=SEARCH,
       arg_dtypes={"sorter": ("i64",)}),
    Op("SearchSorteds", "const aclTensor* sortedSequence, const aclScalar* self, const bool outInt32, "
       "const bool right, const aclTensor* sorter, aclTensor* out", "aclnn_searchsorted.h", dtypes=SEARCH,
       arg_dtypes={"sorter": ("i64",)}),
    Op("Bincount", "const aclTensor* self, const aclTensor* weights, int64_t minlength, aclTensor* out",
       "aclnn_bincount.h", dtypes=("i8", "i16", "i32", "i64", "u8"),
       arg_dtypes={"weights": ("f32", "f16", "f64", "i8", "i16", "i32", "i64", "u8", "bool")},
       out_dtypes=("f32", "f64", "i32", "i64")),
    Op("Histc", "const aclTensor* self, int64_t bins, const aclScalar* min, const aclScalar* max, aclTensor* out",
       "aclnn_histc.h", dtypes=("f32", "f16", "i64", "i32", "i16", "i8", "u8")),
    # OneHot: self's list; out, onValue and offValue share out_dtypes
    Op("OneHot", "const aclTensor* self, int numClasses, const aclTensor* onValue, const aclTensor* offValue, "
       "int64_t axis, aclTensor* out", "aclnn_one_hot.h", dtypes=("i32", "i64"),
       out_dtypes=("f16", "f32", "i32", "i64")),
    Op("MaskedSelect", "const aclTensor* self, const aclTensor* mask, aclTensor* out", "aclnn_masked_select.h",
       dtypes=("f32", "i32", "i64", "f16", "i16", "i8", "u8", "f64", "bool", "bf16"),
       arg_dtypes={"mask": ("u8", "bool")}),
    Op("InplaceFillDiagonal", "aclTensor* selfRef, const aclScalar* fillValue, bool wrap", "aclnn_fill_diagonal.h",
       dtypes=("f16", "f32", "f64", "i8", "i16", "i32", "i64", "u8", "bool", "bf16")),
    # IsInScalarTensor: element (an aclScalar) and testElements share the list
    Op("IsInScalarTensor", "const aclScalar* element, const aclTensor* testElements, bool assumeUnique, bool invert, "
       "aclTensor* out", "aclnn_isin.h", dtypes=("f32", "f16", "i8", "i32", "i64", "u8", "bf16", "f64", "i16"),
       out_dtypes=("bool",)),
]
