/* cg's stopping test, one for every place that decides it: the solver's loop
 * (workloads/cg/solve.c), the host-driven GPU iterations
 * (workloads/cg/kernels_gpu.c) and the device's whole iterations
 * (gpu/cg_impl.h), so that they stop at the same iteration. */
#ifndef MU_CORE_CG_STOP_H
#define MU_CORE_CG_STOP_H
#include <math.h>
#include "core/hd.h"

/* The residual's norm sqrt(r'r) at or below tol = max(rtol ||b||, atol). */
MU_HD int mu_cg_converged(double rr, double tol) {
    return sqrt(rr) <= tol;
}
#endif
