/* mutirao's C API to CUDA. Every function is callable from C11 and exists in
 * CPU-only builds too (gpu/gpu_none.c), where it reports no device.
 * Functions return 0 on success; on failure a message is kept in mu_gpu_error(). */
#ifndef MU_GPU_H
#define MU_GPU_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct {
    int ordinal; /* CUDA device index in use */
    char name[128];
    int cc_major, cc_minor;
    int sm_count;
    double mem_gib;
    char pci_bus_id[32];
} mu_gpu_info;

/* 1 when the build has CUDA, else 0. */
int mu_gpu_built(void);
/* CUDA runtime and driver versions as "13.0 / 13.0", or "none". */
const char *mu_gpu_versions(void);
/* Visible devices; 0 on any CUDA error (no driver, no device). */
int mu_gpu_device_count(void);
/* Binds this process to device `ordinal` and fills info. */
int mu_gpu_select(int ordinal, mu_gpu_info *info);
/* Makes the calling host thread use the device mu_gpu_select bound this
 * process to (the CUDA runtime starts every new thread on device 0). */
int mu_gpu_bind_thread(void);
/* The PCI bus id of this process's device (bus: 32 bytes), to find the ranks
 * of a node on distinct GPUs. */
int mu_gpu_peer_bus(char bus[32]);
/* *ok = 1 when the device with that PCI bus id is visible here, is not the
 * current device and the current device can access its memory. */
int mu_gpu_peer_reachable(const char *bus, int *ok);
/* Host memory of `bytes` for copies to and from the device: page-locked
 * where that works (*locked = 1: 2 MB-aligned, transparent huge pages asked,
 * touched, then registered, which threads do together about ten times faster
 * than through cudaMallocHost), else pageable and touched (*locked = 0);
 * NULL when out of memory. */
void *mu_gpu_host_alloc(size_t bytes, int *locked);
/* Frees what mu_gpu_host_alloc gave (NULL accepted). */
void mu_gpu_host_free(void *p, int locked);
/* The last error message of this process's GPU calls. */
const char *mu_gpu_error(void);

/* The most device memory this process held at once through gpu/'s
 * allocations, in bytes (0 without CUDA). */
size_t mu_gpu_mem_peak(void);

#ifdef __cplusplus
}
#endif
#endif
