/* A C (not C++) program driving the runtime and meta API end to end, built and run by tests/test_abi.py. */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnn/aclnn_base.h"

void _ZdaPv(void *p); /* C++ operator delete[], callable from C (the harness links -lstdc++) */

#define EXPECT(cond)                                                   \
    do {                                                               \
        if (!(cond)) {                                                 \
            printf("FAILED line %d: %s\n", __LINE__, #cond);           \
            return 1;                                                  \
        }                                                              \
    } while (0)

int main(void) {
    EXPECT(aclInit(NULL) == ACL_SUCCESS);
    EXPECT(aclrtSetDevice(0) == ACL_SUCCESS);
    aclrtStream s;
    EXPECT(aclrtCreateStream(&s) == ACL_SUCCESS);
    void *d = NULL;
    EXPECT(aclrtMalloc(&d, 64, ACL_MEM_MALLOC_HUGE_FIRST) == ACL_SUCCESS);
    float host[16], back[16];
    for (int i = 0; i < 16; i++) host[i] = (float)i;
    EXPECT(aclrtMemcpy(d, 64, host, 64, ACL_MEMCPY_HOST_TO_DEVICE) == ACL_SUCCESS);
    int64_t shape[2] = {4, 4};
    aclTensor *t = aclCreateTensor(shape, 2, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 2, d);
    EXPECT(t != NULL);
    int64_t *dims = NULL;
    uint64_t nd = 0;
    EXPECT(aclGetViewShape(t, &dims, &nd) == ACLNN_SUCCESS && nd == 2 && dims[1] == 4);
    _ZdaPv(dims); /* aclGetViewShape's array is released with delete[] */
    EXPECT(aclDestroyTensor(t) == ACLNN_SUCCESS);
    EXPECT(aclrtMemcpy(back, 64, d, 64, ACL_MEMCPY_DEVICE_TO_HOST) == ACL_SUCCESS);
    EXPECT(memcmp(host, back, 64) == 0);
    EXPECT(aclrtSynchronizeStream(s) == ACL_SUCCESS);
    EXPECT(aclrtFree(d) == ACL_SUCCESS);
    EXPECT(aclrtFree(d) != ACL_SUCCESS);
    EXPECT(aclGetRecentErrMsg() != NULL);
    EXPECT(aclGetRecentErrMsg() == NULL);
    EXPECT(aclrtDestroyStream(s) == ACL_SUCCESS);
    EXPECT(aclrtResetDevice(0) == ACL_SUCCESS);
    EXPECT(aclFinalize() == ACL_SUCCESS);
    printf("api_smoke ok\n");
    return 0;
}
