/* A small FASTA reader for protein sequences (the hydrophobic-region workload,
 * the study's section 4.1).
 *
 * Format accepted:
 *   - One or more records. A record starts with a header line '>' ID [DESCRIPTION]
 *     (blanks before the '>' are allowed):
 *     the id is the first whitespace-delimited word after '>' (leading blanks after
 *     '>' are skipped), the description is the rest of the line with surrounding
 *     blanks removed ("" when absent).
 *   - The sequence is the concatenation of the following lines up to the next
 *     header. Whitespace anywhere (spaces, tabs, CR of CRLF files) and blank lines
 *     are ignored. Lowercase letters are accepted and stored in uppercase.
 *   - Residues must be letters that the Kyte-Doolittle scoring accepts: the 20
 *     amino acids ACDEFGHIKLMNPQRSTVWY plus the ambiguity codes B (D/N) and Z (E/Q)
 *     (see maxsub/hydro.h). X, J, U and O, digits, gaps ('-', '.') and other bytes
 *     are rejected with the line and column.
 *   - One '*' (stop) is allowed as the last residue of a record and is dropped.
 *   - A UTF-8 byte-order mark at the start of the file is skipped.
 *
 * Errors (reported through mu_error, "PATH:LINE:COL: ..." or "PATH:LINE: ..."):
 * the file cannot be opened or read (with strerror), the file is empty or holds
 * only whitespace, sequence data before the first header, a header without an id,
 * a record with an empty sequence, an invalid character, a '*' that is not last. */
#ifndef MU_MAXSUB_FASTA_H
#define MU_MAXSUB_FASTA_H
#include <stdint.h>

typedef struct {
    char *id;     /* first word after '>' (never empty) */
    char *desc;   /* rest of the header line, trimmed; "" when absent */
    char *seq;    /* uppercase residues, NUL-terminated, '*' dropped */
    int64_t len;  /* strlen(seq), >= 1 */
    int64_t line; /* 1-based line number of the header */
} mu_fasta_record;

/* Reads every record of the FASTA file at path. On success returns 0 and sets
 * *recs (free with mu_fasta_free) and *count >= 1. On failure records one message
 * with mu_error, sets *recs = NULL and *count = 0, and returns nonzero. */
int mu_fasta_read(const char *path, mu_fasta_record **recs, int64_t *count);

/* Frees what mu_fasta_read returned; recs may be NULL. */
void mu_fasta_free(mu_fasta_record *recs, int64_t count);

#endif
