/* Eigen-decomposition of a small symmetric matrix. */
#ifndef MU_CORE_EIGEN_H
#define MU_CORE_EIGEN_H

/* A (n x n, row-major, symmetric) = V diag(val) V^T: val in descending order,
 * the eigenvectors in V's columns. Stops when the off-diagonal mass is below
 * 1e-30 of the total. Returns 0, or 1 when out of memory. */
int mu_sym_eigen(const double *A, int n, double *val, double *V);

#endif
