"""ops-math sort, search and count ops (libsrc/ops/sort_search.c over dense.h)."""
from . import Op

OPS = [Op(n, a, h) for n, a, h in (
    ("Sort", "const aclTensor* self, bool stable, int64_t dim, bool descending, aclTensor* valuesOut, "
     "aclTensor* indicesOut", "aclnn_sort.h"),
    ("Argsort", "const aclTensor* self, int64_t dim, bool descending, aclTensor* out", "aclnn_argsort.h"),
    ("SearchSorted", "const aclTensor* sortedSequence, const aclTensor* self, bool outInt32, bool right, "
     "const aclTensor* sorter, aclTensor* out", "aclnn_searchsorted.h"),
    ("SearchSorteds", "const aclTensor* sortedSequence, const aclScalar* self, const bool outInt32, const bool right, "
     "const aclTensor* sorter, aclTensor* out", "aclnn_searchsorted.h"),
    ("Bincount", "const aclTensor* self, const aclTensor* weights, int64_t minlength, aclTensor* out",
     "aclnn_bincount.h"),
    ("Histc", "const aclTensor* self, int64_t bins, const aclScalar* min, const aclScalar* max, aclTensor* out",
     "aclnn_histc.h"),
    ("OneHot", "const aclTensor* self, int numClasses, const aclTensor* onValue, const aclTensor* offValue, "
     "int64_t axis, aclTensor* out", "aclnn_one_hot.h"),
    ("MaskedSelect", "const aclTensor* self, const aclTensor* mask, aclTensor* out", "aclnn_masked_select.h"),
    ("InplaceFillDiagonal", "aclTensor* selfRef, const aclScalar* fillValue, bool wrap", "aclnn_fill_diagonal.h"),
    ("IsInScalarTensor", "const aclScalar* element, const aclTensor* testElements, bool assumeUnique, bool invert, "
     "aclTensor* out", "aclnn_isin.h"),
)]
