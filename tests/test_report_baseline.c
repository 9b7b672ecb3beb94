/*
 * tests/test_report_baseline.c - the baseline of known failures: parsing,
 * waiving, stale entries, a baseline made from a report, and entries with
 * conditions on the machine.
 */
#include "test_reports_fixture.h"

/* --- baseline ------------------------------------------------------------- */

static const char baseline_text[] =
    "# known failures of naive 1.0\n"
    "\n"
    "ct2d.basic.0002   io swap in the 2-D kernel, ticket 12  \n"
    "  ct2d.grouped.*\tgrouped path unfinished # not a comment\n"
    "nothing.matches   fixed long ago\n"
    "ct3d.f16.0002     unsupported cases are not failures\n";

static void parse_known(iohw_baseline *b)
{
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_parse(baseline_text, "known.txt", b, &err), 0, "%s", err.msg);
}

/* Parses the baseline and applies it to r (the sample run). */
static int64_t apply_known(iohw_baseline *b, iohw_run_results *r)
{
    parse_known(b);
    *r = sample();
    return iohw_baseline_apply(b, r);
}

Test(baseline, parses_the_pattern_reason_and_line_of_each_entry)
{
    iohw_baseline b;
    parse_known(&b);
    cr_assert_eq(b.count, 4);
    cr_expect_str_eq(b.entries[0].pattern, "ct2d.basic.0002");
    cr_expect_str_eq(b.entries[0].reason, "io swap in the 2-D kernel, ticket 12");
    cr_expect_eq(b.entries[0].line, 3);
    cr_expect_str_eq(b.entries[1].reason, "grouped path unfinished # not a comment");
    iohw_baseline_free(&b);
}

/* FAIL 0002 and ERROR/CRASH of ct2d.grouped.*: three waived. */
Test(baseline, waives_the_failures_its_patterns_match)
{
    iohw_baseline b;
    iohw_run_results r;
    cr_expect_eq(apply_known(&b, &r), 3);
    cr_expect_eq(r.items[1].status, IOHW_RESULT_WAIVED);
    const char *want = "waived: io swap in the 2-D kernel, ticket 12 (was FAIL: bad <tag>";
    cr_expect_eq(strncmp(r.items[1].message, want, strlen(want)), 0, "%s",
                 r.items[1].message);
    cr_expect_eq(r.items[2].status, IOHW_RESULT_WAIVED);
    cr_expect_eq(r.items[3].status, IOHW_RESULT_WAIVED);
    cr_expect_eq(r.items[0].status, IOHW_RESULT_PASS);
    cr_expect_eq(r.items[4].status, IOHW_RESULT_TIMEOUT);
    cr_expect_eq(r.items[6].status, IOHW_RESULT_UNSUPPORTED);
    cr_expect_eq(b.entries[0].matched, 1);
    cr_expect_eq(b.entries[1].matched, 2);
    iohw_baseline_free(&b);
}

Test(baseline, names_each_stale_entry_with_its_file_and_line)
{
    iohw_baseline b;
    iohw_run_results r;
    cr_assert_eq(apply_known(&b, &r), 3);
    cr_expect_eq(iohw_baseline_stale_count(&b), 2);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    iohw_baseline_print_stale(&b, f);
    fclose(f);
    cr_expect_not_null(strstr(out, "known.txt:5: 'nothing.matches' matches no failing case"));
    cr_expect_not_null(strstr(out, "known.txt:6: 'ct3d.f16.0002'"));
    free(out);
    iohw_baseline_free(&b);
}

Test(baseline, its_stale_entries_are_listed_in_the_json_report)
{
    iohw_baseline b;
    iohw_run_results r;
    cr_assert_eq(apply_known(&b, &r), 3);
    iohw_report_options o = {0};
    o.baseline = &b;
    char *json = render(iohw_report_json, &r, &o);
    cr_expect_not_null(strstr(json, "\"stale\": [\"nothing.matches\", \"ct3d.f16.0002\"]"),
                       "%s", json);
    free(json);
    iohw_baseline_free(&b);
}

Test(baseline, matches_a_whole_file_entry_by_its_file)
{
    iohw_run_results r = sample();
    iohw_baseline b;
    r.items[5].case_id = iohw_text_keep("");
    cr_assert_eq(iohw_baseline_parse("suite/broken-*.h5 a file we cannot read\n", "b",
                                     &b, NULL), 0);
    cr_expect_eq(iohw_baseline_apply(&b, &r), 1);
    cr_expect_eq(r.items[5].status, IOHW_RESULT_WAIVED);
    iohw_baseline_free(&b);
}

Test(baseline, rejects_entries_without_a_reason_naming_the_line)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_baseline_parse("# x\nct2d.basic.0002   \n", "bl.txt", &b, &err), -1);
    cr_expect_not_null(strstr(err.msg, "bl.txt:2:"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "no reason"), "%s", err.msg);
    cr_expect_eq(iohw_baseline_parse("a why\x01\n", "bl.txt", &b, &err), -1);
    cr_expect_eq(iohw_baseline_load("/nonexistent/baseline.txt", &b, &err), -1);
    cr_expect_not_null(strstr(err.msg, "/nonexistent/baseline.txt"), "%s", err.msg);
    cr_expect_eq(iohw_baseline_parse("", "empty", &b, &err), 0);
    cr_expect_eq(b.count, 0);
    iohw_baseline_free(&b);
}

Test(baseline, loads_a_file_and_refuses_nul_bytes)
{
    char path[512];
    tmp_path(path, sizeof path, "baseline.txt");
    FILE *f = fopen(path, "w");
    fputs("# comment\r\nct2d.basic.*   windows line ends\r\n", f);
    fclose(f);
    iohw_baseline b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_load(path, &b, &err), 0, "%s", err.msg);
    cr_assert_eq(b.count, 1);
    cr_expect_str_eq(b.entries[0].reason, "windows line ends");
    cr_expect_str_eq(b.path, path);
    iohw_baseline_free(&b);
    f = fopen(path, "w");
    fwrite("a reason\0b why\n", 1, 15, f);
    fclose(f);
    cr_expect_eq(iohw_baseline_load(path, &b, &err), -1);
    cr_expect_not_null(strstr(err.msg, "NUL"), "%s", err.msg);
    remove(path);
}

/* The baseline made from a JSON report of the sample run r. */
static void baseline_of_sample(iohw_run_results *r, iohw_baseline *b)
{
    *r = sample();
    char *json = render(iohw_report_json, r, NULL);
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_parse(json, strlen(json), "old.json", &rep, NULL), 0);
    cr_assert_eq(iohw_baseline_from_report(&rep, "dir/old.json", b, &err), 0, "%s", err.msg);
    iohw_report_free(&rep);
    free(json);
}

/* Writes b with the baseline writer and parses the text back into back. */
static void write_and_parse(const iohw_baseline *b, const char *name, iohw_baseline *back)
{
    iohw_error err = {{0}};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cr_assert_eq(iohw_baseline_write(f, b), 0);
    fclose(f);
    cr_assert_eq(iohw_baseline_parse(text, name, back, &err), 0, "%s\n%s", err.msg, text);
    free(text);
}

/* The five bad results: FAIL, ERROR, CRASH, TIMEOUT, INVALID. */
Test(baseline, made_from_a_report_has_an_entry_for_each_bad_result)
{
    iohw_run_results r;
    iohw_baseline b;
    baseline_of_sample(&r, &b);
    cr_assert_eq(b.count, 5);
    cr_expect_str_eq(b.entries[0].pattern, "ct2d.basic.0002");
    cr_expect_str_eq(b.entries[3].pattern, "ct3d.f16.0001");
    cr_expect_str_eq(b.entries[4].pattern, "lonely");
    cr_expect_eq(strncmp(b.entries[0].reason, "FAIL in old.json: bad <tag>", 27), 0, "%s",
                 b.entries[0].reason);
    cr_expect_null(strpbrk(b.entries[0].reason, "\x01\x1b\n"));
    iohw_baseline_free(&b);
}

/* Written and parsed back, it is the same baseline; applied to the same
 * run it waives all five and nothing is stale. */
Test(baseline, made_from_a_report_and_written_it_waives_exactly_those_failures)
{
    iohw_run_results r;
    iohw_baseline b, back;
    baseline_of_sample(&r, &b);
    cr_assert_eq(b.count, 5);
    write_and_parse(&b, "back", &back);
    cr_assert_eq(back.count, 5);
    for (int k = 0; k < 5; k++) {
        cr_expect_str_eq(back.entries[k].pattern, b.entries[k].pattern);
        cr_expect_str_eq(back.entries[k].reason, b.entries[k].reason);
    }
    cr_expect_eq(iohw_baseline_apply(&back, &r), 5);
    cr_expect_eq(iohw_baseline_stale_count(&back), 0);
    iohw_baseline_free(&back);
    iohw_baseline_free(&b);
}

/* --- baseline entries with conditions -------------------------------------- */

static const char CONDITIONED[] =
    "ct1d.basic.0001  cpu=avx512_bf16 version~2.6.  flushes subnormals\n"
    "ct1d.basic.0001  cpu=amx_bf16  AMX only\n"
    "ct1d.basic.0001  cpu!=avx2  only without AVX2\n"
    "ct1d.basic.0001  version~3.  a later release\n"
    "ct1d.basic.0002  stale everywhere\n";

/* Parses CONDITIONED, applies it to the sample run on a machine with these
 * features and returns how many results it waived; *stale gets the stale
 * count and *which the entry that waived (-1 for none). */
static int64_t apply_on(const char *features, int *stale, int *which)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r = machine_sample();
    snprintf(r.machine.features, sizeof r.machine.features, "%s", features);
    cr_assert_eq(iohw_baseline_parse(CONDITIONED, "cond.txt", &b, &err), 0, "%s", err.msg);
    int64_t waived = iohw_baseline_apply(&b, &r);
    *stale = iohw_baseline_stale_count(&b);
    *which = -1;
    for (int k = 0; k < b.count; k++)
        if (b.entries[k].matched > 0)
            *which = k;
    iohw_baseline_free(&b);
    return waived;
}

Test(baseline_conditions, parse_into_the_entry_not_the_reason)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_parse(CONDITIONED, "cond.txt", &b, &err), 0, "%s", err.msg);
    cr_assert_eq(b.count, 5);
    cr_expect_str_eq(b.entries[0].condition, "cpu=avx512_bf16 version~2.6.");
    cr_expect_str_eq(b.entries[0].reason, "flushes subnormals");
    cr_expect_str_eq(b.entries[2].condition, "cpu!=avx2");
    cr_expect_str_eq(b.entries[4].condition, "");
    iohw_baseline_free(&b);
}

Test(baseline_conditions, apply_only_where_they_hold_and_are_never_stale_elsewhere)
{
    int stale, which;
    /* AVX-512-BF16 and oneDNN 2.6: the first entry waives; the AMX, no-AVX2
     * and version-3 entries do not hold, so they are not stale either:
     * only the unconditioned entry for a passing case is. */
    cr_expect_eq(apply_on("avx2 avx512f avx512_bf16", &stale, &which), 1);
    cr_expect_eq(which, 0);
    cr_expect_eq(stale, 1);
    /* AMX without AVX-512-BF16: the AMX entry (second) holds, the first
     * does not. */
    cr_expect_eq(apply_on("avx2 amx_bf16", &stale, &which), 1);
    cr_expect_eq(which, 1);
    cr_expect_eq(stale, 1);
    /* An AVX2-only machine: nothing applies, nothing conditioned is stale. */
    cr_expect_eq(apply_on("fma f16c avx2", &stale, &which), 0);
    cr_expect_eq(which, -1);
    cr_expect_eq(stale, 1);
    /* No AVX2: the cpu!= entry holds. */
    cr_expect_eq(apply_on("", &stale, &which), 1);
    cr_expect_eq(which, 2);
}

Test(baseline_conditions, an_entry_that_holds_and_waives_nothing_is_stale)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r = machine_sample();
    r.items[0].status = IOHW_RESULT_PASS;
    cr_assert_eq(iohw_baseline_parse("ct1d.basic.0001 cpu=avx2 fixed now\n", "s.txt", &b,
                                     &err), 0, "%s", err.msg);
    iohw_baseline_apply(&b, &r);
    cr_expect_eq(iohw_baseline_stale_count(&b), 1);
    cr_expect(iohw_baseline_entry_stale(&b.entries[0]));
    iohw_baseline_free(&b);
}

Test(baseline_conditions, reject_unknown_features_and_empty_values_naming_the_line)
{
    static const char *const BAD[] = {
        "x cpu=avx512 why\n", "x cpu= why\n", "x version~ why\n", "x cpu!=sse9 why\n",
        "# c\nx cpu=avx2\n",
    };
    for (size_t i = 0; i < sizeof BAD / sizeof BAD[0]; i++) {
        iohw_baseline b;
        iohw_error err = {{0}};
        cr_expect_eq(iohw_baseline_parse(BAD[i], "bad.txt", &b, &err), -1, "%s", BAD[i]);
        cr_expect(strstr(err.msg, "bad.txt:") != NULL, "%s", err.msg);
    }
}

/* The conditioned baseline, applied to the machine's sample run r. */
static void apply_conditioned(iohw_baseline *b, iohw_run_results *r)
{
    iohw_error err = {{0}};
    *r = machine_sample();
    cr_assert_eq(iohw_baseline_parse(CONDITIONED, "cond.txt", b, &err), 0, "%s", err.msg);
    iohw_baseline_apply(b, r);
}

Test(baseline_conditions, survive_a_json_report)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r;
    apply_conditioned(&b, &r);
    iohw_report_options o;
    memset(&o, 0, sizeof o);
    o.baseline = &b;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(iohw_report_json(f, &r, &o), 0);
    fclose(f);
    iohw_report rep;
    cr_assert_eq(iohw_report_parse(buf, len, "j", &rep, &err), 0, "%s", err.msg);
    const iohw_baseline *back = rep.options.baseline;
    cr_assert_not_null(back);
    cr_assert_eq(back->count, 5);
    cr_expect_str_eq(back->entries[0].condition, "cpu=avx512_bf16 version~2.6.");
    cr_expect_eq(back->entries[1].inapplicable, 1);
    cr_expect_eq(iohw_baseline_stale_count(back), 1);
    iohw_report_free(&rep);
    free(buf);
    iohw_baseline_free(&b);
}

/* The writer puts the conditions back between pattern and reason. */
Test(baseline_conditions, survive_the_baseline_writer)
{
    iohw_baseline b, again;
    iohw_run_results r;
    apply_conditioned(&b, &r);
    write_and_parse(&b, "again", &again);
    cr_expect_str_eq(again.entries[0].condition, b.entries[0].condition);
    cr_expect_str_eq(again.entries[0].reason, b.entries[0].reason);
    iohw_baseline_free(&again);
    iohw_baseline_free(&b);
}
