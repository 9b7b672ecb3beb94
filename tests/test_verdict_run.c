/*
 * tests/test_verdict_run.c - the bug first, end to end: the bundled I/O-swap
 * fault over the smoke profile closes its summary and opens its reports
 * with one group holding every failure and prints at most 11 failure blocks (the
 * first of the group and --show 10 more), saying where the rest are; two
 * faults' results together give two groups, largest first.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/verdict.h"
#include "reports/reports.h"
#include "support/shell.h"

#define DIR IOHW_TEST_TMP "/verdict-smoke"

static void make_smoke(void)
{
    iohw_test_smoke(IOHW_BIN, DIR);
}

/* Runs fault `name` over the smoke suite (filter: NULL or a --filter
 * value) with the JSON report verdict-REPORT.json; returns the console
 * output. */
/* Runs fault NAME over the smoke suite (with --quiet unless loud), its JSON
 * report named REPORT; the console's output. */
static char *run_fault_as(const char *name, const char *report, const char *filter,
                          const char *extra, int loud)
{
    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' run --backend '%s/libiohw_fault_%s.so' '%s' --jobs 2 "
                          "%s --json '%s/verdict-%s.json' %s%s%s %s", IOHW_BIN,
                          IOHW_BACKEND_DIR, name, DIR, loud ? "" : "--quiet",
                          IOHW_TEST_TMP, report, filter ? "--filter '" : "",
                          filter ? filter : "", filter ? "'" : "", extra);
    cr_assert_eq(rc, 1, "%s: exit %d\n%s", name, rc, out);
    return out;
}

static char *run_fault(const char *name, const char *report, const char *filter,
                       const char *extra)
{
    return run_fault_as(name, report, filter, extra, 0);
}

static void read_report(const char *name, iohw_report *rep)
{
    char path[512];
    iohw_error err = {{0}};
    snprintf(path, sizeof path, "%s/verdict-%s.json", IOHW_TEST_TMP, name);
    cr_assert_eq(iohw_report_read(path, rep, &err), 0, "%s: %s", path, err.msg);
}

static int64_t count_bad(const iohw_run_results *r)
{
    int64_t n = 0;
    for (int64_t i = 0; i < r->count; i++)
        n += iohw_result_status_bad(r->items[i].status);
    return n;
}

/* Failure blocks: lines "STATUS ID (FILE)" or "STATUS file FILE". */
static int count_blocks(const char *out)
{
    static const char *const bad[] = {"FAIL ", "ERROR ", "CRASH ", "TIMEOUT ", "INVALID "};
    int n = 0;
    for (const char *l = out; l != NULL && *l != '\0';) {
        for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
            if (strncmp(l, bad[k], strlen(bad[k])) == 0 && l[strlen(bad[k])] != ' ')
                n++;
        l = strchr(l, '\n');
        l = l != NULL ? l + 1 : NULL;
    }
    return n;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    cr_assert(f != NULL, "%s", path);
    char *s = calloc(1, 1 << 22);
    cr_assert(s != NULL);
    size_t n = fread(s, 1, (1 << 22) - 1, f);
    s[n] = '\0';
    fclose(f);
    return s;
}

Test(verdict_run, io_swap_over_smoke_is_one_group_and_at_most_11_blocks, .timeout = 600)
{
    make_smoke();
    char *out = run_fault("io_swap", "io_swap", NULL,
                          "--markdown '" IOHW_TEST_TMP "/verdict-io_swap.md' "
                          "--html '" IOHW_TEST_TMP "/verdict-io_swap.html'");
    iohw_report rep;
    read_report("io_swap", &rep);
    const int64_t bad = count_bad(&rep.results);
    cr_assert_gt(bad, 11, "io_swap fails only %lld smoke cases", (long long)bad);

    const int blocks = count_blocks(out);
    cr_expect_leq(blocks, 11, "%d failure blocks:\n%s", blocks, out);
    cr_expect_geq(blocks, 1);
    char line[256];
    snprintf(line, sizeof line, "(%lld more failure block(s) not shown: --show 10",
             (long long)(bad - blocks));
    cr_expect(strstr(out, line) != NULL, "no '%s' in\n%s", line, out);

    /* The summary closes with the verdict, after the tables (the last
     * lines, tests/test_run_summary.c). */
    snprintf(line, sizeof line, "verdict: all %lld failures match weight I and O exchanged",
             (long long)bad);
    const char *verdict = strstr(out, line);
    cr_expect(verdict != NULL, "no '%s' in\n%s", line, out);
    cr_expect(verdict == NULL || strstr(verdict, "\nstatus ") == NULL,
              "the verdict is not after the status table");
    snprintf(line, sizeof line, "  %lld x weight I and O exchanged\n    your kernel reads "
             "the weight as OIHW", (long long)bad);
    cr_expect(strstr(out, line) != NULL, "no '%s' in\n%s", line, out);

    /* The reports keep every failure and open with the same verdict. */
    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&rep.results, &v), 0);
    cr_assert_eq(v.count, 1);
    cr_expect_eq(v.groups[0].count, bad);
    iohw_verdict_free(&v);
    char *md = slurp(IOHW_TEST_TMP "/verdict-io_swap.md");
    snprintf(line, sizeof line, "**Verdict: all %lld failures match weight I and O "
             "exchanged**", (long long)bad);
    const char *at = strstr(md, line);
    cr_expect(at != NULL && strstr(md, "| status | cases |") > at, "%s", md);
    char *html = slurp(IOHW_TEST_TMP "/verdict-io_swap.html");
    at = strstr(html, "<section id=\"verdict\">");
    cr_expect(at != NULL && strstr(html, "<section id=\"summary\">") > at);
    char *json = slurp(IOHW_TEST_TMP "/verdict-io_swap.json");
    cr_expect(strstr(json, "\"verdict\": {\"failures\": ") != NULL);
    cr_expect(strstr(json, "\"meaning\": \"your kernel reads the weight as OIHW") != NULL);
    free(json);
    free(html);
    free(md);
    iohw_report_free(&rep);
    free(out);
}

Test(verdict_run, show_limits_the_blocks_beyond_the_first_of_each_group, .timeout = 600)
{
    make_smoke();
    char *out = run_fault("io_swap", "show2", "dt=f32", "--show 2");
    cr_expect_eq(count_blocks(out), 3, "%s", out);
    free(out);
    out = run_fault("io_swap", "show_all", "dt=f32", "--show -1");
    iohw_report rep;
    read_report("show_all", &rep);
    cr_expect_eq(count_blocks(out), count_bad(&rep.results), "%s", out);
    cr_expect(strstr(out, "not shown") == NULL, "%s", out);
    iohw_report_free(&rep);
    free(out);
}

Test(verdict_run, two_faults_merged_are_two_groups_largest_first, .timeout = 600)
{
    make_smoke();
    free(run_fault("io_swap", "two_a", NULL, ""));
    free(run_fault("no_flip", "two_b", "dt=f32", ""));
    iohw_report a, b;
    read_report("two_a", &a);
    read_report("two_b", &b);
    const int64_t na = count_bad(&a.results), nb = count_bad(&b.results);
    cr_assert_gt(na, nb, "io_swap %lld, no_flip over f32 %lld", (long long)na,
                 (long long)nb);
    cr_assert_gt(nb, 0);

    iohw_run_results both = a.results;
    both.count = a.results.count + b.results.count;
    both.items = calloc((size_t)both.count, sizeof *both.items);
    cr_assert(both.items != NULL);
    memcpy(both.items, b.results.items, (size_t)b.results.count * sizeof *both.items);
    memcpy(both.items + b.results.count, a.results.items,
           (size_t)a.results.count * sizeof *both.items);
    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&both, &v), 0);
    cr_assert_eq(v.count, 2);
    cr_expect_str_eq(v.groups[0].label, "weight I and O exchanged");
    cr_expect_eq(v.groups[0].count, na);
    cr_expect_str_eq(v.groups[1].label, "kernel flipped");
    cr_expect_eq(v.groups[1].count, nb);
    char line[256];
    snprintf(line, sizeof line, "%lld failures in 2 groups", (long long)(na + nb));
    char got[256];
    iohw_verdict_headline(&v, got, sizeof got);
    cr_expect_str_eq(got, line);
    iohw_verdict_free(&v);
    free(both.items);
    iohw_report_free(&a);
    iohw_report_free(&b);
}

/* The seeded fault that drops output_padding: some of its failures match a
 * padding bug too (and name it first, the table's order), yet every
 * diagnosed failure joins "output_padding dropped", which explains the
 * most failures of the run: the console and the reports name one bug. */
Test(verdict_run, op_ignored_over_smoke_is_one_diagnosed_group, .timeout = 600)
{
    make_smoke();
    char *out = run_fault("op_ignored", "op_ignored", NULL, "");
    iohw_report rep;
    read_report("op_ignored", &rep);
    int64_t named = 0, named_later = 0;
    for (int64_t i = 0; i < rep.results.count; i++) {
        const char *d = rep.results.items[i].diagnosis;
        const char *at = strstr(d, "output_padding dropped");
        named += at != NULL;
        named_later += at != NULL && strncmp(d, "matches the oracle with output_padding "
                                             "dropped", 46) != 0;
    }
    cr_assert_gt(named_later, 0, "no failure names another cause first: the test "
                 "proves nothing");
    iohw_verdict v;
    cr_assert_eq(iohw_verdict_build(&rep.results, &v), 0);
    for (int k = 0; k < v.count; k++)
        if (v.groups[k].diagnosis >= 0) {
            cr_expect_str_eq(v.groups[k].label, "output_padding dropped");
            cr_expect_eq(v.groups[k].count, named);
        }
    char line[128];
    snprintf(line, sizeof line, "\n  %lld x output_padding dropped\n", (long long)named);
    cr_expect(strstr(out, line) != NULL, "no '%s' in\n%s", line + 1, out);
    cr_expect(strstr(out, "x pad begin and end exchanged\n") == NULL, "%s", out);
    iohw_verdict_free(&v);
    iohw_report_free(&rep);
    free(out);
}

/* --- the summary's table by tag ------------------------------------------ */

/* A tag's counts, as the report's results give them. */
typedef struct tag_count {
    char name[64];
    long long pass, fail, other;
} tag_count;

/* Counts every tag of the report's results (statuses PASS, bad, other);
 * returns the number of tags. */
static int count_report_tags(const iohw_run_results *r, tag_count *t, int max)
{
    int n = 0;
    for (int64_t i = 0; i < r->count; i++) {
        char *tags = strdup(r->items[i].tags);
        cr_assert_not_null(tags);
        for (char *save = NULL, *s = strtok_r(tags, ",", &save); s != NULL;
             s = strtok_r(NULL, ",", &save)) {
            int k = 0;
            while (k < n && strcmp(t[k].name, s) != 0)
                k++;
            if (k == n) {
                cr_assert_lt(n, max);
                memset(&t[n], 0, sizeof t[n]);
                snprintf(t[n++].name, sizeof t[0].name, "%s", s);
            }
            const iohw_result_status st = r->items[i].status;
            if (st == IOHW_RESULT_PASS)
                t[k].pass++;
            else if (iohw_result_status_bad(st))
                t[k].fail++;
            else
                t[k].other++;
        }
        free(tags);
    }
    return n;
}

/* Checks the console's table by tag against the counts: each tag with a
 * case not PASS is a row with its counts, the others are rows only with
 * --tags (all), and nothing else is.  Returns the rows printed. */
static int expect_tag_table(const char *out, const tag_count *t, int n, int all)
{
    const char *at = strstr(out, "\ntag ");
    cr_assert_not_null(at, "no table by tag in\n%s", out);
    at = strchr(at + 1, '\n') + 1;
    int rows = 0;
    while (*at != '\n' && *at != '\0') {
        char name[64];
        long long pass, fail, other;
        cr_assert_eq(sscanf(at, "%63s %lld %lld %lld", name, &pass, &fail, &other), 4,
                     "%.80s", at);
        int k = 0;
        while (k < n && strcmp(t[k].name, name) != 0)
            k++;
        cr_assert_lt(k, n, "row of an unknown tag %s", name);
        cr_expect(pass == t[k].pass && fail == t[k].fail && other == t[k].other,
                  "%s: %lld %lld %lld, expected %lld %lld %lld", name, pass, fail, other,
                  t[k].pass, t[k].fail, t[k].other);
        cr_expect(all || fail + other > 0, "all-PASS tag %s listed without --tags", name);
        rows++;
        at = strchr(at, '\n') + 1;
    }
    int want = 0;
    for (int k = 0; k < n; k++)
        want += all || t[k].fail + t[k].other > 0;
    cr_expect_eq(rows, want, "%d rows, expected %d:\n%s", rows, want, out);
    return rows;
}

Test(verdict_run, the_table_by_tag_lists_the_failing_tags_and_all_with_tags, .timeout = 600)
{
    make_smoke();
    /* Without --quiet: a quiet run prints the table only with --tags. */
    char *out = run_fault_as("dilation_ignored", "tags", "dt=f32", "", 1);
    char *all = run_fault("dilation_ignored", "tags_all", "dt=f32", "--tags");
    iohw_report rep;
    read_report("tags", &rep);
    tag_count t[512];
    const int n = count_report_tags(&rep.results, t, 512);
    int passing = 0;
    for (int k = 0; k < n; k++)
        passing += t[k].fail + t[k].other == 0;
    cr_assert_gt(passing, 0, "every tag has a case not PASS");
    cr_assert_lt(passing, n, "no tag has a case not PASS");
    const int shown = expect_tag_table(out, t, n, 0);
    cr_expect_eq(expect_tag_table(all, t, n, 1), n);
    cr_expect_eq(shown, n - passing);
    iohw_report_free(&rep);
    free(all);
    free(out);
}
