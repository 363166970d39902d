/* Error messages of plain C code (readers, parsers): functions return 0 on
 * success and nonzero on failure, after recording one message with mu_error().
 * No MPI here, so that tools built on another MPI (perf/petsc_cg) can use the
 * readers; the collective part is core/error.h. */
#ifndef MU_CORE_MESSAGE_H
#define MU_CORE_MESSAGE_H

/* Records a message ("file:line: what was expected") and returns 1. */
int mu_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The recorded message, or "" when none. */
const char *mu_error_message(void);
void mu_error_clear(void);

/* Propagate a failure from a call that already recorded its message. */
#define MU_TRY(call)                                                                               \
    do {                                                                                           \
        int mu_rc_ = (call);                                                                       \
        if (mu_rc_) return mu_rc_;                                                                 \
    } while (0)

#endif
