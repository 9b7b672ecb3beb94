/*
 * tests/test_cli.c - the `iohw` program, run as a user runs it: gen, show,
 * oracle, help, --version, and every usage error (exit status 2 and a
 * message that names what was wrong).
 */
#include <criterion/criterion.h>

#include <hdf5.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cases/case.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

#define OUT_MAX (1 << 20)

static const char *example =
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 dt=f32 "
    "xl=NHWC wl=OIHW fill=normal seed=7";

/* Runs "iohw ARGS" through the shell with stderr joined to stdout; returns
 * the exit status and leaves the output in out (malloc'd, NUL-terminated). */
static int run(char **out, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int run(char **out, const char *fmt, ...)
{
    char args[4096], cmd[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(args, sizeof args, fmt, ap);
    va_end(ap);
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", IOHW_BIN, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p != NULL, "popen %s", cmd);
    char *buf = malloc(OUT_MAX);
    cr_assert(buf != NULL);
    size_t n = fread(buf, 1, OUT_MAX - 1, p);
    buf[n] = '\0';
    int status = pclose(p);
    cr_assert(WIFEXITED(status), "%s: did not exit normally", cmd);
    *out = buf;
    return WEXITSTATUS(status);
}

/* A scratch path unique to this process. */
static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/cli_%ld_%s", IOHW_TEST_TMP, (long)getpid(), name);
}

static void check_contains(const char *out, const char *what, const char *context)
{
    cr_assert(strstr(out, what) != NULL, "%s: expected '%s' in:\n%s", context, what, out);
}

/* Runs and expects a usage error: status 2 and "iohw: " plus each of the
 * given fragments in the message. */
static void expect_usage_error(const char *args, const char *frag1, const char *frag2)
{
    char *out;
    int status = run(&out, "%s", args);
    cr_assert_eq(status, 2, "iohw %s: status %d, output:\n%s", args, status, out);
    check_contains(out, "iohw: ", args);
    if (frag1 != NULL)
        check_contains(out, frag1, args);
    if (frag2 != NULL)
        check_contains(out, frag2, args);
    free(out);
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)len + 1);
    cr_assert(buf != NULL);
    cr_assert_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    *n = (size_t)len;
    return buf;
}

static void gen_example(const char *path)
{
    char *out;
    int status = run(&out, "gen --problem '%s' -o '%s' --threads 2", example, path);
    cr_assert_eq(status, 0, "gen: %s", out);
    free(out);
}

/* ---------------------------------------------------------------------- */
/* gen and show. */

Test(cli, gen_writes_a_case_that_show_prints_with_its_descriptor)
{
    char path[512], canon[IOHW_DESC_MAX];
    char *out;
    iohw_desc d;
    iohw_error e;
    tmp_path(path, sizeof path, "example.h5");

    cr_assert_eq(run(&out, "gen --problem '%s' -o '%s'", example, path), 0, "%s", out);
    check_contains(out, "problem.0", "gen's line");
    free(out);

    cr_assert_eq(iohw_desc_parse(example, &d, &e), 0, "%s", e.msg);
    cr_assert_geq(iohw_desc_format(&d, canon, sizeof canon), 0);
    cr_assert_eq(run(&out, "show '%s'", path), 0, "%s", out);
    check_contains(out, "case problem.0", "show");
    check_contains(out, canon, "show's descriptor");
    check_contains(out, "NHWC", "show's layouts");
    check_contains(out, "OIHW", "show's layouts");
    check_contains(out, "y_f64", "show's datasets");
    check_contains(out, "err_bound", "show's datasets");
    check_contains(out, "terms_max", "show");
    /* x in NHWC: [N, H, W, C] = [2, 5, 7, 4]; y: [2, 11, 8, 6] (out 11x8). */
    check_contains(out, "[2, 5, 7, 4]", "x's shape");
    check_contains(out, "[2, 11, 8, 6]", "y's shape");
    free(out);

    cr_assert_eq(run(&out, "show '%s:problem.0'", path), 0, "%s", out);
    check_contains(out, "case problem.0", "show FILE:ID");
    free(out);
    unlink(path);
}

Test(cli, gen_twice_writes_byte_identical_files)
{
    char a[512], b[512];
    size_t na, nb;
    tmp_path(a, sizeof a, "twice_a.h5");
    tmp_path(b, sizeof b, "twice_b.h5");
    gen_example(a);
    gen_example(b);
    char *fa = read_file(a, &na), *fb = read_file(b, &nb);
    cr_assert_eq(na, nb);
    cr_assert_eq(memcmp(fa, fb, na), 0, "the two files differ");
    free(fa);
    free(fb);
    unlink(a);
    unlink(b);
}

Test(cli, several_problems_become_numbered_cases_and_id_names_one)
{
    char path[512];
    char *out;
    tmp_path(path, sizeof path, "several.h5");
    cr_assert_eq(run(&out, "gen --problem 'ci=1 co=2 in=4 k=3' --problem 'ci=2 co=2 in=3x3 "
                     "k=2x2 dt=f16 fill=exact' -o '%s' --threads 1", path), 0, "%s", out);
    check_contains(out, "problem.0", "gen");
    check_contains(out, "problem.1", "gen");
    free(out);
    cr_assert_eq(run(&out, "show '%s:problem.1'", path), 0, "%s", out);
    check_contains(out, "fill-exact", "show");
    free(out);

    cr_assert_eq(run(&out, "gen --problem 'ci=1 co=2 in=4 k=3' --id mine -o '%s'", path), 0,
                 "%s", out);
    free(out);
    cr_assert_eq(run(&out, "show '%s:mine'", path), 0, "%s", out);
    check_contains(out, "case mine", "show");
    free(out);
    unlink(path);
}

/* ---------------------------------------------------------------------- */
/* Usage errors. */

Test(cli, usage_errors_exit_2_with_a_message_naming_the_problem)
{
    char path[512], args[2048];
    tmp_path(path, sizeof path, "usage.h5");

    snprintf(args, sizeof args, "gen --problem 'ci=4 co=6 in=5x7 k=3x2 foo=3' -o '%s'", path);
    expect_usage_error(args, "'foo=3'", NULL);
    snprintf(args, sizeof args, "gen --problem 'ci=4 co=6 in=5x7 k=3x2 s=0' -o '%s'", path);
    expect_usage_error(args, "s=0", NULL);
    cr_assert_neq(access(path, F_OK), 0, "a failed gen left %s behind", path);

    expect_usage_error("gen --problem 'ci=1 co=1 in=3 k=2'", "-o", "iohw help gen");
    expect_usage_error("gen -o x.h5", "--problem", NULL);
    expect_usage_error("gen --problem", "--problem", "value");
    expect_usage_error("gen --bogus", "'--bogus'", "iohw help gen");
    snprintf(args, sizeof args, "gen --problem 'ci=1 co=1 in=3 k=2' -o '%s' --threads 0", path);
    expect_usage_error(args, "--threads", "'0'");
    snprintf(args, sizeof args, "gen --problem 'ci=1 co=1 in=3 k=2' -o '%s' --id 'a b'", path);
    expect_usage_error(args, "'a b'", NULL);

    expect_usage_error("frobnicate", "'frobnicate'", "iohw help");
    expect_usage_error("--frobnicate", "'--frobnicate'", "iohw help");
    expect_usage_error("", "Usage", NULL);
    expect_usage_error("help frobnicate", "'frobnicate'", NULL);

    expect_usage_error("oracle /nonexistent/in.h5 -o out.h5", "/nonexistent/in.h5", NULL);
    expect_usage_error("oracle in.h5", "-o", "iohw help oracle");
    expect_usage_error("oracle -o out.h5", "IN.h5", NULL);
    expect_usage_error("oracle a.h5 b.h5 -o c.h5", "'b.h5'", NULL);
    expect_usage_error("show /nonexistent/file.h5", "/nonexistent/file.h5", NULL);
    expect_usage_error("show", "FILE", "iohw help show");
    expect_usage_error("show --bogus", "'--bogus'", NULL);
}

Test(cli, show_of_an_unknown_case_names_it)
{
    char path[512], args[2048];
    tmp_path(path, sizeof path, "unknown_case.h5");
    gen_example(path);
    snprintf(args, sizeof args, "show '%s:no.such.case'", path);
    expect_usage_error(args, "'no.such.case'", NULL);
    unlink(path);
}

Test(cli, oracle_refuses_to_overwrite_its_input)
{
    char path[512], args[2048];
    tmp_path(path, sizeof path, "same.h5");
    gen_example(path);
    snprintf(args, sizeof args, "oracle '%s' -o '%s'", path, path);
    expect_usage_error(args, "input", NULL);
    /* The input is intact. */
    char *out;
    cr_assert_eq(run(&out, "show '%s'", path), 0, "%s", out);
    free(out);
    unlink(path);
}

/* ---------------------------------------------------------------------- */
/* Help and version. */

static void check_help(const char *sub, const char *const *options)
{
    char *a, *b;
    cr_assert_eq(run(&a, "help %s", sub), 0, "%s", a);
    cr_assert_eq(run(&b, "%s --help", sub), 0, "%s", b);
    cr_assert_str_eq(a, b, "'iohw help %s' and 'iohw %s --help' differ", sub, sub);
    check_contains(a, "Usage: iohw", sub);
    check_contains(a, "Example", sub);
    for (int i = 0; options[i] != NULL; i++)
        check_contains(a, options[i], sub);
    free(a);
    free(b);
}

Test(cli, help_explains_every_subcommand_and_its_options)
{
    static const char *const gen[] = {"--problem", "-o", "--output", "--id", "--threads",
                                      "default", "fill=", NULL};
    static const char *const oracle[] = {"IN.h5", "-o", "--threads", "default", NULL};
    static const char *const show[] = {"FILE[:CASE_ID]", NULL};
    static const char *const help[] = {"SUBCOMMAND", NULL};
    check_help("gen", gen);
    check_help("oracle", oracle);
    check_help("show", show);
    check_help("help", help);

    char *out;
    cr_assert_eq(run(&out, "help"), 0, "%s", out);
    check_contains(out, "gen", "iohw help");
    check_contains(out, "oracle", "iohw help");
    check_contains(out, "show", "iohw help");
    free(out);
    cr_assert_eq(run(&out, "--help"), 0, "%s", out);
    check_contains(out, "Usage: iohw", "iohw --help");
    free(out);
    cr_assert_eq(run(&out, "--version"), 0, "%s", out);
    check_contains(out, "iohw ", "iohw --version");
    check_contains(out, "ABI 1", "iohw --version");
    free(out);
}

/* ---------------------------------------------------------------------- */
/* oracle on user files. */

/* Turns a generated case file into a user file: deletes the outputs and the
 * attributes a user may leave out of the cases problem.0 .. problem.<n-1>,
 * with the HDF5 library directly; bad_case also loses its x. */
static void strip_outputs(const char *path, int n, const char *bad_case)
{
    static const char *const datasets[] = {"y", "y_f64", "err_bound"};
    static const char *const attrs[] = {"terms_max", "out_size", "fill", "seed", "tags",
                                        "descriptor"};
    hid_t f = H5Fopen(path, H5F_ACC_RDWR, H5P_DEFAULT);
    cr_assert_geq(f, 0, "H5Fopen %s", path);
    for (int i = 0; i < n; i++) {
        char name[64];
        snprintf(name, sizeof name, "/cases/problem.%d", i);
        hid_t g = H5Gopen2(f, name, H5P_DEFAULT);
        cr_assert_geq(g, 0, "%s", name);
        for (size_t j = 0; j < 3; j++)
            cr_assert_geq(H5Ldelete(g, datasets[j], H5P_DEFAULT), 0, "%s/%s", name,
                          datasets[j]);
        for (size_t j = 0; j < 6; j++)
            cr_assert_geq(H5Adelete(g, attrs[j]), 0, "%s@%s", name, attrs[j]);
        if (bad_case != NULL && strcmp(name + 7, bad_case) == 0)
            cr_assert_geq(H5Ldelete(g, "x", H5P_DEFAULT), 0);
        H5Gclose(g);
    }
    H5Fclose(f);
}

static void copy_file(const char *from, const char *to)
{
    size_t n;
    char *buf = read_file(from, &n);
    FILE *f = fopen(to, "wb");
    cr_assert(f != NULL);
    cr_assert_eq(fwrite(buf, 1, n, f), n);
    fclose(f);
    free(buf);
}

static void compare_outputs(const char *expected_path, const char *got_path,
                            const char *id)
{
    iohw_error e;
    iohw_case a, b;
    iohw_case_file *fa = iohw_case_file_open(expected_path, &e);
    cr_assert(fa != NULL, "%s", e.msg);
    iohw_case_file *fb = iohw_case_file_open(got_path, &e);
    cr_assert(fb != NULL, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(fa, id, IOHW_READ_ALL, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_case_file_read(fb, id, IOHW_READ_ALL, &b, &e), 0, "%s", e.msg);
    const size_t ny = (size_t)iohw_problem_y_count(&a.p);
    cr_assert_eq(memcmp(a.y_f64, b.y_f64, ny * sizeof(double)), 0, "%s: y_f64 differs", id);
    cr_assert_eq(memcmp(a.err_bound, b.err_bound, ny * sizeof(double)), 0, "%s", id);
    cr_assert_eq(a.terms_max, b.terms_max);
    cr_assert_str_eq(b.fill, "user");
    /* The descriptor and tags are derived again: the same problem, with the
     * fill "user" (the user's numbers, not a generator's). */
    const char *fa_text = strstr(a.descriptor, " fill=");
    const char *fb_text = strstr(b.descriptor, " fill=");
    cr_assert(fa_text != NULL && fb_text != NULL, "'%s' / '%s'", a.descriptor, b.descriptor);
    cr_assert_eq(fa_text - a.descriptor, fb_text - b.descriptor, "'%s' / '%s'", a.descriptor,
                 b.descriptor);
    cr_assert_eq(strncmp(a.descriptor, b.descriptor, (size_t)(fa_text - a.descriptor)), 0,
                 "'%s' / '%s'", a.descriptor, b.descriptor);
    check_contains(b.descriptor, "fill=user", "the completed descriptor");
    check_contains(b.tags, "fill-user", "the completed tags");
    iohw_case_free(&a);
    iohw_case_free(&b);
    iohw_case_file_close(fa, NULL);
    iohw_case_file_close(fb, NULL);
}

Test(cli, oracle_on_a_file_without_outputs_reproduces_them_exactly)
{
    char gen[512], user[512], done[512];
    char *out;
    tmp_path(gen, sizeof gen, "oracle_gen.h5");
    tmp_path(user, sizeof user, "oracle_user.h5");
    tmp_path(done, sizeof done, "oracle_done.h5");
    cr_assert_eq(run(&out, "gen --problem '%s' --problem 'ci=3 co=2 in=4x4x4 k=2x3x2 s=2 "
                     "dt=f16 xl=NDHWC wl=GOIDHW fill=exact bias=1' -o '%s'", example, gen),
                 0, "%s", out);
    free(out);
    copy_file(gen, user);
    strip_outputs(user, 2, NULL);

    /* The stripped file has no outputs any more. */
    cr_assert_eq(run(&out, "show '%s'", user), 0, "%s", out);
    check_contains(out, "iohw oracle", "show of a user file");
    free(out);

    cr_assert_eq(run(&out, "oracle '%s' -o '%s' --threads 2", user, done), 0, "%s", out);
    check_contains(out, "problem.0", "oracle's lines");
    check_contains(out, "problem.1", "oracle's lines");
    free(out);
    compare_outputs(gen, done, "problem.0");
    compare_outputs(gen, done, "problem.1");
    unlink(gen);
    unlink(user);
    unlink(done);
}

Test(cli, oracle_reports_a_bad_case_and_still_writes_the_others)
{
    char gen[512], user[512], done[512];
    char *out;
    tmp_path(gen, sizeof gen, "bad_gen.h5");
    tmp_path(user, sizeof user, "bad_user.h5");
    tmp_path(done, sizeof done, "bad_done.h5");
    cr_assert_eq(run(&out, "gen --problem 'ci=2 co=2 in=3 k=2' --problem 'ci=1 co=3 in=4 "
                     "k=3 bias=1' -o '%s'", gen), 0, "%s", out);
    free(out);
    copy_file(gen, user);
    strip_outputs(user, 2, "problem.0");

    cr_assert_eq(run(&out, "oracle '%s' -o '%s'", user, done), 2, "%s", out);
    check_contains(out, "iohw: ", "oracle");
    check_contains(out, "problem.0", "oracle's message");
    check_contains(out, "problem.1", "oracle's line for the good case");
    free(out);
    compare_outputs(gen, done, "problem.1");

    iohw_error e;
    iohw_case_file *f = iohw_case_file_open(done, &e);
    cr_assert(f != NULL, "%s", e.msg);
    cr_assert_eq(iohw_case_file_count(f), 1);
    iohw_case_file_close(f, NULL);
    unlink(gen);
    unlink(user);
    unlink(done);
}
