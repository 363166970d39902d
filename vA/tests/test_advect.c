/* Unit tests of the advect engine: the study's Figure 3 classification and
 * Table 1 streams; the segment engine, in the lines order and in the dataflow
 * order (streams, then inflow-only cells), bitwise equal to a separate
 * transcription of the corrected 1-D routine (Walcek 2000: forward loop, then
 * backward loop) on random lines with random wind signs. Built without FMA
 * contraction, like the engine. */
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "mu_test.h"
#include "advect/engine.h"
#include "core/log.h"
#include "core/philox.h"

/* ---- the reference: Walcek (2000) as two loops over one open line ----------- */

static float mx(float a, float b) {
    return a > b ? a : b;
}
static float mn(float a, float b) {
    return a < b ? a : b;
}

/* Cells 0 and n-1 fixed; u[i], dd0[i]: face between cells i and i+1 (i = 0..n-2).
 * The divisions by dx and D1 are multiplications by their reciprocals, as
 * mutirao's (gpu/advect_walcek.h), so that the comparison stays bitwise. */
static void ref_walcek(int n, const float *q0, float *qn, const float *u, const float *dd0,
                       const float *den0, const float *den1, float dt, float dxx) {
    float *flux = calloc((size_t)n, sizeof *flux), *vcmax = malloc((size_t)n * sizeof(float)),
          *vcmn = malloc((size_t)n * sizeof(float));
    int *imxmn = calloc((size_t)n, sizeof *imxmn);
    for (int i = 1; i < n - 1; i++) {
        imxmn[i] = q0[i] >= mx(q0[i - 1], q0[i + 1]) || q0[i] <= mn(q0[i - 1], q0[i + 1]);
        float a = u[i] < 0 ? q0[i + 1] : q0[i], b = u[i - 1] >= 0 ? q0[i - 1] : q0[i];
        vcmax[i] = mx(q0[i], mx(a, b));
        vcmn[i] = mn(q0[i], mn(a, b));
    }
    memcpy(qn, q0, (size_t)n * sizeof *qn);
    if (u[0] >= 0) flux[0] = q0[0] * u[0] * dt * dd0[0];
    for (int i = 1; i < n - 1; i++) {
        if (u[i] < 0) continue;
        if (u[i - 1] < 0) {
            flux[i] = q0[i] * u[i] * dt * dd0[i];
        } else {
            float x1 = dt * u[i] / dxx;
            float xln = (1.f - x1) * (q0[i + 1] - q0[i - 1]) / 4.f;
            float cf = q0[i] + xln;
            if (imxmn[i - 1]) cf = q0[i] + mx(1.5f, 1.2f + .6f * x1) * xln;
            if (imxmn[i + 1]) cf = q0[i] + (1.75f - .45f * x1) * xln;
            float cf1 = mn(mx(cf, mn(q0[i], q0[i + 1])), mx(q0[i], q0[i + 1]));
            qn[i] =
                mx(vcmn[i],
                   mn(vcmax[i], (q0[i] * den0[i] - x1 * cf1 * dd0[i] + flux[i - 1] * (1.f / dxx)) *
                                    (1.f / den1[i])));
            flux[i] = dxx * (q0[i] * den0[i] - qn[i] * den1[i]) + flux[i - 1];
        }
    }
    if (u[n - 2] < 0) flux[n - 2] = q0[n - 1] * u[n - 2] * dt * dd0[n - 2];
    for (int i = n - 2; i >= 1; i--) {
        if (u[i - 1] >= 0) {
            if (u[i] < 0)
                qn[i] = mx(vcmn[i], mn(vcmax[i], (q0[i] * den0[i] - flux[i] * (1.f / dxx) +
                                                  flux[i - 1] * (1.f / dxx)) *
                                                     (1.f / den1[i])));
        } else {
            float x1 = dt * fabsf(u[i - 1]) / dxx;
            float xln = (1.f - x1) * (q0[i - 1] - q0[i + 1]) / 4.f;
            float cf = q0[i] + xln;
            if (imxmn[i + 1]) cf = q0[i] + mx(1.5f, 1.2f + .6f * x1) * xln;
            if (imxmn[i - 1]) cf = q0[i] + (1.75f - .45f * x1) * xln;
            float cf1 = mn(mx(cf, mn(q0[i], q0[i - 1])), mx(q0[i], q0[i - 1]));
            if (u[i] >= 0) cf1 = q0[i];
            qn[i] =
                mx(vcmn[i],
                   mn(vcmax[i], (q0[i] * den0[i] - flux[i] * (1.f / dxx) - x1 * cf1 * dd0[i - 1]) *
                                    (1.f / den1[i])));
            flux[i - 1] = dxx * (qn[i] * den1[i] - q0[i] * den0[i]) + flux[i];
        }
    }
    free(flux);
    free(vcmax);
    free(vcmn);
    free(imxmn);
}

/* ---- Figure 3 and Table 1 --------------------------------------------------------- */

/* Classes of an open line as the study's letters (A, B: inflow borders). */
static void letters(const adv_seg *s, const uint8_t *cls, int n, char *out) {
    for (int i = 0; i < n; i++) out[i] = "DECFXK"[cls[i]];
    if (s->src_l == ADV_SRC_BORDER) out[0] = 'A';
    if (s->src_r == ADV_SRC_BORDER) out[n - 1] = 'B';
    out[n] = '\0';
}

static void figure3(void) {
    /* Velocity at positions 1..10 (the right face of each cell): > > < < > > > < < < */
    static const float vel[10] = {1, 1, -1, -1, 1, 1, 1, -1, -1, -1};
    float u[11];
    u[0] = 1; /* face left of cell 1: outside the line */
    for (int j = 0; j < 10; j++) u[j + 1] = vel[j];
    uint8_t cls[10];
    adv_seg s;
    adv_seg_init(&s, cls, u, 10, 1, 1, 0, 1, 1);
    char got[11];
    letters(&s, cls, 10, got);
    CHECK_STR_EQ(got, "ADFECDDFEB");
    /* Table 1, 1-based: independent AD (1,2) = border + head; ECDD (4..7) rooted
     * at the C cell 5; EB (9,10) = tail + border; dependent F (3) and F (8). */
    CHECK_INT_EQ(s.a, 1);
    CHECK_INT_EQ(s.h, 2); /* head: cell 2 */
    CHECK_INT_EQ(s.t, 7); /* tail: cells 8 (F) and 9 */
    CHECK_INT_EQ(cls[s.t], ADV_F);
    adv_task tasks[10];
    int32_t fc[20];
    int64_t nt = 0, nf = 0;
    CHECK_INT_EQ(adv_seg_tasks(cls, 0, s.h, s.t, tasks, &nt, fc, &nf), 0);
    CHECK_INT_EQ(nt, 1);
    CHECK_INT_EQ(tasks[0].lo + 1, 4);
    CHECK_INT_EQ(tasks[0].hi, 7); /* 1-based 4..7 */
    CHECK_INT_EQ(tasks[0].root + 1, 5);
    CHECK_INT_EQ(nf, 1);
    CHECK_INT_EQ(fc[1] + 1, 3);
}

/* ---- engine against the reference --------------------------------------------------- */

static float uni(uint64_t key, uint32_t ctr, uint32_t k) {
    uint32_t c[4] = {ctr, k, 0, 0}, kk[2] = {(uint32_t)key, (uint32_t)(key >> 32)}, r[4];
    mu_philox4x32_10(c, kk, r);
    return (float)(r[0] >> 8) / 16777216.0f;
}

static void engine_vs_reference(void) {
    enum { N = 41, TRIALS = 2000 };
    int differ = 0, clamped = 0, dataflow_differ = 0;
    for (uint32_t trial = 0; trial < TRIALS; trial++) {
        float qh[N + 4], u[N + 1], rs[N + 1], d0[N], d1[N], F[N + 1], qn_ref[N], qn[N], qn2[N],
            uref[N], ddref[N];
        float *q = qh + 2;
        float dt = 0.1f, dx = 0.25f;
        int flat = trial % 3 == 0; /* plateaus: equal neighbours exercise the >= tests */
        for (int i = -2; i < N + 2; i++) {
            float v = uni(7, trial, (uint32_t)(i + 2));
            qh[i + 2] = flat ? floorf(v * 4) / 4 : v;
        }
        int runs = 1 + (int)(uni(8, trial, 0) * 6); /* sign changes about every N/runs */
        for (int j = -1; j < N; j++) {
            float a = uni(9, trial, (uint32_t)(j + 1)),
                  sgn = uni(10, trial, (uint32_t)((j + 1) * runs / N));
            u[j + 1] = (sgn < 0.5f ? -1.f : 1.f) * a * 2.4f; /* Courant up to 0.96 */
            if (trial % 7 == 0 && j % 5 == 0) u[j + 1] = 0;  /* zero counts as positive */
            rs[j + 1] = 0.8f + 0.4f * uni(11, trial, (uint32_t)(j + 1));
        }
        for (int i = 0; i < N; i++) {
            d0[i] = 0.9f + 0.2f * uni(12, trial, (uint32_t)i);
            d1[i] = d0[i] - dt / dx * (rs[i + 1] * u[i + 1] - rs[i] * u[i]);
        }
        for (int i = 0; i < N - 1; i++) {
            uref[i] = u[i + 1];
            ddref[i] = rs[i + 1];
        }
        ref_walcek(N, q, qn_ref, uref, ddref, d0, d1, dt, dx);
        for (int sched = 0; sched < 2; sched++) {
            float *out = sched ? qn2 : qn;
            memcpy(out, q, sizeof qn);
            memset(F, 0, sizeof F);
            adv_line l = {q, out, 1, N, 0, 0, N - 1, u, rs, d0, d1, F, dt, dx, 1.f / dx, 1};
            uint8_t cls[N];
            adv_seg s;
            adv_seg_init(&s, cls, u, N, 1, 1, 0, 1, 1);
            adv_seg_sources(&s, &l);
            if (s.src_l) adv_forward_range(&l, cls, s.a, s.h);
            if (sched == 0) {
                adv_forward_range(&l, cls, s.h, s.b);
                adv_backward_range(&l, cls, s.a, s.t);
            } else {
                adv_task tasks[N];
                int32_t fc[2 * N];
                int64_t nt = 0, nf = 0;
                CHECK_INT_EQ(adv_seg_tasks(cls, 0, s.h, s.t, tasks, &nt, fc, &nf), 0);
                for (int64_t k = nt - 1; k >= 0; k--) adv_run_task(&l, cls, &tasks[k]);
                for (int64_t k = 0; k < nf; k++)
                    adv_backward(&l, fc[2 * k + 1], cls[fc[2 * k + 1]]);
            }
            if (s.src_r) adv_backward_range(&l, cls, s.t, s.b);
        }
        for (int i = 0; i < N; i++) {
            if (memcmp(&qn[i], &qn_ref[i], sizeof(float))) differ++;
            if (memcmp(&qn2[i], &qn_ref[i], sizeof(float))) dataflow_differ++;
            float lo, hi;
            adv_line l = {q, qn, 1, N, 0, 0, N - 1, u, rs, d0, d1, F, dt, dx, 1.f / dx, 1};
            if (i > 0 && i < N - 1) {
                adv_bounds(&l, i, &lo, &hi);
                if (qn[i] == lo || qn[i] == hi) clamped++;
                CHECK_TRUE(qn[i] >= lo && qn[i] <= hi); /* no new extrema */
            }
        }
    }
    printf("engine vs reference: %d lines of %d cells, %d values at a bound, %d (lines) and %d "
           "(dataflow) differing bits\n",
           TRIALS, N, clamped, differ, dataflow_differ);
    CHECK_INT_EQ(differ, 0);
    CHECK_INT_EQ(dataflow_differ, 0);
    CHECK_TRUE(clamped > 1000); /* the limiter was exercised */
}

int main(void) {
    mu_log_init(0, 1);
    MU_RUN(figure3);
    MU_RUN(engine_vs_reference);
    return mu_report("test_advect");
}
