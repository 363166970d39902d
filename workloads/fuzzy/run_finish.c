/* The fuzzy run's finish (rank 0): the merge of the raw prototypes, the
 * memberships, the report, the summary and the output files. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fuzzy/run_state.h"
#include "core/error.h"
#include "core/free.h"
#include "core/log.h"
#include "core/summary.h"
#include "core/timer.h"

/* The largest membership table kept (doubles): 1 GiB. */
#define MU_FZ_MAX_MEMBERSHIPS ((int64_t)1 << 27)

static const char *norm_name(const mu_fz_cfg *c) {
    return c->r_fixed > 0 ? "given" : c->norm == MU_FZ_R_PRINTED ? "printed" : "density";
}

static void fmt_point(char *buf, size_t len, const double *v, int F) {
    size_t o = 0;
    o += (size_t)snprintf(buf + o, len - o, "(");
    for (int f = 0; f < F && o < len; f++)
        o += (size_t)snprintf(buf + o, len - o, "%s%.6g", f ? ", " : "", v[f]);
    if (o < len) snprintf(buf + o, len - o, ")");
}

/* What finish makes, freed together at its end. */
typedef struct {
    int64_t m; /* prototypes after the merge */
    int64_t *group;
    mu_fz_merge *merges;
    double *proto, *mu, *top, *in_units;
    int64_t *merged, *objects;
    int32_t *labels;
} fz_tables;

static void tables_free(fz_tables *t) {
    MU_FREE(t->group, t->merges, t->proto, t->merged, t->mu, t->top, t->labels, t->objects,
            t->in_units);
}

/* The raw prototypes cut into groups (or each its own), and the groups' means. */
static int finish_merge(const mu_fz_cfg *c, fz_state *s, fz_tables *t) {
    int F = s->F, rc = 0;
    int64_t m_raw = s->m_raw;
    t->m = m_raw;
    if (c->merge && m_raw > 1) {
        t->merges = malloc((size_t)(m_raw - 1) * sizeof *t->merges);
        if (!t->merges) rc = mu_error("out of memory");
        if (!rc) rc = mu_fz_linkage(s->raw, m_raw, F, t->merges);
        double value = c->cut_value;
        if (c->cut == MU_FZ_CUT_THRESHOLD && !c->units_abs) value /= s->r;
        if (!rc) t->m = mu_fz_cut(t->merges, m_raw, c->cut, value, t->group);
        if (!rc && c->cut == MU_FZ_CUT_K && (int64_t)c->cut_value > m_raw)
            mu_warn("fuzzy: --k=%lld but only %lld raw prototypes: nothing merged",
                    (long long)c->cut_value, (long long)m_raw);
    } else {
        for (int64_t i = 0; i < m_raw; i++) t->group[i] = i;
    }
    int64_t m = t->m;
    t->proto = malloc((size_t)(m * F) * sizeof *t->proto);
    t->merged = malloc((size_t)m * sizeof *t->merged);
    if (!rc && (!t->proto || !t->merged)) rc = mu_error("out of memory");
    if (!rc) mu_fz_group_means(s->raw, m_raw, F, t->group, m, t->proto, t->merged);
    return rc;
}

/* Each object's memberships (the full n x m table only when it is reasonable,
 * 1 GiB), its label and the objects per prototype. */
static int finish_memberships(fz_state *s, fz_tables *t) {
    int F = s->F;
    int64_t m = t->m;
    int keep_mu = (double)s->n * (double)m <= (double)MU_FZ_MAX_MEMBERSHIPS;
    t->mu = keep_mu ? malloc((size_t)(s->n * m) * sizeof *t->mu) : NULL;
    t->top = malloc((size_t)s->n * sizeof *t->top);
    t->labels = malloc((size_t)s->n * sizeof *t->labels);
    t->objects = calloc((size_t)m, sizeof *t->objects);
    if ((keep_mu && !t->mu) || !t->top || !t->labels || !t->objects)
        return mu_error("out of memory for %lld x %lld memberships", (long long)s->n, (long long)m);
    mu_fz_memberships(s->z, s->n, F, t->proto, (int)m, s->r, t->mu, t->labels, t->top);
    for (int64_t i = 0; i < s->n; i++) t->objects[t->labels[i]]++;
    if (!keep_mu)
        mu_warn("fuzzy: %lld objects x %lld prototypes: the membership table is not kept "
                "(memberships.csv is not written; labels.csv has each object's largest)",
                (long long)s->n, (long long)m);
    return 0;
}

/* The report: one line, then each prototype in input units; the log lines. */
static void finish_report(const mu_fz_cfg *c, const fz_state *s, const fz_tables *t, double ari,
                          double purity) {
    int F = s->F;
    int64_t m = t->m;
    char acc[96] = "";
    if (s->d.label) snprintf(acc, sizeof acc, " ari=%.6f purity=%.6f", ari, purity);
    printf("fuzzy: n=%lld features=%d mode=%s partitions=%d r_norm=%s r=%.10g raw=%lld "
           "prototypes=%lld unconverged=%lld%s\n",
           (long long)s->n, F, c->exact ? "exact" : "partitioned", s->p, norm_name(c), s->r,
           (long long)s->m_raw, (long long)m, (long long)s->unconverged, acc);
    for (int64_t j = 0; j < m; j++) {
        char pt[512];
        fmt_point(pt, sizeof pt, t->in_units + j * F, F);
        printf("  prototype %lld: %s objects=%lld merged=%lld\n", (long long)j, pt,
               (long long)t->objects[j], (long long)t->merged[j]);
    }
    fflush(stdout);
    if (s->unconverged)
        mu_warn("fuzzy: %lld of %lld starts did not converge within --max-it=%lld (not accepted)",
                (long long)s->unconverged, (long long)s->n, (long long)c->max_it);
    mu_info("fuzzy: iterations per start: mean %.1f, max %lld", (double)s->it_total / (double)s->n,
            (long long)s->it_max);
    if (s->d.label)
        mu_info("fuzzy: against the reference labels ('%s', %d classes): adjusted Rand index "
                "%.6f, purity %.6f",
                s->d.label_column, s->d.nlabels, ari, purity);
}

static void finish_summary(const mu_fz_cfg *c, const fz_state *s, const fz_tables *t, double ari,
                           double purity) {
    int F = s->F;
    int64_t m = t->m;
    mu_summary_result_int("n", s->n);
    mu_summary_result_int("features", F);
    mu_summary_result_str("mode", c->exact ? "exact" : "partitioned");
    mu_summary_result_int("partitions", s->p);
    mu_summary_result_str("r_norm", norm_name(c));
    mu_summary_result_int("raw_prototypes", s->m_raw);
    mu_summary_result_int("prototypes", m);
    mu_summary_result_int("unconverged", s->unconverged);
    mu_summary_result_int("iterations_total", s->it_total);
    mu_summary_result_int("iterations_max", s->it_max);
    {
        char list[4096] = "";
        mu_summary_result_real("r", s->r);
        for (int64_t j = 0, o = 0; j < m && o < (int64_t)sizeof list - 64; j++) {
            char pt[512];
            fmt_point(pt, sizeof pt, t->in_units + j * F, F);
            o += snprintf(list + o, sizeof list - (size_t)o, "%s%s", j ? " " : "", pt);
        }
        mu_summary_result_str("prototype_list", list);
    }
    mu_summary_real("r", s->r);
    if (s->d.label) {
        mu_summary_real("ari", ari);
        mu_summary_real("purity", purity);
    }
}

/* The files: prototypes, everything under --prefix, the plot. */
static int finish_files(const mu_fz_cfg *c, fz_state *s, const fz_tables *t) {
    int rc = 0;
    mu_fz_result res = {.d = &s->d,
                        .z = s->z,
                        .shift = s->shift,
                        .scale = s->scale,
                        .r = s->r,
                        .m_raw = s->m_raw,
                        .raw = s->raw,
                        .raw_part = s->raw_part,
                        .raw_start = s->raw_start,
                        .raw_group = t->group,
                        .merges = t->merges,
                        .m = t->m,
                        .proto = t->proto,
                        .merged = t->merged,
                        .mu = t->mu,
                        .top = t->top,
                        .labels = t->labels,
                        .objects = t->objects};
    mu_timer_begin("output");
    if (c->output) rc = mu_fz_write_prototypes(c->output, &res);
    if (!rc && c->prefix) rc = mu_fz_write_all(c->prefix, &res);
    mu_timer_end("output");
    if (!rc && c->plot) {
        mu_timer_begin("plot");
        rc = mu_fz_plot(c->plot, &res);
        mu_timer_end("plot");
    }
    return rc;
}

/* Rank 0: merge, memberships, accuracy, the printed report and the files. */
int fz_finish(const mu_fz_cfg *c, fz_state *s) {
    int F = s->F;
    int64_t m_raw = s->m_raw;
    int rc = 0;
    fz_tables t = {0};
    t.group = malloc((size_t)(m_raw ? m_raw : 1) * sizeof *t.group);
    if (!t.group) return mu_error("out of memory");

    mu_timer_begin("merge");
    rc = finish_merge(c, s, &t);
    mu_timer_end("merge");

    mu_timer_begin("memberships");
    if (!rc) rc = finish_memberships(s, &t);
    mu_timer_end("memberships");
    if (rc) goto done;

    int64_t m = t.m;
    t.in_units = malloc((size_t)(m * F) * sizeof *t.in_units);
    if (!t.in_units) MU_TRY_GOTO(mu_error("out of memory"));
    for (int64_t j = 0; j < m; j++)
        for (int f = 0; f < F; f++)
            t.in_units[j * F + f] =
                s->scale ? t.proto[j * F + f] * s->scale[f] + s->shift[f] : t.proto[j * F + f];
    if (c->out) { /* a library call: the arrays to the caller, nothing printed or written */
        *c->out = (mu_fz_out){.n = s->n,
                              .F = F,
                              .r = s->r,
                              .m_raw = m_raw,
                              .m = m,
                              .proto = t.in_units,
                              .labels = t.labels,
                              .mu = t.mu,
                              .unconverged = s->unconverged};
        t.in_units = NULL;
        t.labels = NULL;
        t.mu = NULL;
        goto done;
    }
    double ari = NAN, purity = NAN;
    if (s->d.label) {
        ari = mu_fz_ari(t.labels, (int)m, s->d.label, s->d.nlabels, s->n);
        purity = mu_fz_purity(t.labels, (int)m, s->d.label, s->d.nlabels, s->n);
    }
    finish_report(c, s, &t, ari, purity);
    finish_summary(c, s, &t, ari, purity);
    rc = finish_files(c, s, &t);
done:
    tables_free(&t);
    return rc;
}
