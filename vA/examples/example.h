/* What the examples share: MPI started for the library (funneled threads: its
 * host threads never call MPI), a failed call reported once, and rank 0's
 * verdict for every rank. Header-only, beside the examples, so that both ways
 * of building them (CMakeLists.txt, or mpicc with pkg-config) find it. */
#ifndef MUTIRAO_EXAMPLE_H
#define MUTIRAO_EXAMPLE_H
#include <mpi.h>
#include <stdio.h>
#include <mutirao/mutirao.h>

/* MPI_Init_thread and this rank's place in MPI_COMM_WORLD. */
static inline void example_begin(int *argc, char ***argv, int *rank, int *size) {
    int provided;
    MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, rank);
    MPI_Comm_size(MPI_COMM_WORLD, size);
}

/* A mutirao call failed on every rank: rank 0 says why, MPI ends; main's status 1. */
static inline int example_failed(const char *program, int rank) {
    if (rank == 0) fprintf(stderr, "%s: %s\n", program, mutirao_error_message());
    MPI_Finalize();
    return 1;
}

/* Rank 0's verdict (0: the checks passed), on every rank. */
static inline int example_verdict(int rc) {
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    return rc;
}
#endif
