/* PNG of a horizontal slice (field 0, middle level) drawn by gnuplot from a
 * matrix file in a private temporary directory; the PNG gets its final name
 * only when gnuplot succeeded. Collective: rank 0 gathers and draws. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/gnuplot.h"
#include "core/output.h"

int adv_plot_check(void) {
    return mu_gnuplot_check();
}

static int draw(const adv_cfg *c, const float *g, int N, const char *png, const char *title) {
    const char *tmp = getenv("TMPDIR");
    char dir[1024], dat[1100], gp[1100];
    snprintf(dir, sizeof dir, "%s/mutirao-advect.XXXXXX", tmp && *tmp ? tmp : "/tmp");
    if (!mkdtemp(dir))
        return mu_error("plot: cannot create a temporary directory: %s", strerror(errno));
    snprintf(dat, sizeof dat, "%s/slice.dat", dir);
    snprintf(gp, sizeof gp, "%s/plot.gp", dir);
    int rc = 0;
    int64_t z = c->n[2] / 2, nz = c->n[2];
    FILE *f = fopen(dat, "w");
    if (!f) rc = mu_error("plot: cannot write '%s'", dat);
    for (int64_t y = 0; !rc && y < c->n[1]; y++) {
        for (int64_t x = 0; x < c->n[0]; x++)
            fprintf(f, "%s%.7g", x ? " " : "", (double)g[((y * c->n[0] + x) * nz + z) * N]);
        fputc('\n', f);
    }
    if (f && fclose(f)) rc = mu_error("plot: error writing '%s'", dat);
    mu_output out;
    memset(&out, 0, sizeof out);
    if (!rc) rc = mu_output_name(&out, png, 0); /* gnuplot writes out.tmp */
    if (!rc) {
        FILE *s = fopen(gp, "w");
        if (!s) {
            rc = mu_error("plot: cannot write '%s'", gp);
        } else {
            fprintf(s,
                    "set terminal pngcairo size 800,700 noenhanced\nset output '%s'\n"
                    "set title '%s' noenhanced\nset xlabel 'x'\nset ylabel 'y'\n"
                    "set size ratio -1\nset palette rgbformulae 33,13,10\n"
                    "plot '%s' matrix using (($1+0.5)*%.17g):(($2+0.5)*%.17g):3 with image "
                    "notitle\n",
                    out.tmp, title, dat, c->len[0] / (double)c->n[0], c->len[1] / (double)c->n[1]);
            if (fclose(s)) rc = mu_error("plot: error writing '%s'", gp);
        }
    }
    if (!rc) {
        int st = mu_gnuplot_run(gp, NULL);
        struct stat sb;
        if (st != 0 || (!out.through && (stat(out.tmp, &sb) != 0 || sb.st_size == 0)))
            rc = mu_error("plot: gnuplot (%s) failed with status %d", mu_gnuplot_bin(), st);
    }
    if (!rc) {
        rc = mu_output_commit(&out);
    } else if (out.tmp[0]) {
        mu_output_abort(&out);
    }
    remove(dat);
    remove(gp);
    rmdir(dir);
    return rc;
}

int adv_plot(adv_state *s, const char *path, const char *title) {
    float *g = NULL;
    MU_TRY(adv_gather(s, &g));
    int rank, rc = 0;
    MPI_Comm_rank(s->comm, &rank);
    if (rank == 0) rc = draw(s->cfg, g, s->nall, path, title);
    free(g);
    return mu_error_collective(s->comm, rc);
}
