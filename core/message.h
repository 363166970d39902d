/* Error messages of plain C code (readers, parsers): functions return 0 on
 * success and nonzero on failure, after recording one message with mu_error().
 * No MPI here, so that tools built on another MPI (perf/petsc_cg) can use the
 * readers; the collective part is core/error.h.
 *
 * The idiom (one way to fail, one way to clean up, one way to wrap the GPU):
 *
 *   MU_TRY(call)         the call failed (nonzero, message recorded): return
 *                        its code. Where nothing needs freeing.
 *   MU_TRY_GOTO(call)    where something must be freed: rc = call, and on
 *                        failure goto done. The function reads
 *                            int rc = 0;
 *                            ... MU_TRY_GOTO(f(...)); ...
 *                        done:
 *                            free(...);
 *                            return rc;
 *                        (rc is 0 when control reaches done without a jump).
 *                        A step that must be followed by something before
 *                        the jump (a timer's end) sets rc, then
 *                        if (rc) goto done;
 *   MU_GPU(call, fmt, ...)  an expression for a gpu/gpu.h call (0 or nonzero
 *                        with its message in mu_gpu_error()): 0 on success,
 *                        else records "<fmt...>: <mu_gpu_error()>" through
 *                        mu_error and yields 1. Wrap it: MU_TRY(MU_GPU(...)),
 *                        MU_TRY_GOTO(MU_GPU(...)), or rc = MU_GPU(...). The
 *                        caller includes gpu/gpu.h.
 *
 * Collective checks (every rank learns of any rank's failure) are
 * mu_error_collective() and mu_error_check_or_exit(), core/error.h:
 * MU_TRY(mu_error_collective(comm, rc)). Work that every rank must do
 * whatever happened (the collective check, the summary) may follow done:
 * at a function's end. Where such work sits between the steps instead (a
 * collective check or an MPI call every rank makes, a timer's end), the
 * local steps before it chain as
 *     if (!rc) rc = step();
 * up to that point: a jump past it would hang the other ranks or skew the
 * timers. Everywhere else a failure leaves by MU_TRY or MU_TRY_GOTO. */
#ifndef MU_CORE_MESSAGE_H
#define MU_CORE_MESSAGE_H

/* Records a message ("file:line: what was expected") and returns 1. */
int mu_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Records "<fmt...>: <cause>" and returns 1 (MU_GPU passes mu_gpu_error()).
 * cause may be mu_error_message(): a caller names what failed (node, stage)
 * in front of its callee's message. */
int mu_error_cause(const char *cause, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The recorded message, or "" when none. */
const char *mu_error_message(void);
void mu_error_clear(void);

/* Propagate a failure from a call that already recorded its message. */
#define MU_TRY(call)                                                                               \
    do {                                                                                           \
        int mu_rc_ = (call);                                                                       \
        if (mu_rc_) return mu_rc_;                                                                 \
    } while (0)

/* As MU_TRY, into the function's int rc and its label done (the cleanup). */
#define MU_TRY_GOTO(call)                                                                          \
    do {                                                                                           \
        rc = (call);                                                                               \
        if (rc) goto done;                                                                         \
    } while (0)

/* A gpu/gpu.h call: 0, or 1 after recording "<fmt...>: <mu_gpu_error()>". */
#define MU_GPU(call, ...) ((call) ? mu_error_cause(mu_gpu_error(), __VA_ARGS__) : 0)

#endif
