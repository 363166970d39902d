/* The global fields on rank 0 (gathered block by block in rank order and
 * placed by coordinates), the raw dump and the checkpoint. A checkpoint is a
 * header (magic, nx, ny, nz, N, step) and the fields in the global layout, so
 * a restart may use another number of ranks; every rank reads its own block. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/output.h"

static const char magic[8] = "MUADV01";

int adv_gather(adv_state *s, float **global_out) {
    const adv_cfg *c = s->cfg;
    int N = s->N, nz = s->nl[2], rank, size;
    MPI_Comm_rank(s->cart.comm, &rank);
    MPI_Comm_size(s->cart.comm, &size);
    int64_t block = (int64_t)N * nz * s->nl[0] * s->nl[1];
    float *mine = malloc((size_t)block * sizeof *mine), *all = NULL, *global = NULL;
    int rc = mine ? 0 : 1;
    if (!rc && rank == 0) {
        all = malloc((size_t)(block * size) * sizeof *all);
        global = malloc((size_t)(N * c->n[0] * c->n[1] * c->n[2]) * sizeof *global);
        rc = !all || !global;
    }
    if (mu_error_collective(s->cart.comm,
                            rc ? mu_error("out of memory gathering the fields") : 0)) {
        free(mine);
        free(all);
        free(global);
        return 1;
    }
    int64_t row = (int64_t)N * nz * s->nl[0];
    for (int y = 0; y < s->nl[1]; y++)
        memcpy(mine + y * row, s->q + adv_idx(s, 0, y, 0), (size_t)row * sizeof *mine);
    MPI_Gather(mine, (int)block, MPI_FLOAT, all, (int)block, MPI_FLOAT, 0, s->cart.comm);
    if (rank == 0) {
        for (int r = 0; r < size; r++) {
            int co[MU_CART_MAXDIM];
            MPI_Cart_coords(s->cart.comm, r, 2, co);
            for (int y = 0; y < s->nl[1]; y++) {
                int64_t gy = (int64_t)co[1] * s->nl[1] + y, gx = (int64_t)co[0] * s->nl[0];
                memcpy(global + (gy * c->n[0] + gx) * nz * N, all + r * block + y * row,
                       (size_t)row * sizeof *global);
            }
        }
    }
    free(mine);
    free(all);
    *global_out = global;
    return 0;
}

static int write_global(adv_state *s, const char *path, int header) {
    float *g = NULL;
    MU_TRY(adv_gather(s, &g));
    int rank;
    MPI_Comm_rank(s->cart.comm, &rank);
    int rc = 0;
    if (rank == 0) {
        const adv_cfg *c = s->cfg;
        mu_output out;
        rc = mu_output_open(&out, path);
        if (!rc) {
            int64_t total = (int64_t)s->N * c->n[0] * c->n[1] * c->n[2];
            if (header) {
                int64_t h[5] = {c->n[0], c->n[1], c->n[2], s->N, s->step};
                fwrite(magic, 1, sizeof magic, out.f);
                fwrite(h, sizeof h[0], 5, out.f);
            }
            if (fwrite(g, sizeof *g, (size_t)total, out.f) != (size_t)total) {
                mu_output_abort(&out);
                rc = mu_error("'%s': write error", path);
            } else {
                rc = mu_output_commit(&out);
            }
        }
    }
    free(g);
    return mu_error_collective(s->cart.comm, rc);
}

int adv_write_raw(adv_state *s, const char *path) {
    return write_global(s, path, 0);
}
int adv_checkpoint_write(adv_state *s, const char *path) {
    return write_global(s, path, 1);
}

int adv_checkpoint_read(adv_state *s, const char *path) {
    const adv_cfg *c = s->cfg;
    int N = s->N, nz = s->nl[2];
    FILE *f = fopen(path, "rb");
    int rc = 0;
    char m[8];
    int64_t h[5];
    if (!f) {
        rc = mu_error("--restart=%s: cannot open it", path);
    } else if (fread(m, 1, 8, f) != 8 || memcmp(m, magic, 8) || fread(h, sizeof h[0], 5, f) != 5) {
        rc = mu_error("--restart=%s: not an advect checkpoint", path);
    } else if (h[0] != c->n[0] || h[1] != c->n[1] || h[2] != c->n[2] || h[3] != N) {
        rc = mu_error("--restart=%s: written for nx=%lld ny=%lld nz=%lld fields=%lld, the deck "
                      "has %lld %lld %lld %d",
                      path, (long long)h[0], (long long)h[1], (long long)h[2], (long long)h[3],
                      (long long)c->n[0], (long long)c->n[1], (long long)c->n[2], N);
    } else if (h[4] < 0 || h[4] > c->steps) {
        rc = mu_error("--restart=%s: at step %lld, beyond --steps=%lld", path, (long long)h[4],
                      (long long)c->steps);
    }
    for (int y = 0; y < s->nl[1] && !rc; y++) {
        long off = 8 + 5 * 8 + (long)(((s->lo[1] + y) * c->n[0] + s->lo[0]) * nz * N) * 4;
        size_t len = (size_t)s->nl[0] * nz * N;
        if (fseek(f, off, SEEK_SET) || fread(s->q + adv_idx(s, 0, y, 0), 4, len, f) != len)
            rc = mu_error("--restart=%s: truncated", path);
    }
    if (f) fclose(f);
    if (!rc) s->step = h[4];
    return mu_error_collective(s->cart.comm, rc);
}
