/*
 * tests/test_report_merge.c - merging JSON reports of shards, diffing two
 * runs, and `iohw report merge|diff` as a user runs them.
 *
 * The run: 20 results built by hand, ids ct2d.m.0000 .. ct2d.m.0019 in two
 * files; result i is FAIL when i % 5 == 1, CRASH when i % 7 == 3, otherwise
 * PASS, with worst ratio i / 4.  So the bad ones are 1, 3, 6, 10, 11, 16,
 * 17 (FAIL: 1, 6, 11, 16; CRASH: 3, 10, 17): 7 bad, 13 passing.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/filter.h"
#include "reports/reports.h"

#define NCASES 20
#define DESC "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 " \
             "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7"

static iohw_result all[NCASES];

static void build(void)
{
    for (int i = 0; i < NCASES; i++) {
        iohw_result *r = &all[i];
        iohw_result_init(r);
        r->case_id = iohw_text_fmt("ct2d.m.%04d", i);
        r->file = iohw_text_fmt("/suite/%s.h5", i < 12 ? "a" : "b");
        r->descriptor = iohw_text_keep(DESC);
        r->status = i % 5 == 1 ? IOHW_RESULT_FAIL
                  : i % 7 == 3 ? IOHW_RESULT_CRASH : IOHW_RESULT_PASS;
        r->message = iohw_text_fmt("message of %d", i);
        r->elements = 100 + i;
        r->mismatches = r->status == IOHW_RESULT_FAIL ? i : 0;
        r->worst_ratio = i / 4.0;
        r->seconds = 0.01 * i;
        r->npoints = i % 3;
        for (int k = 0; k < r->npoints; k++)
            r->points[k] = (iohw_point){i + k, {0, k, 0, i, k}, 1.0 * i, 2.0 * k, 0.5};
    }
}

/* Results whose index satisfies keep(i), into a run. */
static iohw_run_results subset(iohw_result *buf, int (*keep)(int), const char *version)
{
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    r.items = buf;
    for (int i = 0; i < NCASES; i++)
        if (keep(i))
            buf[r.count++] = all[i];
    r.backend_name = "naive";
    r.backend_version = (char *)version;
    r.seconds = 1.5;
    return r;
}

static int every(int i) { (void)i; return 1; }
static int shard1(int i) { return iohw_shard_match(all[i].case_id, 1, 2); }
static int shard2(int i) { return iohw_shard_match(all[i].case_id, 2, 2); }

static void path_of(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/merge-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
}

/* Writes r as JSON to the file `name` and reads it back into rep. */
static void through_json(const iohw_run_results *r, const iohw_report_options *o,
                         const char *name, char *path, size_t n, iohw_report *rep)
{
    iohw_report_options w = o != NULL ? *o : (iohw_report_options){0};
    iohw_error err = {{0}};
    path_of(path, n, name);
    w.json = path;
    cr_assert_eq(iohw_reports_write(r, &w, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_report_read(path, rep, &err), 0, "%s", err.msg);
}

static void expect_same_results(const iohw_run_results *a, const iohw_run_results *b)
{
    cr_assert_eq(a->count, b->count);
    for (int64_t i = 0; i < a->count; i++) {
        const iohw_result *x = &a->items[i], *y = &b->items[i];
        cr_expect_str_eq(x->case_id, y->case_id);
        cr_expect_str_eq(x->file, y->file);
        cr_expect_eq(x->status, y->status, "%s", x->case_id);
        cr_expect_str_eq(x->message, y->message);
        cr_expect_eq(x->elements, y->elements);
        cr_expect_eq(x->mismatches, y->mismatches);
        cr_expect_eq(x->worst_ratio, y->worst_ratio);
        cr_expect_eq(x->seconds, y->seconds);
        cr_expect_eq(x->npoints, y->npoints);
        cr_expect_eq(memcmp(x->points, y->points, sizeof x->points), 0, "%s", x->case_id);
    }
}

Test(merge, of_two_shards_equals_the_unsharded_run)
{
    static iohw_result b0[NCASES], b1[NCASES], b2[NCASES];
    char p0[512], p1[512], p2[512];
    build();
    iohw_run_results whole = subset(b0, every, "1.0");
    iohw_run_results s1 = subset(b1, shard1, "1.0");
    iohw_run_results s2 = subset(b2, shard2, "1.0");
    /* The shards partition the run, and neither is empty. */
    cr_assert_eq(s1.count + s2.count, NCASES);
    cr_assert(s1.count > 0 && s2.count > 0);

    iohw_report rw, r1, r2, merged;
    through_json(&whole, NULL, "whole.json", p0, sizeof p0, &rw);
    through_json(&s1, NULL, "s1.json", p1, sizeof p1, &r1);
    through_json(&s2, NULL, "s2.json", p2, sizeof p2, &r2);
    /* Either order gives the same merge: sorted by file, then id. */
    const iohw_report *in[2] = {&r2, &r1};
    int64_t replaced = -1;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_merge(in, 2, &merged, &replaced, &err), 0, "%s", err.msg);
    cr_expect_eq(replaced, 0);
    expect_same_results(&rw.results, &merged.results);
    cr_expect_eq(merged.results.seconds, 3.0);  /* 1.5 + 1.5 */
    cr_expect_str_eq(merged.results.backend_name, "naive");
    iohw_report_free(&merged);

    in[0] = &r1, in[1] = &r2;
    cr_assert_eq(iohw_report_merge(in, 2, &merged, NULL, &err), 0, "%s", err.msg);
    expect_same_results(&rw.results, &merged.results);
    iohw_report_free(&merged);
    iohw_report_free(&rw);
    iohw_report_free(&r1);
    iohw_report_free(&r2);
    remove(p0), remove(p1), remove(p2);
}

Test(merge, keeps_the_last_report_for_a_case_given_twice)
{
    static iohw_result b0[NCASES], b1[NCASES];
    char p0[512], p1[512];
    build();
    iohw_run_results whole = subset(b0, every, "1.0");
    iohw_run_results rerun = subset(b1, every, "1.0");
    rerun.count = 2;
    rerun.items[1].status = IOHW_RESULT_PASS;  /* ct2d.m.0001 fixed on re-run */
    iohw_report rw, rr, merged;
    through_json(&whole, NULL, "twice-a.json", p0, sizeof p0, &rw);
    through_json(&rerun, NULL, "twice-b.json", p1, sizeof p1, &rr);
    const iohw_report *in[2] = {&rw, &rr};
    int64_t replaced = 0;
    cr_assert_eq(iohw_report_merge(in, 2, &merged, &replaced, NULL), 0);
    cr_expect_eq(replaced, 2);
    cr_expect_eq(merged.results.count, NCASES);
    cr_expect_eq(merged.results.items[1].status, IOHW_RESULT_PASS);
    iohw_report_free(&merged);
    iohw_report_free(&rw);
    iohw_report_free(&rr);
    remove(p0), remove(p1);
}

Test(merge, refuses_reports_of_different_backends)
{
    static iohw_result b0[NCASES], b1[NCASES];
    char p0[512], p1[512];
    build();
    iohw_run_results a = subset(b0, shard1, "1.0");
    iohw_run_results b = subset(b1, shard2, "2.0");
    iohw_report ra, rb, merged;
    through_json(&a, NULL, "v1.json", p0, sizeof p0, &ra);
    through_json(&b, NULL, "v2.json", p1, sizeof p1, &rb);
    const iohw_report *in[2] = {&ra, &rb};
    iohw_error err = {{0}};
    cr_expect_eq(iohw_report_merge(in, 2, &merged, NULL, &err), -1);
    cr_expect_not_null(strstr(err.msg, "'naive' 2.0"), "%s", err.msg);
    iohw_report_free(&ra);
    iohw_report_free(&rb);
    remove(p0), remove(p1);
}

Test(merge, finds_an_entry_stale_only_when_no_shard_used_it)
{
    static iohw_result b1[NCASES], b2[NCASES];
    char p1[512], p2[512];
    build();
    iohw_run_results s1 = subset(b1, shard1, "1.0");
    iohw_run_results s2 = subset(b2, shard2, "1.0");
    /* ct2d.m.0001 (FAIL) sits in exactly one shard: the entry matches there
     * only; the other entry matches nowhere. */
    const char *text = "ct2d.m.0001 known\nno.such.case gone\n";
    iohw_baseline bl1, bl2;
    cr_assert_eq(iohw_baseline_parse(text, "bl.txt", &bl1, NULL), 0);
    cr_assert_eq(iohw_baseline_parse(text, "bl.txt", &bl2, NULL), 0);
    int64_t w1 = iohw_baseline_apply(&bl1, &s1), w2 = iohw_baseline_apply(&bl2, &s2);
    cr_expect_eq(w1 + w2, 1);
    cr_expect_eq(iohw_baseline_stale_count(w1 == 1 ? &bl2 : &bl1), 2);
    iohw_report_options o1 = {.baseline = &bl1, .start_time = 2000};
    iohw_report_options o2 = {.baseline = &bl2, .start_time = 1000};
    iohw_report r1, r2, merged;
    through_json(&s1, &o1, "bl-s1.json", p1, sizeof p1, &r1);
    through_json(&s2, &o2, "bl-s2.json", p2, sizeof p2, &r2);
    const iohw_report *in[2] = {&r1, &r2};
    cr_assert_eq(iohw_report_merge(in, 2, &merged, NULL, NULL), 0);
    cr_assert_not_null(merged.options.baseline);
    cr_assert_eq(merged.baseline.count, 2);
    cr_expect_eq(merged.baseline.entries[0].matched, 1);
    cr_expect_eq(iohw_baseline_stale_count(merged.options.baseline), 1);
    cr_expect_eq(merged.options.start_time, 1000);
    iohw_report_free(&merged);
    iohw_report_free(&r1);
    iohw_report_free(&r2);
    iohw_baseline_free(&bl1);
    iohw_baseline_free(&bl2);
    remove(p1), remove(p2);
}

Test(merge, unites_inputs_and_drops_options_that_differ)
{
    static iohw_result b1[NCASES], b2[NCASES];
    char p1[512], p2[512];
    build();
    iohw_run_results s1 = subset(b1, shard1, "1.0");
    iohw_run_results s2 = subset(b2, shard2, "1.0");
    static const char *const in1[] = {"suite", "extra.h5"};
    static const char *const in2[] = {"suite", "more.h5"};
    iohw_report_options o1 = {.inputs = in1, .ninputs = 2, .filter = "rank=2",
                              .shard_index = 1, .shard_count = 2, .jobs = 3,
                              .backend_path = "/lib/x.so"};
    iohw_report_options o2 = o1;
    o2.inputs = in2;
    o2.shard_index = 2;
    o2.filter = "rank=3";
    iohw_report r1, r2, merged;
    through_json(&s1, &o1, "in-s1.json", p1, sizeof p1, &r1);
    through_json(&s2, &o2, "in-s2.json", p2, sizeof p2, &r2);
    const iohw_report *in[2] = {&r1, &r2};
    cr_assert_eq(iohw_report_merge(in, 2, &merged, NULL, NULL), 0);
    cr_assert_eq(merged.options.ninputs, 3);
    cr_expect_str_eq(merged.options.inputs[0], "suite");
    cr_expect_str_eq(merged.options.inputs[1], "extra.h5");
    cr_expect_str_eq(merged.options.inputs[2], "more.h5");
    cr_expect_null(merged.options.filter);
    cr_expect_eq(merged.options.shard_count, 0);
    cr_expect_eq(merged.options.jobs, 3);
    cr_expect_str_eq(merged.options.backend_path, "/lib/x.so");
    cr_expect_null(merged.options.baseline);
    iohw_report_free(&merged);
    /* Nothing to merge is an error. */
    iohw_error err = {{0}};
    cr_expect_eq(iohw_report_merge(in, 0, &merged, NULL, &err), -1);
    cr_expect_not_null(strstr(err.msg, "no reports"));
    iohw_report_free(&r1);
    iohw_report_free(&r2);
    remove(p1), remove(p2);
}

/* --- diff ----------------------------------------------------------------- */

/* NEW against OLD: 0002 PASS -> ERROR (new failure), 0006 FAIL -> PASS
 * (fixed), 0008 ratio 2 -> 40 (x20), 0010 CRASH -> FAIL (still failing,
 * changed), 0019 removed, ct2d.m.0099 added as FAIL (new failure). */
static void make_new(iohw_result *buf, iohw_run_results *r)
{
    *r = subset(buf, every, "1.0");
    buf[2].status = IOHW_RESULT_ERROR;
    buf[6].status = IOHW_RESULT_PASS;
    buf[8].worst_ratio = 40;
    buf[10].status = IOHW_RESULT_FAIL;
    buf[19] = all[19];
    buf[19].case_id = iohw_text_fmt("ct2d.m.0099");
    buf[19].status = IOHW_RESULT_FAIL;
}

Test(diff, finds_new_failures_fixes_and_ratio_changes)
{
    static iohw_result b0[NCASES], b1[NCASES];
    char p0[512], p1[512];
    build();
    iohw_run_results old_run = subset(b0, every, "1.0"), new_run;
    make_new(b1, &new_run);
    iohw_report ro, rn;
    through_json(&old_run, NULL, "old.json", p0, sizeof p0, &ro);
    through_json(&new_run, NULL, "new.json", p1, sizeof p1, &rn);

    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    iohw_diff_counts c;
    iohw_report_diff(&ro, &rn, 4, 1, f, &c);
    fclose(f);
    /* Bad in both: 1, 3, 10, 11, 16, 17 (6 moved to PASS, 19 removed). */
    cr_expect_eq(c.new_failures, 2, "%s", out);
    cr_expect_eq(c.fixed, 1);
    cr_expect_eq(c.still_failing, 6);
    /* Ratios: 0008 2 -> 40; 0019 was not compared with anything. */
    cr_expect_eq(c.ratio_changed, 1);
    cr_expect_eq(c.added, 1);
    cr_expect_eq(c.removed, 1);
    cr_expect_not_null(strstr(out, "New failures:\n  ERROR     ct2d.m.0002"), "%s", out);
    cr_expect_not_null(strstr(out, "ct2d.m.0099  message of 19 (new case)"), "%s", out);
    cr_expect_not_null(strstr(out, "Fixed:\n  PASS      ct2d.m.0006  (was FAIL)"), "%s", out);
    cr_expect_not_null(strstr(out, "ct2d.m.0008  2 -> 40"), "%s", out);
    cr_expect_not_null(strstr(out, "ct2d.m.0010  CRASH -> FAIL"), "%s", out);
    free(out);
    iohw_report_free(&ro);
    iohw_report_free(&rn);
    remove(p0), remove(p1);
}

Test(diff, of_a_run_against_itself_finds_only_what_still_fails)
{
    static iohw_result b0[NCASES];
    char p0[512];
    build();
    iohw_run_results run = subset(b0, every, "1.0");
    iohw_report ro;
    through_json(&run, NULL, "self.json", p0, sizeof p0, &ro);
    iohw_diff_counts c;
    iohw_report_diff(&ro, &ro, 4, 1, NULL, &c);
    cr_expect_eq(c.new_failures + c.fixed + c.ratio_changed + c.added + c.removed, 0);
    cr_expect_eq(c.still_failing, 7);
    iohw_report_free(&ro);
    remove(p0);
}

/* --- the command ---------------------------------------------------------- */

static int run_iohw(char **out, const char *args)
{
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", IOHW_BIN, args);
    FILE *p = popen(cmd, "r");
    cr_assert_not_null(p);
    size_t cap = 1 << 16, n = 0;
    *out = malloc(cap);
    size_t k;
    while ((k = fread(*out + n, 1, cap - n - 1, p)) > 0)
        n += k;
    (*out)[n] = '\0';
    int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* The files of `iohw report merge` run on the two shards of the run. */
typedef struct merged_files {
    char s1[512], s2[512], json[512], xml[512], html[512], md[512], other[512];
} merged_files;

/* Writes the shards' reports and merges them with the command into every
 * format; returns what the command printed (the caller frees it). */
static char *merge_shards(merged_files *f)
{
    static iohw_result b1[NCASES], b2[NCASES];
    char args[4096], *out;
    build();
    iohw_run_results s1 = subset(b1, shard1, "1.0");
    iohw_run_results s2 = subset(b2, shard2, "1.0");
    iohw_report r1, r2;
    through_json(&s1, NULL, "cmd-s1.json", f->s1, sizeof f->s1, &r1);
    through_json(&s2, NULL, "cmd-s2.json", f->s2, sizeof f->s2, &r2);
    iohw_report_free(&r1);
    iohw_report_free(&r2);
    path_of(f->json, sizeof f->json, "cmd-all.json");
    path_of(f->xml, sizeof f->xml, "cmd-all.xml");
    path_of(f->html, sizeof f->html, "cmd-all.html");
    path_of(f->md, sizeof f->md, "cmd-all.md");
    path_of(f->other, sizeof f->other, "cmd-new.json");
    snprintf(args, sizeof args, "report merge '%s' '%s' -o '%s' --junit '%s' --html '%s' "
             "--markdown '%s'", f->s1, f->s2, f->json, f->xml, f->html, f->md);
    int rc = run_iohw(&out, args);
    cr_assert_eq(rc, 0, "%s", out);
    return out;
}

static void remove_merged(const merged_files *f)
{
    remove(f->s1), remove(f->s2), remove(f->json), remove(f->xml), remove(f->html),
        remove(f->md), remove(f->other);
}

/* Writes the new run (make_new, after build) to f->other. */
static void write_new_run(merged_files *f)
{
    static iohw_result b0[NCASES];
    iohw_run_results new_run;
    make_new(b0, &new_run);
    iohw_report rn;
    through_json(&new_run, NULL, "cmd-new.json", f->other, sizeof f->other, &rn);
    iohw_report_free(&rn);
}

Test(command, merge_writes_the_merged_shards_in_every_format)
{
    merged_files f;
    char *out = merge_shards(&f);
    cr_expect_not_null(strstr(out, "merged 2 reports: 20 cases"), "%s", out);
    free(out);
    cr_expect_eq(access(f.xml, R_OK), 0);
    cr_expect_eq(access(f.html, R_OK), 0);
    cr_expect_eq(access(f.md, R_OK), 0);
    iohw_report merged;
    cr_assert_eq(iohw_report_read(f.json, &merged, NULL), 0);
    cr_expect_eq(merged.results.count, NCASES);
    cr_expect_eq(merged.options.nsources, 2);
    iohw_report_free(&merged);
    remove_merged(&f);
}

/* `iohw report diff OLD NEW` on the merged run and the new one (make_new):
 * the exit code says whether NEW has new failures, the text what changed
 * ("": not checked).  Backwards, 0006 (PASS -> FAIL) is the one new failure
 * and 0002 the one fix; 0099 is gone.  Parameters are copied into the
 * test's process: arrays, not pointers. */
typedef struct diff_case {
    char name[40];          /* the scenario, named in every failure */
    int old_is_new_run, new_is_new_run;
    int code;
    char says[2][64];
} diff_case;

static diff_case diff_cases[] = {
    {"the same run twice", 0, 0, 0, {"0 new failures", ""}},
    {"a run with new failures", 0, 1, 1, {"2 new failures, 1 fixed", ""}},
    {"backwards", 1, 0, 1,
     {"1 new failures, 1 fixed, 6 still failing",
      "Failing before, not run now:\n  FAIL      ct2d.m.0099"}},
};

ParameterizedTestParameters(command, diff_exits_1_only_on_new_failures)
{
    return cr_make_param_array(diff_case, diff_cases, sizeof diff_cases / sizeof diff_cases[0]);
}

ParameterizedTest(diff_case *c, command, diff_exits_1_only_on_new_failures)
{
    merged_files f;
    char args[4096], *out;
    free(merge_shards(&f));
    write_new_run(&f);
    snprintf(args, sizeof args, "report diff '%s' '%s'", c->old_is_new_run ? f.other : f.json,
             c->new_is_new_run ? f.other : f.json);
    cr_expect_eq(run_iohw(&out, args), c->code, "%s: %s", c->name, out);
    for (int k = 0; k < 2; k++)
        cr_expect_not_null(strstr(out, c->says[k]), "%s: no '%s' in: %s", c->name, c->says[k],
                           out);
    free(out);
    remove_merged(&f);
}

/* Bad input and usage of `iohw report`: exit 2, with what is wrong named
 * ("": not checked).  Parameters are copied into the test's process:
 * arrays, not pointers. */
typedef enum report_misuse_kind {
    DIFF_MISSING_REPORT, MERGE_UNKNOWN_OPTION, MERGE_NO_OUTPUT, UNKNOWN_SUBCOMMAND,
    MERGE_CUT_SHORT
} report_misuse_kind;

typedef struct report_misuse {
    char name[48];      /* the scenario, named in every failure */
    report_misuse_kind kind;
    char says[24];
} report_misuse;

static report_misuse report_misuses[] = {
    {"diff against a missing report", DIFF_MISSING_REPORT, "/nonexistent.json"},
    {"merge with an unknown option", MERGE_UNKNOWN_OPTION, ""},
    {"merge without -o", MERGE_NO_OUTPUT, ""},
    {"an unknown subcommand", UNKNOWN_SUBCOMMAND, ""},
    {"merge of a report cut short", MERGE_CUT_SHORT, "input ends"},
};

/* The arguments of misuse kind, on the merged files f. */
static void misuse_args(report_misuse_kind kind, merged_files *f, char *args, size_t n)
{
    switch (kind) {
    case DIFF_MISSING_REPORT:
        snprintf(args, n, "report diff '%s' /nonexistent.json", f->json);
        return;
    case MERGE_UNKNOWN_OPTION:
        snprintf(args, n, "report merge '%s' -o '%s' --bogus", f->s1, f->json);
        return;
    case MERGE_NO_OUTPUT:
        snprintf(args, n, "report merge '%s'", f->s1);
        return;
    case UNKNOWN_SUBCOMMAND:
        snprintf(args, n, "report frobnicate");
        return;
    case MERGE_CUT_SHORT: {
        FILE *cut = fopen(f->other, "w");
        cr_assert_not_null(cut);
        fputs("{\"iohw_report_version\": 1, \"cases\": [", cut);
        fclose(cut);
        snprintf(args, n, "report merge '%s' -o '%s'", f->other, f->json);
        return;
    }
    }
    cr_assert_fail("no arguments for misuse %d", (int)kind);
}

ParameterizedTestParameters(command, report_exits_2_on_bad_input_or_usage)
{
    return cr_make_param_array(report_misuse, report_misuses,
                               sizeof report_misuses / sizeof report_misuses[0]);
}

ParameterizedTest(report_misuse *c, command, report_exits_2_on_bad_input_or_usage)
{
    merged_files f;
    char args[4096], *out;
    free(merge_shards(&f));
    misuse_args(c->kind, &f, args, sizeof args);
    cr_expect_eq(run_iohw(&out, args), 2, "%s: %s", c->name, out);
    cr_expect_not_null(strstr(out, c->says), "%s: no '%s' in: %s", c->name, c->says, out);
    free(out);
    remove_merged(&f);
}

Test(command, help_report_shows_the_merge_command)
{
    char *out;
    cr_expect_eq(run_iohw(&out, "help report"), 0, "%s", out);
    cr_expect_not_null(strstr(out, "iohw report merge"));
    free(out);
}
