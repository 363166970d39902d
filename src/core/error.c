#include "core/error.h"
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MSG_MAX = 1024 };
/* Per thread: host threads inside a rank (scenario lanes) fail on their own;
 * the thread that calls MPI passes a lane's message on (mu_error("%s", ...)). */
static _Thread_local char message[MSG_MAX];
static char printed[MSG_MAX];

int mu_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return 1;
}

const char *mu_error_message(void) {
    return message;
}
void mu_error_clear(void) {
    message[0] = '\0';
}

static mu_error_waiter waiter;

void mu_error_set_waiter(mu_error_waiter w) {
    waiter = w;
}

int mu_error_collective(MPI_Comm comm, int local_rc) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    /* The lowest failing rank speaks for all: deterministic, one message. */
    int mine = local_rc ? rank : size, first = size;
    if (waiter) { /* a rank spinning in a blocking reduction holds a core the others need */
        MPI_Request rq;
        MPI_Iallreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm, &rq);
        waiter(1, &rq, MPI_STATUSES_IGNORE);
    } else {
        MPI_Allreduce(&mine, &first, 1, MPI_INT, MPI_MIN, comm);
    }
    if (first == size) return 0;
    char text[MSG_MAX];
    if (rank == first) {
        snprintf(text, sizeof text, "%s", message[0] ? message : "unspecified failure");
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
    snprintf(message, sizeof message, "%s", text);
    return 1;
}

void mu_error_check_or_exit(MPI_Comm comm, int local_rc) {
    if (!mu_error_collective(comm, local_rc)) return;
    MPI_Finalize();
    exit(1);
}
