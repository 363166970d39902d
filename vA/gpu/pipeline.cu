/* The stream pipeline of pipeline.h.
 *
 * S slots, each with its own stream, pinned staging buffer, device buffer and a
 * "slot free" event. Chunk i goes to slot i % S:
 *   1. wait for the slot's event (its previous chunk's copy and kernel are done),
 *   2. memcpy host -> pinned on the CPU,
 *   3. cudaMemcpyAsync pinned -> device on the slot's stream,
 *   4. the caller's launcher enqueues its kernel on the same stream,
 *   5. record the slot's event.
 * While the CPU fills slot i+1 and its copy runs on stream i+1, the kernel of
 * chunk i runs on stream i: copy and compute overlap. */
#include <cstdint>
#include <cstring>
#include <cuda_runtime.h>

#include "gpu/pipeline.h"
#include "gpu/check.h"

namespace {
enum { MAX_STREAMS = 16 };

struct slot {
    cudaStream_t stream;
    cudaEvent_t free_ev;
    void *pinned;
    void *dev;
    int used; /* the event has been recorded at least once */
};
} // namespace

extern "C" int mu_pipeline_run(const void *host, size_t count, size_t elem_size, int64_t offset,
                               const mu_pipeline_cfg *cfg, mu_chunk_launch launch, void *ctx) {
    if (!cfg || !launch || elem_size == 0)
        return mu_gpu_fail("mu_pipeline_run: missing configuration, launcher or element size");
    if (cfg->streams < 2 || cfg->streams > MAX_STREAMS)
        return mu_gpu_fail("mu_pipeline_run: streams = %d, expected 2..%d", cfg->streams,
                           (int)MAX_STREAMS);
    if (cfg->chunk_elems == 0) return mu_gpu_fail("mu_pipeline_run: chunk_elems = 0");
    if (count == 0) return 0;
    if (!host) return mu_gpu_fail("mu_pipeline_run: host pointer is NULL");
    if (cfg->chunk_elems > SIZE_MAX / elem_size)
        return mu_gpu_fail("mu_pipeline_run: chunk of %zu elements of %zu bytes is too large",
                           cfg->chunk_elems, elem_size);

    const size_t chunk = cfg->chunk_elems < count ? cfg->chunk_elems : count;
    const size_t nchunks = (count + chunk - 1) / chunk;
    const size_t chunk_bytes = chunk * elem_size;
    /* No more slots than chunks: a single chunk needs no staging beyond one buffer. */
    const int nslots = (size_t)cfg->streams < nchunks ? cfg->streams : (int)nchunks;
    const char *src = (const char *)host;

    slot s[MAX_STREAMS];
    memset(s, 0, sizeof s);
    int rc = 0;

    for (int k = 0; k < nslots; k++) {
        MU_CUDA_GOTO(cudaStreamCreateWithFlags(&s[k].stream, cudaStreamNonBlocking));
        MU_CUDA_GOTO(cudaEventCreateWithFlags(&s[k].free_ev, cudaEventDisableTiming));
        MU_CUDA_GOTO(cudaHostAlloc(&s[k].pinned, chunk_bytes, cudaHostAllocDefault));
        MU_CUDA_GOTO(cudaMalloc(&s[k].dev, chunk_bytes));
    }

    for (size_t i = 0; i < nchunks; i++) {
        slot *sl = &s[i % (size_t)nslots];
        const size_t first = i * chunk;
        const size_t n = count - first < chunk ? count - first : chunk;
        const size_t bytes = n * elem_size;
        /* The slot's previous chunk must have left both buffers. */
        if (sl->used) MU_CUDA_GOTO(cudaEventSynchronize(sl->free_ev));
        memcpy(sl->pinned, src + first * elem_size, bytes);
        MU_CUDA_GOTO(
            cudaMemcpyAsync(sl->dev, sl->pinned, bytes, cudaMemcpyHostToDevice, sl->stream));
        if (launch(sl->dev, n, i, offset + (int64_t)first, (void *)sl->stream, ctx)) {
            rc = 1; /* the launcher recorded its message */
            goto done;
        }
        MU_CUDA_GOTO(cudaEventRecord(sl->free_ev, sl->stream));
        sl->used = 1;
    }

done:
    /* Every path: wait for the streams (their work may use the buffers), then free. */
    for (int k = 0; k < nslots; k++) {
        if (s[k].stream) MU_CUDA_KEEP(cudaStreamSynchronize(s[k].stream));
    }
    for (int k = 0; k < nslots; k++) {
        if (s[k].dev) MU_CUDA_KEEP(cudaFree(s[k].dev));
        if (s[k].pinned) MU_CUDA_KEEP(cudaFreeHost(s[k].pinned));
        if (s[k].free_ev) MU_CUDA_KEEP(cudaEventDestroy(s[k].free_ev));
        if (s[k].stream) MU_CUDA_KEEP(cudaStreamDestroy(s[k].stream));
    }
    return rc;
}
