/* The start of a GPU test program: MPI up, device 0 selected and named, or
 * exit 77 (ctest's "skipped") where no GPU is visible; and its end. */
#ifndef MU_TESTS_GPU_TEST_H
#define MU_TESTS_GPU_TEST_H
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include "gpu/gpu.h"
#include "mu_test.h"

static void gpu_test_begin(int *argc, char ***argv, mu_gpu_info *info) {
    MPI_Init(argc, argv);
    if (!mu_gpu_built() || mu_gpu_device_count() == 0) {
        printf("SKIP: no GPU (%s)\n", mu_gpu_built() ? mu_gpu_error() : "built without CUDA");
        MPI_Finalize();
        exit(77);
    }
    if (!CHECK(mu_gpu_select(0, info) == 0, "select device 0: %s", mu_gpu_error())) {
        MPI_Finalize();
        exit(mu_report(NULL));
    }
    printf("device 0: %s (sm_%d%d, %d SMs, %.1f GiB), CUDA %s\n", info->name, info->cc_major,
           info->cc_minor, info->sm_count, info->mem_gib, mu_gpu_versions());
}

/* The totals printed under NAME, MPI down: main's exit code. */
static int gpu_test_end(const char *name) {
    const int status = mu_report(name);
    MPI_Finalize();
    return status;
}
#endif
