/* A program built on the installed mutirao: each rank builds its rows of the
 * 2-D 5-point Laplacian (4 on the diagonal, -1 to the four neighbours) on an
 * nx x nx grid, takes b = A * ones, and solves with mutirao_cg_solve.
 *   mpiexec -n 3 ./cg_laplace [nx] [device]
 * prints the iterations, the residuals and the largest |x_i - 1|. */
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <mutirao/mutirao.h>
#include "example.h"

int main(int argc, char **argv) {
    int rank, size;
    example_begin(&argc, &argv, &rank, &size);
    int64_t nx = argc > 1 ? atoll(argv[1]) : 64, n = nx * nx;
    int64_t row0 = n * rank / size, nloc = n * (rank + 1) / size - row0;

    int64_t *rowptr = malloc((size_t)(nloc + 1) * sizeof *rowptr);
    int64_t *cols = malloc((size_t)(5 * nloc + 1) * sizeof *cols);
    double *vals = malloc((size_t)(5 * nloc + 1) * sizeof *vals);
    double *b = malloc((size_t)(nloc + 1) * sizeof *b), *x = malloc((size_t)(nloc + 1) * sizeof *x);
    int64_t p = 0;
    for (int64_t r = row0; r < row0 + nloc; r++) {
        int64_t i = r % nx, j = r / nx;
        rowptr[r - row0] = p;
        b[r - row0] = 0;
        int64_t nb[5] = {j > 0 ? r - nx : -1, i > 0 ? r - 1 : -1, r, i < nx - 1 ? r + 1 : -1,
                         j < nx - 1 ? r + nx : -1};
        for (int k = 0; k < 5; k++) {
            if (nb[k] < 0) continue;
            cols[p] = nb[k];
            vals[p] = nb[k] == r ? 4.0 : -1.0;
            b[r - row0] += vals[p++]; /* A * ones */
        }
    }
    rowptr[nloc] = p;

    mutirao_cg_options opt;
    mutirao_cg_options_default(&opt);
    if (argc > 2) opt.device = argv[2];
    mutirao_cg_info info;
    if (mutirao_cg_solve(MPI_COMM_WORLD, n, nloc, rowptr, cols, vals, b, x, &opt, &info)) {
        fprintf(stderr, "cg_laplace: %s\n", mutirao_error_message());
        MPI_Finalize();
        return 1;
    }
    double err = 0, all = 0;
    for (int64_t r = 0; r < nloc; r++) err = fmax(err, fabs(x[r] - 1.0));
    MPI_Reduce(&err, &all, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    if (rank == 0)
        printf("cg_laplace: mutirao %s n=%lld %s iterations=%lld residual=%.3e "
               "true_residual=%.3e max|x-1|=%.3e gpu_ranks=%d\n",
               mutirao_version(), (long long)n, info.converged ? "converged" : "not converged",
               (long long)info.iterations, info.residual, info.true_residual, all, info.gpu_ranks);
    free(rowptr);
    free(cols);
    free(vals);
    free(b);
    free(x);
    MPI_Finalize();
    return info.converged ? 0 : 2;
}
