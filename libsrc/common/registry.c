#include "common/registry.h"

#include <pthread.h>
#include <stdlib.h>

/* Open addressing with linear probing and tombstones; capacity is a power of two. */
typedef struct { uintptr_t key; int kind; } slot;
#define TOMB ((uintptr_t)1)

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static slot *g_tab;
static size_t g_cap, g_used, g_live;

static size_t hash_ptr(uintptr_t p) {
    uint64_t x = (uint64_t)p;
    x ^= x >> 33; x *= 0xff51afd7ed558ccdULL; x ^= x >> 33;
    return (size_t)x;
}

static bool grow(void) {
    size_t ncap = g_cap ? g_cap * 2 : 1024;
    while (g_live * 2 >= ncap) ncap *= 2;
    slot *nt = calloc(ncap, sizeof *nt);
    if (!nt) return false;
    for (size_t i = 0; i < g_cap; i++) {
        if (g_tab[i].key > TOMB) {
            size_t j = hash_ptr(g_tab[i].key) & (ncap - 1);
            while (nt[j].key) j = (j + 1) & (ncap - 1);
            nt[j] = g_tab[i];
        }
    }
    free(g_tab);
    g_tab = nt;
    g_cap = ncap;
    g_used = g_live;
    return true;
}

static slot *find(uintptr_t k) {
    if (!g_cap) return NULL;
    size_t j = hash_ptr(k) & (g_cap - 1);
    while (g_tab[j].key) {
        if (g_tab[j].key == k) return &g_tab[j];
        j = (j + 1) & (g_cap - 1);
    }
    return NULL;
}

bool acl_reg_add(const void *p, acl_kind kind) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return false;
    pthread_mutex_lock(&g_lock);
    bool ok = true;
    slot *s = find(k);
    if (s) {
        s->kind = kind;
    } else {
        if ((g_used + 1) * 2 > g_cap && !grow()) {
            ok = false;
        } else {
            size_t j = hash_ptr(k) & (g_cap - 1);
            while (g_tab[j].key > TOMB) j = (j + 1) & (g_cap - 1);
            if (g_tab[j].key == 0) g_used++;
            g_tab[j].key = k;
            g_tab[j].kind = kind;
            g_live++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return ok;
}

acl_kind acl_reg_kind(const void *p) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return ACL_KIND_NONE;
    pthread_mutex_lock(&g_lock);
    slot *s = find(k);
    acl_kind kind = s ? (acl_kind)s->kind : ACL_KIND_NONE;
    pthread_mutex_unlock(&g_lock);
    return kind;
}

bool acl_reg_remove(const void *p, acl_kind kind) {
    uintptr_t k = (uintptr_t)p;
    if (k <= TOMB) return false;
    pthread_mutex_lock(&g_lock);
    slot *s = find(k);
    bool ok = s && s->kind == (int)kind;
    if (ok) {
        s->key = TOMB;
        s->kind = 0;
        g_live--;
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
