/* Prints "NAME VALUE" for every enumerator and status constant the ABI test checks (compiled by the test). */
#include <stdio.h>
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

#define P(x) printf("%s %lld\n", #x, (long long)(x))

int main(void) {
#include "enum_list.inc"
    return 0;
}
