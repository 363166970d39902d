/* The PNG scatter: the objects coloured by hard label and the prototypes
 * marked, drawn by gnuplot from a script and data files written to a private
 * temporary directory. 2-D data are drawn in their features; more dimensions on
 * the first two principal axes of the data FM ran on. The PNG appears under its
 * final name only when gnuplot succeeded. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "fuzzy/run.h"
#include "core/eigen.h"
#include "core/error.h"
#include "core/gnuplot.h"
#include "core/output.h"

int mu_fz_plot_check(void) {
    return mu_gnuplot_check();
}

/* A gnuplot single-quoted string: quotes doubled. */
static void quoted(FILE *f, const char *s) {
    fputc('\'', f);
    for (; *s; s++) {
        if (*s == '\'') fputc('\'', f);
        fputc(*s, f);
    }
    fputc('\'', f);
}

/* The two axes: the features themselves (F = 2), the feature (F = 1), or the
 * leading principal components. axis: F x 2 (columns), names filled. */
static int axes(const mu_fz_result *r, double *center, double *axis, char names[2][160]) {
    int F = r->d->F;
    int64_t n = r->d->n;
    memset(axis, 0, (size_t)(F * 2) * sizeof *axis);
    memset(center, 0, (size_t)F * sizeof *center);
    if (F <= 2) {
        axis[0] = 1;
        if (F == 2) axis[1 * 2 + 1] = 1;
        for (int k = 0; k < 2; k++)
            snprintf(names[k], 160, "%s%s", k < F ? r->d->names[k] : "(none)",
                     k < F && r->scale ? " (z-score)" : "");
        return 0;
    }
    double *cov = calloc((size_t)(F * F), sizeof *cov), *val = malloc((size_t)F * sizeof *val),
           *vec = malloc((size_t)(F * F) * sizeof *vec);
    if (!cov || !val || !vec) {
        free(cov);
        free(val);
        free(vec);
        return mu_error("out of memory for the plot");
    }
    for (int64_t i = 0; i < n; i++)
        for (int f = 0; f < F; f++) center[f] += r->z[i * F + f];
    for (int f = 0; f < F; f++) center[f] /= (double)n;
    for (int64_t i = 0; i < n; i++)
        for (int a = 0; a < F; a++)
            for (int b = 0; b < F; b++)
                cov[a * F + b] +=
                    (r->z[i * F + a] - center[a]) * (r->z[i * F + b] - center[b]) / (double)(n - 1);
    if (mu_sym_eigen(cov, F, val, vec)) return mu_error("plot: out of memory");
    double total = 0;
    for (int f = 0; f < F; f++) total += val[f] > 0 ? val[f] : 0;
    for (int k = 0; k < 2; k++) {
        for (int f = 0; f < F; f++) axis[f * 2 + k] = vec[f * F + k];
        snprintf(names[k], 160, "principal axis %d (%.1f%% of the variance)", k + 1,
                 total > 0 ? 100.0 * val[k] / total : 0.0);
    }
    free(cov);
    free(val);
    free(vec);
    return 0;
}

static void project(const double *p, int F, const double *center, const double *axis, double *xy) {
    xy[0] = xy[1] = 0;
    for (int f = 0; f < F; f++)
        for (int k = 0; k < 2; k++) xy[k] += (p[f] - center[f]) * axis[f * 2 + k];
}

static int write_files(const char *dir, const mu_fz_result *r, const char *png) {
    int F = r->d->F;
    double *center = malloc((size_t)F * sizeof *center),
           *axis = malloc((size_t)F * 2 * sizeof *axis);
    char names[2][160];
    if (!center || !axis) {
        free(center);
        free(axis);
        return mu_error("out of memory for the plot");
    }
    int rc = 0;
    char path[1200];
    FILE *f = NULL;
    MU_TRY_GOTO(axes(r, center, axis, names));
    snprintf(path, sizeof path, "%s/objects.dat", dir);
    if (!(f = fopen(path, "w")))
        MU_TRY_GOTO(mu_error("plot: cannot write '%s': %s", path, strerror(errno)));
    for (int64_t i = 0; i < r->d->n; i++) {
        double xy[2];
        project(r->z + i * F, F, center, axis, xy);
        fprintf(f, "%.10g %.10g %d\n", xy[0], xy[1], r->labels[i]);
    }
    if (fclose(f)) MU_TRY_GOTO(mu_error("plot: error writing '%s'", path));
    snprintf(path, sizeof path, "%s/prototypes.dat", dir);
    if (!(f = fopen(path, "w")))
        MU_TRY_GOTO(mu_error("plot: cannot write '%s': %s", path, strerror(errno)));
    for (int64_t j = 0; j < r->m; j++) {
        double xy[2];
        project(r->proto + j * F, F, center, axis, xy);
        fprintf(f, "%.10g %.10g %lld\n", xy[0], xy[1], (long long)j);
    }
    if (fclose(f)) MU_TRY_GOTO(mu_error("plot: error writing '%s'", path));
    snprintf(path, sizeof path, "%s/plot.gp", dir);
    if (!(f = fopen(path, "w")))
        MU_TRY_GOTO(mu_error("plot: cannot write '%s': %s", path, strerror(errno)));
    fprintf(f, "set terminal pngcairo size 1000,800 noenhanced font ',11'\nset output ");
    quoted(f, png);
    fprintf(f,
            "\nset title 'Fuzzy Minimals: %lld objects, %d feature(s), r = %.6g, %lld "
            "prototype(s)' noenhanced\n",
            (long long)r->d->n, F, r->r, (long long)r->m);
    fprintf(f, "set xlabel ");
    quoted(f, names[0]);
    fprintf(f, " noenhanced\nset ylabel ");
    quoted(f, names[1]);
    fprintf(f, " noenhanced\nset key outside right top\nset grid\ncd ");
    quoted(f, dir);
    fprintf(f, "\n");
    if (r->m <= 16)
        fprintf(f,
                "plot for [k=0:%lld] 'objects.dat' using 1:($3==k ? $2 : 1/0) with points pt "
                "7 ps 0.6 lc k+1 title sprintf('group %%d', k), \\\n",
                (long long)(r->m - 1));
    else
        fprintf(f, "plot 'objects.dat' using 1:2:($3+1) with points pt 7 ps 0.6 lc variable "
                   "notitle, \\\n");
    fprintf(f, "     'prototypes.dat' using 1:2 with points pt 2 ps 3 lw 3 lc rgb 'black' "
               "title 'prototypes'\n");
    if (fclose(f)) rc = mu_error("plot: error writing '%s'", path);
done:
    free(center);
    free(axis);
    return rc;
}

int mu_fz_plot(const char *path, const mu_fz_result *r) {
    const char *tmp = getenv("TMPDIR");
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/mutirao-plot.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return mu_error("plot: cannot create a temporary directory: %s", strerror(errno));
    mu_output out;
    memset(&out, 0, sizeof out);
    int rc = mu_output_name(&out, path, 0); /* gnuplot writes out.tmp; committed below */
    if (!rc) rc = write_files(dir, r, out.tmp);
    char script[1200], err[1200];
    snprintf(script, sizeof script, "%s/plot.gp", dir);
    snprintf(err, sizeof err, "%s/gnuplot.err", dir);
    if (!rc) {
        int st = mu_gnuplot_run(script, err);
        struct stat sb;
        if (st != 0 || (!out.through && (stat(out.tmp, &sb) != 0 || sb.st_size == 0))) {
            char msg[512] = "";
            FILE *e = fopen(err, "r");
            if (e) {
                size_t len = fread(msg, 1, sizeof msg - 1, e);
                msg[len] = '\0';
                fclose(e);
                for (char *p = msg; *p; p++)
                    if (*p == '\n') *p = ' ';
            }
            rc = mu_error("plot: gnuplot (%s) failed with status %d: %s", mu_gnuplot_bin(), st,
                          *msg ? msg : "no message");
        }
    }
    if (!rc) {
        rc = mu_output_commit(&out);
    } else if (out.tmp[0]) {
        mu_output_abort(&out);
    }
    static const char *const files[] = {"objects.dat", "prototypes.dat", "plot.gp", "gnuplot.err"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        char p[1200];
        snprintf(p, sizeof p, "%s/%s", dir, files[i]);
        remove(p);
    }
    rmdir(dir);
    return rc;
}
