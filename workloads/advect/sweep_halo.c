/* Between ranks on the host: the flux chains' rounds along a split axis
 * (each rank passes the flux of its end face), the halos posted and packed,
 * and which halo is exchanged ahead. */
#include <string.h>
#include "advect/sweep.h"
#include "mpi/wait.h"

/* One message along the axis, count floats with tag `tag`: dir = +1 `out` to
 * the next rank and `in` from the previous one, -1 the other way (receive
 * posted first). Both the flux rounds' messages and the peer rounds' tokens
 * go this way. Returns the rank `in` came from (MPI_PROC_NULL: none). */
int adv_shift(adv_state *s, int axis, int dir, const float *out, float *in, int64_t count,
              int tag) {
    int to = dir > 0 ? s->cart.next[axis] : s->cart.prev[axis];
    int from = dir > 0 ? s->cart.prev[axis] : s->cart.next[axis];
    MPI_Request rq[2];
    MPI_Irecv(in, (int)count, MPI_FLOAT, from, tag, s->cart.comm, &rq[0]);
    MPI_Isend(out, (int)count, MPI_FLOAT, to, tag, s->cart.comm, &rq[1]);
    mu_waitall(2, rq, MPI_STATUSES_IGNORE);
    return from;
}

/* Exchange of one end flux per line and field with the neighbours of the axis.
 * dir = +1: send F[R] to the next rank, receive F[L] from the previous one. */
void adv_exchange(adv_state *s, const sweep_geom *w, int dir) {
    int64_t count = (int64_t)w->G * (s->N + 1);
    for (int64_t i = 0; i < count; i++) s->rbuf[i] = 0;
    if (w->axis == 2 || w->P == 1) {
        if (w->periodic) memcpy(s->rbuf, s->sbuf, (size_t)count * sizeof *s->rbuf);
        return;
    }
    adv_shift(s, w->axis, dir, s->sbuf, s->rbuf, count, 40 + w->axis);
}

/* One round's message along the chains (dir 1: F[R] of the lines whose
 * value is known, to the next rank; -1: F[L] to the previous one), then the
 * exchange: each line's N fluxes and a flag in sbuf, the neighbour's in rbuf. */
static void chain_round(adv_state *s, const sweep_geom *w, int dir) {
    int N = s->N, m = w->m;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        int known = dir > 0 ? sg->out_r : sg->out_l, face = dir > 0 ? sg->b : sg->a;
        float *sb = s->sbuf + (int64_t)g * (N + 1);
        sb[N] = known;
        for (int f = 0; f < N; f++)
            sb[f] = known ? s->flux[((int64_t)g * N + f) * (m + 1) + face] : 0.f;
    }
    adv_exchange(s, w, dir);
}

/* The chains that a flux from the neighbour starts, line g's N fields: dir 1
 * the head waiting for F[L], -1 the tail waiting for F[R]; then the line's
 * flux for the next rank along, if its chain now reaches the end. */
static void chain_continue(adv_state *s, const sweep_geom *w, int g, const float *rb, int dir) {
    adv_seg *sg = &s->seg[g];
    int m = w->m;
    const uint8_t *cls = s->cls + (int64_t)g * m;
    for (int f = 0; f < s->N; f++) {
        adv_line l = adv_line_view(s, w, g, f);
        ADV_FLUX(&l, dir > 0 ? sg->a : sg->b) = rb[f];
        if (dir > 0)
            adv_forward_range(&l, cls, sg->a, sg->h);
        else
            adv_backward_range(&l, cls, sg->t, sg->b);
    }
    const float *u = s->wu + (int64_t)g * (m + 1);
    if (dir > 0) {
        sg->head_done = 1;
        if (sg->h == sg->b && u[sg->b] >= 0) sg->out_r = 1;
    } else {
        sg->tail_done = 1;
        if (sg->t == sg->a && u[sg->a] < 0) sg->out_l = 1;
    }
}

/* Chains across ranks, rounds of chain_round and chain_continue: forward
 * (dir 1) each round passes F[R] of every line whose value is known to the
 * next rank, which then runs the head waiting for it; backward (-1) F[L] to
 * the previous rank, which runs its tail. */
void adv_chain_rounds(adv_state *s, const sweep_geom *wp, int rounds, int dir) {
    sweep_geom w = *wp;
    for (int r = 0; r < rounds; r++) {
        chain_round(s, &w, dir);
        for (int g = 0; g < w.G; g++) {
            const adv_seg *sg = &s->seg[g];
            const float *rb = s->rbuf + (int64_t)g * (s->N + 1);
            int waits = dir > 0 ? sg->need_l && !sg->head_done : sg->need_r && !sg->tail_done;
            if (waits && rb[s->N] != 0) chain_continue(s, &w, g, rb, dir);
        }
    }
}

/* The halo's messages along X or Y posted, both directions at once: the
 * block's first ADV_HALO cells to the previous rank, its last to the next,
 * count floats each way (MPI_PROC_NULL: no message); rq gets 4 requests. */
void adv_halo_post(adv_state *s, int axis, const float *to_prev, const float *to_next,
                   float *from_prev, float *from_next, int64_t count, MPI_Request rq[4]) {
    int prev = s->cart.prev[axis], next = s->cart.next[axis];
    MPI_Irecv(from_prev, (int)count, MPI_FLOAT, prev, 50 + axis, s->cart.comm, &rq[0]);
    MPI_Irecv(from_next, (int)count, MPI_FLOAT, next, 60 + axis, s->cart.comm, &rq[1]);
    MPI_Isend(to_next, (int)count, MPI_FLOAT, next, 50 + axis, s->cart.comm, &rq[2]);
    MPI_Isend(to_prev, (int)count, MPI_FLOAT, prev, 60 + axis, s->cart.comm, &rq[3]);
}

/* The axis whose halo the sweep after this one reads, to be exchanged ahead:
 * packed from this sweep's new fields between its edge lines and the others
 * (mu_gpu_adv_begin), so that the messages travel while the others' chains
 * run: the X halo after a Z sweep (for the next step), the Y halo after an X
 * sweep. Only for the lines schedule on a sweep alone on its lines (one rank
 * along its axis, open borders: no flux rounds) and where that axis has
 * neighbours. -1: none (the next sweep exchanges
 * its halo while the device computes its winds). */
int adv_halo_ahead(const adv_state *s, const sweep_geom *w) {
    int ha = w->axis == 2 ? 0 : w->axis == 0 ? 1 : -1;
    if (ha < 0 || w->P > 1 || w->periodic || s->cfg->schedule == ADV_SCHED_DATAFLOW) return -1;
    if (s->cart.prev[ha] == MPI_PROC_NULL && s->cart.next[ha] == MPI_PROC_NULL) return -1;
    return ha;
}

static void pack_cols(adv_state *s, int axis, int from, float *buf, int unpack) {
    int N = s->N, nz = s->nl[2];
    int64_t k = 0;
    if (axis == 0) {
        int64_t col = (int64_t)N * nz;
        for (int y = 0; y < s->nl[1]; y++)
            for (int x = from; x < from + ADV_HALO; x++) {
                float *p = s->q + adv_idx(s, x, y, 0);
                if (unpack)
                    memcpy(p, buf + k, (size_t)col * sizeof *p);
                else
                    memcpy(buf + k, p, (size_t)col * sizeof *p);
                k += col;
            }
    } else {
        int64_t row = (int64_t)N * nz * s->nl[0];
        for (int y = from; y < from + ADV_HALO; y++) {
            float *p = s->q + adv_idx(s, 0, y, 0);
            if (unpack)
                memcpy(p, buf + k, (size_t)row * sizeof *p);
            else
                memcpy(buf + k, p, (size_t)row * sizeof *p);
            k += row;
        }
    }
}

/* Halo of ADV_HALO cells along X or Y: owned edge cells to the neighbours,
 * both directions at once (the same messages as the GPU's gpu_halo_winds). */
void adv_halo(adv_state *s, int axis) {
    int m = s->nl[axis];
    int prev = s->cart.prev[axis], next = s->cart.next[axis];
    if (prev == MPI_PROC_NULL && next == MPI_PROC_NULL) return;
    int64_t count = (int64_t)ADV_HALO * s->N * s->nl[2] * (axis == 0 ? s->nl[1] : s->nl[0]);
    float *to_next = s->sbuf, *to_prev = s->hbuf, *from_prev = s->rbuf,
          *from_next = s->hbuf + s->hmax;
    pack_cols(s, axis, m - ADV_HALO, to_next, 0);
    pack_cols(s, axis, 0, to_prev, 0);
    MPI_Request rq[4];
    MPI_Status sts[4];
    adv_halo_post(s, axis, to_prev, to_next, from_prev, from_next, count, rq);
    mu_waitall(4, rq, sts);
    if (prev != MPI_PROC_NULL) pack_cols(s, axis, -ADV_HALO, from_prev, 1);
    if (next != MPI_PROC_NULL) pack_cols(s, axis, m, from_next, 1);
}
