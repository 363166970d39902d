/* The fuzzy run's kernel seam: the FM iteration over ranges of starts on this
 * rank's GPU or CPU, and the task farm's task. */
#include <stdlib.h>
#include <string.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "gpu/fuzzy_gpu.h"

int fz_gpu_ranges(fm_ctx *c, const mu_gpu_fm_range *g, int ng, int64_t total, double *v,
                  const fm_dev_accept *acc, mu_fm_stat *st) {
    int64_t *its = malloc((size_t)(total ? total : 1) * sizeof *its);
    int *conv = malloc((size_t)(total ? total : 1) * sizeof *conv);
    float ms = 0;
    int rc = 0;
    if (!its || !conv) MU_TRY_GOTO(mu_error("out of memory for %lld starts", (long long)total));
    if (!acc)
        MU_TRY_GOTO(MU_GPU(mu_gpu_fm_run(c->gpu, g, ng, c->set.r2, c->set.eps1, c->set.max_it,
                                         c->set.sum_block, v, its, conv, &ms),
                           "the FM iteration on the GPU"));
    else
        MU_TRY_GOTO(MU_GPU(mu_gpu_fm_run_accept(c->gpu, g, ng, c->set.r2, c->set.eps1,
                                                c->set.max_it, c->set.sum_block, acc->eps2,
                                                acc->proto, acc->from, acc->nproto, its, conv, &ms),
                           "the FM iteration and acceptance on the GPU"));
    c->gpu_ms += ms;
    for (int64_t k = 0; k < total; k++) {
        st[k].iterations = its[k];
        st[k].converged = conv[k];
    }
done:
    free(its);
    free(conv);
    return rc;
}

/* The FM iteration for starts [first, first + count) of the set: on the device
 * when this rank has one (the same bits, see gpu/fuzzy_gpu.h), else the CPU. */
int fz_fm_starts(fm_ctx *c, int64_t first, int64_t count, double *v, mu_fm_stat *st) {
    if (!c->gpu) return mu_fm_run_cpu(&c->set, first, count, v, st);
    mu_gpu_fm_range g = {c->row0, c->set.n, first, count};
    return fz_gpu_ranges(c, &g, 1, count, v, NULL, st);
}

/* Task farm record per start: v (F doubles), iterations, converged. */
int fz_farm_task(int64_t first, int64_t count, void *results, void *vctx) {
    fm_ctx *c = vctx;
    int F = c->set.F;
    double *v = malloc((size_t)(count * F) * sizeof *v);
    mu_fm_stat *st = malloc((size_t)count * sizeof *st);
    int rc = 0;
    if (!v || !st) MU_TRY_GOTO(mu_error("out of memory for %lld starts", (long long)count));
    MU_TRY_GOTO(fz_fm_starts(c, c->base + first, count, v, st));
    double *out = results;
    for (int64_t k = 0; k < count; k++) {
        memcpy(out + k * (F + 2), v + k * F, (size_t)F * sizeof *out);
        out[k * (F + 2) + F] = (double)st[k].iterations;
        out[k * (F + 2) + F + 1] = st[k].converged;
    }
done:
    free(v);
    free(st);
    return rc;
}
