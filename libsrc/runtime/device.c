/* Devices, contexts, system parameters and the SoC name. Every device is the host CPU. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/registry.h"
#include "common/status.h"
#include "runtime/queue.h"
#include "runtime/runtime.h"

#define MAX_DEVICES 64
#define N_OPTS 4

typedef struct {
    int32_t device;
    int is_default;
    int64_t opt_value[N_OPTS];
    int opt_set[N_OPTS];
} acl_context;

/* A device's default context lives while at least one thread has the device set: aclrtSetDevice counts each
 * thread once (repeated calls on a thread need one reset), aclrtResetDevice releases the calling thread's
 * reference, and the last release destroys the context. Contexts are only freed and dereferenced under
 * g_dev_lock, so a reset on one thread never frees a context under another thread's feet. */
static pthread_mutex_t g_dev_lock = PTHREAD_MUTEX_INITIALIZER;
static acl_context *g_default_ctx[MAX_DEVICES];
static uint64_t g_dev_refs[MAX_DEVICES];
static _Thread_local acl_context *t_current;
static _Thread_local uint64_t t_devices_set; /* bit d: this thread holds a reference on device d */

static int64_t g_opt_value[N_OPTS];
static int g_opt_set[N_OPTS];

static int device_count(void) {
    const char *s = getenv("PYACLNN_DEVICE_COUNT");
    if (s && *s) {
        long v = strtol(s, NULL, 10);
        if (v >= 1 && v <= MAX_DEVICES) return (int)v;
    }
    return 1;
}

static int check_device(int32_t id) {
    if (id < 0 || id >= device_count())
        return ACL_REPORT(ACL_ERROR_RT_INVALID_DEVICEID, "device id %d is out of range [0, %d)", (int)id,
                          device_count());
    return ACL_SUCCESS;
}

static acl_context *new_context(int32_t device, int is_default) {
    acl_context *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->device = device;
    c->is_default = is_default;
    if (!acl_reg_add(c, ACL_KIND_CONTEXT)) { free(c); return NULL; }
    return c;
}

static void free_context(acl_context *c) {
    if (acl_reg_remove(c, ACL_KIND_CONTEXT)) free(c);
}

/* The context the calling thread may use, or NULL. g_dev_lock must be held while the result is used. */
static acl_context *current_context_locked(void) {
    acl_context *c = t_current;
    if (c && acl_reg_is(c, ACL_KIND_CONTEXT)) return c;
    t_current = NULL;
    return NULL;
}

aclError aclrtSetDevice(int32_t deviceId) {
    acl_set_api("aclrtSetDevice");
    ACL_TRY(check_device(deviceId));
    pthread_mutex_lock(&g_dev_lock);
    if (!g_default_ctx[deviceId]) g_default_ctx[deviceId] = new_context(deviceId, 1);
    acl_context *c = g_default_ctx[deviceId];
    if (c && !(t_devices_set & (1ull << deviceId))) {
        t_devices_set |= 1ull << deviceId;
        g_dev_refs[deviceId]++;
    }
    if (c) t_current = c;
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory creating the default context");
    return ACL_SUCCESS;
}

/* Releases the calling thread's reference on deviceId; the last release destroys the default context. */
static aclError release_device(int32_t deviceId) {
    ACL_TRY(check_device(deviceId));
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = g_default_ctx[deviceId];
    if (t_devices_set & (1ull << deviceId)) {
        t_devices_set &= ~(1ull << deviceId);
        if (c && t_current == c) t_current = NULL;
        if (--g_dev_refs[deviceId] == 0 && c) {
            g_default_ctx[deviceId] = NULL;
            free_context(c);
        }
    }
    pthread_mutex_unlock(&g_dev_lock);
    return ACL_SUCCESS;
}

aclError aclrtResetDevice(int32_t deviceId) {
    acl_set_api("aclrtResetDevice");
    acl_q_drain_all();
    acl_sc_sync_all(); /* the reset waits for the device's tasks */
    return release_device(deviceId);
}

/* The forced reset releases the thread's hold however many aclrtSetDevice calls made it: a thread holds one
 * reference per device here, so it is the same release. */
aclError aclrtResetDeviceForce(int32_t deviceId) {
    acl_set_api("aclrtResetDeviceForce");
    acl_q_drain_all();
    acl_sc_sync_all();
    return release_device(deviceId);
}

aclError aclrtGetDevice(int32_t *deviceId) {
    acl_set_api("aclrtGetDevice");
    if (!deviceId) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "deviceId must not be NULL");
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = current_context_locked();
    if (c) *deviceId = c->device;
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_CONTEXT_NULL, "no device is set on this thread (call aclrtSetDevice)");
    return ACL_SUCCESS;
}

aclError aclrtGetDeviceCount(uint32_t *count) {
    acl_set_api("aclrtGetDeviceCount");
    if (!count) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "count must not be NULL");
    *count = (uint32_t)device_count();
    return ACL_SUCCESS;
}

aclError aclrtSynchronizeDevice(void) {
    acl_set_api("aclrtSynchronizeDevice");
    int rc = acl_q_sync_all();
    acl_sc_sync_all(); /* every task has run; the host now knows it of every stream */
    return rc;
}

aclError aclrtGetRunMode(aclrtRunMode *runMode) {
    acl_set_api("aclrtGetRunMode");
    if (!runMode) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "runMode must not be NULL");
    *runMode = ACL_HOST;
    return ACL_SUCCESS;
}

const char *aclrtGetSocName(void) {
    const char *s = getenv("PYACLNN_SOC_NAME");
    return (s && *s) ? s : "Ascend910B4";
}

/* The family is read from the name at every call (a getenv and a few compares): ops ask once per first phase. */
acl_soc_family acl_soc(void) {
    const char *s = aclrtGetSocName();
    if (!strncmp(s, "Ascend910B", 10)) return ACL_SOC_A2;
    if (!strncmp(s, "Ascend910_93", 12)) return ACL_SOC_A3;
    if (!strncmp(s, "Ascend310P", 10)) return ACL_SOC_310P;
    if (!strncmp(s, "Ascend950", 9)) return ACL_SOC_950;
    return ACL_SOC_OTHER;
}

const char *acl_soc_family_name(acl_soc_family f) {
    switch (f) {
    case ACL_SOC_A2: return "Ascend910B";
    case ACL_SOC_A3: return "Ascend910_93";
    case ACL_SOC_310P: return "Ascend310P";
    case ACL_SOC_950: return "Ascend950";
    default: return "an unknown SoC";
    }
}

aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId) {
    acl_set_api("aclrtCreateContext");
    if (!context) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "context must not be NULL");
    ACL_TRY(check_device(deviceId));
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = new_context(deviceId, 0);
    if (c) t_current = c;
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory creating a context");
    *context = c;
    return ACL_SUCCESS;
}

aclError aclrtDestroyContext(aclrtContext context) {
    acl_set_api("aclrtDestroyContext");
    if (!context) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "context must not be NULL");
    acl_context *c = context;
    pthread_mutex_lock(&g_dev_lock);
    bool ok = acl_reg_is(c, ACL_KIND_CONTEXT) && !c->is_default;
    if (ok) {
        if (t_current == c) t_current = NULL;
        free_context(c);
    }
    pthread_mutex_unlock(&g_dev_lock);
    if (!ok)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "context %p is not a live context created by aclrtCreateContext",
                          context);
    return ACL_SUCCESS;
}

aclError aclrtSetCurrentContext(aclrtContext context) {
    acl_set_api("aclrtSetCurrentContext");
    if (!context) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "context must not be NULL");
    if (!acl_reg_is(context, ACL_KIND_CONTEXT))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "context %p is not a live context", context);
    t_current = context;
    return ACL_SUCCESS;
}

aclError aclrtGetCurrentContext(aclrtContext *context) {
    acl_set_api("aclrtGetCurrentContext");
    if (!context) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "context must not be NULL");
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = current_context_locked();
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_CONTEXT_NULL, "no context is current on this thread");
    *context = c;
    return ACL_SUCCESS;
}

/* ---- system parameters ---- */

aclError aclrtSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    acl_set_api("aclrtSetSysParamOpt");
    if ((int)opt < 0 || (int)opt >= N_OPTS) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not in [0, 3]", (int)opt);
    pthread_mutex_lock(&g_dev_lock);
    g_opt_value[opt] = value;
    g_opt_set[opt] = 1;
    pthread_mutex_unlock(&g_dev_lock);
    return ACL_SUCCESS;
}

aclError aclrtGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    acl_set_api("aclrtGetSysParamOpt");
    if (!value) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "value must not be NULL");
    if ((int)opt < 0 || (int)opt >= N_OPTS) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not in [0, 3]", (int)opt);
    pthread_mutex_lock(&g_dev_lock);
    *value = g_opt_set[opt] ? g_opt_value[opt] : 0;
    pthread_mutex_unlock(&g_dev_lock);
    return ACL_SUCCESS;
}

aclError aclrtCtxSetSysParamOpt(aclSysParamOpt opt, int64_t value) {
    acl_set_api("aclrtCtxSetSysParamOpt");
    if ((int)opt < 0 || (int)opt > 2) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not in [0, 2]", (int)opt);
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = current_context_locked();
    if (c) {
        c->opt_value[opt] = value;
        c->opt_set[opt] = 1;
        g_opt_value[opt] = value;
        g_opt_set[opt] = 1;
    }
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_CONTEXT_NULL, "no context is current on this thread (call aclrtSetDevice)");
    return ACL_SUCCESS;
}

aclError aclrtCtxGetSysParamOpt(aclSysParamOpt opt, int64_t *value) {
    acl_set_api("aclrtCtxGetSysParamOpt");
    if (!value) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "value must not be NULL");
    if ((int)opt < 0 || (int)opt >= N_OPTS) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "opt %d is not in [0, 3]", (int)opt);
    pthread_mutex_lock(&g_dev_lock);
    acl_context *c = current_context_locked();
    int set = c ? c->opt_set[opt] : 0;
    int64_t v = c ? c->opt_value[opt] : 0;
    pthread_mutex_unlock(&g_dev_lock);
    if (!c) return ACL_REPORT(ACL_ERROR_RT_CONTEXT_NULL, "no context is current on this thread (call aclrtSetDevice)");
    if (!set) return ACL_REPORT(ACL_ERROR_RT_SYSPARAMOPT_NOT_SET, "system parameter %d was never set on this context", (int)opt);
    *value = v;
    return ACL_SUCCESS;
}

int64_t acl_deterministic_level(void) {
    int64_t v = 0;
    pthread_mutex_lock(&g_dev_lock);
    if (g_opt_set[ACL_OPT_DETERMINISTIC]) v = g_opt_value[ACL_OPT_DETERMINISTIC];
    pthread_mutex_unlock(&g_dev_lock);
    return v;
}

/* Used by stream creation: streams need a current context like on hardware. */
int acl_require_context(void) {
    pthread_mutex_lock(&g_dev_lock);
    bool ok = current_context_locked() != NULL;
    pthread_mutex_unlock(&g_dev_lock);
    if (!ok)
        return ACL_REPORT(ACL_ERROR_RT_CONTEXT_NULL, "no context is current on this thread (call aclrtSetDevice)");
    return ACL_SUCCESS;
}
