/* What a tree node's child stands for: the inflows given to each group that
 * the aggregation formed from the node's M generated scenarios.
 *   nearest   the member nearest the group's centroid in the whitened
 *             (Mahalanobis) space: the study's choice, a scenario
 *             that was drawn, but in many stations of skewed inflows it sits
 *             below its group's mean, so the tree's means fall below the sample's;
 *   centroid  the mean of the group's members in inflow units: the children,
 *             weighted by their probabilities (size/M), give back the node's
 *             sample mean, and a mean of non-negative inflows is non-negative;
 *   scaled    the nearest member with each station multiplied by one factor per
 *             node (sample mean / probability-weighted mean of the nearest
 *             members): the same mean as centroid, the drawn scenarios' shape,
 *             never negative. */
#ifndef MU_SCENARIOS_REPRESENT_H
#define MU_SCENARIOS_REPRESENT_H
#include "scenarios/aggregate.h"

typedef enum { MU_SC_REP_NEAREST, MU_SC_REP_CENTROID, MU_SC_REP_SCALED } mu_sc_rep;

/* "nearest", "centroid", "scaled"; -1 for another name. */
int mu_sc_rep_parse(const char *name);
const char *mu_sc_rep_name(mu_sc_rep form);

/* x: the node's m scenarios (m x d, row-major), ar their aggregation. Writes
 * the ar->k children's inflows to out (k x d, group order) and the sample mean
 * of the m scenarios to mean (d). Sums run in scenario order, so the result
 * depends on x and ar only (the same bits for any ranks, threads or device).
 * Where the aggregation ran on the device, its sums (ar->xmean, ar->xgroup_mean)
 * are taken instead of a pass over x on the host. 0, or 1 after mu_error when
 * out of memory. */
int mu_sc_represent(mu_sc_rep form, const double *x, int m, int d, const mu_agg_result *ar,
                    double *out, double *mean);

#endif
