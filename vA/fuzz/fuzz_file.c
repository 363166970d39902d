#define _POSIX_C_SOURCE 200809L
#include "fuzz_file.h"
#include <fcntl.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char path[256];
static int fd = -1;

static void drop_file(void) {
    if (fd >= 0) unlink(path);
}

const char *fz_file(const uint8_t *data, size_t size) {
    if (fd < 0) {
        const char *dir = getenv("TMPDIR");
        snprintf(path, sizeof path, "%s/mutirao_fuzz.XXXXXX", dir && *dir ? dir : "/tmp");
        fd = mkstemp(path);
        if (fd < 0) {
            perror("fuzz: mkstemp");
            abort();
        }
        atexit(drop_file);
    }
    if (ftruncate(fd, 0) != 0) abort();
    size_t done = 0;
    while (done < size) {
        ssize_t w = pwrite(fd, data + done, size - done, (off_t)done);
        if (w <= 0) abort();
        done += (size_t)w;
    }
    return path;
}

void fz_mpi_once(void) {
    int up = 0;
    MPI_Initialized(&up);
    if (!up) MPI_Init(NULL, NULL);
}
