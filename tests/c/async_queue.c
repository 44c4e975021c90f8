/* Queued execution (PYACLNN_ASYNC=1, libsrc/runtime/queue.c): the acceptance rows of issue 14 that are about the
 * queue itself (the checker's rules are tests/c/stream_check.c). Built and run by tests/test_async.py.
 *   async_queue <mode> [checker]
 * mode: "async" (the environment has PYACLNN_ASYNC=1: deferral is checked), "eager" (neither variable) or "sync"
 * (PYACLNN_SYNC=1: the checker treats every task as synchronised when its call returns);
 * checker: "on" (default; the racy twins are refused) or "off" (PYACLNN_STREAM_CHECK=off: the drains are checked:
 * free, destroy, reset wait for the queued tasks). Prints "digest <hex>" of every result (the same in every mode:
 * bit-identical to serial) and "async_queue ok". */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"
#include "aclnnop/aclnn_mul.h"
#include "aclnnop/aclnn_index_select.h"

static int g_fail;
#define EXPECT(cond)                                                 \
    do {                                                             \
        if (!(cond)) {                                               \
            printf("FAILED line %d: %s\n", __LINE__, #cond);         \
            const char *m_ = aclGetRecentErrMsg();                   \
            if (m_) printf("  message: %s\n", m_);                   \
            g_fail = 1;                                              \
        }                                                            \
    } while (0)

static uint64_t g_digest = 1469598103934665603ULL;
static void digest(const void *p, size_t n) {
    const unsigned char *b = p;
    for (size_t i = 0; i < n; i++) g_digest = (g_digest ^ b[i]) * 1099511628211ULL;
}

static aclTensor *tensor(void *d, int64_t n) {
    int64_t shape[1] = {n}, strides[1] = {1};
    return aclCreateTensor(shape, 1, ACL_FLOAT, strides, 0, ACL_FORMAT_ND, shape, 1, d);
}

/* out = x + y (binary 1) or x * y (binary 2) on stream s, both phases; the second phase's status */
static int binary(int op, void *x, void *y, void *out, int64_t n, aclrtStream s) {
    aclTensor *tx = tensor(x, n), *ty = tensor(y, n), *to = tensor(out, n);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc = op == 1 ? aclnnAddGetWorkspaceSize(tx, ty, alpha, to, &ws, &ex) : aclnnMulGetWorkspaceSize(tx, ty, to, &ws, &ex);
    if (rc == 0) rc = op == 1 ? aclnnAdd(NULL, 0, ex, s) : aclnnMul(NULL, 0, ex, s);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
    return rc;
}

static void *dev_from(const float *h, int64_t n) {
    void *d = NULL;
    aclrtMalloc(&d, (size_t)n * 4, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d, (size_t)n * 4, h, (size_t)n * 4, ACL_MEMCPY_HOST_TO_DEVICE);
    return d;
}

static float *host_of(void *d, int64_t n) {
    float *h = malloc((size_t)n * 4);
    EXPECT(aclrtMemcpy(h, (size_t)n * 4, d, (size_t)n * 4, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
    return h;
}

static float wave(int64_t i, float a) { return sinf((float)i * a) * 3.0f + 0.125f * (float)(i % 7); }

int main(int argc, char **argv) {
    int async = argc > 1 && strcmp(argv[1], "async") == 0;
    int sync_mode = argc > 1 && strcmp(argv[1], "sync") == 0; /* PYACLNN_SYNC=1: every task synchronised at once */
    int checker_on = !(argc > 2 && strcmp(argv[2], "off") == 0);
    EXPECT(aclInit(NULL) == 0);
    EXPECT(aclrtSetDevice(0) == 0);
    aclrtStream s1, s2;
    EXPECT(aclrtCreateStream(&s1) == 0);
    EXPECT(aclrtCreateStream(&s2) == 0);

    /* 1. deferral: the copies are queued behind a large op; the stream is not complete when the calls return, the
     * host may not read yet (checker), and after the synchronisation every value is there, in stream order. */
    {
        enum { BIG = 1 << 22 };
        float *h = malloc((size_t)BIG * 4);
        for (int64_t i = 0; i < BIG; i++) h[i] = wave(i, 0.001f);
        void *x = dev_from(h, BIG), *out = NULL, *c1 = NULL, *c2 = NULL;
        EXPECT(aclrtMalloc(&out, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&c1, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&c2, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(binary(1, x, x, out, BIG, s1) == 0);
        for (int k = 0; k < 8; k++) { /* c1 <- out, c2 <- c1, c1 <- 0 ... last: c2 = out, c1 = out */
            EXPECT(aclrtMemcpyAsync(c1, (size_t)BIG * 4, out, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            EXPECT(aclrtMemcpyAsync(c2, (size_t)BIG * 4, c1, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            if (k < 7) EXPECT(aclrtMemsetAsync(c1, (size_t)BIG * 4, 0, (size_t)BIG * 4, s1) == 0);
        }
        if (checker_on && !sync_mode) { /* decided by the calls: refused eagerly too */
            float probe;
            EXPECT(aclrtMemcpy(&probe, 4, c2, 4, ACL_MEMCPY_DEVICE_TO_HOST) == 507004); /* read before the sync */
        }
        aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
        EXPECT(aclrtStreamQuery(s1, &st) == 0);
        if (async) EXPECT(st == ACL_STREAM_STATUS_NOT_READY); /* ~1 GB of copies cannot be done already */
        EXPECT(aclrtSynchronizeStream(s1) == 0);
        EXPECT(aclrtStreamQuery(s1, &st) == 0 && st == ACL_STREAM_STATUS_COMPLETE);
        float *r1 = host_of(c1, BIG), *r2 = host_of(c2, BIG);
        int bad = 0;
        for (int64_t i = 0; i < BIG && !bad; i++) bad = r1[i] != h[i] + h[i] || r2[i] != h[i] + h[i];
        EXPECT(!bad);
        digest(r2, (size_t)BIG * 4);
        free(r1);
        free(r2);
        free(h);
        EXPECT(aclrtFree(x) == 0);
        EXPECT(aclrtFree(out) == 0);
        EXPECT(aclrtFree(c1) == 0);
        EXPECT(aclrtFree(c2) == 0);
    }

    /* 2. in order on one stream: an order-sensitive chain of copies and memsets, many times */
    {
        enum { M = 1024 };
        float ha[M];
        void *a = NULL, *b = NULL, *c = NULL;
        EXPECT(aclrtMalloc(&a, M * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&b, M * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&c, M * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        int bad = 0;
        for (int round = 0; round < 200 && !bad; round++) {
            for (int i = 0; i < M; i++) ha[i] = (float)(round * M + i);
            EXPECT(aclrtMemcpyAsync(a, M * 4, ha, M * 4, ACL_MEMCPY_HOST_TO_DEVICE, s1) == 0);
            EXPECT(aclrtMemcpyAsync(b, M * 4, a, M * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            EXPECT(aclrtMemsetAsync(a, M * 4, 0, M * 4, s1) == 0);
            EXPECT(aclrtMemcpyAsync(c, M * 4, b, M * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            EXPECT(aclrtMemcpyAsync(b, M * 4, a, M * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            EXPECT(aclrtSynchronizeStream(s1) == 0);
            float *ra = host_of(a, M), *rb = host_of(b, M), *rc = host_of(c, M);
            for (int i = 0; i < M; i++) bad |= ra[i] != 0.0f || rb[i] != 0.0f || rc[i] != ha[i];
            free(ra);
            free(rb);
            free(rc);
        }
        EXPECT(!bad);
        EXPECT(aclrtFree(a) == 0);
        EXPECT(aclrtFree(b) == 0);
        EXPECT(aclrtFree(c) == 0);
    }

    /* 3. two streams ordered by events, race-free under the checker, bit-identical to the same sums on the host:
     * s1: t1 = x + y, record e1; s2: wait e1, t2 = t1 * x, record e2; s1: wait e2, out = t2 + t1. */
    {
        enum { K = 4099 };
        float hx[K], hy[K];
        for (int i = 0; i < K; i++) {
            hx[i] = wave(i, 0.37f);
            hy[i] = wave(i, 1.91f) * 1e-3f;
        }
        void *x = dev_from(hx, K), *y = dev_from(hy, K), *t1 = NULL, *t2 = NULL, *out = NULL;
        EXPECT(aclrtMalloc(&t1, K * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&t2, K * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&out, K * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        aclrtEvent e1, e2;
        EXPECT(aclrtCreateEvent(&e1) == 0);
        EXPECT(aclrtCreateEvent(&e2) == 0);
        for (int rep = 0; rep < 20; rep++) {
            EXPECT(binary(1, x, y, t1, K, s1) == 0);
            EXPECT(aclrtRecordEvent(e1, s1) == 0);
            EXPECT(aclrtStreamWaitEvent(s2, e1) == 0);
            EXPECT(binary(2, t1, x, t2, K, s2) == 0);
            EXPECT(aclrtRecordEvent(e2, s2) == 0);
            EXPECT(aclrtStreamWaitEvent(s1, e2) == 0);
            EXPECT(binary(1, t2, t1, out, K, s1) == 0);
            EXPECT(aclrtSynchronizeStream(s1) == 0);
            float *r = host_of(out, K);
            int bad = 0;
            for (int i = 0; i < K; i++) {
                volatile float a = hx[i] + hy[i];
                volatile float b = a * hx[i];
                volatile float c = b + a;
                if (memcmp(&r[i], (const void *)&c, 4) != 0) bad = 1;
            }
            EXPECT(!bad);
            if (rep == 0) digest(r, K * 4);
            free(r);
        }
        EXPECT(aclrtSynchronizeDevice() == 0);

        /* 4. aclrtEventElapsedTime: real milliseconds between two records around a real op */
        enum { BIG = 1 << 22 };
        void *bx = NULL, *bo = NULL;
        EXPECT(aclrtMalloc(&bx, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&bo, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMemset(bx, (size_t)BIG * 4, 0, (size_t)BIG * 4) == 0);
        EXPECT(aclrtRecordEvent(e1, s1) == 0);
        EXPECT(binary(1, bx, bx, bo, BIG, s1) == 0);
        EXPECT(aclrtRecordEvent(e2, s1) == 0);
        EXPECT(aclrtSynchronizeEvent(e2) == 0);
        float ms = -1.0f;
        EXPECT(aclrtEventElapsedTime(&ms, e1, e2) == 0);
        EXPECT(ms > 0.0f);
        EXPECT(aclrtSynchronizeStream(s1) == 0);
        EXPECT(aclrtFree(bx) == 0);
        EXPECT(aclrtFree(bo) == 0);

        EXPECT(aclrtDestroyEvent(e1) == 0);
        EXPECT(aclrtDestroyEvent(e2) == 0);
        EXPECT(aclrtFree(x) == 0);
        EXPECT(aclrtFree(y) == 0);
        EXPECT(aclrtFree(t1) == 0);
        EXPECT(aclrtFree(t2) == 0);
        EXPECT(aclrtFree(out) == 0);
    }

    /* 7. aclrtSynchronizeStreamWithTimeout honours its timeout: behind ~0.5 GB of queued copies a 1 ms wait gives up
     * with ACL_ERROR_RT_STREAM_SYNC_TIMEOUT (507046), the tasks stay queued and unsynchronised (the checker still
     * refuses a host read); -1 and a long timeout then wait for them. Eagerly everything is done already: 0. */
    {
        enum { BIG = 1 << 22 };
        void *a = NULL, *b = NULL;
        EXPECT(aclrtMalloc(&a, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&b, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMemset(a, (size_t)BIG * 4, 0, (size_t)BIG * 4) == 0);
        for (int k = 0; k < 16; k++) {
            EXPECT(aclrtMemcpyAsync(b, (size_t)BIG * 4, a, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
            EXPECT(aclrtMemsetAsync(a, (size_t)BIG * 4, k, (size_t)BIG * 4, s1) == 0);
        }
        int rc = aclrtSynchronizeStreamWithTimeout(s1, 1);
        if (async) {
            EXPECT(rc == 507046);
            const char *m = aclGetRecentErrMsg();
            EXPECT(m && strstr(m, "timeout"));
            if (checker_on) {
                float probe;
                EXPECT(aclrtMemcpy(&probe, 4, b, 4, ACL_MEMCPY_DEVICE_TO_HOST) == 507004);
            }
            EXPECT(aclrtSynchronizeStreamWithTimeout(s1, -1) == 0);
        } else {
            EXPECT(rc == 0);
        }
        EXPECT(aclrtSynchronizeStreamWithTimeout(s1, 60000) == 0); /* nothing left: at once */
        unsigned char *r = malloc((size_t)BIG * 4);
        EXPECT(aclrtMemcpy(r, (size_t)BIG * 4, a, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
        EXPECT(r[0] == 15 && r[(size_t)BIG * 4 - 1] == 15);
        EXPECT(aclrtMemcpy(r, (size_t)BIG * 4, b, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
        EXPECT(r[0] == 14 && r[(size_t)BIG * 4 - 1] == 14);
        free(r);
        EXPECT(aclrtSynchronizeStreamWithTimeout(s1, -2) == ACL_ERROR_INVALID_PARAM);
        EXPECT(aclrtFree(a) == 0);
        EXPECT(aclrtFree(b) == 0);
    }

    /* 8. a first phase waits for the queues only when a queued task writes memory one of its tensors lies in: behind
     * ~1 GB of queued copies into `big`, IndexSelect's first phase over unrelated tensors returns with the stream
     * still busy; over an index tensor a queued copy writes it waits (and sees the copied indices). */
    {
        enum { BIG = 1 << 22, R = 8 };
        void *big = NULL, *big2 = NULL, *self = NULL, *idx = NULL, *idx2 = NULL, *out = NULL;
        EXPECT(aclrtMalloc(&big, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&big2, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMemset(big, (size_t)BIG * 4, 0, (size_t)BIG * 4) == 0);
        float hs[R];
        int64_t hi[2] = {5, 2};
        for (int i = 0; i < R; i++) hs[i] = (float)(10 * i);
        self = dev_from(hs, R);
        EXPECT(aclrtMalloc(&idx, 16, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&idx2, 16, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMalloc(&out, 8, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMemcpy(idx2, 16, hi, 16, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
        EXPECT(aclrtMemset(idx, 16, 0, 16) == 0);
        int64_t rs[1] = {R}, is[1] = {2}, one[1] = {1};
        aclTensor *ts = aclCreateTensor(rs, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, rs, 1, self);
        aclTensor *ti = aclCreateTensor(is, 1, ACL_INT64, one, 0, ACL_FORMAT_ND, is, 1, idx);
        aclTensor *to = aclCreateTensor(is, 1, ACL_FLOAT, one, 0, ACL_FORMAT_ND, is, 1, out);
        for (int k = 0; k < 32; k++)
            EXPECT(aclrtMemcpyAsync(big2, (size_t)BIG * 4, big, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
        uint64_t ws = 0;
        aclOpExecutor *ex = NULL;
        EXPECT(aclnnIndexSelectGetWorkspaceSize(ts, 0, ti, to, &ws, &ex) == 0);
        aclrtStreamStatus st = ACL_STREAM_STATUS_COMPLETE;
        EXPECT(aclrtStreamQuery(s1, &st) == 0);
        if (async) EXPECT(st == ACL_STREAM_STATUS_NOT_READY); /* unrelated: the first phase did not wait */
        EXPECT(aclDestroyAclOpExecutor(ex) == 0);
        EXPECT(aclrtSynchronizeStream(s1) == 0);
        /* the index tensor is written by a queued copy: the first phase waits for it */
        for (int k = 0; k < 8; k++)
            EXPECT(aclrtMemcpyAsync(big2, (size_t)BIG * 4, big, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
        EXPECT(aclrtMemcpyAsync(idx, 16, idx2, 16, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
        EXPECT(aclnnIndexSelectGetWorkspaceSize(ts, 0, ti, to, &ws, &ex) == 0);
        EXPECT(aclrtStreamQuery(s1, &st) == 0 && st == ACL_STREAM_STATUS_COMPLETE);
        EXPECT(aclnnIndexSelect(NULL, 0, ex, s1) == 0);
        EXPECT(aclrtSynchronizeStream(s1) == 0);
        float ho[2] = {0, 0};
        EXPECT(aclrtMemcpy(ho, 8, out, 8, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
        EXPECT(ho[0] == 50.0f && ho[1] == 20.0f);
        aclDestroyTensor(ts);
        aclDestroyTensor(ti);
        aclDestroyTensor(to);
        EXPECT(aclrtFree(big) == 0);
        EXPECT(aclrtFree(big2) == 0);
        EXPECT(aclrtFree(self) == 0);
        EXPECT(aclrtFree(idx) == 0);
        EXPECT(aclrtFree(idx2) == 0);
        EXPECT(aclrtFree(out) == 0);
    }

    /* 5. the drains (checker off: the racy calls proceed and must wait for the queued tasks first) */
    if (!checker_on) {
        enum { BIG = 1 << 21 };
        float *h = malloc((size_t)BIG * 4);
        for (int64_t i = 0; i < BIG; i++) h[i] = wave(i, 0.01f);
        /* free of a queued copy's source */
        void *src = dev_from(h, BIG), *dst = NULL;
        EXPECT(aclrtMalloc(&dst, (size_t)BIG * 4, ACL_MEM_MALLOC_HUGE_FIRST) == 0);
        EXPECT(aclrtMemcpyAsync(dst, (size_t)BIG * 4, src, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s1) == 0);
        EXPECT(aclrtFree(src) == 0);
        float *r = host_of(dst, BIG);
        EXPECT(memcmp(r, h, (size_t)BIG * 4) == 0);
        free(r);
        /* destroy of a stream with queued tasks */
        aclrtStream s3;
        EXPECT(aclrtCreateStream(&s3) == 0);
        EXPECT(aclrtMemsetAsync(dst, (size_t)BIG * 4, 0, (size_t)BIG * 4, s3) == 0);
        EXPECT(aclrtDestroyStream(s3) == 0);
        r = host_of(dst, BIG);
        int bad = 0;
        for (int64_t i = 0; i < BIG; i++) bad |= r[i] != 0.0f;
        EXPECT(!bad);
        free(r);
        /* device synchronisation covers every stream */
        src = dev_from(h, BIG);
        EXPECT(aclrtMemcpyAsync(dst, (size_t)BIG * 4, src, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_DEVICE, s2) == 0);
        EXPECT(aclrtSynchronizeDevice() == 0);
        r = host_of(dst, BIG);
        EXPECT(memcmp(r, h, (size_t)BIG * 4) == 0);
        free(r);
        /* a copy to plain (pageable) host memory has landed when its call returns, after the stream's earlier tasks */
        float *back = calloc((size_t)BIG, 4);
        EXPECT(aclrtMemcpyAsync(back, (size_t)BIG * 4, src, (size_t)BIG * 4, ACL_MEMCPY_DEVICE_TO_HOST, s1) == 0);
        EXPECT(aclrtDestroyStream(s1) == 0);
        EXPECT(aclrtDestroyStream(s2) == 0);
        EXPECT(aclrtFree(src) == 0);
        EXPECT(aclrtFree(dst) == 0);
        EXPECT(memcmp(back, h, (size_t)BIG * 4) == 0);
        free(back);
        free(h);
    } else {
        EXPECT(aclrtDestroyStream(s1) == 0);
        EXPECT(aclrtDestroyStream(s2) == 0);
    }

    /* 6. reset and finalize after work on the default stream */
    {
        enum { M = 1 << 20 };
        float *h = malloc((size_t)M * 4), *back = calloc((size_t)M, 4);
        for (int i = 0; i < M; i++) h[i] = (float)i;
        void *d = dev_from(h, M);
        EXPECT(aclrtMemcpyAsync(back, (size_t)M * 4, d, (size_t)M * 4, ACL_MEMCPY_DEVICE_TO_HOST, NULL) == 0);
        if (checker_on) EXPECT(aclrtSynchronizeStream(NULL) == 0);
        EXPECT(aclrtFree(d) == 0);
        EXPECT(aclrtResetDevice(0) == 0);
        EXPECT(memcmp(back, h, (size_t)M * 4) == 0);
        free(h);
        free(back);
    }
    EXPECT(aclFinalize() == 0);
    printf("digest %016llx\n", (unsigned long long)g_digest);
    if (!g_fail) printf("async_queue ok\n");
    return g_fail;
}
