/* petsc_cg: the PETSc reference for `mutirao cg`.
 *
 * A separate program, built against Debian's PETSc 3.18 (which is built on
 * OpenMPI, so this program is an OpenMPI program: run it with
 * `mpirun.openmpi --allow-run-as-root --oversubscribe -n N`, never with MPICH's
 * mpiexec). It solves the same problem as `mutirao cg` with KSPCG:
 *
 *   petsc_cg --matrix=FILE.mtx[.gz] | --poisson=2d5|3d7|3d27 --nx=N [--ny=N] [--nz=N]
 *            [--rhs=ones|Aones] [--pc=none|jacobi] [--rtol=1e-8] [--atol=0]
 *            [--max-it=10000] [--output=x.txt] [--summary=run.json]
 *            [--compare=x_other.txt] [--cond=1] [--repeat=N] [-ksp_... PETSc options]
 *
 * The problem, the same as mutirao's:
 *  - Matrix Market files, read by mutirao's own reader (workloads/cg/mmio.c: the same
 *    formats, checks and messages as `mutirao cg`; .gz read directly; duplicates
 *    summed; symmetric files mirrored). Rank 0 reads the file and hands every
 *    entry to MatSetPreallocationCOO/MatSetValuesCOO, which send each entry to the
 *    rank owning its row: no rank but 0 ever holds the whole matrix.
 *  - Generated Poisson operators, natural ordering with x fastest
 *    (row = x + nx*(y + ny*z)), Dirichlet boundary (neighbours outside dropped):
 *    2d5: 4 on the diagonal, -1 for the 4 neighbours; 3d7: 6 and -1 for 6;
 *    3d27: HPCG's, 26 on the diagonal and -1 for each of the up to 26 neighbours.
 *    Each rank builds only its own rows.
 *  - Right-hand side: ones (b = 1) or Aones (b = A*1, exact solution all ones).
 *    `random` is mutirao's Philox stream and is not reproduced here.
 *  - x0 = 0 (KSPSetInitialGuessNonzero false).
 *
 * The solver: KSPCG with PCNONE or PCJACOBI, KSP_NORM_UNPRECONDITIONED, so the
 * norm tested is ||r_k||_2 of the recursively updated unpreconditioned residual.
 * Stopping test (KSPConvergedDefault, PETSc 3.18 src/ksp/ksp/interface/iterativ.c):
 * at iteration 0 with a zero initial guess it sets ttol = max(rtol*||r_0||, atol),
 * and r_0 = b exactly (KSPInitialResidual copies b when the guess is zero), so
 * ttol = max(rtol*||b||_2, atol); iteration k converges when ||r_k|| <= ttol.
 * That is mutirao's test. The divergence test (||r_k|| >= dtol*||b||, default
 * dtol 1e5) has no counterpart in mutirao and is switched off (dtol = 1e300).
 * The iteration count is PETSc's: the number of matrix-vector products after
 * r_0 = b, i.e. k for the first k with ||r_k|| <= ttol.
 * PETSc options given with one dash (-ksp_monitor, -log_view, -ksp_view...) are
 * applied after these settings and may override them.
 *
 * Reported: iterations, converged and PETSc's reason, the final recursive
 * residual norm, the true residual ||b - A x||/||b|| recomputed after the solve,
 * the error against x = 1 for Aones, and the time per iteration (KSPSolve wall
 * time over the iterations; with --repeat=N the best of N solves). --output
 * writes x, one %.17g per line (as mutirao's --output); --summary writes a JSON
 * summary; --compare=FILE reads another solution (same format) and reports its
 * true residual and its difference from PETSc's, which is how the tests check
 * mutirao's answer; --cond=1 reports PETSc's Lanczos estimates of the extreme
 * eigenvalues of the preconditioned operator.
 */
#include <petscksp.h>
#include <stdarg.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>
#include "cg/mmio.h"
#include "core/message.h"

#define ERRLEN 1024

typedef struct {
    const char *matrix, *poisson, *rhs, *pc, *output, *summary, *compare;
    PetscInt nx, ny, nz;
    double rtol, atol;
    PetscInt max_it, repeat;
    int cond, help;
} options;

/* ---- messages ----------------------------------------------------------------- */

static char errmsg[ERRLEN];

static int fail(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(errmsg, sizeof errmsg, fmt, ap);
    va_end(ap);
    return 1;
}

static void usage(FILE *f) {
    fprintf(f,
            "petsc_cg: PETSc KSPCG reference for mutirao cg (PETSc %d.%d.%d)\n\n"
            "usage: mpirun.openmpi -n N petsc_cg --matrix=FILE.mtx[.gz] | --poisson=KIND "
            "--nx=N [--ny=N] [--nz=N] [options] [-petsc_option ...]\n\n"
            "  --matrix=FILE        Matrix Market coordinate file (real/integer/pattern,\n"
            "                       general/symmetric; .gz read directly)\n"
            "  --poisson=KIND       2d5 | 3d7 | 3d27 (HPCG 26/-1), natural order, x fastest\n"
            "  --nx, --ny, --nz     grid size (ny and nz default to nx; nz is 1 for 2d5)\n"
            "  --rhs=ones|Aones     b = 1, or b = A*1 (solution all ones) [Aones]\n"
            "  --pc=none|jacobi     preconditioner [none]\n"
            "  --rtol, --atol       stop when ||r||_2 <= max(rtol*||b||_2, atol) [1e-8, 0]\n"
            "  --max-it=N           iteration limit [10000]\n"
            "  --output=FILE        the solution, one %%.17g per line\n"
            "  --summary=FILE.json  JSON summary of the run\n"
            "  --compare=FILE       another solution: report its true residual and its\n"
            "                       difference from this one\n"
            "  --cond=0|1           Lanczos estimates of the extreme eigenvalues [0] (their cost\n"
            "                       grows with the square of the iteration count)\n"
            "  --repeat=N           solve N times, report the best time [1]\n"
            "  --precision=fp64, --variant=standard, --device=auto|cpu accepted (PETSc here\n"
            "                       is double precision, CPU only)\n"
            "PETSc options (one dash) pass through, e.g. -ksp_monitor -log_view.\n",
            PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
}

/* ---- options ------------------------------------------------------------------ */

static int parse_real(const char *key, const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno == ERANGE || !isfinite(v))
        return fail("--%s=%s: expected a number", key, s);
    *out = v;
    return 0;
}

static int parse_count(const char *key, const char *s, PetscInt lo, PetscInt *out) {
    double v = 0;
    if (parse_real(key, s, &v)) return 1;
    if (v != floor(v) || v < (double)lo || v > (double)PETSC_MAX_INT)
        return fail("--%s=%s: expected a whole number from %ld to %ld", key, s, (long)lo,
                    (long)PETSC_MAX_INT);
    *out = (PetscInt)v;
    return 0;
}

static int one_of(const char *key, const char *v, const char *const *allowed) {
    for (const char *const *a = allowed; *a; a++)
        if (!strcmp(v, *a)) return 0;
    char list[256] = "";
    for (const char *const *a = allowed; *a; a++) {
        if (*list) strncat(list, "|", sizeof list - strlen(list) - 1);
        strncat(list, *a, sizeof list - strlen(list) - 1);
    }
    return fail("--%s=%s: expected %s", key, v, list);
}

static int parse_options(int argc, char **argv, options *o) {
    static const char *const kinds[] = {"2d5", "3d7", "3d27", NULL};
    static const char *const rhss[] = {"ones", "Aones", NULL};
    static const char *const pcs[] = {"none", "jacobi", NULL};
    static const char *const fp64[] = {"fp64", NULL};
    static const char *const standard[] = {"standard", NULL};
    static const char *const devices[] = {"auto", "cpu", NULL};
    *o = (options){.rhs = "Aones", .pc = "none", .rtol = 1e-8, .max_it = 10000, .repeat = 1};
    int after_petsc_option = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (a[0] == '-' && a[1] != '-') { /* a PETSc option, maybe with a value next */
            after_petsc_option = 1;
            continue;
        }
        if (a[0] != '-') {
            if (after_petsc_option) {
                after_petsc_option = 0;
                continue;
            }
            return fail("unexpected argument '%s' (options are --key=value)", a);
        }
        after_petsc_option = 0;
        if (!strcmp(a, "--help") || !strcmp(a, "--help=1")) {
            o->help = 1;
            continue;
        }
        const char *eq = strchr(a, '=');
        if (!eq) return fail("option '%s': expected --key=value", a);
        char key[64];
        size_t kl = (size_t)(eq - a - 2);
        if (kl == 0 || kl >= sizeof key) return fail("option '%s': bad key", a);
        memcpy(key, a + 2, kl);
        key[kl] = '\0';
        const char *v = eq + 1;
        if (!strcmp(key, "matrix"))
            o->matrix = v;
        else if (!strcmp(key, "poisson")) {
            if (one_of(key, v, kinds)) return 1;
            o->poisson = v;
        } else if (!strcmp(key, "nx")) {
            if (parse_count(key, v, 1, &o->nx)) return 1;
        } else if (!strcmp(key, "ny")) {
            if (parse_count(key, v, 1, &o->ny)) return 1;
        } else if (!strcmp(key, "nz")) {
            if (parse_count(key, v, 1, &o->nz)) return 1;
        } else if (!strcmp(key, "rhs")) {
            if (!strcmp(v, "random"))
                return fail("--rhs=random: mutirao's Philox right-hand side is not reproduced "
                            "by petsc_cg; use ones or Aones");
            if (one_of(key, v, rhss)) return 1;
            o->rhs = v;
        } else if (!strcmp(key, "pc")) {
            if (one_of(key, v, pcs)) return 1;
            o->pc = v;
        } else if (!strcmp(key, "rtol")) {
            if (parse_real(key, v, &o->rtol)) return 1;
            if (o->rtol < 0 || o->rtol >= 1) return fail("--rtol=%s: expected 0 <= rtol < 1", v);
        } else if (!strcmp(key, "atol")) {
            if (parse_real(key, v, &o->atol)) return 1;
            if (o->atol < 0) return fail("--atol=%s: expected atol >= 0", v);
        } else if (!strcmp(key, "max-it")) {
            if (parse_count(key, v, 0, &o->max_it)) return 1;
        } else if (!strcmp(key, "repeat")) {
            if (parse_count(key, v, 1, &o->repeat)) return 1;
        } else if (!strcmp(key, "cond")) {
            if (strcmp(v, "0") && strcmp(v, "1")) return fail("--cond=%s: expected 0 or 1", v);
            o->cond = v[0] == '1';
        } else if (!strcmp(key, "output"))
            o->output = v;
        else if (!strcmp(key, "summary"))
            o->summary = v;
        else if (!strcmp(key, "compare"))
            o->compare = v;
        else if (!strcmp(key, "precision")) {
            if (one_of(key, v, fp64)) return 1;
        } else if (!strcmp(key, "variant")) {
            if (one_of(key, v, standard)) return 1;
        } else if (!strcmp(key, "device")) {
            if (one_of(key, v, devices)) return 1;
        } else
            return fail("unknown option '--%s' (petsc_cg --help lists them)", key);
    }
    if (o->help) return 0;
    if (!o->matrix == !o->poisson)
        return fail("give exactly one of --matrix=FILE and --poisson=KIND");
    if (o->poisson) {
        if (!o->nx) return fail("--poisson=%s needs --nx", o->poisson);
        if (!o->ny) o->ny = o->nx;
        if (!strcmp(o->poisson, "2d5")) {
            if (o->nz > 1) return fail("--poisson=2d5 is two-dimensional: --nz must be 1");
            o->nz = 1;
        } else if (!o->nz)
            o->nz = o->nx;
        if ((double)o->nx * o->ny * o->nz > (double)PETSC_MAX_INT)
            return fail("%ld x %ld x %ld rows exceed PETSc's 32-bit indices", (long)o->nx,
                        (long)o->ny, (long)o->nz);
    } else if (o->nx || o->ny || o->nz)
        return fail("--nx/--ny/--nz go with --poisson, not --matrix");
    return 0;
}

/* ---- Matrix Market ------------------------------------------------------------ */

/* mutirao's own reader (workloads/cg/mmio.c, plain C: no MPI), so that both programs
 * read every file the same way and refuse the same ones with the same message. */
typedef struct {
    PetscInt n;
    PetscCount nnz; /* entries, both triangles */
    PetscInt *row, *col;
    PetscScalar *val;
} coo_matrix;

static void coo_free(coo_matrix *m) {
    free(m->row);
    free(m->col);
    free(m->val);
    *m = (coo_matrix){0};
}

/* Reads FILE (rank 0 only) into COO triplets. Returns 0, or 1 with errmsg naming
 * the file and line. */
static int mm_read(const char *path, coo_matrix *m) {
    *m = (coo_matrix){0};
    cg_mm mm;
    if (cg_mm_read(path, &mm)) return fail("%s", mu_error_message());
    if (mm.n > PETSC_MAX_INT || mm.nnz > PETSC_MAX_INT) {
        cg_mm_free(&mm);
        return fail("%s: %lld rows with %lld entries exceed PETSc's 32-bit indices", path,
                    (long long)mm.n, (long long)mm.nnz);
    }
    size_t cap = mm.nnz ? (size_t)mm.nnz : 1;
    m->row = malloc(cap * sizeof *m->row);
    m->col = malloc(cap * sizeof *m->col);
    m->val = malloc(cap * sizeof *m->val);
    if (!m->row || !m->col || !m->val) {
        cg_mm_free(&mm);
        coo_free(m);
        return fail("%s: out of memory for %lld entries", path, (long long)mm.nnz);
    }
    m->n = (PetscInt)mm.n;
    m->nnz = mm.nnz;
    for (int64_t i = 0; i < mm.n; i++)
        for (int64_t k = mm.rowptr[i]; k < mm.rowptr[i + 1]; k++) {
            m->row[k] = (PetscInt)i;
            m->col[k] = (PetscInt)mm.col[k];
            m->val[k] = mm.val[k];
        }
    cg_mm_free(&mm);
    return 0;
}

/* Rank 0 reads the file; every entry goes to its owner through PETSc's COO assembly.
 * Returns 0, or 1 on every rank with errmsg set on rank 0. */
static int matrix_from_file(MPI_Comm comm, const char *path, Mat *A) {
    int rank;
    MPI_Comm_rank(comm, &rank);
    coo_matrix m = {0};
    long long head[2] = {0, 0}; /* status, n */
    if (rank == 0) {
        head[0] = mm_read(path, &m);
        head[1] = m.n;
    }
    (void)MPI_Bcast(head, 2, MPI_LONG_LONG, 0, comm);
    if (head[0]) return 1;
    PetscInt n = (PetscInt)head[1];
    PetscCallAbort(comm, MatCreate(comm, A));
    PetscCallAbort(comm, MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCallAbort(comm, MatSetType(*A, MATAIJ));
    PetscCallAbort(comm, MatSetPreallocationCOO(*A, m.nnz, m.row, m.col));
    PetscCallAbort(comm, MatSetValuesCOO(*A, m.val, INSERT_VALUES));
    coo_free(&m);
    return 0;
}

/* ---- Poisson operators -------------------------------------------------------- */

static PetscErrorCode matrix_poisson(MPI_Comm comm, const char *kind, PetscInt nx, PetscInt ny,
                                     PetscInt nz, Mat *A) {
    const int k = !strcmp(kind, "2d5") ? 0 : !strcmp(kind, "3d7") ? 1 : 2;
    const PetscScalar center = k == 0 ? 4.0 : k == 1 ? 6.0 : 26.0;
    const PetscInt n = nx * ny * nz, width = k == 2 ? 27 : 7;
    PetscFunctionBeginUser;
    PetscCall(MatCreate(comm, A));
    PetscCall(MatSetSizes(*A, PETSC_DECIDE, PETSC_DECIDE, n, n));
    PetscCall(MatSetType(*A, MATAIJ));
    PetscCall(MatSeqAIJSetPreallocation(*A, width, NULL));
    PetscCall(MatMPIAIJSetPreallocation(*A, width, NULL, width - 1, NULL));
    PetscInt lo, hi;
    PetscCall(MatGetOwnershipRange(*A, &lo, &hi));
    for (PetscInt g = lo; g < hi; g++) {
        const PetscInt x = g % nx, y = (g / nx) % ny, z = g / (nx * ny);
        PetscInt cols[27];
        PetscScalar vals[27];
        int c = 0;
        /* dz, dy, dx ascending: the columns come out in increasing order. */
        for (int dz = -1; dz <= 1; dz++)
            for (int dy = -1; dy <= 1; dy++)
                for (int dx = -1; dx <= 1; dx++) {
                    const int taxi = abs(dx) + abs(dy) + abs(dz);
                    if (k == 0 && (dz != 0 || taxi > 1)) continue;
                    if (k == 1 && taxi > 1) continue;
                    const PetscInt xx = x + dx, yy = y + dy, zz = z + dz;
                    if (xx < 0 || xx >= nx || yy < 0 || yy >= ny || zz < 0 || zz >= nz) continue;
                    cols[c] = xx + nx * (yy + ny * zz);
                    vals[c++] = taxi == 0 ? center : -1.0;
                }
        PetscCall(MatSetValues(*A, 1, &g, c, cols, vals, INSERT_VALUES));
    }
    PetscCall(MatAssemblyBegin(*A, MAT_FINAL_ASSEMBLY));
    PetscCall(MatAssemblyEnd(*A, MAT_FINAL_ASSEMBLY));
    PetscFunctionReturn(0);
}

/* ---- vectors to and from files (rank 0), one value a line ---------------------- */

/* Next line of the file into buf (without the newline); 0 at the end of the file,
 * -1 with errmsg set on a read error or a line too long. */
static int next_line(gzFile f, const char *path, long lineno, char *buf, int size) {
    if (!gzgets(f, buf, size)) {
        int code;
        const char *msg = gzerror(f, &code);
        if (code != Z_OK && code != Z_STREAM_END) {
            fail("%s:%ld: read error: %s", path, lineno, code == Z_ERRNO ? strerror(errno) : msg);
            return -1;
        }
        return 0;
    }
    size_t len = strlen(buf);
    if (len == (size_t)size - 1 && buf[len - 1] != '\n' && !gzeof(f)) {
        fail("%s:%ld: line longer than %d characters", path, lineno, size - 2);
        return -1;
    }
    while (len && (buf[len - 1] == '\n' || buf[len - 1] == '\r')) buf[--len] = '\0';
    return 1;
}

static int blank(const char *s) {
    while (*s == ' ' || *s == '\t') s++;
    return *s == '\0';
}

/* A vector's whole copy on rank 0 (x0, filled or emptied through sc). */
typedef struct {
    MPI_Comm comm;
    PetscMPIInt rank;
    VecScatter sc;
    Vec x0;
} on_zero;

/* x's whole vector on rank 0; zero_done destroys it. */
static on_zero to_zero(Vec x) {
    on_zero z;
    z.comm = PetscObjectComm((PetscObject)x);
    MPI_Comm_rank(z.comm, &z.rank);
    PetscCallAbort(z.comm, VecScatterCreateToZero(x, &z.sc, &z.x0));
    return z;
}

static void zero_done(on_zero *z) {
    PetscCallAbort(z->comm, VecScatterDestroy(&z->sc));
    PetscCallAbort(z->comm, VecDestroy(&z->x0));
}

/* Writes path.tmp.<pid>, renamed to path when complete. */
static int write_vector(Vec x, const char *path) {
    on_zero z = to_zero(x);
    MPI_Comm comm = z.comm;
    PetscCallAbort(comm, VecScatterBegin(z.sc, x, z.x0, INSERT_VALUES, SCATTER_FORWARD));
    PetscCallAbort(comm, VecScatterEnd(z.sc, x, z.x0, INSERT_VALUES, SCATTER_FORWARD));
    int bad = 0;
    if (z.rank == 0) {
        char tmp[4096];
        snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
        FILE *f = fopen(tmp, "w");
        if (!f)
            bad = fail("cannot write '%s': %s", path, strerror(errno));
        else {
            const PetscScalar *a;
            PetscInt n;
            PetscCallAbort(comm, VecGetLocalSize(z.x0, &n));
            PetscCallAbort(comm, VecGetArrayRead(z.x0, &a));
            for (PetscInt i = 0; i < n; i++) fprintf(f, "%.17g\n", (double)a[i]);
            PetscCallAbort(comm, VecRestoreArrayRead(z.x0, &a));
            if (ferror(f) | fclose(f))
                bad = fail("error writing '%s' (disk full?)", path);
            else if (rename(tmp, path))
                bad = fail("cannot rename '%s' to '%s': %s", tmp, path, strerror(errno));
            if (bad) remove(tmp);
        }
    }
    zero_done(&z);
    (void)MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
    return bad;
}

/* Reads a vector with x's layout from path (plain or gzip), one number a line. */
static int read_vector(Vec x, const char *path) {
    on_zero z = to_zero(x);
    MPI_Comm comm = z.comm;
    int bad = 0;
    if (z.rank == 0) {
        PetscInt n, k = 0;
        PetscScalar *a;
        PetscCallAbort(comm, VecGetLocalSize(z.x0, &n));
        PetscCallAbort(comm, VecGetArray(z.x0, &a));
        gzFile f = gzopen(path, "rb");
        if (!f) bad = fail("%s: cannot open: %s", path, strerror(errno));
        char line[256];
        for (long lineno = 1; !bad; lineno++) {
            int rc = next_line(f, path, lineno, line, sizeof line);
            if (rc < 0) bad = 1;
            if (rc <= 0) break;
            if (line[0] == '%' || line[0] == '#' || blank(line)) continue;
            char *end;
            double v = strtod(line, &end);
            if (end == line || !blank(end))
                bad = fail("%s:%ld: expected a number", path, lineno);
            else if (k == n)
                bad = fail("%s:%ld: more than %ld values", path, lineno, (long)n);
            else
                a[k++] = v;
        }
        if (!bad && k != n) bad = fail("%s: %ld values, expected %ld", path, (long)k, (long)n);
        if (f) gzclose(f);
        PetscCallAbort(comm, VecRestoreArray(z.x0, &a));
    }
    (void)MPI_Bcast(&bad, 1, MPI_INT, 0, comm);
    if (!bad) {
        PetscCallAbort(comm, VecScatterBegin(z.sc, z.x0, x, INSERT_VALUES, SCATTER_REVERSE));
        PetscCallAbort(comm, VecScatterEnd(z.sc, z.x0, x, INSERT_VALUES, SCATTER_REVERSE));
    }
    zero_done(&z);
    return bad;
}

/* ---- JSON --------------------------------------------------------------------- */

static void json_str(FILE *f, const char *s) {
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v) {
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

typedef struct {
    PetscInt n, iterations;
    double nnz, b_norm, rnorm, true_rnorm, err_max, err_2, setup_s, solve_s, best_s;
    double eig_min, eig_max;
    int converged, have_error;
    const char *reason, *ksp_type, *pc_type, *norm_type;
    int have_compare;
    double cmp_true_rnorm, cmp_diff_2, cmp_diff_max, x_norm, x_max;
    char mpi_lib[MPI_MAX_LIBRARY_VERSION_STRING];
    PetscMPIInt ranks;
} report;

static int write_summary(const char *path, const options *o, const report *r) {
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    FILE *f = fopen(tmp, "w");
    if (!f) return fail("cannot write '%s': %s", path, strerror(errno));
    fprintf(f, "{\n  \"command\": \"petsc_cg\",\n  \"petsc_version\": \"%d.%d.%d\",\n",
            PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR);
    fputs("  \"mpi_library\": ", f);
    json_str(f, r->mpi_lib);
    fprintf(f, ",\n  \"ranks\": %d,\n  \"options\": {\n    \"%s\": ", (int)r->ranks,
            o->matrix ? "matrix" : "poisson");
    json_str(f, o->matrix ? o->matrix : o->poisson);
    if (o->poisson)
        fprintf(f, ",\n    \"nx\": %ld, \"ny\": %ld, \"nz\": %ld", (long)o->nx, (long)o->ny,
                (long)o->nz);
    fprintf(f, ",\n    \"rhs\": \"%s\", \"pc\": \"%s\", \"ksp\": \"%s\", \"norm\": \"%s\"", o->rhs,
            r->pc_type, r->ksp_type, r->norm_type);
    fputs(",\n    \"rtol\": ", f);
    json_num(f, o->rtol);
    fputs(", \"atol\": ", f);
    json_num(f, o->atol);
    fprintf(f, ", \"max_it\": %ld, \"repeat\": %ld\n  },\n", (long)o->max_it, (long)o->repeat);
    fprintf(f, "  \"problem\": {\"n\": %ld, \"nnz\": %.0f},\n", (long)r->n, r->nnz);
    fprintf(f,
            "  \"result\": {\n    \"iterations\": %ld,\n    \"converged\": %s,\n    \"reason\": ",
            (long)r->iterations, r->converged ? "true" : "false");
    json_str(f, r->reason);
    struct {
        const char *k;
        double v;
        int on;
    } nums[] = {
        {"b_norm", r->b_norm, 1},
        {"residual_norm", r->rnorm, 1},
        {"residual_relative", r->rnorm / r->b_norm, 1},
        {"true_residual_norm", r->true_rnorm, 1},
        {"true_residual_relative", r->true_rnorm / r->b_norm, 1},
        {"error_max", r->err_max, r->have_error},
        {"error_relative", r->err_2, r->have_error},
        {"solution_norm", r->x_norm, 1},
        {"eig_min_estimate", r->eig_min, o->cond},
        {"eig_max_estimate", r->eig_max, o->cond},
        {"cond_estimate", r->eig_max / r->eig_min, o->cond},
        {"solve_s", r->best_s, 1},
        {"time_per_iteration_s", r->iterations ? r->best_s / (double)r->iterations : NAN, 1},
    };
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        if (!nums[i].on) continue;
        fprintf(f, ",\n    \"%s\": ", nums[i].k);
        json_num(f, nums[i].v);
    }
    fputs("\n  },\n", f);
    if (r->have_compare) {
        fputs("  \"compare\": {\n    \"file\": ", f);
        json_str(f, o->compare);
        fputs(",\n    \"true_residual_relative\": ", f);
        json_num(f, r->cmp_true_rnorm / r->b_norm);
        fputs(",\n    \"difference_relative\": ", f);
        json_num(f, r->cmp_diff_2 / r->x_norm);
        fputs(",\n    \"difference_max_relative\": ", f);
        json_num(f, r->cmp_diff_max / r->x_max);
        fputs("\n  },\n", f);
    }
    fputs("  \"phases\": {\"setup\": {\"max_s\": ", f);
    json_num(f, r->setup_s);
    fputs("}, \"solve\": {\"max_s\": ", f);
    json_num(f, r->solve_s);
    fputs("}}\n}\n", f);
    int bad = 0;
    if (ferror(f) | fclose(f))
        bad = fail("error writing '%s' (disk full?)", path);
    else if (rename(tmp, path))
        bad = fail("cannot rename '%s': %s", tmp, strerror(errno));
    if (bad) remove(tmp);
    return bad;
}

/* ---- main --------------------------------------------------------------------- */

static int finish(int rc, PetscMPIInt rank) {
    if (rc && rank == 0) fprintf(stderr, "petsc_cg: error: %s\n", errmsg);
    PetscFinalize();
    return rc;
}

/* PETSc sees argv[0] and the one-dash options; the --key=value ones are ours.
 * NULL when out of memory. */
static char **petsc_args(int argc, char **argv, int *pargc) {
    char **pargv = malloc((size_t)(argc + 1) * sizeof *pargv);
    if (!pargv) return NULL;
    *pargc = 0;
    for (int i = 0; i < argc; i++)
        if (i == 0 || strncmp(argv[i], "--", 2)) pargv[(*pargc)++] = argv[i];
    pargv[*pargc] = NULL;
    return pargv;
}

/* b (ones, or A*1 with ones kept for the error), x and the work vector w. */
static PetscErrorCode make_vectors(Mat A, const options *o, Vec *b, Vec *x, Vec *w, Vec *ones,
                                   report *r) {
    PetscFunctionBeginUser;
    PetscCall(MatCreateVecs(A, x, b));
    PetscCall(VecDuplicate(*b, w));
    if (!strcmp(o->rhs, "ones")) {
        PetscCall(VecSet(*b, 1.0));
    } else {
        PetscCall(VecDuplicate(*x, ones));
        PetscCall(VecSet(*ones, 1.0));
        PetscCall(MatMult(A, *ones, *b));
    }
    PetscCall(VecNorm(*b, NORM_2, &r->b_norm));
    PetscFunctionReturn(0);
}

/* KSPCG as described at the top, then the PETSc options; o and r get what is
 * used, after any -ksp_ or -pc_ options. */
static PetscErrorCode make_solver(MPI_Comm comm, Mat A, options *o, report *r, KSP *ksp) {
    PC pc;
    PetscFunctionBeginUser;
    PetscCall(KSPCreate(comm, ksp));
    PetscCall(KSPSetOperators(*ksp, A, A));
    PetscCall(KSPSetType(*ksp, KSPCG));
    PetscCall(KSPGetPC(*ksp, &pc));
    PetscCall(PCSetType(pc, !strcmp(o->pc, "jacobi") ? PCJACOBI : PCNONE));
    PetscCall(KSPSetNormType(*ksp, KSP_NORM_UNPRECONDITIONED));
    PetscCall(KSPSetInitialGuessNonzero(*ksp, PETSC_FALSE));
    PetscCall(KSPSetTolerances(*ksp, o->rtol, o->atol, 1e300, o->max_it));
    if (o->cond) PetscCall(KSPSetComputeSingularValues(*ksp, PETSC_TRUE));
    PetscCall(KSPSetFromOptions(*ksp));
    KSPType kt;
    PCType pt;
    KSPNormType nt;
    PetscReal rt, at;
    PetscCall(KSPGetTolerances(*ksp, &rt, &at, NULL, &o->max_it));
    o->rtol = rt, o->atol = at;
    PetscCall(KSPGetType(*ksp, &kt));
    PetscCall(PCGetType(pc, &pt));
    PetscCall(KSPGetNormType(*ksp, &nt));
    r->ksp_type = kt, r->pc_type = pt, r->norm_type = KSPNormTypes[nt];
    PetscCall(KSPSetUp(*ksp));
    PetscFunctionReturn(0);
}

/* --repeat solves from x = 0, each timed on the slowest rank (the best and the
 * sum into r), then the count, the residual, the reason and the estimates. */
static PetscErrorCode timed_solves(MPI_Comm comm, KSP ksp, Vec b, Vec x, const options *o,
                                   report *r) {
    PetscFunctionBeginUser;
    r->best_s = INFINITY;
    for (PetscInt rep = 0; rep < o->repeat; rep++) {
        PetscCall(VecSet(x, 0.0));
        PetscCall(PetscBarrier(NULL));
        double t1 = MPI_Wtime();
        PetscCall(KSPSolve(ksp, b, x));
        double dt = MPI_Wtime() - t1, dtmax;
        (void)MPI_Allreduce(&dt, &dtmax, 1, MPI_DOUBLE, MPI_MAX, comm);
        r->solve_s += dtmax;
        if (dtmax < r->best_s) r->best_s = dtmax;
    }
    KSPConvergedReason reason;
    PetscCall(KSPGetIterationNumber(ksp, &r->iterations));
    PetscCall(KSPGetResidualNorm(ksp, &r->rnorm));
    PetscCall(KSPGetConvergedReason(ksp, &reason));
    r->converged = reason > 0;
    r->reason = KSPConvergedReasons[reason];
    if (o->cond) PetscCall(KSPComputeExtremeSingularValues(ksp, &r->eig_max, &r->eig_min));
    PetscFunctionReturn(0);
}

/* True residual and error (against ones, when b = A*1), with w as work. */
static PetscErrorCode check_solution(Mat A, Vec b, Vec x, Vec ones, Vec w, report *r) {
    PetscFunctionBeginUser;
    PetscCall(MatMult(A, x, w));
    PetscCall(VecAYPX(w, -1.0, b)); /* w = b - A x */
    PetscCall(VecNorm(w, NORM_2, &r->true_rnorm));
    PetscCall(VecNorm(x, NORM_2, &r->x_norm));
    PetscCall(VecNorm(x, NORM_INFINITY, &r->x_max));
    if (ones) {
        PetscCall(VecWAXPY(w, -1.0, ones, x));
        PetscCall(VecNorm(w, NORM_INFINITY, &r->err_max));
        PetscCall(VecNorm(w, NORM_2, &r->err_2));
        r->err_2 /= sqrt((double)r->n);
        r->have_error = 1;
    }
    PetscFunctionReturn(0);
}

/* --compare: the other solution's true residual and its difference from x;
 * *bad: it could not be read (errmsg set). */
static PetscErrorCode compare_solution(Mat A, Vec b, Vec x, Vec w, const char *path, report *r,
                                       int *bad) {
    Vec xc;
    PetscFunctionBeginUser;
    PetscCall(VecDuplicate(x, &xc));
    *bad = read_vector(xc, path);
    if (!*bad) {
        PetscCall(MatMult(A, xc, w));
        PetscCall(VecAYPX(w, -1.0, b));
        PetscCall(VecNorm(w, NORM_2, &r->cmp_true_rnorm));
        PetscCall(VecWAXPY(w, -1.0, x, xc));
        PetscCall(VecNorm(w, NORM_2, &r->cmp_diff_2));
        PetscCall(VecNorm(w, NORM_INFINITY, &r->cmp_diff_max));
        r->have_compare = 1;
    }
    PetscCall(VecDestroy(&xc));
    PetscFunctionReturn(0);
}

/* The lines on stdout (rank 0). */
static void print_report(const options *o, const report *r) {
    printf("petsc_cg: PETSc %d.%d.%d, %d rank(s), n=%ld nnz=%.0f, KSP %s pc=%s rhs=%s "
           "rtol=%g atol=%g max-it=%ld\n",
           PETSC_VERSION_MAJOR, PETSC_VERSION_MINOR, PETSC_VERSION_SUBMINOR, (int)r->ranks,
           (long)r->n, r->nnz, r->ksp_type, r->pc_type, o->rhs, o->rtol, o->atol, (long)o->max_it);
    printf("petsc_cg: iterations=%ld converged=%s reason=%s residual=%.6e relative=%.6e "
           "true_relative=%.6e",
           (long)r->iterations, r->converged ? "yes" : "no", r->reason, r->rnorm,
           r->rnorm / r->b_norm, r->true_rnorm / r->b_norm);
    if (r->have_error) printf(" error_max=%.6e", r->err_max);
    printf(" time_per_iteration=%.6e s solve=%.6e s setup=%.6e s\n",
           r->iterations ? r->best_s / (double)r->iterations : 0.0, r->best_s, r->setup_s);
    if (o->cond)
        printf("petsc_cg: eigenvalue estimates %.6e .. %.6e, condition estimate %.6e\n", r->eig_min,
               r->eig_max, r->eig_max / r->eig_min);
    if (r->have_compare)
        printf("petsc_cg: compare %s: true_relative=%.6e difference_relative=%.6e "
               "difference_max_relative=%.6e\n",
               o->compare, r->cmp_true_rnorm / r->b_norm, r->cmp_diff_2 / r->x_norm,
               r->cmp_diff_max / r->x_max);
    fflush(stdout);
}

int main(int argc, char **argv) {
    int pargc;
    char **pargv = petsc_args(argc, argv, &pargc);
    if (!pargv) return 1;
    PetscCall(PetscInitialize(&pargc, &pargv, NULL, NULL));
    MPI_Comm comm = PETSC_COMM_WORLD;
    PetscMPIInt rank, size;
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);

    options o;
    int rc = parse_options(argc, argv, &o);
    if (!rc && o.help) {
        if (rank == 0) usage(stdout);
        free(pargv);
        return finish(0, rank);
    }
    if (rc) {
        free(pargv);
        return finish(2, rank);
    }

    report r = {.ranks = size, .eig_min = NAN, .eig_max = NAN};
    int len = 0;
    MPI_Get_library_version(r.mpi_lib, &len);
    char *nl = strchr(r.mpi_lib, '\n');
    if (nl) *nl = '\0';

    /* The operator. */
    Mat A = NULL;
    PetscCall(PetscBarrier(NULL));
    double t0 = MPI_Wtime();
    if (o.matrix) {
        if (matrix_from_file(comm, o.matrix, &A)) {
            free(pargv);
            return finish(1, rank);
        }
    } else {
        PetscCall(matrix_poisson(comm, o.poisson, o.nx, o.ny, o.nz, &A));
    }
    PetscCall(MatGetSize(A, &r.n, NULL));
    MatInfo info;
    PetscCall(MatGetInfo(A, MAT_GLOBAL_SUM, &info));
    r.nnz = info.nz_used;

    /* b, x, and the solver. */
    Vec b, x, ones = NULL, w;
    PetscCall(make_vectors(A, &o, &b, &x, &w, &ones, &r));
    KSP ksp;
    PetscCall(make_solver(comm, A, &o, &r, &ksp));
    PetscCall(PetscBarrier(NULL));
    r.setup_s = MPI_Wtime() - t0;

    PetscCall(timed_solves(comm, ksp, b, x, &o, &r));
    PetscCall(check_solution(A, b, x, ones, w, &r));
    rc = 0;
    if (o.compare) PetscCall(compare_solution(A, b, x, w, o.compare, &r, &rc));
    if (!rc && o.output) rc = write_vector(x, o.output);
    if (rank == 0 && !rc) print_report(&o, &r);
    if (!rc && o.summary) {
        if (rank == 0) rc = write_summary(o.summary, &o, &r);
        (void)MPI_Bcast(&rc, 1, MPI_INT, 0, comm);
    }

    PetscCall(KSPDestroy(&ksp));
    PetscCall(VecDestroy(&ones));
    PetscCall(VecDestroy(&w));
    PetscCall(VecDestroy(&x));
    PetscCall(VecDestroy(&b));
    PetscCall(MatDestroy(&A));
    free(pargv);
    return finish(rc, rank);
}
