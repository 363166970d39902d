/* Initial fields on the owned cells: an analytic shape (Gaussian, cosine bell,
 * square wave, cone, uniform) centred in the domain by default, field f scaled
 * by 1 + f/2 over a background, or a float32 file of every field (this field
 * group's picked from each cell's). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/infile.h"

static double shape(const adv_cfg *c, const double p[3]) {
    double r2 = 0, cheb = 0;
    int dims = c->init_3d ? 3 : 2;
    for (int k = 0; k < dims; k++) {
        double d = p[k] - c->center[k];
        r2 += d * d;
        if (fabs(d) > cheb) cheb = fabs(d);
    }
    double r = sqrt(r2), R = c->radius;
    switch (c->init) {
    case ADV_INIT_GAUSSIAN:
        return exp(-r2 / (2 * R * R));
    case ADV_INIT_COSINE:
        return r < R ? 0.5 * (1 + cos(ADV_PI * r / R)) : 0;
    case ADV_INIT_SQUARE:
        return cheb < R ? 1 : 0;
    case ADV_INIT_CONE:
        return r < R ? 1 - r / R : 0;
    default:
        return 1;
    }
}

int adv_init_fields_file(adv_state *s) {
    const adv_cfg *c = s->cfg;
    int N = s->N, nall = s->nall, nz = s->nl[2];
    int64_t per_field = c->n[0] * c->n[1] * c->n[2];
    int64_t size;
    FILE *f = mu_infile_open(c->init_file, "--init-file", &size);
    if (!f) return 1;
    int64_t floats = size / 4;
    if (size % 4 || floats % per_field) {
        fclose(f);
        return mu_error("--init-file=%s: %lld bytes is not a whole number of float32 fields of "
                        "%lld cells",
                        c->init_file, (long long)size, (long long)per_field);
    }
    if (floats / per_field != nall) {
        fclose(f);
        return mu_error("--init-file=%s holds %lld field(s) but the deck asks for %d (fields "
                        "missing or extra; layout: field fastest, then z, x, y)",
                        c->init_file, (long long)(floats / per_field), nall);
    }
    size_t len = (size_t)s->nl[0] * nz * nall;
    float *row = malloc(len * sizeof *row);
    int rc = row ? 0 : mu_error("out of memory reading --init-file=%s", c->init_file);
    for (int y = 0; y < s->nl[1] && !rc; y++) {
        int64_t off = ((s->lo[1] + y) * c->n[0] + s->lo[0]) * nz * nall;
        if (fseek(f, (long)(off * 4), SEEK_SET) || fread(row, 4, len, f) != len) {
            rc = mu_error("--init-file=%s: read error", c->init_file);
            break;
        }
        for (size_t i = 0; i < len && !rc; i++)
            if (!isfinite(row[i]))
                rc = mu_error("--init-file=%s: value %lld is not finite", c->init_file,
                              (long long)(off + (int64_t)i));
        for (int64_t k = 0; k < (int64_t)s->nl[0] * nz; k++) /* this group's fields */
            memcpy(s->q + adv_idx(s, 0, y, 0) + k * N, row + k * nall + s->f0,
                   (size_t)N * sizeof *row);
    }
    free(row);
    fclose(f);
    return rc;
}

/* The shape of every owned cell, z fastest, then x, y (host threads). */
int adv_init_shape(adv_state *s) {
    const adv_cfg *c = s->cfg;
    int nxl = s->nl[0], nyl = s->nl[1], nz = s->nl[2];
    s->shape = malloc((size_t)nxl * nyl * nz * sizeof *s->shape);
    if (!s->shape) return mu_error("out of memory for the initial shape");
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int y = 0; y < nyl; y++)
        for (int x = 0; x < nxl; x++)
            for (int z = 0; z < nz; z++) {
                int64_t g[3] = {s->lo[0] + x, s->lo[1] + y, z};
                double p[3];
                for (int k = 0; k < 3; k++)
                    p[k] = ((double)g[k] + 0.5) * c->len[k] / (double)c->n[k];
                s->shape[z + (int64_t)nz * (x + (int64_t)nxl * y)] = shape(c, p);
            }
    return 0;
}

/* The fields from the shape, on the host (the CPU path and the error norms). */
int adv_init_fields(adv_state *s) {
    const adv_cfg *c = s->cfg;
    int nxl = s->nl[0], nz = s->nl[2];
#pragma omp parallel for schedule(static) num_threads(s->threads)
    for (int y = 0; y < s->nl[1]; y++)
        for (int x = 0; x < nxl; x++)
            for (int z = 0; z < nz; z++) {
                double v = s->shape[z + (int64_t)nz * (x + (int64_t)nxl * y)];
                float *q = s->q + adv_idx(s, x, y, z);
                for (int f = 0; f < s->N; f++) q[f] = adv_init_value(c, s->f0 + f, v);
            }
    return 0;
}
