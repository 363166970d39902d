/* `mutirao maxsub`: options and dispatch. */
#include <string.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/output.h"

/* The options, one row each (name, type, default, choices, help): maxsub/options.def. */
static const mu_opt_spec maxsub_opts[] = {
#include "maxsub/options.def"
    MU_OPT_END};

static int check_options(const mu_opts *o) {
    int64_t lo = mu_opt_int(o, "min"), hi = mu_opt_int(o, "max");
    if (lo < INT32_MIN || hi > INT32_MAX || lo > hi)
        return mu_error("--min=%lld and --max=%lld must be int32 values with min <= max",
                        (long long)lo, (long long)hi);
    if (mu_opt_int(o, "farm-chunk") < 0) return mu_error("--farm-chunk must be >= 0");
    if (mu_opt_str(o, "input") && mu_opt_str(o, "fasta"))
        return mu_error("--input and --fasta exclude each other");
    if (!mu_opt_str(o, "input") && !mu_opt_str(o, "fasta")) {
        int dim = mu_opt_int(o, "dim");
        int has_n = mu_opt_set(o, "n"), has_rc = mu_opt_set(o, "rows") && mu_opt_set(o, "cols");
        if (!has_n && !(dim == 2 && has_rc))
            return mu_error("no input: give --input=FILE, --fasta=FILE, or --n=N to generate data");
        if (has_n && mu_opt_int(o, "n") < 1)
            return mu_error("--n=%lld: the length must be at least 1",
                            (long long)mu_opt_int(o, "n"));
    }
    return 0;
}

/* The output (if any) writable before any work (rank 0); opts: the options. */
static int check_output(const void *opts) {
    const char *out = mu_opt_str(opts, "output");
    return out ? mu_output_check(out) : 0;
}

static int maxsub_run(mu_app *app) {
    int rc = check_options(app->opts);
    MU_TRY(mu_output_check_collective(app->comm, app->rank, rc, check_output, app->opts));
    if (mu_opt_str(app->opts, "fasta")) return mu_maxsub_run_fasta(app);
    if (mu_opt_int(app->opts, "dim") == 2) return mu_maxsub_run_2d(app);
    return mu_maxsub_run_1d(app);
}

const mu_command mu_cmd_maxsub = {
    "maxsub", "maximum subarray (1-D), maximum submatrix (2-D), hydrophobic regions (FASTA)",
    maxsub_opts, maxsub_run};
