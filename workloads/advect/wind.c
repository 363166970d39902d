/* Face winds and densities, evaluated from the global cell index so that every
 * rank, whatever its block, computes the same bits for the same face. The
 * horizontal winds of rotation and swirl come from a stream function sampled
 * at cell corners, so their discrete divergence is zero up to rounding. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/infile.h"

static float *file_wind; /* 3 arrays nz x nx x ny (z fastest), or NULL */
/* The stream function at the cell corners (i dx, j dy), (nx + 1) x (ny + 1),
 * i fastest, made once a run: the winds read it instead of evaluating it. */
static double *psi_corner;

static double psi(const adv_cfg *c, double x, double y) {
    if (c->wind == ADV_WIND_ROTATION) {
        double om = 2 * ADV_PI / c->period, dx = x - 0.5 * c->len[0], dy = y - 0.5 * c->len[1];
        return -0.5 * om * (dx * dx + dy * dy);
    }
    /* LeVeque's swirling deformation (its time factor: adv_wind_factor). */
    double sx = sin(ADV_PI * x / c->len[0]), sy = sin(ADV_PI * y / c->len[1]);
    return c->len[1] / ADV_PI * sx * sx * sy * sy;
}

int adv_wind_steady(const adv_cfg *c) {
    return c->wind != ADV_WIND_SWIRL; /* the swirl reverses at t = period / 2 */
}

double adv_wind_factor(const adv_cfg *c, double t) {
    return adv_wind_steady(c) ? 1.0 : cos(ADV_PI * t / c->period);
}

double adv_wind(const adv_cfg *c, int axis, int64_t gx, int64_t gy, int64_t gz) {
    double d[3];
    for (int k = 0; k < 3; k++) d[k] = c->len[k] / (double)c->n[k];
    switch (c->wind) {
    case ADV_WIND_CONSTANT:
        return c->u0[axis];
    case ADV_WIND_FILE:
        return file_wind[(int64_t)axis * c->n[0] * c->n[1] * c->n[2] + gz +
                         c->n[2] * (gx + c->n[0] * gy)];
    case ADV_WIND_DIVERGENT: {
        double a = c->u0[0];
        double xf = (double)(gx + 1) * d[0], yf = (double)(gy + 1) * d[1],
               zf = (double)(gz + 1) * d[2];
        double xc = ((double)gx + 0.5) * d[0], yc = ((double)gy + 0.5) * d[1];
        if (axis == 0)
            return a * sin(2 * ADV_PI * xf / c->len[0]) *
                   (1 + 0.5 * cos(2 * ADV_PI * yc / c->len[1]));
        if (axis == 1)
            return a * sin(2 * ADV_PI * yf / c->len[1]) *
                   (1 + 0.5 * cos(2 * ADV_PI * xc / c->len[0]));
        return a * sin(2 * ADV_PI * zf / c->len[2]);
    }
    default:
        break;
    }
    if (axis == 2) return c->u0[2];
    if (psi_corner) {
        const double *at = psi_corner + (gx + 1) + (c->n[0] + 1) * (gy + 1);
        if (axis == 0) return (at[0] - at[-(c->n[0] + 1)]) / d[1];
        return -(at[0] - at[-1]) / d[0];
    }
    double x1 = (double)(gx + 1) * d[0], y1 = (double)(gy + 1) * d[1];
    if (axis == 0) return (psi(c, x1, y1) - psi(c, x1, (double)gy * d[1])) / d[1];
    return -(psi(c, x1, y1) - psi(c, (double)gx * d[0], y1)) / d[0];
}

/* Which global cell indices (x, y, z) the steady wind along axis depends on. */
static void wind_depends(const adv_cfg *c, int axis, int dep[3]) {
    int horiz = axis < 2 && c->wind != ADV_WIND_CONSTANT;
    dep[0] = dep[1] = horiz || c->wind == ADV_WIND_FILE;
    dep[2] = c->wind == ADV_WIND_FILE || (axis == 2 && c->wind == ADV_WIND_DIVERGENT);
}

int adv_wind_table(const adv_cfg *c, int axis, double **tab, int64_t *entries, int64_t stride[3]) {
    int dep[3];
    wind_depends(c, axis, dep);
    int64_t ext[3], n = 1;
    for (int k = 2; k >= 0; k--) { /* z fastest, then x, then y: the cells' order */
        int d = k == 2 ? 2 : k == 1 ? 0 : 1;
        ext[d] = dep[d] ? c->n[d] : 1;
        stride[d] = dep[d] ? n : 0;
        n *= ext[d];
    }
    *entries = n;
    *tab = malloc((size_t)n * sizeof **tab);
    if (!*tab) return mu_error("out of memory for the winds' table");
    for (int64_t y = 0; y < ext[1]; y++)
        for (int64_t x = 0; x < ext[0]; x++)
            for (int64_t z = 0; z < ext[2]; z++)
                (*tab)[x * stride[0] + y * stride[1] + z * stride[2]] = adv_wind(c, axis, x, y, z);
    return 0;
}

/* The corner table of rotation and swirl: the same values psi() gives there. */
static int corner_table(const adv_cfg *c) {
    int64_t nx = c->n[0] + 1, ny = c->n[1] + 1;
    psi_corner = malloc((size_t)(nx * ny) * sizeof *psi_corner);
    if (!psi_corner) return mu_error("out of memory for the winds' stream function");
    double dx = c->len[0] / (double)c->n[0], dy = c->len[1] / (double)c->n[1];
    for (int64_t j = 0; j < ny; j++)
        for (int64_t i = 0; i < nx; i++)
            psi_corner[i + nx * j] = psi(c, (double)i * dx, (double)j * dy);
    return 0;
}

double adv_rho(const adv_cfg *c, int64_t gz) {
    if (!c->stratified) return 1.0;
    return exp(-((double)gz + 0.5) * c->len[2] / (double)c->n[2] / c->scale_height);
}

int adv_wind_load(const adv_cfg *c, MPI_Comm comm) {
    (void)comm;
    if (c->wind == ADV_WIND_ROTATION || c->wind == ADV_WIND_SWIRL) return corner_table(c);
    if (c->wind != ADV_WIND_FILE) return 0;
    int64_t cells = c->n[0] * c->n[1] * c->n[2], size;
    FILE *f = mu_infile_open(c->wind_file, "--wind-file", &size);
    if (!f) return 1;
    /* The size first: the grid claims the memory, the file must hold it. */
    if (size != 3 * cells * (int64_t)sizeof *file_wind) {
        fclose(f);
        return mu_error("--wind-file=%s: %lld bytes, want %lld: 3 x %lld float32 values (u, v, w "
                        "on the right faces of nz x nx x ny cells, z fastest)",
                        c->wind_file, (long long)size,
                        (long long)(3 * cells * (int64_t)sizeof *file_wind), (long long)cells);
    }
    file_wind = malloc((size_t)(3 * cells) * sizeof *file_wind);
    if (!file_wind) {
        fclose(f);
        return mu_error("out of memory for the wind file");
    }
    size_t got = fread(file_wind, sizeof *file_wind, (size_t)(3 * cells), f);
    fclose(f);
    if (got != (size_t)(3 * cells))
        return mu_error("--wind-file=%s: read error after %zu of %lld floats (file changed?)",
                        c->wind_file, got, (long long)(3 * cells));
    for (int64_t i = 0; i < 3 * cells; i++)
        if (!isfinite(file_wind[i]))
            return mu_error("--wind-file=%s: value %lld is not finite", c->wind_file, (long long)i);
    return 0;
}

void adv_wind_free(void) {
    free(file_wind);
    file_wind = NULL;
    free(psi_corner);
    psi_corner = NULL;
}
