/* The study's parallel "Version 2" of Hartigan-Wong (Quadros 2016, section 3.7.3):
 * the centres stay fixed during each pass over the points and are recomputed
 * from their members after it, so every point's test in a pass is independent
 * of the others' and the distance step is one M x K computation (the GPU's).
 *
 * Choices made here where the study is silent, and why:
 *  - a pass applies AS 136's optimal-transfer test (R1 = n1/(n1-1) d(i,L1)
 *    against R2 = n/(n+1) d(i,L), live-set rule, strict inequality) with the
 *    counts frozen at the start of the pass, like the centres;
 *  - a running count forbids the move that would empty a cluster (two points
 *    leaving a pair in one pass); that cluster lost members, so it is live in
 *    the next pass and the point is tested again;
 *  - simultaneous moves must not cycle. Taken all together, AS 136's moves
 *    can: a move to a farther centre, justified only by the n/(n-1) and
 *    n/(n+1) factors, lowers the sum of squares when made alone, and two such
 *    moves between the same clusters can undo each other pass after pass (it
 *    happened on 3 of 5 test sets). So a pass takes all its moves, as the
 *    study does, only if the within sum of squares (kept per cluster, below) goes
 *    down; otherwise it is redone with a safe subset: moves to a strictly
 *    nearer centre (as in Lloyd's method: with the centres frozen each lowers
 *    a bound on the new sum), and a move to a farther centre only when neither
 *    of its clusters has moved anything yet in the pass, which then locks both
 *    for the rest of it (so the exact single-move gain applies). Every pass
 *    with a move thus lowers the sum of squares and passes cannot cycle; a
 *    point held back is tested again, since a cluster it concerns changed;
 *  - after each optimal-transfer pass, quick-transfer sweeps (each point
 *    against its second choice, for points whose two clusters changed in the
 *    last sweep) with the centres recomputed after every sweep, which avoids
 *    the flip-flop that frozen centres and counts allow. How many: qsweeps,
 *    MU_KM_V2_SWEEPS = 1 by default. More sweeps mean fewer passes (8-10
 *    instead of 12-24 on the Table 3-2 shapes, bench_kmeans) but each sweep is
 *    serial CPU work, and the late ones move few points: at M = 100000,
 *    K = 20, 50 sweeps a stage made the serial part ten times the single
 *    sweep's. The device makes passes cheap, so one sweep; 12-24 passes is
 *    also what the study saw (8-21, Table 3-2);
 *  - the live set of a pass is the clusters whose members changed since the
 *    previous pass began. A cluster that is not live has the same members, so
 *    the same centre bits (means are summed in point order), as when its
 *    points were last tested; so the live-set rule loses no move;
 *  - the within sum of squares is kept per cluster (members in point order)
 *    and totalled in cluster order; after a batch only the clusters that
 *    gained or lost a point get their centre and their sum recomputed (the
 *    others have the same members, so the same bits), which makes the serial
 *    part proportional to the points of the changed clusters, not to M;
 *  - a backend that keeps the assignment (mu_km_resident, the GPU's from
 *    MU_GPU_KM_BOOK_MIN points) takes the scan, the candidates, the tests
 *    and the recomputations, so only per-cluster data comes back; it makes a
 *    batch's moves itself when none would empty a cluster (then the walk in
 *    point order refuses none) and hands the others (a refusal possible, or
 *    the safe subset) to the walk here;
 *  - it stops after a pass with no transfer. Then every point passed the test
 *    against every cluster with the final means, which implies it is nearest
 *    its own centre (n1/(n1-1) >= 1 >= n/(n+1)): a fixed point of k-means. */
#include <stdlib.h>
#include <string.h>

#include "core/free.h"
#include "scenarios/kmeans.h"

#define MU_KM_BIG 1.0e30

typedef struct {
    const double *a;
    int m, d, k;
    double *c, *an1, *an2, *csave, *cw, *cwsave; /* cw: within sum of squares per cluster */
    int *ic1, *ic2, *nc, *ncrun, *save1, *save2, *ncsave, *cand;
    unsigned char *lock;
    int *move;            /* the scan's outcome per point (mu_km_move) */
    unsigned char *flags; /* live, chg, qchg, nchg and lock: k bytes each */
    double wss;           /* within sum of squares of the current partition */
    const mu_km_backend *be;
    const mu_km_resident *res; /* the backend keeps the assignment (else NULL) */
    int fail;                  /* the backend failed */
    double dev_s;              /* seconds in the backend's bookkeeping steps */
} v2;

static void factors(v2 *s) {
    for (int l = 0; l < s->k; l++) {
        double aa = s->nc[l];
        s->an2[l] = aa / (aa + 1.0);
        s->an1[l] = aa > 1.0 ? aa / (aa - 1.0) : MU_KM_BIG;
    }
}

static double dist(const v2 *s, int i, int l) {
    return mu_km_d2(s->a + (size_t)i * s->d, s->c + (size_t)l * s->d, s->d);
}

/* A backend step that began at t0 returned rc: timed, and a failure kept. */
static int dev_done(v2 *s, double t0, int rc) {
    s->dev_s += mu_km_now() - t0;
    if (rc) s->fail = 1;
    return rc;
}

static void total(v2 *s) {
    double w = 0.0;
    for (int l = 0; l < s->k; l++) w += s->cw[l];
    s->wss = w;
}

/* Centres and per-cluster sums of squares of the clusters flagged in touched
 * (all when NULL), from their members in point order, on the backend when it
 * has the step; nc is recounted; wss = the cw in cluster order. */
static void recompute(v2 *s, const unsigned char *touched) {
    double t = mu_km_now();
    if (s->res) {
        if (dev_done(s, t, s->res->recompute(s->be->ctx, s->k, touched, s->c, s->cw, s->nc)))
            return;
    } else {
        memset(s->nc, 0, sizeof(int) * (size_t)s->k);
        for (int i = 0; i < s->m; i++) s->nc[s->ic1[i]]++;
        if (s->be && s->be->recompute)
            dev_done(s, t, s->be->recompute(s->be->ctx, s->ic1, s->nc, s->k, touched, s->c, s->cw));
        else
            mu_km_recompute_cpu(s->a, s->m, s->d, s->ic1, s->nc, s->k, touched, s->c, s->cw);
    }
    total(s);
}

/* Moves each point i with cand[i] >= 0 there, in point order, never emptying a
 * cluster; with safe, only the subset described at the top. touched: the
 * clusters that gained or lost a point. Returns the number of moves. */
static int apply(v2 *s, int safe, unsigned char *touched) {
    memcpy(s->ncrun, s->nc, sizeof(int) * (size_t)s->k);
    memset(touched, 0, (size_t)s->k);
    memset(s->lock, 0, (size_t)s->k);
    int moved = 0;
    for (int i = 0; i < s->m; i++) {
        int to = s->cand[i], l1 = s->ic1[i];
        if (to < 0) continue;
        int ok = s->ncrun[l1] > 1;
        if (ok && safe) {
            if (s->lock[l1] || s->lock[to]) {
                ok = 0;
            } else if (!(dist(s, i, to) < dist(s, i, l1))) {
                ok = !touched[l1] && !touched[to];
                if (ok) s->lock[l1] = s->lock[to] = 1;
            }
        }
        if (!ok) {
            s->ic2[i] = to;
            continue;
        }
        s->ncrun[l1]--;
        s->ncrun[to]++;
        s->ic1[i] = to;
        s->ic2[i] = l1;
        touched[l1] = touched[to] = 1;
        moved++;
    }
    return moved;
}

/* apply() on the host; a resident assignment comes to the host for it and
 * goes back. */
static int host_apply(v2 *s, int safe, unsigned char *touched) {
    double t = mu_km_now();
    if (s->res && dev_done(s, t, s->res->pull(s->be->ctx, s->ic1, s->ic2, s->cand))) return 0;
    int moved = apply(s, safe, touched);
    t = mu_km_now();
    if (s->res && dev_done(s, t, s->res->push(s->be->ctx, s->ic1, s->ic2))) return 0;
    return moved;
}

/* Every candidate's move that empties no cluster, and the centres after
 * them; a resident assignment makes them on the backend unless one would be
 * refused. Returns the number of moves. */
static int all_moves(v2 *s, unsigned char *touched) {
    if (s->res) {
        int applied = 0, moved = 0;
        double t = mu_km_now();
        if (dev_done(s, t,
                     s->res->batch(s->be->ctx, s->k, s->nc, &applied, &moved, touched, s->c, s->cw,
                                   s->nc)))
            return 0;
        if (applied) {
            total(s);
            return moved;
        }
    }
    int moved = host_apply(s, 0, touched);
    if (moved && !s->fail) recompute(s, touched);
    return moved;
}

/* One batch of moves (an optimal-transfer pass or a quick-transfer sweep),
 * with the centres recomputed after it: all of cand if that lowers the within
 * sum of squares, else the safe subset. */
static int batch(v2 *s, unsigned char *touched) {
    size_t kd = (size_t)s->k * (size_t)s->d, kk = (size_t)s->k;
    if (!s->res) {
        memcpy(s->save1, s->ic1, sizeof(int) * (size_t)s->m);
        memcpy(s->save2, s->ic2, sizeof(int) * (size_t)s->m);
    }
    memcpy(s->csave, s->c, sizeof(double) * kd);
    memcpy(s->cwsave, s->cw, sizeof(double) * kk);
    memcpy(s->ncsave, s->nc, sizeof(int) * kk);
    double w0 = s->wss;
    int moved = all_moves(s, touched);
    if (!moved || s->fail) return 0;
    if (!(s->wss < w0)) {
        double t = mu_km_now();
        if (s->res) {
            if (dev_done(s, t, s->res->restore(s->be->ctx))) return 0;
        } else {
            memcpy(s->ic1, s->save1, sizeof(int) * (size_t)s->m);
            memcpy(s->ic2, s->save2, sizeof(int) * (size_t)s->m);
        }
        memcpy(s->c, s->csave, sizeof(double) * kd);
        memcpy(s->cw, s->cwsave, sizeof(double) * kk);
        memcpy(s->nc, s->ncsave, sizeof(int) * kk);
        moved = host_apply(s, 1, touched);
        if (s->fail) return 0;
        recompute(s, touched);
    }
    factors(s);
    return moved;
}

/* Quick-transfer sweeps: each point whose two clusters changed in the last
 * sweep against its second choice; chg collects the clusters that changed. */
static void quick_sweeps(v2 *s, int sweeps, unsigned char *chg, unsigned char *qchg,
                         unsigned char *nchg, long long *evals) {
    memcpy(qchg, chg, (size_t)s->k);
    for (int sw = 0; sw < sweeps; sw++) {
        double t = mu_km_now();
        if (s->res) {
            if (dev_done(s, t, s->res->qtest(s->be->ctx, s->c, s->k, s->nc, s->an1, s->an2, qchg)))
                return;
        } else if (s->be && s->be->qtest) {
            if (dev_done(s, t,
                         s->be->qtest(s->be->ctx, s->c, s->k, s->ic1, s->ic2, s->nc, s->an1, s->an2,
                                      qchg, s->cand)))
                return;
        } else {
            mu_km_qtest_cpu(s->a, s->m, s->d, s->c, s->k, s->ic1, s->ic2, s->nc, s->an1, s->an2,
                            qchg, s->cand);
            for (int i = 0; i < s->m; i++)
                if (s->nc[s->ic1[i]] != 1 && (qchg[s->ic1[i]] || qchg[s->ic2[i]])) *evals += 2;
        }
        if (!batch(s, nchg) || s->fail) return;
        for (int l = 0; l < s->k; l++) chg[l] |= nchg[l];
        memcpy(qchg, nchg, (size_t)s->k);
    }
}

/* The work arrays beside the caller's c, ic1 and nc; 1 when one is missing. */
static int alloc_work(v2 *s) {
    size_t mm = (size_t)s->m, kk = (size_t)s->k;
    s->an1 = malloc(sizeof(double) * kk);
    s->an2 = malloc(sizeof(double) * kk);
    s->csave = malloc(sizeof(double) * kk * (size_t)s->d);
    s->cw = malloc(sizeof(double) * kk);
    s->cwsave = malloc(sizeof(double) * kk);
    s->ic2 = malloc(sizeof(int) * mm);
    s->ncrun = malloc(sizeof(int) * kk);
    s->save1 = malloc(sizeof(int) * mm);
    s->save2 = malloc(sizeof(int) * mm);
    s->ncsave = malloc(sizeof(int) * kk);
    s->cand = malloc(sizeof(int) * mm);
    s->move = malloc(sizeof(int) * mm);
    s->flags = malloc(5 * kk);
    if (!s->an1 || !s->an2 || !s->csave || !s->cw || !s->cwsave || !s->ic2 || !s->ncrun ||
        !s->save1 || !s->save2 || !s->ncsave || !s->cand || !s->move || !s->flags)
        return 1;
    s->lock = s->flags + 4 * kk;
    return 0;
}

static void free_work(v2 *s) {
    MU_FREE(s->an1, s->an2, s->csave, s->cw, s->cwsave, s->ic2, s->ncrun, s->save1, s->save2,
            s->ncsave, s->cand, s->move, s->flags);
}

/* The first partition: each point's nearest and second-nearest centre, then
 * the centres from their members. Returns MU_KM_OK or the fault. */
static int first_partition(v2 *s, mu_km_out *out) {
    const mu_km_backend *be = s->be;
    double t;
    if (be) {
        t = mu_km_now();
        if (be->nearest2(be->ctx, s->c, s->k, s->ic1, s->ic2)) return MU_KM_BACKEND;
        out->dist_s += mu_km_now() - t;
    } else { /* timed as the distance step too, for the benchmarks' split */
        t = mu_km_now();
        mu_km_nearest2_cpu(s->a, s->m, s->d, s->c, s->k, s->ic1, s->ic2);
        out->dist_s += mu_km_now() - t;
        out->dist_evals += (long long)s->m * s->k;
    }
    recompute(s, NULL);
    if (s->fail) return MU_KM_BACKEND;
    for (int l = 0; l < s->k; l++)
        if (s->nc[l] == 0) return MU_KM_EMPTY;
    factors(s);
    return MU_KM_OK;
}

/* The parallel part of a pass: every point's test against the frozen centres,
 * into move. Returns 1 when the backend failed. */
static int scan(v2 *s, const unsigned char *live, mu_km_out *out) {
    const mu_km_backend *be = s->be;
    double t;
    if (s->res) { /* candidates() too */
        t = mu_km_now();
        if (s->res->scan(be->ctx, s->c, s->k, s->nc, s->an1, s->an2, live)) return 1;
        out->dist_s += mu_km_now() - t;
    } else if (be) {
        t = mu_km_now();
        if (be->scan(be->ctx, s->c, s->k, s->ic1, s->ic2, s->nc, s->an1, s->an2, live, s->move))
            return 1;
        out->dist_s += mu_km_now() - t;
    } else {
        t = mu_km_now();
        mu_km_scan_cpu(s->a, s->m, s->d, s->c, s->k, s->ic1, s->ic2, s->nc, s->an1, s->an2, live,
                       s->move);
        out->dist_s += mu_km_now() - t;
        out->dist_evals += (long long)s->m * s->k;
    }
    return 0;
}

/* The serial part's input, in point order: a point whose test found a better
 * cluster is to move there (cand), else that cluster is its second choice. */
static void candidates(v2 *s) {
    for (int i = 0; i < s->m; i++) {
        s->cand[i] = -1;
        const int mv = s->move[i];
        if (mv >= 0)
            s->cand[i] = mv;
        else if (mv <= -2) /* stays; its second choice found */
            s->ic2[i] = -2 - mv;
    }
}

int mu_km_version2(const double *a, int m, int d, double *c, int k, int maxit, int qsweeps,
                   const mu_km_backend *be, mu_km_out *out) {
    double t0 = mu_km_now();
    if (mu_km_out_start(out, m, k)) return out->ifault;
    v2 s = {0};
    s.a = a;
    s.m = m;
    s.d = d;
    s.k = k;
    s.c = c;
    s.ic1 = out->ic1;
    s.nc = out->nc;
    s.be = be;
    s.res = be ? be->res : NULL;
    size_t kk = (size_t)k;
    if (alloc_work(&s)) {
        out->ifault = MU_KM_BACKEND;
        goto done;
    }
    unsigned char *live = s.flags, *chg = s.flags + kk, *qchg = s.flags + 2 * kk,
                  *nchg = s.flags + 3 * kk;
    int fault = first_partition(&s, out);
    if (fault != MU_KM_OK) {
        out->ifault = fault;
        goto done;
    }
    memset(live, 1, kk);
    out->ifault = MU_KM_MAXITER;
    out->iter = maxit + 1;
    for (int it = 1; it <= maxit; it++) {
        if (scan(&s, live, out)) {
            out->ifault = MU_KM_BACKEND;
            goto done;
        }
        if (!s.res) candidates(&s);
        int moved = batch(&s, chg);
        if (!s.fail && moved)
            quick_sweeps(&s, qsweeps > 0 ? qsweeps : MU_KM_V2_SWEEPS, chg, qchg, nchg,
                         &out->dist_evals);
        if (s.fail) {
            out->ifault = MU_KM_BACKEND;
            goto done;
        }
        if (!moved) {
            out->ifault = MU_KM_OK;
            out->iter = it;
            break;
        }
        memcpy(live, chg, kk);
    }
    if (s.res && s.res->pull(be->ctx, s.ic1, NULL, NULL)) {
        out->ifault = MU_KM_BACKEND;
        goto done;
    }
    if (out->wss) memcpy(out->wss, s.cw, sizeof(double) * kk);
done:
    free_work(&s);
    out->dist_s += s.dev_s; /* the backend's steps: distances and bookkeeping */
    out->total_s = mu_km_now() - t0;
    return out->ifault;
}
