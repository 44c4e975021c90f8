/* "Device" memory is host memory. Every live allocation is kept in an address-ordered table, so a free of an
 * unknown pointer, a double free, a copy that runs past an allocation and a tensor view outside its memory
 * are reported instead of corrupting memory (SPEC Decision 6). */
#include <pthread.h>
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <stdlib.h>
#include <string.h>

#include "common/status.h"
#include "runtime/queue.h"
#include "runtime/runtime.h"

/* In the AddressSanitizer build the padding after the requested size is poisoned, so a kernel that touches a
 * byte past the end of the memory the caller asked for is reported at once (the guards below only check views
 * against the requested size; ASan alone would only see the end of the padded block). */
#if defined(__SANITIZE_ADDRESS__)
#include <sanitizer/asan_interface.h>
#define POISON_PADDING(p, size, padded) ASAN_POISON_MEMORY_REGION((char *)(p) + (size), (padded) - (size))
#define UNPOISON_BLOCK(p, size) ASAN_UNPOISON_MEMORY_REGION((p), (size))
/* aclrtMemcpy/aclrtMemset may reach into the padding (below): those bytes are copied without the check */
__attribute__((no_sanitize("address"))) static void move_bytes(void *dst, const void *src, size_t n) {
    volatile unsigned char *d = dst;
    const volatile unsigned char *s = src;
    if (d < s) for (size_t i = 0; i < n; i++) d[i] = s[i];
    else for (size_t i = n; i-- > 0;) d[i] = s[i];
}
__attribute__((no_sanitize("address"))) static void set_bytes(void *dst, int v, size_t n) {
    volatile unsigned char *d = dst;
    for (size_t i = 0; i < n; i++) d[i] = (unsigned char)v;
}
#else
#define POISON_PADDING(p, size, padded) ((void)0)
#define UNPOISON_BLOCK(p, size) ((void)0)
#define move_bytes memmove
#define set_bytes memset
#endif

/* The allocation the hardware really makes for aclrtMalloc(size): size rounded up to 32 bytes plus 32 bytes
 * (SPEC 1.5). Copies and memsets may use all of it, as on a device (an upstream example that copies a float32
 * result back as float64 reads into it); tensor views are held to the requested size. */
static uint64_t real_size(uint64_t size) { return (size + 31) / 32 * 32 + 32; }

typedef enum { MEM_DEVICE = 1, MEM_HOST = 2, MEM_REGISTERED = 3, MEM_MAPPED = 4 } mem_kind;
typedef struct { uintptr_t base; uint64_t size; mem_kind kind; } mem_block;
/* the bytes aclrtMemcpy/aclrtMemset may touch from the block's base */
static uint64_t copy_size(const mem_block *b) { return b->kind == MEM_DEVICE ? real_size(b->size) : b->size; }

/* The table of live blocks, ordered by base. Writers (allocations, frees, registrations, mappings) take g_mem_lock.
 * Readers (every tensor view and copy is checked against it, several times per op call) take no lock: a sequence
 * counter, odd while a writer changes the table, tells them whether what they read is consistent (a seqlock); when
 * it is not they read again under the lock. The arrays are never freed (a grown table's old array stays on a list),
 * so a reader that raced a grow reads valid memory and only throws its result away; fields are read and written with
 * atomic accesses. A lookup answers as the locked one did: for the table as it was at one instant of the call. */
typedef struct blk_tab { size_t cap; struct blk_tab *retired; mem_block b[]; } blk_tab;
static pthread_mutex_t g_mem_lock = PTHREAD_MUTEX_INITIALIZER;
static blk_tab *g_tab; /* atomic loads by readers */
static size_t g_n;     /* atomic loads by readers */
static unsigned g_mseq; /* even: stable; odd: a writer is changing the table */
static uint64_t g_device_bytes;
#define g_blocks (g_tab->b)

bool acl_mem_guards_enabled(void) {
    static int cached = -1;
    if (cached < 0) {
        const char *s = getenv("PYACLNN_UNCHECKED_MEMORY");
        cached = !(s && s[0] == '1');
    }
    return cached != 0;
}

static uintptr_t ld_base(const mem_block *b) { return __atomic_load_n(&b->base, __ATOMIC_RELAXED); }
static mem_block ld_block(const mem_block *b) {
    return (mem_block){__atomic_load_n(&b->base, __ATOMIC_RELAXED), __atomic_load_n(&b->size, __ATOMIC_RELAXED),
                       __atomic_load_n(&b->kind, __ATOMIC_RELAXED)};
}
static void st_block(mem_block *d, mem_block v) {
    __atomic_store_n(&d->base, v.base, __ATOMIC_RELAXED);
    __atomic_store_n(&d->size, v.size, __ATOMIC_RELAXED);
    __atomic_store_n(&d->kind, v.kind, __ATOMIC_RELAXED);
}

/* index of the last block of bl[0, n) with base <= p, or -1 */
static ptrdiff_t find_le_in(const mem_block *bl, size_t n, uintptr_t p) {
    size_t lo = 0, hi = n;
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        if (ld_base(&bl[mid]) <= p) lo = mid + 1; else hi = mid;
    }
    return (ptrdiff_t)lo - 1;
}

/* index of the last block with base <= p, or -1; lock held */
static ptrdiff_t find_le(uintptr_t p) { return g_tab ? find_le_in(g_blocks, g_n, p) : -1; }

/* lock held: a change to the table starts / ends */
static void write_begin(void) {
    __atomic_store_n(&g_mseq, g_mseq + 1, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
}
static void write_end(void) { __atomic_store_n(&g_mseq, g_mseq + 1, __ATOMIC_RELEASE); }

static bool insert_block(uintptr_t base, uint64_t size, mem_kind kind) {
    write_begin();
    if (!g_tab || g_n == g_tab->cap) {
        size_t nc = g_tab ? g_tab->cap * 2 : 256;
        blk_tab *nt = malloc(sizeof *nt + nc * sizeof(mem_block));
        if (!nt) {
            write_end();
            return false;
        }
        nt->cap = nc;
        nt->retired = g_tab; /* a reader may still be searching it */
        if (g_n) memcpy(nt->b, g_blocks, g_n * sizeof(mem_block));
        __atomic_store_n(&g_tab, nt, __ATOMIC_RELEASE);
    }
    size_t at = (size_t)(find_le(base) + 1);
    for (size_t j = g_n; j > at; j--) st_block(&g_blocks[j], g_blocks[j - 1]);
    st_block(&g_blocks[at], (mem_block){base, size, kind});
    __atomic_store_n(&g_n, g_n + 1, __ATOMIC_RELAXED);
    write_end();
    if (kind == MEM_DEVICE) g_device_bytes += size;
    return true;
}

/* Removes the block starting exactly at p with that kind; returns whether it existed. Lock held. */
static bool remove_block(uintptr_t p, mem_kind kind, uint64_t *size) {
    ptrdiff_t i = find_le(p);
    if (i < 0 || g_blocks[i].base != p || g_blocks[i].kind != kind) return false;
    *size = g_blocks[i].size;
    if (kind == MEM_DEVICE) g_device_bytes -= g_blocks[i].size;
    write_begin();
    for (size_t j = (size_t)i; j + 1 < g_n; j++) st_block(&g_blocks[j], g_blocks[j + 1]);
    __atomic_store_n(&g_n, g_n - 1, __ATOMIC_RELAXED);
    write_end();
    return true;
}

/* The bytes usable from block i's base: its copy size; for an aclrtMapMem mapping, together with the mappings that
 * follow it end to end (a VMM pool maps its chunks contiguously in a reserved range and hands out buffers that
 * straddle them: one accessible range, as on the device). */
static uint64_t reach_size_in(const mem_block *bl, size_t n, ptrdiff_t i) {
    const mem_block bi = ld_block(&bl[i]);
    uint64_t r = copy_size(&bi);
    mem_block prev = bi;
    for (size_t j = (size_t)i + 1; bi.kind == MEM_MAPPED && j < n; j++) {
        const mem_block bj = ld_block(&bl[j]);
        if (bj.kind != MEM_MAPPED || bj.base != prev.base + prev.size) break;
        r += bj.size;
        prev = bj;
    }
    return r;
}

/* The last block with base <= p (*b; for a mapping, *reach the bytes reachable from its base, see reach_size_in;
 * else its copy size): false when there is none. Lock-free (see g_tab). */
static inline __attribute__((always_inline)) bool read_le(uintptr_t p, mem_block *b, uint64_t *reach) {
    for (int attempt = 0; attempt < 2; attempt++) {
        const unsigned s0 = __atomic_load_n(&g_mseq, __ATOMIC_ACQUIRE);
        if (s0 & 1) break; /* a writer is inside: wait for it on the lock */
        const blk_tab *t = __atomic_load_n(&g_tab, __ATOMIC_ACQUIRE);
        size_t n = __atomic_load_n(&g_n, __ATOMIC_RELAXED);
        bool found = false;
        if (t) {
            if (n > t->cap) n = t->cap; /* a torn read: stay inside the array, the check below fails */
            const ptrdiff_t i = find_le_in(t->b, n, p);
            if (i >= 0) {
                found = true;
                *b = ld_block(&t->b[i]);
                *reach = b->kind == MEM_MAPPED ? reach_size_in(t->b, n, i) : copy_size(b);
            }
        }
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (__atomic_load_n(&g_mseq, __ATOMIC_RELAXED) == s0) return found;
    }
    pthread_mutex_lock(&g_mem_lock);
    const ptrdiff_t i = find_le(p);
    if (i >= 0) {
        *b = g_blocks[i];
        *reach = reach_size_in(g_blocks, g_n, i);
    }
    pthread_mutex_unlock(&g_mem_lock);
    return i >= 0;
}

bool acl_mem_contains(const void *p, uint64_t len) {
    uintptr_t a = (uintptr_t)p;
    mem_block b;
    uint64_t reach;
    if (!read_le(a, &b, &reach)) return false;
    const uint64_t off = a - b.base;
    const uint64_t size = b.kind == MEM_MAPPED ? reach : b.size;
    return off <= b.size && len <= size - off;
}

bool acl_mem_probe(const void *p, uint64_t len, bool *inside, uintptr_t *base) {
    uintptr_t a = (uintptr_t)p;
    mem_block b;
    uint64_t reach;
    *inside = false;
    if (!read_le(a, &b, &reach)) return false;
    const uint64_t off = a - b.base;
    const uint64_t size = b.kind == MEM_MAPPED ? reach : b.size;
    *inside = off <= b.size && len <= size - off;
    if (off >= copy_size(&b)) return false;
    *base = b.base;
    return true;
}

bool acl_mem_block_of(const void *p, uintptr_t *base, uint64_t *size) {
    uintptr_t a = (uintptr_t)p;
    mem_block b;
    uint64_t reach;
    if (!read_le(a, &b, &reach) || a - b.base >= copy_size(&b)) return false;
    *base = b.base;
    *size = b.size;
    return true;
}

bool acl_mem_add_mapped(const void *p, uint64_t size) {
    pthread_mutex_lock(&g_mem_lock);
    bool ok = insert_block((uintptr_t)p, size, MEM_MAPPED);
    pthread_mutex_unlock(&g_mem_lock);
    return ok;
}

bool acl_mem_remove_mapped(const void *p) {
    uint64_t size = 0;
    pthread_mutex_lock(&g_mem_lock);
    bool ok = remove_block((uintptr_t)p, MEM_MAPPED, &size);
    pthread_mutex_unlock(&g_mem_lock);
    return ok;
}

static aclError do_alloc(void **ptr, size_t size, mem_kind kind, bool huge) {
    if (!ptr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "the output pointer must not be NULL");
    if (size == 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    /* As on hardware: round up to 32 bytes and add 32 bytes of padding; align to 512 (the device allocator's
     * alignment: ggml-cann places tensors in one aclrtMalloc buffer at 128-byte aligned addresses). */
    if (size > SIZE_MAX - 128) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "size %zu is too large", size);
    size_t padded = (size_t)(real_size(size) + 511) / 512 * 512;
    /* The huge-page policies on hardware: 2 MiB pages for a block of at least one page. Here the block is 2 MiB
     * aligned and advised for transparent huge pages (a kernel with THP in "madvise" mode backs it with huge pages:
     * fewer TLB misses for the kernels' scattered reads, e.g. NLLLoss's picks from a large self). */
    const size_t huge_page = (size_t)2 << 20;
    huge = huge && padded >= huge_page;
    if (huge) padded = (padded + huge_page - 1) / huge_page * huge_page;
    void *p = aligned_alloc(huge ? huge_page : 512, padded);
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    if (p && huge) (void)madvise(p, padded, MADV_HUGEPAGE);
#endif
    if (!p) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes", size);
    pthread_mutex_lock(&g_mem_lock);
    bool ok = insert_block((uintptr_t)p, size, kind);
    pthread_mutex_unlock(&g_mem_lock);
    if (!ok) {
        free(p);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording the allocation");
    }
    POISON_PADDING(p, size, padded);
    *ptr = p;
    return ACL_SUCCESS;
}

static aclError do_free(void *p, mem_kind kind, const char *what) {
    if (!p) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "the pointer to free must not be NULL");
    ACL_TRY(acl_sc_free(p, kind == MEM_HOST ? "aclrtFreeHost" : "aclrtFree"));
    acl_q_drain_all(); /* no queued task may still use the block */
    uint64_t size = 0;
    pthread_mutex_lock(&g_mem_lock);
    bool ok = remove_block((uintptr_t)p, kind, &size);
    pthread_mutex_unlock(&g_mem_lock);
    if (!ok) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "%p was not returned by %s or was already freed", p, what);
    UNPOISON_BLOCK(p, (real_size(size) + 63) / 64 * 64);
    (void)size;
    free(p);
    return ACL_SUCCESS;
}

aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy) {
    acl_set_api("aclrtMalloc");
    /* the policy selects the page type: the HUGE_* ones ask for huge pages (P2P only matters between devices) */
    bool huge = policy == ACL_MEM_MALLOC_HUGE_FIRST || policy == ACL_MEM_MALLOC_HUGE_ONLY ||
                policy == ACL_MEM_MALLOC_HUGE_FIRST_P2P || policy == ACL_MEM_MALLOC_HUGE_ONLY_P2P ||
                policy == ACL_MEM_MALLOC_HUGE1G_ONLY || policy == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    return do_alloc(devPtr, size, MEM_DEVICE, huge);
}

aclError aclrtFree(void *devPtr) {
    acl_set_api("aclrtFree");
    return do_free(devPtr, MEM_DEVICE, "aclrtMalloc");
}

aclError aclrtMallocHost(void **hostPtr, size_t size) {
    acl_set_api("aclrtMallocHost");
    return do_alloc(hostPtr, size, MEM_HOST, false);
}

aclError aclrtFreeHost(void *hostPtr) {
    acl_set_api("aclrtFreeHost");
    return do_free(hostPtr, MEM_HOST, "aclrtMallocHost");
}

aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr) {
    acl_set_api("aclrtHostRegister");
    if (!ptr || !devPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "ptr and devPtr must not be NULL");
    if (size == 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size must be greater than 0");
    if (type != ACL_HOST_REGISTER_MAPPED) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "type %d is not supported", (int)type);
    if ((uintptr_t)ptr > UINTPTR_MAX - size) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "ptr + size overflows");
    pthread_mutex_lock(&g_mem_lock);
    uintptr_t a = (uintptr_t)ptr;
    ptrdiff_t i = find_le(a + size - 1);
    bool overlap = i >= 0 && g_blocks[i].base + g_blocks[i].size > a;
    bool ok = !overlap && insert_block(a, size, MEM_REGISTERED);
    pthread_mutex_unlock(&g_mem_lock);
    if (overlap) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%llu) overlaps memory that is already known", ptr,
                                   (unsigned long long)size);
    if (!ok) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording the registration");
    *devPtr = ptr;
    return ACL_SUCCESS;
}

aclError aclrtHostUnregister(void *ptr) {
    acl_set_api("aclrtHostUnregister");
    if (!ptr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "ptr must not be NULL");
    uint64_t size;
    pthread_mutex_lock(&g_mem_lock);
    bool ok = remove_block((uintptr_t)ptr, MEM_REGISTERED, &size);
    pthread_mutex_unlock(&g_mem_lock);
    if (!ok) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "%p is not registered with aclrtHostRegister", ptr);
    return ACL_SUCCESS;
}

/* dst side / src side is device memory for the given copy kind */
static void kind_sides(aclrtMemcpyKind kind, bool *dst_dev, bool *src_dev) {
    *dst_dev = kind == ACL_MEMCPY_HOST_TO_DEVICE || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
               kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE || kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE ||
               kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
    *src_dev = kind == ACL_MEMCPY_DEVICE_TO_HOST || kind == ACL_MEMCPY_DEVICE_TO_DEVICE ||
               kind == ACL_MEMCPY_INNER_DEVICE_TO_DEVICE || kind == ACL_MEMCPY_INTER_DEVICE_TO_DEVICE;
}

/* The live block containing p (base <= p < base + copy size), if any. */
static bool lookup_block(const void *p, mem_block *out) {
    uintptr_t a = (uintptr_t)p;
    uint64_t reach;
    bool found = read_le(a, out, &reach) && a - out->base < copy_size(out);
    if (found && out->kind == MEM_MAPPED) out->size = reach; /* copy_size of a mapping is its size */
    return found;
}

/* One side of a copy: a range that starts in a known allocation must end in it; the side the kind calls
 * "device" must be device memory; memory from aclrtMalloc is not a host pointer (except for ACL_MEMCPY_DEFAULT,
 * which lets the runtime decide by the address). */
static aclError check_copy_side(const char *name, const void *p, size_t count, bool want_dev, aclrtMemcpyKind kind) {
    mem_block b;
    bool known = lookup_block(p, &b);
    if (known && count > copy_size(&b) - ((uintptr_t)p - b.base))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "%s [%p, +%zu) runs past the end of its allocation [%p, +%llu)",
                          name, p, count, (void *)b.base, (unsigned long long)copy_size(&b));
    if (want_dev && !known)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID,
                          "%s %p is not device memory (aclrtMalloc / aclrtHostRegister), but kind %d copies %s the "
                          "device", name, p, (int)kind, name[0] == 'd' ? "to" : "from");
    if (!want_dev && known && (b.kind == MEM_DEVICE || b.kind == MEM_MAPPED) && kind != ACL_MEMCPY_DEFAULT)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID,
                          "%s %p is device memory from aclrtMalloc, but kind %d says it is host memory", name, p,
                          (int)kind);
    return ACL_SUCCESS;
}

/* The stream checker's view of a copy or memset: a synchronous one is a host access, an asynchronous one a task. */
static aclError sc_copy(void *dst, const void *src, bool async, aclrtStream stream, const char *call) {
    if (async) {
        acl_sc_access acc[2] = {{src, false}, {dst, true}};
        return acl_sc_task(stream, src ? acc : acc + 1, src ? 2 : 1, call, ACL_ERROR_RT_STREAM_NOT_COMPLETE);
    }
    if (src) ACL_TRY(acl_sc_host_access(src, false, call));
    return acl_sc_host_access(dst, true, call);
}

/* A queued copy or memset (PYACLNN_ASYNC=1): validated at the call, performed when the stream reaches it. */
typedef struct { void *dst; const void *src; size_t count; int32_t value; } mem_task;
static int run_copy(void *ctx) {
    mem_task *t = ctx;
    move_bytes(t->dst, t->src, t->count);
    return 0;
}
static int run_set(void *ctx) {
    mem_task *t = ctx;
    set_bytes(t->dst, t->value, t->count);
    return 0;
}

static aclError do_memcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          bool async, aclrtStream stream) {
    if (count == 0) return ACL_SUCCESS;
    if (!dst) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "dst must not be NULL");
    if (!src) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "src must not be NULL");
    if ((int)kind < 0 || (int)kind > ACL_MEMCPY_INTER_DEVICE_TO_DEVICE)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "kind %d is not a valid aclrtMemcpyKind", (int)kind);
    if (count > destMax)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "count %zu is larger than destMax %zu", count, destMax);
    if (count > (size_t)PTRDIFF_MAX)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "count %zu is larger than any object can be", count);
    if (acl_mem_guards_enabled()) {
        bool dst_dev, src_dev;
        kind_sides(kind, &dst_dev, &src_dev);
        ACL_TRY(check_copy_side("dst", dst, count, dst_dev, kind));
        ACL_TRY(check_copy_side("src", src, count, src_dev, kind));
    }
    ACL_TRY(sc_copy(dst, src, async, stream, async ? "aclrtMemcpyAsync" : "aclrtMemcpy"));
    acl_queue *q = async ? acl_stream_queue(stream) : NULL;
    if (!q) {
        acl_q_drain_all(); /* a synchronous copy sees every queued task done */
        move_bytes(dst, src, count);
        return ACL_SUCCESS;
    }
    if (!acl_mem_contains(dst, count) || !acl_mem_contains(src, count)) {
        /* Pageable host memory on one side (not aclrtMalloc*, not registered): the copy is performed at the call,
         * after the stream's earlier tasks, as a pageable copy is on a device (the caller may reuse or free its
         * buffer when the call returns). The checker still counts it as a task of the stream. */
        acl_q_wait(q);
        move_bytes(dst, src, count);
        return ACL_SUCCESS;
    }
    mem_task *t = malloc(sizeof *t);
    if (!t) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing the copy");
    *t = (mem_task){dst, src, count, 0};
    const void *wr[1] = {dst};
    return acl_q_submit(q, run_copy, free, t, "aclrtMemcpyAsync", wr, 1);
}

aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind) {
    acl_set_api("aclrtMemcpy");
    return do_memcpy(dst, destMax, src, count, kind, false, NULL);
}

aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                          aclrtStream stream) {
    acl_set_api("aclrtMemcpyAsync");
    if (!acl_stream_valid(stream)) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "stream %p is not a live stream", stream);
    return do_memcpy(dst, destMax, src, count, kind, true, stream);
}

static aclError do_memset(void *devPtr, size_t maxCount, int32_t value, size_t count, bool async, aclrtStream stream) {
    if (!devPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "devPtr must not be NULL");
    if (count == 0) return ACL_SUCCESS;
    if (count > maxCount)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "count %zu is larger than maxCount %zu", count, maxCount);
    if (count > (size_t)PTRDIFF_MAX)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "count %zu is larger than any object can be", count);
    if (acl_mem_guards_enabled()) {
        mem_block b;
        if (!lookup_block(devPtr, &b) || count > copy_size(&b) - ((uintptr_t)devPtr - b.base))
            return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "[%p, +%zu) is not inside one device allocation", devPtr,
                              count);
    }
    ACL_TRY(sc_copy(devPtr, NULL, async, stream, async ? "aclrtMemsetAsync" : "aclrtMemset"));
    acl_queue *q = async ? acl_stream_queue(stream) : NULL;
    if (!q) {
        acl_q_drain_all();
        set_bytes(devPtr, value, count);
        return ACL_SUCCESS;
    }
    mem_task *t = malloc(sizeof *t);
    if (!t) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory queueing the memset");
    *t = (mem_task){devPtr, NULL, count, value};
    const void *wr[1] = {devPtr};
    return acl_q_submit(q, run_set, free, t, "aclrtMemsetAsync", wr, 1);
}

aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count) {
    acl_set_api("aclrtMemset");
    return do_memset(devPtr, maxCount, value, count, false, NULL);
}

aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream) {
    acl_set_api("aclrtMemsetAsync");
    if (!acl_stream_valid(stream)) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "stream %p is not a live stream", stream);
    return do_memset(devPtr, maxCount, value, count, true, stream);
}

aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free_bytes, size_t *total) {
    acl_set_api("aclrtGetMemInfo");
    if (!free_bytes || !total) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "free and total must not be NULL");
    if ((int)attr < 0 || (int)attr > ACL_HBM_MEM_P2P_NORMAL)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "attr %d is not a valid aclrtMemAttr", (int)attr);
    uint64_t cap = 64ull << 30; /* an Atlas A2 card's HBM */
    const char *s = getenv("PYACLNN_DEVICE_MEMORY");
    if (s && *s) {
        unsigned long long v = strtoull(s, NULL, 10);
        if (v > 0) cap = v;
    }
    pthread_mutex_lock(&g_mem_lock);
    uint64_t used = g_device_bytes;
    pthread_mutex_unlock(&g_mem_lock);
    *total = (size_t)cap;
    *free_bytes = (size_t)(used < cap ? cap - used : 0);
    return ACL_SUCCESS;
}
