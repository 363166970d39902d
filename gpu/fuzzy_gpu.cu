/* The Fuzzy Minimals iteration on the device (see gpu/fuzzy_gpu.h).
 *
 * Every floating-point operation is an explicit round-to-nearest intrinsic
 * (__dadd_rn, __dmul_rn, ...: never contracted into an FMA) or an IEEE
 * division/reciprocal, in the order workloads/fuzzy/fm.c uses, so a start's
 * trajectory is the CPU's to the bit. The study's kernel (its Algorithm 10) ran
 * one block per partition and read the partition from global memory for every
 * object; here each block stages a tile of rows in shared memory that all its
 * threads read (a broadcast), and each range gets as many blocks as fill the
 * device. */
#include <cuda_runtime.h>
#include <climits>
#include <cstdint>
#include <cstdlib>
#include <cstring>

#include "gpu/check.h"
#include "gpu/fuzzy_gpu.h"
#include "gpu/rn.h"

namespace {

/* Small blocks: one thread per start gives few threads (40646 for the study's largest set), and
 * small blocks spread them evenly over the SMs. */
constexpr int kThreads = 64;
constexpr int kTile = MU_GPU_FM_TILE;

struct range_d {
    long long row0, rows, first, count, out0;
};

/* mu^2 for a squared distance d2: 1/(1 + r2 d2), squared (the reciprocal is
 * correctly rounded, as 1.0 / x is on the CPU). */
__device__ __forceinline__ double weight(double r2, double d2) {
    double u = __drcp_rn(add_rn(1.0, mul_rn(r2, d2)));
    return mul_rn(u, u);
}

/* In a kernel's loop over tiles: rows [J0, J0 + TILE_ROWS) of the ROWS x NF
 * matrix X (fewer at its end) into the block's shared TILE, after the
 * previous tile is consumed; their count in TN. (A macro: as an inlined
 * function it moved registers in fmf_kernel.) */
#define FM_LOAD_TILE(TN, TILE, X, J0, ROWS, TILE_ROWS, NF)                                         \
    int TN = (int)((ROWS) - (J0) < (TILE_ROWS) ? (ROWS) - (J0) : (TILE_ROWS));                     \
    __syncthreads();                                                                               \
    for (int i = threadIdx.x; i < TN * (NF); i += blockDim.x) TILE[i] = X[(J0) * (NF) + i];        \
    __syncthreads()

/* 2-D: two lanes (even and odd rows of each summation block), as block_2d(). */
__global__ void __launch_bounds__(kThreads)
    fm2_kernel(const double2 *__restrict__ x, const range_d *__restrict__ ranges,
               unsigned long long *__restrict__ next, double r2, double eps1, long long max_it,
               long long block, double *__restrict__ v, long long *__restrict__ its,
               int *__restrict__ conv) {
    __shared__ double2 tile[kTile];
    const range_d R = ranges[blockIdx.y];
    const double2 *xs = x + R.row0;
    const long long blk = block > 0 ? block : R.rows;
    unsigned long long *ctr = next + blockIdx.y;
    long long k = (long long)atomicAdd(ctr, 1ULL);
    bool active = k < R.count;
    double c0 = 0, c1 = 0;
    long long it = 0;
    if (active) {
        double2 p = xs[R.first + k];
        c0 = p.x;
        c1 = p.y;
    }
    while (__syncthreads_or(active)) {
        double tw = 0, ta = 0, tb = 0;
        double w0 = 0, w1 = 0, a0 = 0, a1 = 0, b0 = 0, b1 = 0;
        for (long long j0 = 0; j0 < R.rows; j0 += kTile) {
            FM_LOAD_TILE(tn, tile, xs, j0, R.rows, kTile, 1);
            if (!active) continue;
            int t = 0;
#pragma unroll 4
            for (; t + 1 < tn; t += 2) {
                double2 p = tile[t], q = tile[t + 1];
                double dp0 = sub_rn(p.x, c0), dp1 = sub_rn(p.y, c1);
                double dq0 = sub_rn(q.x, c0), dq1 = sub_rn(q.y, c1);
                double wp = weight(r2, add_rn(mul_rn(dp0, dp0), mul_rn(dp1, dp1)));
                double wq = weight(r2, add_rn(mul_rn(dq0, dq0), mul_rn(dq1, dq1)));
                w0 = add_rn(w0, wp);
                a0 = add_rn(a0, mul_rn(wp, p.x));
                b0 = add_rn(b0, mul_rn(wp, p.y));
                w1 = add_rn(w1, wq);
                a1 = add_rn(a1, mul_rn(wq, q.x));
                b1 = add_rn(b1, mul_rn(wq, q.y));
            }
            if (t < tn) { /* the odd last row of the last block: lane 0 */
                double2 p = tile[t];
                double d0 = sub_rn(p.x, c0), d1 = sub_rn(p.y, c1);
                double wp = weight(r2, add_rn(mul_rn(d0, d0), mul_rn(d1, d1)));
                w0 = add_rn(w0, wp);
                a0 = add_rn(a0, mul_rn(wp, p.x));
                b0 = add_rn(b0, mul_rn(wp, p.y));
            }
            long long end = j0 + tn;
            if (end == R.rows || end % blk == 0) { /* a summation block ends */
                tw = add_rn(tw, add_rn(w0, w1));
                ta = add_rn(ta, add_rn(a0, a1));
                tb = add_rn(tb, add_rn(b0, b1));
                w0 = w1 = a0 = a1 = b0 = b1 = 0;
            }
        }
        if (!active) continue;
        double n0 = __ddiv_rn(ta, tw), n1 = __ddiv_rn(tb, tw);
        double d0 = sub_rn(n0, c0), d1 = sub_rn(n1, c1);
        double e = add_rn(mul_rn(d0, d0), mul_rn(d1, d1));
        c0 = n0;
        c1 = n1;
        it++;
        bool done = e < eps1;
        if (done || it >= max_it) {
            long long o = R.out0 + k;
            v[2 * o] = c0;
            v[2 * o + 1] = c1;
            its[o] = it;
            conv[o] = done;
            k = (long long)atomicAdd(ctr, 1ULL);
            active = k < R.count;
            if (active) {
                double2 p = xs[R.first + k];
                c0 = p.x;
                c1 = p.y;
                it = 0;
            }
        }
    }
}

/* Any dimension up to FMAX: one lane, as block_any(). Tile: kTile x F doubles. */
template <int FMAX>
__global__ void __launch_bounds__(kThreads)
    fmf_kernel(const double *__restrict__ x, int F, const range_d *__restrict__ ranges,
               unsigned long long *__restrict__ next, double r2, double eps1, long long max_it,
               long long block, double *__restrict__ v, long long *__restrict__ its,
               int *__restrict__ conv) {
    extern __shared__ double tilef[];
    const range_d R = ranges[blockIdx.y];
    const double *xs = x + R.row0 * F;
    const long long blk = block > 0 ? block : R.rows;
    unsigned long long *ctr = next + blockIdx.y;
    long long k = (long long)atomicAdd(ctr, 1ULL);
    bool active = k < R.count;
    double c[FMAX], s[FMAX], t[FMAX];
    double sw = 0, tw = 0;
    long long it = 0;
    if (active)
        for (int f = 0; f < F; f++) c[f] = xs[(R.first + k) * F + f];
    while (__syncthreads_or(active)) {
        tw = 0;
        sw = 0;
        for (int f = 0; f < F; f++) s[f] = t[f] = 0;
        for (long long j0 = 0; j0 < R.rows; j0 += kTile) {
            FM_LOAD_TILE(tn, tilef, xs, j0, R.rows, kTile, F);
            if (!active) continue;
            for (int j = 0; j < tn; j++) {
                const double *xj = tilef + j * F;
                double d2 = 0;
                for (int f = 0; f < F; f++) {
                    double d = sub_rn(xj[f], c[f]);
                    d2 = add_rn(d2, mul_rn(d, d));
                }
                double w = weight(r2, d2);
                sw = add_rn(sw, w);
                for (int f = 0; f < F; f++) s[f] = add_rn(s[f], mul_rn(w, xj[f]));
            }
            long long end = j0 + tn;
            if (end == R.rows || end % blk == 0) {
                tw = add_rn(tw, sw);
                sw = 0;
                for (int f = 0; f < F; f++) {
                    t[f] = add_rn(t[f], s[f]);
                    s[f] = 0;
                }
            }
        }
        if (!active) continue;
        double e = 0;
        for (int f = 0; f < F; f++) {
            double nf = __ddiv_rn(t[f], tw);
            double d = sub_rn(nf, c[f]);
            e = add_rn(e, mul_rn(d, d));
            c[f] = nf;
        }
        it++;
        bool done = e < eps1;
        if (done || it >= max_it) {
            long long o = R.out0 + k;
            for (int f = 0; f < F; f++) v[o * F + f] = c[f];
            its[o] = it;
            conv[o] = done;
            k = (long long)atomicAdd(ctr, 1ULL);
            active = k < R.count;
            if (active) {
                for (int f = 0; f < F; f++) c[f] = xs[(R.first + k) * F + f];
                it = 0;
            }
        }
    }
}

typedef void (*fmf_fn)(const double *, int, const range_d *, unsigned long long *, double, double,
                       long long, long long, double *, long long *, int *);

fmf_fn pick_fmf(int F) {
    if (F <= 4) return fmf_kernel<4>;
    if (F <= 8) return fmf_kernel<8>;
    return fmf_kernel<MU_GPU_FM_MAX_FEATURES>;
}

/* Acceptance: 256 threads, one block per range. */
constexpr int kAccept = 256;

/* mu_fm_accept's test of one pair, in its order: fresh when |c - p|^2 > eps2. */
__device__ __forceinline__ bool apart(const double *c, const double *p, int F, double eps2) {
    double d2 = 0;
    for (int f = 0; f < F; f++) {
        double d = sub_rn(c[f], p[f]);
        d2 = add_rn(d2, mul_rn(d, d));
    }
    return d2 > eps2;
}

/* mu_fm_accept over each range's end points, one block per range. The block
 * takes a window of kAccept candidates at a time, one per thread, and tests
 * each against the prototypes accepted before the window (P). A candidate
 * that P rejects is rejected in start order too (the list only grows). The
 * first survivor a of the window met exactly P when its turn came (every
 * candidate before it in the window was rejected), so it is accepted; the
 * later survivors are then tested against a alone, and so on until the window
 * has none: after each window the list is mu_fm_accept's after the same
 * starts. Each pair's distance is the CPU's expression in the CPU's order. */
__global__ void __launch_bounds__(kAccept)
    accept_kernel(const double *__restrict__ v, const int *__restrict__ conv,
                  const range_d *__restrict__ ranges, int F, double eps2, double *proto,
                  long long *from, long long *nproto) {
    __shared__ int win;
    const range_d R = ranges[blockIdx.x];
    const double *cv = v + R.out0 * F;
    double *P = proto + R.out0 * F; /* written and read by this block: not __restrict__ */
    long long *fr = from + R.out0;
    long long m = 0; /* the same on every thread */
    for (long long k0 = 0; k0 < R.count; k0 += kAccept) {
        const long long k = k0 + threadIdx.x;
        const double *c = cv + k * F;
        bool alive = k < R.count && conv[R.out0 + k];
        for (long long j = 0; j < m && alive; j++) alive = apart(c, P + j * F, F, eps2);
        for (;;) {
            if (threadIdx.x == 0) win = INT_MAX;
            __syncthreads();
            if (alive) atomicMin(&win, (int)threadIdx.x);
            __syncthreads();
            const int w = win;
            if (w == INT_MAX) break; /* the same on every thread */
            if ((int)threadIdx.x == w) {
                for (int f = 0; f < F; f++) P[m * F + f] = c[f];
                fr[m] = k;
                alive = false;
            }
            __syncthreads(); /* P[m] visible to the block; win read by all */
            if (alive) alive = apart(c, P + m * F, F, eps2);
            m++;
        }
        __syncthreads(); /* win read by all before the next window resets it */
    }
    if (threadIdx.x == 0) nproto[blockIdx.x] = m;
}

#include "gpu/fuzzy_fast.h"

typedef void (*fast_fn)(const double *, const float *, int, const range_d *, const double *,
                        unsigned long long *, double, double, long long, int, double *, long long *,
                        int *);

/* Starts a group iterates at once in the wide form (used where the starts fill
 * the device many times over): more pairs for each row read from shared memory. */
int wide_slots(int F) {
    return F == 2 ? 4 : F <= 4 ? 2 : 1;
}

fast_fn pick_fast(int F, bool wide) {
    if (F == 2) return wide ? fast::fm_kernel<2, 4> : fast::fm_kernel<2, 1>;
    if (F <= 4) return wide ? fast::fm_kernel<4, 2> : fast::fm_kernel<4, 1>;
    if (F <= 8) return fast::fm_kernel<8, 1>;
    return fast::fm_kernel<MU_GPU_FM_MAX_FEATURES, 1>;
}

} // namespace

struct mu_gpu_fm {
    int F;
    int64_t n;
    double *x;               /* n x F on the device */
    int sms, blocks_per_sm;  /* resident blocks of the kernel this F uses */
    range_d *ranges;         /* device, cap_ranges */
    unsigned long long *ctr; /* device, cap_ranges */
    int cap_ranges;
    double *v; /* device outputs, cap_out starts */
    long long *its;
    int *conv;
    int64_t cap_out;
    double *proto; /* device acceptance outputs: cap_out starts, cap_ranges counts */
    long long *from, *nproto;
    cudaEvent_t t0, t1;
    int fast;           /* mu_gpu_fm_set_fast: the fast kernel */
    int fast_per_sm[2]; /* resident blocks of its kernels, narrow and wide */
    float *xs;          /* fast: the shifted, scaled rows (n x F) */
    double *mid;        /* fast: cap_ranges x F centres */
    int cap_mid;
};

/* A device array to make anew: where its pointer is, and its new size. */
struct dev_array {
    void **p;
    size_t bytes;
};
template <typename T> static dev_array dev_array_of(T **p, size_t n) {
    return dev_array{(void **)p, n * sizeof **p};
}

/* The arrays a made anew at their new sizes: all the old ones freed (and
 * NULL) before any new one is made. */
template <size_t N> static int remake(const dev_array (&a)[N]) {
    for (size_t i = 0; i < N; i++) {
        MU_CUDA(cudaFree(*a[i].p));
        *a[i].p = NULL;
    }
    for (size_t i = 0; i < N; i++) MU_CUDA(cudaMalloc(a[i].p, a[i].bytes));
    return 0;
}

static int grow(mu_gpu_fm *c, int nranges, int64_t starts) {
    if (nranges > c->cap_ranges) {
        const size_t n = (size_t)nranges;
        c->cap_ranges = 0;
        if (remake({dev_array_of(&c->ranges, n), dev_array_of(&c->ctr, n),
                    dev_array_of(&c->nproto, n)}))
            return 1;
        c->cap_ranges = nranges;
    }
    if (starts > c->cap_out) {
        const size_t n = (size_t)starts, nf = (size_t)(starts * c->F);
        c->cap_out = 0;
        if (remake({dev_array_of(&c->v, nf), dev_array_of(&c->its, n), dev_array_of(&c->conv, n),
                    dev_array_of(&c->proto, nf), dev_array_of(&c->from, n)}))
            return 1;
        c->cap_out = starts;
    }
    return 0;
}

extern "C" {

int mu_gpu_fm_create(const double *x, int64_t n, int F, mu_gpu_fm **ctx) {
    *ctx = NULL;
    if (F < 1 || F > MU_GPU_FM_MAX_FEATURES)
        return mu_gpu_fail("%d features: the GPU iteration takes 1..%d", F, MU_GPU_FM_MAX_FEATURES);
    if (n < 1) return mu_gpu_fail("no objects");
    mu_gpu_fm *c = (mu_gpu_fm *)calloc(1, sizeof *c);
    if (!c) return mu_gpu_fail("out of memory");
    int rc = 0, dev = 0;
    c->F = F;
    c->n = n;
    size_t shared = F == 2 ? 0 : (size_t)kTile * (size_t)F * sizeof(double);
    MU_CUDA_GOTO(cudaGetDevice(&dev));
    MU_CUDA_GOTO(cudaDeviceGetAttribute(&c->sms, cudaDevAttrMultiProcessorCount, dev));
    if (F == 2) {
        MU_CUDA_GOTO(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c->blocks_per_sm, fm2_kernel,
                                                                   kThreads, 0));
    } else {
        fmf_fn fn = pick_fmf(F);
        if (shared > 48 * 1024)
            MU_CUDA_GOTO(cudaFuncSetAttribute(
                (const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        MU_CUDA_GOTO(
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&c->blocks_per_sm, fn, kThreads, shared));
    }
    if (c->blocks_per_sm < 1) c->blocks_per_sm = 1;
    MU_CUDA_GOTO(cudaEventCreate(&c->t0));
    MU_CUDA_GOTO(cudaEventCreate(&c->t1));
    MU_CUDA_GOTO(cudaMalloc(&c->x, (size_t)(n * F) * sizeof *c->x));
    MU_CUDA_GOTO(cudaMemcpy(c->x, x, (size_t)(n * F) * sizeof *c->x, cudaMemcpyHostToDevice));
done:
    if (rc) {
        mu_gpu_fm_destroy(c);
        return rc;
    }
    *ctx = c;
    return 0;
}

int mu_gpu_fm_set_fast(mu_gpu_fm *c, int fast) {
    if (!fast || c->fast) {
        c->fast = fast;
        return 0;
    }
    const int F = c->F;
    size_t shared = (size_t)fast::tile_rows(F) * (size_t)F * sizeof(float);
    for (int wide = 0; wide <= 1; wide++) {
        fast_fn fn = pick_fast(F, wide);
        int *per_sm = &c->fast_per_sm[wide];
        if (shared > 48 * 1024)
            MU_CUDA(cudaFuncSetAttribute((const void *)fn,
                                         cudaFuncAttributeMaxDynamicSharedMemorySize, (int)shared));
        MU_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(per_sm, fn, fast::kBlock, shared));
        if (*per_sm < 1) *per_sm = 1;
    }
    MU_CUDA(cudaMalloc(&c->xs, (size_t)(c->n * F) * sizeof *c->xs));
    c->fast = 1;
    return 0;
}

static int by_rows(const void *a, const void *b) {
    const mu_gpu_fm_range *x = (const mu_gpu_fm_range *)a, *y = (const mu_gpu_fm_range *)b;
    if (x->row0 != y->row0) return x->row0 < y->row0 ? -1 : 1;
    return x->rows < y->rows ? -1 : x->rows > y->rows;
}

/* Ranges of the fast form share their rows' centre: equal or disjoint. */
static int fast_ranges_ok(const mu_gpu_fm_range *g, int n) {
    mu_gpu_fm_range *s = (mu_gpu_fm_range *)malloc((size_t)n * sizeof *s);
    if (!s) return mu_gpu_fail("out of memory for %d ranges", n);
    memcpy(s, g, (size_t)n * sizeof *s);
    qsort(s, (size_t)n, sizeof *s, by_rows);
    int bad = 0;
    for (int i = 1; i < n && !bad; i++)
        bad = by_rows(&s[i - 1], &s[i]) != 0 && s[i - 1].row0 + s[i - 1].rows > s[i].row0;
    free(s);
    return bad ? mu_gpu_fail("the fast form: two ranges share only part of their rows") : 0;
}

/* The ranges checked against the copy, in device form (outputs packed). */
static int device_ranges(const mu_gpu_fm *c, const mu_gpu_fm_range *ranges, int nranges, range_d *h,
                         int64_t *total, int64_t *most) {
    *total = *most = 0;
    for (int i = 0; i < nranges; i++) {
        const mu_gpu_fm_range *g = &ranges[i];
        if (g->row0 < 0 || g->rows < 1 || g->row0 + g->rows > c->n || g->first < 0 ||
            g->count < 0 || g->first + g->count > g->rows)
            return mu_gpu_fail("range %d (rows %lld+%lld, starts %lld+%lld) outside the %lld rows",
                               i, (long long)g->row0, (long long)g->rows, (long long)g->first,
                               (long long)g->count, (long long)c->n);
        h[i] = range_d{g->row0, g->rows, g->first, g->count, *total};
        *total += g->count;
        if (g->count > *most) *most = g->count;
    }
    return c->fast ? fast_ranges_ok(ranges, nranges) : 0;
}

/* Blocks per range: enough for its starts (threads each), at most an even
 * share of what the device holds at once (finished starts take the next). */
static unsigned blocks_x(int64_t most, int threads, int block, int64_t resident_blocks,
                         int nranges) {
    int64_t share = (resident_blocks + nranges - 1) / nranges;
    int64_t bx = (most * threads + block - 1) / block;
    if (bx > share) bx = share;
    return (unsigned)(bx < 1 ? 1 : bx);
}

static int launch_bitwise(mu_gpu_fm *c, int nranges, int64_t most, double r2, double eps1,
                          int64_t max_it, int64_t sum_block) {
    const int F = c->F;
    size_t shared = F == 2 ? 0 : (size_t)kTile * (size_t)F * sizeof(double);
    unsigned bx = blocks_x(most, 1, kThreads, (int64_t)c->sms * c->blocks_per_sm, nranges);
    for (int y0 = 0; y0 < nranges; y0 += 65535) {
        dim3 grid(bx, (unsigned)(nranges - y0 < 65535 ? nranges - y0 : 65535));
        if (F == 2)
            fm2_kernel<<<grid, kThreads>>>((const double2 *)c->x, c->ranges + y0, c->ctr + y0, r2,
                                           eps1, (long long)max_it, (long long)sum_block, c->v,
                                           c->its, c->conv);
        else
            pick_fmf(F)<<<grid, kThreads, shared>>>(c->x, F, c->ranges + y0, c->ctr + y0, r2, eps1,
                                                    (long long)max_it, (long long)sum_block, c->v,
                                                    c->its, c->conv);
        MU_LAUNCHED();
    }
    return 0;
}

static int launch_fast(mu_gpu_fm *c, int nranges, int64_t most, double r2, double eps1,
                       int64_t max_it) {
    const int F = c->F;
    if (nranges > c->cap_mid) {
        c->cap_mid = 0;
        if (remake({dev_array_of(&c->mid, (size_t)nranges * F)})) return 1;
        c->cap_mid = nranges;
    }
    size_t shared = (size_t)fast::tile_rows(F) * (size_t)F * sizeof(float);
    const double r = sqrt(r2);
    /* The wide form where the starts fill the device many times over (each
     * start then takes longer, which only a long queue hides). */
    int64_t held = (int64_t)c->sms * c->fast_per_sm[0] * (fast::kBlock / fast::kLanes);
    const bool wide = F <= 4 && most >= 8 * held;
    const int slots = wide ? wide_slots(F) : 1;
    unsigned bx = blocks_x(most, fast::kLanes / slots, fast::kBlock,
                           (int64_t)c->sms * c->fast_per_sm[wide], nranges);
    for (int y0 = 0; y0 < nranges; y0 += 65535) {
        unsigned ny = (unsigned)(nranges - y0 < 65535 ? nranges - y0 : 65535);
        fast::centre_kernel<<<ny, 256>>>(c->x, F, c->ranges + y0, c->mid + (size_t)y0 * F);
        MU_LAUNCHED();
        fast::shift_kernel<<<dim3((unsigned)c->sms * 4, ny), 256>>>(
            c->x, F, c->ranges + y0, c->mid + (size_t)y0 * F, r, c->xs);
        MU_LAUNCHED();
        pick_fast(F, wide)<<<dim3(bx, ny), fast::kBlock, shared>>>(
            c->x, c->xs, F, c->ranges + y0, c->mid + (size_t)y0 * F, c->ctr + y0, r, eps1,
            (long long)max_it, fast::tile_rows(F), c->v, c->its, c->conv);
        MU_LAUNCHED();
    }
    return 0;
}

/* The iteration over the ranges, end points left on the device; *total: the starts. */
static int launch(mu_gpu_fm *c, const mu_gpu_fm_range *ranges, int nranges, double r2, double eps1,
                  int64_t max_it, int64_t sum_block, float *kernel_ms, int64_t *total_out) {
    *total_out = 0;
    if (sum_block > 0 && sum_block % kTile != 0)
        return mu_gpu_fail("summation blocks of %lld rows: not a multiple of %d",
                           (long long)sum_block, kTile);
    range_d *h = (range_d *)malloc((size_t)nranges * sizeof *h);
    if (!h) return mu_gpu_fail("out of memory for %d ranges", nranges);
    int64_t total = 0, most = 0;
    int rc = device_ranges(c, ranges, nranges, h, &total, &most);
    if (!rc) rc = grow(c, nranges, total > 0 ? total : 1);
    if (rc) {
        free(h);
        return rc;
    }
    MU_CUDA_GOTO(cudaMemcpy(c->ranges, h, (size_t)nranges * sizeof *h, cudaMemcpyHostToDevice));
    MU_CUDA_GOTO(cudaMemset(c->ctr, 0, (size_t)nranges * sizeof *c->ctr));
    MU_CUDA_GOTO(cudaEventRecord(c->t0));
    rc = c->fast ? launch_fast(c, nranges, most, r2, eps1, max_it)
                 : launch_bitwise(c, nranges, most, r2, eps1, max_it, sum_block);
    if (rc) goto done;
    MU_CUDA_GOTO(cudaEventRecord(c->t1));
    MU_CUDA_GOTO(cudaEventSynchronize(c->t1));
    if (kernel_ms) MU_CUDA_GOTO(cudaEventElapsedTime(kernel_ms, c->t0, c->t1));
    *total_out = total;
done:
    free(h);
    return rc;
}

/* The per-start statistics of the last launch. */
static int copy_stats(mu_gpu_fm *c, int64_t total, int64_t *iterations, int *converged) {
    static_assert(sizeof(long long) == sizeof(int64_t), "64-bit iteration counts");
    if (total < 1) return 0;
    MU_CUDA(
        cudaMemcpy(iterations, c->its, (size_t)total * sizeof *iterations, cudaMemcpyDeviceToHost));
    MU_CUDA(
        cudaMemcpy(converged, c->conv, (size_t)total * sizeof *converged, cudaMemcpyDeviceToHost));
    return 0;
}

/* Acceptance over the end points in c->v / c->conv of the nranges ranges now
 * in c->ranges (counts: their starts, host side); packed outputs. */
static int accept_ranges(mu_gpu_fm *c, int nranges, const int64_t *counts, double eps2,
                         double *proto, int64_t *from, int64_t *nproto) {
    const int F = c->F;
    accept_kernel<<<(unsigned)nranges, kAccept>>>(c->v, c->conv, c->ranges, F, eps2, c->proto,
                                                  c->from, c->nproto);
    MU_LAUNCHED();
    MU_CUDA(
        cudaMemcpy(nproto, c->nproto, (size_t)nranges * sizeof *nproto, cudaMemcpyDeviceToHost));
    int64_t in = 0, out = 0;
    for (int i = 0; i < nranges; i++) {
        if (nproto[i] < 0 || nproto[i] > counts[i])
            return mu_gpu_fail("range %d: %lld prototypes of %lld starts", i, (long long)nproto[i],
                               (long long)counts[i]);
        if (nproto[i] > 0) {
            MU_CUDA(cudaMemcpy(proto + out * F, c->proto + in * F,
                               (size_t)(nproto[i] * F) * sizeof *proto, cudaMemcpyDeviceToHost));
            MU_CUDA(cudaMemcpy(from + out, c->from + in, (size_t)nproto[i] * sizeof *from,
                               cudaMemcpyDeviceToHost));
        }
        in += counts[i];
        out += nproto[i];
    }
    return 0;
}

int mu_gpu_fm_run(mu_gpu_fm *c, const mu_gpu_fm_range *ranges, int nranges, double r2, double eps1,
                  int64_t max_it, int64_t sum_block, double *v, int64_t *iterations, int *converged,
                  float *kernel_ms) {
    if (nranges < 1) return 0;
    int64_t total = 0;
    int rc = launch(c, ranges, nranges, r2, eps1, max_it, sum_block, kernel_ms, &total);
    if (rc) return rc;
    const int F = c->F;
    if (total > 0) {
        MU_CUDA(cudaMemcpy(v, c->v, (size_t)(total * F) * sizeof *v, cudaMemcpyDeviceToHost));
    }
    return copy_stats(c, total, iterations, converged);
}

int mu_gpu_fm_run_accept(mu_gpu_fm *c, const mu_gpu_fm_range *ranges, int nranges, double r2,
                         double eps1, int64_t max_it, int64_t sum_block, double eps2, double *proto,
                         int64_t *from, int64_t *nproto, int64_t *iterations, int *converged,
                         float *kernel_ms) {
    if (nranges < 1) return 0;
    int64_t total = 0;
    int rc = launch(c, ranges, nranges, r2, eps1, max_it, sum_block, kernel_ms, &total);
    if (rc) return rc;
    int64_t *counts = (int64_t *)malloc((size_t)nranges * sizeof *counts);
    if (!counts) return mu_gpu_fail("out of memory for %d ranges", nranges);
    for (int i = 0; i < nranges; i++) counts[i] = ranges[i].count;
    rc = accept_ranges(c, nranges, counts, eps2, proto, from, nproto);
    free(counts);
    return rc ? rc : copy_stats(c, total, iterations, converged);
}

int mu_gpu_fm_accept(mu_gpu_fm *c, const double *v, const int *converged, int64_t count,
                     double eps2, double *proto, int64_t *from, int64_t *m) {
    *m = 0;
    if (count < 1) return 0;
    int rc = grow(c, 1, count);
    if (rc) return rc;
    range_d h = {0, count, 0, count, 0};
    MU_CUDA(cudaMemcpy(c->ranges, &h, sizeof h, cudaMemcpyHostToDevice));
    MU_CUDA(cudaMemcpy(c->v, v, (size_t)(count * c->F) * sizeof *v, cudaMemcpyHostToDevice));
    MU_CUDA(
        cudaMemcpy(c->conv, converged, (size_t)count * sizeof *converged, cudaMemcpyHostToDevice));
    return accept_ranges(c, 1, &count, eps2, proto, from, m);
}

void mu_gpu_fm_destroy(mu_gpu_fm *c) {
    if (!c) return;
    int rc = 0;
    MU_CUDA_KEEP(cudaFree(c->x));
    MU_CUDA_KEEP(cudaFree(c->ranges));
    MU_CUDA_KEEP(cudaFree(c->ctr));
    MU_CUDA_KEEP(cudaFree(c->v));
    MU_CUDA_KEEP(cudaFree(c->its));
    MU_CUDA_KEEP(cudaFree(c->conv));
    MU_CUDA_KEEP(cudaFree(c->proto));
    MU_CUDA_KEEP(cudaFree(c->from));
    MU_CUDA_KEEP(cudaFree(c->nproto));
    MU_CUDA_KEEP(cudaFree(c->xs));
    MU_CUDA_KEEP(cudaFree(c->mid));
    if (c->t0) MU_CUDA_KEEP(cudaEventDestroy(c->t0));
    if (c->t1) MU_CUDA_KEEP(cudaEventDestroy(c->t1));
    (void)rc;
    free(c);
}

} /* extern "C" */
