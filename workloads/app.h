/* What every command gets from the CLI: the communicator, its options, and
 * the device this rank was bound to. */
#ifndef MU_APP_H
#define MU_APP_H
#include <mpi.h>
#include "core/options.h"
#include "mpi/binding.h"

typedef struct {
    MPI_Comm comm;
    int rank, size;
    const char *command;
    mu_opts *opts;
    mu_device dev;
    /* Set by a command that succeeded with a distinct outcome (e.g. cg: 2 not
     * converged, 3 stopped by a signal after its checkpoint); 0 otherwise. */
    int exit_status;
} mu_app;

typedef struct {
    const char *name;
    const char *synopsis;
    const mu_opt_spec *opts;
    int (*run)(mu_app *app); /* collective; 0 or nonzero after mu_error() on every rank */
} mu_command;

/* Workloads: each in its own folder under workloads/. */
extern const mu_command mu_cmd_maxsub;
extern const mu_command mu_cmd_cg;
extern const mu_command mu_cmd_fuzzy;
extern const mu_command mu_cmd_advect;
extern const mu_command mu_cmd_scenarios;
extern const mu_command mu_cmd_info;

#endif
