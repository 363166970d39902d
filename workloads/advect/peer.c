/* Peer halos for GPU ranks of one node (adv_peer_open in advect.h): the
 * halos packed ahead (sweep_halo.c's adv_halo_ahead) are copied by each GPU straight
 * into its neighbours' device memory, mapped with CUDA IPC, and MPI carries
 * only a token a neighbour; the host path packs them into pinned host memory
 * and sends them through MPI. The flux rounds of the sweeps along that axis
 * go the same way. Both give the same bits: the same values land in the same
 * halo cells and flux slots. */
#include <string.h>
#include "advect/advect.h"
#include "advect/sweep.h"
#include "core/error.h"
#include "core/knobs.h"
#include "core/log.h"
#include "gpu/advect_gpu.h"
#include "gpu/gpu.h"
#include "mpi/binding.h"
#include "mpi/wait.h"

enum { WHY_OK, WHY_KNOB, WHY_CPU, WHY_NODES, WHY_SHARED, WHY_ACCESS, WHY_DEVICE };
static const char *const why_text[] = {
    "",
    "MUTIRAO_ADV_PEER=0",
    "a rank runs on the CPU",
    "the ranks are on several nodes",
    "ranks share a GPU",
    "no peer access between the GPUs",
    "a CUDA IPC call failed",
};

/* The axis whose halos are packed ahead in every step (sweep_halo.c's adv_halo_ahead:
 * X during the Z sweep, or Y during an X sweep that has no neighbours), where
 * a neighbour along it is another rank on either side; else -1. */
static int ahead_axis(const adv_state *s) {
    const adv_cfg *c = s->cfg;
    if (c->schedule == ADV_SCHED_DATAFLOW) return -1;
    int ha = s->cart.dims[0] > 1                      ? (c->periodic[2] ? -1 : 0)
             : s->cart.dims[1] > 1 && !c->periodic[0] ? 1
                                                      : -1;
    /* two ranks around a periodic axis are each other's both sides: host path */
    if (ha >= 0 && c->periodic[ha] && s->cart.dims[ha] < 3) return -1;
    return ha;
}

/* Why this rank cannot reach its neighbours along ha through peer memory (0: it can). */
static int why_not(const adv_state *s, int ha) {
    if (!mu_knob_flag("MUTIRAO_ADV_PEER", 1)) return WHY_KNOB;
    const int one_node = mu_comm_one_node(s->cart.comm);
    int why = !s->gpu ? WHY_CPU : one_node ? WHY_OK : WHY_NODES;
    MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_MAX, s->cart.comm);
    if (why) return why;
    static const int link_why[] = {WHY_OK, WHY_SHARED, WHY_ACCESS, WHY_DEVICE};
    char mine[32] = {0}, side[2][32];
    if (mu_gpu_peer_bus(mine)) why = WHY_DEVICE;
    const int nb[2] = {s->cart.prev[ha], s->cart.next[ha]};
    MPI_Sendrecv(mine, 32, MPI_CHAR, nb[1], 70, side[0], 32, MPI_CHAR, nb[0], 70, s->cart.comm,
                 MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine, 32, MPI_CHAR, nb[0], 71, side[1], 32, MPI_CHAR, nb[1], 71, s->cart.comm,
                 MPI_STATUS_IGNORE);
    for (int k = 0; k < 2 && !why; k++)
        if (nb[k] != MPI_PROC_NULL) why = link_why[mu_gpu_peer_link(mine, side[k])];
    return why;
}

/* This rank's exports to its neighbours along ha and theirs opened; 0 when done.
 * The buffers hold a halo and the flux rounds of a sweep along ha. */
static int link_up(adv_state *s, int ha) {
    mu_gpu_adv_ipc mine[MU_GPU_ADV_IPC], side[2][MU_GPU_ADV_IPC];
    /* (around a periodic axis a sweep's second lap makes its rounds again:
     * those stay on the host path) */
    int rounds = s->cfg->periodic[ha] ? 0 : s->cart.dims[ha] - 1;
    int64_t cells = (int64_t)s->nl[0] * s->nl[1] * s->nl[2];
    int bad = mu_gpu_adv_peer_export(s->gpu, rounds, cells / s->nl[ha] * (s->N + 1), mine);
    if (bad) mu_log_all(MU_LOG_WARN, "advect: peer halos: %s", mu_gpu_error());
    const int nb[2] = {s->cart.prev[ha], s->cart.next[ha]};
    const int bytes = (int)sizeof mine;
    MPI_Sendrecv(mine, bytes, MPI_BYTE, nb[1], 72, side[0], bytes, MPI_BYTE, nb[0], 72,
                 s->cart.comm, MPI_STATUS_IGNORE);
    MPI_Sendrecv(mine, bytes, MPI_BYTE, nb[0], 73, side[1], bytes, MPI_BYTE, nb[1], 73,
                 s->cart.comm, MPI_STATUS_IGNORE);
    MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, s->cart.comm); /* a neighbour's export */
    int failed = 0;
    for (int k = 0; k < 2 && !bad; k++)
        if (nb[k] != MPI_PROC_NULL) bad = failed = mu_gpu_adv_peer_open(s->gpu, ha, k, side[k]);
    if (failed) mu_log_all(MU_LOG_WARN, "advect: peer halos: %s", mu_gpu_error());
    return bad;
}

int adv_peer_open(adv_state *s) {
    s->peer = s->peer_rounds = 0;
    int ha = ahead_axis(s);
    if (ha < 0) return 0;
    int why = why_not(s, ha);
    MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_MAX, s->cart.comm);
    if (!why && link_up(s, ha)) why = WHY_DEVICE;
    MPI_Allreduce(MPI_IN_PLACE, &why, 1, MPI_INT, MPI_MAX, s->cart.comm);
    if (why) {
        if (s->gpu) mu_gpu_adv_peer_close(s->gpu);
        mu_info("advect: the %c halos and flux rounds through pinned host memory and MPI (%s)",
                "XY"[ha], why_text[why]);
        return 0;
    }
    s->peer = ha + 1;
    s->peer_rounds = !s->cfg->periodic[ha];
    const char *rounds = s->peer_rounds ? " and flux rounds" : "";
    mu_info("advect: the %c halos%s between the GPUs of the node through peer memory (CUDA IPC)",
            "XY"[ha], rounds);
    return 0;
}

/* The peer form of gpu_halo_ahead (adv_peer_open): each device copied its
 * halo into its neighbours' memory; a token each way says the copies are
 * queued (nonzero: this rank failed), then the unpack waits for them. */
int adv_peer_halo_ahead(adv_state *s, int ha, int failed) {
    float mine = (float)(failed != 0), theirs[2] = {0, 0};
    MPI_Request rq[4];
    adv_halo_post(s, ha, &mine, &mine, &theirs[0], &theirs[1], 1, rq);
    mu_waitall(4, rq, MPI_STATUSES_IGNORE);
    if (failed) return 1;
    if (theirs[0] != 0 || theirs[1] != 0)
        return mu_error("advect: a neighbour's peer halo failed"); /* its own error speaks first */
    return MU_GPU(mu_gpu_adv_halo_peer_in(s->gpu, s->cart.prev[ha] != MPI_PROC_NULL,
                                          s->cart.next[ha] != MPI_PROC_NULL),
                  "advect halo on the GPU");
}

/* A flux round through peer memory (adv_peer_open): each device copies its
 * message into the neighbour's buffer along dir; a token each way says the
 * copy is queued (nonzero: this rank failed), then the unpack waits for it. */
int adv_peer_round(adv_state *s, const sweep_geom *w, const mu_gpu_adv_geom *d, int dir, int r) {
    int ax = w->axis;
    float mine = (float)(mu_gpu_adv_peer_pack(s->gpu, d, dir, r) != 0), theirs = 0;
    int from = adv_shift(s, ax, dir, &mine, &theirs, 1, 80 + ax);
    if (mine != 0) return MU_GPU(1, "advect flux round on the GPU");
    if (theirs != 0) return mu_error("advect: a neighbour's flux round failed");
    return MU_GPU(mu_gpu_adv_peer_unpack(s->gpu, d, dir, r, from != MPI_PROC_NULL),
                  "advect flux round on the GPU");
}
