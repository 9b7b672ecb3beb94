/*
 * tests/test_run_rounding.c - a declared rounding (`iohw run --rounding
 * MODE`, specification section 11.6).  A backend that rounds half away
 * from zero, run on half_even cases whose ties it meets: with --rounding
 * half_away each such case is a PASS with the note saying how many
 * elements differ at ties (never a plain PASS, never a FAIL), shown in the
 * summary and in every report, and its repro carries --rounding; without
 * the option the same outputs FAIL, named by the rounding diagnosis; a
 * backend that also errs at one element where no tie is stays FAIL.  The
 * JSON summary counts the noted passes, the HTML shows them, a merge of
 * shards adds their counts, and a report without the count still reads.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/console.h"
#include "harness/run.h"
#include "reports/reports.h"
#include "support/case_folder.h"
#include "support/run_options.h"
#include "support/shell.h"

/* half_even cases with ties (the qties fill), and one half_away case the
 * backend computes exactly. */
static const char *const specs[] = {
    "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 dt=s8 wdt=s8 ydt=u8 round=half_even fill=qties seed=5",
    "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 dt=u8 wdt=u8 ydt=s8 round=half_even m=fixed "
    "fill=qties seed=6",
    "ci=2 co=3 in=7 k=2 d=2 op=1 dt=s8 wdt=u8 ydt=s8 round=half_even pc=1 xl=NWC "
    "fill=qties seed=7",
    "n=2 ci=2 co=4 in=6 k=3 s=2 dt=s8 round=half_away fill=qties seed=8",
};
#define NSPECS (int)(sizeof specs / sizeof specs[0])
#define NEVEN (NSPECS - 1)

static void make_suite(iohw_test_folder *s, const char *name)
{
    char dir[400];
    snprintf(dir, sizeof dir, "%s/rounding-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    iohw_test_folder_make(s, dir, specs, NSPECS, NULL);
}

static void backend_path(const char *backend, char *path, size_t n)
{
    snprintf(path, n, "%s/libiohw_quant_off_by_one_%s.so", IOHW_BACKEND_DIR, backend);
}

static void run_with(const iohw_test_folder *s, const char *backend, int32_t rounding,
                     iohw_run_results *res)
{
    char path[512];
    iohw_error err = {{0}};
    backend_path(backend, path, sizeof path);
    iohw_run_options o = iohw_test_run_options(path, s->inputs);
    o.rounding = rounding;
    cr_assert_eq(iohw_run(&o, res, &err), 0, "%s", err.msg);
    cr_assert_eq(res->count, NSPECS);
}

/* The text a writer (a report, or the summary) gives for res. */
static char *text_of(const iohw_run_results *res, int which)
{
    static int (*const writer[])(FILE *, const iohw_run_results *,
                                 const iohw_report_options *) = {
        NULL, iohw_report_junit, iohw_report_markdown, iohw_report_json, iohw_report_html};
    char *text = NULL;
    size_t len = 0;
    iohw_report_options o;
    memset(&o, 0, sizeof o);
    FILE *f = open_memstream(&text, &len);
    if (which == 0)
        iohw_run_summary(res, f);
    else
        cr_assert_eq(writer[which](f, res, &o), 0);
    fclose(f);
    return text;
}

Test(run_rounding, a_declared_rounding_passes_tie_differences_with_a_note_in_every_report)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, "declared");
    run_with(&s, "half_away", IOHW_ROUND_HALF_AWAY, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        if (strcmp(r->case_id, "q.3") == 0) { /* asks half_away: a plain PASS */
            cr_expect_str_empty(r->message, "%s", r->message);
            cr_expect_eq(iohw_result_rounded(r), 0);
            continue;
        }
        /* The ties the backend rounds its own way: counted, never hidden. */
        cr_expect_gt(r->mismatches, 0, "%s meets no tie", r->case_id);
        cr_expect_lt(r->mismatches, r->elements, "%s", r->case_id);
        cr_expect_eq(iohw_result_rounded(r), 1, "%s: %s", r->case_id, r->message);
        char note[160];
        snprintf(note, sizeof note, "rounding declared (half_away; the case asks half_even): "
                 "%lld of %lld output elements differ", (long long)r->mismatches,
                 (long long)r->elements);
        cr_expect(strncmp(r->message, note, strlen(note)) == 0, "%s: %s", r->case_id,
                  r->message);
        for (int k = 0; k < r->npoints; k++)
            cr_expect(r->points[k].got - r->points[k].expected == 1.0 ||
                      r->points[k].expected - r->points[k].got == 1.0,
                      "%s: expected %g, got %g", r->case_id, r->points[k].expected,
                      r->points[k].got);
    }
    cr_expect_eq(iohw_run_exit_code(&res), 0);

    char *summary = text_of(&res, 0), *junit = text_of(&res, 1), *md = text_of(&res, 2),
         *json = text_of(&res, 3);
    char line[128];
    snprintf(line, sizeof line, "PASS with a note: %d case(s) with rounding declared", NEVEN);
    cr_expect_not_null(strstr(summary, line), "%s", summary);
    cr_expect_not_null(strstr(junit, "<system-out>PASS: rounding declared (half_away"), "%s",
                       junit);
    cr_expect_null(strstr(junit, "<failure"), "%s", junit);
    snprintf(line, sizeof line, "%d PASS with a note: rounding declared", NEVEN);
    cr_expect_not_null(strstr(md, line), "%s", md);
    cr_expect_not_null(strstr(json, "\"rounding declared (half_away; the case asks "
                                    "half_even): "), "%s", json);
    snprintf(line, sizeof line, "\"passed_with_note\": %d, \"exit_code\": 0}", NEVEN);
    cr_expect_not_null(strstr(json, line), "%s", json);
    /* The HTML summary: the console's line, then the first case's note. */
    char *html = text_of(&res, 4);
    snprintf(line, sizeof line, "PASS with a note: %d case(s) with rounding declared "
             "(--rounding) (first: q.0)<br>", NEVEN);
    const char *at = strstr(html, line);
    cr_expect_not_null(at, "%s", html);
    cr_expect_not_null(at != NULL ? strstr(at, "rounding declared (half_away; the case asks "
                                               "half_even): ") : NULL, "%s", html);
    free(summary), free(junit), free(md), free(json), free(html);
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_rounding, without_the_declaration_the_same_outputs_fail_named_by_the_rounding)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, "undeclared");
    run_with(&s, "half_away", 0, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (strcmp(r->case_id, "q.3") == 0) {
            cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s", r->message);
            continue;
        }
        cr_expect_eq(r->status, IOHW_RESULT_FAIL, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        /* or, where another mode (or zp_y before rounding) gives the same
         * output, the common name of the two (specification section 11.5) */
        cr_expect(strstr(r->diagnosis, "ties rounded half away from zero where "
                                       "half_even was asked") != NULL ||
                      strstr(r->diagnosis, "ties rounded in another mode where "
                                           "half_even was asked") != NULL,
                  "%s: '%s'", r->case_id, r->diagnosis);
        cr_expect_eq(iohw_result_rounded(r), 0, "%s", r->message);
    }
    cr_expect_eq(iohw_run_exit_code(&res), 1);
    char *json = text_of(&res, 3), *html = text_of(&res, 4);
    cr_expect_not_null(strstr(json, "\"passed_with_note\": 0,"), "%s", json);
    cr_expect_null(strstr(html, "PASS with a note"), "%s", html);
    free(json), free(html);
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_rounding, an_error_at_no_tie_fails_under_a_declared_rounding)
{
    iohw_test_folder s;
    iohw_run_results res;
    make_suite(&s, "nontie");
    run_with(&s, "half_away_non_tie", IOHW_ROUND_HALF_AWAY, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_FAIL, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        cr_expect_eq(iohw_result_rounded(r), 0, "%s", r->message);
        cr_expect_not_null(strstr(r->message, "differ from the exact quantized result"), "%s",
                           r->message);
    }
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_rounding, the_command_line_takes_the_mode_and_the_repro_carries_it)
{
    iohw_test_folder s;
    char path[512], *out = NULL;
    make_suite(&s, "cli");
    backend_path("half_away_non_tie", path, sizeof path);
    const int rc = iohw_test_sh(&out, "'%s' run --backend '%s' '%s' --jobs 1 --quiet "
                                "--rounding half_away 2>&1", IOHW_BIN, path, s.dir);
    cr_expect_eq(rc, 1, "%s", out);
    cr_expect_not_null(strstr(out, "--filter 'id=q.0' --rounding half_away"), "%s", out);
    free(out);
    out = NULL;
    cr_expect_eq(iohw_test_sh(&out, "'%s' run --backend '%s' '%s' --rounding half_down 2>&1",
                              IOHW_BIN, path, s.dir), 2, "%s", out);
    cr_expect_not_null(strstr(out, "--rounding 'half_down'"), "%s", out);
    free(out);
    out = NULL;
    cr_expect_eq(iohw_test_sh(&out, "'%s' help run 2>&1", IOHW_BIN), 0);
    cr_expect_not_null(strstr(out, "--rounding MODE"), "%s", out);
    free(out);
    iohw_test_folder_remove(&s);
}

/* The JSON report of results items[from, to) read back. */
static void read_part(const iohw_run_results *res, int64_t from, int64_t to, iohw_report *rep)
{
    iohw_run_results part = *res;
    iohw_error err = {{0}};
    part.items = res->items + from;
    part.count = to - from;
    part.wall = NULL;
    char *json = text_of(&part, 3);
    cr_assert_eq(iohw_report_parse(json, strlen(json), "part", rep, &err), 0, "%s", err.msg);
    free(json);
}

Test(run_rounding, a_merge_adds_the_noted_passes_of_its_shards_and_a_diff_fails_none)
{
    iohw_test_folder s;
    iohw_run_results res;
    iohw_report a, b, all;
    iohw_error err = {{0}};
    make_suite(&s, "merge");
    run_with(&s, "half_away", IOHW_ROUND_HALF_AWAY, &res);
    cr_assert_str_eq(res.items[NSPECS - 1].case_id, "q.3"); /* the plain PASS */
    read_part(&res, 0, 2, &a);
    read_part(&res, 2, NSPECS, &b);
    char *ja = text_of(&a.results, 3), *jb = text_of(&b.results, 3);
    cr_expect_not_null(strstr(ja, "\"passed_with_note\": 2,"), "%s", ja);
    cr_expect_not_null(strstr(jb, "\"passed_with_note\": 1,"), "%s", jb);
    const iohw_report *const in[2] = {&a, &b};
    cr_assert_eq(iohw_report_merge(in, 2, &all, NULL, &err), 0, "%s", err.msg);
    char *merged = text_of(&all.results, 3);
    cr_expect_not_null(strstr(merged, "\"passed_with_note\": 3,"), "%s", merged);

    /* Old runs where these cases passed plainly, and where they failed. */
    iohw_run_results old = res;
    old.items = calloc((size_t)res.count, sizeof *old.items);
    cr_assert_not_null(old.items);
    old.wall = NULL;
    for (int pass = 0; pass < 2; pass++) {
        for (int64_t i = 0; i < res.count; i++) {
            old.items[i] = res.items[i];
            if (iohw_result_rounded(&res.items[i]) && pass == 0)
                old.items[i].message = "";
            else if (iohw_result_rounded(&res.items[i]))
                old.items[i].status = IOHW_RESULT_FAIL;
        }
        iohw_report was;
        iohw_diff_counts d;
        char *out = NULL;
        size_t len = 0;
        read_part(&old, 0, old.count, &was);
        FILE *f = open_memstream(&out, &len);
        iohw_report_diff(&was, &all, 0, 0, f, &d);
        fclose(f);
        cr_expect_eq(d.new_failures, 0, "%s", out);
        cr_expect_eq(d.fixed, pass == 0 ? 0 : NEVEN, "%s", out);
        if (pass == 1) /* a fix under a declared rounding says so */
            cr_expect_not_null(strstr(out, "(was FAIL)  rounding declared (half_away"), "%s",
                               out);
        free(out);
        iohw_report_free(&was);
    }
    free(old.items);
    free(ja), free(jb), free(merged);
    iohw_report_free(&a), iohw_report_free(&b), iohw_report_free(&all);
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

Test(run_rounding, a_report_written_before_the_count_reads_and_is_counted_again)
{
    iohw_test_folder s;
    iohw_run_results res;
    iohw_report rep;
    iohw_error err = {{0}};
    make_suite(&s, "old");
    run_with(&s, "half_away", IOHW_ROUND_HALF_AWAY, &res);
    char *json = text_of(&res, 3);
    char member[64];
    snprintf(member, sizeof member, "\"passed_with_note\": %d, ", NEVEN);
    char *at = strstr(json, member);
    cr_assert_not_null(at, "%s", json);
    memmove(at, at + strlen(member), strlen(at + strlen(member)) + 1);
    cr_assert_null(strstr(json, "passed_with_note"));
    cr_assert_eq(iohw_report_parse(json, strlen(json), "old.json", &rep, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(rep.results.count, NSPECS);
    char *again = text_of(&rep.results, 3);
    cr_expect_not_null(strstr(again, member), "%s", again);
    free(json), free(again);
    iohw_report_free(&rep);
    iohw_run_results_free(&res);
    iohw_test_folder_remove(&s);
}

/* The summary's passed_with_note of a JSON report file; -1 without it. */
static long noted_in(const char *path)
{
    char *text = NULL;
    cr_assert_eq(iohw_test_sh(&text, "cat '%s'", path), 0, "%s", path);
    const char *at = strstr(text, "\"passed_with_note\": ");
    long n = at != NULL ? strtol(at + strlen("\"passed_with_note\": "), NULL, 10) : -1;
    free(text);
    return n;
}

Test(run_rounding, report_merge_of_two_shards_adds_their_noted_passes)
{
    iohw_test_folder s;
    char path[512], json[2][600], all[600], *out = NULL;
    make_suite(&s, "shards");
    backend_path("half_away", path, sizeof path);
    long sum = 0;
    for (int k = 0; k < 2; k++) {
        snprintf(json[k], sizeof json[k], "%s/shard%d.json", s.dir, k + 1);
        cr_expect_eq(iohw_test_sh(&out, "'%s' run --backend '%s' '%s' --quiet --rounding "
                                  "half_away --shard %d/2 --json '%s' 2>&1", IOHW_BIN, path,
                                  s.dir, k + 1, json[k]), 0, "%s", out);
        free(out);
        out = NULL;
        const long n = noted_in(json[k]);
        cr_expect(n >= 0 && n <= NEVEN, "shard %d: %ld", k + 1, n);
        sum += n;
    }
    cr_expect_eq(sum, NEVEN);
    snprintf(all, sizeof all, "%s/all.json", s.dir);
    cr_expect_eq(iohw_test_sh(&out, "'%s' report merge '%s' '%s' -o '%s' 2>&1", IOHW_BIN,
                              json[0], json[1], all), 0, "%s", out);
    free(out);
    cr_expect_eq(noted_in(all), NEVEN);
    iohw_test_folder_remove(&s);
}
