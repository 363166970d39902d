/* One sweep of a line segment as dataflow: which cells need a flux from a
 * neighbouring rank (the head: positive-chain cells before the first local
 * root; the tail: the negative chain from the right end and the inflow-only
 * cell it ends in), which fluxes are known locally at the start (open-border
 * inflow, or the seed that closes a chain going once around a periodic line
 * with one wind sign), and the independent streams and dependent inflow-only
 * cells of the rest (report §2). Classes depend on the wind only, so one
 * segment description serves every field. */
#ifndef MU_ADVECT_ENGINE_H
#define MU_ADVECT_ENGINE_H
#include <stdint.h>
#include "advect/walcek.h"

enum { ADV_SRC_NONE = 0, ADV_SRC_BORDER = 1, ADV_SRC_SEED = 2 };

typedef struct {
    int32_t a, b;          /* updated cells [a, b); faces L = a-1 and R = b-1 are the ends */
    int32_t h, t;          /* head [a, h) waits for F[L]; tail [t, b) waits for F[R] */
    int8_t src_l, src_r;   /* F[L], F[R] computed here at the start (ADV_SRC_*) */
    int8_t need_l, need_r; /* F[L], F[R] come from the neighbouring rank */
    int8_t head_done, tail_done;
    int8_t out_r, out_l; /* F[R] (wind >= 0) / F[L] (wind < 0) known, for the neighbour */
} adv_seg;

typedef struct {
    int32_t g, root, lo, hi; /* geometric line; a stream [lo, hi) rooted at cell root */
} adv_task;

/* Classifies the m cells of a segment (cls[0..m-1]) from its face winds u
 * (face j at u[j + 1], j = -1..m-1) and fills s. border_lo/hi: cell 0 / m-1 is
 * a fixed open-border cell. cycle: +1 or -1 when the whole periodic line has
 * one wind sign (then the segment holding the line's last (+1) or first (-1)
 * cell closes the chain); first/last: this segment holds that cell. */
void adv_seg_init(adv_seg *s, uint8_t *cls, const float *u, int m, int border_lo, int border_hi,
                  int cycle, int first, int last);

/* A chain once around a periodic line of one wind sign has no root. Lap 1
 * runs it from a seed (the upwind face value of the last (first) cell, local
 * to it) with every cell a normal D (E) cell; the flux that cell then gives
 * through the closing face, limiter corrections included, feeds lap 2, which
 * recomputes the chain and closes it at that cell (ADV_K, both fluxes fixed,
 * its value within rounding of the unclamped one, so the mass
 * changes by rounding only). This sets the state
 * for lap 2 after lap 1's rounds. */
void adv_seg_lap2(adv_seg *s, uint8_t *cls, int cycle, int first, int last);

/* The fluxes known at the start (s->src_l, s->src_r) for one field. */
void adv_seg_sources(const adv_seg *s, const adv_line *l);

/* Cells [i0, i1) of the forward loop (C and D cells, ascending) and of the
 * backward loop (C, E and F cells, descending). */
void adv_forward_range(const adv_line *l, const uint8_t *cls, int i0, int i1);
void adv_backward_range(const adv_line *l, const uint8_t *cls, int i0, int i1);

/* The streams (maximal runs of cells between inflow-only cells, each with one
 * outflow-only root) and the inflow-only cells of cells [h, t) of line g,
 * appended to tasks/fcells (fcells as pairs g, i). Returns 0, or 1 when a run
 * has no root (an inconsistent classification). */
int adv_seg_tasks(const uint8_t *cls, int g, int h, int t, adv_task *tasks, int64_t *nt,
                  int32_t *fcells, int64_t *nf);

/* A stream: the forward part from its root, then the backward part down to lo. */
void adv_run_task(const adv_line *l, const uint8_t *cls, const adv_task *k);

#endif
