#include "core/message.h"
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { MSG_MAX = 1024 };
/* Per thread: host threads inside a rank (scenario lanes) fail on their own;
 * the thread that calls MPI passes a lane's message on (mu_error("%s", ...)). */
static _Thread_local char message[MSG_MAX];

int mu_error(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(message, sizeof message, fmt, ap);
    va_end(ap);
    return 1;
}

int mu_error_cause(const char *cause, const char *fmt, ...) {
    char out[MSG_MAX]; /* formed apart: cause may be this thread's message itself */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(out, sizeof out, fmt, ap);
    va_end(ap);
    size_t len = strlen(out);
    snprintf(out + len, sizeof out - len, ": %s", cause);
    memcpy(message, out, strlen(out) + 1);
    return 1;
}

const char *mu_error_message(void) {
    return message;
}
void mu_error_clear(void) {
    message[0] = '\0';
}
