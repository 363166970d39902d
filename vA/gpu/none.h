/* Shared by the gpu/<x>_none.c files: the gpu/ API of a build without CUDA,
 * whose calls fail with "no CUDA in this build" (the callers only make them on
 * GPU ranks, which such a build never has). */
#ifndef MU_GPU_NONE_H
#define MU_GPU_NONE_H

/* Takes a function's parameters so that none is unused (-Wextra): without
 * CUDA there is nothing to do with them. */
static inline void mu_none_ignore(int none, ...) {
    (void)none;
}
#define MU_NONE_UNUSED(...) mu_none_ignore(0, __VA_ARGS__)

#endif
