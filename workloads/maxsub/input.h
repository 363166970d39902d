/* Reading maxsub inputs: text (whitespace-separated integers, '#' comments) or
 * raw little-endian int32 binary. Every failure names the file, the line and
 * what was expected. */
#ifndef MU_MAXSUB_INPUT_H
#define MU_MAXSUB_INPUT_H
#include <stdint.h>

typedef enum { MU_FMT_TEXT, MU_FMT_BIN } mu_in_format;

/* "text", "bin" or "auto" (by extension: .bin, .i32, .raw are binary). */
mu_in_format mu_in_pick_format(const char *path, const char *format);

/* Whole 1-D text file into a new array; n >= 1. */
int mu_in_read_text_1d(const char *path, int32_t **values, int64_t *n);
/* Number of values in a binary file (size / 4; a size not a multiple of 4 is an error). */
int mu_in_binary_count(const char *path, int64_t *n);
/* Values [lo, hi) of a binary file. */
int mu_in_read_binary_range(const char *path, int64_t lo, int64_t hi, int32_t *out);
/* The same read in chunks by up to `threads` threads (the same values and messages). */
int mu_in_read_binary_range_threads(const char *path, int64_t lo, int64_t hi, int32_t *out,
                                    int threads);
/* Segments k = 0 .. count-1 of a binary file, values [first + k * stride,
 * first + k * stride + len), into out[k * len ..], by up to `threads` threads
 * on one descriptor (a rank's block of a matrix). */
int mu_in_read_binary_segments(const char *path, int64_t first, int64_t stride, int64_t count,
                               int64_t len, int32_t *out, int threads);
/* A text matrix: one row per line, every row the same length. */
int mu_in_read_text_2d(const char *path, int32_t **values, int64_t *rows, int64_t *cols);

#endif
