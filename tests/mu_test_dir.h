/* A test program's scratch folder under $TMPDIR (/tmp when unset), made
 * before its tests and removed, with all in it, after them. Needs mkdtemp:
 * include it after defining _POSIX_C_SOURCE 200809L. */
#ifndef MU_TESTS_MU_TEST_DIR_H
#define MU_TESTS_MU_TEST_DIR_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>

/* dir (size bytes) becomes a new folder "$TMPDIR/NAME.XXXXXX"; 0, or 1 when
 * it cannot be made. */
static inline int mu_test_dir_make(char *dir, size_t size, const char *name) {
    snprintf(dir, size, "%s/%s.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", name);
    return mkdtemp(dir) == NULL;
}

/* Removes dir and all in it; rc, main's exit code, becomes 1 when it passed
 * but the folder could not be removed. */
static inline int mu_test_dir_remove(const char *dir, int rc) {
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = rc ? rc : 1;
    return rc;
}
#endif
