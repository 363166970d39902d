/* The statistics report, after GEVAZP's test module (which the study used): per station
 * and month, generated against historical mean, standard deviation and lag-1
 * autocorrelation, and per month the mean absolute difference of the lag-0
 * cross-station correlations. A report of moments, not a pass/fail test. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/free.h"
#include "core/output.h"

/* Moments of month m (0..11) of station s from a sample of n values x[k]
 * (stride) and their predecessors xp[k] (the month before). */
typedef struct {
    double mean, sd, r1;
} moments;

static moments sample_moments(const double *x, const double *xp, int64_t n, int64_t stride) {
    double a = 0, b = 0;
    for (int64_t k = 0; k < n; k++) {
        a += x[k * stride];
        b += xp[k * stride];
    }
    a /= (double)n;
    b /= (double)n;
    double vx = 0, vp = 0, c = 0;
    for (int64_t k = 0; k < n; k++) {
        double dx = x[k * stride] - a, dp = xp[k * stride] - b;
        vx += dx * dx;
        vp += dp * dp;
        c += dx * dp;
    }
    moments r = {a, sqrt(vx / (double)n), c / sqrt(vx * vp)};
    return r;
}

int mu_sc_write_stats(const char *path, const mu_sc_hist *h, const mu_sc_model *md,
                      const double *gen, int64_t nser, int len, int burn, int start_m) {
    (void)md;
    int nst = h->nst, N = h->nyears;
    int64_t per = (int64_t)(len - burn) / 12; /* whole generated years per series */
    int64_t ng = nser * per;
    double *x = malloc((size_t)ng * sizeof *x), *xp = malloc((size_t)ng * sizeof *xp);
    double *hx = malloc((size_t)N * sizeof *hx), *hp = malloc((size_t)N * sizeof *hp);
    double *cg = malloc((size_t)nst * nst * sizeof *cg),
           *ch = malloc((size_t)nst * nst * sizeof *ch);
    double *g = malloc((size_t)ng * nst * sizeof *g), *hh = malloc((size_t)N * nst * sizeof *hh);
    int rc = 0;
    mu_output o;
    if (!x || !xp || !hx || !hp || !cg || !ch || !g || !hh) rc = mu_error("out of memory");
    if (!rc) rc = mu_output_open(&o, path);
    if (rc) goto done;
    fprintf(o.f,
            "# scenarios statistics: %lld generated years (%lld series x %lld years after "
            "%d months of burn-in) against %d historical years\n",
            (long long)ng, (long long)nser, (long long)per, burn, N);
    fprintf(o.f, "station,month,hist_mean,gen_mean,hist_std,gen_std,hist_lag1,gen_lag1\n");
    double worst_mean = 0, worst_std = 0;
    for (int s = 0; s < nst; s++)
        for (int m = 0; m < 12; m++) {
            /* Generated: month m of each whole year after burn-in, and the month before. */
            int off = ((m - start_m) % 12 + 12) % 12; /* first index with that month */
            int64_t k = 0;
            for (int64_t q = 0; q < nser; q++)
                for (int64_t yy = 0; yy < per; yy++, k++) {
                    int64_t t = burn + off + 12 * yy;
                    if (t >= len) t -= 12;
                    x[k] = gen[((size_t)q * len + t) * nst + s];
                    xp[k] = gen[((size_t)q * len + t - 1) * nst + s];
                }
            moments mg = sample_moments(x, xp, ng, 1);
            int n = 0;
            for (int y = 0; y < N; y++) {
                int64_t t = (int64_t)y * 12 + m;
                if (t < 1) continue;
                hx[n] = h->q[t * nst + s];
                hp[n] = h->q[(t - 1) * nst + s];
                n++;
            }
            moments mh = sample_moments(hx, hp, n, 1);
            fprintf(o.f, "%s,%d,%.6g,%.6g,%.6g,%.6g,%.4f,%.4f\n", h->names[s], m + 1, mh.mean,
                    mg.mean, mh.sd, mg.sd, mh.r1, mg.r1);
            double dm = fabs(mg.mean / mh.mean - 1), ds = fabs(mg.sd / mh.sd - 1);
            if (dm > worst_mean) worst_mean = dm;
            if (ds > worst_std) worst_std = ds;
        }
    fprintf(o.f, "#\n# lag-0 cross-station correlation of the inflows, per month: mean |gen - "
                 "hist| over station pairs\nmonth,mean_abs_diff,max_abs_diff\n");
    for (int m = 0; m < 12 && nst > 1; m++) {
        int off = ((m - start_m) % 12 + 12) % 12;
        int64_t k = 0;
        for (int64_t q = 0; q < nser; q++)
            for (int64_t yy = 0; yy < per; yy++, k++) {
                int64_t t = burn + off + 12 * yy;
                if (t >= len) t -= 12;
                for (int s = 0; s < nst; s++) g[k * nst + s] = gen[((size_t)q * len + t) * nst + s];
            }
        for (int y = 0; y < N; y++)
            for (int s = 0; s < nst; s++) hh[y * nst + s] = h->q[((size_t)y * 12 + m) * nst + s];
        double *cs[2] = {cg, ch};
        const double *src[2] = {g, hh};
        int64_t cnt[2] = {ng, N};
        for (int w = 0; w < 2; w++) {
            for (int i = 0; i < nst; i++)
                for (int j = 0; j <= i; j++) {
                    moments mm = sample_moments(src[w] + i, src[w] + j, cnt[w], nst);
                    cs[w][i * nst + j] = mm.r1;
                }
        }
        double sum = 0, mx = 0;
        int64_t pairs = 0;
        for (int i = 0; i < nst; i++)
            for (int j = 0; j < i; j++) {
                double d = fabs(cg[i * nst + j] - ch[i * nst + j]);
                sum += d;
                if (d > mx) mx = d;
                pairs++;
            }
        fprintf(o.f, "%d,%.4f,%.4f\n", m + 1, sum / (double)pairs, mx);
    }
    fprintf(o.f,
            "# largest relative difference of a monthly mean %.4f, of a standard deviation "
            "%.4f\n",
            worst_mean, worst_std);
    rc = mu_output_commit(&o);
done:
    MU_FREE(x, xp, hx, hp, cg, ch, g, hh);
    return rc;
}
