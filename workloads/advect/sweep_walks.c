/* The CPU's walks of a sweep: the cells' tasks (dataflow or lines), the
 * forward walks that carry the flux chains, then the backward walks. */
#include "advect/sweep.h"

/* The dataflow's tasks and inflow-only cells; 1 for a stream without a root. */
int adv_sweep_tasks(adv_state *s, const sweep_geom *w, int64_t *nt, int64_t *nf) {
    int m = w->m;
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        if (adv_seg_tasks(s->cls + (int64_t)g * m, g, sg->h, sg->t, s->tasks, nt, s->fcells, nf))
            return 1;
    }
    return 0;
}

/* Local work: the fixed border cells (the chains write every other cell
 * of the line, and the halos are filled again before they are read: the
 * fields are not copied whole), sources, heads fed by an open border, then
 * either every local forward chain (lines) or the independent streams
 * (dataflow). Then the forward chains across ranks. */
void adv_cells_forward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nt, int rounds,
                       int first, int last) {
    int N = s->N, m = w->m;
    for (int g = 0; g < w->G; g++) {
        adv_seg *sg = &s->seg[g];
        const uint8_t *cls = s->cls + (int64_t)g * m;
        for (int f = 0; f < N; f++) {
            adv_line l = adv_line_view(s, w, g, f);
            for (int i = 0; i < sg->a; i++) l.qn[i * l.qs] = l.q[i * l.qs];
            for (int i = sg->b; i < m; i++) l.qn[i * l.qs] = l.q[i * l.qs];
            adv_seg_sources(sg, &l);
            if (sg->src_l) adv_forward_range(&l, cls, sg->a, sg->h);
            if (!dataflow) adv_forward_range(&l, cls, sg->h, sg->b);
        }
    }
    if (dataflow)
        for (int64_t k = 0; k < nt; k++) {
            const adv_task *tk = &s->tasks[k];
            for (int f = 0; f < N; f++) {
                adv_line l = adv_line_view(s, w, tk->g, f);
                adv_run_task(&l, s->cls + (int64_t)tk->g * m, tk);
            }
        }

    /* Forward chains across ranks. */
    for (int g = 0; g < w->G; g++) adv_seg_close_head(s->seg, s->wu, g, m);
    adv_chain_rounds(s, w, rounds, 1);
    if (adv_any_cycle(s, w, 1)) {
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] > 0) adv_seg_lap2(&s->seg[g], s->cls + (int64_t)g * m, 1, first, last);
        adv_chain_rounds(s, w, rounds, 1);
    }
}

/* The backward loop over cells [lo, hi) of line g, for each of its fields. */
static void lines_backward(adv_state *s, const sweep_geom *w, int g, int lo, int hi) {
    const uint8_t *cls = s->cls + (int64_t)g * w->m;
    for (int f = 0; f < s->N; f++) {
        adv_line l = adv_line_view(s, w, g, f);
        adv_backward_range(&l, cls, lo, hi);
    }
}

/* Backward chains: local part, tails fed by an open border; then across ranks. */
void adv_cells_backward(adv_state *s, const sweep_geom *w, int dataflow, int64_t nf, int rounds,
                        int first, int last) {
    int N = s->N, m = w->m;
    if (!dataflow)
        for (int g = 0; g < w->G; g++) lines_backward(s, w, g, s->seg[g].a, s->seg[g].t);
    else
        for (int64_t k = 0; k < nf; k++) {
            int g = s->fcells[2 * k], i = s->fcells[2 * k + 1];
            for (int f = 0; f < N; f++) {
                adv_line l = adv_line_view(s, w, g, f);
                adv_backward(&l, i, s->cls[(int64_t)g * m + i]);
            }
        }
    if (dataflow && last) /* the closing cells of positive chains around the line */
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] > 0)
                for (int f = 0; f < N; f++) {
                    adv_line l = adv_line_view(s, w, g, f);
                    adv_backward(&l, s->seg[g].b - 1, ADV_K);
                }
    for (int g = 0; g < w->G; g++) {
        const adv_seg *sg = &s->seg[g];
        if (sg->src_r) lines_backward(s, w, g, sg->t, sg->b);
        adv_seg_close_tail(s->seg, s->wu, g, m);
    }
    adv_chain_rounds(s, w, rounds, -1);
    if (adv_any_cycle(s, w, -1)) {
        for (int g = 0; g < w->G; g++)
            if (s->cyc[g] < 0) adv_seg_lap2(&s->seg[g], s->cls + (int64_t)g * m, -1, first, last);
        adv_chain_rounds(s, w, rounds, -1);
    }
}
