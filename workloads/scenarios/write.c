/* The scenarios outputs, each written atomically (core/output.h): the fitted
 * model as JSON, and the tree as CSV and JSON (node id, parent, stage, month,
 * probabilities, inflow per station). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "scenarios/scenarios.h"
#include "core/error.h"
#include "core/output.h"

static void jarr(FILE *f, const double *v, int n) {
    fputc('[', f);
    for (int i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? "," : "", isfinite(v[i]) ? v[i] : 0.0);
    fputc(']', f);
}

int mu_sc_write_model(const char *path, const mu_sc_hist *h, const mu_sc_model *md,
                      const mu_sc_fit_cfg *fc) {
    mu_output o;
    MU_TRY(mu_output_open(&o, path));
    FILE *f = o.f;
    int nst = md->nst, P = md->pmax;
    fprintf(f,
            "{\n  \"model\": \"PAR(p)\",\n  \"input\": \"%s\",\n  \"first_year\": %d,\n  "
            "\"years\": %d,\n  \"pmax\": %d,\n  \"sd_denominator\": \"%s\",\n  "
            "\"acf_denominator\": \"%s\",\n  \"pacf_limit\": %.17g,\n  \"stations\": [\n",
            h->path, h->first_year, h->nyears, P, fc->sd_n1 ? "N-1" : "N",
            fc->acf_pairs ? "pairs" : "N", fc->pacf_conf / sqrt((double)md->nyears));
    for (int s = 0; s < nst; s++) {
        fprintf(f, "    {\"name\": \"%s\", \"spectral_radius\": %.17g, \"months\": [\n",
                h->names[s], md->radius[s]);
        for (int m = 0; m < 12; m++) {
            size_t ix = (size_t)m * nst + s;
            fprintf(f,
                    "      {\"month\": %d, \"mean\": %.17g, \"std\": %.17g, \"order\": %d, "
                    "\"phi\": ",
                    m + 1, md->mu[ix], md->sd[ix], md->order[ix]);
            jarr(f, md->phi + ix * P, md->order[ix]);
            fprintf(f, ", \"noise_variance\": %.17g, \"rho\": ", md->sig_a[ix] * md->sig_a[ix]);
            jarr(f, md->rho + ix * P, P);
            fprintf(f, ", \"pacf\": ");
            jarr(f, md->pacf + ix * P, P);
            fprintf(f, "}%s\n", m < 11 ? "," : "");
        }
        fprintf(f, "    ]}%s\n", s < nst - 1 ? "," : "");
    }
    fprintf(f, "  ],\n  \"residual_correlation\": [\n");
    for (int m = 0; m < 12; m++) {
        fprintf(f, "    {\"month\": %d, \"factor\": \"%s\", \"matrix\": [", m + 1,
                md->lower[m] ? "cholesky" : "eigen");
        for (int i = 0; i < nst; i++) {
            fprintf(f, "%s", i ? "," : "");
            jarr(f, md->corr + ((size_t)m * nst + i) * nst, nst);
        }
        fprintf(f, "]}%s\n", m < 11 ? "," : "");
    }
    fprintf(f, "  ]\n}\n");
    return mu_output_commit(&o);
}

static void node_month(const mu_sc_hist *h, const mu_sc_tree *t, int64_t v, int64_t hist_end,
                       int *y, int *m) {
    int64_t a = hist_end - 1 + t->stage[v];
    *y = h->first_year + (int)(a / 12);
    *m = (int)(a % 12) + 1;
}

int mu_sc_write_tree(const char *csv, const char *json, const mu_sc_hist *h, const mu_sc_tree *t,
                     int64_t hist_end) {
    int nst = h->nst, y, m;
    if (csv) {
        mu_output o;
        MU_TRY(mu_output_open(&o, csv));
        fprintf(o.f, "node,parent,stage,year,month,probability,path_probability");
        for (int s = 0; s < nst; s++) fprintf(o.f, ",%s", h->names[s]);
        fprintf(o.f, "\n");
        for (int64_t v = 0; v < t->n; v++) {
            node_month(h, t, v, hist_end, &y, &m);
            fprintf(o.f, "%lld,%lld,%d,%d,%d,%.17g,%.17g", (long long)v, (long long)t->parent[v],
                    t->stage[v], y, m, t->prob[v], t->pprob[v]);
            for (int s = 0; s < nst; s++) fprintf(o.f, ",%.17g", t->q[v * nst + s]);
            fprintf(o.f, "\n");
        }
        MU_TRY(mu_output_commit(&o));
    }
    if (json) {
        mu_output o;
        MU_TRY(mu_output_open(&o, json));
        fprintf(o.f, "{\n  \"stations\": [");
        for (int s = 0; s < nst; s++) fprintf(o.f, "%s\"%s\"", s ? ", " : "", h->names[s]);
        fprintf(o.f, "],\n  \"nodes\": [\n");
        for (int64_t v = 0; v < t->n; v++) {
            node_month(h, t, v, hist_end, &y, &m);
            fprintf(o.f,
                    "    {\"id\": %lld, \"parent\": %lld, \"stage\": %d, \"month\": "
                    "\"%d-%02d\", \"probability\": %.17g, \"path_probability\": %.17g, "
                    "\"inflow\": ",
                    (long long)v, (long long)t->parent[v], t->stage[v], y, m, t->prob[v],
                    t->pprob[v]);
            jarr(o.f, t->q + v * nst, nst);
            fprintf(o.f, "}%s\n", v < t->n - 1 ? "," : "");
        }
        fprintf(o.f, "  ]\n}\n");
        MU_TRY(mu_output_commit(&o));
    }
    return 0;
}

void mu_sc_dump_header(FILE *f, const mu_sc_hist *h) {
    fprintf(f, "node,scenario");
    for (int s = 0; s < h->nst; s++) fprintf(f, ",%s", h->names[s]);
    fprintf(f, "\n");
}

void mu_sc_dump_node(FILE *f, int64_t v, const double *z, int m, int nst) {
    for (int i = 0; i < m; i++) {
        fprintf(f, "%lld,%d", (long long)v, i);
        for (int s = 0; s < nst; s++) fprintf(f, ",%.17g", z[(size_t)i * nst + s]);
        fprintf(f, "\n");
    }
}
