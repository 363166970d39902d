/* Checkpoints of an exact run: the outcome of the starts finished so far, so a
 * run stopped by the batch system resumes where it was. Each start's
 * trajectory depends only on the data and the settings, never on which rank or
 * device ran it, so a restart (on any layout) gives the same final answer. */
#define _POSIX_C_SOURCE 200809L
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/infile.h"
#include "core/output.h"
#include "fuzzy/run.h"

static const char MAGIC[8] = {'M', 'U', 'F', 'Z', 'C', 'K', '0', '1'};

/* 64 bytes at the start of the file (host byte order), then done x (F + 2) doubles. */
typedef struct {
    char magic[8];
    int64_t n, F, done, record;
    uint64_t fingerprint;
    int64_t spare[2];
} header;

static uint64_t fnv(uint64_t h, const void *p, size_t len) {
    const unsigned char *b = p;
    for (size_t i = 0; i < len; i++) {
        h ^= b[i];
        h *= 1099511628211ULL;
    }
    return h;
}

uint64_t mu_fz_fingerprint(const double *z, int64_t n, int F, const mu_fm_set *set) {
    uint64_t h = 14695981039346656037ULL;
    h = fnv(h, z, (size_t)(n * F) * sizeof *z);
    h = fnv(h, &set->r2, sizeof set->r2);
    h = fnv(h, &set->eps1, sizeof set->eps1);
    h = fnv(h, &set->max_it, sizeof set->max_it);
    h = fnv(h, &set->sum_block, sizeof set->sum_block);
    return h;
}

int mu_fz_ckpt_write(const char *path, int64_t n, int F, uint64_t fp, int64_t done,
                     const double *rec) {
    mu_output out; /* the target resolved, a temporary name unique to the run */
    MU_TRY(mu_output_open(&out, path));
    FILE *f = out.f;
    header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, sizeof MAGIC);
    h.n = n;
    h.F = F;
    h.done = done;
    h.record = F + 2;
    h.fingerprint = fp;
    size_t count = (size_t)(done * (F + 2));
    int ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(rec, sizeof *rec, count, f) == count;
    if (!ok) {
        mu_output_abort(&out);
        return mu_error("cannot write the checkpoint '%s': %s", path, strerror(errno));
    }
    return mu_output_commit(&out);
}

/* Every record's fields, before any is used: the end point finite, the
 * iteration count a whole number in 0..max_it, the converged flag 0 or 1. */
static int check_records(const char *path, int64_t done, int F, int64_t max_it, const double *rec) {
    for (int64_t k = 0; k < done; k++) {
        const double *r = rec + k * (F + 2);
        for (int f = 0; f < F; f++)
            if (!isfinite(r[f]))
                return mu_error("checkpoint '%s': field 'end point' of record %lld, coordinate %d: "
                                "%g, not a finite number",
                                path, (long long)k, f + 1, r[f]);
        double it = r[F], conv = r[F + 1];
        if (!(it >= 0 && it <= (double)max_it && it == floor(it)))
            return mu_error("checkpoint '%s': field 'iterations' of record %lld: %g, not a whole "
                            "number in 0..%lld (--max-it)",
                            path, (long long)k, it, (long long)max_it);
        if (conv != 0 && conv != 1)
            return mu_error("checkpoint '%s': field 'converged' of record %lld: %g, not 0 or 1",
                            path, (long long)k, conv);
    }
    return 0;
}

int mu_fz_ckpt_read(const char *path, int64_t n, int F, uint64_t fp, int64_t max_it, int64_t *done,
                    double *rec) {
    FILE *f = mu_infile_open(path, "checkpoint", NULL);
    if (!f) return 1;
    header h;
    int rc = 0;
    if (fread(&h, sizeof h, 1, f) != 1 || memcmp(h.magic, MAGIC, sizeof MAGIC) != 0)
        MU_TRY_GOTO(mu_error("'%s' is not a mutirao fuzzy checkpoint (version 1)", path));
    if (h.n != n || h.F != F || h.record != F + 2)
        MU_TRY_GOTO(mu_error("checkpoint '%s' was written for %lld objects of %lld features; this "
                             "run has %lld of %d",
                             path, (long long)h.n, (long long)h.F, (long long)n, F));
    if (h.fingerprint != fp)
        MU_TRY_GOTO(mu_error("checkpoint '%s' was written for other data or settings (r, eps1, "
                             "--max-it, --sum-block, --zscore)",
                             path));
    if (h.done < 0 || h.done > n)
        MU_TRY_GOTO(mu_error("checkpoint '%s': bad count of finished starts (%lld)", path,
                             (long long)h.done));
    size_t count = (size_t)(h.done * (F + 2));
    if (fread(rec, sizeof *rec, count, f) != count)
        MU_TRY_GOTO(mu_error("checkpoint '%s' is truncated", path));
    MU_TRY_GOTO(check_records(path, h.done, F, max_it, rec));
    *done = h.done;
done:
    fclose(f);
    return rc;
}
