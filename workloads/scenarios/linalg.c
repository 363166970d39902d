/* Small dense linear algebra for the fit: Yule-Walker solves (order <= 12),
 * and the factor of each month's residual correlation (stations x stations). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "core/eigen.h"
#include "scenarios/scenarios.h"

int mu_sc_solve(const double *A, const double *b, int n, double *x) {
    double *a = malloc((size_t)(n * (n + 1)) * sizeof *a);
    if (!a) return 1;
    for (int i = 0; i < n; i++) {
        memcpy(a + i * (n + 1), A + i * n, (size_t)n * sizeof *a);
        a[i * (n + 1) + n] = b[i];
    }
    int rc = 0;
    for (int c = 0; c < n && !rc; c++) {
        int piv = c;
        for (int r = c + 1; r < n; r++)
            if (fabs(a[r * (n + 1) + c]) > fabs(a[piv * (n + 1) + c])) piv = r;
        if (a[piv * (n + 1) + c] == 0) {
            rc = 1;
            break;
        }
        if (piv != c)
            for (int j = 0; j <= n; j++) {
                double t = a[c * (n + 1) + j];
                a[c * (n + 1) + j] = a[piv * (n + 1) + j];
                a[piv * (n + 1) + j] = t;
            }
        for (int r = c + 1; r < n; r++) {
            double f = a[r * (n + 1) + c] / a[c * (n + 1) + c];
            for (int j = c; j <= n; j++) a[r * (n + 1) + j] -= f * a[c * (n + 1) + j];
        }
    }
    for (int i = n - 1; i >= 0 && !rc; i--) {
        double s = a[i * (n + 1) + n];
        for (int j = i + 1; j < n; j++) s -= a[i * (n + 1) + j] * x[j];
        x[i] = s / a[i * (n + 1) + i];
    }
    free(a);
    return rc;
}

int mu_sc_cholesky(const double *A, int n, double *L) {
    memset(L, 0, (size_t)(n * n) * sizeof *L);
    for (int j = 0; j < n; j++) {
        double d = A[j * n + j];
        for (int k = 0; k < j; k++) d -= L[j * n + k] * L[j * n + k];
        /* Relative pivot test: a correlation matrix has unit diagonal. */
        if (!(d > 1e-10 * A[j * n + j])) return 1;
        d = sqrt(d);
        L[j * n + j] = d;
        for (int i = j + 1; i < n; i++) {
            double s = A[i * n + j];
            for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = s / d;
        }
    }
    return 0;
}

int mu_sc_factor(const double *R, int n, double *D, int *lower, int *neg, double *smallest) {
    *neg = 0;
    *smallest = 0;
    if (mu_sc_cholesky(R, n, D) == 0) {
        *lower = 1;
        return 0;
    }
    *lower = 0;
    double *val = malloc((size_t)n * sizeof *val), *V = malloc((size_t)n * n * sizeof *V);
    if (!val || !V) {
        free(val);
        free(V);
        return 1;
    }
    if (mu_sym_eigen(R, n, val, V)) {
        free(val);
        free(V);
        return 1;
    }
    for (int k = 0; k < n; k++) *neg += val[k] <= 1e-10 * val[0];
    *smallest = val[n - 1];
    for (int i = 0; i < n; i++) {
        double len = 0;
        for (int k = 0; k < n; k++) {
            double d = V[i * n + k] * sqrt(val[k] > 0 ? val[k] : 0);
            D[i * n + k] = d;
            len += d * d;
        }
        len = sqrt(len);
        for (int k = 0; k < n; k++) D[i * n + k] /= len;
    }
    free(val);
    free(V);
    return 0;
}

int mu_sc_dependent(const double *R, int n, double tol, unsigned char *dep) {
    double *L = calloc((size_t)n * n, sizeof *L);
    if (!L) return -1;
    int count = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < i; j++) { /* row i of L against the kept columns j */
            if (dep[j]) continue;
            double s = R[i * n + j];
            for (int k = 0; k < j; k++) s -= L[i * n + k] * L[j * n + k];
            L[i * n + j] = s / L[j * n + j];
        }
        double d = R[i * n + i];
        for (int k = 0; k < i; k++) d -= L[i * n + k] * L[i * n + k];
        dep[i] = !(d > tol * R[i * n + i]);
        count += dep[i];
        L[i * n + i] = dep[i] ? 0 : sqrt(d);
        if (dep[i])
            for (int k = 0; k < i; k++) L[i * n + k] = 0;
    }
    free(L);
    return count;
}
