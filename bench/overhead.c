/* Per-call overhead of a tiny table op in C: phase 1 + phase 2 of aclnnAdd on 4-element fp32 tensors, and of
 * aclnnInplaceAdds, averaged over many calls. `make bench` builds and runs it before the Python cases. */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    if (aclInit(NULL) || aclrtSetDevice(0)) return 1;
    aclrtStream stream = NULL;
    aclrtCreateStream(&stream);
    void *a = NULL, *b = NULL, *o = NULL;
    aclrtMalloc(&a, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&b, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMalloc(&o, 16, ACL_MEM_MALLOC_HUGE_FIRST);
    int64_t shape[1] = {4}, strides[1] = {1};
    aclTensor *ta = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, a);
    aclTensor *tb = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, b);
    aclTensor *to = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, o);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    const int n = 200000;
    for (int pass = 0; pass < 3; pass++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            uint64_t ws = 0;
            aclOpExecutor *ex = NULL;
            if (pass == 0) {
                if (aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex) || aclnnAdd(NULL, ws, ex, stream)) return 2;
            } else if (pass == 2) { /* launch + synchronise: what a program that reads each result pays */
                if (aclnnAddGetWorkspaceSize(ta, tb, alpha, to, &ws, &ex) || aclnnAdd(NULL, ws, ex, stream) ||
                    aclrtSynchronizeStream(stream))
                    return 2;
            } else {
                if (aclnnInplaceAddsGetWorkspaceSize(ta, alpha, alpha, &ws, &ex) || aclnnInplaceAdds(NULL, ws, ex, stream))
                    return 2;
            }
        }
        double us = (now() - t0) / n * 1e6;
        printf("overhead %-28s %6.2f us per call (phase 1 + phase 2%s, 4 elements, fp32)\n",
               pass == 1 ? "aclnnInplaceAdds" : "aclnnAdd", us, pass == 2 ? " + aclrtSynchronizeStream" : "");
    }
    aclrtSynchronizeStream(stream);
    aclDestroyTensor(ta);
    aclDestroyTensor(tb);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
    aclrtFree(a);
    aclrtFree(b);
    aclrtFree(o);
    aclrtDestroyStream(stream);
    aclrtResetDevice(0);
    aclFinalize();
    return 0;
}
