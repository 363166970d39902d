/* The study's application (its section 4.1): hydrophobic regions of proteins. Each
 * residue scores its Kyte-Doolittle value in tenths (exact integers) plus an
 * offset that makes the expected score negative; the regions are all maximal
 * scoring subsequences (Ruzzo-Tompa). Records are split over ranks in
 * contiguous blocks and the regions gathered in record order. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "maxsub/maxsub.h"
#include "core/error.h"
#include "core/log.h"
#include "core/output.h"
#include "core/summary.h"
#include "core/timer.h"
#include "maxsub/fasta.h"
#include "maxsub/hydro.h"
#include "mpi/partition.h"

typedef struct {
    int64_t record, start, end, score;
} region;

static int regions_of(const mu_fasta_record *r, int64_t index, const mu_opts *o, region **out,
                      int64_t *count) {
    mu_segment *seg = NULL;
    int64_t ns = 0;
    MU_TRY(mu_hydro_segments(r->seq, r->len, (int32_t)mu_opt_int(o, "kd-offset"),
                             mu_opt_int(o, "min-score"), mu_opt_int(o, "min-length"), &seg, &ns));
    *out = malloc((size_t)(ns ? ns : 1) * sizeof **out);
    if (!*out) {
        free(seg);
        return mu_error("out of memory for the regions of '%s'", r->id);
    }
    for (int64_t s = 0; s < ns; s++)
        (*out)[s] = (region){index, seg[s].start, seg[s].end, seg[s].score};
    *count = ns;
    free(seg);
    return 0;
}

static int write_regions(const char *path, const mu_fasta_record *recs, const region *all,
                         int64_t n) {
    mu_output out;
    FILE *f = stdout;
    if (path) {
        MU_TRY(mu_output_open(&out, path));
        f = out.f;
    }
    fprintf(f, "record,id,start,end,length,score\n");
    for (int64_t i = 0; i < n; i++) {
        const region *g = &all[i];
        long long s = (long long)g->score;
        fprintf(f, "%lld,%s,%lld,%lld,%lld,%s%lld.%lld\n", (long long)g->record, recs[g->record].id,
                (long long)g->start, (long long)g->end, (long long)(g->end - g->start + 1),
                s < 0 ? "-" : "", (s < 0 ? -s : s) / 10, (s < 0 ? -s : s) % 10);
    }
    return path ? mu_output_commit(&out) : 0;
}

int mu_maxsub_run_fasta(mu_app *app) {
    const char *path = mu_opt_str(app->opts, "fasta");
    mu_fasta_record *recs = NULL;
    int64_t nrec = 0;
    mu_timer_begin("input");
    int rc = mu_fasta_read(path, &recs, &nrec);
    mu_timer_end("input");
    MU_TRY(mu_error_collective(app->comm, rc));

    mu_timer_begin("regions");
    int64_t lo, hi, mine_n = 0;
    mu_block_range(nrec, app->size, app->rank, &lo, &hi);
    region *mine = NULL;
    for (int64_t r = lo; r < hi && !rc; r++) {
        region *part = NULL;
        int64_t k = 0;
        rc = regions_of(&recs[r], r, app->opts, &part, &k);
        if (rc) break;
        region *grown = realloc(mine, (size_t)(mine_n + k + 1) * sizeof *mine);
        if (!grown) {
            free(part);
            rc = mu_error("out of memory collecting regions");
            break;
        }
        mine = grown;
        memcpy(mine + mine_n, part, (size_t)k * sizeof *part);
        mine_n += k;
        free(part);
    }
    mu_timer_end("regions");
    if (mu_error_collective(app->comm, rc)) {
        free(mine);
        mu_fasta_free(recs, nrec);
        return 1;
    }

    /* Rank blocks are contiguous in record order, so rank order is record order. */
    int bytes = (int)(mine_n * (int64_t)sizeof(region));
    int *counts = app->rank == 0 ? malloc((size_t)app->size * sizeof(int)) : NULL;
    int *displs = app->rank == 0 ? malloc((size_t)app->size * sizeof(int)) : NULL;
    MPI_Gather(&bytes, 1, MPI_INT, counts, 1, MPI_INT, 0, app->comm);
    region *all = NULL;
    int64_t total = 0;
    if (app->rank == 0) {
        for (int r = 0; r < app->size; r++) {
            displs[r] = (int)(total * (int64_t)sizeof(region));
            total += counts[r] / (int)sizeof(region);
        }
        all = malloc((size_t)(total + 1) * sizeof *all);
    }
    MPI_Gatherv(mine, bytes, MPI_BYTE, all, counts, displs, MPI_BYTE, 0, app->comm);
    if (app->rank == 0) {
        printf("maxsub: fasta=%s proteins=%lld regions=%lld\n", path, (long long)nrec,
               (long long)total);
        rc = write_regions(mu_opt_str(app->opts, "output"), recs, all, total);
        mu_summary_result_int("proteins", nrec);
        mu_summary_result_int("regions", total);
        fflush(stdout);
    }
    free(all);
    free(counts);
    free(displs);
    free(mine);
    mu_fasta_free(recs, nrec);
    return mu_error_collective(app->comm, rc);
}
