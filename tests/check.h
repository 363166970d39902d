/* A counting check for the GPU tests: every failure is counted, the first few
 * printed with their place, and the test reports the totals at the end. */
#ifndef MU_TESTS_CHECK_H
#define MU_TESTS_CHECK_H
#include <stdio.h>

static long checks, failures;
#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            failures++;                                                                            \
            if (failures <= 40) {                                                                  \
                printf("FAIL %s:%d: ", __FILE__, __LINE__);                                        \
                printf(__VA_ARGS__);                                                               \
                printf("\n");                                                                      \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#endif
