/* Scenario generation kernel. A block takes SB scenarios: its threads draw the
 * SB x nst normals into shared memory (Philox keyed by seed, node, scenario,
 * station: the same numbers as the CPU), then each thread correlates and
 * transforms its (scenario, station) values with the shared arithmetic of
 * scenarios_gen_core.h. The month's model (factor, coefficients) is small and
 * is read through the cache; the factor is uploaded transposed so that the
 * threads of a warp (consecutive stations) read consecutive addresses. */
#include <cuda_runtime.h>
#include <stdlib.h>
#include "gpu/check.h"
#include "gpu/scenarios_gen.h"

enum { SC_TX = 32, SC_TY = 8 };

struct mu_sc_gpu {
    int nst, pmax, per_scen_past;
    int64_t max_scen;
    double *model; /* mu, sd, sig_a (nst each), phi (nst*pmax), D^T (nst*nst) */
    double *DT;    /* host staging of the transposed factor */
    double *zpast; /* pmax*nst, or per scenario */
    double *Z;
    unsigned long long *clamped;
    cudaEvent_t e0, e1;
};

__global__ void sc_gen_kernel(mu_sc_gen_month g, uint64_t seed, uint64_t node, int64_t scen0,
                              int64_t nscen, const double *zpast, int64_t zstride, double *Z,
                              unsigned long long *clamped) {
    extern __shared__ double w[]; /* SC_TY x nst */
    int nst = g.nst;
    int64_t k = (int64_t)blockIdx.x * SC_TY + threadIdx.y;
    double *wk = w + threadIdx.y * nst;
    if (k < nscen)
        for (int s = threadIdx.x; s < nst; s += SC_TX)
            wk[s] = mu_sc_normal(seed, node, (uint64_t)(scen0 + k), s);
    __syncthreads();
    if (k >= nscen) return;
    const double *zp = zpast + k * zstride;
    unsigned long long nc = 0;
    for (int s = threadIdx.x; s < nst; s += SC_TX) {
        /* mu_sc_corr_noise with the factor stored transposed (g.D = D^T), so a
         * warp's threads read consecutive addresses; same terms, same order. */
        int n = g.lower ? s + 1 : nst;
        double e = 0;
        for (int j = 0; j < n; j++) e += g.D[j * nst + s] * wk[j];
        int c;
        Z[k * nst + s] = mu_sc_inflow(&g, zp, s, e, &c);
        nc += c;
    }
    if (nc) atomicAdd(clamped, nc);
}

extern "C" int mu_sc_gpu_create(int nst, int pmax, int64_t max_scen, int per_scen_past,
                                mu_sc_gpu **out) {
    *out = NULL;
    if (nst < 1 || nst > 2048 || pmax < 1 || max_scen < 1)
        return mu_gpu_fail("scenarios: %d stations, p_max %d, %lld scenarios: out of range", nst,
                           pmax, (long long)max_scen);
    mu_sc_gpu *c = (mu_sc_gpu *)calloc(1, sizeof *c);
    if (!c) return mu_gpu_fail("out of memory");
    c->nst = nst;
    c->pmax = pmax;
    c->max_scen = max_scen;
    c->per_scen_past = per_scen_past;
    int rc = 0;
    size_t past = (size_t)pmax * nst * (per_scen_past ? (size_t)max_scen : 1);
    MU_CUDA_GOTO(cudaMalloc(&c->model, ((size_t)3 * nst + (size_t)nst * pmax + (size_t)nst * nst) *
                                           sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&c->zpast, past * sizeof(double)));
    c->DT = (double *)malloc((size_t)nst * nst * sizeof(double));
    if (!c->DT) {
        rc = mu_gpu_fail("out of memory");
        goto done;
    }
    MU_CUDA_GOTO(cudaMalloc(&c->Z, (size_t)max_scen * nst * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&c->clamped, sizeof(unsigned long long)));
    MU_CUDA_GOTO(cudaEventCreate(&c->e0));
    MU_CUDA_GOTO(cudaEventCreate(&c->e1));
done:
    if (rc) {
        mu_sc_gpu_destroy(c);
        return rc;
    }
    *out = c;
    return 0;
}

static int launch(mu_sc_gpu *c, const mu_sc_gen_month *g, const mu_sc_gen_draw *d,
                  float *kernel_ms) {
    int nst = c->nst, pmax = c->pmax;
    if (g->nst != nst || g->pmax != pmax || d->nscen > c->max_scen || d->nscen < 0 ||
        (d->zstride && !c->per_scen_past))
        return mu_gpu_fail("scenarios: generation arguments do not match the context");
    if (d->nscen == 0) return 0;
    double *m = c->model;
    MU_CUDA(cudaMemcpy(m, g->mu, nst * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(m + nst, g->sd, nst * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(m + 2 * nst, g->sig_a, nst * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(m + 3 * nst, g->phi, (size_t)nst * pmax * sizeof(double),
                       cudaMemcpyHostToDevice));
    for (int i = 0; i < nst; i++)
        for (int j = 0; j < nst; j++) c->DT[j * nst + i] = g->D[i * nst + j];
    MU_CUDA(cudaMemcpy(m + 3 * nst + nst * pmax, c->DT, (size_t)nst * nst * sizeof(double),
                       cudaMemcpyHostToDevice));
    size_t past = (size_t)pmax * nst + (d->zstride ? (size_t)(d->nscen - 1) * d->zstride : 0);
    MU_CUDA(cudaMemcpy(c->zpast, d->zpast, past * sizeof(double), cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemset(c->clamped, 0, sizeof(unsigned long long)));
    mu_sc_gen_month dg = *g;
    dg.mu = m;
    dg.sd = m + nst;
    dg.sig_a = m + 2 * nst;
    dg.phi = m + 3 * nst;
    dg.D = m + 3 * nst + nst * pmax;
    dim3 block(SC_TX, SC_TY);
    unsigned grid = (unsigned)((d->nscen + SC_TY - 1) / SC_TY);
    size_t shmem = (size_t)SC_TY * nst * sizeof(double);
    if (shmem > 48 * 1024)
        MU_CUDA(cudaFuncSetAttribute(sc_gen_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                     (int)shmem));
    MU_CUDA(cudaEventRecord(c->e0));
    sc_gen_kernel<<<grid, block, shmem>>>(dg, d->seed, d->node, d->scen0, d->nscen, c->zpast,
                                          d->zstride, c->Z, c->clamped);
    MU_LAUNCHED();
    MU_CUDA(cudaEventRecord(c->e1));
    MU_CUDA(cudaEventSynchronize(c->e1));
    if (kernel_ms) MU_CUDA(cudaEventElapsedTime(kernel_ms, c->e0, c->e1));
    return 0;
}

extern "C" int mu_sc_gpu_generate(mu_sc_gpu *c, const mu_sc_gen_month *g, const mu_sc_gen_draw *d,
                                  double *Z, int64_t *clamped, float *kernel_ms) {
    if (launch(c, g, d, kernel_ms)) return 1;
    if (d->nscen == 0) return 0;
    MU_CUDA(
        cudaMemcpy(Z, c->Z, (size_t)d->nscen * c->nst * sizeof(double), cudaMemcpyDeviceToHost));
    unsigned long long nc = 0;
    MU_CUDA(cudaMemcpy(&nc, c->clamped, sizeof nc, cudaMemcpyDeviceToHost));
    if (clamped) *clamped += (int64_t)nc;
    return 0;
}

extern "C" int mu_sc_gpu_generate_device(mu_sc_gpu *c, const mu_sc_gen_month *g,
                                         const mu_sc_gen_draw *d, float *kernel_ms) {
    return launch(c, g, d, kernel_ms);
}

extern "C" void mu_sc_gpu_destroy(mu_sc_gpu *c) {
    if (!c) return;
    cudaFree(c->model);
    cudaFree(c->zpast);
    cudaFree(c->Z);
    cudaFree(c->clamped);
    free(c->DT);
    if (c->e0) cudaEventDestroy(c->e0);
    if (c->e1) cudaEventDestroy(c->e1);
    free(c);
}
