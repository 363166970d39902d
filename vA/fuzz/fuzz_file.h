/* Shared by the fuzz targets: each reader takes a path, so every input is
 * written to one temporary regular file per process and read back from there,
 * as the command reads it. */
#ifndef MU_FUZZ_FILE_H
#define MU_FUZZ_FILE_H
#include <stddef.h>
#include <stdint.h>

/* The path of a regular file holding exactly data[0..size); aborts when the
 * file cannot be written (a harness fault, not a finding). */
const char *fz_file(const uint8_t *data, size_t size);

/* MPI_Init once, for readers that take a communicator (MPI_COMM_SELF). */
void fz_mpi_once(void);

#endif
