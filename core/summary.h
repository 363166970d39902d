/* The machine-readable run summary (--summary=FILE.json), built on rank 0 with
 * Debian's cJSON and written atomically at the end of the run. */
#ifndef MU_CORE_SUMMARY_H
#define MU_CORE_SUMMARY_H
#include <stdint.h>

void mu_summary_init(const char *command);
void mu_summary_str(const char *key, const char *value);
void mu_summary_int(const char *key, int64_t value);
void mu_summary_real(const char *key, double value);
void mu_summary_bool(const char *key, int value);
/* Adds under "options": name -> {value, source}. */
void mu_summary_option(const char *name, const char *value, const char *source);
/* Adds under "result". */
void mu_summary_result_int(const char *key, int64_t value);
void mu_summary_result_str(const char *key, const char *value);
void mu_summary_result_real(const char *key, double value);
void mu_summary_result_bool(const char *key, int value);
/* An array of n numbers (one per field, per prototype coordinate, ...). */
void mu_summary_result_reals(const char *key, const double *values, int64_t n);
/* Adds under "knobs": a tuning knob set in the environment (core/knobs.h). */
void mu_summary_knob(const char *name, const char *value);
/* memory.<key> = {max, min, mean} over the ranks (bytes). */
void mu_summary_memory(const char *key, double max, double min, double mean);
void mu_summary_phase(const char *phase, double max_s, double min_s, double mean_s);
/* Appends to "layout": where rank runs (node name, node-local rank of
 * local_size, device "cpu" or "gpu N"). Called in rank order. */
void mu_summary_rank(int rank, const char *node, int local_rank, int local_size,
                     const char *device);
/* Adds under "task_farm": phase -> tasks and chunks of each rank (pairs in
 * rank order in tasks_chunks), summed over the farm's runs of that phase. */
void mu_summary_farm(const char *phase, const int64_t *tasks_chunks, int nranks);
/* Writes the summary (rank 0 only); 0 or 1 with mu_error(). */
int mu_summary_write(const char *path);
void mu_summary_free(void);

#endif
