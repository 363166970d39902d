/* The fast form of the Fuzzy Minimals iteration (--arith=fast), internal to
 * gpu/fuzzy_gpu.cu.
 *
 * The bitwise form pays for the CPU's rounding: no fused multiply-add, a
 * correctly rounded reciprocal and a subtraction per feature for every pair,
 * all in double precision. Here a pair is 4F + 2 single-precision instructions
 * and one hardware reciprocal for F features: the rows, moved to the centre of
 * their range's bounding box (min and max are exact in any order) and scaled
 * by r, are stored as floats X; the current centre C = r c is held as two
 * floats C_hi + C_lo, so that d = (X - C_hi) - C_lo keeps the centre's double
 * precision; t = 1 + |d|^2, w = (1/t)^2, and each thread sums w and w d over
 * its rows of a tile in single precision, then into double accumulators. The
 * step is sum(w d) / sum(w) / r, taken in double: what single precision
 * loses is a relative 2^-24 of each row's offset from the centre (the rows'
 * own rounding) and of each tile's partial sums, far below the tolerance the
 * tests hold the form to (docs/fuzzy.md).
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

/* 1/t for t >= 1 in single precision: the hardware's approximation. */
__device__ __forceinline__ float rcp(float t) {
    float y;
    asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(t));
    return y;
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

/* xs: each range's rows moved to its centre and scaled by r, in single
 * precision: X = r (x - mid), F floats a row. Ranges of one launch are equal
 * or disjoint. */
__global__ void shift_kernel(const double *__restrict__ x, int F,
                             const range_d *__restrict__ ranges, const double *__restrict__ mid,
                             double r, float *__restrict__ xs) {
    const range_d R = ranges[blockIdx.y];
    const double *m = mid + blockIdx.y * F;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < R.rows;
         i += (long long)gridDim.x * blockDim.x) {
        const double *p = x + (R.row0 + i) * F;
        float *q = xs + (R.row0 + i) * F;
        for (int f = 0; f < F; f++) q[f] = (float)(r * (p[f] - m[f]));
    }
}

/* Butterfly over the kLanes threads of a start: every thread ends with the
 * same sum (the pairs are fixed and addition commutes). */
__device__ __forceinline__ double lanes_sum(double v, unsigned group) {
    for (int m = 1; m < kLanes; m *= 2) v += __shfl_xor_sync(group, v, m);
    return v;
}

/* A start of a slot: its first point (x - mid in double), or inactive past the
 * range's starts. */
template <int FMAX>
__device__ __forceinline__ bool take(const range_d &R, const double *x, const double *m, int nf,
                                     unsigned long long *ctr, int lane, int first, unsigned group,
                                     long long *k, double *c) {
    long long got = 0;
    if (lane == 0) got = (long long)atomicAdd(ctr, 1ULL);
    *k = __shfl_sync(group, got, first);
    bool active = *k < R.count;
#pragma unroll
    for (int f = 0; f < FMAX; f++)
        c[f] = active && f < nf ? x[(R.row0 + R.first + *k) * nf + f] - m[f] : 0.0;
    return active;
}

/* FMAX == 2: exactly two features (unrolled); else F <= FMAX. Each group of
 * kLanes threads iterates S starts at once (slots), so a row read from shared
 * memory serves S pairs. A pair in single precision, relative to the centre
 * C = r c held as two floats (hi + lo, so the centre keeps double precision):
 * d = (X - C_hi) - C_lo, t = 1 + |d|^2, w = (1/t)^2, and the sums of w and w d;
 * a thread's sums over a tile (its tile_rows / kLanes rows) then go into double
 * accumulators, and the step is their ratio. Tile: tile_rows rows of F floats.
 * A start's sums are the same bits in every slot and kernel instance: at 10^6
 * points the prototypes match to the bit a build with every rounding spelled
 * out (__fadd_rn, __fmul_rn, ...), which ran slower. Output as the
 * bitwise kernels. */
template <int FMAX, int S>
__global__ void __launch_bounds__(kBlock)
    fm_kernel(const double *__restrict__ x, const float *__restrict__ xs, int F,
              const range_d *__restrict__ ranges, const double *__restrict__ mid,
              unsigned long long *__restrict__ next, double r, double eps1, long long max_it,
              int tile_rows, double *__restrict__ v, long long *__restrict__ its,
              int *__restrict__ conv) {
    extern __shared__ float tile[];
    const int nf = FMAX == 2 ? 2 : F;
    const range_d R = ranges[blockIdx.y];
    const float *xr = xs + R.row0 * nf;
    const double *m = mid + blockIdx.y * nf;
    unsigned long long *ctr = next + blockIdx.y;
    const int lane = threadIdx.x % kLanes, first = threadIdx.x % 32 - lane;
    const unsigned group = ((1u << kLanes) - 1u) << first;
    long long k[S], it[S];
    double c[S][FMAX];
    bool act[S], any = false;
#pragma unroll
    for (int q = 0; q < S; q++) {
        act[q] = take<FMAX>(R, x, m, nf, ctr, lane, first, group, &k[q], c[q]);
        it[q] = 0;
        any = any || act[q];
    }
    while (__syncthreads_or(any)) {
        float ch[S][FMAX], cl[S][FMAX];
        double tw[S], td[S][FMAX];
#pragma unroll
        for (int q = 0; q < S; q++) {
            tw[q] = 0;
#pragma unroll
            for (int f = 0; f < FMAX; f++) {
                double cs = f < nf ? r * c[q][f] : 0.0;
                ch[q][f] = (float)cs;
                cl[q][f] = (float)(cs - (double)ch[q][f]);
                td[q][f] = 0;
            }
        }
        for (long long j0 = 0; j0 < R.rows; j0 += tile_rows) {
            FM_LOAD_TILE(tn, tile, xr, j0, R.rows, tile_rows, nf);
            if (!any) continue;
            float sw[S], sd[S][FMAX];
#pragma unroll
            for (int q = 0; q < S; q++) {
                sw[q] = 0.0f;
#pragma unroll
                for (int f = 0; f < FMAX; f++) sd[q][f] = 0.0f;
            }
#pragma unroll 4
            for (int j = lane; j < tn; j += kLanes) {
                const float *p = tile + j * nf;
                float xj[FMAX];
#pragma unroll
                for (int f = 0; f < FMAX; f++) xj[f] = f < nf ? p[f] : 0.0f;
#pragma unroll
                for (int q = 0; q < S; q++) {
                    float d[FMAX], t = 1.0f;
#pragma unroll
                    for (int f = 0; f < FMAX; f++) {
                        d[f] = (xj[f] - ch[q][f]) - cl[q][f];
                        if (f < nf) t = fmaf(d[f], d[f], t);
                    }
                    float u = rcp(t), w = u * u;
                    sw[q] += w;
#pragma unroll
                    for (int f = 0; f < FMAX; f++)
                        if (f < nf) sd[q][f] = fmaf(w, d[f], sd[q][f]);
                }
            }
#pragma unroll
            for (int q = 0; q < S; q++) {
                tw[q] += (double)sw[q];
#pragma unroll
                for (int f = 0; f < FMAX; f++) td[q][f] += (double)sd[q][f];
            }
        }
        if (!any) continue;
        any = false;
#pragma unroll
        for (int q = 0; q < S; q++) {
            double w = lanes_sum(tw[q], group), e = 0, nc[FMAX];
#pragma unroll
            for (int f = 0; f < FMAX; f++) {
                double step = lanes_sum(td[q][f], group) / w / r;
                nc[f] = c[q][f] + step;
                if (f < nf) e = fma(step, step, e);
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
                    act[q] = take<FMAX>(R, x, m, nf, ctr, lane, first, group, &k[q], c[q]);
                    it[q] = 0;
                }
            }
            any = any || act[q];
        }
    }
}

} // namespace fast

#endif
