/* Virtual memory: aclrtReserveMemAddress reserves an inaccessible address range, aclrtMallocPhysical creates
 * "physical" memory (a memfd), aclrtMapMem maps it into a reserved range, where it joins the guarded device
 * memory until aclrtUnmapMem. A shareable handle names the memfd as (pid << 32 | fd), so another process of
 * the same user can import it (through /proc/<pid>/fd). Page-size granularity (4 KiB multiples). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "acl/acl.h"
#include "common/registry.h"
#include "common/status.h"
#include "runtime/runtime.h"

typedef struct { int fd; size_t size; int maps; } phys_mem;
typedef struct { uintptr_t base; size_t size; } range;
typedef struct { uintptr_t base; size_t size; phys_mem *pm; } mapping;

#define MAX_RANGES 4096
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static range g_res[MAX_RANGES];
static size_t g_nres;
static mapping g_map[MAX_RANGES];
static size_t g_nmap;

static size_t page(void) { return (size_t)sysconf(_SC_PAGESIZE); }

aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr, uint64_t flags) {
    acl_set_api("aclrtReserveMemAddress");
    if (!virPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "virPtr must not be NULL");
    if (size == 0 || size % page())
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size %zu must be a positive multiple of %zu", size, page());
    if (alignment & (alignment - 1))
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "alignment %zu must be 0 or a power of two", alignment);
    if (flags > 1) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flags %llu must be 0 or 1", (unsigned long long)flags);
    size_t al = alignment > page() ? alignment : page();
    if (size > SIZE_MAX - al) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size %zu is too large", size);
    char *p = mmap(expectPtr, size + al, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot reserve %zu bytes", size);
    uintptr_t base = ((uintptr_t)p + al - 1) / al * al;
    if (base > (uintptr_t)p) munmap(p, base - (uintptr_t)p);
    size_t tail = (uintptr_t)p + size + al - (base + size);
    if (tail) munmap((void *)(base + size), tail);
    pthread_mutex_lock(&g_lock);
    bool ok = g_nres < MAX_RANGES;
    if (ok) g_res[g_nres++] = (range){base, size};
    pthread_mutex_unlock(&g_lock);
    if (!ok) {
        munmap((void *)base, size);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "too many reserved ranges (%d)", MAX_RANGES);
    }
    *virPtr = (void *)base;
    return ACL_SUCCESS;
}

aclError aclrtReleaseMemAddress(void *virPtr) {
    acl_set_api("aclrtReleaseMemAddress");
    if (!virPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "virPtr must not be NULL");
    pthread_mutex_lock(&g_lock);
    size_t i = 0;
    while (i < g_nres && g_res[i].base != (uintptr_t)virPtr) i++;
    aclError rc = ACL_SUCCESS;
    if (i == g_nres) {
        rc = ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "virPtr %p was not returned by aclrtReserveMemAddress", virPtr);
    } else {
        for (size_t m = 0; m < g_nmap; m++)
            if (g_map[m].base >= g_res[i].base && g_map[m].base < g_res[i].base + g_res[i].size) {
                rc = ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "the range at %p still has memory mapped at %p "
                                "(aclrtUnmapMem first)", virPtr, (void *)g_map[m].base);
                break;
            }
        if (rc == ACL_SUCCESS) {
            munmap(virPtr, g_res[i].size);
            g_res[i] = g_res[--g_nres];
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

static aclError new_phys(int fd, size_t size, aclrtDrvMemHandle *handle) {
    phys_mem *pm = calloc(1, sizeof *pm);
    if (!pm || !acl_reg_add(pm, ACL_KIND_PHYS_MEM)) {
        free(pm);
        close(fd);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory");
    }
    pm->fd = fd;
    pm->size = size;
    *handle = pm;
    return ACL_SUCCESS;
}

aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                             uint64_t flags) {
    acl_set_api("aclrtMallocPhysical");
    if (!handle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "handle must not be NULL");
    if (!prop) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "prop must not be NULL");
    if (size == 0 || size % page())
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size %zu must be a positive multiple of %zu", size, page());
    if (flags != 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flags must be 0");
    if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "prop->allocationType %d must be ACL_MEM_ALLOCATION_TYPE_PINNED",
                          (int)prop->allocationType);
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE) {
        uint32_t n = 0;
        aclrtGetDeviceCount(&n);
        acl_set_api("aclrtMallocPhysical");
        if (prop->location.id >= n)
            return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "prop->location.id %u is not a device", prop->location.id);
    }
    int fd = memfd_create("pyaclnn-physical", MFD_CLOEXEC);
    if (fd < 0) return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "memfd_create failed: %s", strerror(errno));
    if (ftruncate(fd, (off_t)size) != 0) {
        close(fd);
        return ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "cannot allocate %zu bytes", size);
    }
    return new_phys(fd, size, handle);
}

/* The granularity aclrtMallocPhysical sizes must respect: the page (minimum); 2 MiB, a multiple of it, as the
 * device's huge-page recommendation. */
aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                          size_t *granularity) {
    acl_set_api("aclrtMemGetAllocationGranularity");
    if (!prop) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "prop must not be NULL");
    if (!granularity) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "granularity must not be NULL");
    if (option == ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM) *granularity = page();
    else if (option == ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        *granularity = (size_t)2 << 20 > page() ? (size_t)2 << 20 : page();
    else return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "option %d is not a granularity option", (int)option);
    return ACL_SUCCESS;
}

static aclError check_phys(aclrtDrvMemHandle h) {
    if (!h) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "handle must not be NULL");
    if (!acl_reg_is(h, ACL_KIND_PHYS_MEM))
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "handle %p is not a live physical memory handle", h);
    return ACL_SUCCESS;
}

aclError aclrtFreePhysical(aclrtDrvMemHandle handle) {
    acl_set_api("aclrtFreePhysical");
    ACL_TRY(check_phys(handle));
    phys_mem *pm = handle;
    pthread_mutex_lock(&g_lock);
    int maps = pm->maps;
    pthread_mutex_unlock(&g_lock);
    if (maps) return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "handle %p is still mapped %d time(s)", handle, maps);
    acl_reg_remove(pm, ACL_KIND_PHYS_MEM);
    close(pm->fd);
    free(pm);
    return ACL_SUCCESS;
}

aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags) {
    acl_set_api("aclrtMapMem");
    if (!virPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "virPtr must not be NULL");
    ACL_TRY(check_phys(handle));
    phys_mem *pm = handle;
    if (flags != 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "flags must be 0");
    if (size == 0 || size % page() || offset % page())
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "size %zu and offset %zu must be multiples of %zu (size > 0)",
                          size, offset, page());
    if (offset > pm->size || size > pm->size - offset)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "offset %zu + size %zu exceed the physical memory (%zu bytes)",
                          offset, size, pm->size);
    uintptr_t a = (uintptr_t)virPtr;
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    size_t i = 0;
    while (i < g_nres && !(a >= g_res[i].base && a - g_res[i].base < g_res[i].size)) i++;
    if (i == g_nres)
        rc = ACL_REPORT(ACL_ERROR_INVALID_PARAM, "virPtr %p is not inside a range from aclrtReserveMemAddress",
                        virPtr);
    else if (size > g_res[i].size - (a - g_res[i].base))
        rc = ACL_REPORT(ACL_ERROR_INVALID_PARAM, "[%p, +%zu) runs past the reserved range", virPtr, size);
    for (size_t m = 0; rc == ACL_SUCCESS && m < g_nmap; m++)
        if (a < g_map[m].base + g_map[m].size && g_map[m].base < a + size)
            rc = ACL_REPORT(ACL_ERROR_INVALID_PARAM, "[%p, +%zu) overlaps the mapping at %p", virPtr, size,
                            (void *)g_map[m].base);
    if (rc == ACL_SUCCESS && g_nmap == MAX_RANGES)
        rc = ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "too many mappings");
    if (rc == ACL_SUCCESS) {
        void *p = mmap(virPtr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, pm->fd, (off_t)offset);
        if (p == MAP_FAILED) {
            rc = ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "mapping failed: %s", strerror(errno));
        } else if (!acl_mem_add_mapped(virPtr, size)) {
            mmap(virPtr, size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
            rc = ACL_REPORT(ACL_ERROR_RT_MEMORY_ALLOCATION, "out of memory recording the mapping");
        } else {
            g_map[g_nmap++] = (mapping){a, size, pm};
            pm->maps++;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

aclError aclrtUnmapMem(void *virPtr) {
    acl_set_api("aclrtUnmapMem");
    if (!virPtr) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "virPtr must not be NULL");
    aclError rc = ACL_SUCCESS;
    pthread_mutex_lock(&g_lock);
    size_t m = 0;
    while (m < g_nmap && g_map[m].base != (uintptr_t)virPtr) m++;
    if (m == g_nmap) {
        rc = ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "virPtr %p is not the start of a mapping from aclrtMapMem", virPtr);
    } else {
        acl_mem_remove_mapped(virPtr);
        mmap(virPtr, g_map[m].size, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
        g_map[m].pm->maps--;
        g_map[m] = g_map[--g_nmap];
    }
    pthread_mutex_unlock(&g_lock);
    return rc;
}

aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType, uint64_t flags,
                                         uint64_t *shareableHandle) {
    acl_set_api("aclrtMemExportToShareableHandle");
    ACL_TRY(check_phys(handle));
    if (handleType != ACL_MEM_HANDLE_TYPE_NONE && handleType != ACL_MEM_HANDLE_TYPE_POSIX)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "handleType %d is not an aclrtMemHandleType", (int)handleType);
    if (!shareableHandle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "shareableHandle must not be NULL");
    *shareableHandle = ((uint64_t)(uint32_t)getpid() << 32) | (uint32_t)((phys_mem *)handle)->fd;
    (void)flags;
    return ACL_SUCCESS;
}

aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId, aclrtDrvMemHandle *handle) {
    acl_set_api("aclrtMemImportFromShareableHandle");
    if (!handle) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "handle must not be NULL");
    uint32_t n = 0;
    aclrtGetDeviceCount(&n);
    acl_set_api("aclrtMemImportFromShareableHandle");
    if (deviceId < 0 || (uint32_t)deviceId >= n)
        return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "deviceId %d is out of range [0, %u)", (int)deviceId, n);
    char path[64];
    snprintf(path, sizeof path, "/proc/%u/fd/%u", (unsigned)(shareableHandle >> 32), (unsigned)(uint32_t)shareableHandle);
    int fd = open(path, O_RDWR | O_CLOEXEC);
    if (fd < 0)
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "shareableHandle 0x%llx names no exported memory (%s)",
                          (unsigned long long)shareableHandle, strerror(errno));
    off_t size = lseek(fd, 0, SEEK_END);
    if (size <= 0) {
        close(fd);
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "shareableHandle 0x%llx names no exported memory",
                          (unsigned long long)shareableHandle);
    }
    return new_phys(fd, (size_t)size, handle);
}

aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum) {
    acl_set_api("aclrtMemSetPidToShareableHandle");
    if (!pid) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "pid must not be NULL");
    if (pidNum == 0) return ACL_REPORT(ACL_ERROR_INVALID_PARAM, "pidNum must be greater than 0");
    /* Any process of the same user may import (the /proc permission check); the list is accepted. */
    if ((shareableHandle >> 32) != (uint64_t)(uint32_t)getpid())
        return ACL_REPORT(ACL_ERROR_RT_PARAM_INVALID, "shareableHandle 0x%llx was not exported by this process",
                          (unsigned long long)shareableHandle);
    return ACL_SUCCESS;
}
