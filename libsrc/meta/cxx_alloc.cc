// aclGetViewShape and friends hand out arrays the caller releases with delete[], so they are allocated with
// operator new[] here rather than malloc.
#include <cstdint>
#include <new>

extern "C" int64_t *acl_new_i64_array(uint64_t n) {
    return new (std::nothrow) int64_t[n ? n : 1];
}
