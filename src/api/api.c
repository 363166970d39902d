/* The opening shared by the public calls (api.h). */
#include <string.h>
#include "api/api.h"
#include "core/error.h"

int mu_api_open(MPI_Comm comm, const char *command, const char *fn, const char *device,
                int local_rc, mu_app *app) {
    memset(app, 0, sizeof *app);
    app->comm = comm;
    app->command = command;
    MPI_Comm_rank(comm, &app->rank);
    MPI_Comm_size(comm, &app->size);
    const char *dev = device ? device : "auto";
    int rc = local_rc;
    if (!rc && strcmp(dev, "auto") && strcmp(dev, "cpu") && strcmp(dev, "gpu"))
        rc = mu_error("%s: device '%s': expected auto, cpu or gpu", fn, dev);
    MU_TRY(mu_error_collective(comm, rc));
    return mu_device_bind(comm, dev, &app->dev);
}

int mu_api_gpu_ranks(const mu_app *app) {
    int gpu = app->dev.use_gpu, all = 0;
    MPI_Allreduce(&gpu, &all, 1, MPI_INT, MPI_SUM, app->comm);
    return all;
}
