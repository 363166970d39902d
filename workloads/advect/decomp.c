/* How the ranks of an advect run share the work: pf field groups, each a
 * px x py grid of X-Y blocks, pf x px x py = P. Fields are independent given
 * the winds, so a group needs no messages from another; blocks exchange halos
 * and carry flux chains across their borders, each rank waiting on its
 * upwind neighbour. The automatic choice therefore takes as many groups as
 * there are fields (a divisor of P), and fewer, with blocks, only where a
 * group's fields do not fit one rank's memory. */
#include <stdio.h>
#include "advect/advect.h"
#include "core/error.h"
#include "core/log.h"
#include "mpi/wait.h"

/* Bytes one rank needs for nf fields on cells cells: q, qn and the fluxes
 * (a float each per field and cell), the initial fields kept on the host,
 * and per cell the winds, densities and classes of a sweep. */
static double rank_bytes(int nf, double cells) {
    return cells * (16.0 * nf + 64.0);
}

static int fits(const adv_cfg *c, int nf, int blocks, double mem_bytes) {
    double cells = (double)c->n[0] * (double)c->n[1] * (double)c->n[2] / blocks;
    return rank_bytes(nf, cells) <= mem_bytes;
}

/* A grid no decomposition fits is refused up front, before any allocation:
 * every rank computes the same answer from the smallest rank's memory. */
static int check_memory(const adv_cfg *c, int P, int pf, double mem_bytes) {
    int nf = (c->nf + pf - 1) / pf, blocks = P / pf;
    if (fits(c, nf, blocks, mem_bytes)) return 0;
    double cells = (double)c->n[0] * (double)c->n[1] * (double)c->n[2] / blocks;
    return mu_error("--nx=%lld --ny=%lld --nz=%lld --fields=%d: about %.3g GB a rank on %d "
                    "rank(s), more than the %.3g GB a rank may use here: use more ranks or a "
                    "smaller grid",
                    (long long)c->n[0], (long long)c->n[1], (long long)c->n[2], c->nf,
                    rank_bytes(nf, cells) / 1e9, P, mem_bytes / 1e9);
}

static int given(const adv_cfg *c, int P, int *pf, int pgrid[2]) {
    int px = c->pgrid[0], py = c->pgrid[1];
    *pf = c->pf;
    if (*pf == 0) *pf = px > 0 && py > 0 && P % (px * py) == 0 ? P / (px * py) : 1;
    if (*pf > c->nf)
        return mu_error("--pf=%d: more field groups than the %d field(s) of the run", *pf, c->nf);
    if (P % *pf)
        return mu_error("--pf=%d does not divide the %d rank(s) of the run (pf x px x py must be "
                        "the number of ranks)",
                        *pf, P);
    int b = P / *pf;
    if (c->pf > 0 &&
        ((px > 0 && b % px) || (py > 0 && b % py) || (px > 0 && py > 0 && px * py != b)))
        return mu_error("--pf=%d --px=%d --py=%d: pf x px x py must be the %d rank(s) of the run "
                        "(0 lets mutirao choose)",
                        *pf, px, py, P);
    pgrid[0] = px;
    pgrid[1] = py;
    return 0;
}

int adv_decompose(const adv_cfg *c, MPI_Comm comm, double mem_bytes, int *pf, int pgrid[2]) {
    int P;
    MPI_Comm_size(comm, &P);
    /* The smallest memory of any rank decides, so that every rank chooses alike. */
    mu_allreduce(&mem_bytes, 1, MPI_DOUBLE, MPI_MIN, comm);
    int automatic = c->pf == 0 && c->pgrid[0] == 0 && c->pgrid[1] == 0;
    if (!automatic) {
        MU_TRY(mu_error_collective(comm, given(c, P, pf, pgrid)));
        return mu_error_collective(comm, check_memory(c, P, *pf, mem_bytes));
    }
    pgrid[0] = pgrid[1] = 0;
    *pf = 1;
    int too_big = 0;
    for (int d = P < c->nf ? P : c->nf; d >= 1; d--) {
        if (P % d) continue;
        if (fits(c, (c->nf + d - 1) / d, P / d, mem_bytes) || d == 1) {
            *pf = d;
            break;
        }
        too_big = 1;
    }
    int b = P / *pf;
    const char *why = b == 1      ? "each group fits one rank: no messages between ranks"
                      : too_big   ? "more groups would not fit a rank's memory: X-Y blocks"
                      : P > c->nf ? "more ranks than fields: X-Y blocks in each group"
                                  : "no more groups divide the ranks: X-Y blocks in each group";
    mu_info("advect: %d field group(s) of %d-%d field(s), %d rank(s) each (automatic: %s)", *pf,
            c->nf / *pf, (c->nf + *pf - 1) / *pf, b, why);
    return mu_error_collective(comm, check_memory(c, P, *pf, mem_bytes));
}
