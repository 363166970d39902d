#include "maxsub/strip2d.h"
#include <string.h>
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

int64_t mu_mss2d_block_tile_count(int64_t wG, int64_t wH, int diag) {
    int64_t tG = (wG + MU_MSS_TILE - 1) / MU_MSS_TILE, tH = (wH + MU_MSS_TILE - 1) / MU_MSS_TILE;
    return diag ? tG * (tG + 1) / 2 : tG * tH;
}

void mu_mss2d_block_tile(int64_t wG, int64_t wH, int diag, int64_t id, int64_t *tg, int64_t *th) {
    int64_t tG = (wG + MU_MSS_TILE - 1) / MU_MSS_TILE, tH = (wH + MU_MSS_TILE - 1) / MU_MSS_TILE;
    if (diag) {
        mu_mss_tri_unrank(tG, id, tg, th);
    } else {
        *tg = id / tH;
        *th = id % tH;
    }
}

/* The extent of tile (tg, th): its first local columns and sizes. */
typedef struct {
    int64_t g0, h0, ng, nh;
} tile_box;

static tile_box box_of(int64_t wG, int64_t wH, int64_t tg, int64_t th) {
    tile_box t = {tg * MU_MSS_TILE, th * MU_MSS_TILE, 0, 0};
    t.ng = wG - t.g0 < MU_MSS_TILE ? wG - t.g0 : MU_MSS_TILE;
    t.nh = wH - t.h0 < MU_MSS_TILE ? wH - t.h0 : MU_MSS_TILE;
    return t;
}

/* One tile: Kadane states for up to TILE x TILE pairs, rows streamed once so the
 * tile's prefix columns stay in cache. */
static void tile_best(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows, int64_t cols,
                      int diag, tile_box t, int empty_allowed, int64_t *best, int64_t *pair_id) {
    enum { T = MU_MSS_TILE };
    static _Thread_local int64_t run[T][T], top[T][T];
    int64_t init = empty_allowed ? 0 : MU_MSS_NEG_INF;
    for (int a = 0; a < t.ng; a++)
        for (int b = 0; b < t.nh; b++) {
            run[a][b] = 0;
            top[a][b] = init;
        }
    for (int64_t i = 0; i < rows; i++) {
        const int64_t *vG = G->V + i * (G->w + 1), *vH = H->V + i * (H->w + 1) + t.h0 + 1;
        for (int a = 0; a < t.ng; a++) {
            int64_t vg = vG[t.g0 + a];
            for (int b = 0; b < t.nh; b++) {
                int64_t c = vH[b] - vg;
                int64_t r = empty_allowed ? run[a][b] + c : (run[a][b] > 0 ? run[a][b] : 0) + c;
                if (empty_allowed && r < 0) r = 0;
                run[a][b] = r;
                if (r > top[a][b]) top[a][b] = r;
            }
        }
    }
    for (int a = 0; a < t.ng; a++)
        for (int b = 0; b < t.nh; b++) {
            int64_t g = t.g0 + a, h = t.h0 + b;
            if (diag && g > h) continue;
            if (empty_allowed && top[a][b] <= 0) continue;
            mu_mss2d_keep(best, pair_id, top[a][b], mu_mss_pair_id(cols, G->lo + g, H->lo + h));
        }
}

void mu_mss2d_block_best(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows,
                         int64_t cols, int diag, int64_t t0, int64_t t1, int empty_allowed,
                         int64_t *best, int64_t *pair_id) {
    *best = empty_allowed ? 0 : MU_MSS_NEG_INF;
    *pair_id = -1;
    for (int64_t id = t0; id < t1; id++) {
        int64_t tg, th;
        mu_mss2d_block_tile(G->w, H->w, diag, id, &tg, &th);
        tile_best(G, H, rows, cols, diag, box_of(G->w, H->w, tg, th), empty_allowed, best, pair_id);
    }
}

/* One tile's summaries over the rows into out (T x T, zero outside the tile). */
static void tile_sums(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows, int diag,
                      tile_box t, int empty_allowed, mu_mss2d_sum *out) {
    enum { T = MU_MSS_TILE };
    static _Thread_local int64_t run[T][T];
    int64_t init = empty_allowed ? 0 : MU_MSS_NEG_INF;
    memset(out, 0, (size_t)T * T * sizeof *out);
    for (int a = 0; a < t.ng; a++)
        for (int b = 0; b < t.nh; b++) {
            run[a][b] = 0;
            out[a * T + b] = (mu_mss2d_sum){0, init, 0, init};
        }
    for (int64_t i = 0; i < rows; i++) {
        const int64_t *vG = G->V + i * (G->w + 1), *vH = H->V + i * (H->w + 1) + t.h0 + 1;
        for (int a = 0; a < t.ng; a++) {
            int64_t vg = vG[t.g0 + a];
            mu_mss2d_sum *o = out + a * T;
            for (int b = 0; b < t.nh; b++) {
                int64_t c = vH[b] - vg;
                int64_t r = empty_allowed ? run[a][b] + c : (run[a][b] > 0 ? run[a][b] : 0) + c;
                if (empty_allowed && r < 0) r = 0;
                run[a][b] = r;
                if (r > o[b].best) o[b].best = r;
                o[b].sum += c;
                if (o[b].sum > o[b].pre) o[b].pre = o[b].sum;
            }
        }
    }
    for (int a = 0; a < t.ng; a++)
        for (int b = 0; b < t.nh; b++) {
            out[a * T + b].suf = run[a][b];
            if (diag && t.g0 + a > t.h0 + b) out[a * T + b] = (mu_mss2d_sum){0, 0, 0, 0};
        }
}

void mu_mss2d_block_sums(const mu_mss2d_block *G, const mu_mss2d_block *H, int64_t rows, int diag,
                         int64_t t0, int64_t t1, int empty_allowed, mu_mss2d_sum *out) {
    for (int64_t id = t0; id < t1; id++) {
        int64_t tg, th;
        mu_mss2d_block_tile(G->w, H->w, diag, id, &tg, &th);
        mu_mss2d_sum *o = out + (id - t0) * MU_MSS_TILE * MU_MSS_TILE;
        tile_sums(G, H, rows, diag, box_of(G->w, H->w, tg, th), empty_allowed, o);
    }
}

void mu_mss2d_sums_keep(const mu_mss2d_sum *s, int64_t wG, int64_t wH, int64_t loG, int64_t loH,
                        int64_t cols, int diag, int64_t t0, int64_t t1, int empty_allowed,
                        int64_t *best, int64_t *pair_id) {
    enum { T = MU_MSS_TILE };
    for (int64_t id = t0; id < t1; id++) {
        int64_t tg, th;
        mu_mss2d_block_tile(wG, wH, diag, id, &tg, &th);
        tile_box t = box_of(wG, wH, tg, th);
        const mu_mss2d_sum *o = s + (id - t0) * T * T;
        for (int a = 0; a < t.ng; a++)
            for (int b = 0; b < t.nh; b++) {
                int64_t g = t.g0 + a, h = t.h0 + b, v = o[a * T + b].best;
                if ((diag && g > h) || (empty_allowed && v <= 0)) continue;
                mu_mss2d_keep(best, pair_id, v, mu_mss_pair_id(cols, loG + g, loH + h));
            }
    }
}

void mu_mss2d_cpu_tiles(const int64_t *V, int64_t rows, int64_t cols, int64_t tile_begin,
                        int64_t tile_end, int empty_allowed, int64_t *best, int64_t *pair_id) {
    mu_mss2d_block whole = {V, 0, cols};
    mu_mss2d_block_best(&whole, &whole, rows, cols, 1, tile_begin, tile_end, empty_allowed, best,
                        pair_id);
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
