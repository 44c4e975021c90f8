/* Profiling reporters (profiling is off on the emulator: records are accepted and dropped) and the legacy
 * rt* kernel-registration calls (the emulator runs no device code: ACL_ERROR_RT_FEATURE_NOT_SUPPORT). */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#define EXT_API __attribute__((visibility("default")))
#define RT_FEATURE_NOT_SUPPORT 207000
#define RT_PARAM_INVALID 107000

EXT_API int32_t MsprofReportApi(uint32_t nonPersistantFlag, const void *api) { return 0; }
EXT_API int32_t MsprofReportCompactInfo(uint32_t nonPersistantFlag, const void *data, uint32_t length) { return 0; }
EXT_API int32_t MsprofReportAdditionalInfo(uint32_t nonPersistantFlag, const void *data, uint32_t length) { return 0; }
EXT_API int32_t MsprofRegisterCallback(uint32_t moduleId, void *handle) { return 0; }

/* FNV-1a of the string: a stable id for the same text. */
EXT_API uint64_t MsprofGetHashId(const char *hashInfo, size_t length) {
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; hashInfo && i < length; i++) h = (h ^ (unsigned char)hashInfo[i]) * 1099511628211ULL;
    return h;
}

EXT_API uint64_t MsprofSysCycleTime(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int32_t unsupported(const char *api) {
    fprintf(stderr, "[ERROR] RUNTIME %s: device binaries and kernels are not supported on the emulator "
            "(error %d)\n", api, RT_FEATURE_NOT_SUPPORT);
    return RT_FEATURE_NOT_SUPPORT;
}

EXT_API int32_t rtDevBinaryRegister(const void *bin, void **hdl) {
    if (!bin || !hdl) return RT_PARAM_INVALID;
    return unsupported("rtDevBinaryRegister");
}

EXT_API int32_t rtFunctionRegister(void *binHandle, const void *stubFunc, const char *stubName,
                                   const void *kernelInfoExt, uint32_t funcMode) {
    if (!binHandle || !stubFunc) return RT_PARAM_INVALID;
    return unsupported("rtFunctionRegister");
}

EXT_API int32_t rtKernelLaunch(const void *stubFunc, uint32_t numBlocks, void *args, uint32_t argsSize,
                               void *smDesc, void *stm) {
    if (!stubFunc) return RT_PARAM_INVALID;
    return unsupported("rtKernelLaunch");
}

EXT_API int32_t rtGetC2cCtrlAddr(uint64_t *addr, uint32_t *len) {
    if (!addr || !len) return RT_PARAM_INVALID;
    return unsupported("rtGetC2cCtrlAddr");
}
