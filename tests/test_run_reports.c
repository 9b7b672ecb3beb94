/*
 * tests/test_run_reports.c - `iohw run` writing its reports and applying a
 * baseline, and `iohw report baseline`, as a user runs them.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reports/reports.h"
#include "support/shell.h"

#define sh iohw_test_sh

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/run-reports-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
}

/* Two cases the io-swap fault backend fails (C_in = 2 against C_out = 3 and
 * 2: exchanging I and O reads other weights), the naive backend passes. */
typedef struct run_files {
    char h5[512], bl[512], junit[512], json[512], html[512], md[512], first[512];
} run_files;

static void gen_cases(run_files *f)
{
    char *out;
    path_of(f->h5, sizeof f->h5, "run.h5");
    path_of(f->bl, sizeof f->bl, "run-baseline.txt");
    path_of(f->junit, sizeof f->junit, "run.xml");
    path_of(f->json, sizeof f->json, "run.json");
    path_of(f->html, sizeof f->html, "run.html");
    path_of(f->md, sizeof f->md, "run.md");
    path_of(f->first, sizeof f->first, "run-first.json");
    cr_assert_eq(sh(&out, "'%s' gen -o '%s' --problem 'n=1 ci=2 co=3 in=4x5 k=3x2 s=2' "
                    "--problem 'ci=2 co=2 in=6 k=3'", IOHW_BIN, f->h5), 0, "%s", out);
    free(out);
}

static void remove_run_files(const run_files *f)
{
    remove(f->h5), remove(f->bl), remove(f->junit), remove(f->json), remove(f->html),
        remove(f->md), remove(f->first);
}

/* Runs the cases against the backend libiohw_<backend>.so, one job, quiet,
 * with the options `more`; returns the exit code. */
static int run_cases(char **out, const run_files *f, const char *backend, const char *more)
{
    return sh(out, "'%s' run --backend '%s/libiohw_%s.so' '%s' --jobs 1 --quiet %s", IOHW_BIN,
              IOHW_BACKEND_DIR, backend, f->h5, more);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f, "cannot write %s", path);
    fputs(text, f);
    fclose(f);
}

Test(run_reports, run_without_a_baseline_fails_and_writes_every_report)
{
    run_files f;
    char more[4096], *out;
    gen_cases(&f);
    snprintf(more, sizeof more, "--junit '%s' --json '%s' --html '%s' --markdown '%s'",
             f.junit, f.json, f.html, f.md);
    cr_expect_eq(run_cases(&out, &f, "fault_io_swap", more), 1, "%s", out);
    free(out);
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_read(f.json, &rep, &err), 0, "%s", err.msg);
    cr_assert_eq(rep.results.count, 2);
    cr_expect_eq(rep.results.items[0].status, IOHW_RESULT_FAIL);
    cr_expect_eq(rep.results.items[1].status, IOHW_RESULT_FAIL);
    cr_expect_str_eq(rep.options.backend_path,
                     IOHW_BACKEND_DIR "/libiohw_fault_io_swap.so");
    cr_expect_eq(rep.options.jobs, 1);
    cr_expect_neq(rep.options.start_time, 0);
    iohw_report_free(&rep);
    cr_expect_eq(access(f.junit, R_OK), 0);
    cr_expect_eq(access(f.html, R_OK), 0);
    cr_expect_eq(access(f.md, R_OK), 0);
    remove_run_files(&f);
}

/* Makes the cases, writes the baseline `text` and runs the io-swap backend
 * with it and a JSON report; returns the exit code. */
static int run_with_baseline(char **out, run_files *f, const char *text)
{
    char more[4096];
    gen_cases(f);
    write_text(f->bl, text);
    snprintf(more, sizeof more, "--baseline '%s' --json '%s'", f->bl, f->json);
    return run_cases(out, f, "fault_io_swap", more);
}

/* A baseline waiving problem.0, with one stale entry: problem.1 still fails
 * (exit 1). */
Test(run_reports, a_baseline_waives_its_case_and_names_its_stale_entry)
{
    run_files f;
    char *out;
    int rc = run_with_baseline(&out, &f, "# test baseline\nproblem.0   io swap, known\n"
                                         "ct9d.*   nothing like it\n");
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_not_null(strstr(out, ":3: 'ct9d.*' matches no failing case"), "%s", out);
    free(out);
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_read(f.json, &rep, &err), 0, "%s", err.msg);
    cr_expect_eq(rep.results.items[0].status, IOHW_RESULT_WAIVED);
    cr_expect_eq(rep.results.items[1].status, IOHW_RESULT_FAIL);
    cr_expect_eq(strncmp(rep.results.items[0].message, "waived: io swap, known (was FAIL", 32),
                 0, "%s", rep.results.items[0].message);
    cr_assert_eq(rep.baseline.count, 2);
    cr_expect_eq(rep.baseline.entries[0].matched, 1);
    cr_expect_eq(rep.baseline.entries[1].matched, 0);
    iohw_report_free(&rep);
    remove_run_files(&f);
}

Test(run_reports, a_baseline_waiving_every_failure_makes_the_run_pass)
{
    run_files f;
    char *out;
    cr_expect_eq(run_with_baseline(&out, &f, "problem.*   io swap, known\n"), 0, "%s", out);
    free(out);
    remove_run_files(&f);
}

/* A report of the failing run, written to f->first. */
static void first_report(const run_files *f)
{
    char more[1024], *out;
    snprintf(more, sizeof more, "--json '%s'", f->first);
    cr_expect_eq(run_cases(&out, f, "fault_io_swap", more), 1, "%s", out);
    free(out);
}

/* A baseline made from a report of the failing run (the file, or the
 * report itself) waives both: exit 0. */
Test(run_reports, a_baseline_made_from_a_report_waives_every_failure)
{
    run_files f;
    char args[4096], *out;
    iohw_error err = {{0}};
    gen_cases(&f);
    first_report(&f);
    cr_expect_eq(sh(&out, "'%s' report baseline '%s' -o '%s'", IOHW_BIN, f.first, f.bl), 0,
                 "%s", out);
    free(out);
    iohw_baseline made;
    cr_assert_eq(iohw_baseline_load(f.bl, &made, &err), 0, "%s", err.msg);
    cr_assert_eq(made.count, 2);
    cr_expect_str_eq(made.entries[1].pattern, "problem.1");
    iohw_baseline_free(&made);
    snprintf(args, sizeof args, "--baseline '%s'", f.bl);
    cr_expect_eq(run_cases(&out, &f, "fault_io_swap", args), 0, "%s", out);
    free(out);
    snprintf(args, sizeof args, "--baseline '%s'", f.first);
    cr_expect_eq(run_cases(&out, &f, "fault_io_swap", args), 0, "%s", out);
    free(out);
    remove_run_files(&f);
}

/* Against the naive backend both entries are stale (fixed). */
Test(run_reports, against_a_passing_backend_the_entries_of_a_report_are_stale)
{
    run_files f;
    char more[1024], *out;
    gen_cases(&f);
    first_report(&f);
    snprintf(more, sizeof more, "--baseline '%s'", f.first);
    cr_expect_eq(run_cases(&out, &f, "naive", more), 0, "%s", out);
    cr_expect_not_null(strstr(out, "'problem.1' matches no failing case"), "%s", out);
    free(out);
    remove_run_files(&f);
}

Test(run_reports, a_baseline_of_a_missing_report_exits_2)
{
    char *out;
    cr_expect_eq(sh(&out, "'%s' report baseline /nonexistent.json", IOHW_BIN), 2, "%s", out);
    free(out);
}

Test(run_reports, the_naive_backend_passes_both_and_says_so_in_markdown)
{
    run_files f;
    char *out;
    gen_cases(&f);
    cr_expect_eq(run_cases(&out, &f, "naive", "--markdown -"), 0, "%s", out);
    cr_expect_not_null(strstr(out, "2 cases in "), "%s", out);
    cr_expect_not_null(strstr(out, "- passed"), "%s", out);
    free(out);
    remove_run_files(&f);
}

/* A baseline that cannot be read, a report that cannot be written, an
 * option without its value: exit 2, with what is wrong named ("": not
 * checked). */
typedef struct run_misuse {
    char name[40];      /* the scenario, named in every failure */
    char backend[16];   /* libiohw_<backend>.so; "": the path x.so */
    char more[48];      /* the options after the case file */
    char says[40];
} run_misuse;

static run_misuse run_misuses[] = {
    {"a baseline that cannot be read", "naive", "--baseline /nonexistent/bl.txt",
     "/nonexistent/bl.txt"},
    {"a report that cannot be written", "naive", "--html /dev/null/r.html",
     "HTML report in '/dev/null'"},
    {"--junit without a path", "", "--junit", ""},
};

ParameterizedTestParameters(run_reports, run_exits_2_when_a_report_or_baseline_is_unusable)
{
    return cr_make_param_array(run_misuse, run_misuses,
                               sizeof run_misuses / sizeof run_misuses[0]);
}

ParameterizedTest(run_misuse *c, run_reports, run_exits_2_when_a_report_or_baseline_is_unusable)
{
    run_files f;
    char *out;
    gen_cases(&f);
    int rc;
    if (c->backend[0] != '\0')
        rc = sh(&out, "'%s' run --backend '%s/libiohw_%s.so' '%s' --quiet %s", IOHW_BIN,
                IOHW_BACKEND_DIR, c->backend, f.h5, c->more);
    else
        rc = sh(&out, "'%s' run --backend x.so '%s' %s", IOHW_BIN, f.h5, c->more);
    cr_expect_eq(rc, 2, "%s: %s", c->name, out);
    cr_expect_not_null(strstr(out, c->says), "%s: no '%s' in: %s", c->name, c->says, out);
    free(out);
    remove_run_files(&f);
}
