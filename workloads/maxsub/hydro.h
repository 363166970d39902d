/* Hydrophobic regions of proteins (da Luz 2013, after Baxevanis and Ouellette 2001): per-residue
 * Kyte-Doolittle hydropathy in fixed point, and all maximal scoring subsequences
 * by the linear-time algorithm of Ruzzo & Tompa (ISMB 1999).
 *
 * Scale. Kyte & Doolittle (J. Mol. Biol. 157:105-132, 1982), in tenths so that
 * every sum is an exact integer:
 *   I  45   V  42   L  38   F  28   C  25   M  19   A  18
 *   G  -4   T  -7   S  -8   W  -9   Y -13   P -16
 *   H -32   E -35   Q -35   D -35   N -35   K -39   R -45
 * Ambiguity policy (decided here; the scale itself has no such codes):
 *   B (Asx, D or N) = mean(D, N) = -35;  Z (Glx, E or Q) = mean(E, Q) = -35.
 *   Both means are exact, so B and Z score exactly as D/N and E/Q do.
 *   X (any), J (I or L), U (selenocysteine), O (pyrrolysine) and every other
 *   character have no value and are errors: guessing would move segment ends.
 * Lowercase letters score as their uppercase.
 *
 * Offset. Scores are kd + offset (tenths). A negative offset, e.g. -10 (-1.0),
 * makes the expected score per residue negative so that maximal segments stay
 * local instead of spanning whole hydrophobic proteins (Karlin & Altschul 1990).
 *
 * Maximal scoring subsequences. Defined recursively: a highest-scoring non-empty
 * contiguous subsequence with a positive score is maximal (among equal scores the
 * shortest; distinct shortest ones are disjoint, so which is taken first does not
 * change the set); then the same is applied to the parts left and right of it.
 * Equivalently (Ruzzo & Tompa): I is maximal iff every proper subsequence of I
 * scores strictly lower and no proper supersequence of I has that property. Every
 * maximal segment therefore starts and ends with a positive score, the segments are
 * disjoint, and the highest-scoring one is the 1-D maximum subarray. */
#ifndef MU_MAXSUB_HYDRO_H
#define MU_MAXSUB_HYDRO_H
#include <stdint.h>

#define MU_KD_NONE INT32_MIN /* mu_kd_tenths() of a character without a value */

/* Recommended defaults for protein hydrophobic regions. Chosen on the bundled
 * proteins (inputs/maxsub/README.md): with them the segments of bovine rhodopsin
 * and bacteriorhodopsin match the 14 membrane helices of the set160 reference
 * topologies one to one, and insulin gives only its signal peptide. Two proteins
 * are a small sample: treat these as a starting point, not a validated setting. */
#define MU_HYDRO_DEFAULT_OFFSET (-12) /* tenths: kd - 1.2 */
#define MU_HYDRO_DEFAULT_MIN_SCORE 50 /* tenths: a total of 5.0 */
#define MU_HYDRO_DEFAULT_MIN_LEN 10   /* residues */

/* The Kyte-Doolittle value of residue c in tenths (either case), or MU_KD_NONE. */
int32_t mu_kd_tenths(int c);

/* out[i] = kd(seq[i]) + offset_tenths for i < len. Returns 0, or records
 * "residue P: ..." (1-based) through mu_error and returns 1 at the first character
 * without a value. Also fails when the offset could overflow int32. */
int mu_kd_scores(const char *seq, int64_t len, int32_t offset_tenths, int32_t *out);

typedef struct {
    int64_t start, end; /* 0-based, inclusive: x[start..end] */
    int64_t score;      /* sum of x[start..end], > 0 */
} mu_segment;

/* All maximal scoring subsequences of x[0..n) in O(n) time (O(n) scratch memory),
 * written to out (room for n entries; at most ceil(n/2) are used) in increasing
 * start order. Returns their number (0 when no score is positive), or -1 after
 * mu_error when n < 0 or the scratch memory cannot be allocated. */
int64_t mu_ruzzo_tompa(const int32_t *x, int64_t n, mu_segment *out);

/* Keeps, in place and in order, the segments with score >= min_score and
 * end - start + 1 >= min_len; returns how many were kept. */
int64_t mu_segments_filter(mu_segment *segs, int64_t count, int64_t min_score, int64_t min_len);

/* Convenience for one protein: KD scores with the offset, Ruzzo-Tompa, then the
 * filter. On success returns 0, *segs (free()) and *count (possibly 0, with
 * *segs non-NULL). On failure returns nonzero after mu_error, *segs = NULL. */
int mu_hydro_segments(const char *seq, int64_t len, int32_t offset_tenths, int64_t min_score,
                      int64_t min_len, mu_segment **segs, int64_t *count);

#endif
