#define _POSIX_C_SOURCE 200809L
#include "core/gnuplot.h"
#include <errno.h>
#include <fcntl.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/wait.h>
#include "core/error.h"

extern char **environ;

const char *mu_gnuplot_bin(void) {
    const char *g = getenv("GNUPLOT");
    return g && *g ? g : "gnuplot";
}

int mu_gnuplot_run(const char *arg, const char *errpath) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 2, errpath ? errpath : "/dev/null",
                                     O_WRONLY | O_CREAT | O_TRUNC, 0600);
    char *argv[] = {(char *)mu_gnuplot_bin(), (char *)arg, NULL};
    pid_t pid;
    int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) return -1;
    int status = 0;
    while (waitpid(pid, &status, 0) < 0)
        if (errno != EINTR) return -1;
    /* posix_spawnp reports a missing program as exit status 127 from the child. */
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int mu_gnuplot_check(void) {
    int rc = mu_gnuplot_run("--version", NULL);
    if (rc != 0)
        return mu_error("--plot needs gnuplot, and '%s' %s (apt-get install gnuplot-nox, or set "
                        "GNUPLOT=/path/to/gnuplot)",
                        mu_gnuplot_bin(), rc == 127 || rc < 0 ? "was not found" : "does not run");
    return 0;
}
