/* One sweep of a line segment as dataflow: which cells need a flux from a
 * neighbouring rank (the head: positive-chain cells before the first local
 * root; the tail: the negative chain from the right end and the inflow-only
 * cell it ends in), which fluxes are known locally at the start (open-border
 * inflow, or the seed that closes a chain going once around a periodic line
 * with one wind sign), and the independent streams and dependent inflow-only
 * cells of the rest (the study's dataflow). Classes depend on the wind only, so one
 * segment description serves every field.
 *
 * The segment functions, host and device, are in gpu/advect_walcek.h:
 * - adv_seg_init(s, cls, u, m, border_lo, border_hi, cycle, first, last)
 *   classifies the m cells (cls[0..m-1]) from the face winds u (face j at
 *   u[j + 1], j = -1..m-1). border_lo/hi: cell 0 / m-1 is a fixed open-border
 *   cell. cycle: +1 or -1 when the whole periodic line has one wind sign;
 *   first/last: this segment holds the line's first / last cell.
 * - adv_seg_lap2: a chain once around a periodic line of one wind sign has no
 *   root. Lap 1 runs it from a seed (the upwind face value of the last (first)
 *   cell, local to it) with every cell a normal D (E) cell; the flux that cell
 *   then gives through the closing face, limiter corrections included, feeds
 *   lap 2, which recomputes the chain and closes it at that cell (ADV_K, both
 *   fluxes fixed: its value is within rounding of the unlimited one, so the
 *   mass changes by rounding only). adv_seg_lap2 sets the state for lap 2.
 * - adv_seg_sources: the fluxes known at the start (src_l, src_r), one field.
 * - adv_forward_range / adv_backward_range: cells [i0, i1) of the forward loop
 *   (C and D cells, ascending) and of the backward loop (C, E, F, K cells,
 *   descending).
 * - adv_run_task: a stream, its forward part from its root, then its backward
 *   part down to its first cell. */
#ifndef MU_ADVECT_ENGINE_H
#define MU_ADVECT_ENGINE_H
#include <stdint.h>
#include "gpu/advect_walcek.h"

/* The streams (maximal runs of cells between inflow-only cells, each with one
 * outflow-only root) and the inflow-only cells of cells [h, t) of line g,
 * appended to tasks/fcells (fcells as pairs g, i). Returns 0, or 1 when a run
 * has no root (an inconsistent classification). */
int adv_seg_tasks(const uint8_t *cls, int g, int h, int t, adv_task *tasks, int64_t *nt,
                  int32_t *fcells, int64_t *nf);

#endif
