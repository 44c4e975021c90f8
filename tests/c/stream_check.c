/* The stream checker's rules, each with the correct twin that must pass with status 0 and the right values.
 * Built and run by tests/test_stream_check.py; `stream_check warn` / `stream_check off` expect the environment's
 * PYACLNN_STREAM_CHECK to be warn / off (every racy call then proceeds). */
#include <stdio.h>
#include <string.h>
#include "acl/acl.h"
#include "aclnnop/aclnn_add.h"

static int g_fail;
#define EXPECT(cond)                                                        \
    do {                                                                    \
        if (!(cond)) {                                                      \
            printf("FAILED line %d: %s\n", __LINE__, #cond);                \
            g_fail = 1;                                                     \
        }                                                                   \
    } while (0)

static int g_racy_code = 507004, g_racy_op = 361001; /* 0 and 0 in warn/off mode */

/* the recent message names both calls */
static void expect_msg(const char *a, const char *b) {
    const char *m = aclGetRecentErrMsg();
    if (g_racy_code == 0) return;
    if (!m || !strstr(m, a) || !strstr(m, b)) {
        printf("FAILED: message \"%s\" should name %s and %s\n", m ? m : "(null)", a, b);
        g_fail = 1;
    }
}

enum { N = 16, BYTES = N * 4 };
static int64_t g_shape[1] = {N}, g_strides[1] = {1};

static aclTensor *tensor(void *d) {
    return aclCreateTensor(g_shape, 1, ACL_FLOAT, g_strides, 0, ACL_FORMAT_ND, g_shape, 1, d);
}

/* out = x + y on stream s (both phases), returns the second phase's status */
static int add(void *x, void *y, void *out, aclrtStream s) {
    aclTensor *tx = tensor(x), *ty = tensor(y), *to = tensor(out);
    float one = 1.0f;
    aclScalar *alpha = aclCreateScalar(&one, ACL_FLOAT);
    uint64_t ws = 0;
    aclOpExecutor *ex = NULL;
    int rc = aclnnAddGetWorkspaceSize(tx, ty, alpha, to, &ws, &ex);
    if (rc == 0) rc = aclnnAdd(NULL, 0, ex, s);
    aclDestroyTensor(tx);
    aclDestroyTensor(ty);
    aclDestroyTensor(to);
    aclDestroyScalar(alpha);
    return rc;
}

static void *dev(float v) {
    void *d = NULL;
    float h[N];
    for (int i = 0; i < N; i++) h[i] = v + (float)i;
    aclrtMalloc(&d, BYTES, ACL_MEM_MALLOC_HUGE_FIRST);
    aclrtMemcpy(d, BYTES, h, BYTES, ACL_MEMCPY_HOST_TO_DEVICE);
    return d;
}

static int values_are(void *d, float base) { /* after dev(v) + dev(w): v + w + 2i */
    float h[N];
    if (aclrtMemcpy(h, BYTES, d, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) != 0) return 0;
    for (int i = 0; i < N; i++)
        if (h[i] != base + 2.0f * (float)i) return 0;
    return 1;
}

int main(int argc, char **argv) {
    if (argc > 1 && (!strcmp(argv[1], "warn") || !strcmp(argv[1], "off"))) g_racy_code = g_racy_op = 0;
    EXPECT(aclInit(NULL) == 0);
    EXPECT(aclrtSetDevice(0) == 0);
    aclrtStream s1, s2;
    EXPECT(aclrtCreateStream(&s1) == 0);
    EXPECT(aclrtCreateStream(&s2) == 0);
    aclrtEvent ev;
    EXPECT(aclrtCreateEvent(&ev) == 0);
    void *x = dev(1), *y = dev(10), *out = dev(0), *out2 = dev(0);
    float host[N];

    /* 1. a host read of an output before synchronising: refused, nothing copied */
    EXPECT(add(x, y, out, s1) == 0);
    for (int i = 0; i < N; i++) host[i] = -7.0f;
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == g_racy_code);
    expect_msg("aclrtMemcpy", "aclnnAdd");
    if (g_racy_code) EXPECT(host[0] == -7.0f);
    EXPECT(aclrtSynchronizeStream(s1) == 0); /* twin: after the synchronisation the read is fine */
    EXPECT(values_are(out, 11.0f));

    /* 2. a host write (copy or memset) of memory a queued task reads */
    EXPECT(add(x, y, out, s1) == 0);
    float ones[N];
    for (int i = 0; i < N; i++) ones[i] = 1.0f;
    EXPECT(aclrtMemcpy(x, BYTES, ones, BYTES, ACL_MEMCPY_HOST_TO_DEVICE) == g_racy_code);
    expect_msg("aclrtMemcpy", "reads");
    EXPECT(aclrtMemset(y, BYTES, 0, BYTES) == g_racy_code);
    expect_msg("aclrtMemset", "aclnnAdd");
    EXPECT(aclrtSynchronizeStream(s1) == 0);
    if (g_racy_code) {
        float hx[N];
        EXPECT(aclrtMemcpy(hx, BYTES, x, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == 0);
        EXPECT(hx[5] == 6.0f); /* the refused write left x = 1 + i */
        EXPECT(values_are(out, 11.0f));
    }
    /* twin: the same writes after the synchronisation */
    void *x2 = dev(1), *y2 = dev(10);
    EXPECT(add(x2, y2, out, s1) == 0);
    EXPECT(aclrtSynchronizeStream(s1) == 0);
    EXPECT(aclrtMemcpy(x2, BYTES, ones, BYTES, ACL_MEMCPY_HOST_TO_DEVICE) == 0);
    EXPECT(aclrtMemset(y2, BYTES, 0, BYTES) == 0);

    /* 3. freeing memory a queued task uses: refused, the memory stays valid; after synchronising it frees */
    void *t = dev(5);
    EXPECT(add(x, t, out2, s1) == 0);
    EXPECT(aclrtFree(t) == g_racy_code);
    expect_msg("aclrtFree", "aclnnAdd");
    EXPECT(aclrtSynchronizeStream(s1) == 0);
    if (g_racy_code) EXPECT(aclrtFree(t) == 0);

    /* 4. another stream reads what s1 writes, unordered: refused; ordered by an event: fine */
    x = dev(1), y = dev(10);
    EXPECT(add(x, y, out, s1) == 0);
    EXPECT(add(out, y, out2, s2) == g_racy_op);
    expect_msg("aclnnAdd", "stream");
    EXPECT(aclrtMemcpyAsync(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2) == g_racy_code);
    expect_msg("aclrtMemcpyAsync", "aclnnAdd");
    EXPECT(aclrtRecordEvent(ev, s1) == 0);
    EXPECT(aclrtStreamWaitEvent(s2, ev) == 0);
    EXPECT(add(out, out, out2, s2) == 0); /* out2 = 2 * (11 + 2i) */
    EXPECT(aclrtMemcpyAsync(host, BYTES, out2, BYTES, ACL_MEMCPY_DEVICE_TO_HOST, s2) == 0);
    EXPECT(aclrtSynchronizeStream(s2) == 0);
    EXPECT(host[3] == 2.0f * (11.0f + 6.0f));
    /* s1's task is ordered before s2's, and s2 is synchronised: the host knows s1's task too */
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == 0);

    /* 5. two streams reading the same input never conflict; writing what the other reads does */
    EXPECT(add(x, y, out, s1) == 0);
    EXPECT(add(x, y, out2, s2) == 0);
    EXPECT(add(out2, out2, x, s2) == g_racy_op); /* s2 writes x, which s1's queued task reads */
    expect_msg("aclnnAdd", "reads");
    EXPECT(aclrtSynchronizeDevice() == 0); /* twin: after a device synchronisation everything is known */
    EXPECT(add(out2, out2, x, s2) == 0);
    EXPECT(aclrtSynchronizeEvent(ev) == 0); /* ev was recorded on s1: it does not cover s2's task */
    EXPECT(aclrtMemcpy(host, BYTES, x, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == g_racy_code);
    EXPECT(aclrtSynchronizeStream(s2) == 0);

    /* 6. an event synchronisation covers what was queued before the record */
    EXPECT(add(y, y, out, s1) == 0);
    EXPECT(aclrtRecordEvent(ev, s1) == 0);
    EXPECT(aclrtSynchronizeEvent(ev) == 0);
    EXPECT(values_are(out, 20.0f));
    EXPECT(add(y, y, out, s1) == 0); /* queued after the record: not covered by it */
    EXPECT(aclrtSynchronizeEvent(ev) == 0);
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == g_racy_code);
    EXPECT(aclrtSynchronizeStream(s1) == 0);

    /* 7. the default stream follows the same rules */
    EXPECT(add(x, y, out, NULL) == 0);
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == g_racy_code);
    expect_msg("default stream", "aclnnAdd");
    EXPECT(aclrtSynchronizeStream(NULL) == 0);
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == 0);

    /* 8. destroying a stream with unsynchronised tasks: refused; after synchronising: fine */
    aclrtStream s3;
    EXPECT(aclrtCreateStream(&s3) == 0);
    EXPECT(aclrtMemsetAsync(out2, BYTES, 0, BYTES, s3) == 0);
    EXPECT(aclrtDestroyStream(s3) == g_racy_code);
    expect_msg("aclrtDestroyStream", "aclrtSynchronizeStream");
    if (g_racy_code) {
        EXPECT(aclrtSynchronizeStream(s3) == 0);
        EXPECT(aclrtDestroyStream(s3) == 0);
    }

    /* 9. a completed query is a synchronisation (queued: poll until the stream reports it complete) */
    EXPECT(add(x, y, out, s1) == 0);
    aclrtStreamStatus st = ACL_STREAM_STATUS_NOT_READY;
    for (long spin = 0; spin < 100000000L && st != ACL_STREAM_STATUS_COMPLETE; spin++)
        EXPECT(aclrtStreamQuery(s1, &st) == 0);
    EXPECT(st == ACL_STREAM_STATUS_COMPLETE);
    EXPECT(aclrtMemcpy(host, BYTES, out, BYTES, ACL_MEMCPY_DEVICE_TO_HOST) == 0);

    EXPECT(aclrtSynchronizeDevice() == 0);
    EXPECT(aclrtFree(x) == 0);
    EXPECT(aclrtFree(y) == 0);
    EXPECT(aclrtFree(x2) == 0);
    EXPECT(aclrtFree(y2) == 0);
    EXPECT(aclrtFree(out) == 0);
    EXPECT(aclrtFree(out2) == 0);
    EXPECT(aclrtDestroyEvent(ev) == 0);
    EXPECT(aclrtDestroyStream(s1) == 0);
    EXPECT(aclrtDestroyStream(s2) == 0);
    EXPECT(aclrtResetDevice(0) == 0);
    EXPECT(aclFinalize() == 0);
    if (!g_fail) printf("stream_check ok\n");
    return g_fail;
}
