/* The fuzzy CSV outputs, each written atomically (core/output.h). Prototype
 * coordinates are in the input's units (z-scores undone); distances and
 * dendrogram heights are in the space FM ran in. Objects are numbered from 0
 * in input order. */
#include <stdio.h>
#include <stdlib.h>
#include "fuzzy/run.h"
#include "core/error.h"
#include "core/output.h"

static double unit(const mu_fz_result *r, int f, double z) {
    return r->scale ? z * r->scale[f] + r->shift[f] : z;
}

/* The header of a table of points: lead, the feature names, tail. */
static void point_header(FILE *f, const mu_fz_result *r, const char *lead, const char *tail) {
    fprintf(f, "%s", lead);
    for (int k = 0; k < r->d->F; k++) fprintf(f, ",%s", r->d->names[k]);
    fprintf(f, "%s\n", tail);
}

/* A point's coordinates z (in the FM space) as columns, in the input's units. */
static void point(FILE *f, const mu_fz_result *r, const double *z) {
    for (int k = 0; k < r->d->F; k++) fprintf(f, ",%.17g", unit(r, k, z[k]));
}

int mu_fz_write_prototypes(const char *path, const mu_fz_result *r) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    point_header(out.f, r, "prototype", ",objects,merged");
    for (int64_t j = 0; j < r->m; j++) {
        fprintf(out.f, "%lld", (long long)j);
        point(out.f, r, r->proto + j * r->d->F);
        fprintf(out.f, ",%lld,%lld\n", (long long)r->objects[j], (long long)r->merged[j]);
    }
    return mu_output_commit(&out);
}

static int path_of(char *buf, size_t len, const char *prefix, const char *name) {
    if (snprintf(buf, len, "%s%s", prefix, name) >= (int)len)
        return mu_error("output prefix too long: '%s'", prefix);
    return 0;
}

static int write_memberships(const char *path, const mu_fz_result *r) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    fprintf(out.f, "object");
    for (int64_t j = 0; j < r->m; j++) fprintf(out.f, ",p%lld", (long long)j);
    fprintf(out.f, "\n");
    for (int64_t i = 0; i < r->d->n; i++) {
        fprintf(out.f, "%lld", (long long)i);
        for (int64_t j = 0; j < r->m; j++) fprintf(out.f, ",%.12g", r->mu[i * r->m + j]);
        fprintf(out.f, "\n");
    }
    return mu_output_commit(&out);
}

static int write_labels(const char *path, const mu_fz_result *r) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    const mu_fz_data *d = r->d;
    fprintf(out.f, "object,label,membership");
    if (d->label) fprintf(out.f, ",%s", d->label_column);
    fprintf(out.f, "\n");
    for (int64_t i = 0; i < d->n; i++) {
        fprintf(out.f, "%lld,%d,%.12g", (long long)i, r->labels[i], r->top[i]);
        if (d->label) fprintf(out.f, ",%s", d->label_names[d->label[i]]);
        fprintf(out.f, "\n");
    }
    return mu_output_commit(&out);
}

static int write_raw(const char *path, const mu_fz_result *r) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    point_header(out.f, r, "raw,partition,start", ",group");
    for (int64_t j = 0; j < r->m_raw; j++) {
        fprintf(out.f, "%lld,%lld,%lld", (long long)j, (long long)r->raw_part[j],
                (long long)r->raw_start[j]);
        point(out.f, r, r->raw + j * r->d->F);
        fprintf(out.f, ",%lld\n", (long long)r->raw_group[j]);
    }
    return mu_output_commit(&out);
}

/* scipy's linkage layout: clusters 0..m-1 are the raw prototypes, m+s the one
 * step s made; height in the FM space and in units of 1/r. */
static int write_dendrogram(const char *path, const mu_fz_result *r) {
    mu_output out;
    MU_TRY(mu_output_open(&out, path));
    fprintf(out.f, "step,a,b,height,height_r,size\n");
    if (r->merges)
        for (int64_t s = 0; s + 1 < r->m_raw; s++) {
            const mu_fz_merge *g = &r->merges[s];
            fprintf(out.f, "%lld,%lld,%lld,%.17g,%.17g,%lld\n", (long long)s, (long long)g->a,
                    (long long)g->b, g->height, g->height * r->r, (long long)g->size);
        }
    return mu_output_commit(&out);
}

int mu_fz_write_all(const char *prefix, const mu_fz_result *r) {
    char path[1100];
    MU_TRY(path_of(path, sizeof path, prefix, "prototypes.csv"));
    MU_TRY(mu_fz_write_prototypes(path, r));
    MU_TRY(path_of(path, sizeof path, prefix, "memberships.csv"));
    if (r->mu) MU_TRY(write_memberships(path, r));
    MU_TRY(path_of(path, sizeof path, prefix, "labels.csv"));
    MU_TRY(write_labels(path, r));
    MU_TRY(path_of(path, sizeof path, prefix, "raw.csv"));
    MU_TRY(write_raw(path, r));
    MU_TRY(path_of(path, sizeof path, prefix, "dendrogram.csv"));
    return write_dendrogram(path, r);
}
