/* Runtime calls a framework (torch_npu) binds at load: data buffers, the application log, device capabilities,
 * dump configuration, streams and events created with flags, peer access, saturation mode, operator timeouts,
 * compile options, operator attributes, and the device-binary calls (not supported: no device code runs). */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pthread.h>

#include "acl/acl.h"
#include "acl/acl_op_compiler.h"
#include "common/registry.h"
#include "common/status.h"
#include "runtime/runtime.h"

/* ---- data buffers ---- */
struct aclDataBuffer { void *data; size_t size; };

aclDataBuffer *aclCreateDataBuffer(void *data, size_t size) {
    acl_set_api("aclCreateDataBuffer");
    aclDataBuffer *b = calloc(1, sizeof *b);
    if (!b || !acl_reg_add(b, ACL_KIND_DATA_BUFFER)) {
        free(b);
        ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory creating a data buffer");
        return NULL;
    }
    b->data = data;
    b->size = size;
    return b;
}

static aclError check_buffer(const aclDataBuffer *b) {
    if (!b) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dataBuffer must not be NULL");
    if (!acl_reg_is(b, ACL_KIND_DATA_BUFFER))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dataBuffer %p is not a live aclDataBuffer", (const void *)b);
    return ACL_SUCCESS;
}

aclError aclDestroyDataBuffer(const aclDataBuffer *dataBuffer) {
    acl_set_api("aclDestroyDataBuffer");
    ACL_TRY(check_buffer(dataBuffer));
    acl_reg_remove(dataBuffer, ACL_KIND_DATA_BUFFER);
    free((void *)dataBuffer);
    return ACL_SUCCESS;
}

aclError aclUpdateDataBuffer(aclDataBuffer *dataBuffer, void *data, size_t size) {
    acl_set_api("aclUpdateDataBuffer");
    ACL_TRY(check_buffer(dataBuffer));
    dataBuffer->data = data;
    dataBuffer->size = size;
    return ACL_SUCCESS;
}

void *aclGetDataBufferAddr(const aclDataBuffer *dataBuffer) {
    return acl_reg_is(dataBuffer, ACL_KIND_DATA_BUFFER) ? dataBuffer->data : NULL;
}

size_t aclGetDataBufferSizeV2(const aclDataBuffer *dataBuffer) {
    return acl_reg_is(dataBuffer, ACL_KIND_DATA_BUFFER) ? dataBuffer->size : 0;
}

/* ---- application log ---- */
static int log_threshold(void) {
    const char *s = getenv("ASCEND_GLOBAL_LOG_LEVEL");
    if (s && *s >= '0' && *s <= '4' && s[1] == 0) return *s - '0';
    return ACL_ERROR;
}

void aclAppLog(aclLogLevel logLevel, const char *func, const char *file, uint32_t line, const char *fmt, ...) {
    if (!fmt || (int)logLevel < log_threshold()) return;
    static const char *names[] = {"DEBUG", "INFO", "WARNING", "ERROR"};
    const char *lv = ((int)logLevel >= 0 && (int)logLevel <= 3) ? names[logLevel] : "EVENT";
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = file ? strrchr(file, '/') : NULL;
    fprintf(stderr, "[%s] APP(%d):%s:%u %s: %s\n", lv, (int)getpid(), base ? base + 1 : (file ? file : "?"),
            (unsigned)line, func ? func : "?", msg);
}

/* ---- device capabilities (Atlas A2, Ascend910B: 24 AI cores, 48 vector cores, 192 MiB L2) ---- */
static aclError check_device_id(int64_t id, const char *name) {
    uint32_t n = 0;
    aclrtGetDeviceCount(&n);
    if (id < 0 || id >= (int64_t)n)
        return ACL_REPORT(ACL_ERROR_INVALID_DEVICE, "%s %lld is out of range [0, %u)", name, (long long)id, n);
    return ACL_SUCCESS;
}

aclError aclGetDeviceCapability(uint32_t deviceId, aclDeviceInfo deviceInfo, int64_t *value) {
    acl_set_api("aclGetDeviceCapability");
    if (!value) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "value must not be NULL");
    ACL_TRY(check_device_id(deviceId, "deviceId"));
    switch (deviceInfo) {
    case ACL_DEVICE_INFO_AI_CORE_NUM: *value = 24; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_VECTOR_CORE_NUM: *value = 48; return ACL_SUCCESS;
    case ACL_DEVICE_INFO_L2_SIZE: *value = 192LL * 1024 * 1024; return ACL_SUCCESS;
    default:
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "deviceInfo %d is not an aclDeviceInfo value", (int)deviceInfo);
    }
}

/* ---- dump configuration: accepted and checked, nothing is dumped (no model or kernel runs) ---- */
static int g_dump_inited;

aclError aclmdlInitDump(void) {
    acl_set_api("aclmdlInitDump");
    if (g_dump_inited) return ACL_REPORT(ACL_ERROR_REPEAT_INITIALIZE, "aclmdlInitDump was already called");
    g_dump_inited = 1;
    return ACL_SUCCESS;
}

aclError aclmdlSetDump(const char *dumpCfgPath) {
    acl_set_api("aclmdlSetDump");
    if (!dumpCfgPath) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dumpCfgPath must not be NULL");
    if (!g_dump_inited) return ACL_REPORT(ACL_ERROR_DUMP_NOT_RUN, "call aclmdlInitDump before aclmdlSetDump");
    FILE *f = fopen(dumpCfgPath, "r");
    if (!f) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "dumpCfgPath '%s' cannot be read", dumpCfgPath);
    fclose(f);
    return ACL_SUCCESS;
}

aclError aclmdlFinalizeDump(void) {
    acl_set_api("aclmdlFinalizeDump");
    if (!g_dump_inited) return ACL_REPORT(ACL_ERROR_DUMP_NOT_RUN, "aclmdlInitDump was not called");
    g_dump_inited = 0;
    return ACL_SUCCESS;
}

/* ---- streams and events with flags (every stream and event is synchronous on the emulator) ---- */
#define STREAM_FLAGS_ALL 0x3FU
#define EVENT_FLAGS_ALL 0x7BU

aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag) {
    if (!stream) {
        acl_set_api("aclrtCreateStreamWithConfig");
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "stream must not be NULL");
    }
    if (priority > 7) {
        acl_set_api("aclrtCreateStreamWithConfig");
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "priority %u must be in [0, 7]", priority);
    }
    if (flag & ~STREAM_FLAGS_ALL) {
        acl_set_api("aclrtCreateStreamWithConfig");
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flag 0x%x has bits that are no ACL_STREAM_* flag", flag);
    }
    return aclrtCreateStream(stream);
}

static aclError event_with_flag(const char *api, aclrtEvent *event, uint32_t flag) {
    if (!event) { acl_set_api(api); return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "event must not be NULL"); }
    if (flag & ~EVENT_FLAGS_ALL) {
        acl_set_api(api);
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flag 0x%x has bits that are no ACL_EVENT_* flag", flag);
    }
    return aclrtCreateEvent(event);
}

aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag) {
    return event_with_flag("aclrtCreateEventWithFlag", event, flag);
}

aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag) {
    return event_with_flag("aclrtCreateEventExWithFlag", event, flag);
}

aclError aclrtProcessReport(int32_t timeout) {
    acl_set_api("aclrtProcessReport");
    if (timeout < -1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "timeout %d must be -1 or >= 0", (int)timeout);
    /* No callback is ever subscribed on the emulator (host functions run in line), so there is nothing to
     * report: the documented result of a wait that finds no report is a timeout, after the wait (at most 1 s
     * per call for -1, so a polling thread does not spin). */
    int32_t ms = (timeout < 0 || timeout > 1000) ? 1000 : timeout;
    usleep((useconds_t)ms * 1000);
    return ACL_REPORT(ACL_ERROR_RT_REPORT_TIMEOUT, "no callback report is pending (timeout %d ms)", (int)timeout);
}

/* ---- devices ---- */
aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId) {
    acl_set_api("aclrtDeviceCanAccessPeer");
    if (!canAccessPeer) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "canAccessPeer must not be NULL");
    ACL_TRY(check_device_id(deviceId, "deviceId"));
    ACL_TRY(check_device_id(peerDeviceId, "peerDeviceId"));
    if (deviceId == peerDeviceId)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "deviceId and peerDeviceId are both %d", (int)deviceId);
    *canAccessPeer = 1; /* all emulated devices share the host memory */
    return ACL_SUCCESS;
}

aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags) {
    acl_set_api("aclrtDeviceEnablePeerAccess");
    if (flags != 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flags must be 0, not %u", flags);
    ACL_TRY(check_device_id(peerDeviceId, "peerDeviceId"));
    int32_t cur = 0;
    ACL_TRY(aclrtGetDevice(&cur));
    acl_set_api("aclrtDeviceEnablePeerAccess");
    if (cur == peerDeviceId)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "peerDeviceId %d is the current device", (int)peerDeviceId);
    return ACL_SUCCESS;
}

aclError aclrtDeviceGetBareTgid(int32_t *pid) {
    acl_set_api("aclrtDeviceGetBareTgid");
    if (!pid) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "pid must not be NULL");
    *pid = (int32_t)getpid();
    return ACL_SUCCESS;
}

static aclrtFloatOverflowMode g_sat_mode = ACL_RT_OVERFLOW_MODE_SATURATION;

aclError aclrtSetDeviceSatMode(aclrtFloatOverflowMode mode) {
    acl_set_api("aclrtSetDeviceSatMode");
    if (mode != ACL_RT_OVERFLOW_MODE_SATURATION && mode != ACL_RT_OVERFLOW_MODE_INFNAN)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "mode %d must be ACL_RT_OVERFLOW_MODE_SATURATION (0) or "
                          "ACL_RT_OVERFLOW_MODE_INFNAN (1)", (int)mode);
    g_sat_mode = mode;
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceSatMode(aclrtFloatOverflowMode *mode) {
    acl_set_api("aclrtGetDeviceSatMode");
    if (!mode) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "mode must not be NULL");
    *mode = g_sat_mode;
    return ACL_SUCCESS;
}

/* Operators run synchronously on the host and finish; the timeouts are recorded only. */
static uint32_t g_exec_timeout, g_wait_timeout;

aclError aclrtSetOpExecuteTimeOut(uint32_t timeout) {
    acl_set_api("aclrtSetOpExecuteTimeOut");
    g_exec_timeout = timeout;
    return ACL_SUCCESS;
}

aclError aclrtSetOpWaitTimeout(uint32_t timeout) {
    acl_set_api("aclrtSetOpWaitTimeout");
    g_wait_timeout = timeout;
    return ACL_SUCCESS;
}

/* ---- compile options (recorded; nothing is compiled) ---- */
#define N_COMPILE_OPTS ((int)ACL_OP_DEBUG_OPTION + 1)
static pthread_mutex_t g_opt_lock = PTHREAD_MUTEX_INITIALIZER;
static char *g_compile_opt[N_COMPILE_OPTS];

aclError aclSetCompileopt(aclCompileOpt opt, const char *value) {
    acl_set_api("aclSetCompileopt");
    if ((int)opt < 0 || (int)opt >= N_COMPILE_OPTS)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not an aclCompileOpt value", (int)opt);
    if (!value) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "value must not be NULL");
    char *copy = strdup(value);
    if (!copy) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory");
    pthread_mutex_lock(&g_opt_lock);
    free(g_compile_opt[opt]);
    g_compile_opt[opt] = copy;
    pthread_mutex_unlock(&g_opt_lock);
    return ACL_SUCCESS;
}

size_t aclGetCompileoptSize(aclCompileOpt opt) {
    if ((int)opt < 0 || (int)opt >= N_COMPILE_OPTS) return 0;
    pthread_mutex_lock(&g_opt_lock);
    size_t n = g_compile_opt[opt] ? strlen(g_compile_opt[opt]) + 1 : 1;
    pthread_mutex_unlock(&g_opt_lock);
    return n;
}

aclError aclGetCompileopt(aclCompileOpt opt, char *value, size_t length) {
    acl_set_api("aclGetCompileopt");
    if ((int)opt < 0 || (int)opt >= N_COMPILE_OPTS)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not an aclCompileOpt value", (int)opt);
    if (!value) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "value must not be NULL");
    pthread_mutex_lock(&g_opt_lock);
    const char *v = g_compile_opt[opt] ? g_compile_opt[opt] : "";
    size_t n = strlen(v) + 1;
    aclError rc = ACL_SUCCESS;
    if (length < n) rc = ACL_REPORT(ACL_ERROR_INVALID_PARAM, "length %zu is smaller than the value (%zu)", length, n);
    else memcpy(value, v, n);
    pthread_mutex_unlock(&g_opt_lock);
    return rc;
}

/* ---- device binaries: the emulator runs no device code ---- */
aclError aclrtBinaryLoadFromData(const void *data, size_t length, const aclrtBinaryLoadOptions *options,
                                 aclrtBinHandle *binHandle) {
    acl_set_api("aclrtBinaryLoadFromData");
    if (!data) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "data must not be NULL");
    if (!binHandle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "binHandle must not be NULL");
    return ACL_REPORT(ACL_ERROR_API_NOT_SUPPORT, "device binaries cannot be loaded: the emulator runs no device code "
                      "(%zu bytes refused)", length);
}

aclError aclrtBinaryGetFunction(const aclrtBinHandle binHandle, const char *kernelName, aclrtFuncHandle *funcHandle) {
    acl_set_api("aclrtBinaryGetFunction");
    if (!binHandle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "binHandle must not be NULL");
    if (!kernelName) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "kernelName must not be NULL");
    if (!funcHandle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "funcHandle must not be NULL");
    return ACL_REPORT(ACL_ERROR_API_NOT_SUPPORT, "kernel '%s': the emulator runs no device code", kernelName);
}

aclError aclrtGetFunctionAddr(aclrtFuncHandle funcHandle, void **aicAddr, void **aivAddr) {
    acl_set_api("aclrtGetFunctionAddr");
    if (!funcHandle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "funcHandle must not be NULL");
    if (!aicAddr || !aivAddr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "aicAddr and aivAddr must not be NULL");
    return ACL_REPORT(ACL_ERROR_API_NOT_SUPPORT, "no device function exists on the emulator");
}

/* ---- allocation variants ---- */
/* The emulator's aclrtMalloc already rounds to 32 bytes (and keeps its padding, which only copies may use). */
aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    return aclrtMalloc(devPtr, size, policy);
}

/* Streams never hold pending work on the emulator: forced destruction is destruction. */
/* A forced destroy does not wait for (or report) unsynchronised tasks: the stream checker forgets them. */
aclError aclrtDestroyStreamForce(aclrtStream stream) {
    if (stream && acl_stream_valid(stream)) acl_sc_sync_stream(stream);
    return aclrtDestroyStream(stream);
}

/* ---- package versions: "Version=X.Y.Z" in <tree>/<package>/version.info ---- */
aclError aclsysGetCANNVersion(aclCANNPackageName name, aclCANNPackageVersion *version) {
    acl_set_api("aclsysGetCANNVersion");
    static const char *dirs[] = {"", "runtime/", "compiler/", "hccl/", "", "opp/", "opp/", NULL};
    if (!version) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "version must not be NULL");
    if ((int)name < 0 || (int)name > (int)ACL_PKG_NAME_DRIVER)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "name %d is not an aclCANNPackageName", (int)name);
    if (!dirs[name]) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "name %d: the emulator has no driver package", (int)name);
    const char *home = getenv("ASCEND_HOME_PATH");
    if (!home || !*home) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "ASCEND_HOME_PATH is not set (source set_env.sh)");
    char path[4096], line[256];
    snprintf(path, sizeof path, "%s/%sversion.info", home, dirs[name]);
    FILE *f = fopen(path, "r");
    if (!f) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "name %d: cannot read %s", (int)name, path);
    int found = 0;
    memset(version, 0, sizeof *version);
    while (!found && fgets(line, sizeof line, f)) {
        if (strncmp(line, "Version=", 8) != 0) continue;
        line[strcspn(line, "\r\n")] = 0;
        snprintf(version->version, sizeof version->version, "%.127s", line + 8);
        char *parts[4] = {version->majorVersion, version->minorVersion, version->releaseVersion,
                          version->patchVersion};
        const char *p = line + 8;
        for (int k = 0; k < 4 && *p; k++) {
            size_t n = strcspn(p, ".");
            snprintf(parts[k], ACL_PKG_VERSION_PARTS_MAX_SIZE, "%.*s", (int)n, p);
            p += n + (p[n] == '.');
        }
        found = 1;
    }
    fclose(f);
    if (!found) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "name %d: %s has no Version= line", (int)name, path);
    return ACL_SUCCESS;
}
