/*
 * tests/test_run_summary.c - what `iohw run` leaves on a console: the
 * verdict last (within the last 30 lines of stdout, the part a terminal
 * and `tail` show, whatever the number of failure blocks before it), the
 * table by tag only on a failed run without --quiet (or with --tags), one
 * progress line on a stderr that is not a terminal, and for a narrow
 * backend how much of the suite was compared and how to get a suite
 * inside its claim - advice that, followed, leaves nothing UNSUPPORTED.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/reports.h"
#include "support/shell.h"

/* The smoke suite test_verdict_run.c uses too (one of them writes it). */
#define DIR IOHW_TEST_TMP "/verdict-smoke"
#define NARROW IOHW_BACKEND_DIR "/libiohw_narrow.so"
#define OP_IGNORED IOHW_BACKEND_DIR "/libiohw_fault_op_ignored.so"
#define LAST_LINES 30

static void make_smoke(void)
{
    iohw_test_smoke(IOHW_BIN, DIR);
}

/* Runs `iohw run --backend LIB SUITE --jobs 2 EXTRA` with stdout alone
 * into *out and stderr into the file NAME.err; returns the exit status. */
static int run(char **out, const char *lib, const char *suite, const char *name,
               const char *extra)
{
    return iohw_test_sh(out, "{ '%s' run --backend '%s' '%s' --jobs 2 %s 2> '%s/summary-%s.err'; }",
                        IOHW_BIN, lib, suite, extra, IOHW_TEST_TMP, name);
}

static int count_lines(const char *s)
{
    int n = 0;
    for (; *s != '\0'; s++)
        n += *s == '\n';
    return n;
}

/* The line number (from 1) of the first line starting with prefix, or 0. */
static int line_of(const char *s, const char *prefix)
{
    int n = 1;
    for (const char *l = s; *l != '\0'; n++) {
        if (strncmp(l, prefix, strlen(prefix)) == 0)
            return n;
        l = strchr(l, '\n');
        if (l == NULL)
            break;
        l++;
    }
    return 0;
}

static int64_t count_status(const iohw_run_results *r, iohw_result_status s)
{
    int64_t n = 0;
    for (int64_t i = 0; i < r->count; i++)
        n += r->items[i].status == s;
    return n;
}

Test(run_summary, a_narrow_backend_hears_how_much_was_compared_and_what_to_do, .timeout = 600)
{
    make_smoke();
    char *out = NULL, want[1024];
    cr_assert_eq(run(&out, NARROW, DIR, "narrow", "--json '" IOHW_TEST_TMP
                     "/summary-narrow.json'"), 0, "%s", out);
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_read(IOHW_TEST_TMP "/summary-narrow.json", &rep, &err), 0,
                 "%s", err.msg);
    const int64_t unsupported = count_status(&rep.results, IOHW_RESULT_UNSUPPORTED);
    cr_assert_gt(2 * unsupported, rep.results.count, "the narrow backend is not narrow");
    snprintf(want, sizeof want, "\ncompared with the oracle: %lld of %lld case(s)\nyour "
             "backend claims %lld of %lld case(s) (%lld UNSUPPORTED): `iohw gen --profile "
             "smoke --for-backend %s -o DIR` writes a suite inside what it claims\n"
             "OK: nothing failed\n",
             (long long)(rep.results.count - unsupported), (long long)rep.results.count,
             (long long)(rep.results.count - unsupported), (long long)rep.results.count,
             (long long)unsupported, NARROW);
    const char *at = strstr(out, want);
    cr_expect(at != NULL, "no '%s' in\n%s", want, out);
    cr_expect(at == NULL || at[strlen(want)] == '\0', "not the last lines:\n%s", out);
    cr_expect(at == NULL || strstr(out, "\ntotal ") < at, "not after the status table");
    iohw_report_free(&rep);
    free(out);

    /* --claim-coverage: the same advice, with the share of the pairs. */
    cr_assert_eq(run(&out, NARROW, DIR, "narrow-claim", "--quiet --claim-coverage"), 0);
    at = strstr(out, "UNSUPPORTED) and they cover ");
    cr_expect(at != NULL && strstr(at, "% of the factor-value pairs it claims: `iohw gen "
                                   "--profile smoke --for-backend ") != NULL, "%s", out);
    free(out);

    /* The advice followed: every case compared, no advice. */
    cr_assert_eq(iohw_test_sh(&out, "rm -rf '%s/summary-mine' && '%s' gen --profile smoke "
                              "--for-backend '%s' -o '%s/summary-mine'", IOHW_TEST_TMP,
                              IOHW_BIN, NARROW, IOHW_TEST_TMP), 0, "%s", out);
    free(out);
    cr_assert_eq(run(&out, NARROW, IOHW_TEST_TMP "/summary-mine", "mine", "--quiet"), 0,
                 "%s", out);
    cr_expect(strstr(out, "\nUNSUPPORTED" "         0\n") != NULL, "%s", out);
    cr_expect(strstr(out, "your backend claims") == NULL, "%s", out);
    free(out);
}

Test(run_summary, a_backend_claiming_most_cases_gets_no_advice, .timeout = 600)
{
    make_smoke();
    char *out = NULL;
    cr_assert_eq(run(&out, IOHW_BACKEND_DIR "/libiohw_reference.so", DIR, "reference",
                     "--quiet"), 0, "%s", out);
    cr_expect(strstr(out, "your backend claims") == NULL, "%s", out);
    cr_expect(strstr(out, "\nOK: nothing failed\n") != NULL, "%s", out);
    free(out);
}

/* A run with 59 failures and 11 blocks of them: the verdict (its groups
 * and the closing line with the headline) is within the last 30 lines,
 * after the status table and the table by tag.  The last lines rather
 * than the first: the blocks arrive while the run goes, and the verdict
 * needs every result. */
Test(run_summary, the_verdict_is_within_the_last_30_lines, .timeout = 600)
{
    make_smoke();
    char *out = NULL;
    cr_assert_eq(run(&out, OP_IGNORED, DIR, "op", ""), 1, "%s", out);
    const int lines = count_lines(out);
    cr_assert_gt(lines, 2 * LAST_LINES, "too short to tell:\n%s", out);
    const int verdict = line_of(out, "verdict: ");
    const int failed = line_of(out, "FAILED: ");
    cr_expect_gt(verdict, lines - LAST_LINES, "verdict at line %d of %d:\n%s", verdict,
                 lines, out);
    cr_expect_eq(failed, lines, "FAILED at line %d of %d:\n%s", failed, lines, out);
    cr_expect_gt(verdict, line_of(out, "status "), "the verdict before the status table");
    const int tags = line_of(out, "tag ");
    cr_expect(tags > 0 && tags < verdict, "a failed run has its table by tag first: %d",
              tags);
    const char *head = strstr(out, "\nverdict: ");
    cr_assert(head != NULL);
    char headline[256];
    snprintf(headline, sizeof headline, "\nFAILED: %.*s (", (int)strcspn(head + 10, "\n"),
             head + 10);
    cr_expect(strstr(out, headline) != NULL, "no '%s' in\n%s", headline + 1, out);
    free(out);
}

Test(run_summary, no_table_by_tag_with_quiet_or_on_a_pass_unless_asked, .timeout = 600)
{
    make_smoke();
    char *out = NULL;
    cr_assert_eq(run(&out, OP_IGNORED, DIR, "op-quiet", "--quiet"), 1, "%s", out);
    cr_expect_eq(line_of(out, "tag "), 0, "%s", out);
    free(out);
    cr_assert_eq(run(&out, NARROW, DIR, "pass", ""), 0, "%s", out);
    cr_expect_eq(line_of(out, "tag "), 0, "%s", out);
    free(out);
    cr_assert_eq(run(&out, NARROW, DIR, "pass-tags", "--quiet --tags"), 0, "%s", out);
    cr_expect_gt(line_of(out, "tag "), 0, "%s", out);
    cr_expect(strstr(out, "\n2d ") != NULL, "--tags lists every tag:\n%s", out);
    free(out);
}

/* Progress on a stderr that is not a terminal: a line a minute and one at
 * the end; every line before the last comes a minute or more into the
 * run (it says so), whatever the machine's speed. */
Test(run_summary, a_redirected_stderr_gets_a_line_a_minute_and_one_at_the_end, .timeout = 600)
{
    make_smoke();
    char *out = NULL, *err = NULL;
    cr_assert_eq(run(&out, OP_IGNORED, DIR, "progress", ""), 1, "%s", out);
    free(out);
    cr_assert_eq(iohw_test_sh(&err, "cat '%s/summary-progress.err'", IOHW_TEST_TMP), 0);
    int progress = 0;
    const char *last = NULL;
    for (const char *l = err; l != NULL && *l != '\0';) {
        if (strncmp(l, "iohw: run: ", 11) == 0) {
            if (last != NULL) {
                const char *el = strstr(last, " elapsed");
                const char *sp = el;
                while (sp > last && sp[-1] != ' ')
                    sp--;
                cr_expect(el != NULL && memchr(sp, 'm', (size_t)(el - sp)) != NULL,
                          "a line before a minute:\n%s", err);
            }
            last = l;
            progress++;
        }
        l = strchr(l, '\n');
        l = l != NULL ? l + 1 : NULL;
    }
    cr_expect_geq(progress, 1, "%s", err);
    cr_expect(last != NULL && strstr(last, "373/373 cases (100%)") == last + 11, "%s", err);
    free(err);
}
