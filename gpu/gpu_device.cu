/* Device discovery and binding, and the error message of the GPU layer. */
#include <cstdarg>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <cuda_runtime.h>
#include <sys/mman.h>

#include "gpu/gpu.h"
#include "gpu/check.h"

static thread_local char mu_gpu_msg[512];

int mu_gpu_cuda_failed(const char *file, int line, const char *what, cudaError_t err) {
    /* Keep the function's name only: "cudaMemcpyAsync(dst, ...)" -> "cudaMemcpyAsync". */
    size_t len = strcspn(what, "( ");
    if (len > 64) len = 64;
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    snprintf(mu_gpu_msg, sizeof mu_gpu_msg, "%s:%d: %.*s failed: %s", base, line, (int)len, what,
             cudaGetErrorString(err));
    /* Clear the runtime's last error so later checks report their own call. */
    (void)cudaGetLastError();
    return 1;
}

int mu_gpu_fail_at(const char *file, int line, const char *fmt, ...) {
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    int k = snprintf(mu_gpu_msg, sizeof mu_gpu_msg, "%s:%d: ", base, line);
    if (k < 0) k = 0;
    if ((size_t)k >= sizeof mu_gpu_msg) k = (int)sizeof mu_gpu_msg - 1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(mu_gpu_msg + k, sizeof mu_gpu_msg - (size_t)k, fmt, ap);
    va_end(ap);
    return 1;
}

extern "C" {

int mu_gpu_built(void) {
    return 1;
}

const char *mu_gpu_versions(void) {
    static thread_local char buf[64];
    int rt = 0, drv = 0;
    if (cudaRuntimeGetVersion(&rt) != cudaSuccess) rt = 0;
    if (cudaDriverGetVersion(&drv) != cudaSuccess) drv = 0;
    (void)cudaGetLastError();
    char r[16], d[16];
    if (rt > 0)
        snprintf(r, sizeof r, "%d.%d", rt / 1000, (rt % 1000) / 10);
    else
        snprintf(r, sizeof r, "none");
    if (drv > 0)
        snprintf(d, sizeof d, "%d.%d", drv / 1000, (drv % 1000) / 10);
    else
        snprintf(d, sizeof d, "none");
    snprintf(buf, sizeof buf, "%s / %s", r, d);
    return buf;
}

int mu_gpu_device_count(void) {
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        mu_gpu_cuda_failed(__FILE__, __LINE__, "cudaGetDeviceCount", e);
        return 0;
    }
    return n < 0 ? 0 : n;
}

/* The process's device, for the host threads it starts (-1: none selected). */
static int selected_ordinal = -1;

int mu_gpu_select(int ordinal, mu_gpu_info *info) {
    int n = mu_gpu_device_count();
    if (ordinal < 0 || ordinal >= n)
        return mu_gpu_fail("device %d requested but %d visible", ordinal, n);
    MU_CUDA(cudaSetDevice(ordinal));
    selected_ordinal = ordinal;
    cudaDeviceProp p;
    MU_CUDA(cudaGetDeviceProperties(&p, ordinal));
    if (info) {
        memset(info, 0, sizeof *info);
        info->ordinal = ordinal;
        size_t nl = strnlen(p.name, sizeof p.name);
        if (nl > sizeof info->name - 1) nl = sizeof info->name - 1;
        memcpy(info->name, p.name, nl);
        info->name[nl] = '\0';
        info->cc_major = p.major;
        info->cc_minor = p.minor;
        info->sm_count = p.multiProcessorCount;
        info->mem_gib = (double)p.totalGlobalMem / (1024.0 * 1024.0 * 1024.0);
        MU_CUDA(cudaDeviceGetPCIBusId(info->pci_bus_id, (int)sizeof info->pci_bus_id, ordinal));
    }
    return 0;
}

int mu_gpu_bind_thread(void) {
    if (selected_ordinal >= 0) MU_CUDA(cudaSetDevice(selected_ordinal));
    return 0;
}

int mu_gpu_peer_bus(char bus[32]) {
    int dev = 0;
    MU_CUDA(cudaGetDevice(&dev));
    MU_CUDA(cudaDeviceGetPCIBusId(bus, 32, dev));
    return 0;
}

int mu_gpu_peer_reachable(const char *bus, int *ok) {
    *ok = 0;
    int cur = 0, other = -1, can = 0;
    MU_CUDA(cudaGetDevice(&cur));
    if (cudaDeviceGetByPCIBusId(&other, bus) != cudaSuccess) {
        (void)cudaGetLastError(); /* not visible here: not an error of this process */
        return 0;
    }
    if (other == cur) return 0;
    MU_CUDA(cudaDeviceCanAccessPeer(&can, cur, other));
    *ok = can != 0;
    return 0;
}

const char *mu_gpu_error(void) {
    return mu_gpu_msg;
}

} /* extern "C" */

void *mu_gpu_host_alloc(size_t bytes, int *locked) {
    *locked = 0;
    void *p = nullptr;
    if (bytes == 0) bytes = 1;
    if (posix_memalign(&p, (size_t)2 << 20, bytes)) return nullptr;
    (void)madvise(p, bytes, MADV_HUGEPAGE);
    memset(p, 0, bytes); /* the first touch, here rather than in a timed copy */
    if (cudaHostRegister(p, bytes, cudaHostRegisterDefault) == cudaSuccess)
        *locked = 1;
    else
        (void)cudaGetLastError(); /* pageable then: slower copies, the same values */
    return p;
}

void mu_gpu_host_free(void *p, int locked) {
    if (p && locked) (void)cudaHostUnregister(p);
    free(p);
}
