/* Stream pipeline: copies a host array to the device chunk by chunk through
 * pinned staging buffers on >= 2 streams, so the copy of chunk i+1 overlaps the
 * kernel on chunk i. The caller's launcher enqueues its kernel on the stream it
 * is given; results are produced per chunk and placed by chunk index. */
#ifndef MU_GPU_PIPELINE_H
#define MU_GPU_PIPELINE_H
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Enqueue work on chunk `index` (count elements at dev, first element's global
 * index is offset) on `stream` (a cudaStream_t). Return 0, or nonzero on error. */
typedef int (*mu_chunk_launch)(const void *dev, size_t count, size_t index, int64_t offset,
                               void *stream, void *ctx);

typedef struct {
    size_t chunk_elems; /* elements per chunk */
    int streams;        /* >= 2 */
} mu_pipeline_cfg;

/* Streams host[0..count) (elem_size bytes each) through the launcher.
 * Returns 0 after all chunks have finished. */
int mu_pipeline_run(const void *host, size_t count, size_t elem_size, int64_t offset,
                    const mu_pipeline_cfg *cfg, mu_chunk_launch launch, void *ctx);

#ifdef __cplusplus
}
#endif
#endif
