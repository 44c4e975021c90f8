/* The stream checker: the synchronisation bugs an NPU shows only sometimes, reported here every time.
 *
 * On a device the second phase of an op, aclrtMemcpyAsync and aclrtMemsetAsync only queue a task; the host must
 * synchronise (aclrtSynchronizeStream/Device/Event, or a completed query) before it touches memory such a task
 * uses, and two streams must be ordered by an event before one touches memory the other writes. The emulator
 * runs each task inside its call, so these bugs would pass silently; instead the checker tracks, per
 * allocation, the tasks not yet synchronised with the host that read or write it, and the happens-before order
 * the program established (stream order, events, host synchronisation) as sparse vector clocks. A violation is
 * decided by the program's calls alone, never by timing, and the offending call is refused with a message that
 * names both calls and the missing synchronisation:
 *   - a synchronous host read (aclrtMemcpy source) of memory an unsynchronised task writes, or a host write
 *     (aclrtMemcpy destination, aclrtMemset) of memory an unsynchronised task reads or writes: 507004;
 *   - aclrtFree / aclrtFreeHost of memory an unsynchronised task uses (workspaces included): 507004;
 *   - a task on one stream that reads memory an unordered task of another stream writes, or writes memory such a
 *     task reads or writes: 361001 for an op's second phase, 507004 for aclrtMemcpyAsync / aclrtMemsetAsync;
 *   - aclrtDestroyStream of a stream with unsynchronised tasks: 507004.
 * PYACLNN_STREAM_CHECK=warn prints the report to stderr and lets the call proceed; =off disables the checker.
 * PYACLNN_SYNC=1 makes every task synchronised with the host as soon as its call returns. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "runtime/runtime.h"

typedef struct { uint64_t sid, seq; } clk_ent;
typedef struct { clk_ent *e; int n, cap; } vclock;

typedef struct { const void *handle; uint64_t sid, seq; vclock vc; } sc_stream;
typedef struct { const void *handle; vclock vc; } sc_event;
typedef struct { uint64_t sid, seq; bool write; const char *what; const void *stream; } sc_rec;
typedef struct { uintptr_t base; uint64_t size; sc_rec *r; int n, cap; } sc_alloc;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static sc_stream *g_streams;
static int g_nstreams, g_capstreams;
static sc_event *g_events;
static int g_nevents, g_capevents;
static sc_alloc *g_allocs;
static int g_nallocs, g_capallocs;
static vclock g_host;
static uint64_t g_next_sid = 1; /* sid 0 is the default stream (NULL) */

int acl_sc_mode(void) {
    static int cached = -1;
    if (cached < 0) {
        const char *s = getenv("PYACLNN_STREAM_CHECK");
        const char *y = getenv("PYACLNN_SYNC");
        int m = ACL_SC_ON;
        if (s && (!strcmp(s, "off") || !strcmp(s, "0"))) m = ACL_SC_OFF;
        else if (s && !strcmp(s, "warn")) m = ACL_SC_WARN;
        if (y && y[0] == '1') m |= ACL_SC_SYNC;
        cached = m;
    }
    return cached;
}

static bool grow(void **p, int *cap, int need, size_t es) {
    if (need <= *cap) return true;
    int nc = *cap ? *cap * 2 : 8;
    while (nc < need) nc *= 2;
    void *q = realloc(*p, (size_t)nc * es);
    if (!q) return false;
    *p = q;
    *cap = nc;
    return true;
}

static uint64_t vc_get(const vclock *v, uint64_t sid) {
    for (int i = 0; i < v->n; i++)
        if (v->e[i].sid == sid) return v->e[i].seq;
    return 0;
}

static void vc_set_max(vclock *v, uint64_t sid, uint64_t seq) {
    for (int i = 0; i < v->n; i++)
        if (v->e[i].sid == sid) {
            if (v->e[i].seq < seq) v->e[i].seq = seq;
            return;
        }
    if (!grow((void **)&v->e, &v->cap, v->n + 1, sizeof(clk_ent))) return; /* out of memory: less ordering known */
    v->e[v->n++] = (clk_ent){sid, seq};
}

static void vc_join(vclock *dst, const vclock *src) {
    for (int i = 0; i < src->n; i++) vc_set_max(dst, src->e[i].sid, src->e[i].seq);
}

static void vc_forget(vclock *v, uint64_t sid) {
    for (int i = 0; i < v->n; i++)
        if (v->e[i].sid == sid) {
            v->e[i] = v->e[--v->n];
            return;
        }
}

/* drops the entries the host clock already covers (every later task is ordered after them anyway) */
static void vc_prune(vclock *v) {
    int k = 0;
    for (int i = 0; i < v->n; i++)
        if (vc_get(&g_host, v->e[i].sid) < v->e[i].seq) v->e[k++] = v->e[i];
    v->n = k;
}

static sc_stream *find_stream(const void *h, bool create) {
    for (int i = 0; i < g_nstreams; i++)
        if (g_streams[i].handle == h) return &g_streams[i];
    if (!create || !grow((void **)&g_streams, &g_capstreams, g_nstreams + 1, sizeof(sc_stream))) return NULL;
    sc_stream *s = &g_streams[g_nstreams++];
    memset(s, 0, sizeof *s);
    s->handle = h;
    s->sid = h == NULL ? 0 : g_next_sid++;
    return s;
}

static sc_event *find_event(const void *h, bool create) {
    for (int i = 0; i < g_nevents; i++)
        if (g_events[i].handle == h) return &g_events[i];
    if (!create || !grow((void **)&g_events, &g_capevents, g_nevents + 1, sizeof(sc_event))) return NULL;
    sc_event *e = &g_events[g_nevents++];
    memset(e, 0, sizeof *e);
    e->handle = h;
    return e;
}

/* The record arrays of dropped allocation entries, kept for the next entries (a launch + synchronise loop creates
 * and drops an entry per buffer per call). */
#define SC_SPARE_RECS 32
static sc_rec *g_spare[SC_SPARE_RECS];
static int g_spare_cap[SC_SPARE_RECS], g_nspare;

static void drop_recs(sc_alloc *a) {
    if (a->r && g_nspare < SC_SPARE_RECS) {
        g_spare[g_nspare] = a->r;
        g_spare_cap[g_nspare++] = a->cap;
    } else {
        free(a->r);
    }
    a->r = NULL;
    a->n = a->cap = 0;
}

static sc_alloc *find_alloc(uintptr_t base, bool create) {
    for (int i = 0; i < g_nallocs; i++)
        if (g_allocs[i].base == base) return &g_allocs[i];
    if (!create || !grow((void **)&g_allocs, &g_capallocs, g_nallocs + 1, sizeof(sc_alloc))) return NULL;
    sc_alloc *a = &g_allocs[g_nallocs++];
    memset(a, 0, sizeof *a);
    a->base = base;
    if (g_nspare > 0) {
        a->r = g_spare[--g_nspare];
        a->cap = g_spare_cap[g_nspare];
    }
    return a;
}

/* removes the records the host has synchronised with; drops the allocation's entry when none is left */
static void prune_alloc(sc_alloc *a) {
    int k = 0;
    for (int i = 0; i < a->n; i++)
        if (vc_get(&g_host, a->r[i].sid) < a->r[i].seq) a->r[k++] = a->r[i];
    a->n = k;
    if (k == 0) {
        drop_recs(a);
        *a = g_allocs[--g_nallocs];
    }
}

static void prune_all(void) {
    for (int i = g_nallocs - 1; i >= 0; i--) prune_alloc(&g_allocs[i]);
    for (int i = 0; i < g_nstreams; i++) vc_prune(&g_streams[i].vc);
    for (int i = 0; i < g_nevents; i++) vc_prune(&g_events[i].vc);
}

static const char *stream_name(const void *s, char *buf, size_t n) {
    if (s == NULL) snprintf(buf, n, "the default stream");
    else snprintf(buf, n, "stream %p", s);
    return buf;
}

/* Reports a violation (or warns): returns the code to refuse the call with, 0 to let it proceed. */
static int violation(int code, const char *call, const void *p, const sc_alloc *a, const sc_rec *r, const char *fix) {
    char sn[48];
    stream_name(r->stream, sn, sizeof sn);
    char msg[640];
    snprintf(msg, sizeof msg,
             "stream check: %s touches %p (allocation %p) which %s queued on %s %s, and that task is not "
             "synchronised with this call: %s",
             call, p, (void *)a->base, r->what, sn, r->write ? "writes" : "reads", fix);
    if ((acl_sc_mode() & 3) == ACL_SC_WARN) {
        fprintf(stderr, "pyaclnn warning: %s\n", msg);
        return 0;
    }
    return ACL_REPORT(code, "%s", msg);
}

/* ---- host side ---- */

int acl_sc_host_access(const void *p, bool write, const char *call) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF || p == NULL) return 0;
    uintptr_t base;
    uint64_t size;
    if (!acl_mem_block_of(p, &base, &size)) return 0;
    pthread_mutex_lock(&g_lock);
    int rc = 0;
    sc_alloc *a = find_alloc(base, false);
    if (a) {
        prune_alloc(a);
        a = find_alloc(base, false);
        for (int i = 0; a && i < a->n && rc == 0; i++)
            if (write || a->r[i].write) {
                rc = violation(ACL_ERROR_RT_STREAM_NOT_COMPLETE, call, p, a, &a->r[i],
                               "synchronise that stream (aclrtSynchronizeStream) or an event recorded after the "
                               "task (aclrtSynchronizeEvent) first");
            }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

int acl_sc_free(const void *p, const char *call) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF || p == NULL) return 0;
    pthread_mutex_lock(&g_lock);
    int rc = 0;
    sc_alloc *a = find_alloc((uintptr_t)p, false);
    if (a) {
        prune_alloc(a);
        a = find_alloc((uintptr_t)p, false);
        if (a && a->n > 0)
            rc = violation(ACL_ERROR_RT_STREAM_NOT_COMPLETE, call, p, a, &a->r[0],
                           "synchronise the stream (or the device) before freeing the memory");
        if (rc == 0 && (a = find_alloc((uintptr_t)p, false)) != NULL) { /* warn mode, or all synchronised */
            drop_recs(a);
            *a = g_allocs[--g_nallocs];
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/* ---- tasks ---- */

int acl_sc_task(const void *stream, const acl_sc_access *acc, int n, const char *what, int code) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return 0;
    uintptr_t base[ACL_SC_MAX_ACCESS];
    bool have[ACL_SC_MAX_ACCESS];
    if (n > ACL_SC_MAX_ACCESS) n = ACL_SC_MAX_ACCESS;
    for (int i = 0; i < n; i++) {
        uint64_t size;
        have[i] = acc[i].p != NULL && acl_mem_block_of(acc[i].p, &base[i], &size);
    }
    return acl_sc_task_at(stream, acc, base, have, n, what, code);
}

int acl_sc_task_at(const void *stream, const acl_sc_access *acc, const uintptr_t *base, const bool *have, int n,
                   const char *what, int code) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return 0;
    if (n > ACL_SC_MAX_ACCESS) n = ACL_SC_MAX_ACCESS;
    pthread_mutex_lock(&g_lock);
    int rc = 0;
    sc_stream *s = find_stream(stream, true);
    if (!s) goto out;
    vc_prune(&s->vc); /* what the host has synchronised is pruned from the records below, not joined here */
    for (int i = 0; i < n && rc == 0; i++) {
        if (!have[i]) continue;
        sc_alloc *a = find_alloc(base[i], false);
        if (!a) continue;
        prune_alloc(a);
        if (!(a = find_alloc(base[i], false))) continue;
        for (int j = 0; j < a->n && rc == 0; j++) {
            const sc_rec *r = &a->r[j];
            if (r->sid == s->sid || vc_get(&s->vc, r->sid) >= r->seq) continue; /* ordered before this task */
            if (!(r->write || acc[i].write)) continue;                            /* two reads never conflict */
            char sn[48], fix[200];
            snprintf(fix, sizeof fix, "record an event on %s after it and make this stream wait for it "
                     "(aclrtRecordEvent + aclrtStreamWaitEvent), or synchronise it first",
                     stream_name(r->stream, sn, sizeof sn));
            char call[96], own[48];
            snprintf(call, sizeof call, "%s on %s", what, stream_name(stream, own, sizeof own));
            rc = violation(code, call, acc[i].p, a, r, fix);
        }
    }
    if (rc != 0) goto out;
    s->seq++;
    if (acl_sc_mode() & ACL_SC_SYNC) { /* PYACLNN_SYNC=1: the task is finished and known so when its call returns */
        vc_set_max(&g_host, s->sid, s->seq);
        goto out;
    }
    for (int i = 0; i < n; i++) {
        if (!have[i]) continue;
        sc_alloc *a = find_alloc(base[i], true);
        if (!a) continue;
        /* the newest read and the newest write of each stream stand for the older ones of that stream */
        int k = -1;
        for (int j = 0; j < a->n; j++)
            if (a->r[j].sid == s->sid && a->r[j].write == acc[i].write) k = j;
        if (k < 0) {
            if (!grow((void **)&a->r, &a->cap, a->n + 1, sizeof(sc_rec))) continue;
            k = a->n++;
        }
        a->r[k] = (sc_rec){s->sid, s->seq, acc[i].write, what, stream};
    }
out:
    pthread_mutex_unlock(&g_lock);
    return rc;
}

/* ---- synchronisation ---- */

void acl_sc_sync_stream(const void *stream) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return;
    pthread_mutex_lock(&g_lock);
    sc_stream *s = find_stream(stream, false);
    if (s) {
        vc_join(&g_host, &s->vc);
        vc_set_max(&g_host, s->sid, s->seq);
        prune_all();
    }
    pthread_mutex_unlock(&g_lock);
}

void acl_sc_sync_all(void) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return;
    pthread_mutex_lock(&g_lock);
    for (int i = 0; i < g_nstreams; i++) vc_set_max(&g_host, g_streams[i].sid, g_streams[i].seq);
    prune_all();
    pthread_mutex_unlock(&g_lock);
}

void acl_sc_record_event(const void *event, const void *stream) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return;
    pthread_mutex_lock(&g_lock);
    sc_stream *s = find_stream(stream, true);
    sc_event *e = find_event(event, true);
    if (s && e) { /* the event completes after every task queued on the stream so far */
        e->vc.n = 0;
        vc_join(&e->vc, &s->vc);
        vc_set_max(&e->vc, s->sid, s->seq);
    }
    pthread_mutex_unlock(&g_lock);
}

void acl_sc_wait_event(const void *stream, const void *event) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return;
    pthread_mutex_lock(&g_lock);
    sc_stream *s = find_stream(stream, true);
    sc_event *e = find_event(event, false);
    if (s && e) vc_join(&s->vc, &e->vc);
    pthread_mutex_unlock(&g_lock);
}

void acl_sc_sync_event(const void *event) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return;
    pthread_mutex_lock(&g_lock);
    sc_event *e = find_event(event, false);
    if (e) {
        vc_join(&g_host, &e->vc);
        prune_all();
    }
    pthread_mutex_unlock(&g_lock);
}

void acl_sc_destroy_event(const void *event) {
    pthread_mutex_lock(&g_lock);
    sc_event *e = find_event(event, false);
    if (e) {
        free(e->vc.e);
        *e = g_events[--g_nevents];
    }
    pthread_mutex_unlock(&g_lock);
}

int acl_sc_destroy_stream(const void *stream) {
    if ((acl_sc_mode() & 3) == ACL_SC_OFF) return 0;
    pthread_mutex_lock(&g_lock);
    int rc = 0;
    sc_stream *s = find_stream(stream, false);
    if (s && vc_get(&g_host, s->sid) < s->seq) {
        char msg[200];
        snprintf(msg, sizeof msg, "stream check: stream %p still has %" PRIu64 " task(s) not synchronised with the "
                 "host: call aclrtSynchronizeStream before aclrtDestroyStream", stream,
                 s->seq - vc_get(&g_host, s->sid));
        if ((acl_sc_mode() & 3) == ACL_SC_WARN) {
            fprintf(stderr, "pyaclnn warning: %s\n", msg);
            vc_set_max(&g_host, s->sid, s->seq); /* the destroy waits for them */
            prune_all();
        } else {
            rc = ACL_REPORT(ACL_ERROR_RT_STREAM_NOT_COMPLETE, "%s", msg);
        }
    }
    if (rc == 0 && (s = find_stream(stream, false)) != NULL) {
        /* every task of the stream is synchronised (so no record names it): forget its id everywhere */
        const uint64_t sid = s->sid;
        free(s->vc.e);
        *s = g_streams[--g_nstreams];
        vc_forget(&g_host, sid);
        for (int i = 0; i < g_nstreams; i++) vc_forget(&g_streams[i].vc, sid);
        for (int i = 0; i < g_nevents; i++) vc_forget(&g_events[i].vc, sid);
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}
