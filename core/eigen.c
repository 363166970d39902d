/* Cyclic Jacobi rotations: slow for large n but simple and accurate, and the
 * matrices here are small (stations, features). */
#include "core/eigen.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

int mu_sym_eigen(const double *A, int n, double *val, double *V) {
    double *a = malloc((size_t)(n * n) * sizeof *a);
    if (!a) return 1;
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
    return 0;
}
