/* The fast form of the Fuzzy Minimals iteration (--arith=fast), internal to
 * gpu/fuzzy_gpu.cu.
 *
 * The bitwise form pays for the CPU's rounding: no fused multiply-add, a
 * correctly rounded reciprocal and a subtraction per feature for every pair.
 * Here a pair costs F + 6 FP64 instructions for F features:
 *   1 + r^2 |x - c|^2 = (A + s_x) + sum_f B_f x_f,  A = 1 + r^2 |c|^2,
 *   B = -2 r^2 c, s_x = r^2 |x|^2 (made once a launch), as fused multiply-adds;
 *   the reciprocal from the hardware's approximation and one Newton step;
 *   the sums as fused multiply-adds.
 * The expansion cancels where x is near c, so each range's rows are first
 * moved to the centre of their bounding box (min and max are exact in any
 * order) and the end points moved back.
 *
 * Each start's sum runs over kLanes lanes (rows j mod kLanes, in row order)
 * held by kLanes threads, combined by a butterfly whose pairs do not depend on
 * the launch; the centre depends only on the range's rows. So a start's
 * trajectory depends on the data and the device's arithmetic alone, never on
 * the ranks, the chunks or the other ranges of a launch. */
#ifndef MU_GPU_FUZZY_FAST_H
#define MU_GPU_FUZZY_FAST_H

namespace fast {

constexpr int kLanes = MU_GPU_FM_FAST_LANES; /* a power of two dividing 32 */
/* 32 starts a block: each tile read from memory serves 32 x kTile pairs. */
constexpr int kBlock = 256;

/* Rows a tile stages in shared memory: large tiles, fewer barriers. Lanes are
 * rows mod kLanes of the range, so the tile does not change the sums. */
inline int tile_rows(int F) {
    return F <= 4 ? 1024 : 256;
}

/* 1/t for t >= 1: the hardware's approximation (about 2^-22 relative) and one
 * Newton step (about 2^-44). */
__device__ __forceinline__ double rcp(double t) {
    double y;
    asm("rcp.approx.ftz.f64 %0, %1;" : "=d"(y) : "d"(t));
    double e = fma(-t, y, 1.0);
    return fma(y, e, y);
}

/* The centre of each range's bounding box, one block per range. */
__global__ void centre_kernel(const double *__restrict__ x, int F,
                              const range_d *__restrict__ ranges, double *__restrict__ mid) {
    __shared__ double lo[256], hi[256];
    const range_d R = ranges[blockIdx.x];
    for (int f = 0; f < F; f++) {
        double a = INFINITY, b = -INFINITY;
        for (long long i = threadIdx.x; i < R.rows; i += blockDim.x) {
            double v = x[(R.row0 + i) * F + f];
            a = fmin(a, v);
            b = fmax(b, v);
        }
        lo[threadIdx.x] = a;
        hi[threadIdx.x] = b;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s /= 2) {
            if ((int)threadIdx.x < s) {
                lo[threadIdx.x] = fmin(lo[threadIdx.x], lo[threadIdx.x + s]);
                hi[threadIdx.x] = fmax(hi[threadIdx.x], hi[threadIdx.x + s]);
            }
            __syncthreads();
        }
        if (threadIdx.x == 0) mid[blockIdx.x * F + f] = 0.5 * lo[0] + 0.5 * hi[0];
        __syncthreads();
    }
}

/* xs: each range's rows moved to its centre, F + 1 doubles a row: x - mid,
 * then s = r^2 |x - mid|^2. Ranges of one launch are equal or disjoint. */
__global__ void shift_kernel(const double *__restrict__ x, int F,
                             const range_d *__restrict__ ranges, const double *__restrict__ mid,
                             double r2, double *__restrict__ xs) {
    const range_d R = ranges[blockIdx.y];
    const double *m = mid + blockIdx.y * F;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < R.rows;
         i += (long long)gridDim.x * blockDim.x) {
        const double *p = x + (R.row0 + i) * F;
        double *q = xs + (R.row0 + i) * (F + 1);
        double s = 0;
        for (int f = 0; f < F; f++) {
            q[f] = p[f] - m[f];
            s = fma(q[f], q[f], s);
        }
        q[F] = r2 * s;
    }
}

/* Butterfly over the kLanes threads of a start: every thread ends with the
 * same sum (the pairs are fixed and addition commutes). */
__device__ __forceinline__ double lanes_sum(double v, unsigned group) {
    for (int m = 1; m < kLanes; m *= 2) v += __shfl_xor_sync(group, v, m);
    return v;
}

/* A start of a slot: its first point, or inactive past the range's starts. */
template <int FMAX>
__device__ __forceinline__ bool take(const range_d &R, const double *xr, int nf, int row,
                                     unsigned long long *ctr, int lane, int first, unsigned group,
                                     long long *k, double *c) {
    long long got = 0;
    if (lane == 0) got = (long long)atomicAdd(ctr, 1ULL);
    *k = __shfl_sync(group, got, first);
    bool active = *k < R.count;
#pragma unroll
    for (int f = 0; f < FMAX; f++) c[f] = active && f < nf ? xr[(R.first + *k) * row + f] : 0.0;
    return active;
}

/* FMAX == 2: exactly two features (unrolled); else F <= FMAX. Each group of
 * kLanes threads iterates S starts at once (slots), so a row read from shared
 * memory serves S pairs: shared-memory bandwidth, not the FP64 pipe, bounds
 * one slot. A start's sums are the same in any slot. Tile: tile_rows rows of
 * F + 1 doubles. Output as the bitwise kernels. */
template <int FMAX, int S>
__global__ void __launch_bounds__(kBlock)
    fm_kernel(const double *__restrict__ xs, int F, const range_d *__restrict__ ranges,
              const double *__restrict__ mid, unsigned long long *__restrict__ next, double r2,
              double eps1, long long max_it, int tile_rows, double *__restrict__ v,
              long long *__restrict__ its, int *__restrict__ conv) {
    extern __shared__ double tile[];
    const int nf = FMAX == 2 ? 2 : F, row = nf + 1;
    const range_d R = ranges[blockIdx.y];
    const double *xr = xs + R.row0 * row;
    const double *m = mid + blockIdx.y * nf;
    unsigned long long *ctr = next + blockIdx.y;
    const int lane = threadIdx.x % kLanes, first = threadIdx.x % 32 - lane;
    const unsigned group = ((1u << kLanes) - 1u) << first;
    long long k[S], it[S];
    double c[S][FMAX];
    bool act[S], any = false;
#pragma unroll
    for (int q = 0; q < S; q++) {
        act[q] = take<FMAX>(R, xr, nf, row, ctr, lane, first, group, &k[q], c[q]);
        it[q] = 0;
        any = any || act[q];
    }
    while (__syncthreads_or(any)) {
        double A[S], B[S][FMAX], sw[S], sx[S][FMAX];
#pragma unroll
        for (int q = 0; q < S; q++) {
            A[q] = 1.0;
            sw[q] = 0;
#pragma unroll
            for (int f = 0; f < FMAX; f++) {
                B[q][f] = f < nf ? -2.0 * r2 * c[q][f] : 0.0;
                sx[q][f] = 0;
                if (f < nf) A[q] = fma(r2 * c[q][f], c[q][f], A[q]);
            }
        }
        for (long long j0 = 0; j0 < R.rows; j0 += tile_rows) {
            int tn = (int)(R.rows - j0 < tile_rows ? R.rows - j0 : tile_rows);
            __syncthreads();
            for (int i = threadIdx.x; i < tn * row; i += blockDim.x) tile[i] = xr[j0 * row + i];
            __syncthreads();
            if (!any) continue;
#pragma unroll 4
            for (int j = lane; j < tn; j += kLanes) {
                const double *p = tile + j * row;
                double x[FMAX], s = p[nf];
#pragma unroll
                for (int f = 0; f < FMAX; f++) x[f] = f < nf ? p[f] : 0.0;
#pragma unroll
                for (int q = 0; q < S; q++) {
                    double t = A[q] + s;
#pragma unroll
                    for (int f = 0; f < FMAX; f++)
                        if (f < nf) t = fma(B[q][f], x[f], t);
                    double u = rcp(t), w = u * u;
                    sw[q] += w;
#pragma unroll
                    for (int f = 0; f < FMAX; f++)
                        if (f < nf) sx[q][f] = fma(w, x[f], sx[q][f]);
                }
            }
        }
        if (!any) continue;
        any = false;
#pragma unroll
        for (int q = 0; q < S; q++) {
            double tw = lanes_sum(sw[q], group), e = 0, nc[FMAX];
#pragma unroll
            for (int f = 0; f < FMAX; f++) {
                nc[f] = lanes_sum(sx[q][f], group) / tw;
                double d = nc[f] - c[q][f];
                if (f < nf) e = fma(d, d, e);
            }
            if (act[q]) {
#pragma unroll
                for (int f = 0; f < FMAX; f++) c[q][f] = nc[f];
                it[q]++;
                if (e < eps1 || it[q] >= max_it) {
                    long long o = R.out0 + k[q];
                    if (lane == 0) {
#pragma unroll
                        for (int f = 0; f < FMAX; f++)
                            if (f < nf) v[o * nf + f] = c[q][f] + m[f];
                        its[o] = it[q];
                        conv[o] = e < eps1;
                    }
                    act[q] = take<FMAX>(R, xr, nf, row, ctr, lane, first, group, &k[q], c[q]);
                    it[q] = 0;
                }
            }
            any = any || act[q];
        }
    }
}

} // namespace fast

#endif
