/*
 * tests/test_speed.c - `iohw run --repeat N` (sandbox/worker_repeat.h,
 * results/speed.h): run() is called exactly N times per case, a backend
 * whose repeated outputs differ gets the warning, statuses and the exit
 * code are those of a run without --repeat, the record carries the timing
 * only when there is one (and older records still read), and every report
 * shows it.  No test asserts a time or a speed: the timings are checked
 * for presence and form only.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "results/record.h"
#include "harness/run.h"
#include "results/speed.h"
#include "sandbox/worker_repeat.h"
#include "reports/reports.h"
#include "support/run_options.h"
#include "support/shell.h"
#include "test_reports_fixture.h"

/* Distinct problems, so that the nondeterministic backend sees a repeated
 * problem only when the harness repeats a call.  io_swap fails the ones
 * with ci != co. */
static const char *const DESCS[] = {
    "ci=2 co=3 in=5 k=3 s=2",
    "ci=2 co=2 in=4x3 k=2x3",
    "ci=4 co=6 g=2 in=4 k=3 s=2 bias=1 dt=f64",
    "ci=3 co=3 in=3x2x2 k=2 dt=f16",
    "ci=2 co=4 in=4x4 k=3 dt=bf16",
};
#define NCASES ((int)(sizeof DESCS / sizeof DESCS[0]))

static char dir[400], file[512];
static const char *inputs[1] = {file};

static void make_suite(void)
{
    snprintf(dir, sizeof dir, "%s/speed-%d", IOHW_TEST_TMP, (int)getpid());
    mkdir(IOHW_TEST_TMP, 0755);
    mkdir(dir, 0755);
    snprintf(file, sizeof file, "%s/cases.h5", dir);
    iohw_error err = {{0}};
    iohw_case_file *f = iohw_case_file_create(file, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (int i = 0; i < NCASES; i++) {
        iohw_desc d;
        iohw_case c;
        char id[32];
        snprintf(id, sizeof id, "sp.%d", i);
        cr_assert_eq(iohw_desc_parse(DESCS[i], &d, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_make_case(&d, id, NULL, 1, &c, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
        iohw_case_free(&c);
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static void remove_suite(void)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_expect_eq(system(cmd), 0);
}

static void run(const char *backend, int repeat, int reference,
                iohw_run_results *res)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", IOHW_BACKEND_DIR, backend);
    iohw_run_options o = iohw_test_run_options(path, inputs);
    o.jobs = 1;
    o.repeat = repeat;
    o.speed_reference = reference;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_run(&o, res, &err), 0, "%s", err.msg);
    cr_assert_eq(res->count, NCASES);
}

/* Lines in the count file. */
static int count_lines(const char *path)
{
    FILE *f = fopen(path, "r");
    if (f == NULL)
        return 0;
    int n = 0, ch;
    while ((ch = fgetc(f)) != EOF)
        n += ch == '\n';
    fclose(f);
    return n;
}

TestSuite(speed, .init = make_suite, .fini = remove_suite);

Test(speed, repeat_calls_run_exactly_n_times_per_case)
{
    char count[600];
    snprintf(count, sizeof count, "%s/count.txt", dir);
    setenv("IOHW_COUNT_FILE", count, 1);
    const int repeats[] = {0, 1, 3};
    for (int k = 0; k < 3; k++) {
        for (int ref = 0; ref <= 1; ref++) {
            unlink(count);
            iohw_run_results res;
            run("libiohw_counting.so", repeats[k], ref, &res);
            int calls = repeats[k] > 0 ? repeats[k] : 1;
            cr_expect_eq(count_lines(count), calls * NCASES,
                         "--repeat %d (reference %d): %d calls, expected %d",
                         repeats[k], ref, count_lines(count), calls * NCASES);
            for (int64_t i = 0; i < res.count; i++) {
                const iohw_result *x = &res.items[i];
                cr_expect_eq(x->status, IOHW_RESULT_PASS, "%s", x->message);
                cr_expect_eq(x->repeat, repeats[k]);
                cr_expect_str_eq(x->warnings, "");
                /* Timed, and the reference only when asked for. */
                cr_expect(repeats[k] == 0 || (x->time_ms > 0 &&
                          x->time_min_ms <= x->time_ms && x->gmacs > 0));
                cr_expect_eq(x->ref_time_ms > 0 && x->ratio > 0,
                             repeats[k] > 0 && ref);
            }
            iohw_run_results_free(&res);
        }
    }
    unsetenv("IOHW_COUNT_FILE");
}

Test(speed, differing_repeated_outputs_are_a_warning_not_a_failure)
{
    iohw_run_results res;
    run("libiohw_nondeterministic.so", 3, 0, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *x = &res.items[i];
        cr_expect_eq(x->status, IOHW_RESULT_PASS, "%s: %s", x->case_id, x->message);
        cr_expect_not_null(strstr(x->warnings, IOHW_REPEAT_DIFFERS " (call 2 of 3"),
                           "%s: warnings '%s'", x->case_id, x->warnings);
    }
    cr_expect_eq(iohw_run_exit_code(&res), 0);
    iohw_run_results_free(&res);

    /* Called once per case, it is right and says nothing. */
    run("libiohw_nondeterministic.so", 0, 0, &res);
    for (int64_t i = 0; i < res.count; i++) {
        cr_expect_eq(res.items[i].status, IOHW_RESULT_PASS);
        cr_expect_str_eq(res.items[i].warnings, "");
    }
    iohw_run_results_free(&res);
}

Test(speed, statuses_and_exit_code_do_not_depend_on_repeat)
{
    static const char *const backends[] = {"libiohw_fault_io_swap.so",
                                           "libiohw_reference.so"};
    for (int b = 0; b < 2; b++) {
        iohw_run_results plain, timed;
        run(backends[b], 0, 0, &plain);
        run(backends[b], 3, 1, &timed);
        int bad = 0;
        for (int64_t i = 0; i < NCASES; i++) {
            cr_expect_str_eq(plain.items[i].case_id, timed.items[i].case_id);
            cr_expect_eq(plain.items[i].status, timed.items[i].status, "%s: %s vs %s",
                         plain.items[i].case_id,
                         iohw_result_status_name(plain.items[i].status),
                         iohw_result_status_name(timed.items[i].status));
            cr_expect_str_eq(plain.items[i].diagnosis, timed.items[i].diagnosis);
            bad += iohw_result_status_bad(plain.items[i].status);
        }
        /* io_swap fails some cases, the reference none. */
        cr_expect_eq(bad > 0, b == 0, "%s: %d bad", backends[b], bad);
        cr_expect_eq(iohw_run_exit_code(&plain), iohw_run_exit_code(&timed));
        iohw_run_results_free(&plain);
        iohw_run_results_free(&timed);
    }
}

Test(speed, every_report_shows_the_timing_of_a_performance_run)
{
    iohw_run_results res;
    run("libiohw_reference.so", 2, 1, &res);
    char *json = render(iohw_report_json, &res, NULL);
    char *md = render(iohw_report_markdown, &res, NULL);
    char *html = render(iohw_report_html, &res, NULL);
    char *junit = render(iohw_report_junit, &res, NULL);
    static const char *const members[] = {"\"repeat\": 2", "\"time_ms\": ",
                                          "\"time_min_ms\": ", "\"gmacs\": ",
                                          "\"ref_time_ms\": ", "\"ratio\": "};
    for (int k = 0; k < 6; k++)
        cr_expect_not_null(strstr(json, members[k]), "JSON lacks %s", members[k]);
    cr_expect_not_null(strstr(md, "**Speed**"));
    cr_expect_not_null(strstr(md, "| rank 1, f32 | 1 |"));
    cr_expect_not_null(strstr(md, "| all | 5 |"));
    cr_expect_not_null(strstr(html, "<section id=\"speed\">"));
    cr_expect_not_null(strstr(html, "Slowest cases"));
    cr_expect_not_null(strstr(html, "<th class=\"num\">GMAC/s</th><th class=\"num\">ratio</th>"));
    /* JUnit's time of each case is its run()'s median. */
    for (int64_t i = 0; i < res.count; i++) {
        char attr[256];
        snprintf(attr, sizeof attr, "name=\"%s\" time=\"%.6f\"", res.items[i].case_id,
                 res.items[i].time_ms * 1e-3);
        cr_expect_not_null(strstr(junit, attr), "JUnit lacks %s", attr);
    }

    /* Read back, the report keeps every timing exactly. */
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_parse(json, strlen(json), "run.json", &rep, &err), 0,
                 "%s", err.msg);
    cr_assert_eq(rep.results.count, res.count);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *a = &res.items[i], *b = &rep.results.items[i];
        cr_expect_eq(b->repeat, a->repeat);
        cr_expect_eq(b->time_ms, a->time_ms);
        cr_expect_eq(b->time_min_ms, a->time_min_ms);
        cr_expect_eq(b->gmacs, a->gmacs);
        cr_expect_eq(b->ref_time_ms, a->ref_time_ms);
        cr_expect_eq(b->ratio, a->ratio);
    }
    iohw_report_free(&rep);
    free(json), free(md), free(html), free(junit);
    iohw_run_results_free(&res);

    /* An ordinary run has no speed part anywhere. */
    run("libiohw_reference.so", 0, 1, &res);
    json = render(iohw_report_json, &res, NULL);
    md = render(iohw_report_markdown, &res, NULL);
    html = render(iohw_report_html, &res, NULL);
    cr_expect_null(strstr(json, "\"time_ms\""));
    cr_expect_null(strstr(json, "\"repeat\""));
    cr_expect_null(strstr(md, "Speed"));
    cr_expect_null(strstr(html, "id=\"speed\""));
    cr_expect_null(strstr(html, "GMAC/s"));
    free(json), free(md), free(html);
    iohw_run_results_free(&res);
}

Test(speed, repeat_out_of_range_is_refused)
{
    iohw_run_options o = iohw_test_run_options(IOHW_BACKEND_DIR "/libiohw_reference.so",
                                               inputs);
    o.repeat = IOHW_RUN_REPEAT_MAX + 1;
    iohw_run_results res;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_run(&o, &res, &err), -1);
    cr_expect_not_null(strstr(err.msg, "repeat 1001"), "%s", err.msg);

    char *out = NULL;
    int rc = iohw_test_sh(&out, "'%s' run --backend '%s/libiohw_reference.so' '%s' "
                          "--repeat 0", IOHW_BIN, IOHW_BACKEND_DIR, file);
    cr_expect_eq(rc, 2, "%s", out);
    cr_expect_not_null(strstr(out, "--repeat '0'"), "%s", out);
    free(out);
}

/* --- the record ------------------------------------------------------------ */

static iohw_result timed_result(void)
{
    iohw_result r;
    iohw_result_init(&r);
    r.case_id = iohw_text_keep("ct2d.0001");
    r.descriptor = iohw_text_keep("ci=2 co=3 in=5x4 k=3 s=2");
    r.status = IOHW_RESULT_PASS;
    r.elements = 100;
    r.seconds = 0.00125;
    r.repeat = 5;
    r.time_ms = 1.25;
    r.time_min_ms = 1.0 / 3;
    r.gmacs = 0.1 + 0.2;
    r.ref_time_ms = 40.5;
    r.ratio = 40.5 / 1.25;
    return r;
}

Test(speed_record, the_timing_reads_back_exactly)
{
    iohw_result r = timed_result(), back;
    char buf[65536];
    iohw_error err = {{0}};
    cr_assert_gt(iohw_record_encode(&r, buf, sizeof buf), 0);
    cr_expect_not_null(strstr(buf, "\"seconds\": 0.00125, \"repeat\": 5, \"time_ms\": 1.25, "));
    cr_assert_eq(iohw_record_decode(buf, strlen(buf), &back, &err), 0, "%s", err.msg);
    cr_expect_eq(memcmp(&back, &r, sizeof r), 0);

    /* Without the reference: no "ref_time_ms" nor "ratio". */
    r.ref_time_ms = r.ratio = 0;
    cr_assert_gt(iohw_record_encode(&r, buf, sizeof buf), 0);
    cr_expect_null(strstr(buf, "ratio\": 3"));
    cr_expect_null(strstr(buf, "ref_time_ms"));
    cr_assert_eq(iohw_record_decode(buf, strlen(buf), &back, &err), 0, "%s", err.msg);
    cr_expect_eq(memcmp(&back, &r, sizeof r), 0);

    /* Not timed: none of the members, as records always were. */
    r.repeat = 0;
    r.time_ms = r.time_min_ms = r.gmacs = 0;
    cr_assert_gt(iohw_record_encode(&r, buf, sizeof buf), 0);
    cr_expect_null(strstr(buf, "repeat"));
    cr_expect_null(strstr(buf, "time_"));
    cr_expect_null(strstr(buf, "gmacs"));
    cr_assert_eq(iohw_record_decode(buf, strlen(buf), &back, &err), 0, "%s", err.msg);
    cr_expect_eq(memcmp(&back, &r, sizeof r), 0);
}

Test(speed_record, an_older_journal_line_reads_without_timing)
{
    static const char line[] =
        "{\"id\": \"ct1d.0003\", \"file\": \"s/a.h5\", \"descriptor\": \"ci=1 co=1 in=3 k=2\", "
        "\"tags\": \"1d\", \"status\": \"PASS\", \"message\": \"\", \"diagnosis\": \"\", "
        "\"exact\": 0, \"elements\": 4, \"mismatches\": 0, \"unwritten\": 0, "
        "\"worst_ratio\": 0.5, \"seconds\": 0.002, \"points\": []}";
    iohw_result r;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_record_decode(line, strlen(line), &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.seconds, 0.002);
    cr_expect_eq(r.repeat, 0);
    cr_expect_eq(r.time_ms, 0);
    cr_expect_eq(r.ref_time_ms, 0);
    cr_expect_eq(r.ratio, 0);

    /* A bad value names its member. */
    static const char bad[] = "{\"id\": \"x\", \"status\": \"PASS\", \"repeat\": -2}";
    cr_expect_eq(iohw_record_decode(bad, strlen(bad), &r, &err), -1);
    cr_expect_not_null(strstr(err.msg, "'repeat'"), "%s", err.msg);
    static const char null_ok[] = "{\"id\": \"x\", \"status\": \"PASS\", \"ratio\": null}";
    cr_expect_eq(iohw_record_decode(null_ok, strlen(null_ok), &r, &err), 0, "%s", err.msg);
}

/* --- the speed part ---------------------------------------------------------- */

Test(speed_part, classes_medians_and_the_slowest)
{
    /* Six timed results in two classes, one untimed; made-up figures. */
    static const struct {
        const char *desc;
        int repeat;
        double ms, gmacs, ratio;
    } rows[] = {
        {"ci=1 co=1 in=4 k=2", 3, 1.0, 1.0, 2.0},
        {"ci=1 co=1 in=4 k=2", 3, 4.0, 3.0, 4.0},
        {"ci=1 co=1 in=4 k=2", 3, 2.0, 2.0, 0},
        {"ci=1 co=1 in=4x4 k=2 dt=f16", 3, 8.0, 5.0, 1.0},
        {"ci=1 co=1 in=4x4 k=2 dt=f16", 3, 16.0, 7.0, 3.0},
        {"ci=1 co=1 in=4x4 k=2 dt=f16", 0, 99.0, 0, 0},
        {"not a descriptor", 3, 0.5, 9.0, 0},
    };
    enum { N = sizeof rows / sizeof rows[0] };
    iohw_result items[N];
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    memset(items, 0, sizeof items);
    r.items = items;
    r.count = N;
    for (int i = 0; i < N; i++) {
        items[i].case_id = iohw_text_fmt("c%d", i);
        items[i].descriptor = iohw_text_keep(rows[i].desc);
        items[i].repeat = rows[i].repeat;
        items[i].time_ms = rows[i].ms;
        items[i].gmacs = rows[i].gmacs;
        items[i].ratio = rows[i].ratio;
    }
    iohw_speed s;
    cr_assert_eq(iohw_speed_build(&r, &s), 0);
    cr_assert_eq(s.nclasses, 3);
    cr_expect_str_eq(s.classes[0].name, "unknown");
    cr_expect_str_eq(s.classes[1].name, "rank 1, f32");
    cr_expect_eq(s.classes[1].cases, 3);
    cr_expect_eq(s.classes[1].total_ms, 7.0);
    cr_expect_eq(s.classes[1].gmacs, 2.0);
    cr_expect_eq(s.classes[1].ratio, 3.0);   /* of 2 and 4; one has none */
    cr_expect_str_eq(s.classes[2].name, "rank 2, f16");
    cr_expect_eq(s.classes[2].cases, 2);     /* the untimed one left out */
    cr_expect_eq(s.classes[2].gmacs, 6.0);
    cr_expect_eq(s.all.cases, 6);
    cr_expect_eq(s.all.total_ms, 31.5);
    cr_expect_eq(s.repeat, 3);
    cr_assert_eq(s.nslowest, 5);
    cr_expect_eq(s.slowest[0], 4);
    cr_expect_eq(s.slowest[1], 3);
    cr_expect_eq(s.slowest[2], 1);
    cr_expect_eq(s.slowest[3], 2);
    cr_expect_eq(s.slowest[4], 0);

    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    iohw_speed_print(&s, &r, f);
    fclose(f);
    cr_expect_not_null(strstr(text, "run() called 3 time(s) per case"));
    cr_expect_not_null(strstr(text, "rank 2, f16"));
    free(text);
    iohw_speed_free(&s);

    /* Nothing timed: nothing printed. */
    for (int i = 0; i < N; i++)
        items[i].repeat = 0;
    cr_assert_eq(iohw_speed_build(&r, &s), 0);
    cr_expect_eq(s.all.cases, 0);
    f = open_memstream(&text, &len);
    iohw_speed_print(&s, &r, f);
    fclose(f);
    cr_expect_str_eq(text, "");
    free(text);
    iohw_speed_free(&s);
}
