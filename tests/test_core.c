/* Unit tests of the core services and partitioners. */
#define _POSIX_C_SOURCE 200809L
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <math.h>
#include "mu_test.h"
#include "mu_test_dir.h"
#include "core/error.h"
#include "core/hdmath.h"
#include "core/options.h"
#include "core/output.h"
#include "core/philox.h"
#include "gpu/gpu.h"
#include "mpi/partition.h"

/* Random123's published known-answer vectors for Philox4x32-10. */
static void philox_known_answers(void) {
    const uint32_t zero_ctr[4] = {0, 0, 0, 0}, zero_key[2] = {0, 0};
    const uint32_t ones_ctr[4] = {~0u, ~0u, ~0u, ~0u}, ones_key[2] = {~0u, ~0u};
    const uint32_t want0[4] = {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8};
    const uint32_t want1[4] = {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd};
    uint32_t out[4];
    mu_philox4x32_10(zero_ctr, zero_key, out);
    CHECK_MEM_EQ(out, want0, sizeof want0);
    mu_philox4x32_10(ones_ctr, ones_key, out);
    CHECK_MEM_EQ(out, want1, sizeof want1);
}

static void rng_ranges(void) {
    int seen[7] = {0};
    for (uint64_t i = 0; i < 7000; i++) {
        uint32_t w[4];
        mu_rng4(42, 3, i, w);
        int64_t v = mu_rng_range(w[0], -3, 3);
        CHECK_TRUE(v >= -3 && v <= 3);
        seen[v + 3]++;
        double u = mu_rng_open01(w[1], w[2]);
        CHECK_TRUE(u > 0.0 && u < 1.0);
    }
    for (int k = 0; k < 7; k++)
        CHECK(seen[k] >= 800 && seen[k] <= 1200, "seen[%d] = %d", k, seen[k]);
}

static void parse_int_forms(void) {
    int64_t v;
    CHECK_INT_EQ(mu_parse_int("123", &v), 0);
    CHECK_INT_EQ(v, 123);
    CHECK_INT_EQ(mu_parse_int("2^28", &v), 0);
    CHECK_INT_EQ(v, 268435456);
    CHECK_INT_EQ(mu_parse_int("1e8", &v), 0);
    CHECK_INT_EQ(v, 100000000);
    CHECK_INT_EQ(mu_parse_int("-7", &v), 0);
    CHECK_INT_EQ(v, -7);
    CHECK_INT_NE(mu_parse_int("12x", &v), 0);
    CHECK_INT_NE(mu_parse_int("", &v), 0);
    CHECK_INT_NE(mu_parse_int("2^", &v), 0);
}

static const mu_opt_spec specs[] = {
    {"n", MU_OPT_INT, "10", 0, "count"},  {"mode", MU_OPT_CHOICE, "a", "a|bb|c", "mode"},
    {"x", MU_OPT_REAL, "0.5", 0, "real"}, {"name", MU_OPT_STRING, "", 0, "name"},
    {"file", MU_OPT_PATH, "", 0, "file"}, MU_OPT_END};

static int parse(int argc, char **argv, mu_opts **o) {
    mu_error_clear();
    static const char *const others[] = {"other", NULL};
    return mu_opts_parse("demo", specs, others, argc, argv, 0, o);
}

/* The one-argument command line argv is refused, with a message holding `what`. */
static void refused(char **argv, const char *what) {
    mu_opts *o;
    CHECK_INT_NE(parse(1, argv, &o), 0);
    CHECK(strstr(mu_error_message(), what) != NULL, "'%s' lacks '%s'", mu_error_message(), what);
    mu_opts_free(o);
}

static void options_command_line(void) {
    char *argv[] = {"--n=2^10", "--mode=bb", "--x=1.25"};
    mu_opts *o;
    CHECK_INT_EQ(parse(3, argv, &o), 0);
    CHECK_INT_EQ(mu_opt_int(o, "n"), 1024);
    CHECK_STR_EQ(mu_opt_str(o, "mode"), "bb");
    CHECK_TRUE(mu_opt_real(o, "x") == 1.25);
    CHECK_TRUE(mu_opt_str(o, "name") == NULL);
    CHECK_TRUE(mu_opt_set(o, "n"));
    CHECK_TRUE(!mu_opt_set(o, "name"));
    CHECK_STR_EQ(mu_opt_str(o, "device"), "auto");
    mu_opts_free(o);
}

static void options_errors(void) {
    mu_opts *o;
    char *bad_choice[] = {"--mode=d"};
    refused(bad_choice, "a|bb|c");
    char *unknown[] = {"--nope=1"};
    refused(unknown, "--nope");
    char *bad_int[] = {"--n=ten"};
    refused(bad_int, "integer");
    char *no_value[] = {"--n"};
    CHECK_INT_NE(parse(1, no_value, &o), 0);
    mu_opts_free(o);
    char *nan_real[] = {"--x=nan"};
    CHECK_INT_NE(parse(1, nan_real, &o), 0);
    mu_opts_free(o);
}

static void write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    CHECK_TRUE(f != NULL);
    fputs(text, f);
    fclose(f);
}

static void options_deck(void) {
    char path[] = "/tmp/mutirao_deck_XXXXXX";
    int fd = mkstemp(path);
    CHECK_TRUE(fd >= 0);
    close(fd);
    write_file(path, "# a job deck\n[demo]\nn = 77\nmode = c\nname = run1\n");
    char arg[128];
    snprintf(arg, sizeof arg, "--config=%s", path);
    char *argv[] = {arg, "--mode=a"};
    mu_opts *o;
    CHECK_INT_EQ(parse(2, argv, &o), 0);
    CHECK_INT_EQ(mu_opt_int(o, "n"), 77);
    CHECK_STR_EQ(mu_opt_str(o, "mode"), "a"); /* the command line wins */
    CHECK_STR_EQ(mu_opt_str(o, "name"), "run1");
    CHECK_TRUE(strstr(mu_opt_source(o, "n"), ":3") != NULL);
    mu_opts_free(o);

    write_file(path, "n = 5\nbogus = 1\n");
    char *argv2[] = {arg};
    refused(argv2, ":2: unknown key 'bogus'");

    write_file(path, "n = 5\nthis line is not a key value pair\n");
    refused(argv2, ":2:");

    write_file(path, "n = 5\n; an empty section of no command\n[nosuch]\n");
    refused(argv2, ":3: unknown section [nosuch]");
    unlink(path);

    refused(argv2, "cannot open job deck");
}

/* The deck NAME's path in a new folder dir under $TMPDIR, and the argument
 * "--config=PATH" that names it. */
static void deck_in_new_dir(char dir[256], const char *name, char path[256], char arg[300]) {
    CHECK_INT_EQ(mu_test_dir_make(dir, 256, "mutirao_decks"), 0);
    snprintf(path, 256, "%s/%s", dir, name);
    snprintf(arg, 300, "--config=%s", path);
}

/* One deck for two commands: each reads [mutirao] and its own section, skips
 * the other's; a path from the deck is taken from the deck's folder, one from
 * the command line (or an absolute one) as it is. */
static void deck_sections_and_paths(void) {
    char dir[256], path[256], arg[300];
    deck_in_new_dir(dir, "two.ini", path, arg);
    write_file(path, "[mutirao]\nx = 2.5\n[other]\nn = 1\nunknown-here = 3\n[demo]\nn = 9\n"
                     "file = data/in.csv\nname = a/b\n");
    char *argv[] = {arg};
    mu_opts *o;
    CHECK_INT_EQ(parse(1, argv, &o), 0);
    CHECK_INT_EQ(mu_opt_int(o, "n"), 9);
    CHECK_TRUE(mu_opt_real(o, "x") == 2.5);
    char want[300];
    snprintf(want, sizeof want, "%s/data/in.csv", dir);
    CHECK_STR_EQ(mu_opt_str(o, "file"), want);
    CHECK_STR_EQ(mu_opt_str(o, "name"), "a/b"); /* not a path: as written */
    mu_opts_free(o);

    write_file(path, "file = /abs/in.csv\n");
    CHECK_INT_EQ(parse(1, argv, &o), 0);
    CHECK_STR_EQ(mu_opt_str(o, "file"), "/abs/in.csv");
    mu_opts_free(o);

    write_file(path, "file = deck.csv\n");
    char *cl[] = {arg, "--file=cl.csv"};
    CHECK_INT_EQ(parse(2, cl, &o), 0);
    CHECK_STR_EQ(mu_opt_str(o, "file"), "cl.csv");
    mu_opts_free(o);
    unlink(path);
    rmdir(dir);
}

/* What the deck reader refuses: a NUL byte, a line longer than inih's
 * buffer, a directory, a FIFO; each by file (and line). */
static void deck_refusals(void) {
    char dir[256], path[256], arg[300];
    deck_in_new_dir(dir, "bad.ini", path, arg);
    char *argv[] = {arg};
    FILE *f = fopen(path, "w");
    CHECK_TRUE(f != NULL);
    fwrite("n = 5\nname = ab\0cd\n", 1, 20, f);
    fclose(f);
    refused(argv, "bad.ini:2: NUL byte");

    char line[1200];
    int k = snprintf(line, sizeof line, "n = 5\nname = ");
    memset(line + k, 'x', 1000);
    strcpy(line + k + 1000, "\n");
    write_file(path, line);
    refused(argv, "bad.ini:2: line of 1007 bytes");
    unlink(path);

    snprintf(arg, sizeof arg, "--config=%s", dir);
    refused(argv, "is a directory");

    CHECK_INT_EQ(mkfifo(path, 0600), 0);
    snprintf(arg, sizeof arg, "--config=%s", path);
    refused(argv, "FIFO");
    unlink(path);
    rmdir(dir);
}

static void output_is_atomic(void) {
    char dir[200];
    CHECK_INT_EQ(mu_test_dir_make(dir, sizeof dir, "mutirao_out"), 0);
    char path[256];
    snprintf(path, sizeof path, "%s/result.csv", dir);
    mu_output out;
    CHECK_INT_EQ(mu_output_open(&out, path), 0);
    fputs("partial", out.f);
    CHECK_INT_NE(access(path, F_OK), 0); /* nothing under the final name yet */
    mu_output_abort(&out);
    CHECK_INT_NE(access(path, F_OK), 0);
    CHECK_INT_NE(access(out.tmp, F_OK), 0);
    CHECK_INT_EQ(mu_output_open(&out, path), 0);
    char want_tmp[300]; /* unique to the process: two runs in one folder do not collide */
    snprintf(want_tmp, sizeof want_tmp, "%s.tmp.%ld", path, (long)getpid());
    CHECK_STR_EQ(out.tmp, want_tmp);
    fputs("done\n", out.f);
    CHECK_INT_EQ(mu_output_commit(&out), 0);
    CHECK_INT_EQ(access(path, F_OK), 0);
    unlink(path);
    rmdir(dir);
    char missing[300];
    snprintf(missing, sizeof missing, "%s/no/such/dir.csv", dir);
    CHECK_INT_NE(mu_output_open(&out, missing), 0);
}

/* A symlink is followed (the link stays), an input or another output as the
 * output is refused, a directory is refused (issue 48). */
static void output_targets(void) {
    char dir[200];
    CHECK_INT_EQ(mu_test_dir_make(dir, sizeof dir, "mutirao_out"), 0);
    char real[300], link[300], in[300], in2[300], sub[300];
    snprintf(real, sizeof real, "%s/real.csv", dir);
    snprintf(link, sizeof link, "%s/link.csv", dir);
    snprintf(in, sizeof in, "%s/in.csv", dir);
    snprintf(in2, sizeof in2, "%s/./in.csv", dir);
    snprintf(sub, sizeof sub, "%s/sub", dir);
    CHECK_INT_EQ(symlink("real.csv", link), 0);
    mu_output out;
    CHECK_INT_EQ(mu_output_open(&out, link), 0);
    CHECK_STR_EQ(out.path, real);
    fputs("x\n", out.f);
    CHECK_INT_EQ(mu_output_commit(&out), 0);
    struct stat st;
    CHECK_TRUE(lstat(link, &st) == 0 && S_ISLNK(st.st_mode));
    CHECK_TRUE(stat(real, &st) == 0 && st.st_size == 2);
    FILE *f = fopen(in, "w");
    fputs("1\n", f);
    fclose(f);
    mu_output_reset();
    mu_output_input(in, "--input");
    CHECK_INT_NE(mu_output_check(in2), 0);
    CHECK_TRUE(strstr(mu_error_message(), "the same file as the input --input") != NULL);
    CHECK_INT_EQ(mu_output_check(link), 0);
    CHECK_INT_NE(mu_output_check(real), 0); /* the same file as the output link.csv */
    CHECK_INT_EQ(mkdir(sub, 0700), 0);
    CHECK_INT_NE(mu_output_check(sub), 0);
    CHECK_TRUE(strstr(mu_error_message(), "it is a directory") != NULL);
    CHECK_INT_EQ(mu_output_check("/dev/null"), 0); /* written through, twice is fine */
    CHECK_INT_EQ(mu_output_check("/dev/null"), 0);
    mu_output_reset();
    mu_error_clear();
    unlink(link), unlink(real), unlink(in), rmdir(sub), rmdir(dir);
}

static void block_partition(void) {
    for (int64_t n = 0; n < 40; n++)
        for (int parts = 1; parts <= 7; parts++) {
            int64_t expect_lo = 0;
            for (int p = 0; p < parts; p++) {
                int64_t lo, hi;
                mu_block_range(n, parts, p, &lo, &hi);
                CHECK_INT_EQ(lo, expect_lo);
                CHECK_TRUE(hi - lo == n / parts || hi - lo == n / parts + 1);
                expect_lo = hi;
            }
            CHECK_INT_EQ(expect_lo, n);
        }
}

static void weight_partition(void) {
    /* Rows with 1, 1, 1, 1, 100, 1, 1, 1 weights: the heavy row gets a part of its own. */
    int64_t w[] = {1, 1, 1, 1, 100, 1, 1, 1}, prefix[9] = {0};
    for (int i = 0; i < 8; i++) prefix[i + 1] = prefix[i] + w[i];
    int64_t b[4];
    mu_block_by_weight(prefix, 8, 3, b);
    CHECK_INT_EQ(b[0], 0);
    CHECK_INT_EQ(b[3], 8);
    for (int p = 0; p < 3; p++) CHECK_TRUE(b[p] <= b[p + 1]);
    /* Uniform weights reduce to equal blocks. */
    int64_t flat[13];
    for (int i = 0; i <= 12; i++) flat[i] = 5 * i;
    int64_t c[5];
    mu_block_by_weight(flat, 12, 4, c);
    for (int p = 0; p <= 4; p++) CHECK_INT_EQ(c[p], 3 * p);
}

/* Distance in ulps between two finite doubles of the same sign. */
static double ulps(double got, double want) {
    if (got == want) return 0;
    return fabs(got - want) / (nextafter(fabs(want), INFINITY) - fabs(want));
}

/* The host/device math against libm: a few ulp everywhere they are used
 * (lognormal noise, Box-Muller), and exact at the special points. */
static void hdmath_accuracy(void) {
    uint64_t x = 88172645463325252ull; /* xorshift: any spread of arguments will do */
    double worst_exp = 0, worst_log = 0, worst_cos = 0;
    for (int i = 0; i < 200000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double u = (double)(x >> 11) * 0x1p-53;
        double a = -740.0 + 1449.0 * u;
        if (i % 2) a = 1.4 * (u - 0.5); /* dense near 0 */
        worst_exp = fmax(worst_exp, ulps(mu_hd_exp(a), exp(a)));
        double b = ldexp(0.5 + u, (int)(x % 2000) - 1000);
        worst_log =
            fmax(worst_log, fabs(mu_hd_log(b) - log(b)) / fmax(fabs(log(b)) * 0x1p-52, 0x1p-1074));
        double c = mu_hd_cos2pi(u), want = cos(6.283185307179586 * u);
        worst_cos = fmax(worst_cos, fabs(c - want));
    }
    printf("hdmath: worst exp %.2f ulp, log %.2f ulp of the result, cos2pi %.3g absolute\n",
           worst_exp, worst_log, worst_cos);
    CHECK_TRUE(worst_exp <= 4);
    CHECK_TRUE(worst_log <= 4);
    /* libm is given fl(2 pi u), off by up to half an ulp of 6.28 (4.4e-16). */
    CHECK_TRUE(worst_cos <= 1e-15);
    CHECK_TRUE(mu_hd_exp(0.0) == 1.0 && mu_hd_log(1.0) == 0.0 && mu_hd_cos2pi(0.0) == 1.0);
    CHECK_TRUE(mu_hd_cos2pi(0.5) == -1.0 && mu_hd_cos2pi(0.25) == 0.0);
    CHECK_TRUE(mu_hd_exp(-800.0) == 0.0 && isinf(mu_hd_exp(800.0)) && isinf(mu_hd_log(0.0)));
    CHECK_TRUE(isnan(mu_hd_log(-1.0)) && isnan(mu_hd_exp(NAN)));
    CHECK_TRUE(fabs(mu_hd_log(0x1p-1074) - log(0x1p-1074)) < 1e-12);
}

/* The error idiom of core/message.h: MU_TRY_GOTO leaves through done with the
 * call's code; MU_GPU records "<what>: <mu_gpu_error()>" as the hand-written
 * mu_error("...: %s", ..., mu_gpu_error()) did, truncation included. */
static int idiom_steps(int fail_at, int *freed) {
    int rc = 0;
    char *p = malloc(16);
    MU_TRY_GOTO(fail_at == 1 ? mu_error("step %d", 1) : 0);
    MU_TRY_GOTO(fail_at == 2 ? 7 : 0);
done:
    free(p);
    (*freed)++;
    return rc;
}

static int idiom_fake_gpu(int fail) {
    return fail;
}

static void error_idiom(void) {
    int freed = 0;
    CHECK_INT_EQ(idiom_steps(0, &freed), 0);
    CHECK_INT_EQ(idiom_steps(1, &freed), 1);
    CHECK_STR_EQ(mu_error_message(), "step 1");
    CHECK_INT_EQ(idiom_steps(2, &freed), 7);
    CHECK_INT_EQ(freed, 3);

    mu_error_clear();
    CHECK_INT_EQ(MU_GPU(idiom_fake_gpu(0), "rank %d GPU setup", 3), 0);
    CHECK_STR_EQ(mu_error_message(), "");
    char want[1024];
    snprintf(want, sizeof want, "rank %d GPU setup: %s", 3, mu_gpu_error());
    CHECK_INT_EQ(MU_GPU(idiom_fake_gpu(2), "rank %d GPU setup", 3), 1);
    CHECK_STR_EQ(mu_error_message(), want);
    CHECK_INT_EQ(MU_GPU(idiom_fake_gpu(1), "advect on the GPU"), 1);
    snprintf(want, sizeof want, "advect on the GPU: %s", mu_gpu_error());
    CHECK_STR_EQ(mu_error_message(), want);

    /* Past the message's 1024 bytes: cut where mu_error would cut. */
    char longer[1500];
    memset(longer, 'x', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    mu_error("%.1010s: %s", longer, "the cause");
    snprintf(want, sizeof want, "%s", mu_error_message());
    mu_error_cause("the cause", "%.1010s", longer);
    CHECK_STR_EQ(mu_error_message(), want);
    mu_error("%s: %s", longer, "the cause");
    snprintf(want, sizeof want, "%s", mu_error_message());
    mu_error_cause("the cause", "%s", longer);
    CHECK_STR_EQ(mu_error_message(), want);

    /* The caller's context in front of its callee's message. */
    mu_error("out of memory in the %s", "aggregation");
    CHECK_INT_EQ(mu_error_cause(mu_error_message(), "node %d (stage %d): aggregation", 5, 1), 1);
    CHECK_STR_EQ(mu_error_message(),
                 "node 5 (stage 1): aggregation: out of memory in the aggregation");
    mu_error_clear();
}

int main(void) {
    MU_RUN(philox_known_answers);
    MU_RUN(rng_ranges);
    MU_RUN(parse_int_forms);
    MU_RUN(options_command_line);
    MU_RUN(options_errors);
    MU_RUN(options_deck);
    MU_RUN(deck_sections_and_paths);
    MU_RUN(deck_refusals);
    MU_RUN(output_is_atomic);
    MU_RUN(output_targets);
    MU_RUN(block_partition);
    MU_RUN(weight_partition);
    MU_RUN(hdmath_accuracy);
    MU_RUN(error_idiom);
    return mu_report("test_core");
}
