#include "maxsub/hydro.h"

#include <stdlib.h>

#include "core/error.h"

/* Kyte & Doolittle (1982) in tenths; B and Z are the policy of hydro.h. */
static const char kd_letters[] = "IVLFCMAGTSWYPHEQDNKRBZ";
static const int8_t kd_values[] = {45,  42,  38,  28,  25,  19,  18,  -4,  -7,  -8,  -9,
                                   -13, -16, -32, -35, -35, -35, -35, -39, -45, -35, -35};

int32_t mu_kd_tenths(int c) {
    if (c >= 'a' && c <= 'z') c -= 'a' - 'A';
    for (int i = 0; kd_letters[i]; i++)
        if (kd_letters[i] == c) return kd_values[i];
    return MU_KD_NONE;
}

int mu_kd_scores(const char *seq, int64_t len, int32_t offset_tenths, int32_t *out) {
    if (len < 0) return mu_error("mu_kd_scores: negative length %lld", (long long)len);
    /* |kd| <= 45, so this keeps every score inside int32. */
    if (offset_tenths > INT32_MAX - 45 || offset_tenths < INT32_MIN + 46)
        return mu_error("hydropathy offset %ld tenths is out of range (expected |offset| < %ld)",
                        (long)offset_tenths, (long)(INT32_MAX - 45));
    for (int64_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)seq[i];
        int32_t kd = mu_kd_tenths(c);
        if (kd == MU_KD_NONE) {
            if (c == 'X' || c == 'x' || c == 'J' || c == 'j' || c == 'U' || c == 'u' || c == 'O' ||
                c == 'o')
                return mu_error("residue %lld: '%c' has no Kyte-Doolittle value (expected one of "
                                "the 20 amino-acid letters, or B/Z; X, J, U and O are not scored)",
                                (long long)(i + 1), c);
            if (c >= 0x21 && c < 0x7f)
                return mu_error("residue %lld: unexpected character '%c' (expected one of the 20 "
                                "amino-acid letters, or B/Z)",
                                (long long)(i + 1), c);
            return mu_error("residue %lld: unexpected byte 0x%02x (expected one of the 20 "
                            "amino-acid letters, or B/Z)",
                            (long long)(i + 1), c);
        }
        out[i] = kd + offset_tenths;
    }
    return 0;
}

/* One subsequence on the Ruzzo-Tompa list. L is the cumulative score before its
 * first element, R the cumulative score through its last; prev is the largest
 * list index below it whose L is smaller than its own L (-1 when none). */
typedef struct {
    int64_t start, end, L, R, prev;
} rt_entry;

/* Ruzzo & Tompa, "A linear time algorithm for finding all maximal scoring
 * subsequences" (ISMB 1999), from the algorithm's description:
 * scan left to right keeping a list of disjoint candidate subsequences. A positive
 * score x[i] opens the candidate I = [i, i]. Find the rightmost candidate J on the
 * list with L(J) < L(I).
 *   - If there is none, or R(J) >= R(I), append I.
 *   - Otherwise extend I leftwards to the start of J (L(I) = L(J)), drop J and
 *     everything after it, and search again for the new I.
 * Nonpositive scores only advance the cumulative score. At the end every candidate
 * on the list is maximal. The search follows the prev links: the candidates
 * strictly between prev(K) and K all have L >= L(K), so when L(K) >= L(I) none of
 * them qualifies either. Each candidate is pushed once and popped at most once,
 * and the links make the whole scan linear. */
int64_t mu_ruzzo_tompa(const int32_t *x, int64_t n, mu_segment *out) {
    if (n < 0) {
        mu_error("mu_ruzzo_tompa: negative length %lld", (long long)n);
        return -1;
    }
    if (n == 0) return 0;
    int64_t cap = (n + 1) / 2; /* maximal segments are disjoint and never adjacent */
    rt_entry *st = malloc((size_t)cap * sizeof *st);
    if (!st) {
        mu_error("mu_ruzzo_tompa: cannot allocate %lld list entries", (long long)cap);
        return -1;
    }
    int64_t k = 0; /* list size */
    int64_t cum = 0;
    for (int64_t i = 0; i < n; i++) {
        int64_t v = x[i];
        if (v > 0) {
            rt_entry e = {i, i, cum, cum + v, -1};
            for (;;) {
                int64_t j = k - 1;
                while (j >= 0 && st[j].L >= e.L) j = st[j].prev;
                if (j < 0 || st[j].R >= e.R) {
                    e.prev = j;
                    /* Candidates on the list are never adjacent (a positive one
                     * right after another merges with it), so k < cap here. */
                    if (k >= cap) {
                        free(st);
                        mu_error("mu_ruzzo_tompa: internal error: list overflow at %lld",
                                 (long long)i);
                        return -1;
                    }
                    st[k++] = e;
                    break;
                }
                e.start = st[j].start;
                e.L = st[j].L;
                k = j;
            }
        }
        cum += v;
    }
    for (int64_t t = 0; t < k; t++) {
        out[t].start = st[t].start;
        out[t].end = st[t].end;
        out[t].score = st[t].R - st[t].L;
    }
    free(st);
    return k;
}

int64_t mu_segments_filter(mu_segment *segs, int64_t count, int64_t min_score, int64_t min_len) {
    int64_t kept = 0;
    for (int64_t t = 0; t < count; t++) {
        if (segs[t].score >= min_score && segs[t].end - segs[t].start + 1 >= min_len)
            segs[kept++] = segs[t];
    }
    return kept;
}

int mu_hydro_segments(const char *seq, int64_t len, int32_t offset_tenths, int64_t min_score,
                      int64_t min_len, mu_segment **segs, int64_t *count) {
    *segs = NULL;
    *count = 0;
    if (len < 0) return mu_error("mu_hydro_segments: negative length %lld", (long long)len);
    size_t n = len > 0 ? (size_t)len : 1;
    int32_t *x = malloc(n * sizeof *x);
    mu_segment *s = malloc(n * sizeof *s);
    if (!x || !s) {
        free(x);
        free(s);
        return mu_error("mu_hydro_segments: cannot allocate scores for %lld residues",
                        (long long)len);
    }
    if (mu_kd_scores(seq, len, offset_tenths, x)) {
        free(x);
        free(s);
        return 1;
    }
    int64_t m = mu_ruzzo_tompa(x, len, s);
    free(x);
    if (m < 0) {
        free(s);
        return 1;
    }
    *count = mu_segments_filter(s, m, min_score, min_len);
    *segs = s;
    return 0;
}
