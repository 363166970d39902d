/* Small dense linear algebra for the fit: Yule-Walker solves (order <= 12),
 * and the factor of each month's residual correlation (stations x stations). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
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

void mu_sc_eigen(const double *A, int n, double *val, double *V) {
    double *a = malloc((size_t)(n * n) * sizeof *a);
    if (!a) return;
    memcpy(a, A, (size_t)(n * n) * sizeof *a);
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++) V[i * n + j] = i == j;
    for (int sweep = 0; sweep < 100; sweep++) {
        double off = 0, tot = 0;
        for (int i = 0; i < n; i++)
            for (int j = 0; j < n; j++) {
                tot += a[i * n + j] * a[i * n + j];
                if (i != j) off += a[i * n + j] * a[i * n + j];
            }
        if (off <= 1e-30 * tot) break;
        for (int p = 0; p < n - 1; p++)
            for (int q = p + 1; q < n; q++) {
                double apq = a[p * n + q];
                if (apq == 0) continue;
                double th = (a[q * n + q] - a[p * n + p]) / (2 * apq);
                double t = (th >= 0 ? 1 : -1) / (fabs(th) + sqrt(th * th + 1));
                double c = 1 / sqrt(t * t + 1), s = t * c;
                for (int k = 0; k < n; k++) {
                    double akp = a[k * n + p], akq = a[k * n + q];
                    a[k * n + p] = c * akp - s * akq;
                    a[k * n + q] = s * akp + c * akq;
                }
                for (int k = 0; k < n; k++) {
                    double apk = a[p * n + k], aqk = a[q * n + k];
                    a[p * n + k] = c * apk - s * aqk;
                    a[q * n + k] = s * apk + c * aqk;
                }
                for (int k = 0; k < n; k++) {
                    double vkp = V[k * n + p], vkq = V[k * n + q];
                    V[k * n + p] = c * vkp - s * vkq;
                    V[k * n + q] = s * vkp + c * vkq;
                }
            }
    }
    for (int i = 0; i < n; i++) val[i] = a[i * n + i];
    /* Sort descending, columns with them. */
    for (int i = 0; i < n; i++) {
        int b = i;
        for (int j = i + 1; j < n; j++)
            if (val[j] > val[b]) b = j;
        if (b != i) {
            double t = val[i];
            val[i] = val[b];
            val[b] = t;
            for (int k = 0; k < n; k++) {
                t = V[k * n + i];
                V[k * n + i] = V[k * n + b];
                V[k * n + b] = t;
            }
        }
    }
    free(a);
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
    mu_sc_eigen(R, n, val, V);
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
