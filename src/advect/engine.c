#include "advect/engine.h"
#include <string.h>

void adv_seg_init(adv_seg *s, uint8_t *cls, const float *u, int m, int border_lo, int border_hi,
                  int cycle, int first, int last) {
    memset(s, 0, sizeof *s);
    int a = border_lo ? 1 : 0, b = border_hi ? m - 1 : m;
    s->a = a;
    s->b = b;
    for (int i = 0; i < m; i++) cls[i] = ADV_FIXED;
    if (a >= b) { /* nothing to update (a line of fixed cells) */
        s->h = s->t = a;
        s->head_done = s->tail_done = 1;
        return;
    }
    for (int i = a; i < b; i++) cls[i] = (uint8_t)adv_class(u[i], u[i + 1]);
    float ul = u[a], ur = u[b]; /* faces L = a-1 and R = b-1 */
    /* Lap 1 of a chain around the line starts from a seed on the upwind face
     * of the line's last (first) cell; see adv_seg_lap2. */
    if (cycle > 0 && last) s->src_r = ADV_SRC_SEED;
    if (cycle < 0 && first) s->src_l = ADV_SRC_SEED;
    if (border_lo && ul >= 0) s->src_l = ADV_SRC_BORDER;
    if (border_hi && ur < 0) s->src_r = ADV_SRC_BORDER;
    s->need_l = !s->src_l && !border_lo && ul >= 0;
    s->need_r = !s->src_r && !border_hi && ur < 0;
    int h = a;
    if (ul >= 0)
        while (h < b && cls[h] == ADV_D) h++;
    int t = b;
    if (ur < 0) {
        int i = b - 1;
        while (i >= a && cls[i] == ADV_E) i--;
        t = i >= a && (cls[i] == ADV_F || cls[i] == ADV_K) ? i : i + 1;
    }
    s->h = h;
    s->t = t;
}

void adv_seg_lap2(adv_seg *s, uint8_t *cls, int cycle, int first, int last) {
    if (cycle > 0) {
        if (last) cls[s->b - 1] = ADV_K;
        s->h = last ? s->b - 1 : s->b;
        s->head_done = 0;
        s->out_r = (int8_t)last;
    } else if (cycle < 0) {
        if (first) cls[s->a] = ADV_K;
        s->t = s->a;
        s->tail_done = 0;
        s->out_l = (int8_t)first;
    }
}

void adv_seg_sources(const adv_seg *s, const adv_line *l) {
    if (s->src_l == ADV_SRC_BORDER) adv_border_flux(l, s->a - 1, s->a - 1);
    if (s->src_l == ADV_SRC_SEED) adv_seed_flux(l, s->a, -1);
    if (s->src_r == ADV_SRC_BORDER) adv_border_flux(l, s->b, s->b - 1);
    if (s->src_r == ADV_SRC_SEED) adv_seed_flux(l, s->b - 1, 1);
}

void adv_forward_range(const adv_line *l, const uint8_t *cls, int i0, int i1) {
    for (int i = i0; i < i1; i++)
        if (cls[i] == ADV_C || cls[i] == ADV_D) adv_forward(l, i, cls[i]);
}

void adv_backward_range(const adv_line *l, const uint8_t *cls, int i0, int i1) {
    for (int i = i1 - 1; i >= i0; i--)
        if (cls[i] == ADV_C || cls[i] == ADV_E || cls[i] == ADV_F || cls[i] == ADV_K)
            adv_backward(l, i, cls[i]);
}

int adv_seg_tasks(const uint8_t *cls, int g, int h, int t, adv_task *tasks, int64_t *nt,
                  int32_t *fcells, int64_t *nf) {
    int i = h;
    while (i < t) {
        if (cls[i] == ADV_F || cls[i] == ADV_K) {
            fcells[2 * *nf] = g;
            fcells[2 * *nf + 1] = i;
            ++*nf;
            i++;
            continue;
        }
        int lo = i, root = -1;
        while (i < t && cls[i] != ADV_F && cls[i] != ADV_K) {
            if (cls[i] == ADV_C) root = i;
            i++;
        }
        if (root < 0) return 1;
        tasks[*nt] = (adv_task){g, root, lo, i};
        ++*nt;
    }
    return 0;
}

void adv_run_task(const adv_line *l, const uint8_t *cls, const adv_task *k) {
    adv_forward_range(l, cls, k->root, k->hi);
    adv_backward_range(l, cls, k->lo, k->root + 1);
}
