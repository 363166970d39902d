/* What every public call does first: a mu_app on the caller's communicator,
 * the device string checked and each rank bound to its device, as the command
 * does before it runs a workload. Internal to src/api. */
#ifndef MU_API_API_H
#define MU_API_API_H
#include "app.h"

/* Collective over comm. fn names the public call in messages; device is
 * "auto", "cpu" or "gpu" (NULL: auto). local_rc: the caller's own checks of its
 * arguments on this rank (0: none failed), joined to the device's. 0, or 1 on
 * every rank after an error. */
int mu_api_open(MPI_Comm comm, const char *command, const char *fn, const char *device,
                int local_rc, mu_app *app);

/* Collective: ranks of app that run on a GPU. */
int mu_api_gpu_ranks(const mu_app *app);

#endif
