#define _POSIX_C_SOURCE 200809L
#include "core/signals.h"
#include "core/error.h"
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

static volatile sig_atomic_t pending;
static const int stop_signals[] = {SIGTERM, SIGUSR1};
enum { NSTOP = sizeof stop_signals / sizeof stop_signals[0] };
static struct sigaction saved[NSTOP];
static int installed;

static void on_signal(int sig) {
    pending = sig;
}

int mu_signals_install(void) {
    if (installed) return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESTART; /* slow system calls resume; the loop polls the flag */
    for (int i = 0; i < NSTOP; i++)
        if (sigaction(stop_signals[i], &sa, &saved[i]) != 0)
            return mu_error("cannot install the %s handler: %s", mu_signals_name(stop_signals[i]),
                            strerror(errno));
    installed = 1;
    return 0;
}

void mu_signals_restore(void) {
    if (!installed) return;
    for (int i = 0; i < NSTOP; i++) sigaction(stop_signals[i], &saved[i], NULL);
    installed = 0;
}

int mu_signals_pending(void) {
    return pending;
}

void mu_signals_clear(void) {
    pending = 0;
}

const char *mu_signals_name(int sig) {
    static char other[32];
    if (sig == SIGTERM) return "SIGTERM";
    if (sig == SIGUSR1) return "SIGUSR1";
    snprintf(other, sizeof other, "signal %d", sig);
    return other;
}

int mu_signals_any(MPI_Comm comm) {
    int mine = pending != 0, any = 0;
    MPI_Allreduce(&mine, &any, 1, MPI_INT, MPI_LOR, comm);
    return any;
}
