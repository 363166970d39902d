/* Host threads inside a rank for the nodes of a tree stage. A node's work at
 * M = 1024 is a few milliseconds of small steps (a distance kernel of a few
 * microseconds, a copy back, the serial bookkeeping): one node at a time
 * leaves the device and the other cores idle, and ranks sharing one GPU
 * time-slice between their CUDA contexts. Threads of one process share one
 * context, and the scenario kernels are compiled with the per-thread default
 * stream, so the nodes of a chunk run side by side on the device and on the
 * host cores.
 *
 * Each lane is a copy of the rank's context with its own scratch, GPU
 * buffers (generation; the k-means parks one context per thread) and error
 * text; a node's record depends only on the node, so the records are the
 * same whatever the number of threads. Only the calling thread uses MPI
 * (MPI_THREAD_FUNNELED) and the phase timers. */
#define _GNU_SOURCE
#include <omp.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "gpu/gpu.h"
#include "gpu/scenarios_kmeans.h"
#include "gpu/scenarios_whiten.h"
#include "core/timer.h"
#include "scenarios/run.h"

enum { LANE_ERR = 1024 };

/* Lane l as a copy of x with its own scratch, buffers and error text (the
 * lanes may have been opened before x was complete). */
static void lane_sync(mu_sc_ctx *l, const mu_sc_ctx *x) {
    const mu_sc_bufs own = l->buf;
    *l = *x;
    l->buf = own;
    l->lanes = NULL;
    l->nlanes = 0;
    l->lane = 1;
    l->clamped = 0;
    l->km_s = l->km_dist_s = l->gen_s = l->agg_s = 0;
    l->err_node = -1;
}

static int lanes_open(mu_sc_ctx *x, int n, int nst, int pmax) {
    x->lanes = calloc((size_t)n, sizeof *x->lanes);
    if (!x->lanes) return mu_error("out of memory for %d scenario lanes", n);
    for (int t = 0; t < n; t++) {
        mu_sc_ctx *l = &x->lanes[t];
        mu_sc_bufs *b = &l->buf;
        b->Z = malloc((size_t)x->c->m * nst * sizeof *b->Z);
        b->zpast = malloc((size_t)pmax * nst * sizeof *b->zpast);
        b->err = malloc(LANE_ERR);
        lane_sync(l, x);
        x->nlanes = t + 1; /* so that close frees this one too */
        if (!b->Z || !b->zpast || !b->err)
            return mu_error("out of memory for scenario lane %d (M = %d)", t, x->c->m);
        if (x->use_gpu)
            MU_TRY(MU_GPU(mu_sc_gpu_create(nst, pmax, x->c->m, 0, &b->gpu),
                          "scenarios: GPU buffers of lane %d", t));
    }
    return 0;
}

int mu_sc_lanes_open(mu_sc_ctx *x, int n, int nst, int pmax) {
    if (x->nlanes >= n) return 0;
    mu_sc_lanes_close(x);
    mu_timer_begin("stage lanes");
    int rc = lanes_open(x, n, nst, pmax);
    mu_timer_end("stage lanes");
    if (rc) mu_sc_lanes_close(x); /* keeps the message: it records none */
    return rc;
}

int mu_sc_nest(int on) {
    const int levels = omp_get_max_active_levels();
    if (on && levels < 2) omp_set_max_active_levels(2);
    return levels;
}

/* Page-locked where the allocator can lock it, else the malloc'ed rows
 * touched (run.h). */
void mu_sc_lane_scratch(mu_sc_ctx *l) {
    const size_t bytes = (size_t)l->c->m * l->h->nst * sizeof *l->buf.Z;
    int locked = 0;
    double *z = l->use_gpu && !l->buf.z_locked ? mu_gpu_host_alloc(bytes, &locked) : NULL;
    if (z && locked) {
        free(l->buf.Z);
        l->buf.Z = z;
        l->buf.z_locked = 1;
        return;
    }
    mu_gpu_host_free(z, locked);
    memset(l->buf.Z, 0, bytes);
}

/* Made by many threads at once as a stage starts, a lane's buffers cost more
 * than its nodes' k-means: the scratch's first touch, the thread's whitening
 * buffers (page-locked rows) and its k-means context. */
void mu_sc_lane_warm(mu_sc_ctx *x, int t, int kmax) {
    mu_sc_ctx *l = &x->lanes[t];
    int m = l->c->m, nst = l->h->nst;
    int bound = !mu_gpu_bind_thread();
    mu_sc_lane_scratch(l);
    if (bound && !mu_gpu_whiten_reserve(m, nst)) (void)mu_gpu_km_reserve(m, nst, kmax);
}

void mu_sc_bufs_free(mu_sc_bufs *b) {
    mu_gpu_host_free(b->Z, b->z_locked);
    free(b->zpast);
    free(b->Dnode);
    free(b->err);
    mu_sc_gpu_destroy(b->gpu);
    *b = (mu_sc_bufs){0};
}

void mu_sc_lanes_close(mu_sc_ctx *x) {
    for (int t = 0; t < x->nlanes; t++) mu_sc_bufs_free(&x->lanes[t].buf);
    free(x->lanes);
    x->lanes = NULL;
    x->nlanes = 0;
}

/* A lane's first failure, node v: the node, and a copy of this thread's
 * message (core/message.c keeps one per thread, and the lane's thread may be
 * gone, or failing elsewhere, when the calling thread passes it on). */
static void lane_failed(mu_sc_ctx *l, int64_t v) {
    if (l->err_node >= 0) return;
    l->err_node = v;
    snprintf(l->buf.err, LANE_ERR, "%s", mu_error_message());
}

int mu_sc_lanes_run(mu_sc_ctx *x, int64_t v0, int64_t count, double *rec, size_t rd,
                    mu_sc_node_fn fn) {
    int n = x->threads < count ? x->threads : (int)count;
    if (n <= 1) {
        for (int64_t j = 0; j < count; j++) MU_TRY(fn(x, v0 + j, rec + j * rd));
        return 0;
    }
    MU_TRY(mu_sc_lanes_open(x, n, x->md->nst, x->md->pmax));
    for (int t = 0; t < n; t++) lane_sync(&x->lanes[t], x);
    int failed = 0;
    /* The threads that the lanes leave idle serve their nodes' host loops
     * (hashes, distances; each result the same on any number of threads). */
    const int inner = x->threads / n, levels = mu_sc_nest(inner > 1);
#pragma omp parallel num_threads(n)
    {
        if (inner > 1) omp_set_num_threads(inner);
        mu_sc_ctx *l = &x->lanes[omp_get_thread_num()];
        int bound = !l->use_gpu ||
                    !MU_GPU(mu_gpu_bind_thread(), "scenarios: a host thread could not use the GPU");
        if (!bound) lane_failed(l, v0);
#pragma omp for schedule(dynamic, 1)
        for (int64_t j = 0; j < count; j++) {
            int stop;
#pragma omp atomic read
            stop = failed;
            if (stop || !bound) continue;
            if (fn(l, v0 + j, rec + j * rd)) {
                lane_failed(l, v0 + j);
#pragma omp atomic write
                failed = 1;
            }
        }
    }
    omp_set_max_active_levels(levels);
    int64_t first = -1;
    const char *msg = NULL;
    for (int t = 0; t < n; t++) {
        mu_sc_ctx *l = &x->lanes[t];
        x->clamped += l->clamped;
        x->km_s += l->km_s;
        x->km_dist_s += l->km_dist_s;
        /* Thread-seconds: with several lanes these phases add up to more than the wall time. */
        mu_timer_add("generate", l->gen_s, 0);
        mu_timer_add("aggregate", l->agg_s, 0);
        if (l->err_node >= 0 && (first < 0 || l->err_node < first)) {
            first = l->err_node;
            msg = l->buf.err;
        }
    }
    return msg ? mu_error("%s", msg) : 0;
}
