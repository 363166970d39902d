/* The rank grid of the distributed 2-D maximum submatrix: Pr row bands x Pc
 * column blocks of the oriented matrix (rows >= cols). Rank q = r * Pc + c
 * holds rows [i0, i0 + nr) and prefix columns [lo, lo + w] of the row-prefix
 * table; ranks past Pr * Pc (only for matrices with fewer elements than
 * ranks) hold nothing. See docs/maxsub.md. */
#ifndef MU_MAXSUB_GRID2D_H
#define MU_MAXSUB_GRID2D_H
#include <mpi.h>
#include <stdint.h>

typedef struct {
    int64_t rows, cols; /* oriented */
    int pr, pc;         /* bands, blocks */
    int r, c, in;       /* this rank's band and block; in: 0 for a rank outside the grid */
    int64_t i0, nr;     /* this rank's rows */
    int64_t lo, w;      /* this rank's columns */
    MPI_Comm band;      /* the ranks of band r, in block order (MPI_COMM_NULL outside) */
    MPI_Comm column;    /* the ranks of block c, in band order (MPI_COMM_NULL outside) */
} mu_mss2d_grid;

/* Start and size of part k of n split in p nearly equal parts. */
static inline void mu_mss2d_split(int64_t n, int p, int k, int64_t *start, int64_t *size) {
    *start = n * k / p;
    *size = n * (k + 1) / p - *start;
}

/* The grid's shape for size ranks over an oriented rows x cols matrix: bands
 * (0: automatic; else at most size, and it must divide a usable rank count) into *pr, *pc.
 * Automatic: the most ranks that fit (Pc <= cols, Pr <= rows), and of their
 * factorizations the one of least communication per rank (the ring's blocks
 * against the bands' summaries), fewer bands on a tie. 0, or 1 with mu_error(). */
int mu_mss2d_grid_shape(int size, int64_t rows, int64_t cols, int bands, int *pr, int *pc);

/* The host bytes a rank of the grid needs at its peak (estimate; sums_chunk:
 * the tiles of summaries a band reduction carries, 0 when pr == 1; gpu: the
 * rank keeps its own block on its device; raw: its values pass through the
 * host, which a GPU making Philox values avoids). */
double mu_mss2d_grid_bytes(int64_t rows, int64_t cols, int pr, int pc, int64_t sums_chunk, int gpu,
                           int raw);

/* The grid of this rank (collective over comm: splits the communicators). */
void mu_mss2d_grid_make(MPI_Comm comm, int rank, int64_t rows, int64_t cols, int pr, int pc,
                        mu_mss2d_grid *g);
void mu_mss2d_grid_free(mu_mss2d_grid *g);

#endif
