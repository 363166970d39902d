/* gnuplot as a child process, for the workloads' PNG plots: the program is
 * $GNUPLOT or gnuplot on PATH. */
#ifndef MU_CORE_GNUPLOT_H
#define MU_CORE_GNUPLOT_H

const char *mu_gnuplot_bin(void);
/* Runs gnuplot with one argument (a script path, or --version), stdin and
 * stdout on /dev/null, stderr into errpath (or /dev/null). Returns its exit
 * status: 127 when the program is missing, -1 when it could not run. */
int mu_gnuplot_run(const char *arg, const char *errpath);
/* 0, or 1 with mu_error() saying how to get gnuplot (for --plot's preflight). */
int mu_gnuplot_check(void);

#endif
