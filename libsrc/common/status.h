/* Status codes, per-thread error messages and the one-line check macro used by every validation step. */
#ifndef PYACLNN_COMMON_STATUS_H
#define PYACLNN_COMMON_STATUS_H

#include <stdarg.h>
#include "acl/acl_base.h"
#include "aclnn/aclnn_base.h"

/* Records "<EZcode>: <api>: <message>" for aclGetRecentErrMsg on the calling thread and returns code. */
int acl_report(int code, const char *file, int line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));

/* The public API name currently executing on this thread (used as the message prefix). */
void acl_set_api(const char *api);

/* Running a queued task on a host thread (runtime/queue.c) without disturbing that thread's own messages: begin
 * saves the API name and the length of the pending messages; end copies what was reported since into out (cap
 * bytes, "" when nothing) and restores both. */
typedef struct { const char *api; unsigned long len; } acl_err_mark;
acl_err_mark acl_err_capture_begin(void);
void acl_err_capture_end(acl_err_mark m, char *out, unsigned long cap);

#define ACL_REPORT(code, ...) acl_report((code), __FILE__, __LINE__, __VA_ARGS__)

/* Validation step: when cond is false, record the message and return code from the calling function. */
#define ACLNN_CHECK(cond, code, ...)                  \
    do {                                              \
        if (!(cond)) {                                \
            return ACL_REPORT((code), __VA_ARGS__);   \
        }                                             \
    } while (0)

/* Propagate a non-zero status from a helper. */
#define ACL_TRY(expr)                   \
    do {                                \
        int acl_try_rc_ = (expr);       \
        if (acl_try_rc_ != 0) {         \
            return acl_try_rc_;         \
        }                               \
    } while (0)

#endif
