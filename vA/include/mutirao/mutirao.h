/* mutirao's public C API (see each header). Every call is collective over the
 * communicator it is given, needs MPI initialised (MPI_THREAD_FUNNELED or
 * more), and reports errors with a non-zero return on every rank. */
#ifndef MUTIRAO_H
#define MUTIRAO_H
#include "mutirao/cg.h"
#include "mutirao/fuzzy.h"
#include "mutirao/maxsub.h"
#include "mutirao/scenarios.h"

/* The library's version, e.g. "0.1.0". */
const char *mutirao_version(void);
#endif
