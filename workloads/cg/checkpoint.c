#include "cg/checkpoint.h"
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "core/error.h"
#include "core/infile.h"
#include "core/output.h"

static const char MAGIC[8] = {'M', 'U', 'C', 'G', 'C', 'K', '0', '1'};

/* 512 bytes at the start of the file (host byte order). */
typedef struct {
    char magic[8];
    int64_t version, n, nnz, iteration, nvec;
    uint64_t matrix_hash, options_hash;
    char options[CG_CKPT_TEXT];
} header;

static int mpi_failed(int code, const char *what, const char *path) {
    if (code == MPI_SUCCESS) return 0;
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(code, msg, &len);
    msg[strcspn(msg, "\n,")] = '\0'; /* the first line, not MPICH's error stack */
    return mu_error("checkpoint '%s': %s: %s", path, what, msg);
}

static MPI_Offset vec_offset(const cg_matrix *A, int v) {
    return (MPI_Offset)sizeof(header) + ((MPI_Offset)v * A->n + A->row0) * (MPI_Offset)8;
}

int cg_checkpoint_write(mu_app *app, const char *path, const cg_ckpt *meta, const cg_matrix *A,
                        cg_backend *b, void *const vecs[CG_CKPT_VECTORS]) {
    mu_output out; /* the target resolved, a temporary name unique to the run */
    MU_TRY(mu_output_name_collective(app->comm, &out, path, 1));
    const char *tmp = out.tmp;
    const uint64_t fingerprint = cg_matrix_fingerprint(app, A); /* collective */
    double *buf = malloc((size_t)(A->nloc ? A->nloc : 1) * sizeof *buf);
    int rc = buf ? 0 : mu_error("out of memory writing the checkpoint");
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_File fh;
    rc = mpi_failed(
        MPI_File_open(app->comm, tmp, MPI_MODE_CREATE | MPI_MODE_WRONLY, MPI_INFO_NULL, &fh),
        "cannot create", tmp);
    if (mu_error_collective(app->comm, rc)) {
        free(buf);
        return 1;
    }
    MPI_Offset total = (MPI_Offset)sizeof(header) + (MPI_Offset)CG_CKPT_VECTORS * A->n * 8;
    rc = mpi_failed(MPI_File_set_size(fh, total), "cannot size", tmp);
    if (!rc && app->rank == 0) {
        header h;
        memset(&h, 0, sizeof h);
        memcpy(h.magic, MAGIC, sizeof MAGIC);
        h.version = 1;
        h.n = meta->n;
        h.nnz = meta->nnz;
        h.iteration = meta->iteration;
        h.nvec = CG_CKPT_VECTORS;
        h.matrix_hash = fingerprint;
        h.options_hash = meta->options_hash;
        snprintf(h.options, sizeof h.options, "%s", meta->options);
        rc = mpi_failed(MPI_File_write_at(fh, 0, &h, (int)sizeof h, MPI_BYTE, MPI_STATUS_IGNORE),
                        "cannot write the header", tmp);
    }
    /* Collective writes: every rank takes part even after a local failure. */
    for (int v = 0; v < CG_CKPT_VECTORS; v++) {
        b->vec_get(b, vecs[v], buf);
        int w = MPI_File_write_at_all(fh, vec_offset(A, v), buf, (int)A->nloc, MPI_DOUBLE,
                                      MPI_STATUS_IGNORE);
        if (!rc) rc = mpi_failed(w, "cannot write", tmp);
    }
    /* On disk before the rename: a crash after it never leaves a torn file
     * under the checkpoint's name, only the previous one or this one. */
    int y = MPI_File_sync(fh);
    if (!rc) rc = mpi_failed(y, "cannot sync", tmp);
    int c = MPI_File_close(&fh);
    if (!rc) rc = mpi_failed(c, "cannot close", tmp);
    free(buf);
    rc = mu_error_collective(app->comm, rc);
    if (app->rank == 0) {
        if (rc)
            mu_output_abort(&out);
        else
            rc = mu_output_commit(&out);
    }
    return mu_error_collective(app->comm, rc);
}

static int check_header(const header *h, const char *path, const cg_ckpt *want) {
    if (memcmp(h->magic, MAGIC, sizeof MAGIC) != 0 || h->version != 1 || h->nvec != CG_CKPT_VECTORS)
        return mu_error("'%s' is not a mutirao cg checkpoint (version 1)", path);
    if (h->n != want->n || h->nnz != want->nnz || h->matrix_hash != want->matrix_hash)
        return mu_error("checkpoint '%s' was written for another matrix (%lld rows, %lld "
                        "nonzeros, fingerprint %016llx; this run: %lld, %lld, %016llx)",
                        path, (long long)h->n, (long long)h->nnz,
                        (unsigned long long)h->matrix_hash, (long long)want->n,
                        (long long)want->nnz, (unsigned long long)want->matrix_hash);
    if (h->options_hash != want->options_hash) {
        char text[CG_CKPT_TEXT];
        memcpy(text, h->options, sizeof text);
        text[CG_CKPT_TEXT - 1] = '\0';
        return mu_error("checkpoint '%s' was written with other solver options (%s; this run: "
                        "%s)",
                        path, text, want->options);
    }
    /* No run reaches 2^40 iterations (the largest --max-it a day of the
     * fastest iteration allows): a larger count is a damaged file. */
    if (h->iteration < 0 || h->iteration > ((int64_t)1 << 40))
        return mu_error("checkpoint '%s': iteration count %lld: expected 0 to 2^40 (a damaged "
                        "checkpoint)",
                        path, (long long)h->iteration);
    return 0;
}

int cg_checkpoint_read(mu_app *app, const char *path, cg_ckpt *want, const cg_matrix *A,
                       cg_backend *b, void *vecs[CG_CKPT_VECTORS]) {
    want->matrix_hash = cg_matrix_fingerprint(app, A); /* collective */
    /* A missing file is the common mistake: say so plainly, before MPI-IO does. */
    int rc = 0;
    if (app->rank == 0) {
        FILE *f = mu_infile_open(path, "checkpoint", NULL);
        if (!f)
            rc = 1;
        else
            fclose(f);
    }
    MU_TRY(mu_error_collective(app->comm, rc));
    MPI_File fh;
    rc = mpi_failed(MPI_File_open(app->comm, path, MPI_MODE_RDONLY, MPI_INFO_NULL, &fh),
                    "cannot open for --restart", path);
    MU_TRY(mu_error_collective(app->comm, rc));
    header h;
    memset(&h, 0, sizeof h);
    MPI_Offset size = 0;
    MPI_File_get_size(fh, &size);
    if (size < (MPI_Offset)sizeof h)
        rc = mu_error("checkpoint '%s' is truncated (%lld bytes)", path, (long long)size);
    else
        rc = mpi_failed(MPI_File_read_at(fh, 0, &h, (int)sizeof h, MPI_BYTE, MPI_STATUS_IGNORE),
                        "cannot read the header", path);
    if (!rc) rc = check_header(&h, path, want);
    MPI_Offset total = (MPI_Offset)sizeof(header) + (MPI_Offset)CG_CKPT_VECTORS * A->n * 8;
    if (!rc && size != total)
        rc = mu_error("checkpoint '%s' has %lld bytes, expected %lld", path, (long long)size,
                      (long long)total);
    if (mu_error_collective(app->comm, rc)) {
        MPI_File_close(&fh);
        return 1;
    }
    double *buf = malloc((size_t)(A->nloc ? A->nloc : 1) * sizeof *buf);
    if (!buf) rc = mu_error("out of memory reading the checkpoint");
    for (int v = 0; v < CG_CKPT_VECTORS; v++) {
        /* Collective: a rank without a buffer still takes part, reading nothing. */
        int r = MPI_File_read_at_all(fh, vec_offset(A, v), buf, buf ? (int)A->nloc : 0, MPI_DOUBLE,
                                     MPI_STATUS_IGNORE);
        if (!rc) rc = mpi_failed(r, "cannot read", path);
        if (!rc) b->vec_set(b, vecs[v], buf);
    }
    MPI_File_close(&fh);
    free(buf);
    want->iteration = h.iteration;
    return mu_error_collective(app->comm, rc);
}
