#include "common/registry.h"

#include <pthread.h>
#include <stdlib.h>

/* Open addressing with linear probing and tombstones; capacity is a power of two.
 *
 * Writers (add / remove) take g_lock. Readers (acl_reg_kind, on every object argument of every call) take no lock:
 * a sequence counter, odd while a writer changes the table, tells them whether what they read is consistent (a
 * seqlock), and they read again, or under the lock, when it is not. Tables are never freed (a grown table's old one
 * stays on a list), so a reader that raced a grow probes valid memory and only throws its result away. The slots
 * are read and written with atomic accesses. A lookup is as exact as under the lock: it returns what the table held
 * at one instant between the call's start and its end. */
typedef struct { uintptr_t key; int kind; } slot;
typedef struct table { size_t cap; struct table *retired; slot s[]; } table;
#define TOMB ((uintptr_t)1)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static table *g_tab;      /* read by readers with an atomic load */
static unsigned g_seq;    /* even: stable; odd: a writer is changing the table (atomic) */
static size_t g_used, g_live; /* under g_lock */

static size_t hash_ptr(uintptr_t p) {
    uint64_t x = (uint64_t)p;
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
    return (size_t)x;
}

/* under g_lock: a change to the table starts / ends */
static void write_begin(void) {
    __atomic_store_n(&g_seq, g_seq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
static void write_end(void) { __atomic_store_n(&g_seq, g_seq + 1, __ATOMIC_RELEASE); }

static void set_slot(slot *s, uintptr_t key, int kind) {
    __atomic_store_n(&s->kind, kind, __ATOMIC_RELAXED);
    __atomic_store_n(&s->key, key, __ATOMIC_RELAXED);
}

/* under g_lock, inside write_begin / write_end */
static bool grow(void) {
    size_t cap = g_tab ? g_tab->cap : 0;
    size_t ncap = cap ? cap * 2 : 1024;
    while (g_live * 2 >= ncap) ncap *= 2;
    table *nt = calloc(1, sizeof *nt + ncap * sizeof(slot));
    if (!nt) return false;
    nt->cap = ncap;
    for (size_t i = 0; i < cap; i++) {
        if (g_tab->s[i].key > TOMB) {
            size_t j = hash_ptr(g_tab->s[i].key) & (ncap - 1);
            while (nt->s[j].key) j = (j + 1) & (ncap - 1);
            nt->s[j] = g_tab->s[i];
        }
    }
    nt->retired = g_tab; /* a reader may still be probing it */
    __atomic_store_n(&g_tab, nt, __ATOMIC_RELEASE);
    g_used = g_live;
    return true;
}

/* The slot holding k in t, or NULL. At most t->cap probes, so a reader racing a writer also stops. */
static slot *find(const table *t, uintptr_t k, int *kind) {
    if (!t) return NULL;
    const size_t mask = t->cap - 1;
    size_t j = hash_ptr(k) & mask;
    for (size_t n = 0; n <= mask; n++) {
        const uintptr_t key = __atomic_load_n(&t->s[j].key, __ATOMIC_RELAXED);
        if (key == 0) return NULL;
        if (key == k) {
            *kind = __atomic_load_n(&t->s[j].kind, __ATOMIC_RELAXED);
            return (slot *)&t->s[j];
        }
        j = (j + 1) & mask;
    }
    return NULL;
}

bool acl_reg_add(const void *p, acl_kind kind) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return false;
    pthread_mutex_lock(&g_lock);
    write_begin();
    bool ok = true;
    int old;
    slot *s = find(g_tab, k, &old);
    if (s) {
        __atomic_store_n(&s->kind, (int)kind, __ATOMIC_RELAXED);
    } else {
        if ((g_used + 1) * 2 > (g_tab ? g_tab->cap : 0) && !grow()) {
            ok = false;
        } else {
            const size_t mask = g_tab->cap - 1;
            size_t j = hash_ptr(k) & mask;
            while (g_tab->s[j].key > TOMB) j = (j + 1) & mask;
            if (g_tab->s[j].key == 0) g_used++;
            set_slot(&g_tab->s[j], k, (int)kind);
            g_live++;
        }
    }
    write_end();
    pthread_mutex_unlock(&g_lock);
    return ok;
}

static acl_kind kind_locked(uintptr_t k) {
    pthread_mutex_lock(&g_lock);
    int kind = ACL_KIND_NONE;
    if (!find(g_tab, k, &kind)) kind = ACL_KIND_NONE;
    pthread_mutex_unlock(&g_lock);
    return (acl_kind)kind;
}

acl_kind acl_reg_kind(const void *p) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return ACL_KIND_NONE;
    for (int attempt = 0; attempt < 2; attempt++) {
        const unsigned s0 = __atomic_load_n(&g_seq, __ATOMIC_ACQUIRE);
        if (s0 & 1) break; /* a writer is inside: wait for it on the lock */
        const table *t = __atomic_load_n(&g_tab, __ATOMIC_ACQUIRE);
        int kind = ACL_KIND_NONE;
        if (!find(t, k, &kind)) kind = ACL_KIND_NONE;
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&g_seq, __ATOMIC_RELAXED) == s0) return (acl_kind)kind;
    }
    return kind_locked(k);
}

bool acl_reg_remove(const void *p, acl_kind kind) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return false;
    pthread_mutex_lock(&g_lock);
    int have = ACL_KIND_NONE;
    slot *s = find(g_tab, k, &have);
    bool ok = s && have == (int)kind;
    if (ok) {
        write_begin();
        set_slot(s, TOMB, 0);
        g_live--;
        write_end();
    }
    pthread_mutex_unlock(&g_lock);
    return ok;
}

const char *acl_kind_name(acl_kind kind) {
    static const char *names[] = {"unknown object", "aclTensor",  "aclScalar",     "aclIntArray",
                                  "aclFloatArray",  "aclBoolArray", "aclTensorList", "aclScalarList",
                                  "aclOpExecutor",  "aclrtStream",  "aclrtEvent",    "aclrtContext",
                                  "aclTensorDesc",  "aclDataBuffer", "aclopAttr",     "aclrtDrvMemHandle"};
    return (kind >= 0 && kind <= ACL_KIND_LAST) ? names[kind] : names[0];
}
