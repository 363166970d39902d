/* The PNG fan plot: for a few stations, the last three years of the record and
 * every path of the tree (parent to child), drawn by gnuplot from data files in
 * a private temporary directory. The PNG appears under its final name only
 * when gnuplot succeeded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/gnuplot.h"
#include "core/output.h"

int mu_sc_plot_check(void) {
    return mu_gnuplot_check();
}

int mu_sc_plot(const char *png, const mu_sc_hist *h, const mu_sc_tree *t, int nplot,
               int64_t hist_end) {
    int nst = h->nst;
    if (nplot > nst) nplot = nst;
    if (nplot < 1) nplot = 1;
    const char *tmpdir = getenv("TMPDIR");
    char dbuf[1024];
    snprintf(dbuf, sizeof dbuf, "%s/mutirao_scplot.XXXXXX", tmpdir && *tmpdir ? tmpdir : "/tmp");
    char *d = mkdtemp(dbuf);
    if (!d) return mu_error("--plot: cannot make a temporary directory: %s", strerror(errno));
    char data[1100], script[1100], tmp[1100];
    snprintf(data, sizeof data, "%s/tree.dat", d);
    snprintf(script, sizeof script, "%s/plot.gp", d);
    snprintf(tmp, sizeof tmp, "%s/out.png", d);
    int rc = 0;
    FILE *f = fopen(data, "w");
    if (!f) rc = mu_error("--plot: cannot write '%s'", data);
    int64_t h0 = hist_end - 36 < 0 ? 0 : hist_end - 36;
    if (!rc) {
        /* Block per station: index 2s = history, 2s+1 = tree segments. */
        for (int s = 0; s < nplot; s++) {
            for (int64_t a = h0; a < hist_end; a++)
                fprintf(f, "%lld %.6g\n", (long long)(a - hist_end + 1), h->q[a * nst + s]);
            fprintf(f, "\n\n");
            for (int64_t v = 1; v < t->n; v++) {
                int64_t p = t->parent[v];
                fprintf(f, "%d %.6g\n%d %.6g\n\n", t->stage[p], t->q[p * nst + s], t->stage[v],
                        t->q[v * nst + s]);
            }
            fprintf(f, "\n\n");
        }
        fclose(f);
        FILE *g = fopen(script, "w");
        if (!g) rc = mu_error("--plot: cannot write '%s'", script);
        if (!rc) {
            fprintf(g, "set terminal pngcairo size 900,%d noenhanced\nset output '%s'\n",
                    300 * nplot, tmp);
            fprintf(g, "set multiplot layout %d,1\nset grid\nset key top left\n", nplot);
            for (int s = 0; s < nplot; s++) {
                fprintf(g,
                        "set title 'station %s: record (last months) and the scenario tree'\n"
                        "set xlabel 'months from the last recorded month'\nset ylabel 'm3/s'\n"
                        "plot '%s' index %d with lines lw 2 lc rgb 'black' title 'record', "
                        "'%s' index %d with lines lc rgb '#3060c0' title 'tree paths'\n",
                        h->names[s], data, 2 * s, data, 2 * s + 1);
            }
            fprintf(g, "unset multiplot\n");
            fclose(g);
            int st = mu_gnuplot_run(script, NULL);
            if (st != 0) rc = mu_error("--plot: gnuplot failed (exit status %d)", st);
        }
    }
    if (!rc) {
        /* Copied through the atomic writer (a rename from the temporary
         * folder would replace a symlink, FIFO or device at png). */
        FILE *in = fopen(tmp, "rb");
        mu_output o;
        if (!in) rc = mu_error("--plot: no PNG from gnuplot");
        if (!rc) rc = mu_output_open(&o, png);
        if (!rc) {
            char buf[65536];
            size_t n;
            while ((n = fread(buf, 1, sizeof buf, in)) > 0) fwrite(buf, 1, n, o.f);
            rc = mu_output_commit(&o);
        }
        if (in) fclose(in);
    }
    unlink(tmp);
    unlink(data);
    unlink(script);
    rmdir(d);
    return rc;
}
