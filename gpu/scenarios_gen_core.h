/* The per-draw arithmetic of scenario generation, shared by the CPU reference
 * (workloads/scenarios/gen.c) and the CUDA kernel (gpu/scenarios_gen.cu), so both
 * compute the same bits: exp, log and cos come from core/hdmath.h, and the kernel is compiled
 * without FMA contraction (CMakeLists.txt), as C11 is. Maceira and Bezerra (1997): for
 * station s of month m, with the node's past z (standardized by the months they belong to), cond =
 * sum_i phi_i z_{t-i},  Delta = -mu/sd - cond  (the lower bound of a_t), a = exp(xi) + Delta, xi ~
 * N(mu_xi, s_xi^2), E[a] = 0, Var[a] = sig_a^2, theta = 1 + sig_a^2/Delta^2, s_xi = sqrt(ln theta),
 * mu_xi = ln|Delta| - ln(theta)/2, Z = mu + sd (cond + a) = sd * exp(xi) >= 0. The normal-space
 * noise eps of a scenario is D w, D D^T = the month's residual correlation, w ~ N(0, I) from Philox
 * keyed by (seed, node, scenario, station). */
#ifndef MU_GPU_SCENARIOS_GEN_CORE_H
#define MU_GPU_SCENARIOS_GEN_CORE_H
#include <math.h>
#include <stdint.h>
#include "core/hdmath.h"
#include "core/philox.h"

/* One month's model, as the generator needs it (arrays of this month only). */
typedef struct {
    int nst, pmax;
    const double *mu, *sd; /* nst */
    const double *phi;     /* nst * pmax, zero beyond each station's order */
    const double *sig_a;   /* nst */
    const double *D;       /* nst * nst, row-major */
    int lower;             /* D is lower triangular (Cholesky) */
    double delta_min;      /* Delta is clamped to at most -delta_min * sig_a (a guard added here) */
} mu_sc_gen_month;

/* Which scenarios: node is the Philox stream; scenarios scen0 .. scen0+nscen-1.
 * zpast: pmax * nst values per scenario ([i * nst + s] = z_{t-1-i}), zstride
 * doubles apart (0: every scenario shares one past, as in a tree node). */
typedef struct {
    uint64_t seed, node;
    int64_t scen0, nscen;
    const double *zpast;
    int64_t zstride;
} mu_sc_gen_draw;

/* Scenario index bits below the station in the Philox counter: 2^20 stations. */
#define MU_SC_STATION_BITS 20

/* A standard normal for (seed, node, scenario, station): Box-Muller on two
 * 53-bit uniforms of one Philox block (the cosine branch only, so the value
 * depends on nothing but its own key). */
MU_HD double mu_sc_normal(uint64_t seed, uint64_t node, uint64_t scen, int st) {
    uint32_t r[4];
    mu_rng4(seed, node, (scen << MU_SC_STATION_BITS) | (uint64_t)st, r);
    double u1 = mu_rng_open01(r[0], r[1]), u2 = mu_rng_open01(r[2], r[3]);
    return sqrt(-2.0 * mu_hd_log(u1)) * mu_hd_cos2pi(u2);
}

/* Station s's lower bound of a_t: Delta, clamped to at most -delta_min sig_a
 * (a guard added here); *dtrue is the bound the model gives, -mu/sd - cond, and
 * *clamped is set when Delta is not that one. */
MU_HD double mu_sc_delta(const mu_sc_gen_month *g, const double *zpast, int s, double *dtrue,
                         int *clamped) {
    int nst = g->nst, pmax = g->pmax;
    double cond = 0;
    for (int i = 0; i < pmax; i++) cond += g->phi[s * pmax + i] * zpast[i * nst + s];
    double sa = g->sig_a[s];
    double dt = -g->mu[s] / g->sd[s] - cond, dmin = -g->delta_min * sa;
    *dtrue = dt;
    *clamped = !(dt < dmin);
    return dt < dmin ? dt : dmin;
}

/* The inflow of station s given its normal-space noise eps; *clamped is set when
 * the lower bound had to be clamped (non-positive conditional mean). */
MU_HD double mu_sc_inflow(const mu_sc_gen_month *g, const double *zpast, int s, double eps,
                          int *clamped) {
    double sa = g->sig_a[s], dtrue, delta = mu_sc_delta(g, zpast, s, &dtrue, clamped);
    double lt = mu_hd_log(1.0 + sa * sa / (delta * delta));
    double e = mu_hd_exp(mu_hd_log(-delta) - 0.5 * lt + sqrt(lt) * eps);
    /* mu + sd (cond + e + delta) with mu + sd (cond + dtrue) = 0: exact when not clamped. */
    double z = g->sd[s] * (e + (delta - dtrue));
    return z > 0 ? z : 0;
}

/* The lognormal's sigma_xi^2 = ln(1 + sig_a^2 / Delta^2) of station s (Delta as
 * clamped in mu_sc_inflow): what the lognormal correlation transform needs. */
MU_HD double mu_sc_sigma_xi2(const mu_sc_gen_month *g, const double *zpast, int s) {
    double sa = g->sig_a[s], dtrue;
    int clamped;
    double delta = mu_sc_delta(g, zpast, s, &dtrue, &clamped);
    return mu_hd_log(1.0 + sa * sa / (delta * delta));
}

/* eps_s = sum_j D[s][j] w_j over the factor's nonzero columns. */
MU_HD double mu_sc_corr_noise(const mu_sc_gen_month *g, const double *w, int s) {
    int n = g->lower ? s + 1 : g->nst;
    double e = 0;
    for (int j = 0; j < n; j++) e += g->D[s * g->nst + j] * w[j];
    return e;
}

#endif
