/* Fields at chosen steps as NetCDF-CF files, one per step, for the tools of
 * atmospheric users (ncview, xarray, ParaView's CF reader). Debian's parallel
 * netCDF is built on OpenMPI, so the blocks go to rank 0, which writes them
 * with the serial library, one block at a time (its memory is one block). The
 * format is CDF-2 (64-bit offset): no HDF5 underneath, so it cannot clash with
 * the parallel HDF5 of --h5 in the same process. Variables field_NNN(time, z,
 * y, x) float32 at the cell centres of the unit-scaled domain (lengths in
 * units of the deck's lx, ly, lz; time in its units, the steps times dt).
 * A build without netCDF (MUTIRAO_HAVE_NETCDF unset) has no writer:
 * adv_netcdf_write is NULL (advect.h). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/output.h"
#include "mpi/wait.h"
#ifdef MUTIRAO_HAVE_NETCDF
#include <netcdf.h>

typedef struct {
    int ncid, time, coord[3], field0; /* variable ids; field f is field0 + f */
    int bad;                          /* the first netCDF status that failed */
} nc_out;

static void nc_check(nc_out *o, int status) {
    if (status != NC_NOERR && !o->bad) o->bad = status;
}

static void put_text(nc_out *o, int var, const char *name, const char *text) {
    nc_check(o, nc_put_att_text(o->ncid, var, name, strlen(text), text));
}

/* Dimensions, coordinates and one float variable a field; rank 0. */
static void define(nc_out *o, const adv_state *s) {
    const adv_cfg *c = s->cfg;
    static const char *axis[3] = {"X", "Y", "Z"}, *name[3] = {"x", "y", "z"};
    int dim[4]; /* time, z, y, x */
    nc_check(o, nc_def_dim(o->ncid, "time", NC_UNLIMITED, &dim[0]));
    for (int a = 0; a < 3; a++) nc_check(o, nc_def_dim(o->ncid, name[a], c->n[a], &dim[3 - a]));
    nc_check(o, nc_def_var(o->ncid, "time", NC_DOUBLE, 1, dim, &o->time));
    put_text(o, o->time, "long_name", "model time (steps times dt)");
    put_text(o, o->time, "units", "1");
    put_text(o, o->time, "axis", "T");
    for (int a = 0; a < 3; a++) {
        nc_check(o, nc_def_var(o->ncid, name[a], NC_DOUBLE, 1, &dim[3 - a], &o->coord[a]));
        put_text(o, o->coord[a], "long_name", a == 2 ? "cell centre, vertical" : "cell centre");
        put_text(o, o->coord[a], "units", "1");
        put_text(o, o->coord[a], "axis", axis[a]);
    }
    for (int f = 0; f < s->nall; f++) {
        char vname[32], lname[64];
        snprintf(vname, sizeof vname, "field_%03d", f);
        snprintf(lname, sizeof lname, "advected tracer %d", f);
        int id;
        nc_check(o, nc_def_var(o->ncid, vname, NC_FLOAT, 4, dim, &id));
        if (f == 0) o->field0 = id;
        put_text(o, id, "long_name", lname);
        put_text(o, id, "units", "1");
    }
    put_text(o, NC_GLOBAL, "Conventions", "CF-1.8");
    put_text(o, NC_GLOBAL, "title", "mutirao advect: Walcek monotone advection");
    put_text(o, NC_GLOBAL, "source", "mutirao " MUTIRAO_VERSION);
    nc_check(o, nc_enddef(o->ncid));
}

/* The coordinate values and the time of this record; rank 0. */
static void coordinates(nc_out *o, const adv_state *s, int64_t step) {
    const adv_cfg *c = s->cfg;
    size_t zero = 0;
    double t = (double)step * c->dt;
    nc_check(o, nc_put_var1_double(o->ncid, o->time, &zero, &t));
    for (int a = 0; a < 3 && !o->bad; a++) {
        double *v = malloc((size_t)c->n[a] * sizeof *v);
        if (!v) {
            o->bad = NC_ENOMEM;
            return;
        }
        for (int64_t i = 0; i < c->n[a]; i++) v[i] = (i + 0.5) * c->len[a] / (double)c->n[a];
        nc_check(o, nc_put_var_double(o->ncid, o->coord[a], v));
        free(v);
    }
}

/* This rank's cells of its group's field f as [z][y][x] (netCDF's order). */
static void pack(const adv_state *s, int f, float *out) {
    int64_t k = 0;
    for (int z = 0; z < s->nl[2]; z++)
        for (int y = 0; y < s->nl[1]; y++)
            for (int x = 0; x < s->nl[0]; x++) out[k++] = s->q[adv_idx(s, x, y, z) + f];
}

/* Where each rank's block lies and which fields it holds, gathered on rank 0:
 * per rank lo x, lo y, n x, n y, first field, fields. */
enum { GEOM = 6 };

static void write_block(nc_out *o, int field0, int f, const int64_t *g, int nz, const float *b) {
    size_t start[4] = {0, 0, (size_t)g[1], (size_t)g[0]};
    size_t count[4] = {1, (size_t)nz, (size_t)g[3], (size_t)g[2]};
    if (!o->bad) nc_check(o, nc_put_vara_float(o->ncid, field0 + f, start, count, b));
}

/* Rank 0 writes field after field; every other rank sends its blocks in the
 * same order, so no pair waits on a third. */
static void move_fields(adv_state *s, nc_out *o, const int64_t *geom, float *block) {
    int rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    int nz = s->nl[2];
    for (int f = 0; f < s->nall; f++) {
        if (rank != 0) {
            if (f < s->f0 || f >= s->f0 + s->N) continue;
            pack(s, f - s->f0, block);
            MPI_Send(block, s->nl[0] * s->nl[1] * nz, MPI_FLOAT, 0, f, s->comm);
            continue;
        }
        for (int r = 0; r < size; r++) {
            const int64_t *g = geom + GEOM * r;
            if (f < g[4] || f >= g[4] + g[5]) continue;
            if (r == 0)
                pack(s, f - s->f0, block);
            else
                MPI_Recv(block, (int)(g[2] * g[3] * nz), MPI_FLOAT, r, f, s->comm,
                         MPI_STATUS_IGNORE);
            write_block(o, o->field0, f, g, nz, block);
        }
    }
}

static int write_netcdf(adv_state *s, const char *path, int64_t step) {
    int rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    int64_t mine[GEOM] = {s->lo[0], s->lo[1], s->nl[0], s->nl[1], s->f0, s->N};
    int64_t *geom = rank == 0 ? malloc((size_t)size * GEOM * sizeof *geom) : NULL;
    int64_t biggest = (int64_t)s->nl[0] * s->nl[1];
    mu_allreduce(&biggest, 1, MPI_INT64_T, MPI_MAX, s->comm);
    float *block = malloc((size_t)(biggest * s->nl[2]) * sizeof *block);
    int rc = biggest * s->nl[2] > INT_MAX
                 ? mu_error("'%s': a rank's block is over 2^31 cells", path)
             : !block || (rank == 0 && !geom) ? mu_error("'%s': out of memory", path)
                                              : 0;
    mu_output out; /* the target resolved, a temporary name unique to the run */
    if (!rc && rank == 0) rc = mu_output_name(&out, path, 1);
    if (mu_error_collective(s->comm, rc)) {
        free(block);
        free(geom);
        return 1;
    }
    MPI_Gather(mine, GEOM, MPI_INT64_T, geom, GEOM, MPI_INT64_T, 0, s->comm);
    const char *tmp = rank == 0 ? out.tmp : "";
    nc_out o = {.bad = 0};
    int created = 0;
    if (rank == 0) {
        nc_check(&o, nc_create(tmp, NC_CLOBBER | NC_64BIT_OFFSET, &o.ncid));
        created = !o.bad;
        if (!o.bad) define(&o, s);
        if (!o.bad) coordinates(&o, s, step);
    }
    move_fields(s, &o, geom, block);
    if (created) nc_check(&o, nc_close(o.ncid));
    if (rank == 0 && o.bad) {
        rc = mu_error("'%s': netCDF: %s", path, nc_strerror(o.bad));
        mu_output_abort(&out);
    } else if (rank == 0) {
        rc = mu_output_commit(&out);
    }
    free(block);
    free(geom);
    return mu_error_collective(s->comm, rc);
}
const adv_fields_writer adv_netcdf_write = write_netcdf;
#else
const adv_fields_writer adv_netcdf_write = NULL;
#endif
