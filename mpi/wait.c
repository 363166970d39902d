#define _GNU_SOURCE
#include "mpi/wait.h"
#include "core/error.h"
#include "core/knobs.h"
#include <sched.h>
#include <stdlib.h>
#include <string.h>

static int polite;

void mu_wait_configure(int local_ranks) {
    mu_error_set_reducer(mu_allreduce);
    const int yield = mu_knob_flag("MUTIRAO_MPI_YIELD", -1);
    if (yield >= 0) {
        polite = yield;
        return;
    }
    cpu_set_t set;
    int cpus = sched_getaffinity(0, sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
    polite = cpus > 0 && local_ranks > cpus;
}

int mu_wait_polite(void) {
    return polite;
}

void mu_waitall(int count, MPI_Request *req, MPI_Status *status) {
    if (!polite) {
        MPI_Waitall(count, req, status);
        return;
    }
    int done = 0;
    for (;;) {
        MPI_Testall(count, req, &done, status);
        if (done) return;
        sched_yield();
    }
}

void mu_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    if (!polite) {
        MPI_Allreduce(MPI_IN_PLACE, buf, count, type, op, comm);
        return;
    }
    MPI_Request req;
    MPI_Status st;
    MPI_Iallreduce(MPI_IN_PLACE, buf, count, type, op, comm, &req);
    mu_waitall(1, &req, &st);
}
