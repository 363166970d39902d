#include "maxsub/block2d.h"
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "maxsub/gen.h"
#include "maxsub/input.h"

mu_mss2d_segs mu_mss2d_segments(const mu_mss2d_grid *g, int transposed, int64_t i0, int64_t nr,
                                int64_t lo, int64_t w) {
    /* Oriented (i, j) is input value i * cols + j, or transposed j * rows + i. */
    if (transposed) return (mu_mss2d_segs){lo * g->rows + i0, g->rows, w, nr};
    return (mu_mss2d_segs){i0 * g->cols + lo, g->cols, nr, w};
}

static void copy_segments(const int32_t *k, mu_mss2d_segs s, int32_t *out) {
    for (int64_t q = 0; q < s.count; q++)
        memcpy(out + q * s.len, k + s.first + q * s.stride, (size_t)s.len * sizeof *out);
}

/* The block made or read by this rank. */
static int own_segments(const mu_app *app, const mu_maxsub_matrix *m, mu_mss2d_segs s,
                        int32_t *out) {
    char why[256];
    int threads = mu_threads_per_rank(&app->dev, 0, why, sizeof why);
    switch (m->src) {
    case MU_MSS_SRC_ALL:
        copy_segments(m->k, s, out);
        return 0;
    case MU_MSS_SRC_PHILOX:
#pragma omp parallel for schedule(static) num_threads(threads)
        for (int64_t q = 0; q < s.count; q++) {
            int64_t a = s.first + q * s.stride;
            mu_gen_philox(m->spec, a, a + s.len, out + q * s.len);
        }
        return 0;
    case MU_MSS_SRC_THESIS:
        mu_gen_thesis_segments(s.first, s.stride, s.count, s.len, out);
        return 0;
    case MU_MSS_SRC_BIN:
        return mu_in_read_binary_segments(m->path, s.first, s.stride, s.count, s.len, out, threads);
    default:
        return mu_error("internal: 2-D source %d has no blocks of its own", (int)m->src);
    }
}

/* Rank 0 cuts every rank's block from its whole matrix and sends it. */
static int scatter_blocks(const mu_app *app, const mu_maxsub_matrix *m, const mu_mss2d_grid *g,
                          int transposed, int32_t *seg) {
    int64_t most = 0;
    for (int q = 0; q < g->pr * g->pc; q++) {
        int64_t i0, nr, lo, w;
        mu_mss2d_split(g->rows, g->pr, q / g->pc, &i0, &nr);
        mu_mss2d_split(g->cols, g->pc, q % g->pc, &lo, &w);
        if (nr * w > most) most = nr * w;
    }
    int32_t *tmp = NULL;
    int rc = 0;
    if (app->rank == 0 && most > INT_MAX)
        rc = mu_error("a text matrix block of %lld values is too large to send; use a binary "
                      "input",
                      (long long)most);
    else if (app->rank == 0 && !(tmp = malloc((size_t)most * sizeof *tmp)))
        rc = mu_error("out of memory for a block of %lld values", (long long)most);
    MU_TRY(mu_error_collective(app->comm, rc));
    if (app->rank == 0) {
        for (int q = 1; q < g->pr * g->pc; q++) {
            int64_t i0, nr, lo, w;
            mu_mss2d_split(g->rows, g->pr, q / g->pc, &i0, &nr);
            mu_mss2d_split(g->cols, g->pc, q % g->pc, &lo, &w);
            copy_segments(m->k, mu_mss2d_segments(g, transposed, i0, nr, lo, w), tmp);
            MPI_Send(tmp, (int)(nr * w), MPI_INT32_T, q, 0, app->comm);
        }
        copy_segments(m->k, mu_mss2d_segments(g, transposed, g->i0, g->nr, g->lo, g->w), seg);
    } else if (g->in) {
        MPI_Recv(seg, (int)(g->nr * g->w), MPI_INT32_T, 0, 0, app->comm, MPI_STATUS_IGNORE);
    }
    free(tmp);
    return 0;
}

int mu_mss2d_load(const mu_app *app, const mu_maxsub_matrix *m, const mu_mss2d_grid *g,
                  int transposed, int32_t *seg) {
    if (m->src == MU_MSS_SRC_ROOT) return scatter_blocks(app, m, g, transposed, seg);
    int rc = 0;
    if (g->in && seg)
        rc = own_segments(app, m, mu_mss2d_segments(g, transposed, g->i0, g->nr, g->lo, g->w), seg);
    return mu_error_collective(app->comm, rc);
}

void mu_mss2d_prefix_rows(const int32_t *seg, int64_t nr, int64_t w, int transposed, int64_t *V,
                          int64_t *tot, int64_t *abs) {
    const int64_t ld = w + 1;
    for (int64_t i = 0; i < nr; i++) {
        int64_t *v = V + i * ld, s = 0, a = 0;
        v[0] = 0;
        for (int64_t j = 0; j < w; j++) {
            int64_t x = transposed ? seg[j * nr + i] : seg[i * w + j];
            s += x;
            a += x < 0 ? -x : x;
            v[j + 1] = s;
        }
        tot[i] = s;
        abs[i] = a;
    }
}

int mu_mss2d_band_scan(const mu_mss2d_grid *g, int64_t *scratch, int64_t *B) {
    const int64_t nr = g->nr;
    int64_t *tot = scratch, *off = tot + nr, *abs = off + nr, *absall = abs + nr;
    memset(off, 0, (size_t)nr * sizeof *off);
    MPI_Exscan(tot, off, (int)nr, MPI_INT64_T, MPI_SUM, g->band);
    MPI_Allreduce(abs, absall, (int)nr, MPI_INT64_T, MPI_SUM, g->band);
    *B = 0;
    for (int64_t i = 0; i < nr; i++)
        if (absall[i] > *B) *B = absall[i];
    return g->c > 0; /* the first block's offsets are zero (Exscan leaves them undefined) */
}

void mu_mss2d_prefix_block(const mu_mss2d_grid *g, const int32_t *seg, int transposed, int64_t *V,
                           int64_t *scratch, int64_t *B) {
    const int64_t nr = g->nr, w = g->w, ld = w + 1;
    int64_t *tot = scratch, *off = tot + nr, *abs = off + nr;
    mu_mss2d_prefix_rows(seg, nr, w, transposed, V, tot, abs);
    if (mu_mss2d_band_scan(g, scratch, B))
        for (int64_t i = 0; i < nr; i++)
            for (int64_t j = 0; j <= w; j++) V[i * ld + j] += off[i];
}
