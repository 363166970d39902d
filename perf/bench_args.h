/* The benchmarks' command lines, one table of rows a benchmark. A row's word
 * ending in '=' takes the words that begin with it, its value the rest
 * ("--reps=5": "5"); one ending in "[=]" takes the word alone (value NULL)
 * and with a value ("--big[=]": "--big", "--big=N"); any other word takes
 * only itself (value NULL). The values are read as the C library reads them
 * (atoi, atoll, atof): no range or syntax check. */
#ifndef MU_PERF_BENCH_ARGS_H
#define MU_PERF_BENCH_ARGS_H

typedef struct {
    const char *word;
    /* Stores value through to: 0; or 1, the word left to the rows after. */
    int (*take)(const char *value, void *to);
    void *to;
} bench_arg;

/* The usual takes: an int (atoi), an int64_t (atoll), a double (atof), the
 * value itself (a const char *), and 1 or 0 to an int (flags). */
int bench_int(const char *value, void *to);
int bench_i64(const char *value, void *to);
int bench_real(const char *value, void *to);
int bench_text(const char *value, void *to);
int bench_on(const char *value, void *to);
int bench_off(const char *value, void *to);

/* Reads argv[1..argc) in order, each word by the first of the n rows that
 * takes it: NULL, or the first word that no row takes (those before it read). */
const char *bench_args(int argc, char **argv, const bench_arg *rows, int n);
/* The same with the rows of an array. */
#define BENCH_ARGS(argc, argv, rows) bench_args(argc, argv, rows, (int)(sizeof rows / sizeof *rows))

#endif
