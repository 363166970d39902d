/* The maxsub command: 1-D maximum subarray, 2-D maximum submatrix, and the
 * hydrophobic-region application. Internal to src/maxsub. */
#ifndef MU_MAXSUB_H
#define MU_MAXSUB_H
#include <stdint.h>
#include "app.h"
#include "maxsub/philox_value.h"

int mu_maxsub_run_1d(mu_app *app);
int mu_maxsub_run_2d(mu_app *app);
int mu_maxsub_run_fasta(mu_app *app);

/* Rank 0: writes "header\nrow\n" to path (atomically) when path is set. */
int mu_maxsub_write_csv(const char *path, const char *header, const char *row);

/* The generator options shared by 1-D and 2-D: values [lo, hi) of the stream,
 * made by the rank's host threads (Philox; the study's stream is sequential). */
void mu_maxsub_generate(const mu_app *app, int64_t lo, int64_t hi, int32_t *out);
/* The Philox parameters of the options into spec; 1 when the input is Philox
 * data generated in the run (no --input or --fasta), which GPU ranks make on
 * their device. */
int mu_maxsub_philox(const mu_opts *o, mu_philox_spec *spec);

#endif
