#include "common/status.h"

#include <stdio.h>
#include <string.h>

#define ACL_MSG_CAP 4096

static _Thread_local char t_pending[ACL_MSG_CAP];
static _Thread_local size_t t_pending_len;
static _Thread_local char t_returned[ACL_MSG_CAP];
static _Thread_local const char *t_api;

void acl_set_api(const char *api) { t_api = api; }

acl_err_mark acl_err_capture_begin(void) { return (acl_err_mark){t_api, t_pending_len}; }

void acl_err_capture_end(acl_err_mark m, char *out, unsigned long cap) {
    size_t from = m.len <= t_pending_len ? m.len : 0; /* the buffer may have dropped old lines meanwhile */
    if (from && from < t_pending_len && t_pending[from] == '\n') from++;
    if (cap) snprintf(out, cap, "%s", t_pending + from);
    t_pending_len = m.len <= t_pending_len ? m.len : t_pending_len;
    t_pending[t_pending_len] = '\0';
    t_api = m.api;
}

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
    char entry[ACL_MSG_CAP];
    int n = snprintf(entry, sizeof entry, "%s: %s%s%s [%s:%d]", code_prefix(code), t_api ? t_api : "",
                     t_api ? ": " : "", msg, base, line);
    if (n <= 0) return code;
    size_t len = (size_t)n < sizeof entry ? (size_t)n : sizeof entry - 1;
    /* the buffer keeps the most recent messages: when the new one does not fit, the oldest lines go (a client that
     * never reads the messages, as torch_npu after an expected failure, must not hide the next error's message) */
    while (t_pending_len && t_pending_len + 1 + len >= ACL_MSG_CAP) {
        char *nl = memchr(t_pending, '\n', t_pending_len);
        size_t drop = nl ? (size_t)(nl - t_pending) + 1 : t_pending_len;
        memmove(t_pending, t_pending + drop, t_pending_len - drop);
        t_pending_len -= drop;
        t_pending[t_pending_len] = '\0';
    }
    if (t_pending_len) t_pending[t_pending_len++] = '\n';
    memcpy(t_pending + t_pending_len, entry, len);
    t_pending_len += len;
    t_pending[t_pending_len] = '\0';
    return code;
}

const char *aclGetRecentErrMsg(void) {
    if (t_pending_len == 0) return NULL;
    memcpy(t_returned, t_pending, t_pending_len + 1);
    t_pending_len = 0;
    t_pending[0] = '\0';
    return t_returned;
}
