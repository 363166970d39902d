/* Stop requests from the batch system. Slurm sends SIGTERM at the time limit
 * and, with --signal, SIGUSR1 (or another signal) some time before it. The
 * handlers only set a flag; a long run polls it at a safe point (collectively,
 * so every rank stops at the same step), writes its state and exits. */
#ifndef MU_CORE_SIGNALS_H
#define MU_CORE_SIGNALS_H
#include <mpi.h>

/* Installs flag-setting handlers for SIGTERM and SIGUSR1; 0 or 1 with mu_error(). */
int mu_signals_install(void);
/* Restores the handlers that were in place before mu_signals_install(). */
void mu_signals_restore(void);
/* The last stop signal this process received since install (or clear), or 0. */
int mu_signals_pending(void);
void mu_signals_clear(void);
/* "SIGTERM", "SIGUSR1", or "signal N". */
const char *mu_signals_name(int sig);
/* Collective: 1 on every rank when any rank has a pending signal. Cheap, but a
 * hot loop can instead fold mu_signals_pending() != 0 into a reduction it already does. */
int mu_signals_any(MPI_Comm comm);

#endif
