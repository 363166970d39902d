#include "core/error.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MSG_MAX = 1024 }; /* the longest message, as core/message.c keeps it */
static char printed[MSG_MAX];

static mu_error_reducer reducer;

void mu_error_set_reducer(mu_error_reducer r) {
    reducer = r;
}

void mu_error_allreduce(void *buf, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm) {
    if (reducer)
        reducer(buf, count, type, op, comm);
    else
        MPI_Allreduce(MPI_IN_PLACE, buf, count, type, op, comm);
}

int mu_error_collective(MPI_Comm comm, int local_rc) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* The lowest failing rank speaks for all: deterministic, one message. */
    int first = local_rc ? rank : size;
    mu_error_allreduce(&first, 1, MPI_INT, MPI_MIN, comm);
    if (first == size) return 0;
    char text[MSG_MAX];
    if (rank == first) {
        snprintf(text, sizeof text, "%s",
                 *mu_error_message() ? mu_error_message() : "unspecified failure");
    }
    MPI_Bcast(text, MSG_MAX, MPI_CHAR, first, comm);
    text[MSG_MAX - 1] = '\0';
    /* A failure already reported at an earlier collective point is not printed twice. */
    if (rank == 0 && strcmp(text, printed) != 0) {
        snprintf(printed, sizeof printed, "%s", text);
        if (size > 1 && first != 0)
            fprintf(stderr, "mutirao: error (rank %d): %s\n", first, text);
        else
            fprintf(stderr, "mutirao: error: %s\n", text);
        fflush(stderr);
    }
    mu_error("%s", text); /* every rank now holds the message reported */
    return 1;
}

void mu_error_check_or_exit(MPI_Comm comm, int local_rc) {
    if (!mu_error_collective(comm, local_rc)) return;
    MPI_Finalize();
    exit(1);
}
