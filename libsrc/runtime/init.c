/* aclInit / aclFinalize with CANN's repeat codes, and the library version. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "runtime/queue.h"
#include "runtime/runtime.h"

static pthread_mutex_t g_init_lock = PTHREAD_MUTEX_INITIALIZER;
static int g_initialized;
static uint64_t g_refcount;
static int g_ever_initialized;
static char *g_first_config; /* content of the first aclInit's config file ("" for none) */

static char *read_config(const char *path, int *err) {
    *err = 0;
    if (path == NULL || path[0] == '\0') return strdup("");
    FILE *f = fopen(path, "rb");
    if (!f) { *err = 1; return NULL; }
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap + 1);
    if (!buf) { fclose(f); *err = 2; return NULL; }
    size_t r;
    while ((r = fread(buf + n, 1, cap - n, f)) > 0) {
        n += r;
        if (n == cap) {
            if (cap > (1u << 24)) break; /* configs are tiny; refuse to slurp huge files */
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) { free(buf); fclose(f); *err = 2; return NULL; }
            buf = nb;
            cap *= 2;
        }
    }
    fclose(f);
    buf[n] = '\0';
    return buf;
}

aclError aclInit(const char *configPath) {
    acl_set_api("aclInit");
    int err;
    char *cfg = read_config(configPath, &err);
    if (err == 1) return ACL_REPORT(ACL_ERROR_INVALID_FILE, "config file '%s' cannot be opened", configPath);
    if (err == 2) return ACL_REPORT(ACL_ERROR_BAD_ALLOC, "out of memory reading the config file");
    pthread_mutex_lock(&g_init_lock);
    int rc = ACL_SUCCESS;
    if (g_initialized) {
        g_refcount++;
        rc = ACL_REPORT(ACL_ERROR_REPEAT_INITIALIZE, "repeated initialization (reference count is now %llu)",
                        (unsigned long long)g_refcount);
    } else if (g_ever_initialized && strcmp(cfg, g_first_config) != 0) {
        rc = ACL_REPORT(ACL_ERROR_INVALID_PARAM,
                        "the config given to aclInit after aclFinalize differs from the first one");
    } else {
        if (!g_ever_initialized) {
            g_first_config = cfg;
            cfg = NULL;
        }
        g_initialized = 1;
        g_ever_initialized = 1;
        g_refcount = 1;
    }
    pthread_mutex_unlock(&g_init_lock);
    free(cfg);
    return rc;
}

aclError aclFinalize(void) {
    acl_set_api("aclFinalize");
    acl_q_shutdown(); /* queued tasks finish first; the dispatcher thread is joined */
    pthread_mutex_lock(&g_init_lock);
    int rc = ACL_SUCCESS;
    if (!g_initialized) {
        rc = ACL_REPORT(ACL_ERROR_REPEAT_FINALIZE, "aclFinalize called without a matching aclInit");
    } else {
        g_initialized = 0;
        g_refcount = 0;
    }
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

aclError aclFinalizeReference(uint64_t *refCount) {
    acl_set_api("aclFinalizeReference");
    pthread_mutex_lock(&g_init_lock);
    int rc = ACL_SUCCESS;
    if (!g_initialized) {
        rc = ACL_REPORT(ACL_ERROR_REPEAT_FINALIZE, "aclFinalizeReference called without a matching aclInit");
    } else if (--g_refcount == 0) {
        g_initialized = 0;
    }
    if (refCount) *refCount = g_refcount;
    pthread_mutex_unlock(&g_init_lock);
    return rc;
}

aclError aclrtGetVersion(int32_t *majorVersion, int32_t *minorVersion, int32_t *patchVersion) {
    acl_set_api("aclrtGetVersion");
    if (!majorVersion || !minorVersion || !patchVersion)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "majorVersion, minorVersion and patchVersion must not be NULL");
    *majorVersion = ACL_MAJOR_VERSION;
    *minorVersion = ACL_MINOR_VERSION;
    *patchVersion = ACL_PATCH_VERSION;
    return ACL_SUCCESS;
}
