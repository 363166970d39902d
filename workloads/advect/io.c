/* The global fields on rank 0 (gathered block by block in rank order and
 * placed by field group and coordinates), the raw dump and the checkpoint. A checkpoint is a
 * header (magic, nx, ny, nz, N, step) and the fields in the global layout, so
 * a restart may use another number of ranks; every rank reads its own block. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/infile.h"
#include "core/output.h"

static const char magic[8] = "MUADV01";

/* Where world rank r's block lies: its group's fields [*f0, *f0 + *nf) and
 * its block's first cells (X, Y). Groups are runs of consecutive ranks with
 * the same process grid, so r's coordinates are those of its group rank. */
static void block_of(const adv_state *s, int r, int *f0, int *nf, int64_t lo[2]) {
    int b = s->cart.dims[0] * s->cart.dims[1], gid = r / b, co[MU_CART_MAXDIM];
    MPI_Cart_coords(s->cart.comm, r % b, 2, co);
    *f0 = adv_group_first(s->nall, s->pf, gid);
    *nf = adv_group_first(s->nall, s->pf, gid + 1) - *f0;
    lo[0] = (int64_t)co[0] * s->nl[0];
    lo[1] = (int64_t)co[1] * s->nl[1];
}

/* Places rank r's owned cells (its fields, cell by cell) in the global layout. */
static void place(const adv_state *s, int r, const float *blk, float *global) {
    int f0, nf, nz = s->nl[2];
    int64_t lo[2];
    block_of(s, r, &f0, &nf, lo);
    const adv_cfg *c = s->cfg;
    for (int y = 0; y < s->nl[1]; y++)
        for (int64_t k = 0; k < (int64_t)s->nl[0] * nz; k++) {
            int64_t cell = ((lo[1] + y) * c->n[0] + lo[0]) * nz + k;
            memcpy(global + cell * s->nall + f0, blk + ((int64_t)y * s->nl[0] * nz + k) * nf,
                   (size_t)nf * sizeof *global);
        }
}

int adv_gather(adv_state *s, float **global_out) {
    const adv_cfg *c = s->cfg;
    int N = s->N, nz = s->nl[2], rank, size;
    MPI_Comm_rank(s->comm, &rank);
    MPI_Comm_size(s->comm, &size);
    int64_t block = (int64_t)N * nz * s->nl[0] * s->nl[1], cells = block / N;
    int64_t total = (int64_t)s->nall * c->n[0] * c->n[1] * c->n[2];
    float *mine = malloc((size_t)block * sizeof *mine), *all = NULL, *global = NULL;
    int *counts = NULL, *displs = NULL;
    int rc = mine ? 0 : 1;
    if (!rc && rank == 0) {
        all = malloc((size_t)total * sizeof *all);
        global = malloc((size_t)total * sizeof *global);
        counts = malloc((size_t)size * 2 * sizeof *counts);
        displs = counts + size;
        rc = !all || !global || !counts;
    }
    if (!rc && total > INT32_MAX)
        rc =
            mu_error("%lld values to gather on one rank: over MPI's count limit", (long long)total);
    else if (rc)
        rc = mu_error("out of memory gathering the fields");
    if (mu_error_collective(s->comm, rc)) {
        free(mine);
        free(all);
        free(global);
        free(counts);
        return 1;
    }
    int64_t row = (int64_t)N * nz * s->nl[0];
    for (int y = 0; y < s->nl[1]; y++)
        memcpy(mine + y * row, s->q + adv_idx(s, 0, y, 0), (size_t)row * sizeof *mine);
    if (rank == 0)
        for (int r = 0, at = 0; r < size; r++) {
            int f0, nf;
            int64_t lo[2];
            block_of(s, r, &f0, &nf, lo);
            counts[r] = (int)(cells * nf);
            displs[r] = at;
            at += counts[r];
        }
    MPI_Gatherv(mine, (int)block, MPI_FLOAT, all, counts, displs, MPI_FLOAT, 0, s->comm);
    if (rank == 0)
        for (int r = 0; r < size; r++) place(s, r, all + displs[r], global);
    free(mine);
    free(all);
    free(counts);
    *global_out = global;
    return 0;
}

static int write_global(adv_state *s, const char *path, int header) {
    float *g = NULL;
    MU_TRY(adv_gather(s, &g));
    int rank;
    MPI_Comm_rank(s->comm, &rank);
    int rc = 0;
    if (rank == 0) {
        const adv_cfg *c = s->cfg;
        mu_output out;
        rc = mu_output_open(&out, path);
        if (!rc) {
            int64_t total = (int64_t)s->nall * c->n[0] * c->n[1] * c->n[2];
            if (header) {
                int64_t h[5] = {c->n[0], c->n[1], c->n[2], s->nall, s->step};
                fwrite(magic, 1, sizeof magic, out.f);
                fwrite(h, sizeof h[0], 5, out.f);
            }
            if (fwrite(g, sizeof *g, (size_t)total, out.f) != (size_t)total ||
                (header && mu_output_sync(&out))) {
                mu_output_abort(&out);
                rc = mu_error("'%s': write error", path);
            } else {
                rc = mu_output_commit(&out);
            }
        }
    }
    free(g);
    return mu_error_collective(s->comm, rc);
}

int adv_write_raw(adv_state *s, const char *path) {
    return write_global(s, path, 0);
}
int adv_checkpoint_write(adv_state *s, const char *path) {
    return write_global(s, path, 1);
}

/* Every rank reads its own block's rows and keeps its group's fields, so a
 * restart may use another decomposition (groups, blocks, ranks). */
int adv_checkpoint_read(adv_state *s, const char *path) {
    const adv_cfg *c = s->cfg;
    int nall = s->nall, nz = s->nl[2];
    int64_t size = 0, want = 8 + 5 * 8 + 4 * (int64_t)nall * c->n[0] * c->n[1] * c->n[2];
    FILE *f = mu_infile_open(path, "checkpoint", &size);
    int rc = 0;
    char m[8];
    int64_t h[5];
    if (!f) {
        rc = 1;
    } else if (fread(m, 1, 8, f) != 8 || memcmp(m, magic, 8) || fread(h, sizeof h[0], 5, f) != 5) {
        rc = mu_error("--restart=%s: not an advect checkpoint", path);
    } else if (h[0] != c->n[0] || h[1] != c->n[1] || h[2] != c->n[2] || h[3] != nall) {
        rc = mu_error("--restart=%s: written for nx=%lld ny=%lld nz=%lld fields=%lld, the deck "
                      "has %lld %lld %lld %d",
                      path, (long long)h[0], (long long)h[1], (long long)h[2], (long long)h[3],
                      (long long)c->n[0], (long long)c->n[1], (long long)c->n[2], nall);
    } else if (h[4] < 0 || h[4] > c->steps) {
        rc = mu_error("--restart=%s: at step %lld, beyond --steps=%lld", path, (long long)h[4],
                      (long long)c->steps);
    } else if (size != want) { /* a cut or padded file: every rank sees it, not just some */
        rc = mu_error("--restart=%s: %lld bytes, want %lld for this grid (truncated or not a "
                      "checkpoint)",
                      path, (long long)size, (long long)want);
    }
    size_t len = (size_t)s->nl[0] * nz * nall;
    float *row = rc ? NULL : malloc(len * sizeof *row);
    if (!rc && !row) rc = mu_error("out of memory reading --restart=%s", path);
    for (int y = 0; y < s->nl[1] && !rc; y++) {
        long off = 8 + 5 * 8 + (long)(((s->lo[1] + y) * c->n[0] + s->lo[0]) * nz * nall) * 4;
        if (fseek(f, off, SEEK_SET) || fread(row, 4, len, f) != len)
            rc = mu_error("--restart=%s: truncated", path);
        for (size_t i = 0; i < len && !rc; i++)
            if (!isfinite(row[i]))
                rc = mu_error("--restart=%s: value %lld is not finite", path,
                              (long long)((off - 48) / 4 + (long)i));
        if (!rc)
            for (int64_t k = 0; k < (int64_t)s->nl[0] * nz; k++)
                memcpy(s->q + adv_idx(s, 0, y, 0) + k * s->N, row + k * nall + s->f0,
                       (size_t)s->N * sizeof *row);
    }
    free(row);
    if (f) fclose(f);
    if (!rc) s->step = h[4];
    return mu_error_collective(s->comm, rc);
}
