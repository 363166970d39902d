#include "maxsub/grid2d.h"
#include "core/error.h"
#include "gpu/maxsub_monoid.h"

/* Bytes each rank sends, by the model of docs/maxsub.md: the ring moves
 * floor(pc/2) blocks of 8 (rows/pr)(cols/pc + 1) bytes; with pr > 1 every
 * pair's 32-byte summary crosses the band reduction once. */
static double comm_bytes(int64_t rows, int64_t cols, int pr, int pc) {
    double block = 8.0 * ((double)rows / pr) * ((double)cols / pc + 1);
    double ring = (double)(pc / 2) * block;
    double sums = pr > 1 ? 32.0 * (double)cols * (double)cols / (2.0 * pc) : 0;
    return ring + sums;
}

/* The best factorization of p ranks (pr * pc == p), or 0 when none fits. */
static int best_bands(int p, int64_t rows, int64_t cols) {
    int best = 0;
    double best_bytes = 0;
    for (int pr = 1; pr <= p; pr++) {
        if (p % pr || pr > rows || p / pr > cols) continue;
        double b = comm_bytes(rows, cols, pr, p / pr);
        if (!best || b < best_bytes) {
            best = pr;
            best_bytes = b;
        }
    }
    return best;
}

int mu_mss2d_grid_shape(int size, int64_t rows, int64_t cols, int bands, int *pr, int *pc) {
    if (bands > size) bands = size; /* one rank: one band */
    if (bands > 0) {
        int64_t used = size;
        if (used > rows * cols) used = rows * cols;
        while (used > 0 && (used % bands || bands > rows || used / bands > cols)) used--;
        if (used < 1)
            return mu_error("--bands=%d: no grid of %d band(s) fits %d rank(s) and a %lld x %lld "
                            "matrix (bands <= rows, ranks / bands <= columns after orienting)",
                            bands, bands, size, (long long)rows, (long long)cols);
        *pr = bands;
        *pc = (int)(used / bands);
        return 0;
    }
    for (int p = size; p >= 1; p--) {
        int b = best_bands(p, rows, cols);
        if (b) {
            *pr = b;
            *pc = p / b;
            return 0;
        }
    }
    return mu_error("internal: no rank grid for a %lld x %lld matrix", (long long)rows,
                    (long long)cols);
}

double mu_mss2d_grid_bytes(int64_t rows, int64_t cols, int pr, int pc, int64_t sums_chunk, int gpu,
                           int raw) {
    double nr = (double)((rows + pr - 1) / pr), w = (double)((cols + pc - 1) / pc);
    double block = 8.0 * nr * (w + 1), values = raw ? 4.0 * nr * w : 0;
    /* The ring receives the next block while a step runs on the current one:
     * two host blocks from two shifts on (a GPU sends its own from a host
     * copy, so two from one shift on), one for a single shift. */
    int nring = pc < 2 ? 0 : (pc >= 4 || gpu) ? 2 : 1;
    double own = gpu ? 0 : block, ring = nring * block;
    double vectors = 8.0 * 4 * (double)rows + 8.0 * 2 * (w + 1);
    double sums = 2.0 * (double)sums_chunk * MU_MSS_TILE * MU_MSS_TILE * 32.0;
    /* The values live only while the prefix columns are built, before the ring's blocks. */
    return own + (values > ring ? values : ring) + vectors + sums;
}

void mu_mss2d_grid_make(MPI_Comm comm, int rank, int64_t rows, int64_t cols, int pr, int pc,
                        mu_mss2d_grid *g) {
    *g = (mu_mss2d_grid){.rows = rows, .cols = cols, .pr = pr, .pc = pc};
    g->in = rank < pr * pc;
    g->r = g->in ? rank / pc : 0;
    g->c = g->in ? rank % pc : 0;
    if (g->in) {
        mu_mss2d_split(rows, pr, g->r, &g->i0, &g->nr);
        mu_mss2d_split(cols, pc, g->c, &g->lo, &g->w);
    }
    MPI_Comm_split(comm, g->in ? g->r : MPI_UNDEFINED, g->c, &g->band);
    MPI_Comm_split(comm, g->in ? g->c : MPI_UNDEFINED, g->r, &g->column);
}

void mu_mss2d_grid_free(mu_mss2d_grid *g) {
    if (g->band != MPI_COMM_NULL) MPI_Comm_free(&g->band);
    if (g->column != MPI_COMM_NULL) MPI_Comm_free(&g->column);
}
