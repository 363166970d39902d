/* Fields at chosen steps in one HDF5 file per step, written by every rank in
 * parallel (MPI-IO, collective hyperslabs) to a temporary name that rank 0
 * renames when the file is closed. Dataset /fields: float32 [ny][nx][nz][N]
 * (C order, so N is fastest: the study's layout; each rank writes its
 * block's cells of its group's fields), attributes step and time; rank 0 then
 * writes the XDMF description beside it (xdmf.c).
 * A build without parallel HDF5 (MUTIRAO_HAVE_HDF5 unset) has no writer:
 * adv_hdf5_write is NULL (advect.h). */
#include <stdio.h>
#include <stdlib.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/output.h"
#ifdef MUTIRAO_HAVE_HDF5
#include <hdf5.h>

static int attr(hid_t obj, const char *name, hid_t type, const void *v) {
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    int bad = a < 0 || H5Awrite(a, type, v) < 0;
    if (a >= 0) H5Aclose(a);
    H5Sclose(sp);
    return bad;
}

static int write_hdf5(adv_state *s, const char *path, int64_t step) {
    const adv_cfg *c = s->cfg;
    mu_output o; /* the target resolved, a temporary name unique to the run */
    MU_TRY(mu_output_name_collective(s->comm, &o, path, 1));
    const char *tmp = o.tmp;
    int rank;
    MPI_Comm_rank(s->comm, &rank);
    int N = s->N, nz = s->nl[2];
    int64_t block = (int64_t)N * nz * s->nl[0] * s->nl[1];
    float *mine = malloc((size_t)block * sizeof *mine);
    int64_t row = (int64_t)N * nz * s->nl[0];
    if (mine)
        for (int y = 0; y < s->nl[1]; y++)
            for (int64_t i = 0; i < row; i++) mine[y * row + i] = s->q[adv_idx(s, 0, y, 0) + i];
    int bad = !mine;
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, s->comm, MPI_INFO_NULL);
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    H5Pclose(fapl);
    if (file < 0) bad = 1;
    if (!bad) {
        hsize_t dims[4] = {(hsize_t)c->n[1], (hsize_t)c->n[0], (hsize_t)nz, (hsize_t)s->nall};
        hsize_t start[4] = {(hsize_t)s->lo[1], (hsize_t)s->lo[0], 0, (hsize_t)s->f0};
        hsize_t count[4] = {(hsize_t)s->nl[1], (hsize_t)s->nl[0], (hsize_t)nz, (hsize_t)N};
        hid_t fs = H5Screate_simple(4, dims, NULL), ms = H5Screate_simple(4, count, NULL);
        hid_t ds =
            H5Dcreate2(file, "fields", H5T_NATIVE_FLOAT, fs, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
        H5Sselect_hyperslab(fs, H5S_SELECT_SET, start, NULL, count, NULL);
        hid_t xf = H5Pcreate(H5P_DATASET_XFER);
        H5Pset_dxpl_mpio(xf, H5FD_MPIO_COLLECTIVE);
        if (ds < 0 || H5Dwrite(ds, H5T_NATIVE_FLOAT, ms, fs, xf, mine) < 0) bad = 1;
        double t = (double)step * c->dt;
        long long st = step;
        if (ds >= 0) {
            bad |= attr(ds, "step", H5T_NATIVE_LLONG, &st);
            bad |= attr(ds, "time", H5T_NATIVE_DOUBLE, &t);
            H5Dclose(ds);
        }
        H5Pclose(xf);
        H5Sclose(fs);
        H5Sclose(ms);
    }
    if (file >= 0 && H5Fclose(file) < 0) bad = 1;
    free(mine);
    int rc =
        mu_error_collective(s->comm, bad ? mu_error("'%s': parallel HDF5 write failed", path) : 0);
    if (rank == 0) {
        if (rc)
            mu_output_abort(&o);
        else
            rc = mu_output_commit(&o);
        if (!rc) rc = adv_xdmf_write(s, path, step);
    }
    return mu_error_collective(s->comm, rc);
}
const adv_fields_writer adv_hdf5_write = write_hdf5;
#else
const adv_fields_writer adv_hdf5_write = NULL;
#endif
