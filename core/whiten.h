/* Whitening of a node's M scenarios so that the Mahalanobis distance with their
 * sample covariance becomes the Euclidean distance (see whiten.c). */
#ifndef MU_CORE_WHITEN_H
#define MU_CORE_WHITEN_H
#include <stddef.h>

/* x: m x d (row-major). Writes y (m x d, row-major, first *rank columns used:
 * row i holds y_i = L^-1 P z_i, *rank <= d) such that |y_a - y_b|^2 =
 * (x_a - x_b)' S^+ (x_a - x_b) with S the sample covariance (divisor m - 1).
 * Returns 0, or 1 after mu_error (allocation, non-finite value). */
int mu_whiten(const double *x, int m, int d, double *y, int *rank);

/* Parts shared with the device's whitening (gpu/scenarios_whiten.h), so both
 * take the same decisions on the same sums. mu_whiten_keep: from the means and
 * the sums of squared deviations (sd, in place: the standard deviations), the
 * kept stations' indices in keep; returns how many (q). mu_whiten_factor: from
 * the kept stations' correlation sums (q x q, lower triangle), their pivoted
 * Cholesky factor L in place and the pivots; returns the numerical rank. */
int mu_whiten_keep(int m, int d, const double *mean, double *sd, int *keep);
int mu_whiten_factor(double *r, int m, int q, int *piv);

/* Stations whose sample standard deviation is at most this times |mean| are
 * constant over the scenarios; a station whose residual variance, after the
 * ones already kept, is at most MU_WHITEN_TOL of its variance is a linear
 * combination of them. */
#define MU_WHITEN_CONST 1e-12
#define MU_WHITEN_TOL 1e-10

#endif
