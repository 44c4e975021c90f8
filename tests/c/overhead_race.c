/* The live-object registry and the memory table are read without a lock (seqlocks, libsrc/common/registry.c and
 * libsrc/runtime/memory.c). While one thread creates and destroys tensors, scalars and allocations in bursts (the
 * tables grow, entries move), other threads run tiny ops and give phase 1 objects that are never live: every live
 * object must be found (the ops succeed with the right values) and every foreign one refused with its code and
 * message, on every iteration. Usage: overhead_race [iterations]. Prints "overhead_race ok". */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_softmax.h"

static int g_iters = 3000;
static volatile int g_stop;
static unsigned g_rounds;

#define FAIL(...)                                                                                                  \
    do {                                                                                                           \
        fprintf(stderr, __VA_ARGS__);                                                                              \
        fprintf(stderr, " (line %d)\n", __LINE__);                                                                 \
        exit(1);                                                                                                   \
    } while (0)

static aclTensor *dev_tensor(int64_t n, void **mem) {
    int64_t shape[1] = {n}, strides[1] = {1};
    if (aclrtMalloc(mem, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST)) FAIL("aclrtMalloc");
    aclTensor *t = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, *mem);
    if (!t) FAIL("aclCreateTensor");
    return t;
}

/* creates and destroys objects and allocations in bursts, in changing orders */
static void *churn(void *arg) {
    (void)arg;
    if (aclrtSetDevice(0)) FAIL("churn: aclrtSetDevice");
    enum { NT = 700, NM = 300 };
    static aclTensor *ts[NT];
    static aclScalar *ss[NT];
    static void *ms[NM];
    int64_t shape[1] = {1};
    float one = 1.0f;
    for (unsigned round = 0; !g_stop || round < 2; round++) { /* at least two rounds, whatever the timing */
        g_rounds = round + 1;
        for (int i = 0; i < NM; i++)
            if (aclrtMalloc(&ms[i], 64 + (size_t)(i % 7) * 32, ACL_MEM_MALLOC_HUGE_FIRST)) FAIL("churn malloc");
        for (int i = 0; i < NT; i++) {
            ts[i] = aclCreateTensor(shape, 1, ACL_FLOAT, NULL, 0, ACL_FORMAT_ND, shape, 1, ms[i % NM]);
            ss[i] = aclCreateScalar(&one, ACL_FLOAT);
            if (!ts[i] || !ss[i]) FAIL("churn create");
        }
        for (int i = 0; i < NT; i++) {
            int j = (round & 1) ? i : NT - 1 - i;
            if (aclDestroyTensor(ts[j]) || aclDestroyScalar(ss[j])) FAIL("churn destroy");
        }
        for (int i = 0; i < NM; i++) {
            int j = (round & 2) ? i : NM - 1 - i;
            if (aclrtFree(ms[j])) FAIL("churn free: %s", aclGetRecentErrMsg());
        }
    }
    return NULL;
}

/* tiny ops on live objects: always found, right values */
static void *runner(void *arg) {
    const int seed = *(const int *)arg;
    if (aclrtSetDevice(0)) FAIL("runner: aclrtSetDevice");
    void *ma, *mb, *mo;
    aclTensor *a = dev_tensor(4, &ma), *b = dev_tensor(4, &mb), *o = dev_tensor(4, &mo);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    aclrtStream stream;
    if (aclrtCreateStream(&stream)) FAIL("stream");
    for (int it = 0; it < g_iters; it++) {
        float x[4], y[4], r[4];
        for (int k = 0; k < 4; k++) x[k] = (float)(seed * 1000 + it + k), y[k] = (float)k * 0.5f;
        if (aclrtMemcpy(ma, 16, x, 16, ACL_MEMCPY_HOST_TO_DEVICE) || aclrtMemcpy(mb, 16, y, 16, ACL_MEMCPY_HOST_TO_DEVICE))
            FAIL("upload: %s", aclGetRecentErrMsg());
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        if (aclnnAddGetWorkspaceSize(a, b, alpha, o, &ws, &ex) || aclnnAdd(NULL, ws, ex, stream) ||
            aclrtSynchronizeStream(stream))
            FAIL("runner %d iteration %d: %s", seed, it, aclGetRecentErrMsg());
        if (aclrtMemcpy(r, 16, mo, 16, ACL_MEMCPY_DEVICE_TO_HOST)) FAIL("download");
        for (int k = 0; k < 4; k++)
            if (r[k] != x[k] + y[k]) FAIL("runner %d iteration %d: wrong value %g", seed, it, (double)r[k]);
        if (aclnnSoftmaxGetWorkspaceSize(a, 0, o, &ws, &ex) || aclnnSoftmax(NULL, ws, ex, stream) ||
            aclrtSynchronizeStream(stream))
            FAIL("runner %d softmax %d: %s", seed, it, aclGetRecentErrMsg());
    }
    aclrtDestroyStream(stream);
    aclDestroyScalar(alpha);
    aclDestroyTensor(a), aclDestroyTensor(b), aclDestroyTensor(o);
    aclrtFree(ma), aclrtFree(mb), aclrtFree(mo);
    return NULL;
}

/* objects and memory that are never live: always refused, with the same message */
static void *refuser(void *arg) {
    (void)arg;
    if (aclrtSetDevice(0)) FAIL("refuser: aclrtSetDevice");
    void *ma, *mo;
    aclTensor *a = dev_tensor(4, &ma), *o = dev_tensor(4, &mo);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    /* a block the size of a tensor that is never registered as one; host memory never given to the runtime */
    void *fake = calloc(1, 4096);
    float *host = aligned_alloc(64, 64);
    int64_t shape[1] = {4}, strides[1] = {1};
    aclTensor *h = aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, host);
    for (int it = 0; it < g_iters; it++) {
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        int rc = aclnnAddGetWorkspaceSize(a, (const aclTensor *)fake, alpha, o, &ws, &ex);
        const char *m = aclGetRecentErrMsg();
        if (rc != 161002 || ex != NULL || !m || !strstr(m, "other is not a live aclTensor (it is unknown object)"))
            FAIL("foreign tensor %d: rc %d, %s", it, rc, m ? m : "(no message)");
        rc = aclnnAddGetWorkspaceSize(a, a, (const aclScalar *)a, o, &ws, &ex);
        m = aclGetRecentErrMsg();
        if (rc != 161002 || !m || !strstr(m, "alpha is not a live aclScalar."))
            FAIL("tensor as scalar %d: rc %d, %s", it, rc, m ? m : "(no message)");
        rc = aclnnSoftmaxGetWorkspaceSize((const aclTensor *)alpha, 0, o, &ws, &ex);
        m = aclGetRecentErrMsg();
        if (rc != 161002 || !m || !strstr(m, "self is not a live aclTensor (it is aclScalar)"))
            FAIL("scalar as tensor %d: rc %d, %s", it, rc, m ? m : "(no message)");
        rc = aclnnAddGetWorkspaceSize(a, h, alpha, o, &ws, &ex);
        m = aclGetRecentErrMsg();
        if (rc != 161002 || !m || !strstr(m, "is not device memory from aclrtMalloc"))
            FAIL("host memory %d: rc %d, %s", it, rc, m ? m : "(no message)");
        rc = aclnnAdd(NULL, 0, (aclOpExecutor *)fake, NULL);
        m = aclGetRecentErrMsg();
        if (rc != 161002 || !m || !strstr(m, "is not a live executor"))
            FAIL("foreign executor %d: rc %d, %s", it, rc, m ? m : "(no message)");
    }
    aclDestroyTensor(h);
    free(host);
    free(fake);
    aclDestroyScalar(alpha);
    aclDestroyTensor(a), aclDestroyTensor(o);
    aclrtFree(ma), aclrtFree(mo);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc > 1) g_iters = atoi(argv[1]);
    if (aclInit(NULL) || aclrtSetDevice(0)) FAIL("init");
    pthread_t tc, tr[2], tf;
    int seeds[2] = {1, 2};
    pthread_create(&tc, NULL, churn, NULL);
    for (int i = 0; i < 2; i++) pthread_create(&tr[i], NULL, runner, &seeds[i]);
    pthread_create(&tf, NULL, refuser, NULL);
    for (int i = 0; i < 2; i++) pthread_join(tr[i], NULL);
    pthread_join(tf, NULL);
    g_stop = 1;
    pthread_join(tc, NULL);
    aclrtResetDevice(0);
    aclFinalize();
    printf("overhead_race ok (%u churn rounds)\n", g_rounds);
    return 0;
}
