/* The whitening of core/whiten.c on the device (C API), for the
 * aggregation of large nodes on GPU ranks: the same y with the same bits.
 * Every sum the CPU forms (the stations' means and squared deviations, the
 * correlation entries) is one running sum over the points in point order,
 * kept so on the device (the terms formed in parallel, __dadd_rn adding them
 * in order); the decisions on those sums (kept stations, pivoted Cholesky of
 * the small q x q matrix) are the CPU's own functions on the host; the
 * per-point forward substitution uses __dmul_rn, __dsub_rn and __ddiv_rn in
 * the CPU's order (no fused multiply-add). */
#ifndef MU_GPU_SCENARIOS_WHITEN_H
#define MU_GPU_SCENARIOS_WHITEN_H
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* mu_whiten (core/whiten.h) on the current device, except that y is
 * written compact (m x *rank, row stride *rank) into host memory of the
 * calling thread, pinned (pageable if pinning fails) and kept between its
 * calls, m x d doubles a thread at most, until the thread ends (*y: valid
 * until the thread's next call; NULL after a failure; nothing written at rank
 * 0): a fresh buffer a call would cost more in first-touch page faults than
 * the whole device part. Returns 0, or 1 after mu_error
 * (core/message.h): mu_whiten's message (a non-finite value) or "whitening on
 * the GPU: <mu_gpu_error()>". */
int mu_gpu_whiten(const double *x, int m, int d, const double **y, int *rank);
/* This host thread's buffers made for m x d points ahead of its first call
 * (their allocation and the host rows' page-locking off the critical path).
 * Returns 0, or 1 with mu_gpu_error(). */
int mu_gpu_whiten_reserve(int m, int d);
/* The device's copy of the y that this host thread's last mu_gpu_whiten wrote
 * (m x rank, row-major, on its device), valid until the thread's next call;
 * NULL if that call failed or found rank 0. The k-means context copies it on
 * the device instead of uploading the host's (same values). */
const double *mu_gpu_whiten_rows(void);
/* The x that this host thread's last mu_gpu_whiten whitened (m x d,
 * row-major, on its device) and its mean over the points (*mean, host, d:
 * the bits of mean[j] = (x[0][j] + x[1][j] + ... in point order) / m),
 * valid until the thread's next call; NULL (both) if that call failed. */
const double *mu_gpu_whiten_input(const double **mean);

/* *all = 1 when no two rows of the y that this host thread's last
 * mu_gpu_whiten wrote (m x r) are equal, shown on the device by sorting
 * hashes consistent with == and finding no two equal; 0 when some may be
 * (then the caller compares them). Returns 0, or 1 with mu_gpu_error(). */
int mu_gpu_whiten_distinct(int m, int r, int *all);

#ifdef __cplusplus
}
#endif
#endif
