/* The tree's statistics against what it stands for (scenarios.h,
 * mu_sc_tree_stats): per stage and station the path-probability-weighted
 * mean, standard deviation and lag-1 correlation (each node with its parent)
 * of the tree, beside the same month of the statistics sample (series from
 * the same record: the fitted model's distribution of that month), the mean
 * of the scenarios the stage's parents generated (what the aggregation
 * summarized), and the record's calendar month; per stage the lag-0
 * cross-station correlations. Stage 1 has no lag-1: its past is the record's
 * last month, one value for every node and series. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/scenarios.h"
#include "core/error.h"

typedef struct {
    double mean, sd, r1; /* r1: correlation of x with xp (NaN when either is constant) */
} wmom;

/* Moments of n values x[k * stride] with weights w[k] (NULL: equal) and their
 * correlation with xp[k * stride] (xp NULL: none). */
static wmom moments(const double *x, const double *xp, const double *w, int64_t n, int64_t stride) {
    double sw = 0, a = 0, b = 0;
    for (int64_t k = 0; k < n; k++) {
        double wk = w ? w[k] : 1;
        sw += wk;
        a += wk * x[k * stride];
        if (xp) b += wk * xp[k * stride];
    }
    a /= sw;
    b /= sw;
    double vx = 0, vp = 0, c = 0;
    for (int64_t k = 0; k < n; k++) {
        double wk = w ? w[k] : 1, dx = x[k * stride] - a, dp = xp ? xp[k * stride] - b : 0;
        vx += wk * dx * dx;
        vp += wk * dp * dp;
        c += wk * dx * dp;
    }
    wmom r = {a, sqrt(vx / sw), vx > 0 && vp > 0 ? c / sqrt(vx * vp) : NAN};
    return r;
}

/* One series of values, as moments() reads it. */
typedef struct {
    const double *x, *xp, *w;
    int64_t n, stride;
} series;

static void upd(double *worst, double d) {
    if (isfinite(d) && !(d <= *worst)) *worst = d;
}

static double rel(double a, double b) {
    return b > 0 ? fabs(a / b - 1) : NAN;
}

static void put(FILE *f, double v, int digits) {
    if (isfinite(v))
        fprintf(f, ",%.*g", digits, v);
    else
        fputc(',', f);
}

/* The mean of the stage's parents' generated scenarios, path-weighted. */
static double node_sample_mean(const mu_sc_tree *t, int st, int nst, int s) {
    double w = 0, m = 0;
    for (int64_t u = t->stage_first[st - 1]; u < t->stage_first[st]; u++) {
        w += t->pprob[u];
        m += t->pprob[u] * t->gmean[u * nst + s];
    }
    return m / w;
}

void mu_sc_tree_node_diff(const mu_sc_tree *t, int nstages, int nst, mu_sc_tree_diff *d) {
    d->mean = d->std = d->lag1 = d->corr = NAN;
    d->h_mean = d->h_std = d->h_lag1 = d->h_corr = NAN;
    double worst = NAN;
    for (int st = 1; st <= nstages; st++)
        for (int s = 0; s < nst; s++) {
            double tw = 0, tm = 0;
            for (int64_t v = t->stage_first[st]; v < t->stage_first[st + 1]; v++) {
                tw += t->pprob[v];
                tm += t->pprob[v] * t->q[v * nst + s];
            }
            double g = node_sample_mean(t, st, nst, s);
            if (isnan(g)) { /* restored from a checkpoint: not the whole tree's figure */
                d->node_mean = NAN;
                return;
            }
            upd(&worst, rel(tm / tw, g));
        }
    d->node_mean = worst;
}

/* Stage st's three sets of values of station s: tree, sample, record. */
typedef struct {
    series tr, sa, hi;
    int have_sample;
} stage_sets;

static void stage_series(const mu_sc_hist *h, const mu_sc_tree *t, const double *par, int st,
                         int month, const double *gen, int64_t nser, int len, int s,
                         stage_sets *ss) {
    int nst = h->nst;
    int64_t v0 = t->stage_first[st], nv = t->stage_first[st + 1] - v0;
    ss->tr = (series){t->q + v0 * nst + s, st > 1 && par ? par + s : NULL, t->pprob + v0, nv, nst};
    ss->have_sample = gen && st <= len;
    if (ss->have_sample)
        ss->sa = (series){gen + (size_t)(st - 1) * nst + s,
                          st > 1 ? gen + (size_t)(st - 2) * nst + s : NULL, NULL, nser,
                          (int64_t)len * nst};
    int y0 = month == 0; /* January's month before is the previous year's */
    const double *hx = h->q + ((size_t)y0 * 12 + month) * nst + s;
    ss->hi = (series){hx, hx - nst, NULL, h->nyears - y0, 12 * (int64_t)nst};
}

static wmom mom(const series *a) {
    return moments(a->x, a->xp, a->w, a->n, a->stride);
}

/* Lag-0 correlation of stations i and j within one set. */
static double cross(const series *a, int i, int j) {
    series b = *a;
    b.x = a->x + i;
    b.xp = a->x + j;
    return mom(&b).r1;
}

/* Per stage: the cross-station correlations, as differences over the pairs. */
static void stage_cross(FILE *f, const mu_sc_hist *h, const mu_sc_tree *t, int st, int month,
                        const double *gen, int64_t nser, int len, mu_sc_tree_diff *d) {
    stage_sets ss;
    stage_series(h, t, NULL, st, month, gen, nser, len, 0, &ss);
    double sum = 0, mts = NAN, mth = NAN, msh = NAN;
    int64_t pairs = 0;
    for (int i = 0; i < h->nst; i++)
        for (int j = 0; j < i; j++) {
            double ct = cross(&ss.tr, i, j), ch = cross(&ss.hi, i, j);
            double cs = ss.have_sample ? cross(&ss.sa, i, j) : NAN;
            if (isfinite(ct - cs)) {
                sum += fabs(ct - cs);
                pairs++;
            }
            upd(&mts, fabs(ct - cs));
            upd(&mth, fabs(ct - ch));
            upd(&msh, fabs(cs - ch));
        }
    fprintf(f, "%d", st);
    put(f, pairs ? sum / (double)pairs : NAN, 4);
    put(f, mts, 4);
    put(f, mth, 4);
    put(f, msh, 4);
    fputc('\n', f);
    upd(&d->corr, mts);
    upd(&d->h_corr, mth);
}

/* Per stage and station: the table's rows. par: the nodes' parents' inflows. */
static void stage_rows(FILE *f, const mu_sc_hist *h, const mu_sc_tree *t, const double *par, int st,
                       int month, const double *gen, int64_t nser, int len, mu_sc_tree_diff *d) {
    for (int s = 0; s < h->nst; s++) {
        stage_sets ss;
        stage_series(h, t, par, st, month, gen, nser, len, s, &ss);
        wmom mt = mom(&ss.tr), mh = mom(&ss.hi);
        wmom ms = ss.have_sample ? mom(&ss.sa) : (wmom){NAN, NAN, NAN};
        double gm = node_sample_mean(t, st, h->nst, s);
        fprintf(f, "%d,%s,%d", st, h->names[s], month + 1);
        double v[] = {mt.mean, gm, ms.mean, mh.mean, mt.sd, ms.sd, mh.sd, mt.r1, ms.r1, mh.r1};
        for (int i = 0; i < 10; i++) put(f, v[i], i < 7 ? 6 : 4);
        fputc('\n', f);
        upd(&d->mean, rel(mt.mean, ms.mean));
        upd(&d->std, rel(mt.sd, ms.sd));
        upd(&d->lag1, fabs(mt.r1 - ms.r1));
        upd(&d->h_mean, rel(mt.mean, mh.mean));
        upd(&d->h_std, rel(mt.sd, mh.sd));
        upd(&d->h_lag1, fabs(mt.r1 - mh.r1));
    }
}

/* The parents' inflows of the nodes of stage st (nodes x nst). */
static double *parents_of(const mu_sc_tree *t, int st, int nst) {
    int64_t v0 = t->stage_first[st], nv = t->stage_first[st + 1] - v0;
    double *p = malloc((size_t)(nv > 0 ? nv : 1) * nst * sizeof *p);
    if (!p) return NULL;
    for (int64_t j = 0; j < nv; j++)
        memcpy(p + j * nst, t->q + t->parent[v0 + j] * nst, (size_t)nst * sizeof *p);
    return p;
}

int mu_sc_tree_stats(const char *path, const mu_sc_hist *h, const mu_sc_tree *t, int nstages,
                     int start_m, const double *gen, int64_t nser, int len, mu_sc_tree_diff *d) {
    d->mean = d->std = d->lag1 = d->corr = NAN;
    d->h_mean = d->h_std = d->h_lag1 = d->h_corr = NAN;
    FILE *f = fopen(path, "a");
    if (!f) return mu_error("cannot append to '%s'", path);
    fprintf(f,
            "#\n# tree stages (weighted by path probability) against the same months of the "
            "sample (%lld series from the same record), the scenarios generated at the "
            "stage's parents (node_sample_mean) and the record's calendar month; lag1: each "
            "value with the month before (none at stage 1: the record's last month)\n"
            "stage,station,month,tree_mean,node_sample_mean,sample_mean,hist_mean,tree_std,"
            "sample_std,hist_std,tree_lag1,sample_lag1,hist_lag1\n",
            (long long)nser);
    int rc = 0;
    for (int st = 1; st <= nstages && !rc; st++) {
        double *par = parents_of(t, st, h->nst);
        if (!par) {
            rc = mu_error("out of memory for the tree statistics");
            break;
        }
        stage_rows(f, h, t, par, st, (start_m + st - 1) % 12, gen, nser, len, d);
        free(par);
    }
    fprintf(f, "#\n# lag-0 cross-station correlation per stage: |tree - sample| (mean and "
               "largest over station pairs), largest |tree - record|, largest |sample - record|\n"
               "stage,mean_abs_tree_sample,max_abs_tree_sample,max_abs_tree_hist,"
               "max_abs_sample_hist\n");
    for (int st = 1; st <= nstages && h->nst > 1 && !rc; st++)
        stage_cross(f, h, t, st, (start_m + st - 1) % 12, gen, nser, len, d);
    fprintf(f,
            "# largest differences, tree against sample: mean %.4f (relative), std %.4f "
            "(relative), lag-1 %.4f, cross-station correlation %.4f\n",
            d->mean, d->std, d->lag1, d->corr);
    if (fclose(f) != 0 && !rc) rc = mu_error("cannot write '%s'", path);
    return rc;
}
