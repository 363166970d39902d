/* The cg workload's MPI parts on any number of ranks: the halo exchange
 * (double and float, ranks with no rows, repeated exchanges), exact sums
 * reduced over ranks (the same bits as one process), and the distributed
 * matrix-vector product against a serial one (the same bits). Usage:
 * test_cg_mpi INPUTS_DIR. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cg/cg.h"
#include "cg/kernels.h"
#include "cg/mmio.h"
#include "cg/poisson.h"
#include "cg/solve.h"
#include "core/error.h"
#include "core/exactsum.h"
#include "mpi/halo.h"
#include "mpi/partition.h"
#include "mu_test.h"

static uint64_t hash64(uint64_t z) {
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double value_at(int64_t g) {
    return (double)(hash64((uint64_t)g) >> 11) / 9007199254740992.0 - 0.5 + (double)g;
}

/* Ghosts: a pseudo-random subset of the rows this rank does not own. */
static void halo_case(MPI_Comm comm, int64_t n, const int64_t *bounds, int density) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int64_t lo = bounds[rank], hi = bounds[rank + 1], nloc = hi - lo;
    int64_t *ghosts = malloc((size_t)(n + 1) * sizeof *ghosts), ng = 0;
    for (int64_t g = 0; g < n; g++)
        if ((g < lo || g >= hi) && (int)(hash64((uint64_t)(g * 31 + rank)) % 100) < density)
            ghosts[ng++] = g;
    mu_halo *h;
    CHECK(mu_halo_create(comm, bounds, ghosts, ng, &h) == 0, "halo create: %s", mu_error_message());
    double *xd = calloc((size_t)(nloc + ng + 1), sizeof *xd);
    float *xf = calloc((size_t)(nloc + ng + 1), sizeof *xf);
    for (int rep = 0; rep < 3; rep++) {
        for (int64_t i = 0; i < nloc; i++) {
            xd[i] = value_at(lo + i) + rep;
            xf[i] = (float)xd[i];
        }
        mu_halo_begin(h, xd, xd + nloc, MU_HALO_DOUBLE);
        mu_halo_end(h);
        mu_halo_begin(h, xf, xf + nloc, MU_HALO_FLOAT);
        mu_halo_end(h);
        for (int64_t k = 0; k < ng; k++) {
            double want = value_at(ghosts[k]) + rep;
            CHECK(xd[nloc + k] == want, "rank %d ghost %lld: %g != %g", rank, (long long)ghosts[k],
                  xd[nloc + k], want);
            CHECK(xf[nloc + k] == (float)want, "rank %d float ghost %lld", rank,
                  (long long)ghosts[k]);
        }
    }
    mu_halo_lists l;
    mu_halo_get_lists(h, &l);
    CHECK(l.nghost == ng, "ghost count");
    int64_t sent = l.nsend, total_sent = 0, total_ghosts = 0;
    MPI_Allreduce(&sent, &total_sent, 1, MPI_INT64_T, MPI_SUM, comm);
    MPI_Allreduce(&ng, &total_ghosts, 1, MPI_INT64_T, MPI_SUM, comm);
    CHECK(total_sent == total_ghosts, "sent %lld values for %lld ghosts", (long long)total_sent,
          (long long)total_ghosts);
    mu_halo_destroy(h);
    free(xd);
    free(xf);
    free(ghosts);
}

static void halo_tests(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    int64_t bounds[64];
    for (int64_t n = 1; n <= 1000; n = n * 7 + 3) {
        for (int r = 0; r <= size; r++) {
            int64_t a, b;
            mu_block_range(n, size, r < size ? r : size - 1, &a, &b);
            bounds[r] = r < size ? a : n;
        }
        halo_case(comm, n, bounds, 30);
        halo_case(comm, n, bounds, 100);
        halo_case(comm, n, bounds, 0);
    }
    /* Uneven blocks with an empty rank in the middle. */
    int64_t n = 500;
    for (int r = 0; r <= size; r++) bounds[r] = (int64_t)r * n / size;
    if (size >= 3) bounds[2] = bounds[1];
    halo_case(comm, n, bounds, 50);
    /* A bad ghost list is reported on every rank. */
    int64_t own = bounds[rank];
    mu_halo *h = NULL;
    int rc = mu_halo_create(comm, bounds, &own, bounds[rank + 1] > bounds[rank] ? 1 : 0, &h);
    int any_rows = n > 0;
    CHECK(!any_rows || rc != 0, "own row accepted as a ghost");
    mu_halo_destroy(h);
}

/* Exact sums: slices over ranks, reduced, equal one process's sum bit for bit. */
static void xsum_tests(MPI_Comm comm) {
    int rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    enum { N = 30011 };
    double *v = malloc(N * sizeof *v);
    for (int i = 0; i < N; i++) {
        uint64_t h = hash64((uint64_t)i);
        v[i] = ldexp((double)(h >> 11) / 9007199254740992.0, (int)(h % 1200) - 600) *
               ((h >> 7) & 1 ? -1 : 1);
    }
    mu_xsum all, mine;
    mu_xsum_zero(&all);
    for (int i = N - 1; i >= 0; i--) mu_xsum_add(&all, v[i]);
    double want = mu_xsum_round(&all, NULL);
    int64_t lo, hi;
    mu_block_range(N, size, size - 1 - rank, &lo, &hi); /* reversed blocks */
    mu_xsum_zero(&mine);
    for (int64_t i = lo; i < hi; i++) mu_xsum_add(&mine, v[i]);
    mu_xsum_allreduce(&mine, 1, comm);
    double got = mu_xsum_round(&mine, NULL);
    CHECK_BITS(got, want); /* the reduced sum */
    free(v);
}

/* y = A x on the distributed matrix equals the serial row sums bit for bit. */
static void spmv_test(MPI_Comm comm, const char *inputs, const char *name, int fp32) {
    mu_app app = {.comm = comm};
    MPI_Comm_rank(comm, &app.rank);
    MPI_Comm_size(comm, &app.size);
    char path[600];
    snprintf(path, sizeof path, "%s/%s", inputs, name);
    cg_block blk;
    cg_matrix A;
    if (cg_load_file(&app, path, 1.0, &blk) || cg_matrix_setup(&app, &blk, &A)) {
        CHECK(0, "%s: %s", name, mu_error_message());
        return;
    }
    cg_mm m;
    CHECK(cg_mm_read(path, &m) == 0, "serial read");
    cg_backend *be;
    CHECK(cg_backend_cpu(&A, fp32, 1, &be) == 0, "backend");
    void *x = be->vec_new(be), *y = be->vec_new(be);
    double *host = malloc((size_t)(A.nloc + 1) * sizeof *host);
    for (int64_t i = 0; i < A.nloc; i++) host[i] = value_at(A.row0 + i) / 100;
    be->vec_set(be, x, host);
    mu_xsum xy;
    mu_xsum_zero(&xy);
    cg_spmv(be, x, y, &xy);
    be->vec_get(be, y, host);
    mu_xsum ref;
    mu_xsum_zero(&ref);
    for (int64_t i = 0; i < m.n; i++) {
        double s = 0, xi = fp32 ? (double)(float)(value_at(i) / 100) : value_at(i) / 100;
        float sf = 0;
        for (int64_t p = m.rowptr[i]; p < m.rowptr[i + 1]; p++) {
            double xj = value_at(m.col[p]) / 100;
            s += m.val[p] * xj;
            sf += (float)m.val[p] * (float)xj;
        }
        double yi = fp32 ? (double)sf : s;
        mu_xsum_add(&ref, xi * yi);
        if (i >= A.row0 && i < A.row0 + A.nloc)
            CHECK(memcmp(&host[i - A.row0], &yi, sizeof yi) == 0, "%s row %lld: %.17g != %.17g",
                  name, (long long)i, host[i - A.row0], yi);
    }
    mu_xsum_allreduce(&xy, 1, comm);
    double a = mu_xsum_round(&xy, NULL), b = mu_xsum_round(&ref, NULL);
    CHECK(memcmp(&a, &b, sizeof a) == 0, "%s x'Ax %.17g != %.17g", name, a, b);
    int64_t rows = A.ninterior + A.nboundary;
    CHECK(rows == A.nloc, "interior + boundary rows");
    free(host);
    be->vec_free(be, x);
    be->vec_free(be, y);
    be->destroy(be);
    cg_mm_free(&m);
    cg_matrix_free(&A);
}

#define SAME_ARRAY(what, a, b, count)                                                              \
    CHECK(memcmp((a), (b), (size_t)(count) * sizeof *(a)) == 0, "%s: %s differs", name, what)

/* The Poisson operator built straight into the working layout equals the
 * generic path (rows with global columns, then setup), array for array. */
static void poisson_direct_case(MPI_Comm comm, int stencil, int64_t nx, int64_t ny, int64_t nz,
                                double scale) {
    mu_app app = {.comm = comm};
    app.dev.cpus = 3; /* three threads, so three row chunks (unless OMP_NUM_THREADS says) */
    app.dev.cpu_sharers = 1;
    MPI_Comm_rank(comm, &app.rank);
    MPI_Comm_size(comm, &app.size);
    char name[96];
    snprintf(name, sizeof name, "poisson %d %lldx%lldx%lld scale %g", stencil, (long long)nx,
             (long long)ny, (long long)nz, scale);
    cg_block blk;
    cg_matrix A, B;
    CHECK(cg_load_poisson(&app, stencil, nx, ny, nz, scale, &blk) == 0, "%s: block", name);
    CHECK(cg_matrix_setup(&app, &blk, &A) == 0, "%s: setup", name);
    CHECK(cg_poisson_matrix(&app, stencil, nx, ny, nz, scale, &B) == 0, "%s: direct", name);
    CHECK(A.n == B.n && A.nnz == B.nnz && A.row0 == B.row0 && A.nloc == B.nloc &&
              A.nnz_loc == B.nnz_loc && A.nghost == B.nghost && A.ninterior == B.ninterior &&
              A.nboundary == B.nboundary,
          "%s: sizes differ", name);
    if (A.nloc != B.nloc || A.nnz_loc != B.nnz_loc || A.nghost != B.nghost ||
        A.ninterior != B.ninterior || A.nboundary != B.nboundary)
        return;
    SAME_ARRAY("bounds", A.bounds, B.bounds, app.size + 1);
    SAME_ARRAY("rowptr", A.rowptr, B.rowptr, A.nloc + 1);
    SAME_ARRAY("columns", A.col, B.col, A.nnz_loc);
    SAME_ARRAY("values", A.val, B.val, A.nnz_loc);
    SAME_ARRAY("diagonal", A.diag, B.diag, A.nloc);
    SAME_ARRAY("ghosts", A.ghost, B.ghost, A.nghost);
    SAME_ARRAY("interior rows", A.interior, B.interior, A.ninterior);
    SAME_ARRAY("boundary rows", A.boundary, B.boundary, A.nboundary);
    mu_halo_lists ha, hb;
    mu_halo_get_lists(A.halo, &ha);
    mu_halo_get_lists(B.halo, &hb);
    CHECK(ha.nsend == hb.nsend, "%s: sends", name);
    if (ha.nsend == hb.nsend) SAME_ARRAY("send list", ha.send_index, hb.send_index, ha.nsend);
    CHECK(cg_matrix_fingerprint(&app, &A) == cg_matrix_fingerprint(&app, &B), "%s: fingerprint",
          name);
    cg_matrix_free(&A);
    cg_matrix_free(&B);
}

static void poisson_direct_tests(MPI_Comm comm) {
    /* Grids thinner than a rank's block and thicker, a rank's block shorter than
     * the stencil's reach, lines and single points, scaled values. */
    poisson_direct_case(comm, CG_POISSON_3D7, 9, 8, 7, 1.0);
    poisson_direct_case(comm, CG_POISSON_3D7, 3, 1, 1, 2.5);
    poisson_direct_case(comm, CG_POISSON_3D7, 1, 1, 6, 1.0);
    poisson_direct_case(comm, CG_POISSON_3D7, 20, 17, 3, 0.3);
    poisson_direct_case(comm, CG_POISSON_2D5, 23, 17, 1, 1.0);
    poisson_direct_case(comm, CG_POISSON_2D5, 2, 1, 1, 7.0);
    poisson_direct_case(comm, CG_POISSON_3D27, 7, 6, 5, 1.0);
    poisson_direct_case(comm, CG_POISSON_3D27, 3, 2, 4, 1e-3);
    poisson_direct_case(comm, CG_POISSON_3D27, 1, 1, 1, 1.0);
}

int main(int argc, char **argv) {
    MPI_Init(&argc, &argv);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (argc < 2) {
        if (rank == 0) fprintf(stderr, "usage: test_cg_mpi INPUTS_DIR\n");
        MPI_Finalize();
        return 2;
    }
    halo_tests(MPI_COMM_WORLD);
    xsum_tests(MPI_COMM_WORLD);
    poisson_direct_tests(MPI_COMM_WORLD);
    const char *names[] = {"LF10.mtx", "nos1.mtx", "494_bus.mtx", "gr_30_30.mtx", "bcsstm25.mtx"};
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        for (int fp32 = 0; fp32 <= 1; fp32++) spmv_test(MPI_COMM_WORLD, argv[1], names[k], fp32);
    const int status = mu_report_all("test_cg_mpi", MPI_COMM_WORLD);
    MPI_Finalize();
    return status;
}
