/* The GPU API in a build without CUDA: no device is ever visible, and every
 * offload entry point fails with one message, so callers take their CPU path. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/cg_gpu.h"
#include "gpu/gpu.h"
#include "gpu/maxsub_gpu.h"
#include "gpu/pipeline.h"

static const char mu_gpu_no_cuda[] = "this build has no CUDA support";

int mu_gpu_built(void) {
    return 0;
}

const char *mu_gpu_versions(void) {
    return "none";
}

int mu_gpu_device_count(void) {
    return 0;
}

int mu_gpu_select(int ordinal, mu_gpu_info *info) {
    (void)ordinal;
    (void)info;
    return 1;
}

int mu_gpu_bind_thread(void) {
    return 0;
}

int mu_gpu_peer_bus(char bus[32]) {
    bus[0] = '\0';
    return 1;
}

int mu_gpu_peer_reachable(const char *bus, int *ok) {
    (void)bus;
    *ok = 0;
    return 1;
}

const char *mu_gpu_error(void) {
    return mu_gpu_no_cuda;
}

int mu_pipeline_run(const void *host, size_t count, size_t elem_size, int64_t offset,
                    const mu_pipeline_cfg *cfg, mu_chunk_launch launch, void *ctx) {
    (void)host;
    (void)count;
    (void)elem_size;
    (void)offset;
    (void)cfg;
    (void)launch;
    (void)ctx;
    return 1;
}

int mu_gpu_mss1d_host(const int32_t *host, int64_t n, int64_t base, int empty_allowed,
                      mu_mss_summary *out) {
    (void)host;
    (void)n;
    (void)base;
    (void)empty_allowed;
    (void)out;
    return 1;
}

int mu_gpu_mss1d_device(const int32_t *dev, int64_t n, int64_t base, int empty_allowed,
                        mu_mss_summary *out, float *kernel_ms) {
    (void)dev;
    (void)n;
    (void)base;
    (void)empty_allowed;
    (void)out;
    (void)kernel_ms;
    return 1;
}

int mu_gpu_mss2d_create(const int32_t *k, int64_t rows, int64_t cols, mu_gpu_mss2d **ctx) {
    (void)k;
    (void)rows;
    (void)cols;
    if (ctx) *ctx = NULL;
    return 1;
}

int mu_gpu_mss1d_philox(mu_philox_spec spec, int64_t lo, int64_t hi, int empty_allowed,
                        mu_mss_summary *out) {
    (void)spec;
    (void)lo;
    (void)hi;
    (void)empty_allowed;
    (void)out;
    return 1;
}

int mu_gpu_philox_fill(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                       int transposed, int32_t *dev, void *stream) {
    (void)spec;
    (void)base;
    (void)rows;
    (void)cols;
    (void)transposed;
    (void)dev;
    (void)stream;
    return 1;
}

int mu_gpu_philox_to_host(mu_philox_spec spec, int64_t base, int64_t rows, int64_t cols,
                          int transposed, int32_t *host) {
    return mu_gpu_philox_fill(spec, base, rows, cols, transposed, host, NULL);
}

int mu_gpu_mss2d_create_philox(mu_philox_spec spec, int64_t rows, int64_t cols, int transposed,
                               mu_gpu_mss2d **ctx) {
    (void)spec;
    (void)transposed;
    return mu_gpu_mss2d_create(NULL, rows, cols, ctx);
}

int mu_gpu_mss2d_strip_sums(const mu_gpu_mss2d *ctx, int64_t g, int64_t h, int64_t *c) {
    (void)ctx;
    (void)g;
    (void)h;
    (void)c;
    return 1;
}

int mu_gpu_mss2d_run(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end, int empty_allowed,
                     int64_t *best, int64_t *pair_id) {
    (void)ctx;
    (void)tile_begin;
    (void)tile_end;
    (void)empty_allowed;
    (void)best;
    (void)pair_id;
    return 1;
}

int mu_gpu_mss2d_run_tiles(mu_gpu_mss2d *ctx, int64_t tile_begin, int64_t tile_end,
                           int empty_allowed, int64_t *results) {
    (void)ctx;
    (void)tile_begin;
    (void)tile_end;
    (void)empty_allowed;
    (void)results;
    return 1;
}

void mu_gpu_mss2d_destroy(mu_gpu_mss2d *ctx) {
    (void)ctx;
}

int mu_gpu_mss2d_open(int64_t rows, int64_t wmax, mu_gpu_mss2d **ctx) {
    (void)rows;
    (void)wmax;
    if (ctx) *ctx = NULL;
    return 1;
}

int mu_gpu_mss2d_load(mu_gpu_mss2d *ctx, int slot, const int64_t *V, int64_t lo, int64_t w,
                      int64_t B) {
    (void)ctx;
    (void)slot;
    (void)V;
    (void)lo;
    (void)w;
    (void)B;
    return 1;
}

int mu_gpu_mss2d_reserve(mu_gpu_mss2d *ctx, int nslots) {
    (void)ctx;
    (void)nslots;
    return 1;
}

int mu_gpu_mss2d_make_philox(mu_gpu_mss2d *ctx, mu_philox_spec spec, int64_t first, int64_t si,
                             int64_t sj, int64_t lo, int64_t w, int64_t *tot, int64_t *abs) {
    (void)ctx;
    (void)spec;
    (void)first;
    (void)si;
    (void)sj;
    (void)lo;
    (void)w;
    (void)tot;
    (void)abs;
    return 1;
}

int mu_gpu_mss2d_make_values(mu_gpu_mss2d *ctx, const int32_t *seg, int transposed, int64_t lo,
                             int64_t w, int64_t *tot, int64_t *abs) {
    (void)ctx;
    (void)seg;
    (void)transposed;
    (void)lo;
    (void)w;
    (void)tot;
    (void)abs;
    return 1;
}

int mu_gpu_mss2d_finish(mu_gpu_mss2d *ctx, const int64_t *off, int64_t B) {
    (void)ctx;
    (void)off;
    (void)B;
    return 1;
}

int mu_gpu_mss2d_fetch(const mu_gpu_mss2d *ctx, int k, int64_t *V) {
    (void)ctx;
    (void)k;
    (void)V;
    return 1;
}

int mu_gpu_mss2d_column(const mu_gpu_mss2d *ctx, int k, int64_t j, int64_t *out) {
    (void)ctx;
    (void)k;
    (void)j;
    (void)out;
    return 1;
}

int mu_gpu_mss2d_upload(mu_gpu_mss2d *ctx, int k, const int64_t *V, int64_t lo, int64_t w) {
    (void)ctx;
    (void)k;
    (void)V;
    (void)lo;
    (void)w;
    return 1;
}

int mu_gpu_mss2d_upload_wait(mu_gpu_mss2d *ctx) {
    (void)ctx;
    return 1;
}

int mu_gpu_mss2d_block_best(mu_gpu_mss2d *ctx, int sg, int sh, int64_t cols, int diag, int64_t t0,
                            int64_t t1, int empty_allowed, int64_t *best, int64_t *pair_id) {
    (void)ctx;
    (void)sg;
    (void)sh;
    (void)cols;
    (void)diag;
    (void)t0;
    (void)t1;
    (void)empty_allowed;
    (void)best;
    (void)pair_id;
    return 1;
}

int mu_gpu_mss2d_block_sums(mu_gpu_mss2d *ctx, int sg, int sh, int diag, int64_t t0, int64_t t1,
                            int empty_allowed, mu_mss2d_sum *out) {
    (void)ctx;
    (void)sg;
    (void)sh;
    (void)diag;
    (void)t0;
    (void)t1;
    (void)empty_allowed;
    (void)out;
    return 1;
}

/* cg (gpu/cg_gpu.h): no context can be made, so the other entry points are
 * only reached with one that does not exist; they fail the same way. */
int mu_gpu_cg_create(const mu_gpu_cg_desc *d, mu_gpu_cg **out) {
    (void)d;
    if (out) *out = NULL;
    return 1;
}

void mu_gpu_cg_destroy(mu_gpu_cg *g) {
    (void)g;
}

int mu_gpu_cg_lanes(const mu_gpu_cg *g) {
    (void)g;
    return 0;
}

int mu_gpu_cg_set_lanes(mu_gpu_cg *g, int lanes) {
    (void)g;
    (void)lanes;
    return 1;
}

void *mu_gpu_cg_vec_new(mu_gpu_cg *g) {
    (void)g;
    return NULL;
}

int mu_gpu_cg_vec_free(mu_gpu_cg *g, void *v) {
    (void)g;
    (void)v;
    return 1;
}

int mu_gpu_cg_vec_set(mu_gpu_cg *g, void *v, const double *owned) {
    (void)g;
    (void)v;
    (void)owned;
    return 1;
}

int mu_gpu_cg_vec_get(mu_gpu_cg *g, const void *v, double *owned) {
    (void)g;
    (void)v;
    (void)owned;
    return 1;
}

int mu_gpu_cg_vec_fill(mu_gpu_cg *g, void *v, double value) {
    (void)g;
    (void)v;
    (void)value;
    return 1;
}

int mu_gpu_cg_vec_copy(mu_gpu_cg *g, const void *src, void *dst) {
    (void)g;
    (void)src;
    (void)dst;
    return 1;
}

int mu_gpu_cg_halo_pack(mu_gpu_cg *g, const void *x) {
    (void)g;
    (void)x;
    return 1;
}

int mu_gpu_cg_halo_wait(mu_gpu_cg *g, const void *x, void **send, void **ghosts) {
    (void)g;
    (void)x;
    if (send) *send = NULL;
    if (ghosts) *ghosts = NULL;
    return 1;
}

int mu_gpu_cg_set_halo_device(mu_gpu_cg *g, int on) {
    (void)g;
    (void)on;
    return 1;
}

int mu_gpu_cg_halo_unpack(mu_gpu_cg *g, void *x) {
    (void)g;
    (void)x;
    return 1;
}

int mu_gpu_cg_spmv(mu_gpu_cg *g, int rows, const void *x, void *y, int acc) {
    (void)g;
    (void)rows;
    (void)x;
    (void)y;
    (void)acc;
    return 1;
}

int mu_gpu_cg_dot(mu_gpu_cg *g, const void *x, const void *y, int acc) {
    (void)g;
    (void)x;
    (void)y;
    (void)acc;
    return 1;
}

int mu_gpu_cg_waxpby(mu_gpu_cg *g, double a, const void *x, double c, const void *y, void *w) {
    (void)g;
    (void)a;
    (void)x;
    (void)c;
    (void)y;
    (void)w;
    return 1;
}

int mu_gpu_cg_update(mu_gpu_cg *g, double alpha, const void *p, const void *q, void *x, void *r,
                     void *z, int acc_rz, int acc_rr) {
    (void)g;
    (void)alpha;
    (void)p;
    (void)q;
    (void)x;
    (void)r;
    (void)z;
    (void)acc_rz;
    (void)acc_rr;
    return 1;
}

int mu_gpu_cg_precond(mu_gpu_cg *g, const void *r, void *z, int acc_rz, int acc_rr) {
    (void)g;
    (void)r;
    (void)z;
    (void)acc_rz;
    (void)acc_rr;
    return 1;
}

int mu_gpu_cg_take(mu_gpu_cg *g, mu_xsum *acc0, mu_xsum *acc1) {
    (void)g;
    (void)acc0;
    (void)acc1;
    return 1;
}

int mu_gpu_cg_iterate(mu_gpu_cg *g, void *x, void *r, void *p, void *q, void *z,
                      mu_gpu_cg_iter *it) {
    (void)g;
    (void)x;
    (void)r;
    (void)p;
    (void)q;
    (void)z;
    if (it) {
        it->done = 0;
        it->stop = MU_GPU_CG_RUNNING;
    }
    return 1;
}

void *mu_gpu_host_alloc(size_t bytes, int *locked) {
    *locked = 0;
    void *p = malloc(bytes ? bytes : 1);
    if (p) memset(p, 0, bytes);
    return p;
}

void mu_gpu_host_free(void *p, int locked) {
    (void)locked;
    free(p);
}

size_t mu_gpu_mem_peak(void) {
    return 0;
}
