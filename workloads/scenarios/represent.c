/* The children's inflows of one node (represent.h). */
#include <stdlib.h>
#include <string.h>
#include "scenarios/represent.h"
#include "core/error.h"

static const char *const names[] = {"nearest", "centroid", "scaled"};

int mu_sc_rep_parse(const char *name) {
    for (int i = 0; i < 3; i++)
        if (name && !strcmp(name, names[i])) return i;
    return -1;
}

const char *mu_sc_rep_name(mu_sc_rep form) {
    return form >= 0 && form < 3 ? names[form] : "?";
}

static void sample_mean(const double *x, int m, int d, double *mean) {
    for (int s = 0; s < d; s++) mean[s] = 0;
    for (int i = 0; i < m; i++)
        for (int s = 0; s < d; s++) mean[s] += x[(size_t)i * d + s];
    for (int s = 0; s < d; s++) mean[s] /= (double)m;
}

/* The sample's mean and each group's in inflow units, in one pass over the
 * scenarios (each sum in scenario order, as two passes would add them). */
static int centroids(const double *x, int m, int d, const mu_agg_result *ar, double *out,
                     double *mean) {
    int k = ar->k, *n = calloc((size_t)k, sizeof *n);
    if (!n) return mu_error("out of memory for the representatives");
    memset(out, 0, (size_t)k * d * sizeof *out);
    memset(mean, 0, (size_t)d * sizeof *mean);
    for (int i = 0; i < m; i++) {
        const double *row = x + (size_t)i * d;
        double *o = out + (size_t)ar->group[i] * d;
        n[ar->group[i]]++;
        for (int s = 0; s < d; s++) {
            mean[s] += row[s];
            o[s] += row[s];
        }
    }
    for (int s = 0; s < d; s++) mean[s] /= (double)m;
    for (int g = 0; g < k; g++)
        for (int s = 0; s < d; s++) out[(size_t)g * d + s] /= (double)n[g];
    free(n);
    return 0;
}

/* The nearest members, each station scaled so the probability-weighted mean
 * is the sample's. A factor (not a shift) keeps every inflow >= 0; a station
 * where every nearest member is 0 takes the sample mean in each child. */
static void scaled(const double *x, int d, const mu_agg_result *ar, const double *mean,
                   double *out) {
    int k = ar->k;
    for (int s = 0; s < d; s++) {
        double w = 0;
        for (int g = 0; g < k; g++) w += ar->prob[g] * x[(size_t)ar->rep[g] * d + s];
        for (int g = 0; g < k; g++) {
            double v = x[(size_t)ar->rep[g] * d + s];
            out[(size_t)g * d + s] = w > 0 ? v * (mean[s] / w) : mean[s];
        }
    }
}

int mu_sc_represent(mu_sc_rep form, const double *x, int m, int d, const mu_agg_result *ar,
                    double *out, double *mean) {
    if (form == MU_SC_REP_CENTROID && ar->xgroup_mean) { /* the device's sums */
        memcpy(out, ar->xgroup_mean, (size_t)ar->k * d * sizeof *out);
        memcpy(mean, ar->xmean, (size_t)d * sizeof *mean);
        return 0;
    }
    if (form == MU_SC_REP_CENTROID) return centroids(x, m, d, ar, out, mean);
    if (ar->xmean)
        memcpy(mean, ar->xmean, (size_t)d * sizeof *mean);
    else
        sample_mean(x, m, d, mean);
    switch (form) {
    case MU_SC_REP_SCALED:
        scaled(x, d, ar, mean, out);
        return 0;
    case MU_SC_REP_NEAREST:
    default:
        for (int g = 0; g < ar->k; g++)
            memcpy(out + (size_t)g * d, x + (size_t)ar->rep[g] * d, (size_t)d * sizeof *out);
        return 0;
    }
}
