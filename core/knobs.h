/* Tuning knobs: the environment variables that change how (never what)
 * mutirao computes, registered in one table (knobs.def) with whether a value
 * can change the answer's last bits. `mutirao info` lists them; each run
 * checks, logs and summarizes ("knobs", "knobs_same_bits") those set. A knob
 * not in the table is a programming error. */
#ifndef MU_CORE_KNOBS_H
#define MU_CORE_KNOBS_H
#include <stdio.h>
#ifdef __cplusplus
extern "C" {
#endif

/* The knob's value in the environment, or NULL where unset or empty. */
const char *mu_knob(const char *name);
/* Typed values (the value checked against the table's values column; the
 * default where unset or not allowed): a 0|1 knob as 0 or 1, an integer knob
 * (lo..hi or words of integers), a number of seconds (positive). */
int mu_knob_flag(const char *name, int dflt);
int mu_knob_int(const char *name, int dflt);
double mu_knob_seconds(const char *name, double dflt);
/* 0 when every knob set has an allowed value; else records which and returns 1. */
int mu_knobs_check(void);
/* The table with the values set here, one knob a line. */
void mu_knobs_print(FILE *out);
/* The knobs set here: logged (info) and put under "knobs" in the summary, with
 * "knobs_same_bits": 0 when one of them can change the answer's last bits. */
void mu_knobs_report(void);

#ifdef __cplusplus
}
#endif
#endif
