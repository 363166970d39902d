/* A generated input's values for a rank's range, from the options: Philox
 * keyed by position (threads take blocks) or the study's sequential stream. */
#include "maxsub/maxsub.h"
#include "core/log.h"
#include "maxsub/gen.h"

int mu_maxsub_philox(const mu_opts *o, mu_philox_spec *spec) {
    *spec = (mu_philox_spec){.seed = (uint64_t)mu_opt_int(o, "seed"),
                             .sparse = mu_opt_is(o, "dist", "sparse"),
                             .vmin = (int32_t)mu_opt_int(o, "min"),
                             .vmax = (int32_t)mu_opt_int(o, "max")};
    return !mu_opt_str(o, "input") && !mu_opt_str(o, "fasta") && mu_opt_is(o, "gen", "philox");
}

void mu_maxsub_generate(const mu_app *app, int64_t lo, int64_t hi, int32_t *out) {
    mu_philox_spec spec;
    mu_maxsub_philox(app->opts, &spec);
    if (mu_opt_is(app->opts, "gen", "thesis")) {
        mu_gen_thesis(lo, hi, out); /* one sequential stream */
        return;
    }
    /* Philox values depend on the index only: the rank's threads take blocks. */
    char why[256];
    int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    const int64_t block = (int64_t)1 << 16, nblocks = (hi - lo + block - 1) / block;
    mu_debug("maxsub: generating %lld values with %d thread(s) (%s)", (long long)(hi - lo), threads,
             why);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (int64_t b = 0; b < nblocks; b++) {
        int64_t a = lo + b * block, e = a + block < hi ? a + block : hi;
        mu_gen_philox(spec, a, e, out + (a - lo));
    }
}
