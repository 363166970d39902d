/* PAR(p) fit (Box and Jenkins 1976; Maceira and Bezerra 1997): per station and month the mean and
 * standard deviation, the periodic autocorrelations rho^m(k), the periodic
 * Yule-Walker system of each order up to p_max (its last coefficient is the
 * periodic partial autocorrelation), the order as the largest significant lag,
 * the noise variance and residuals; per month the residual correlation across
 * stations and its factor (Cholesky, or the eigen fallback when it is not
 * positive definite). Every rank fits the same record with the same code, so
 * every rank holds the same bits and nothing needs broadcasting. */
#include <math.h>
#include <omp.h>
#include <stdlib.h>
#include <string.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/free.h"
#include "core/log.h"

#define MOD12(x) ((((x) % 12) + 12) % 12)

void mu_sc_model_free(mu_sc_model *md) {
    MU_FREE(md->mu, md->sd, md->order, md->phi, md->rho, md->pacf, md->sig_a, md->corr, md->factor,
            md->resid, md->radius, md->dependent);
    memset(md, 0, sizeof *md);
}

void mu_sc_month_args(const mu_sc_model *md, int m, mu_sc_gen_month *g) {
    int nst = md->nst;
    g->nst = nst;
    g->pmax = md->pmax;
    g->mu = md->mu + m * nst;
    g->sd = md->sd + m * nst;
    g->phi = md->phi + (size_t)m * nst * md->pmax;
    g->sig_a = md->sig_a + m * nst;
    g->D = md->factor + (size_t)m * nst * nst;
    g->lower = md->lower[m];
}

/* Yule-Walker of order p for month m of one station: P phi = rho^m(1..p) with
 * P_ij = rho^{m-i}(j-i) (i < j, 1-based), unit diagonal. rho: [month][lag-1]. */
static int yule_walker(const double *rho, int pmax, int m, int p, double *phi) {
    double P[144], b[12];
    for (int i = 1; i <= p; i++) {
        b[i - 1] = rho[m * pmax + i - 1];
        P[(i - 1) * p + (i - 1)] = 1;
        for (int j = i + 1; j <= p; j++) {
            double r = rho[MOD12(m - i) * pmax + (j - i) - 1];
            P[(i - 1) * p + (j - 1)] = P[(j - 1) * p + (i - 1)] = r;
        }
    }
    return mu_sc_solve(P, b, p, phi);
}

/* Spectral radius of the year's product of companion matrices (order pmax),
 * by Gelfand's formula with normalized repeated squaring. */
static double year_radius(const double *phi, int pmax) {
    int n = pmax;
    double *A = calloc((size_t)(n * n), sizeof *A), *B = calloc((size_t)(n * n), sizeof *B),
           *C = calloc((size_t)(n * n), sizeof *C);
    for (int i = 0; i < n; i++) A[i * n + i] = 1;
    for (int m = 0; m < 12; m++) {
        /* C = companion(m) * A */
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                if (i == 0)
                    for (int k = 0; k < n; k++) s += phi[m * pmax + k] * A[k * n + j];
                else
                    s = A[(i - 1) * n + j];
                C[i * n + j] = s;
            }
        memcpy(A, C, (size_t)(n * n) * sizeof *A);
    }
    double logn = 0, scale = 1;
    for (int it = 0; it < 40; it++) {
        double f = 0;
        for (int k = 0; k < n * n; k++) f += A[k] * A[k];
        f = sqrt(f);
        if (f == 0) {
            logn = -INFINITY;
            break;
        }
        logn += log(f) / scale;
        for (int k = 0; k < n * n; k++) A[k] /= f;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int k = 0; k < n; k++) s += A[i * n + k] * A[k * n + j];
                B[i * n + j] = s;
            }
        memcpy(A, B, (size_t)(n * n) * sizeof *A);
        scale *= 2;
    }
    free(A);
    free(B);
    free(C);
    /* logn = sum over squarings of log||.||/2^j -> log radius per 12 months. */
    return exp(logn);
}

/* One warning for the months whose residual correlation has no Cholesky
 * factor: which months, and the stations that are linear combinations of the
 * ones before them there (the record's columns, e.g. a station built as the
 * sum of others), which --stations can leave out. */
static void warn_dependent(const mu_sc_hist *h, unsigned months, const unsigned char *dep) {
    char mlist[64] = "", slist[512] = "";
    int o = 0, ndep = 0;
    for (int m = 0; m < 12; m++)
        if (months >> m & 1)
            o += snprintf(mlist + o, sizeof mlist - (size_t)o, "%s%d", o ? "," : "", m + 1);
    o = 0;
    for (int i = 0; i < h->nst; i++) {
        if (!dep[i]) continue;
        ndep++;
        if (o < (int)sizeof slist - 64)
            o += snprintf(slist + o, sizeof slist - (size_t)o, "%s%s", o ? ", " : "", h->names[i]);
    }
    mu_warn("scenarios: the residual correlation of the %d stations is not positive definite in "
            "month(s) %s: %s %s a linear combination of the stations before %s there; the "
            "eigen factor keeps its rank (leave %s out with --stations, or --drop-dependent, to "
            "use Cholesky)",
            h->nst, mlist, ndep ? slist : "no single station", ndep == 1 ? "is" : "are",
            ndep == 1 ? "it" : "them", ndep == 1 ? "it" : "them");
}

/* The model's arrays; nonzero when one of them could not be had. */
static int model_alloc(mu_sc_model *md, int nst, int P, size_t T) {
    size_t ms = (size_t)12 * nst;
    md->mu = calloc(ms, sizeof *md->mu);
    md->sd = calloc(ms, sizeof *md->sd);
    md->order = calloc(ms, sizeof *md->order);
    md->phi = calloc(ms * P, sizeof *md->phi);
    md->rho = calloc(ms * P, sizeof *md->rho);
    md->pacf = calloc(ms * P, sizeof *md->pacf);
    md->sig_a = calloc(ms, sizeof *md->sig_a);
    md->corr = calloc(ms * nst, sizeof *md->corr);
    md->factor = calloc(ms * nst, sizeof *md->factor);
    md->resid = calloc(T * nst, sizeof *md->resid);
    md->radius = calloc((size_t)nst, sizeof *md->radius);
    return !md->mu || !md->sd || !md->order || !md->phi || !md->rho || !md->pacf || !md->sig_a ||
           !md->corr || !md->factor || !md->resid || !md->radius;
}

/* Station s: each month's mean and deviation, the standardised series z and
 * rho^m(k) over pairs (t, t-k) with t in month m and t-k >= 0. */
static void station_acf(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md, int s,
                        double *z, double *rho) {
    int N = h->nyears, nst = h->nst, P = cfg->pmax;
    size_t T = (size_t)N * 12;
    for (int m = 0; m < 12; m++) {
        double sum = 0, ss = 0;
        for (int y = 0; y < N; y++) sum += h->q[((size_t)y * 12 + m) * nst + s];
        double mu = sum / N;
        for (int y = 0; y < N; y++) {
            double d = h->q[((size_t)y * 12 + m) * nst + s] - mu;
            ss += d * d;
        }
        md->mu[m * nst + s] = mu;
        md->sd[m * nst + s] = sqrt(ss / (cfg->sd_n1 ? N - 1 : N));
    }
    for (size_t t = 0; t < T; t++) {
        int m = (int)(t % 12);
        z[t] = (h->q[t * nst + s] - md->mu[m * nst + s]) / md->sd[m * nst + s];
    }
    for (int m = 0; m < 12; m++)
        for (int k = 1; k <= P; k++) {
            double acc = 0;
            int pairs = 0;
            for (int y = 0; y < N; y++) {
                long t = (long)y * 12 + m;
                if (t - k < 0) continue;
                acc += z[t] * z[t - k];
                pairs++;
            }
            rho[m * P + k - 1] = acc / (cfg->acf_pairs ? pairs : N);
        }
}

/* Station s, month m: the partial autocorrelations, the order (the last lag
 * past the confidence limit), its coefficients and the noise deviation. */
static int station_month(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md, int s,
                         int m, const double *rho, double limit) {
    int nst = h->nst, P = cfg->pmax;
    double phi[12];
    size_t ix = (size_t)m * nst + s;
    memcpy(md->rho + ix * P, rho + m * P, (size_t)P * sizeof *rho);
    int p = 0;
    for (int k = 1; k <= P; k++) {
        if (yule_walker(rho, P, m, k, phi))
            return mu_error("%s: station %s, month %d: the Yule-Walker system of order %d "
                            "is singular",
                            h->path, h->names[s], m + 1, k);
        md->pacf[ix * P + k - 1] = phi[k - 1];
        if (fabs(phi[k - 1]) > limit) p = k;
    }
    md->order[ix] = p;
    double va = 1;
    if (p > 0) {
        yule_walker(rho, P, m, p, phi);
        for (int i = 0; i < p; i++) {
            md->phi[ix * P + i] = phi[i];
            va -= phi[i] * rho[m * P + i];
        }
    }
    if (!(va > 1e-8)) {
        if (!cfg->quiet)
            mu_warn("scenarios: station %s, month %d: noise variance %.3g from order %d is "
                    "not positive; using 1e-8",
                    h->names[s], m + 1, va, p);
        va = 1e-8;
    }
    md->sig_a[ix] = sqrt(va);
    return 0;
}

/* Station s: residuals where every lag exists, and the year's spectral radius. */
static void station_resid(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md, int s,
                          const double *z) {
    int nst = h->nst, P = cfg->pmax;
    size_t T = (size_t)h->nyears * 12;
    for (size_t t = 0; t < T; t++) {
        int m = (int)(t % 12);
        size_t ix = (size_t)m * nst + s;
        int p = md->order[ix];
        double a = NAN;
        if ((long)t - p >= 0) {
            a = z[t];
            for (int i = 0; i < p; i++) a -= md->phi[ix * P + i] * z[t - 1 - i];
        }
        md->resid[t * nst + s] = a;
    }
    double phis[12 * 12];
    for (int m = 0; m < 12; m++)
        for (int i = 0; i < P; i++) phis[m * P + i] = md->phi[((size_t)m * nst + s) * P + i];
    md->radius[s] = year_radius(phis, P);
    if (!(md->radius[s] < 1)) {
        md->nonstationary++;
        if (!cfg->quiet)
            mu_warn("scenarios: station %s: the fitted PAR model is not periodically stationary "
                    "(spectral radius of the year's companion product %.4f >= 1)",
                    h->names[s], md->radius[s]);
    }
}

/* Month m: the cross-station residual correlation over years 2..N (every lag
 * exists there since p_max <= 12) into R. */
static void month_corr(const mu_sc_model *md, int N, int nst, int m, double *R, double *mean,
                       double *val) {
    for (int i = 0; i < nst; i++) {
        double acc = 0;
        for (int y = 1; y < N; y++) acc += md->resid[((size_t)y * 12 + m) * nst + i];
        mean[i] = acc / (N - 1);
    }
    for (int i = 0; i < nst; i++)
        for (int j = 0; j <= i; j++) {
            double acc = 0;
            for (int y = 1; y < N; y++) {
                const double *r = md->resid + ((size_t)y * 12 + m) * nst;
                acc += (r[i] - mean[i]) * (r[j] - mean[j]);
            }
            R[i * nst + j] = R[j * nst + i] = acc;
        }
    for (int i = 0; i < nst; i++) val[i] = sqrt(R[i * nst + i]);
    for (int i = 0; i < nst; i++)
        for (int j = 0; j < nst; j++)
            R[i * nst + j] = i == j ? 1 : R[i * nst + j] / (val[i] * val[j]);
}

/* What one month's fit found: eigenvalues <= 0 and the smallest (where it
 * has no Cholesky factor), and fail = 1 when memory ran out. */
typedef struct {
    int neg, fail;
    double smallest;
} month_fit;

/* One month's residual correlation, its factor and, where it has no Cholesky
 * factor, the stations dependent there (dep). */
static void fit_month(mu_sc_model *md, int N, int nst, int m, month_fit *f, unsigned char *dep) {
    double *R = md->corr + (size_t)m * nst * nst, *D = md->factor + (size_t)m * nst * nst;
    double *val = malloc((size_t)nst * sizeof *val), *mean = malloc((size_t)nst * sizeof *mean);
    f->fail = !val || !mean;
    if (!f->fail) {
        month_corr(md, N, nst, m, R, mean, val);
        f->fail = mu_sc_factor(R, nst, D, &md->lower[m], &f->neg, &f->smallest) ||
                  (!md->lower[m] && mu_sc_dependent(R, nst, 1e-10, dep) < 0);
    }
    free(val);
    free(mean);
}

/* Each month's residual correlation and its factor, the months on threads
 * (each an eigen decomposition where Cholesky fails: most of the fit's time);
 * then, in month order, the months without a Cholesky factor and the
 * stations dependent there are reported. */
static int fit_corr(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md) {
    int N = h->nyears, nst = h->nst, rc = 0;
    month_fit f[12];
    unsigned char *dep = calloc(13 * (size_t)nst, 1), *anydep = dep + 12 * (size_t)nst;
    unsigned months = 0; /* bit m: month m + 1 has no Cholesky factor */
    if (!dep) return mu_error("out of memory");
    int threads = cfg->threads > 0 ? cfg->threads : omp_get_max_threads();
#pragma omp parallel for schedule(dynamic, 1) num_threads(threads < 12 ? threads : 12)
    for (int m = 0; m < 12; m++) fit_month(md, N, nst, m, &f[m], dep + (size_t)m * nst);
    for (int m = 0; m < 12 && !rc; m++) {
        if (f[m].fail) {
            rc = mu_error("out of memory");
            break;
        }
        if (md->lower[m]) continue;
        md->nonpd++;
        months |= 1u << m;
        for (int i = 0; i < nst; i++) anydep[i] |= dep[(size_t)m * nst + i];
        mu_debug("scenarios: month %d: residual correlation not positive definite (%d "
                 "eigenvalue(s) <= 0, smallest %.3g)",
                 m + 1, f[m].neg, f[m].smallest);
    }
    if (!rc && months && !cfg->quiet && !cfg->drop_dependent) warn_dependent(h, months, anydep);
    if (!rc && months) {
        md->dependent = malloc((size_t)nst);
        if (md->dependent)
            memcpy(md->dependent, anydep, (size_t)nst);
        else
            rc = mu_error("out of memory");
    }
    free(dep);
    return rc;
}

int mu_sc_fit(const mu_sc_hist *h, const mu_sc_fit_cfg *cfg, mu_sc_model *md) {
    memset(md, 0, sizeof *md);
    int N = h->nyears, nst = h->nst, P = cfg->pmax;
    if (P < 1 || P > 12) return mu_error("--pmax=%d: must be 1..12", P);
    md->nst = nst;
    md->pmax = P;
    md->nyears = N;
    size_t T = (size_t)N * 12;
    int bad = model_alloc(md, nst, P, T);
    double *z = malloc(T * sizeof *z), *rho = malloc((size_t)12 * P * sizeof *rho);
    if (bad || !z || !rho) {
        free(z);
        free(rho);
        mu_sc_model_free(md);
        return mu_error("out of memory for the PAR(p) model of %d stations", nst);
    }
    double limit = cfg->pacf_conf / sqrt((double)N);
    int rc = 0;
    for (int s = 0; s < nst && !rc; s++) {
        station_acf(h, cfg, md, s, z, rho);
        for (int m = 0; m < 12 && !rc; m++) rc = station_month(h, cfg, md, s, m, rho, limit);
        station_resid(h, cfg, md, s, z); /* (after an error too, as it always was) */
    }
    free(z);
    free(rho);
    if (rc) {
        mu_sc_model_free(md);
        return rc;
    }
    rc = fit_corr(h, cfg, md);
    if (rc) mu_sc_model_free(md);
    return rc;
}
