#include "maxsub/strip2d.h"
#include "gpu/maxsub_monoid.h"

mu_mss_summary mu_mss_scan_array(const int32_t *x, int64_t n, int64_t base, int empty_allowed) {
    mu_mss_scan st;
    mu_mss_scan_begin(&st, base, empty_allowed);
    for (int64_t i = 0; i < n; i++) mu_mss_scan_push(&st, x[i], empty_allowed);
    return mu_mss_scan_end(&st, empty_allowed);
}

int mu_mss_same(const mu_mss_summary *a, const mu_mss_summary *b) {
    return a->lo == b->lo && a->hi == b->hi && a->sum == b->sum && a->pre == b->pre &&
           a->pre_end == b->pre_end && a->suf == b->suf && a->suf_start == b->suf_start &&
           a->best == b->best && a->best_start == b->best_start && a->best_end == b->best_end;
}

void mu_mss2d_prefix(const int32_t *k, int64_t rows, int64_t cols, int64_t *V) {
    for (int64_t i = 0; i < rows; i++) {
        const int32_t *row = k + i * cols;
        int64_t *v = V + i * (cols + 1);
        v[0] = 0;
        for (int64_t j = 0; j < cols; j++) v[j + 1] = v[j] + row[j];
    }
}

/* One tile: Kadane states for up to TILE x TILE pairs, rows streamed once so the
 * tile's prefix columns stay in cache. */
static void tile_best(const int64_t *V, int64_t rows, int64_t cols, int64_t tg, int64_t th,
                      int empty_allowed, int64_t *best, int64_t *pair_id) {
    enum { T = MU_MSS_TILE };
    static _Thread_local int64_t run[T][T], top[T][T];
    int64_t g0 = tg * T, h0 = th * T;
    int64_t ng = cols - g0 < T ? cols - g0 : T;
    int64_t nh = cols - h0 < T ? cols - h0 : T;
    int64_t init = empty_allowed ? 0 : MU_MSS_NEG_INF;
    for (int a = 0; a < ng; a++)
        for (int b = 0; b < nh; b++) {
            run[a][b] = 0;
            top[a][b] = init;
        }
    for (int64_t i = 0; i < rows; i++) {
        const int64_t *v = V + i * (cols + 1);
        for (int a = 0; a < ng; a++) {
            int64_t vg = v[g0 + a];
            for (int b = 0; b < nh; b++) {
                int64_t c = v[h0 + b + 1] - vg;
                int64_t r = empty_allowed ? run[a][b] + c : (run[a][b] > 0 ? run[a][b] : 0) + c;
                if (empty_allowed && r < 0) r = 0;
                run[a][b] = r;
                if (r > top[a][b]) top[a][b] = r;
            }
        }
    }
    for (int a = 0; a < ng; a++)
        for (int b = 0; b < nh; b++) {
            int64_t g = g0 + a, h = h0 + b;
            if (g > h) continue;
            if (empty_allowed && top[a][b] <= 0) continue;
            mu_mss2d_keep(best, pair_id, top[a][b], mu_mss_pair_id(cols, g, h));
        }
}

void mu_mss2d_cpu_tiles(const int64_t *V, int64_t rows, int64_t cols, int64_t tile_begin,
                        int64_t tile_end, int empty_allowed, int64_t *best, int64_t *pair_id) {
    int64_t t = (cols + MU_MSS_TILE - 1) / MU_MSS_TILE;
    *best = empty_allowed ? 0 : MU_MSS_NEG_INF;
    *pair_id = -1;
    for (int64_t id = tile_begin; id < tile_end; id++) {
        int64_t tg, th;
        mu_mss_tri_unrank(t, id, &tg, &th);
        tile_best(V, rows, cols, tg, th, empty_allowed, best, pair_id);
    }
}

void mu_mss2d_strip(const int32_t *k, int64_t rows, int64_t cols, int64_t g, int64_t h,
                    int empty_allowed, int64_t *sum, int64_t *row0, int64_t *row1) {
    mu_mss_scan st;
    mu_mss_scan_begin(&st, 0, empty_allowed);
    for (int64_t i = 0; i < rows; i++) {
        const int32_t *row = k + i * cols;
        int64_t c = 0;
        for (int64_t j = g; j <= h; j++) c += row[j];
        mu_mss_scan_push(&st, c, empty_allowed);
    }
    mu_mss_summary s = mu_mss_scan_end(&st, empty_allowed);
    *sum = s.best;
    *row0 = s.best_start;
    *row1 = s.best_end;
}

void mu_mss2d_best_rows(const int64_t *c, int64_t rows, int empty_allowed, int64_t *sum,
                        int64_t *row0, int64_t *row1) {
    mu_mss_scan st;
    mu_mss_scan_begin(&st, 0, empty_allowed);
    for (int64_t i = 0; i < rows; i++) mu_mss_scan_push(&st, c[i], empty_allowed);
    mu_mss_summary s = mu_mss_scan_end(&st, empty_allowed);
    *sum = s.best;
    *row0 = s.best_start;
    *row1 = s.best_end;
}
