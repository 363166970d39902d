/* The advect kernels (see gpu/advect_gpu.h). One stream (and a side stream
 * for the sweeps' winds and densities, which need no fields: the next sweep's
 * run while this one's chains do, ordered by events); the host waits only
 * where it reads or hands over memory (every copy waits for the kernels queued
 * before it, then for itself): the Courant figures (mu_gpu_adv_check, once a
 * step on one rank), a periodic sweep's sign flags, the end fluxes of the
 * rounds and the chain check of a segment that waits for other ranks. So the
 * kernels of a sweep, and on one rank those of a whole step, queue behind one
 * another without a gap while the host launches ahead; an error of a queued
 * kernel is reported by the next wait. */
#include <chrono>
#include <cstdint>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <utility>
#include <vector>
#include "gpu/advect_gpu.h"
#include "gpu/advect_walcek.h"
#include "gpu/advect_walk2.h"
#include "gpu/check.h"

/* One end of the CUDA IPC exchanges: the receive buffers the neighbours
 * write, halo (2 slots by the parity of the exchange x (from prev, from next)
 * x hcap floats) and rounds (2 directions x the sweep's rounds x rslot), and
 * the events: a halo or a round's message sent (after the copies into the
 * neighbours) and used (after this rank's copy out of its buffer); a round's
 * per direction (forward, backward). */
enum { EV_HSENT, EV_HUSED, EV_RSENT, EV_RUSED = EV_RSENT + 2, PEER_EVENTS = EV_RUSED + 2 };
static_assert(2 + PEER_EVENTS == MU_GPU_ADV_IPC, "IPC handles");
struct peer_end {
    float *halo, *rounds;
    cudaEvent_t ev[PEER_EVENTS];
};

struct mu_gpu_adv {
    float *q, *qn, *flux, *buf;
    /* The sweep's face winds, face densities (rc[axis] itself, read only),
     * the faces' Courant numbers (adv_courant, shared by a line's fields) and
     * Walcek densities: the current axis's of the per-axis buffers below. */
    float *wu;
    const float *wrs;
    float *wcn, *wd0, *wd1;
    /* Per axis (allocated with its winds): face winds, Courant numbers, D0, D1.
     * A sweep's winds and densities need no fields, so they run on the side
     * stream, the next sweep's while this one's chains run (ready[a]: done;
     * freed[a]: the last sweep along a is over, its buffers free). */
    float *au[3], *acn[3], *ad0[3], *ad1[3];
    uint8_t *acls[3]; /* and classes and segments (open sweeps are classified there too) */
    adv_seg *aseg[3];
    /* Sweeps of segments alone on their lines (seg_alone) keep their classes
     * and segments from one step to the next: the density kernels mark a line
     * whose classes would change (adirty[a], per line), and only those are
     * classified again (the segment follows from the classes and the lines'
     * ends). cls_lines[a]: the lines those classes are of (m, G, first,
     * last); cls_ok[a]: they are such a sweep's (flux rounds change other
     * sweeps' segments, a periodic one's lap 2 its classes). */
    int *adirty[3];
    int cls_ok[3];
    int cls_lines[3][4];
    cudaStream_t side;
    cudaEvent_t ready[3], freed[3];
    uint8_t *cls;
    adv_seg *seg;
    adv_task *tasks;
    int32_t *fcells;
    int *cyc;
    unsigned long long *counters; /* streams, inflow-only cells, errors */
    double *wc[3];                /* per axis: the steady face winds, once per run */
    float *rc[3];                 /* and the face densities */
    int dsrc;                     /* the cell densities: -1 rho(z), 0-2 the D1 of that axis's
                                     sweep (ad1), -2 none (a sweep's winds without its end) */
    float *rho;                   /* rho(z) */
    int *pn;                      /* periodic lines: 2 sign flags per line */
    unsigned long long *wstat;    /* 5 pairs: largest Courant number (bits), bad faces/cells;
                                     0-2 per axis, 3-4 the next step's first sweep, alternately */
    unsigned long long *wstat_h;  /* their copies, 2 slots in pinned host memory (a step's
                                     check is read while the next step runs) */
    unsigned long long *words;    /* the step log: N exact sums (MU_XSUM_WORDS each) */
    int *keys;                    /* and N min keys, N max keys */
    double *rhodv;                /* rho(z) dV */
    int64_t qlen, gmax, nbuf;
    int mmax, N;
    float *rho_h; /* the rho(z) on the device, a host copy: uploaded again only if changed */
    int rho_n;    /* its levels (0: none yet) */
    int cyc_zero; /* the device's cycle signs are all 0 (no copy or clearing needed) */
    /* Per slot (a step being checked): the step's start and its sweeps' ends,
     * and its figures' copy; slot: the current step's; pend, npend: the
     * oldest slot posted and not yet read, and how many are; its ahead pair. */
    cudaEvent_t ev[2][4], sdone[2];
    int slot, pend, npend, pxpair[2];
    /* The next step's first sweep queued ahead (mu_gpu_adv_winds_ahead): its
     * geometry, the figures' pair it writes, whether it is still good; the
     * pair of the current step's sweep that came from one (0: none). */
    mu_gpu_adv_geom ahead_g;
    int ahead_pair, ahead_ok, xpair;
    int64_t ntasks, nf;
    cudaStream_t st;
    double kernel_s, copy_s, bytes;
    /* A halo packed ahead (mu_gpu_adv_begin's halo_ahead): its device buffer
     * (to prev, to next: hcap floats each) and 4 pinned host buffers (to prev,
     * to next, from prev, from next), the copy stream and the events of the
     * pack and of its copy; hax, hext, hn: its axis, the block's cells along
     * it and the floats a side; hfresh: axis + 1 of a halo filled ahead that
     * no sweep has used yet (0: none). */
    float *hdev, *hpin;
    int64_t hcap, hn;
    cudaStream_t cp;
    cudaEvent_t hsrc, hpacked;
    int hax, hext, hfresh, hdim[4]; /* and nxl, nyl, nz, N */
    /* CUDA IPC with the neighbours along one axis (mu_gpu_adv_peer_open):
     * this rank's end, the neighbours' (prev, next) opened; peer: that axis
     * + 1 (0: none); pcount: the halos exchanged; prounds, rslot: the flux
     * rounds a sweep along it makes, and the floats of one round's message. */
    peer_end pme, pnb[2];
    int peer, prounds;
    long long pcount, rslot;
    void *pinned[4]; /* host buffers page-locked by mu_gpu_adv_pin */
    int npinned;
};

namespace {

using clk = std::chrono::steady_clock;

double since(clk::time_point t0) {
    return std::chrono::duration<double>(clk::now() - t0).count();
}

using dgeom = mu_gpu_adv_sweep;

struct bufs {
    float *q, *qn, *flux, *wu;
    const float *wrs;
    float *wd0, *wd1, *buf, *wcn;
    uint8_t *cls;
    adv_seg *seg;
    adv_task *tasks;
    int32_t *fcells;
    int *cyc;
    unsigned long long *counters;
};

bufs of(const mu_gpu_adv *g) {
    return bufs{g->q,   g->qn,  g->flux, g->wu,    g->wrs,    g->wd0, g->wd1,     g->buf,
                g->wcn, g->cls, g->seg,  g->tasks, g->fcells, g->cyc, g->counters};
}

/* The column (x, y) or row (z, y / z, x) of a sweep's line g: its first cell. */
__device__ void line_xyz(const dgeom &w, int g, int *x, int *y, int *z) {
    *x = *y = *z = 0;
    if (w.axis == 0) {
        *z = g % w.nz;
        *y = g / w.nz;
    } else if (w.axis == 1) {
        *z = g % w.nz;
        *x = g / w.nz;
    } else {
        *x = g % w.nxl;
        *y = g / w.nxl;
    }
}

/* The same offsets as workloads/advect/sweep.c's adv_line_off. */
__device__ long long line_off(const dgeom &w, int g) {
    int x, y, z;
    line_xyz(w, g, &x, &y, &z);
    return (long long)w.N * (z + (long long)w.nz * ((x + 2) + (long long)w.sx * (y + 2)));
}

/* The sweep's face winds, Courant check and Walcek densities, as
 * workloads/advect/sweep_winds.c's adv_sweep_winds, a thread per cell: it computes the winds of
 * both its faces (the same expression as its neighbour's: the same bits), stores the right face's
 * wind and Courant number (cell 0 the left face's too), checks the right face if it is inside the
 * domain, and stores D0 = a and D1. */
struct wstat_acc {
    unsigned long long mx, nbad; /* the largest Courant number (bits), bad faces / cells */
};

/* The sweep's inputs that the density kernels turn into its winds and densities. */
struct wargs {
    const double *wc; /* the steady face winds (x tf) */
    const float *rs;  /* the face densities */
    float *u, *cn, *d0, *d1;
    int *pn; /* periodic: 2 sign flags per line, else NULL */
    unsigned long long *stat;
    const uint8_t *cls_prev; /* the open sweep's stored classes, or NULL (all lines classified) */
    int *dirty;              /* per line, cleared before: 1 where a class differs from cls_prev */
};

/* A cell's inputs besides its D0: its two faces' steady winds and densities.
 * The kernels load those of several cells before they store any (a store may
 * alias the face densities, so a load after one would wait for it). */
struct wcell {
    double wl, wr;
    float rl, rr;
    int cls; /* the class stored for the cell by the last classification (cls_prev) */
};

__device__ __forceinline__ wcell wind_load(const dgeom &w, const wargs &r, int g, int i) {
    long long f = (long long)g * (w.m + 1) + i; /* the left face; f + 1 the right one */
    wcell v;
    v.wl = r.wc[f];
    v.wr = r.wc[f + 1];
    v.rl = r.rs[f];
    v.rr = r.rs[f + 1];
    v.cls = r.cls_prev ? r.cls_prev[(long long)g * w.m + i] : 0;
    return v;
}

__device__ __forceinline__ void wind_cell(const dgeom &w, const wargs &r, const wcell &v, int g,
                                          int i, float a, wstat_acc *acc) {
    long long f = (long long)g * (w.m + 1) + i;
    float ul = (float)(v.wl * w.tf), ur = (float)(v.wr * w.tf);
    r.u[f + 1] = ur;
    r.cn[f + 1] = adv_courant(ur, w.dt, w.dx);
    if (i == 0) {
        r.u[f] = ul;
        r.cn[f] = adv_courant(ul, w.dt, w.dx);
    }
    long long gi = w.glo + i;
    if (w.periodic || gi + 1 < w.gn) { /* faces inside the domain */
        double c = fabs((double)ur) * w.dtdx;
        unsigned long long bits = (unsigned long long)__double_as_longlong(c);
        acc->mx = bits > acc->mx ? bits : acc->mx;
        if (c > 1) acc->nbad++;
    }
    if (r.pn) r.pn[2 * g + (ur >= 0 ? 0 : 1)] = 1;
    float fdtdx = (float)w.dtdx;
    int fixed = !w.periodic && (gi == 0 || gi == w.gn - 1);
    float b = fixed ? a : a - fdtdx * (v.rr * ur - v.rl * ul);
    long long k = (long long)g * w.m + i;
    r.d0[k] = a;
    r.d1[k] = b;
    if (!(b > 0)) acc->nbad++;
    /* the class k_classify would store now (fixed outside adv_seg_ends's [a, b)) */
    if (r.cls_prev) {
        int a0 = w.first ? 1 : 0, b0 = w.last ? w.m - 1 : w.m; /* an open sweep */
        int c = a0 < b0 && i >= a0 && i < b0 ? adv_class(ul, ur) : (int)ADV_FIXED;
        if (c != v.cls) r.dirty[g] = 1;
    }
}

/* The block's figures into stat: the largest Courant number as the maximum of
 * its bits (non-negative doubles order as their bits, and a maximum does not
 * depend on the order), reduced in the warps and the block first: one atomic
 * per block, not one per face on a single address (they serialize in L2).
 * Every thread of the block calls it. */
__device__ void wstat_flush(wstat_acc acc, unsigned long long *stat) {
    __shared__ unsigned long long wmax[32];
    unsigned long long mx = acc.mx;
    for (int o = 16; o > 0; o /= 2) {
        unsigned long long v = __shfl_xor_sync(0xffffffffu, mx, o);
        mx = v > mx ? v : mx;
    }
    int t = threadIdx.x + blockDim.x * threadIdx.y, lane = t % 32, wid = t / 32;
    int nw = (blockDim.x * blockDim.y + 31) / 32;
    if (lane == 0) wmax[wid] = mx;
    __syncthreads();
    if (wid == 0) {
        mx = lane < nw ? wmax[lane] : 0;
        for (int o = 16; o > 0; o /= 2) {
            unsigned long long v = __shfl_xor_sync(0xffffffffu, mx, o);
            mx = v > mx ? v : mx;
        }
        if (lane == 0 && mx) atomicMax(&stat[0], mx);
    }
    if (acc.nbad) atomicAdd(&stat[1], acc.nbad); /* rare: the host then names the place */
}

/* The cell of a sweep along axis A at coordinates c = (x, y, z): its line
 * (line_xyz's inverse); its cell along the line is c[A]. */
template <int A> __device__ __forceinline__ int cell_line(const dgeom &w, const int *c) {
    return A == 0 ? c[1] * w.nz + c[2] : A == 1 ? c[0] * w.nz + c[2] : c[1] * w.nxl + c[0];
}

/* The density kernels' blocks: 32 x DR threads, four cells a thread, DSPAN
 * lines (or cells along P) a block. DR = 4 ran the paper case's step fastest
 * of 2, 4 and 8 (perf/history/). */
constexpr int DR = 4, DT = 32 * DR, DSPAN = 4 * DR;

/* The cell densities are never stored as such: the step's first sweep takes
 * D0 = rho(z), each later sweep the D1 of the sweep before, read where that
 * sweep wrote it (its lines' layout). Each thread does four cells, their loads
 * first. k_dens_lin: from rho(z), or from the D1 of a sweep along the same
 * axis (the same layout), a warp over 32 cells of a line. Grid (lines /
 * DSPAN, cells / 32) of 32 x DR threads. */
__global__ void k_dens_lin(dgeom w, const float *rho, const float *prev, wargs r) {
    int i = blockIdx.y * 32 + threadIdx.x, g0 = blockIdx.x * DSPAN + threadIdx.y;
    wcell v[4] = {};
    float a[4] = {};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int g = g0 + DR * k;
        if (g < w.G && i < w.m) {
            v[k] = wind_load(w, r, g, i);
            a[k] = rho ? rho[w.axis == 2 ? i : g % w.nz] : prev[(long long)g * w.m + i];
        }
    }
    wstat_acc acc = {0, 0};
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int g = g0 + DR * k;
        if (g < w.G && i < w.m) wind_cell(w, r, v[k], g, i, a[k], &acc);
    }
    wstat_flush(acc, r.stat);
}

/* From the D1 of a sweep along axis P != A: its cells along P are the fastest,
 * this sweep's along A, so the values go through 32 x 32 tiles in shared
 * memory (32 x DSPAN, read and written whole). Grid (cells along P / DSPAN,
 * cells along A / 32, cells along the third axis) of 32 x DR threads. */
template <int P, int A> __global__ void k_dens_tr(dgeom w, const float *prev, wargs r) {
    constexpr int O = 3 - P - A;
    __shared__ float tile[32][DSPAN + 1];
    const int n[3] = {w.nxl, w.nyl, w.nz};
    int p0 = blockIdx.x * DSPAN, a0 = blockIdx.y * 32, tx = threadIdx.x, ty = threadIdx.y;
    int c[3];
    c[O] = blockIdx.z;
    for (int e = tx + 32 * ty; e < 32 * DSPAN; e += 32 * DR) { /* P fastest, as prev */
        int j = e / DSPAN, pp = e % DSPAN;
        c[A] = a0 + j;
        c[P] = p0 + pp;
        if (c[A] < n[A] && c[P] < n[P])
            tile[j][pp] = prev[(long long)cell_line<P>(w, c) * n[P] + c[P]];
    }
    /* this thread's cells: c[A] = a0 + tx, c[P] = p0 + ty + DR k; their winds
     * loaded while the tile fills */
    int gk[4] = {}, in[4] = {};
    wcell v[4] = {};
    c[A] = a0 + tx;
#pragma unroll
    for (int k = 0; k < 4; k++) {
        c[P] = p0 + ty + DR * k;
        in[k] = c[A] < n[A] && c[P] < n[P];
        gk[k] = cell_line<A>(w, c);
        if (in[k]) v[k] = wind_load(w, r, gk[k], c[A]);
    }
    __syncthreads();
    wstat_acc acc = {0, 0};
#pragma unroll
    for (int k = 0; k < 4; k++)
        if (in[k]) wind_cell(w, r, v[k], gk[k], c[A], tile[tx][ty + DR * k], &acc);
    wstat_flush(acc, r.stat);
}

/* The Z sweep's from the D1 of a sweep along P (X or Y) when the lines are
 * short (nz <= ZT): 32 x nz tiles, the whole of the lines in a block, written
 * with the block's threads over the tile's cells (z fastest), not a warp per
 * 32 z of which 38 - 32 = 6 would be used in every second tile; four cells a
 * thread at a time, their loads first. Grid (cells along P / 32, 1, cells
 * along the third axis) of 32 x DR threads. */
constexpr int ZT = 64;

template <int P> __global__ void k_dens_tz(dgeom w, const float *prev, wargs r) {
    constexpr int O = 1 - P;
    __shared__ float tile[ZT][33];
    const int n[3] = {w.nxl, w.nyl, w.nz};
    int p0 = blockIdx.x * 32, tx = threadIdx.x, ty = threadIdx.y, nz = w.nz;
    int np = n[P] - p0 < 32 ? n[P] - p0 : 32, ne = np * nz, t = tx + 32 * ty;
    int c[3];
    c[O] = blockIdx.z;
    for (int z = ty; z < nz; z += DR) {
        c[2] = z;
        c[P] = p0 + tx;
        if (tx < np) tile[z][tx] = prev[(long long)cell_line<P>(w, c) * n[P] + c[P]];
    }
    __syncthreads();
    wstat_acc acc = {0, 0};
    for (int e0 = t; e0 < ne; e0 += 4 * DT) {
        int gk[4] = {}, zk[4] = {}, pk[4] = {};
        wcell v[4] = {};
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int e = e0 + DT * k;
            if (e >= ne) continue;
            pk[k] = e / nz;
            zk[k] = e - pk[k] * nz;
            c[P] = p0 + pk[k];
            c[2] = zk[k];
            gk[k] = cell_line<2>(w, c);
            v[k] = wind_load(w, r, gk[k], zk[k]);
        }
#pragma unroll
        for (int k = 0; k < 4; k++)
            if (e0 + DT * k < ne) wind_cell(w, r, v[k], gk[k], zk[k], tile[zk[k]][pk[k]], &acc);
    }
    wstat_flush(acc, r.stat);
}

/* The step log of the owned cells: exact sums of q rho dV (the digits of
 * mu_xsum_split added with atomics: integer sums, so any order gives the same
 * words) and extremes as order keys, per block in shared memory when the N
 * fields' words fit there (sh), then into the global ones. */
__global__ void k_diag(const float *q, int N, int nxl, int nz, long long nv, const double *rhodv,
                       unsigned long long *words, int *kmin, int *kmax, int sh) {
    extern __shared__ unsigned long long shw[];
    unsigned long long *w = sh ? shw : words;
    int *mn = sh ? (int *)(shw + (long long)N * MU_XSUM_WORDS) : kmin, *mx = sh ? mn + N : kmax;
    if (sh) {
        for (int i = threadIdx.x; i < N * MU_XSUM_WORDS; i += blockDim.x) shw[i] = 0;
        for (int i = threadIdx.x; i < N; i += blockDim.x) {
            mn[i] = adv_fkey(INFINITY);
            mx[i] = adv_fkey(-INFINITY);
        }
        __syncthreads();
    }
    int sx = nxl + 4;
    for (long long v = (long long)blockIdx.x * blockDim.x + threadIdx.x; v < nv;
         v += (long long)gridDim.x * blockDim.x) {
        int f = (int)(v % N);
        long long c = v / N, xy = c / nz;
        int z = (int)(c % nz), x = (int)(xy % nxl), y = (int)(xy / nxl);
        float val = q[(long long)N * (z + (long long)nz * ((x + 2) + (long long)sx * (y + 2))) + f];
        int k = 0;
        int64_t d[3];
        int what = mu_xsum_split((double)val * rhodv[z], &k, d);
        unsigned long long *wf = w + (long long)f * MU_XSUM_WORDS;
        if (what == 1) {
            atomicAdd(&wf[k], (unsigned long long)d[0]);
            atomicAdd(&wf[k + 1], (unsigned long long)d[1]);
            atomicAdd(&wf[k + 2], (unsigned long long)d[2]);
        } else if (what) {
            atomicAdd(&wf[what], 1ull);
        }
        if (val == val) {
            int key = adv_fkey(val);
            atomicMin(&mn[f], key);
            atomicMax(&mx[f], key);
        }
    }
    if (!sh) return;
    __syncthreads();
    for (int i = threadIdx.x; i < N * MU_XSUM_WORDS; i += blockDim.x)
        if (shw[i]) atomicAdd(&words[i], shw[i]);
    for (int i = threadIdx.x; i < N; i += blockDim.x) {
        atomicMin(&kmin[i], mn[i]);
        atomicMax(&kmax[i], mx[i]);
    }
}

__device__ adv_line view(const dgeom &w, const bufs &b, int g, int f) {
    long long off = line_off(w, g);
    adv_line l;
    l.q = b.q + off + f;
    l.qn = b.qn + off + f;
    l.qs = (ptrdiff_t)w.qs;
    l.m = w.m;
    l.wrap = w.wrap;
    l.eb0 = w.eb0;
    l.eb1 = w.eb1;
    l.u = b.wu + (long long)g * (w.m + 1);
    l.rs = b.wrs + (long long)g * (w.m + 1);
    l.d0 = b.wd0 + (long long)g * w.m;
    l.d1 = b.wd1 + (long long)g * w.m;
    /* a line's fluxes field by field, so the lanes (fields) of a warp share sectors */
    l.F = b.flux + (long long)g * (w.m + 1) * w.N + f;
    l.fs = w.N;
    l.dt = w.dt;
    l.dx = w.dx;
    l.rdx = adv_recip(w.dx);
    return l;
}

/* The winds of cells [i0, i0 + 128) of [a, b) (0 elsewhere), a lane's four. */
__device__ __forceinline__ void class_winds(const float *u, int i0, int a, int b, int lane,
                                            float *ul, float *ur) {
#pragma unroll
    for (int k = 0; k < 4; k++) {
        int i = i0 + 32 * k + lane, in = i >= a && i < b;
        ul[k] = in ? u[i] : 0.f;
        ur[k] = in ? u[i + 1] : 0.f;
    }
}

/* adv_seg_init with a warp per line: the lanes classify the cells, and the
 * first non-D / last non-E cells (h, t) come from warp minimum / maximum.
 * The kernel waits on its loads, so they are issued together: the winds of
 * the first 128 cells before adv_seg_ends (which branches on the winds and
 * the cycle sign it loads; the line's ends a, b, where the classes are, depend
 * on the borders only), the next 128 cells' before any class is stored again
 * (a byte store may alias anything, so a load after one waits for it). Lines
 * of an open sweep (no cycle signs, use_cyc 0) are classified from their winds
 * alone, on the side stream. */
__global__ void k_classify(dgeom w, bufs b, int use_cyc, const int *dirty) {
    long long gw = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (gw >= w.G) return;           /* whole warps leave together */
    if (dirty && !dirty[gw]) return; /* its classes and segment stand */
    int g = (int)gw, m = w.m;
    uint8_t *cls = b.cls + (long long)g * m;
    const float *u = b.wu + (long long)g * (m + 1);
    int blo = !w.periodic && w.first, bhi = !w.periodic && w.last;
    int a0 = blo ? 1 : 0, b0 = bhi ? m - 1 : m; /* adv_seg_ends's a and b */
    int cy = use_cyc ? b.cyc[g] : 0;
    float ul[4], ur[4];
    class_winds(u, 0, a0, b0, lane, ul, ur);
    adv_seg s;
    int live = adv_seg_ends(&s, u, m, blo, bhi, cy, w.first, w.last);
    int nd = s.b, ne = s.a - 1;
    for (int i0 = 0; i0 < m; i0 += 128) {
        if (i0 || s.a != a0 || s.b != b0) class_winds(u, i0, s.a, s.b, lane, ul, ur);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            int i = i0 + 32 * k + lane, c = ADV_FIXED;
            if (live && i >= s.a && i < s.b) {
                c = adv_class(ul[k], ur[k]);
                if (c != ADV_D && i < nd) nd = i;
                if (c != ADV_E) ne = i;
            }
            if (i < m) cls[i] = (uint8_t)c;
        }
    }
    nd = __reduce_min_sync(0xffffffffu, nd);
    ne = __reduce_max_sync(0xffffffffu, ne);
    if (lane) return;
    if (live) adv_seg_ht(&s, u, nd, ne, ne >= s.a ? adv_class(u[ne], u[ne + 1]) : (int)ADV_FIXED);
    b.seg[g] = s;
}

/* Task list of the middle [h, t) of each line, a warp per line in chunks of
 * 32 cells: a stream is a run of cells that are not F or K, rooted at its last
 * C cell; counted (ballots), slots taken with one atomic per line (the order of
 * independent tasks changes no result), written in the line's order: a run's
 * last cell writes it, with the run's start and last C carried from the
 * chunks before. */
__device__ __forceinline__ int adv_fk(int c) {
    return c == ADV_F || c == ADV_K;
}

__device__ __forceinline__ int top_bit(unsigned x) { /* index of the highest set bit */
    return 31 - __clz((int)x);
}

__global__ void k_tasks(dgeom w, bufs b) {
    const unsigned all = 0xffffffffu;
    long long gw = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (gw >= w.G) return; /* whole warps leave together */
    int g = (int)gw;
    const uint8_t *cls = b.cls + (long long)g * w.m;
    const adv_seg s = b.seg[g];
    unsigned lower = (1u << lane) - 1, upto = lower | (1u << lane);
    unsigned long long nt = 0, nf = 0;
    for (int i0 = s.h; i0 < s.t; i0 += 32) {
        int i = i0 + lane, in = i < s.t, f = in && adv_fk(cls[i]);
        int st = in && !f && (i == s.h || adv_fk(cls[i - 1]));
        nf += __popc(__ballot_sync(all, f));
        nt += __popc(__ballot_sync(all, st));
    }
    unsigned long long t0 = 0, f0 = 0;
    if (lane == 0 && nt) t0 = atomicAdd(&b.counters[0], nt);
    if (lane == 0 && nf) f0 = atomicAdd(&b.counters[1], nf);
    t0 = __shfl_sync(all, t0, 0);
    f0 = __shfl_sync(all, f0, 0);
    int lo = s.h, lastc = -1; /* the open run's start and last C before this chunk */
    unsigned long long lost = 0;
    for (int i0 = s.h; i0 < s.t; i0 += 32) {
        int i = i0 + lane, in = i < s.t, c = in ? cls[i] : ADV_FIXED, f = in && adv_fk(c);
        int st = in && !f && (i == s.h || adv_fk(cls[i - 1]));
        int en = in && !f && (i + 1 == s.t || adv_fk(cls[i + 1]));
        unsigned mf = __ballot_sync(all, f), ms = __ballot_sync(all, st),
                 mc = __ballot_sync(all, in && c == ADV_C);
        if (f) {
            unsigned long long k = f0 + __popc(mf & lower);
            b.fcells[2 * k] = g;
            b.fcells[2 * k + 1] = i;
        }
        if (en) {
            int rlo = ms & upto ? i0 + top_bit(ms & upto) : lo;
            int root = mc & upto ? i0 + top_bit(mc & upto) : lastc;
            if (root < rlo) {
                root = -1;
                lost++;
            }
            adv_task k;
            k.g = g;
            k.root = root < 0 ? rlo : root;
            k.lo = rlo;
            k.hi = i + 1;
            b.tasks[t0 + __popc(ms & upto) - 1] = k;
        }
        f0 += __popc(mf);
        t0 += __popc(ms);
        if (ms) lo = i0 + top_bit(ms);
        if (mc) lastc = i0 + top_bit(mc);
    }
    if (lost) atomicAdd(&b.counters[2], lost);
}

/* The chain kernels were capped at 64 registers (8 blocks of 128 threads, 50%
 * occupancy; the one-field k_local now at 7 and 6 blocks, the two-field
 * k_local2 at 5 and 4, launch_local). Caps of 9 to 16 blocks (56 to 32
 * registers, with spills) ran the paper case's step slower; prefetching the q
 * a walk reads 4 to 32 cells later into L1 or L2 ran no faster on mostly zero
 * fields (k_local read more from DRAM); with every cell arithmetic, L2
 * prefetches 4 cells ahead are kept (ADV_PREFETCH). Measured without a clear
 * gain and removed (perf/history/): loading q two cells ahead, the loads as
 * ordered volatile asm (the arrays before q), L2 prefetches of q 5 or 8 cells
 * ahead; k_local in blocks of 32, 64 or 256 threads; the Z sweep's
 * classification a thread per line (its strided loads and byte stores slowed
 * the Y sweep it runs beside); k_dens_tz capped at 64 registers; and L2
 * prefetches of the next wide zero steps' q (the zero stretches were not
 * waiting on latency alone). */
/* The lines schedule's segment that waits for no flux from another rank or
 * around the line (one rank along the axis, open borders): its backward walks
 * follow its forward ones in the same thread (they touch only the thread's line
 * and field, as in k_backward after k_local), so the tail of the line just read
 * is still in L2 and k_backward is not launched. */
__device__ __host__ inline int lines_alone(const dgeom &w, int dataflow) {
    return !dataflow && w.first && w.last && !w.periodic;
}

/* The cells a sweep leaves alone: the fixed open-border cells of every line,
 * the ends [0, a) and [b, m) of adv_seg_ends (at most one cell each), or -1. */
struct fixed_cells {
    int c0, c1;
};

/* Some of a sweep's lines: part 0 all (n = G); 1 the first c and the last c
 * of every period of P lines (the edge lines that a halo is packed from); 2
 * the others. n: how many. */
struct line_part {
    int n, P, c, part;
};

__device__ __forceinline__ int part_line(const line_part &p, int j) {
    if (p.part == 1) {
        int r = j / (2 * p.c), t = j % (2 * p.c);
        return r * p.P + (t < p.c ? t : p.P - 2 * p.c + t);
    }
    if (p.part == 2) {
        int in = p.P - 2 * p.c;
        return j / in * p.P + p.c + j % in;
    }
    return j;
}

/* qn = q on the fixed cells (fx), sources, heads fed by an open border, and
 * (lines) the local forward chains; lines == 2: the backward ones too
 * (lines_alone). Every other cell of a line is written by its chains, and the
 * halos are filled again before they are read, so the fields are not copied
 * whole (the CPU's memcpy); the fixed cells' copy is each thread's own line
 * and field, not a kernel of its own. */
template <int WRAP, int MINB>
__global__ void __launch_bounds__(128, MINB)
    k_local(dgeom w, bufs b, int lines, fixed_cells fx, line_part lp) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (long long)lp.n * w.N) return;
    int g = part_line(lp, (int)(k / w.N)), f = (int)(k % w.N);
    const adv_seg s = b.seg[g];
    const uint8_t *cls = b.cls + (long long)g * w.m;
    const float *cn = b.wcn + (long long)g * (w.m + 1);
    adv_line l = view(w, b, g, f);
    if (fx.c0 >= 0) l.qn[fx.c0 * l.qs] = l.q[fx.c0 * l.qs];
    if (fx.c1 >= 0) l.qn[fx.c1 * l.qs] = l.q[fx.c1 * l.qs];
    adv_seg_sources(&s, &l);
    /* the head [a, h) (its source here), then [h, b); then k_backward's, in
     * its order: [a, t), then the tail [t, b) (its source here); each walk's
     * code once (a loop of two ranges, not unrolled: half the code) */
#pragma unroll 1
    for (int part = 0; part < 2; part++)
        if (part ? lines : s.src_l)
            adv_forward_walk(&l, cls, cn, part ? s.h : s.a, part ? s.b : s.h, WRAP, 0);
    if (lines < 2) return;
#pragma unroll 1
    for (int part = 0; part < 2; part++)
        if (!part || s.src_r)
            adv_backward_walk(&l, cls, cn, part ? s.t : s.a, part ? s.b : s.t, WRAP, 0);
}

/* k_local for two fields a thread (gpu/advect_walk2.h; not wrapping): the
 * line's fields in pairs (2p, 2p + 1), the last one alone (o = 0: walked
 * twice, the same values stored twice) when the fields are odd. */
template <int MINB>
__global__ void __launch_bounds__(128, MINB)
    k_local2(dgeom w, bufs b, int lines, fixed_cells fx, line_part lp) {
    const int pairs = (w.N + 1) / 2;
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (long long)lp.n * pairs) return;
    int g = part_line(lp, (int)(k / pairs)), f = 2 * (int)(k % pairs);
    const ptrdiff_t o = f + 1 < w.N ? 1 : 0;
    const adv_seg s = b.seg[g];
    const uint8_t *cls = b.cls + (long long)g * w.m;
    const float *cn = b.wcn + (long long)g * (w.m + 1);
    const adv_line l = view(w, b, g, f), l1 = adv_line_shift(&l, o);
    if (fx.c0 >= 0)
        l.qn[fx.c0 * l.qs] = l.q[fx.c0 * l.qs], l1.qn[fx.c0 * l.qs] = l1.q[fx.c0 * l.qs];
    if (fx.c1 >= 0)
        l.qn[fx.c1 * l.qs] = l.q[fx.c1 * l.qs], l1.qn[fx.c1 * l.qs] = l1.q[fx.c1 * l.qs];
    adv_seg_sources(&s, &l);
    adv_seg_sources(&s, &l1);
#pragma unroll 1
    for (int part = 0; part < 2; part++)
        if (part ? lines : s.src_l)
            adv_forward_walk2(&l, o, cls, cn, part ? s.h : s.a, part ? s.b : s.h, 0);
    if (lines < 2) return;
#pragma unroll 1
    for (int part = 0; part < 2; part++)
        if (!part || s.src_r)
            adv_backward_walk2(&l, o, cls, cn, part ? s.t : s.a, part ? s.b : s.t, 0);
}

/* k_local (wrapping lines) and k_local2 (the others) on grid blocks of 128
 * threads, and their blocks an SM: ADV_ZMINB(2) on short lines (at most 64
 * cells, the Z sweep's), ADV_XMINB(2) on the others; each the fastest of the
 * counts measured on the paper case (perf/history/: k_local2 needs about 120
 * registers unbounded: 5 blocks spill a little and still win on long lines). */
#ifndef ADV_ZMINB
#define ADV_ZMINB 6
#endif
#ifndef ADV_XMINB
#define ADV_XMINB 7
#endif
#ifndef ADV_ZMINB2
#define ADV_ZMINB2 4
#endif
#ifndef ADV_XMINB2
#define ADV_XMINB2 5
#endif
void launch_local(const dgeom &w, const bufs &b, int lines, fixed_cells fx, line_part lp,
                  cudaStream_t st) {
    if (lp.n < 1) return;
    const int z = w.m <= 64;
    if (w.wrap) {
        const int grid = (int)(((long long)lp.n * w.N + 127) / 128);
        if (z)
            k_local<1, ADV_ZMINB><<<grid, 128, 0, st>>>(w, b, lines, fx, lp);
        else
            k_local<1, ADV_XMINB><<<grid, 128, 0, st>>>(w, b, lines, fx, lp);
        return;
    }
    const int grid = (int)(((long long)lp.n * ((w.N + 1) / 2) + 127) / 128);
    if (z)
        k_local2<ADV_ZMINB2><<<grid, 128, 0, st>>>(w, b, lines, fx, lp);
    else
        k_local2<ADV_XMINB2><<<grid, 128, 0, st>>>(w, b, lines, fx, lp);
}

/* Dataflow: a stream per warp, its fields on the lanes. */
template <int WRAP>
__global__ void __launch_bounds__(128, 6) k_streams(dgeom w, bufs b, long long nt) {
    long long t = ((long long)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    int lane = threadIdx.x % 32;
    if (t >= nt) return;
    adv_task k = b.tasks[t];
    for (int f = lane; f < w.N; f += 32) {
        adv_line l = view(w, b, k.g, f);
        const uint8_t *cls = b.cls + (long long)k.g * w.m;
        const float *cn = b.wcn + (long long)k.g * (w.m + 1);
        adv_forward_walk(&l, cls, cn, k.root, k.hi, WRAP, 0); /* adv_run_task */
        adv_backward_walk(&l, cls, cn, k.lo, k.root + 1, WRAP, 0);
    }
}

__global__ void k_out_r(dgeom w, bufs b) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G) return;
    adv_seg_close_head(b.seg, b.wu, g, w.m);
}

__global__ void k_pack(dgeom w, bufs b, int dir) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G) return;
    const adv_seg s = b.seg[g];
    int known = dir > 0 ? s.out_r : s.out_l, face = dir > 0 ? s.b : s.a;
    float *sb = b.buf + (long long)g * (w.N + 1);
    sb[w.N] = (float)known;
    for (int f = 0; f < w.N; f++)
        sb[f] = known ? b.flux[((long long)g * (w.m + 1) + face) * w.N + f] : 0.f;
}

template <int WRAP> __global__ void __launch_bounds__(128, 8) k_unpack(dgeom w, bufs b, int dir) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (long long)w.G * w.N) return;
    int g = (int)(k / w.N), f = (int)(k % w.N);
    const adv_seg s = b.seg[g];
    const float *rb = b.buf + (long long)g * (w.N + 1);
    const uint8_t *cls = b.cls + (long long)g * w.m;
    const float *cn = b.wcn + (long long)g * (w.m + 1);
    adv_line l = view(w, b, g, f);
    if (dir > 0) {
        if (!s.need_l || s.head_done || rb[w.N] == 0) return;
        ADV_FLUX(&l, s.a) = rb[f];
        adv_forward_walk(&l, cls, cn, s.a, s.h, WRAP, 0);
    } else {
        if (!s.need_r || s.tail_done || rb[w.N] == 0) return;
        ADV_FLUX(&l, s.b) = rb[f];
        adv_backward_walk(&l, cls, cn, s.t, s.b, WRAP, 0);
    }
}

__global__ void k_unpack_flags(dgeom w, bufs b, int dir) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G) return;
    adv_seg *s = &b.seg[g];
    const float *rb = b.buf + (long long)g * (w.N + 1);
    const float *u = b.wu + (long long)g * (w.m + 1);
    if (dir > 0) {
        if (!s->need_l || s->head_done || rb[w.N] == 0) return;
        s->head_done = 1;
        if (s->h == s->b && u[s->b] >= 0) s->out_r = 1;
    } else {
        if (!s->need_r || s->tail_done || rb[w.N] == 0) return;
        s->tail_done = 1;
        if (s->t == s->a && u[s->a] < 0) s->out_l = 1;
    }
}

__global__ void k_lap2(dgeom w, bufs b, int sign) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G || b.cyc[g] != sign) return;
    adv_seg_lap2(&b.seg[g], b.cls + (long long)g * w.m, sign, w.first, w.last);
}

/* Lines: the local backward loop; both: closing cells (dataflow) and tails fed by an open border.
 */
template <int WRAP>
__global__ void __launch_bounds__(128, 8) k_backward(dgeom w, bufs b, int lines) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (long long)w.G * w.N) return;
    int g = (int)(k / w.N), f = (int)(k % w.N);
    const adv_seg s = b.seg[g];
    const uint8_t *cls = b.cls + (long long)g * w.m;
    const float *cn = b.wcn + (long long)g * (w.m + 1);
    adv_line l = view(w, b, g, f);
    if (!lines && w.last && b.cyc[g] > 0) adv_backward(&l, s.b - 1, ADV_K);
#pragma unroll 1
    for (int part = 0; part < 2; part++) /* [a, t) (lines), then [t, b): the walk's code once */
        if (part ? s.src_r : lines)
            adv_backward_walk(&l, cls, cn, part ? s.t : s.a, part ? s.b : s.t, WRAP, 0);
}

__global__ void k_fcells(dgeom w, bufs b, long long nf) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= nf * w.N) return;
    long long c = k / w.N;
    int f = (int)(k % w.N), g = b.fcells[2 * c], i = b.fcells[2 * c + 1];
    adv_line l = view(w, b, g, f);
    adv_backward(&l, i, b.cls[(long long)g * w.m + i]);
}

__global__ void k_out_l(dgeom w, bufs b) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G) return;
    adv_seg_close_tail(b.seg, b.wu, g, w.m);
}

__global__ void k_lost(dgeom w, bufs b) {
    int g = blockIdx.x * blockDim.x + threadIdx.x;
    if (g >= w.G) return;
    const adv_seg s = b.seg[g];
    if ((s.need_l && !s.head_done) || (s.need_r && !s.tail_done)) atomicAdd(&b.counters[2], 1ull);
}

__global__ void k_halo(float *q, float *buf, int axis, int nxl, int nyl, int nz, int N, int from,
                       int unpack) {
    long long col = (long long)N * nz * (axis == 0 ? 1 : nxl);
    long long n = 2 * col * (axis == 0 ? nyl : 1);
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= n) return;
    int sx = nxl + 4;
    long long idx;
    if (axis == 0) {
        long long c = k / col, e = k % col; /* c = y * 2 + (x - from) */
        int y = (int)(c / 2), x = from + (int)(c % 2);
        idx = (long long)N * nz * ((x + 2) + (long long)sx * (y + 2)) + e;
    } else {
        long long r = k / col, e = k % col;
        int y = from + (int)r;
        idx = (long long)N * nz * (2 + (long long)sx * (y + 2)) + e;
    }
    if (unpack)
        q[idx] = buf[k];
    else
        buf[k] = q[idx];
}

int blocks(long long n, int t) {
    return (int)((n + t - 1) / t);
}

/* A segment that is its whole line between open borders (one rank along the
 * axis, not periodic): adv_seg_ends sets neither need_l nor need_r and the
 * driver runs no flux rounds, so nothing reads out_r / out_l / head_done /
 * tail_done and no chain can stay open: k_out_r, k_out_l and k_lost are not
 * launched (either schedule). */
int seg_alone(const dgeom &w) {
    return w.first && w.last && !w.periodic;
}

int copy(mu_gpu_adv *g, void *dst, const void *src, size_t bytes, cudaMemcpyKind kind) {
    auto t0 = clk::now();
    MU_CUDA(cudaStreamSynchronize(g->st)); /* the kernels queued before: kernel time */
    auto t1 = clk::now();
    g->kernel_s += std::chrono::duration<double>(t1 - t0).count();
    MU_CUDA(cudaMemcpyAsync(dst, src, bytes, kind, g->st));
    MU_CUDA(cudaStreamSynchronize(g->st));
    g->copy_s += since(t1);
    g->bytes += (double)bytes;
    return 0;
}

/* A copy to the device queued without a wait: the host's buffer is free again
 * on return (pageable: staged; pinned: the caller writes it only after the
 * next wait), the copy's time counted with the kernels'. */
int copy_in(mu_gpu_adv *g, void *dst, const void *src, size_t bytes) {
    MU_CUDA(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyHostToDevice, g->st));
    g->bytes += (double)bytes;
    return 0;
}

/* Kernels queued: their launch errors now, their time at the next wait. */
int launched(mu_gpu_adv *g, clk::time_point t0) {
    MU_LAUNCHED();
    g->kernel_s += since(t0);
    return 0;
}

int sync(mu_gpu_adv *g, clk::time_point t0) {
    MU_LAUNCHED();
    MU_CUDA(cudaStreamSynchronize(g->st));
    g->kernel_s += since(t0);
    return 0;
}

} // namespace

extern "C" int mu_gpu_adv_create(int64_t qlen, int64_t gmax, int mmax, int N, int64_t halo,
                                 mu_gpu_adv **out) {
    *out = nullptr;
    mu_gpu_adv *g = new mu_gpu_adv();
    std::memset(g, 0, sizeof *g);
    g->qlen = qlen;
    g->gmax = gmax;
    g->mmax = mmax;
    g->N = N;
    g->nbuf = gmax * (N + 1) > halo ? gmax * (N + 1) : halo;
    g->hcap = halo;
    int rc = 0;
    /* the chains first, the side stream's work in their gaps (a block scheduling priority) */
    int least = 0, greatest = 0;
    MU_CUDA_GOTO(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    MU_CUDA_GOTO(cudaStreamCreateWithPriority(&g->st, cudaStreamNonBlocking, greatest));
    MU_CUDA_GOTO(cudaStreamCreateWithPriority(&g->side, cudaStreamNonBlocking, least));
    MU_CUDA_GOTO(cudaStreamCreateWithPriority(&g->cp, cudaStreamNonBlocking, greatest));
    /* The walks use no shared memory, so an SM running them would keep none,
     * and the side stream's density blocks (tiles in shared memory) could not
     * run beside them: a quarter of the SM's on-chip memory stays shared (the
     * fastest of 0, 8, 25, 50 and 100 % on the paper case, perf/history/). */
    {
        const void *walks[] = {
            (const void *)k_local2<ADV_ZMINB2>, (const void *)k_local2<ADV_XMINB2>,
            (const void *)k_local<1, ADV_ZMINB>, (const void *)k_local<1, ADV_XMINB>};
        for (const void *f : walks)
            MU_CUDA_GOTO(
                cudaFuncSetAttribute(f, cudaFuncAttributePreferredSharedMemoryCarveout, 25));
    }
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->hsrc, cudaEventDisableTiming));
    MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->hpacked, cudaEventDisableTiming));
    for (int a = 0; a < 3; a++) {
        MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->ready[a], cudaEventDisableTiming));
        MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->freed[a], cudaEventDisableTiming));
    }
    MU_CUDA_GOTO(cudaMalloc(&g->q, (size_t)qlen * sizeof(float)));
    MU_CUDA_GOTO(cudaMalloc(&g->qn, (size_t)qlen * sizeof(float)));
    MU_CUDA_GOTO(cudaMalloc(&g->flux, (size_t)(gmax * N * (mmax + 1)) * sizeof(float)));
    MU_CUDA_GOTO(cudaMalloc(&g->buf, (size_t)g->nbuf * sizeof(float)));
    MU_CUDA_GOTO(cudaMalloc(&g->tasks, (size_t)(gmax * (mmax / 2 + 1)) * sizeof(adv_task)));
    MU_CUDA_GOTO(cudaMalloc(&g->fcells, (size_t)(gmax * (mmax + 1)) * 2 * sizeof(int32_t)));
    MU_CUDA_GOTO(cudaMalloc(&g->cyc, (size_t)gmax * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->counters, 4 * sizeof(unsigned long long)));
    g->dsrc = -2;
    MU_CUDA_GOTO(cudaMalloc(&g->rho, (size_t)mmax * sizeof(float)));
    MU_CUDA_GOTO(cudaMalloc(&g->pn, (size_t)(2 * gmax) * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->wstat, 10 * sizeof(unsigned long long)));
    MU_CUDA_GOTO(cudaMemsetAsync(g->wstat, 0, 10 * sizeof(unsigned long long), g->st));
    MU_CUDA_GOTO(cudaMallocHost(&g->wstat_h, 20 * sizeof(unsigned long long)));
    g->ahead_pair = 4; /* the first one writes pair 3 */
    MU_CUDA_GOTO(cudaMemsetAsync(g->cyc, 0, (size_t)gmax * sizeof(int), g->st));
    g->cyc_zero = 1;
    g->rho_h = (float *)std::malloc((size_t)mmax * sizeof(float));
    if (!g->rho_h) {
        rc = mu_gpu_fail("out of host memory");
        goto done;
    }
    for (int k = 0; k < 2; k++) {
        for (int i = 0; i < 4; i++) MU_CUDA_GOTO(cudaEventCreate(&g->ev[k][i]));
        MU_CUDA_GOTO(cudaEventCreateWithFlags(&g->sdone[k], cudaEventDisableTiming));
    }
    MU_CUDA_GOTO(cudaMalloc(&g->words, (size_t)N * MU_XSUM_WORDS * sizeof(unsigned long long)));
    MU_CUDA_GOTO(cudaMalloc(&g->keys, (size_t)(2 * N) * sizeof(int)));
    MU_CUDA_GOTO(cudaMalloc(&g->rhodv, (size_t)mmax * sizeof(double)));
    MU_CUDA_GOTO(cudaStreamSynchronize(g->st)); /* the clearings above, before the side stream's */
done:
    if (rc) {
        mu_gpu_adv_destroy(g);
        return rc;
    }
    *out = g;
    return 0;
}

extern "C" void mu_gpu_adv_destroy(mu_gpu_adv *g) {
    if (!g) return;
    void *p[] = {g->q,        g->qn,    g->flux,  g->buf,   g->tasks, g->fcells, g->cyc,
                 g->counters, g->wc[0], g->wc[1], g->wc[2], g->rc[0], g->rc[1],  g->rc[2],
                 g->rho,      g->pn,    g->wstat, g->words, g->keys,  g->rhodv,  g->hdev};
    for (void *x : p)
        if (x) cudaFree(x);
    for (int a = 0; a < 3; a++) {
        void *pa[] = {g->au[a],   g->acn[a],  g->ad0[a],   g->ad1[a],
                      g->acls[a], g->aseg[a], g->adirty[a]};
        for (void *x : pa)
            if (x) cudaFree(x);
        if (g->ready[a]) cudaEventDestroy(g->ready[a]);
        if (g->freed[a]) cudaEventDestroy(g->freed[a]);
    }
    if (g->side) cudaStreamDestroy(g->side);
    for (int k = 0; k < 2; k++) {
        for (cudaEvent_t e : g->ev[k])
            if (e) cudaEventDestroy(e);
        if (g->sdone[k]) cudaEventDestroy(g->sdone[k]);
    }
    std::free(g->rho_h);
    mu_gpu_adv_peer_close(g);
    for (float *b : {g->pme.halo, g->pme.rounds})
        if (b) cudaFree(b);
    for (cudaEvent_t e : g->pme.ev)
        if (e) cudaEventDestroy(e);
    for (int i = 0; i < g->npinned; i++) cudaHostUnregister(g->pinned[i]);
    if (g->wstat_h) cudaFreeHost(g->wstat_h);
    if (g->hpin) cudaFreeHost(g->hpin);
    if (g->hsrc) cudaEventDestroy(g->hsrc);
    if (g->hpacked) cudaEventDestroy(g->hpacked);
    if (g->cp) cudaStreamDestroy(g->cp);
    if (g->st) cudaStreamDestroy(g->st);
    delete g;
}

extern "C" int mu_gpu_adv_pin(mu_gpu_adv *g, void *host, size_t bytes) {
    if (g->npinned == 4) return mu_gpu_fail("advect: more than 4 host buffers to pin");
    MU_CUDA(cudaHostRegister(host, bytes, cudaHostRegisterDefault));
    g->pinned[g->npinned++] = host;
    return 0;
}

extern "C" int mu_gpu_adv_put(mu_gpu_adv *g, const float *q) {
    g->hfresh = 0; /* new fields: a halo filled ahead is not theirs */
    return copy(g, g->q, q, (size_t)g->qlen * sizeof(float), cudaMemcpyHostToDevice);
}

extern "C" int mu_gpu_adv_get(mu_gpu_adv *g, float *q) {
    return copy(g, q, g->q, (size_t)g->qlen * sizeof(float), cudaMemcpyDeviceToHost);
}

extern "C" int mu_gpu_adv_halo(mu_gpu_adv *g, int axis, int nxl, int nyl, int nz, int N, int from,
                               float *host, int unpack) {
    long long n = 2LL * N * nz * (axis == 0 ? nyl : nxl);
    if (n > g->nbuf) return mu_gpu_fail("advect halo of %lld values: buffer too small", n);
    auto t0 = clk::now();
    if (unpack && copy_in(g, g->buf, host, (size_t)n * sizeof(float))) return 1;
    k_halo<<<blocks(n, 256), 256, 0, g->st>>>(g->q, g->buf, axis, nxl, nyl, nz, N, from, unpack);
    if (launched(g, t0)) return 1;
    if (!unpack) return copy(g, host, g->buf, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost);
    return 0;
}

namespace {

/* The face winds and densities of one axis's lines from its table: the face
 * right of local cell j (j = -1 .. m-1) of line g, the line's cells as the
 * host's line_off numbers them, its index along the axis wrapped. */
__global__ void k_wind_make(mu_gpu_adv_wtab t, int axis, const double *tab, const float *rho,
                            double *wc, float *rc) {
    long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (k >= (long long)t.G * (t.m + 1)) return;
    int g = (int)(k / (t.m + 1)), j = (int)(k % (t.m + 1)) - 1;
    long long p[3] = {0, 0, 0};
    if (axis == 0) {
        p[2] = g % t.nz;
        p[1] = t.lo[1] + g / t.nz;
    } else if (axis == 1) {
        p[2] = g % t.nz;
        p[0] = t.lo[0] + g / t.nz;
    } else {
        p[0] = t.lo[0] + g % t.nxl;
        p[1] = t.lo[1] + g / t.nxl;
    }
    p[axis] = ((t.lo[axis] + j) % t.n + t.n) % t.n;
    wc[k] = tab[p[0] * t.sx + p[1] * t.sy + p[2] * t.sz];
    rc[k] = rho[p[2]];
}

} // namespace

extern "C" int mu_gpu_adv_wind_put(mu_gpu_adv *g, int axis, const mu_gpu_adv_wtab *t) {
    int64_t faces = (int64_t)t->G * (t->m + 1);
    if (axis < 0 || axis > 2 || faces > g->gmax * (g->mmax + 1))
        return mu_gpu_fail("advect winds: axis %d, %lld faces", axis, (long long)faces);
    if (!g->wc[axis]) MU_CUDA(cudaMalloc(&g->wc[axis], (size_t)faces * sizeof(double)));
    if (!g->rc[axis]) MU_CUDA(cudaMalloc(&g->rc[axis], (size_t)faces * sizeof(float)));
    if (!g->acls[axis]) MU_CUDA(cudaMalloc(&g->acls[axis], (size_t)faces)); /* cells < faces */
    if (!g->aseg[axis]) MU_CUDA(cudaMalloc(&g->aseg[axis], (size_t)g->gmax * sizeof(adv_seg)));
    if (!g->adirty[axis]) MU_CUDA(cudaMalloc(&g->adirty[axis], (size_t)g->gmax * sizeof(int)));
    float **pa[] = {&g->au[axis], &g->acn[axis], &g->ad0[axis], &g->ad1[axis]};
    for (float **x : pa) /* (the cells, for D0 and D1, are fewer than the faces) */
        if (!*x) MU_CUDA(cudaMalloc(x, (size_t)faces * sizeof(float)));
    double *tab = nullptr;
    float *rho = nullptr;
    int rc = 0;
    MU_CUDA_GOTO(cudaMalloc(&tab, (size_t)t->entries * sizeof(double)));
    MU_CUDA_GOTO(cudaMalloc(&rho, (size_t)t->nz * sizeof(float)));
    rc = copy(g, tab, t->tab, (size_t)t->entries * sizeof(double), cudaMemcpyHostToDevice) ||
         copy(g, rho, t->rho, (size_t)t->nz * sizeof(float), cudaMemcpyHostToDevice);
    if (rc) goto done;
    k_wind_make<<<blocks(faces, 256), 256, 0, g->st>>>(*t, axis, tab, rho, g->wc[axis],
                                                       g->rc[axis]);
    MU_LAUNCHED_GOTO();
    MU_CUDA_GOTO(cudaStreamSynchronize(g->st)); /* before the tables are freed */
done:
    MU_CUDA_KEEP(cudaFree(tab));
    MU_CUDA_KEEP(cudaFree(rho));
    return rc;
}

extern "C" int mu_gpu_adv_has_wind(const mu_gpu_adv *g, int axis) {
    return g->wc[axis] != nullptr && g->rc[axis] != nullptr && g->ad1[axis] != nullptr;
}

extern "C" int mu_gpu_adv_dens_reset(mu_gpu_adv *g, const float *rho, int nz, int64_t cells) {
    if (nz > g->mmax || cells > g->gmax * g->mmax)
        return mu_gpu_fail("advect densities: %d levels, %lld cells", nz, (long long)cells);
    if (nz != g->rho_n || std::memcmp(rho, g->rho_h, (size_t)nz * sizeof(float))) {
        MU_CUDA(cudaStreamSynchronize(g->side)); /* a sweep queued ahead may read the old one */
        g->ahead_ok = 0;
        if (copy(g, g->rho, rho, (size_t)nz * sizeof(float), cudaMemcpyHostToDevice)) return 1;
        std::memcpy(g->rho_h, rho, (size_t)nz * sizeof(float));
        g->rho_n = nz;
    }
    g->dsrc = -1; /* the next sweep's D0 is rho(z) */
    MU_CUDA(cudaEventRecord(g->ev[g->slot][0], g->st));
    return 0;
}

namespace {

/* k_dens_tr<P, A> queued, for a table over the (P, A) pairs. */
template <int P, int A>
void tr_queue(dim3 grid, dim3 th, cudaStream_t st, const dgeom &w, const float *prev,
              const wargs &r) {
    k_dens_tr<P, A><<<grid, th, 0, st>>>(w, prev, r);
}
using tr_launch = void (*)(dim3, dim3, cudaStream_t, const dgeom &, const float *, const wargs &);

/* The sweep's winds and Courant figures, and D0 and D1 from the cell
 * densities p (-1 rho(z), else the D1 of that axis's sweep), queued on the
 * side stream into the axis's buffers once the last sweep along it is over;
 * ready[a] then. (A D1 read in place, p == a, is read and written by the same
 * thread.) */
int dens_queue(mu_gpu_adv *g, const dgeom &w, int p, unsigned long long *stat, int *pn) {
    int a = w.axis, n[3] = {w.nxl, w.nyl, w.nz};
    wargs r;
    r.wc = g->wc[a];
    r.rs = g->rc[a];
    r.u = g->au[a];
    r.cn = g->acn[a];
    r.d0 = g->ad0[a];
    r.d1 = g->ad1[a];
    r.pn = pn;
    r.stat = stat;
    /* a sweep of segments alone on their lines (whose segments no flux round
     * changes) over the lines of the axis's last classification compares with
     * its classes; any other classifies every line */
    const int lines[4] = {w.m, w.G, w.first, w.last};
    const int keep =
        seg_alone(w) && g->cls_ok[a] && !std::memcmp(lines, g->cls_lines[a], sizeof lines);
    r.cls_prev = keep ? g->acls[a] : nullptr;
    r.dirty = g->adirty[a];
    const float *prev = p >= 0 ? g->ad1[p] : nullptr;
    dim3 th(32, DR);
    MU_CUDA(cudaStreamWaitEvent(g->side, g->freed[a], 0));
    if (pn) MU_CUDA(cudaMemsetAsync(pn, 0, (size_t)(2 * w.G) * sizeof(int), g->side));
    if (keep) MU_CUDA(cudaMemsetAsync(r.dirty, 0, (size_t)w.G * sizeof(int), g->side));
    if (p < 0 || p == a) {
        dim3 grid((unsigned)((w.G + DSPAN - 1) / DSPAN), (unsigned)((w.m + 31) / 32));
        k_dens_lin<<<grid, th, 0, g->side>>>(w, p < 0 ? g->rho : nullptr, prev, r);
    } else if (a == 2 && w.nz <= ZT) {
        dim3 grid((unsigned)((n[p] + 31) / 32), 1, (unsigned)n[1 - p]);
        if (p == 0)
            k_dens_tz<0><<<grid, th, 0, g->side>>>(w, prev, r);
        else
            k_dens_tz<1><<<grid, th, 0, g->side>>>(w, prev, r);
    } else {
        dim3 grid((unsigned)((n[p] + DSPAN - 1) / DSPAN), (unsigned)((n[a] + 31) / 32),
                  (unsigned)n[3 - p - a]);
        static const tr_launch tr[9] = {nullptr,        tr_queue<0, 1>, tr_queue<0, 2>,
                                        tr_queue<1, 0>, nullptr,        tr_queue<1, 2>,
                                        tr_queue<2, 0>, tr_queue<2, 1>, nullptr};
        tr[p * 3 + a](grid, th, g->side, w, prev, r);
    }
    MU_LAUNCHED();
    if (!w.periodic) { /* no cycle signs: classified from the winds alone, here */
        bufs b = of(g);
        b.wu = r.u;
        b.cls = g->acls[a];
        b.seg = g->aseg[a];
        k_classify<<<blocks((long long)w.G * 32, 128), 128, 0, g->side>>>(w, b, 0,
                                                                          keep ? r.dirty : nullptr);
        MU_LAUNCHED();
        std::memcpy(g->cls_lines[a], lines, sizeof lines);
    }
    g->cls_ok[a] = seg_alone(w); /* else flux rounds or laps change them */
    MU_CUDA(cudaEventRecord(g->ready[a], g->side));
    return 0;
}

/* The main stream's next work waits for the axis's winds and densities and reads them. */
int dens_use(mu_gpu_adv *g, int a) {
    MU_CUDA(cudaStreamWaitEvent(g->st, g->ready[a], 0));
    g->wu = g->au[a];
    g->wrs = g->rc[a];
    g->wcn = g->acn[a];
    g->wd0 = g->ad0[a];
    g->wd1 = g->ad1[a];
    g->cls = g->acls[a];
    g->seg = g->aseg[a];
    g->dsrc = -2;
    return 0;
}

/* Two sweep geometries that give the same winds and densities (bit for bit). */
bool same_geom(const dgeom &a, const dgeom &b) {
    return a.axis == b.axis && a.m == b.m && a.G == b.G && a.N == b.N && a.wrap == b.wrap &&
           a.periodic == b.periodic && a.first == b.first && a.last == b.last && a.nxl == b.nxl &&
           a.nyl == b.nyl && a.nz == b.nz && a.sx == b.sx && a.eb0 == b.eb0 && a.eb1 == b.eb1 &&
           a.qs == b.qs && a.glo == b.glo && a.gn == b.gn &&
           !std::memcmp(&a.dt, &b.dt, sizeof a.dt) && !std::memcmp(&a.dx, &b.dx, sizeof a.dx) &&
           !std::memcmp(&a.tf, &b.tf, sizeof a.tf) && !std::memcmp(&a.dtdx, &b.dtdx, sizeof a.dtdx);
}

} // namespace

extern "C" int mu_gpu_adv_winds(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int *pn) {
    dgeom w = wp->sweep;
    if (!mu_gpu_adv_has_wind(g, w.axis))
        return mu_gpu_fail("advect: the winds of axis %d were never uploaded", w.axis);
    if (g->ahead_ok && g->dsrc == -1 && !pn && same_geom(w, g->ahead_g.sweep)) {
        g->ahead_ok = 0; /* queued by the step before: its figures in its pair */
        g->xpair = g->ahead_pair;
        return dens_use(g, w.axis);
    }
    g->ahead_ok = 0;
    if (g->dsrc < -1)
        return mu_gpu_fail("advect: the %c sweep has no cell densities", "XYZ"[w.axis]);
    unsigned long long *stat = g->wstat + 2 * w.axis; /* cleared by mu_gpu_adv_check */
    auto t0 = clk::now();
    if (dens_queue(g, w, g->dsrc, stat, pn ? g->pn : nullptr) || dens_use(g, w.axis) ||
        launched(g, t0))
        return 1;
    if (pn && copy(g, pn, g->pn, (size_t)(2 * w.G) * sizeof(int), cudaMemcpyDeviceToHost)) return 1;
    return 0;
}

extern "C" int mu_gpu_adv_winds_ahead(mu_gpu_adv *g, const mu_gpu_adv_geom *wp) {
    dgeom w = wp->sweep;
    g->ahead_ok = 0;
    if (!mu_gpu_adv_has_wind(g, w.axis) || !g->rho_n || w.periodic) return 0;
    int pair = g->ahead_pair == 3 ? 4 : 3; /* not the pair the current step's check reads */
    auto t0 = clk::now();
    MU_CUDA(cudaMemsetAsync(g->wstat + 2 * pair, 0, 2 * sizeof(unsigned long long), g->side));
    if (dens_queue(g, w, -1, g->wstat + 2 * pair, nullptr) || launched(g, t0)) return 1;
    g->ahead_g = *wp;
    g->ahead_pair = pair;
    g->ahead_ok = 1;
    return 0;
}

extern "C" int mu_gpu_adv_check_post(mu_gpu_adv *g) {
    if (g->npend == 2) return mu_gpu_fail("advect: two checks posted and not read");
    const int k = g->slot;
    MU_CUDA(cudaMemcpyAsync(g->wstat_h + 10 * k, g->wstat, 10 * sizeof(unsigned long long),
                            cudaMemcpyDeviceToHost, g->st));
    MU_CUDA(cudaEventRecord(g->sdone[k], g->st));
    /* Cleared before the next winds, on their stream, once copied: the axes'
     * pairs and the one this step's first sweep came with, not the one a
     * sweep queued ahead may be writing. */
    MU_CUDA(cudaStreamWaitEvent(g->side, g->sdone[k], 0));
    MU_CUDA(cudaMemsetAsync(g->wstat, 0, 6 * sizeof(unsigned long long), g->side));
    if (g->xpair)
        MU_CUDA(
            cudaMemsetAsync(g->wstat + 2 * g->xpair, 0, 2 * sizeof(unsigned long long), g->side));
    g->pxpair[k] = g->xpair;
    g->xpair = 0;
    if (g->npend == 0) g->pend = k;
    g->npend++;
    g->slot = k ^ 1;
    return 0;
}

extern "C" int mu_gpu_adv_check_wait(mu_gpu_adv *g, double *cmax, int *bad, double sweep_s[3]) {
    if (g->npend == 0) return mu_gpu_fail("advect: no check posted");
    const int k = g->pend;
    auto t0 = clk::now();
    MU_CUDA(cudaEventSynchronize(g->sdone[k]));
    g->kernel_s += since(t0);
    const unsigned long long *st = g->wstat_h + 10 * k;
    double c = 0;
    int b = 0;
    for (int p = 0; p < 5; p++) {
        if (p >= 3 && p != g->pxpair[k]) continue;
        double cp;
        std::memcpy(&cp, &st[2 * p], sizeof cp);
        c = cp > c ? cp : c;
        b |= st[2 * p + 1] != 0;
    }
    *cmax = c;
    *bad = b;
    for (int a = 0; a < 3 && sweep_s; a++) {
        float ms = 0;
        MU_CUDA(cudaEventElapsedTime(&ms, g->ev[k][a], g->ev[k][a + 1]));
        sweep_s[a] = ms / 1e3;
    }
    g->pend = k ^ 1;
    g->npend--;
    return 0;
}

extern "C" int mu_gpu_adv_check(mu_gpu_adv *g, double *cmax, int *bad) {
    if (mu_gpu_adv_check_post(g)) return 1;
    *cmax = 0;
    *bad = 0;
    while (g->npend > 0) { /* with an older step's, if one was posted */
        double c;
        int b;
        if (mu_gpu_adv_check_wait(g, &c, &b, nullptr)) return 1;
        *cmax = c > *cmax ? c : *cmax;
        *bad |= b;
    }
    return 0;
}

namespace {

/* The initial fields from the shape of each owned cell (z fastest, then x,
 * y): background + amp (1 + f/2) shape, rounded as the host's
 * adv_init_value; the halos stay 0. */
__global__ void k_init_fields(float *q, const double *shape, long long cells, int nxl, int nz,
                              int sx, int N, int f0, double background, double amp) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i >= cells * N) return;
    int f = (int)(i % N);
    long long k = i / N;
    int z = (int)(k % nz), x = (int)(k / nz % nxl);
    long long y = k / nz / nxl;
    double scale = __dmul_rn(amp, __dadd_rn(1.0, 0.5 * (f0 + f)));
    double v = __dadd_rn(background, __dmul_rn(scale, shape[k]));
    q[(long long)N * (z + (long long)nz * ((x + 2) + sx * (y + 2))) + f] = __double2float_rn(v);
}

} // namespace

extern "C" int mu_gpu_adv_init_fields(mu_gpu_adv *g, const double *shape, int nxl, int nyl, int nz,
                                      int f0, double background, double amp) {
    long long cells = (long long)nxl * nyl * nz;
    double *dshape = nullptr;
    int rc = 0;
    MU_CUDA(cudaMalloc(&dshape, (size_t)cells * sizeof(double)));
    MU_CUDA_GOTO(cudaMemsetAsync(g->q, 0, (size_t)g->qlen * sizeof(float), g->st));
    if (copy(g, dshape, shape, (size_t)cells * sizeof(double), cudaMemcpyHostToDevice)) {
        rc = 1;
        goto done;
    }
    {
        auto t0 = clk::now();
        k_init_fields<<<blocks(cells * g->N, 256), 256, 0, g->st>>>(
            g->q, dshape, cells, nxl, nz, nxl + 4, g->N, f0, background, amp);
        MU_LAUNCHED_GOTO();
        rc = sync(g, t0);
    }
done:
    cudaFree(dshape);
    g->hfresh = 0;
    return rc;
}

extern "C" int mu_gpu_adv_diag(mu_gpu_adv *g, int nxl, int nyl, int nz, const double *rhodv,
                               mu_xsum *acc, int32_t *kmin, int32_t *kmax) {
    int N = g->N;
    long long nv = (long long)N * nxl * nyl * nz;
    if (nz > g->mmax) return mu_gpu_fail("advect log: %d levels", nz);
    std::vector<int> keys(2 * (size_t)N);
    for (int f = 0; f < N; f++) {
        keys[f] = adv_fkey(INFINITY);
        keys[N + f] = adv_fkey(-INFINITY);
    }
    if (copy(g, g->rhodv, rhodv, (size_t)nz * sizeof(double), cudaMemcpyHostToDevice) ||
        copy(g, g->keys, keys.data(), keys.size() * sizeof(int), cudaMemcpyHostToDevice))
        return 1;
    size_t nw = (size_t)N * MU_XSUM_WORDS,
           shb = nw * sizeof(unsigned long long) + 2 * N * sizeof(int);
    int sh = shb <= 40 * 1024;
    auto t0 = clk::now();
    MU_CUDA(cudaMemsetAsync(g->words, 0, nw * sizeof(unsigned long long), g->st));
    int nb = blocks(nv, 256);
    if (nb > 1056) nb = 1056; /* a few blocks per SM, each flushing its words once */
    if (nb < 1) nb = 1;
    k_diag<<<nb, 256, sh ? shb : 0, g->st>>>(g->q, N, nxl, nz, nv, g->rhodv, g->words, g->keys,
                                             g->keys + N, sh);
    if (launched(g, t0)) return 1;
    std::vector<unsigned long long> w(nw);
    if (copy(g, w.data(), g->words, nw * sizeof(unsigned long long), cudaMemcpyDeviceToHost) ||
        copy(g, keys.data(), g->keys, keys.size() * sizeof(int), cudaMemcpyDeviceToHost))
        return 1;
    for (int f = 0; f < N; f++) {
        mu_xsum t;
        std::memcpy(t.w, w.data() + (size_t)f * MU_XSUM_WORDS, sizeof t.w);
        mu_xsum_normalize(&t); /* digits back under 2^32 before they join the caller's */
        mu_xsum_merge(&acc[f], &t);
        kmin[f] = keys[f];
        kmax[f] = keys[N + f];
    }
    return 0;
}

extern "C" int mu_gpu_adv_dens_next(mu_gpu_adv *g, const mu_gpu_adv_geom *wp) {
    if (g->dsrc != -2 || wp->sweep.axis < 0 || wp->sweep.axis > 2)
        return mu_gpu_fail("advect: the densities after a %d sweep without its winds",
                           wp->sweep.axis);
    g->dsrc = wp->sweep.axis; /* its D1 (ad1), read by the next sweep's k_dens_* */
    MU_CUDA(cudaEventRecord(g->freed[wp->sweep.axis], g->st)); /* its buffers' last reader queued */
    MU_CUDA(cudaEventRecord(g->ev[g->slot][wp->sweep.axis + 1], g->st));
    return 0;
}

namespace {

/* The lines of sweep w whose new values the halo along axis ha holds (the
 * first and last 2 cells of the block along ha), and the others, so that the
 * halo can be packed between them; 0 where they cannot be told apart (the
 * lines run along ha, or the block has at most 4 cells along it). The line
 * orders are line_xyz's. */
int halo_edges(const dgeom &w, int ha, line_part *edge, line_part *rest) {
    int P, c, ext = ha == 0 ? w.nxl : w.nyl;
    if (w.axis == ha || ext <= 4) return 0;
    if (w.axis == 2) { /* g = y nxl + x */
        P = ha == 0 ? w.nxl : w.G;
        c = ha == 0 ? 2 : 2 * w.nxl;
    } else { /* X lines g = y nz + z (ha 1), Y lines g = x nz + z (ha 0) */
        P = w.G;
        c = 2 * w.nz;
    }
    *edge = line_part{w.G / P * 2 * c, P, c, 1};
    *rest = line_part{w.G / P * (P - 2 * c), P, c, 2};
    return 1;
}

/* This rank's region of its neighbour on side (0 prev, 1 next) in the
 * exchange's slot: the data from this rank is, there, from next (prev's) or
 * from prev (next's). */
float *peer_region(const mu_gpu_adv *g, int side) {
    return g->pnb[side].halo + ((size_t)(g->pcount & 1) * 2 + (size_t)(1 - side)) * g->hcap;
}

/* The packed halo copied straight into the neighbours' receive buffers on the
 * copy stream, each after the neighbour's unpack of the exchange before the
 * last (the same slot); its sent event then. */
int peer_send(mu_gpu_adv *g, const float *to_prev, const float *to_next, long long n) {
    for (int side = 0; side < 2; side++) {
        if (!g->pnb[side].halo) continue;
        if (g->pcount >= 2) MU_CUDA(cudaStreamWaitEvent(g->cp, g->pnb[side].ev[EV_HUSED], 0));
        MU_CUDA(cudaMemcpyAsync(peer_region(g, side), side ? to_next : to_prev,
                                (size_t)n * sizeof(float), cudaMemcpyDeviceToDevice, g->cp));
    }
    MU_CUDA(cudaEventRecord(g->pme.ev[EV_HSENT], g->cp));
    return 0;
}

/* The halo along ha of the new fields (qn), both directions (the block's
 * first 2 cells along ha for the previous rank, its last 2 for the next), to
 * pinned host memory on the copy stream; hpacked then. */
int halo_pack(mu_gpu_adv *g, const dgeom &w, int ha) {
    int ext = ha == 0 ? w.nxl : w.nyl;
    long long n = 2LL * w.N * w.nz * (ha == 0 ? w.nyl : w.nxl); /* a side (2 wide) */
    if (n > g->hcap) return mu_gpu_fail("advect halo of %lld values: buffer too small", n);
    if (!g->hdev) MU_CUDA(cudaMalloc(&g->hdev, (size_t)(2 * g->hcap) * sizeof(float)));
    const bool peer = g->peer == ha + 1;
    if (!g->hpin && !peer) MU_CUDA(cudaMallocHost(&g->hpin, (size_t)(4 * g->hcap) * sizeof(float)));
    auto t0 = clk::now();
    float *to_prev = g->hdev, *to_next = g->hdev + g->hcap;
    if (peer) MU_CUDA(cudaStreamWaitEvent(g->st, g->pme.ev[EV_HSENT], 0)); /* last copies' hdev */
    k_halo<<<blocks(n, 256), 256, 0, g->st>>>(g->qn, to_prev, ha, w.nxl, w.nyl, w.nz, w.N, 0, 0);
    k_halo<<<blocks(n, 256), 256, 0, g->st>>>(g->qn, to_next, ha, w.nxl, w.nyl, w.nz, w.N, ext - 2,
                                              0);
    MU_LAUNCHED();
    MU_CUDA(cudaEventRecord(g->hsrc, g->st));
    MU_CUDA(cudaStreamWaitEvent(g->cp, g->hsrc, 0));
    if (peer) {
        if (peer_send(g, to_prev, to_next, n)) return 1;
    } else {
        MU_CUDA(cudaMemcpyAsync(g->hpin, to_prev, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost,
                                g->cp));
        MU_CUDA(cudaMemcpyAsync(g->hpin + g->hcap, to_next, (size_t)n * sizeof(float),
                                cudaMemcpyDeviceToHost, g->cp));
        MU_CUDA(cudaEventRecord(g->hpacked, g->cp));
    }
    g->hax = ha;
    g->hext = ext;
    g->hn = n;
    g->hdim[0] = w.nxl;
    g->hdim[1] = w.nyl;
    g->hdim[2] = w.nz;
    g->hdim[3] = w.N;
    g->hfresh = 0;
    return launched(g, t0);
}

} // namespace

extern "C" int mu_gpu_adv_halo_out(mu_gpu_adv *g, float **to_prev, float **to_next,
                                   float **from_prev, float **from_next, int64_t *count) {
    if (!g->hn) return mu_gpu_fail("advect: no halo was packed ahead");
    auto t0 = clk::now();
    MU_CUDA(cudaEventSynchronize(g->hpacked)); /* the copy alone: the chains go on */
    g->copy_s += since(t0);
    g->bytes += 2.0 * (double)g->hn * sizeof(float);
    *to_prev = g->hpin;
    *to_next = g->hpin + g->hcap;
    *from_prev = g->hpin + 2 * g->hcap;
    *from_next = g->hpin + 3 * g->hcap;
    *count = g->hn;
    return 0;
}

extern "C" int mu_gpu_adv_halo_in(mu_gpu_adv *g, const float *from_prev, const float *from_next) {
    if (!g->hn) return mu_gpu_fail("advect: no halo was packed ahead");
    const long long n = g->hn;
    const int *d = g->hdim;
    auto t0 = clk::now();
    const float *src[2] = {from_prev, from_next};
    const int at[2] = {-2, g->hext}; /* the halo cells before and after the block */
    for (int k = 0; k < 2; k++) {
        if (!src[k]) continue;
        float *buf = g->hdev + k * g->hcap;
        MU_CUDA(
            cudaMemcpyAsync(buf, src[k], (size_t)n * sizeof(float), cudaMemcpyHostToDevice, g->st));
        k_halo<<<blocks(n, 256), 256, 0, g->st>>>(g->qn, buf, g->hax, d[0], d[1], d[2], d[3], at[k],
                                                  1);
    }
    g->hfresh = g->hax + 1;
    g->hn = 0;
    return launched(g, t0);
}

static_assert(sizeof(cudaIpcMemHandle_t) == sizeof(mu_gpu_adv_ipc), "IPC handle size");
static_assert(sizeof(cudaIpcEventHandle_t) == sizeof(mu_gpu_adv_ipc), "IPC handle size");

extern "C" int mu_gpu_adv_peer_export(mu_gpu_adv *g, int rounds, int64_t rslot,
                                      mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]) {
    std::memset(h, 0, MU_GPU_ADV_IPC * sizeof *h);
    peer_end *e = &g->pme;
    if (!e->halo) {
        MU_CUDA(cudaMalloc(&e->halo, (size_t)(4 * g->hcap) * sizeof(float)));
        if (rounds > 0)
            MU_CUDA(cudaMalloc(&e->rounds, (size_t)(2 * rounds * rslot) * sizeof(float)));
        for (cudaEvent_t &ev : e->ev)
            MU_CUDA(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming | cudaEventInterprocess));
        g->prounds = rounds;
        g->rslot = rslot;
    }
    cudaIpcMemHandle_t mh;
    MU_CUDA(cudaIpcGetMemHandle(&mh, e->halo));
    std::memcpy(h[0].b, &mh, sizeof mh);
    if (e->rounds) {
        MU_CUDA(cudaIpcGetMemHandle(&mh, e->rounds));
        std::memcpy(h[1].b, &mh, sizeof mh);
    }
    for (int k = 0; k < PEER_EVENTS; k++) {
        cudaIpcEventHandle_t eh;
        MU_CUDA(cudaIpcGetEventHandle(&eh, e->ev[k]));
        std::memcpy(h[2 + k].b, &eh, sizeof eh);
    }
    return 0;
}

extern "C" int mu_gpu_adv_peer_open(mu_gpu_adv *g, int axis, int side,
                                    const mu_gpu_adv_ipc h[MU_GPU_ADV_IPC]) {
    peer_end *e = &g->pnb[side];
    cudaIpcMemHandle_t mh;
    void *p = nullptr;
    std::memcpy(&mh, h[0].b, sizeof mh);
    MU_CUDA(cudaIpcOpenMemHandle(&p, mh, cudaIpcMemLazyEnablePeerAccess));
    e->halo = (float *)p;
    if (g->prounds > 0) { /* the same rounds on every rank of the axis */
        std::memcpy(&mh, h[1].b, sizeof mh);
        MU_CUDA(cudaIpcOpenMemHandle(&p, mh, cudaIpcMemLazyEnablePeerAccess));
        e->rounds = (float *)p;
    }
    for (int k = 0; k < PEER_EVENTS; k++) {
        cudaIpcEventHandle_t eh;
        std::memcpy(&eh, h[2 + k].b, sizeof eh);
        MU_CUDA(cudaIpcOpenEventHandle(&e->ev[k], eh));
    }
    g->peer = axis + 1;
    g->pcount = 0;
    return 0;
}

extern "C" void mu_gpu_adv_peer_close(mu_gpu_adv *g) {
    (void)cudaDeviceSynchronize(); /* no copy may still use a mapping */
    for (peer_end &e : g->pnb) {
        for (float *b : {e.halo, e.rounds})
            if (b) (void)cudaIpcCloseMemHandle(b);
        for (cudaEvent_t ev : e.ev)
            if (ev) (void)cudaEventDestroy(ev);
        e = peer_end{};
    }
    g->peer = 0;
    (void)cudaGetLastError(); /* a teardown reports nothing */
}

extern "C" int mu_gpu_adv_halo_peer_in(mu_gpu_adv *g, int from_prev, int from_next) {
    if (!g->hn || g->peer != g->hax + 1)
        return mu_gpu_fail("advect: no peer halo was packed ahead");
    const long long n = g->hn;
    const int *d = g->hdim;
    auto t0 = clk::now();
    const int has[2] = {from_prev, from_next};
    const int at[2] = {-2, g->hext}; /* the halo cells before and after the block */
    for (int side = 0; side < 2; side++) {
        if (!has[side]) continue;
        MU_CUDA(cudaStreamWaitEvent(g->st, g->pnb[side].ev[EV_HSENT], 0));
        const float *buf = g->pme.halo + ((size_t)(g->pcount & 1) * 2 + (size_t)side) * g->hcap;
        k_halo<<<blocks(n, 256), 256, 0, g->st>>>(g->qn, (float *)buf, g->hax, d[0], d[1], d[2],
                                                  d[3], at[side], 1);
    }
    MU_CUDA(cudaEventRecord(g->pme.ev[EV_HUSED], g->st));
    g->pcount++;
    g->hfresh = g->hax + 1;
    g->hn = 0;
    return launched(g, t0);
}

extern "C" int mu_gpu_adv_halo_fresh(mu_gpu_adv *g, int axis) {
    if (g->hfresh != axis + 1) return 0;
    g->hfresh = 0;
    return 1;
}

extern "C" int mu_gpu_adv_begin(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, const int *cyc,
                                int64_t *ntasks) {
    dgeom w = wp->sweep;
    bufs b = of(g);
    if (cyc) {
        if (copy(g, g->cyc, cyc, (size_t)w.G * sizeof(int), cudaMemcpyHostToDevice)) return 1;
        g->cyc_zero = 0;
    } else if (!g->cyc_zero) { /* zero once: the signs change only with a periodic sweep */
        MU_CUDA(cudaMemsetAsync(g->cyc, 0, (size_t)g->gmax * sizeof(int), g->st));
        g->cyc_zero = 1;
    }
    auto t0 = clk::now();
    if (wp->dataflow) /* the stream and cell counts (k_lost clears its own) */
        MU_CUDA(cudaMemsetAsync(g->counters, 0, 4 * sizeof(unsigned long long), g->st));
    if (w.periodic) { /* with the signs just uploaded (open sweeps: with their winds) */
        k_classify<<<blocks((long long)w.G * 32, 128), 128, 0, g->st>>>(w, b, 1, nullptr);
        MU_LAUNCHED();
    }
    /* the fixed open-border cells, as adv_seg_ends's ends [0, a) and [b, m) (k_local) */
    int ba = !w.periodic && w.first, bb = !w.periodic && w.last ? w.m - 1 : w.m;
    int l1 = ba < w.m ? ba : w.m, r0 = bb > ba ? bb : ba, fc[2] = {-1, -1}, nfc = 0;
    for (int i = 0; i < l1 && nfc < 2; i++) fc[nfc++] = i;
    for (int i = r0; i < w.m && nfc < 2; i++) fc[nfc++] = i;
    g->ntasks = g->nf = 0;
    if (wp->dataflow) {
        k_tasks<<<blocks((long long)w.G * 32, 128), 128, 0, g->st>>>(w, b);
        MU_LAUNCHED();
        unsigned long long c[3];
        MU_CUDA(cudaMemcpyAsync(c, g->counters, sizeof c, cudaMemcpyDeviceToHost, g->st));
        MU_CUDA(cudaStreamSynchronize(g->st));
        if (c[2]) return mu_gpu_fail("advect: a stream without a root (inconsistent classes)");
        g->ntasks = (int64_t)c[0];
        g->nf = (int64_t)c[1];
    }
    int lines = lines_alone(w, wp->dataflow) ? 2 : !wp->dataflow;
    const fixed_cells fx{fc[0], fc[1]};
    if (wp->halo_ahead >= 0) {
        if (lines != 2)
            return mu_gpu_fail("advect: a halo packed ahead needs the lines schedule and "
                               "segments alone on their lines");
        line_part edge, rest;
        int split = halo_edges(w, wp->halo_ahead, &edge, &rest);
        launch_local(w, b, lines, fx, split ? edge : line_part{w.G, w.G, 0, 0}, g->st);
        MU_LAUNCHED();
        if (halo_pack(g, w, wp->halo_ahead)) return 1;
        if (split) launch_local(w, b, lines, fx, rest, g->st);
    } else {
        launch_local(w, b, lines, fx, line_part{w.G, w.G, 0, 0}, g->st);
    }
    MU_LAUNCHED();
    if (wp->dataflow && g->ntasks) {
        if (w.wrap)
            k_streams<1><<<blocks(g->ntasks * 32, 128), 128, 0, g->st>>>(w, b, g->ntasks);
        else
            k_streams<0><<<blocks(g->ntasks * 32, 128), 128, 0, g->st>>>(w, b, g->ntasks);
        MU_LAUNCHED();
    }
    if (!seg_alone(w)) k_out_r<<<blocks(w.G, 128), 128, 0, g->st>>>(w, b);
    if (launched(g, t0)) return 1;
    *ntasks = g->ntasks;
    return 0;
}

extern "C" int mu_gpu_adv_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int dir, float *host) {
    dgeom w = wp->sweep;
    auto t0 = clk::now();
    k_pack<<<blocks(w.G, 128), 128, 0, g->st>>>(w, of(g), dir);
    if (launched(g, t0)) return 1;
    return copy(g, host, g->buf, (size_t)w.G * (w.N + 1) * sizeof(float), cudaMemcpyDeviceToHost);
}

namespace {

/* The chains that the received fluxes in buf free, and their flags. */
int unpack_queue(mu_gpu_adv *g, const dgeom &w, int dir, clk::time_point t0) {
    if (w.wrap)
        k_unpack<1><<<blocks((long long)w.G * w.N, 128), 128, 0, g->st>>>(w, of(g), dir);
    else
        k_unpack<0><<<blocks((long long)w.G * w.N, 128), 128, 0, g->st>>>(w, of(g), dir);
    MU_LAUNCHED();
    k_unpack_flags<<<blocks(w.G, 128), 128, 0, g->st>>>(w, of(g), dir);
    return launched(g, t0);
}

/* Round r's slot of direction dir in an end's round buffer. */
float *round_slot(const mu_gpu_adv *g, float *rounds, int dir, int r) {
    return rounds + ((size_t)(dir > 0 ? 0 : 1) * g->prounds + (size_t)r) * g->rslot;
}

/* The round is one the peer buffers hold (w along the peer axis). */
int round_fits(const mu_gpu_adv *g, const dgeom &w, int r) {
    if (g->peer != w.axis + 1 || r >= g->prounds || (long long)w.G * (w.N + 1) > g->rslot)
        return mu_gpu_fail("advect: flux round %d of the %c sweep has no peer buffer", r,
                           "XYZ"[w.axis]);
    return 0;
}

} // namespace

extern "C" int mu_gpu_adv_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int dir,
                                 const float *host) {
    dgeom w = wp->sweep;
    auto t0 = clk::now();
    if (copy_in(g, g->buf, host, (size_t)w.G * (w.N + 1) * sizeof(float))) return 1;
    return unpack_queue(g, w, dir, t0);
}

extern "C" int mu_gpu_adv_peer_pack(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int dir, int r) {
    dgeom w = wp->sweep;
    if (round_fits(g, w, r)) return 1;
    auto t0 = clk::now();
    const int d = dir > 0 ? 0 : 1, side = dir > 0 ? 1 : 0; /* to the next rank, or the previous */
    k_pack<<<blocks(w.G, 128), 128, 0, g->st>>>(w, of(g), dir);
    MU_LAUNCHED();
    if (g->pnb[side].rounds) {
        MU_CUDA(cudaStreamWaitEvent(g->st, g->pnb[side].ev[EV_RUSED + d], 0));
        MU_CUDA(cudaMemcpyAsync(round_slot(g, g->pnb[side].rounds, dir, r), g->buf,
                                (size_t)w.G * (w.N + 1) * sizeof(float), cudaMemcpyDeviceToDevice,
                                g->st));
    }
    MU_CUDA(cudaEventRecord(g->pme.ev[EV_RSENT + d], g->st));
    return launched(g, t0);
}

extern "C" int mu_gpu_adv_peer_unpack(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int dir, int r,
                                      int has_src) {
    dgeom w = wp->sweep;
    if (round_fits(g, w, r)) return 1;
    auto t0 = clk::now();
    const int d = dir > 0 ? 0 : 1, side = dir > 0 ? 0 : 1; /* from the previous rank, or the next */
    const size_t bytes = (size_t)w.G * (w.N + 1) * sizeof(float);
    if (has_src && g->pnb[side].rounds) {
        MU_CUDA(cudaStreamWaitEvent(g->st, g->pnb[side].ev[EV_RSENT + d], 0));
        MU_CUDA(cudaMemcpyAsync(g->buf, round_slot(g, g->pme.rounds, dir, r), bytes,
                                cudaMemcpyDeviceToDevice, g->st));
    } else { /* no neighbour that side: no flux, as MPI_PROC_NULL leaves the host's zeros */
        MU_CUDA(cudaMemsetAsync(g->buf, 0, bytes, g->st));
    }
    MU_CUDA(cudaEventRecord(g->pme.ev[EV_RUSED + d], g->st));
    return unpack_queue(g, w, dir, t0);
}

extern "C" int mu_gpu_adv_lap2(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int sign) {
    dgeom w = wp->sweep;
    auto t0 = clk::now();
    k_lap2<<<blocks(w.G, 128), 128, 0, g->st>>>(w, of(g), sign);
    return launched(g, t0);
}

extern "C" int mu_gpu_adv_backward(mu_gpu_adv *g, const mu_gpu_adv_geom *wp) {
    dgeom w = wp->sweep;
    bufs b = of(g);
    auto t0 = clk::now();
    if (wp->dataflow && g->nf) {
        k_fcells<<<blocks(g->nf * w.N, 128), 128, 0, g->st>>>(w, b, g->nf);
        MU_LAUNCHED();
    }
    if (!lines_alone(w, wp->dataflow)) { /* else k_local did it */
        if (w.wrap)
            k_backward<1>
                <<<blocks((long long)w.G * w.N, 128), 128, 0, g->st>>>(w, b, !wp->dataflow);
        else
            k_backward<0>
                <<<blocks((long long)w.G * w.N, 128), 128, 0, g->st>>>(w, b, !wp->dataflow);
        MU_LAUNCHED();
    }
    if (!seg_alone(w)) k_out_l<<<blocks(w.G, 128), 128, 0, g->st>>>(w, b);
    return launched(g, t0);
}

extern "C" int mu_gpu_adv_end(mu_gpu_adv *g, const mu_gpu_adv_geom *wp, int *lost) {
    dgeom w = wp->sweep;
    *lost = 0;
    if (seg_alone(w)) { /* no chain waits for another rank: none can stay open */
        std::swap(g->q, g->qn);
        return 0;
    }
    auto t0 = clk::now();
    MU_CUDA(cudaMemsetAsync(g->counters + 2, 0, sizeof(unsigned long long), g->st));
    k_lost<<<blocks(w.G, 128), 128, 0, g->st>>>(w, of(g));
    MU_LAUNCHED();
    unsigned long long c = 0;
    MU_CUDA(cudaMemcpyAsync(&c, g->counters + 2, sizeof c, cudaMemcpyDeviceToHost, g->st));
    if (sync(g, t0)) return 1;
    *lost = c != 0;
    float *t = g->q;
    g->q = g->qn;
    g->qn = t;
    return 0;
}

extern "C" void mu_gpu_adv_times(const mu_gpu_adv *g, double *kernel_s, double *copy_s,
                                 double *bytes) {
    *kernel_s = g->kernel_s;
    *copy_s = g->copy_s;
    *bytes = g->bytes;
}
