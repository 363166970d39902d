/* Task farm (master-worker): rank 0 hands out ranges of task ids on request,
 * in chunks that shrink as the work runs out (guided scheduling), and places
 * each result by task id, so the outcome never depends on arrival order. The
 * master works too, in small chunks, while every worker holds a range. */
#ifndef MU_MPI_TASKFARM_H
#define MU_MPI_TASKFARM_H
#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

/* Computes tasks [first, first+count) into results (count * result_size bytes).
 * Returns 0, or nonzero after mu_error(). */
typedef int (*mu_task_fn)(int64_t first, int64_t count, void *results, void *ctx);

typedef struct {
    int64_t min_chunk;    /* smallest range handed out (>= 1) */
    int64_t max_chunk;    /* largest range (0: no limit) */
    int master_works;     /* 1: rank 0 computes too */
    const char *progress; /* phase name for progress lines, or NULL */
    /* Rank 0, or NULL: nonzero to hand out no more tasks (a stop signal); the
     * ranges handed out are finished and the run returns 0 with the tasks
     * never handed out left as they were in all_results. */
    int (*stop)(void *ctx);
} mu_farm_cfg;

typedef struct {
    int64_t tasks_done_by_me;
    int64_t chunks_by_me;
} mu_farm_stats;

/* Collective. On rank 0 all_results receives ntasks * result_size bytes in task
 * order; other ranks may pass NULL. A failure on any rank is reported on every rank. */
int mu_taskfarm_run(MPI_Comm comm, int64_t ntasks, size_t result_size, mu_task_fn fn, void *ctx,
                    const mu_farm_cfg *cfg, void *all_results, mu_farm_stats *stats);

#endif
