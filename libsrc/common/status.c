#include "common/status.h"

#include <stdio.h>
#include <string.h>

#define ACL_MSG_CAP 4096

static _Thread_local char t_pending[ACL_MSG_CAP];
static _Thread_local size_t t_pending_len;
static _Thread_local char t_returned[ACL_MSG_CAP];
static _Thread_local const char *t_api;

void acl_set_api(const char *api) { t_api = api; }

/* Error-manager prefixes used by CANN for each status family. */
static const char *code_prefix(int code) {
    if (code >= 161000 && code < 162000) return "EZ1001";
    if (code >= 361000 && code < 362000) return "EZ9903";
    if (code >= 561000 && code < 562000) return "EZ9999";
    if (code >= 107000 && code < 108000) return "EE1001";
    if (code >= 207000 && code < 208000) return "EE2002";
    if (code >= 507000 && code < 508000) return "EE9999";
    if (code >= 100000 && code < 200000) return "EH0001";
    return "EH9999";
}

int acl_report(int code, const char *file, int line, const char *fmt, ...) {
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    size_t room = ACL_MSG_CAP - t_pending_len;
    if (room > 1) {
        int n = snprintf(t_pending + t_pending_len, room, "%s%s: %s%s%s [%s:%d]", t_pending_len ? "\n" : "",
                         code_prefix(code), t_api ? t_api : "", t_api ? ": " : "", msg, base, line);
        if (n > 0) t_pending_len += ((size_t)n < room) ? (size_t)n : room - 1;
    }
    return code;
}

const char *aclGetRecentErrMsg(void) {
    if (t_pending_len == 0) return NULL;
    memcpy(t_returned, t_pending, t_pending_len + 1);
    t_pending_len = 0;
    t_pending[0] = '\0';
    return t_returned;
}
