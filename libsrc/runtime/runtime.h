/* Runtime internals shared with the meta objects and ops. */
#ifndef PYACLNN_RUNTIME_RUNTIME_H
#define PYACLNN_RUNTIME_RUNTIME_H

#include <stdbool.h>
#include <stdint.h>
#include "acl/acl.h"

/* True when [p, p+len) lies inside one live allocation (aclrtMalloc, aclrtMallocHost or aclrtHostRegister).
 * len == 0 asks only whether p is inside (or one past the end of) an allocation. */
bool acl_mem_contains(const void *p, uint64_t len);

/* A range mapped by aclrtMapMem joins the guarded memory (as device memory without padding) until unmapped. */
bool acl_mem_add_mapped(const void *p, uint64_t size);
bool acl_mem_remove_mapped(const void *p);

/* Memory guards are on unless PYACLNN_UNCHECKED_MEMORY=1 is set in the environment. */
bool acl_mem_guards_enabled(void);

/* NULL (the default stream) or a live stream; otherwise records a message and returns false. */
bool acl_stream_valid(aclrtStream stream);

/* The SoC the emulator stands for: the family of aclrtGetSocName() (PYACLNN_SOC_NAME, default Ascend910B4, an
 * Atlas A2). Every op validates as on Atlas A2 whatever the name says, except the ops the A2 refuses (their SoC
 * gate: e.g. Atlas inference or Ascend950 only), which run as on the named SoC when it is one they serve. */
typedef enum { ACL_SOC_A2 = 0, ACL_SOC_A3, ACL_SOC_310P, ACL_SOC_950, ACL_SOC_OTHER } acl_soc_family;
acl_soc_family acl_soc(void);
const char *acl_soc_family_name(acl_soc_family f); /* "Ascend910B", "Ascend910_93", "Ascend310P", "Ascend950", ... */

/* The deterministic level as the aclnn framework reads it (process-wide table). */
int64_t acl_deterministic_level(void);

/* ACL_SUCCESS when the calling thread has a current context, else 107002 with a message. */
int acl_require_context(void);

/* The live allocation containing p (device, host or registered), as [*base, *base + *size). */
bool acl_mem_block_of(const void *p, uintptr_t *base, uint64_t *size);
/* One lookup for acl_mem_contains(p, len) (into *inside) and acl_mem_block_of(p, base, &size) (returned). */
bool acl_mem_probe(const void *p, uint64_t len, bool *inside, uintptr_t *base);

/* ---- the stream checker (streamcheck.c) ---- */
enum { ACL_SC_OFF = 0, ACL_SC_ON = 1, ACL_SC_WARN = 2, ACL_SC_SYNC = 4 };
#define ACL_SC_MAX_ACCESS 64
typedef struct { const void *p; bool write; } acl_sc_access;
/* PYACLNN_STREAM_CHECK (on / warn / off) in the low bits, ACL_SC_SYNC when PYACLNN_SYNC=1 */
int acl_sc_mode(void);
/* A task queued on stream touching acc[0..n): 0, or `code` reported when it races an unordered task of another
 * stream (the task is then not performed); on success the accesses are recorded as not yet synchronised. */
int acl_sc_task(const void *stream, const acl_sc_access *acc, int n, const char *what, int code);
/* acl_sc_task with the allocations already looked up: have[i] / base[i] as acl_mem_block_of(acc[i].p) gives them
 * (have[i] false for a NULL pointer). */
int acl_sc_task_at(const void *stream, const acl_sc_access *acc, const uintptr_t *base, const bool *have, int n,
                   const char *what, int code);
/* A synchronous host access by `call`: 0, or 507004 reported when an unsynchronised task conflicts. */
int acl_sc_host_access(const void *p, bool write, const char *call);
/* Before freeing the allocation at p: 0, or 507004 when an unsynchronised task uses it. */
int acl_sc_free(const void *p, const char *call);
int acl_sc_destroy_stream(const void *stream);
void acl_sc_sync_stream(const void *stream);
void acl_sc_sync_all(void);
void acl_sc_record_event(const void *event, const void *stream);
void acl_sc_wait_event(const void *stream, const void *event);
void acl_sc_sync_event(const void *event);
void acl_sc_destroy_event(const void *event);

/* The task queue of a stream (NULL: the default stream's) when PYACLNN_ASYNC=1, else NULL (run in the call). */
struct acl_queue;
struct acl_queue *acl_stream_queue(aclrtStream stream);

#endif
