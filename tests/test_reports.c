/*
 * tests/test_reports.c - the report writers (JUnit, JSON, Markdown, HTML),
 * the JSON reader with hostile input, the baseline, and the factor
 * coverage, on results built by hand in memory.
 *
 * The sample run has one result of each status, so the JUnit counts follow
 * from the mapping of the issue: failures 1 (FAIL), errors 4 (ERROR, CRASH,
 * TIMEOUT, INVALID), skipped 2 (UNSUPPORTED, WAIVED), and per category
 * (id up to the second '.', or the file name):
 *   ct2d.basic    PASS FAIL WAIVED      tests 3 failures 1 errors 0 skipped 1
 *   ct2d.grouped  ERROR CRASH           tests 2 failures 0 errors 2 skipped 0
 *   ct3d.f16      TIMEOUT UNSUPPORTED   tests 2 failures 0 errors 1 skipped 1
 *   broken-file   INVALID (id "lonely") tests 1 failures 0 errors 1 skipped 0
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/run.h"
#include "reports/reports.h"

#define D1 "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 " \
           "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7"
#define D2 "ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC " \
           "wl=GOIDHW fill=exact"
#define HOSTILE "bad <tag> & \"quotes\" 'apos' | pipe \x01\x1b ctrl \xff\xfe " \
                "]]> </script> end"

static iohw_result make(const char *id, const char *file, const char *desc,
                        iohw_result_status s)
{
    iohw_result r;
    memset(&r, 0, sizeof r);
    snprintf(r.case_id, sizeof r.case_id, "%s", id);
    snprintf(r.file, sizeof r.file, "%s", file);
    snprintf(r.descriptor, sizeof r.descriptor, "%s", desc);
    snprintf(r.tags, sizeof r.tags, "rank2,f32,grouped");
    r.status = s;
    snprintf(r.message, sizeof r.message, "%s", iohw_result_status_meaning(s));
    r.elements = 480;
    r.worst_ratio = 0.25;
    r.seconds = 0.001;
    return r;
}

/* The sample run: one result of each status. */
static iohw_result items[8];

static iohw_run_results sample(void)
{
    items[0] = make("ct2d.basic.0001", "suite/a.h5", D1, IOHW_RESULT_PASS);
    items[1] = make("ct2d.basic.0002", "suite/a.h5", D1, IOHW_RESULT_FAIL);
    snprintf(items[1].message, sizeof items[1].message, "%s", HOSTILE);
    snprintf(items[1].diagnosis, sizeof items[1].diagnosis,
             "matches the oracle with weight I and O exchanged");
    items[1].mismatches = 12;
    items[1].worst_ratio = INFINITY;
    items[1].npoints = 2;
    items[1].points[0] = (iohw_point){7, {0, 1, 0, 2, 3}, 1.5, 2.0, 1e-6};
    items[1].points[1] = (iohw_point){9, {1, 5, 0, 10, 7}, -0.25, NAN, 2e-6};
    items[1].errmap[2 * IOHW_RESULT_ERRMAP + 3] = 11;
    items[1].errmap[15 * IOHW_RESULT_ERRMAP + 15] = 255;
    items[2] = make("ct2d.grouped.0001", "suite/a.h5", D1, IOHW_RESULT_ERROR);
    items[3] = make("ct2d.grouped.0002", "suite/a.h5", D1, IOHW_RESULT_CRASH);
    items[4] = make("ct3d.f16.0001", "suite/b.h5", D2, IOHW_RESULT_TIMEOUT);
    items[5] = make("lonely", "suite/broken-file.h5", "", IOHW_RESULT_INVALID);
    items[5].elements = 0;
    items[6] = make("ct3d.f16.0002", "suite/b.h5", D2, IOHW_RESULT_UNSUPPORTED);
    items[6].elements = 0;
    items[7] = make("ct2d.basic.0003", "suite/a.h5", D1, IOHW_RESULT_WAIVED);
    items[7].worst_ratio = NAN;

    iohw_run_results r;
    memset(&r, 0, sizeof r);
    r.items = items;
    r.count = 8;
    snprintf(r.backend_name, sizeof r.backend_name, "naive");
    snprintf(r.backend_version, sizeof r.backend_version, "1.0");
    r.seconds = 2.5;
    return r;
}

static const char *const sample_inputs[] = {"suite", "extra dir/c.h5"};

static iohw_report_options sample_options(void)
{
    iohw_report_options o;
    memset(&o, 0, sizeof o);
    o.backend_path = "/opt/lib naive.so";
    o.inputs = sample_inputs;
    o.ninputs = 2;
    o.filter = "rank=2,tag=grouped";
    o.shard_index = 2, o.shard_count = 3;
    o.jobs = 4;
    o.timeout = 30;
    o.start_time = 1796209786;  /* 2026-12-02T11:09:46Z */
    return o;
}

/* Runs a writer into memory; the text is malloc'd. */
static char *render(int (*fn)(FILE *, const iohw_run_results *, const iohw_report_options *),
                    const iohw_run_results *r, const iohw_report_options *o)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(fn(f, r, o), 0);
    fclose(f);
    return buf;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/reports-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
}

/* --- JUnit ---------------------------------------------------------------- */

Test(junit, maps_every_status_in_one_place)
{
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_PASS), IOHW_JUNIT_PASSED);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_FAIL), IOHW_JUNIT_FAILURE);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_ERROR), IOHW_JUNIT_ERROR);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_CRASH), IOHW_JUNIT_ERROR);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_TIMEOUT), IOHW_JUNIT_ERROR);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_INVALID), IOHW_JUNIT_ERROR);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_UNSUPPORTED), IOHW_JUNIT_SKIPPED);
    cr_expect_eq(iohw_junit_kind_of(IOHW_RESULT_WAIVED), IOHW_JUNIT_SKIPPED);
}

Test(junit, names_categories_by_id_prefix_or_file)
{
    char buf[64];
    iohw_result r = make("ct2d.grouped.0003", "x/y.h5", D1, IOHW_RESULT_PASS);
    iohw_report_category(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "ct2d.grouped");
    r = make("one.dot", "/data/suite-a.h5", D1, IOHW_RESULT_PASS);
    iohw_report_category(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "suite-a");
    r = make("", "plain", D1, IOHW_RESULT_PASS);
    iohw_report_category(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "plain");
}

/* Checks the XML with Python's parser: well formed, every count equal to
 * the children, and the per-suite counts derived in the header. */
static const char junit_checker[] =
    "import sys, xml.etree.ElementTree as ET\n"
    "root = ET.parse(sys.argv[1]).getroot()\n"
    "assert root.tag == 'testsuites', root.tag\n"
    "want = {'ct2d.basic': (3, 1, 0, 1), 'ct2d.grouped': (2, 0, 2, 0),\n"
    "        'ct3d.f16': (2, 0, 1, 1), 'broken-file': (1, 0, 1, 0)}\n"
    "tot = [0, 0, 0, 0]\n"
    "for s in root.findall('testsuite'):\n"
    "    cases = s.findall('testcase')\n"
    "    got = (len(cases), sum(c.find('failure') is not None for c in cases),\n"
    "           sum(c.find('error') is not None for c in cases),\n"
    "           sum(c.find('skipped') is not None for c in cases))\n"
    "    attrs = tuple(int(s.get(k)) for k in ('tests', 'failures', 'errors', 'skipped'))\n"
    "    assert got == attrs, (s.get('name'), got, attrs)\n"
    "    assert want.pop(s.get('name')) == got, s.get('name')\n"
    "    for c in cases:\n"
    "        assert c.get('classname') == s.get('name')\n"
    "    tot = [a + b for a, b in zip(tot, got)]\n"
    "assert not want, want\n"
    "assert tot == [int(root.get(k)) for k in ('tests', 'failures', 'errors', 'skipped')]\n"
    "f = root.find(\".//testcase[@name='ct2d.basic.0002']/failure\")\n"
    "assert f.get('type') == 'FAIL'\n"
    "assert 'bad <tag> & \"quotes\" \\'apos\\' | pipe \\\\x01\\\\x1b ctrl' in f.get('message'), f.get('message')\n"
    "assert '__REPRO: iohw run --backend ' in f.text and 'id=ct2d.basic.0002' in f.text\n"
    "assert 'weight I and O exchanged' in f.text\n"
    "assert '(n=1, c=5, d=0, h=10, w=7)' in f.text\n"
    "assert root.find(\".//testcase[@name='lonely']/error\") is not None\n"
    "sk = root.find(\".//testcase[@name='ct2d.basic.0003']/skipped\")\n"
    "assert sk.get('message').startswith('WAIVED: ')\n"
    "print('junit ok')\n";

Test(junit, is_well_formed_and_its_counts_agree_with_its_children)
{
    if (access("/usr/bin/python3", X_OK) != 0)
        cr_skip_test("/usr/bin/python3 is missing");
    iohw_run_results r = sample();
    iohw_report_options o = sample_options();
    char xml[512], py[512], cmd[1200];
    tmp_path(xml, sizeof xml, "junit.xml");
    tmp_path(py, sizeof py, "junit_check.py");
    o.junit = xml;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_reports_write(&r, &o, &err), 0, "%s", err.msg);
    FILE *f = fopen(py, "w");
    cr_assert_not_null(f);
    fputs(junit_checker, f);
    fclose(f);
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 '%s' '%s'", py, xml);
    cr_expect_eq(system(cmd), 0, "the JUnit checker failed on %s", xml);
    remove(py);
    remove(xml);
}

Test(junit, escapes_markup_and_control_characters)
{
    iohw_run_results r = sample();
    char *x = render(iohw_report_junit, &r, NULL);
    cr_expect_not_null(strstr(x, "bad &lt;tag&gt; &amp; &quot;quotes&quot; &apos;apos&apos;"));
    cr_expect_not_null(strstr(x, "\\x01\\x1b ctrl \xEF\xBF\xBD\xEF\xBF\xBD ]]&gt;"));
    cr_expect_null(strstr(x, "\x01"));
    cr_expect_null(strstr(x, "\xff"));
    free(x);
}

/* --- JSON round trip ------------------------------------------------------ */

static void expect_same_double(double a, double b, const char *what)
{
    if (isnan(a))
        cr_expect(isnan(b), "%s: nan read back as %g", what, b);
    else
        cr_expect(a == b, "%s: %.17g read back as %.17g", what, a, b);
}

static void expect_same_result(const iohw_result *a, const iohw_result *b)
{
    cr_expect_str_eq(b->case_id, a->case_id);
    cr_expect_str_eq(b->file, a->file);
    cr_expect_str_eq(b->descriptor, a->descriptor);
    cr_expect_str_eq(b->tags, a->tags);
    cr_expect_eq(b->status, a->status, "%s", a->case_id);
    cr_expect_str_eq(b->diagnosis, a->diagnosis);
    cr_expect_eq(b->exact, a->exact);
    cr_expect_eq(b->elements, a->elements);
    cr_expect_eq(b->mismatches, a->mismatches);
    cr_expect_eq(b->unwritten, a->unwritten);
    expect_same_double(a->worst_ratio, b->worst_ratio, "worst_ratio");
    expect_same_double(a->seconds, b->seconds, "seconds");
    cr_expect_eq(b->npoints, a->npoints);
    for (int k = 0; k < a->npoints; k++) {
        cr_expect_eq(b->points[k].index, a->points[k].index);
        for (int c = 0; c < 5; c++)
            cr_expect_eq(b->points[k].coord[c], a->points[k].coord[c]);
        expect_same_double(a->points[k].expected, b->points[k].expected, "expected");
        expect_same_double(a->points[k].got, b->points[k].got, "got");
        expect_same_double(a->points[k].bound, b->points[k].bound, "bound");
    }
    cr_expect_eq(memcmp(a->errmap, b->errmap, sizeof a->errmap), 0);
}

Test(json, reads_back_what_it_wrote)
{
    iohw_run_results r = sample();
    iohw_report_options o = sample_options();
    double wall[8] = {0.5, 0.25, 0.125, 1, 2, 0, 0.75, 3};
    r.wall = wall;
    r.items[0].exact = 1;
    r.items[0].seconds = 1.0 / 3.0;  /* needs all 17 digits */
    char *text = render(iohw_report_json, &r, &o);

    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_parse(text, strlen(text), "sample.json", &rep, &err), 0,
                 "%s", err.msg);
    cr_expect_eq(rep.version, 1);
    cr_expect_str_eq(rep.results.backend_name, "naive");
    cr_expect_str_eq(rep.results.backend_version, "1.0");
    cr_expect_eq(rep.results.seconds, 2.5);
    cr_expect_str_eq(rep.options.backend_path, "/opt/lib naive.so");
    cr_assert_eq(rep.options.ninputs, 2);
    cr_expect_str_eq(rep.options.inputs[1], "extra dir/c.h5");
    cr_expect_str_eq(rep.options.filter, "rank=2,tag=grouped");
    cr_expect_eq(rep.options.shard_index, 2);
    cr_expect_eq(rep.options.shard_count, 3);
    cr_expect_eq(rep.options.jobs, 4);
    cr_expect_eq(rep.options.timeout, 30.0);
    cr_expect_eq(rep.options.start_time, 1796209786);
    cr_assert_eq(rep.results.count, 8);
    for (int i = 0; i < 8; i++) {
        expect_same_result(&r.items[i], &rep.results.items[i]);
        cr_expect_eq(rep.results.wall[i], wall[i]);
    }
    /* Invalid UTF-8 in the message comes back as U+FFFD. */
    cr_expect_not_null(strstr(rep.results.items[1].message, "ctrl \xEF\xBF\xBD\xEF\xBF\xBD ]]>"));
    cr_expect_not_null(strstr(text, "\"start_time\": \"2026-12-02T11:09:46Z\""));
    cr_expect_not_null(strstr(text, "\"worst_ratio\": \"inf\""));
    cr_expect_not_null(strstr(text, "<\\/script>"));
    iohw_report_free(&rep);
    free(text);
}

Test(json, summarises_statuses_and_the_exit_code)
{
    iohw_run_results r = sample();
    char *text = render(iohw_report_json, &r, NULL);
    cr_expect_not_null(strstr(text, "\"summary\": {\"total\": 8, \"PASS\": 1, \"FAIL\": 1, "
                                    "\"UNSUPPORTED\": 1, \"ERROR\": 1, \"CRASH\": 1, "
                                    "\"TIMEOUT\": 1, \"INVALID\": 1, \"WAIVED\": 1, "
                                    "\"exit_code\": 1}"), "%s", text);
    free(text);
}

/* --- hostile JSON --------------------------------------------------------- */

static void expect_rejected(const char *text, size_t len, const char *why)
{
    iohw_report rep;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_report_parse(text, len, "hostile.json", &rep, &err), -1,
                 "accepted: %s", why);
    cr_expect_neq(err.msg[0], '\0', "no message: %s", why);
    cr_expect_not_null(strstr(err.msg, "hostile.json"), "%s: %s", why, err.msg);
}

#define REJECT(text) expect_rejected(text, strlen(text), text)

Test(json_hostile, rejects_every_truncation_of_a_report)
{
    iohw_run_results r = sample();
    char *text = render(iohw_report_json, &r, NULL);
    size_t len = strlen(text);
    size_t complete = (size_t)(strrchr(text, '}') - text) + 1;
    for (size_t n = 0; n < complete; n++)
        expect_rejected(text, n, "a truncated report");
    iohw_report rep;
    cr_expect_eq(iohw_report_parse(text, complete, "whole", &rep, NULL), 0);
    iohw_report_free(&rep);
    cr_expect_eq(iohw_report_parse(text, len, "whole", &rep, NULL), 0);
    iohw_report_free(&rep);
    free(text);
}

Test(json_hostile, rejects_deep_nesting_without_exhausting_the_stack)
{
    size_t n = 200000;
    char *deep = malloc(2 * n + 1);
    memset(deep, '[', n);
    memset(deep + n, ']', n);
    deep[2 * n] = '\0';
    iohw_error err = {{0}};
    iohw_report rep;
    cr_expect_eq(iohw_report_parse(deep, 2 * n, "deep.json", &rep, &err), -1);
    cr_expect_not_null(strstr(err.msg, "nested deeper"), "%s", err.msg);
    free(deep);
}

Test(json_hostile, rejects_bad_numbers_strings_and_structure)
{
    REJECT("");
    REJECT("   ");
    REJECT("[]");
    REJECT("{\"iohw_report_version\": 1}");
    REJECT("{\"cases\": []}");
    REJECT("{\"iohw_report_version\": 2, \"cases\": []}");
    REJECT("{\"iohw_report_version\": 1e999999, \"cases\": []}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": []} trailing");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [],}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [] ");
    REJECT("{\"iohw_report_version\": 01, \"cases\": []}");
    REJECT("{\"iohw_report_version\": 1., \"cases\": []}");
    REJECT("{\"iohw_report_version\": -, \"cases\": []}");
    REJECT("{\"iohw_report_version\": tru, \"cases\": []}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"PASS\", "
           "\"elements\": 1e999999}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"PASS\", "
           "\"elements\": 99999999999999999999}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"PASS\", "
           "\"elements\": -1}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"GOOD\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": 5, \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\\q\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\\u12\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"\\ud800\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"\\udc00x\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\\u0000b\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\tb\", \"status\": \"PASS\"}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"PASS\", "
           "\"points\": [{\"coord\": [1, 2, 3, 4]}]}]}");
    REJECT("{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"a\", \"status\": \"PASS\", "
           "\"errmap\": [300]}]}");
    REJECT("{\"iohw_report_version\": 1, \"run\": {\"start_time\": \"yesterday\"}, "
           "\"cases\": []}");
    REJECT("{\"iohw_report_version\": 1, \"run\": {\"options\": {\"shard\": \"3/2\"}}, "
           "\"cases\": []}");
    REJECT("{\"iohw_report_version\": 1, \"baseline\": {\"entries\": [{\"reason\": \"x\"}]}, "
           "\"cases\": []}");
    /* A NUL byte inside the text. */
    expect_rejected("{\"iohw_report_version\": 1,\0 \"cases\": []}", 40, "NUL byte");

    /* An id longer than the field is an error, not a silent cut. */
    char long_id[400];
    memset(long_id, 'x', 300);
    long_id[300] = '\0';
    char doc[600];
    snprintf(doc, sizeof doc, "{\"iohw_report_version\": 1, \"cases\": [{\"id\": \"%s\", "
             "\"status\": \"PASS\"}]}", long_id);
    REJECT(doc);
}

Test(json_hostile, accepts_the_forms_json_allows)
{
    const char *doc =
        "\xEF\xBB\xBF{ \"iohw_report_version\" : 1 , \"unknown\": {\"x\": [true, false, null]},"
        " \"cases\" : [ {\"id\": \"a\\u00e9\\ud83d\\ude00\\/\", \"status\": \"FAIL\","
        " \"worst_ratio\": null, \"exact\": 1, \"elements\": 2E+1,"
        " \"seconds\": -0.5e-1} ] }";
    iohw_report rep;
    iohw_error err = {{0}};
    /* 2E+1 is a number but not an integer as written: rejected for
     * elements; everything else here is accepted. */
    cr_expect_eq(iohw_report_parse(doc, strlen(doc), "forms", &rep, &err), -1);
    cr_expect_not_null(strstr(err.msg, "elements"), "%s", err.msg);
    const char *doc2 =
        "\xEF\xBB\xBF{ \"iohw_report_version\" : 1 , \"unknown\": {\"x\": [true, false, null]},"
        " \"cases\" : [ {\"id\": \"a\\u00e9\\ud83d\\ude00\\/\", \"status\": \"FAIL\","
        " \"worst_ratio\": null, \"exact\": 1, \"elements\": 20,"
        " \"seconds\": -0.5e-1} ] }";
    cr_assert_eq(iohw_report_parse(doc2, strlen(doc2), "forms", &rep, &err), 0, "%s", err.msg);
    cr_expect_str_eq(rep.results.items[0].case_id, "a\xC3\xA9\xF0\x9F\x98\x80/");
    cr_expect(isinf(rep.results.items[0].worst_ratio));
    cr_expect_eq(rep.results.items[0].exact, 1);
    cr_expect_eq(rep.results.items[0].elements, 20);
    cr_expect_eq(rep.results.items[0].seconds, -0.05);
    iohw_report_free(&rep);
}

Test(json_hostile, survives_random_corruption)
{
    iohw_run_results r = sample();
    char *text = render(iohw_report_json, &r, NULL);
    size_t len = strlen(text);
    char *copy = malloc(len + 1);
    uint64_t s = 0x9E3779B97F4A7C15u;
    int accepted = 0;
    for (int trial = 0; trial < 1500; trial++) {
        memcpy(copy, text, len + 1);
        for (int k = 0; k < 1 + trial % 4; k++) {
            s = s * 6364136223846793005u + 1442695040888963407u;
            size_t at = (size_t)(s >> 33) % len;
            copy[at] = (char)(s >> 17);
        }
        iohw_report rep;
        if (iohw_report_parse(copy, len, "fuzz", &rep, NULL) == 0) {
            accepted++;
            iohw_report_free(&rep);
        }
    }
    cr_log_info("%d of 1500 corrupted reports still parsed", accepted);
    free(copy);
    free(text);
}

/* --- Markdown and HTML ---------------------------------------------------- */

Test(markdown, summarises_with_escaped_cells)
{
    iohw_run_results r = sample();
    iohw_report_options o = sample_options();
    char *md = render(iohw_report_markdown, &r, &o);
    cr_expect_not_null(strstr(md, "### iohw: naive 1.0 - **FAILED**"), "%s", md);
    cr_expect_not_null(strstr(md, "8 cases in 2.5 s: 1 pass, 5 fail, 1 unsupported, 1 waived."));
    cr_expect_not_null(strstr(md, "| FAIL | 1 |"));
    cr_expect_not_null(strstr(md, "| CRASH | ct2d.grouped.0002 |"));
    cr_expect_not_null(strstr(md, "&lt;tag&gt; &amp; \"quotes\" 'apos' \\| pipe"));
    cr_expect_not_null(strstr(md, "iohw run --backend '/opt/lib naive.so'"), "%s", md);
    free(md);
}

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0;
    for (const char *p = hay; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

Test(html, is_self_contained_and_escapes_what_results_say)
{
    iohw_run_results r = sample();
    iohw_report_options o = sample_options();
    char *h = render(iohw_report_html, &r, &o);
    cr_expect_eq(strncmp(h, "<!DOCTYPE html>", 15), 0);
    cr_expect_not_null(strstr(h, "Content-Security-Policy"));
    /* Nothing to fetch: no src= or href= at all; the only URL is the SVG
     * namespace. */
    cr_expect_null(strstr(h, " src="));
    cr_expect_null(strstr(h, " href="));
    cr_expect_eq(count_of(h, "http://") + count_of(h, "https://"),
                 count_of(h, "xmlns=\"http://www.w3.org/2000/svg\""));
    /* The hostile message stays text. */
    cr_expect_null(strstr(h, "<tag>"));
    cr_expect_eq(count_of(h, "</script>"), 2);
    cr_expect_not_null(strstr(h, "&lt;/script&gt;"));
    /* Summary, coverage, failures and heat map are there. */
    cr_expect_not_null(strstr(h, "<b class=\"s-FAIL\">1</b>FAIL"));
    cr_expect_not_null(strstr(h, "Failing cases (5)"));
    cr_expect_not_null(strstr(h, "class=\"heatmap\""));
    cr_expect_not_null(strstr(h, "all mismatches, binned"));
    cr_expect_not_null(strstr(h, "id=\"ratio-histogram\""));
    cr_expect_not_null(strstr(h, "<h3>weight_layout</h3>"));
    free(h);
}

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
    snprintf(r.items[5].case_id, sizeof r.items[5].case_id, "%s", "");
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
    char long_pattern[300];
    memset(long_pattern, 'p', 200);
    strcpy(long_pattern + 200, " why\n");
    cr_expect_eq(iohw_baseline_parse(long_pattern, "bl.txt", &b, &err), -1);
    cr_expect_eq(iohw_baseline_parse("a why\x01\n", "bl.txt", &b, &err), -1);
    cr_expect_eq(iohw_baseline_load("/nonexistent/baseline.txt", &b, &err), -1);
    cr_expect_not_null(strstr(err.msg, "/nonexistent/baseline.txt"), "%s", err.msg);
    cr_expect_eq(iohw_baseline_parse("", "empty", &b, &err), 0);
    cr_expect_eq(b.count, 0);
}

/* --- factors -------------------------------------------------------------- */

static void expect_values(const char *desc, const char *const want[IOHW_FACTOR_COUNT])
{
    char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX];
    iohw_error err = {{0}};
    cr_assert_eq(iohw_factor_values(desc, v, &err), 0, "%s: %s", desc, err.msg);
    for (int k = 0; k < (int)IOHW_FACTOR_COUNT; k++)
        cr_expect_str_eq(v[k], want[k], "%s: factor %s", desc,
                         iohw_factor_name((iohw_factor)k));
}

Test(factors, derive_each_value_from_the_descriptor)
{
    /* D1: g=2 with ci=4 is grouped; largest stride 2, dilation 2; pads 1:0
     * are asymmetric; op 1 < max(s=2, d=1) on H is within the limit. */
    static const char *const v1[] = {"2", "grouped", "2", "2", "asymmetric", ">0",
                                     "f32", "NHWC", "OIHW", "normal", "yes"};
    expect_values(D1, v1);
    /* D2: g = ci = 4 is depthwise (one input channel per group). */
    static const char *const v2[] = {"3", "depthwise", "2", "2", "none", "0",
                                     "bf16", "NDHWC", "GOIDHW", "exact", "no"};
    expect_values(D2, v2);
    /* op=7 >= max(s=7, d=1): beyond the limit; stride 7 bins as 5+;
     * symmetric pads; default layouts. */
    static const char *const v3[] = {"1", "1", "5+", "1", "symmetric", "beyond-limit",
                                     "f64", "NCW", "IOW", "cancel", "no"};
    expect_values("ci=3 co=5 in=9 k=4 s=7 pad=2 op=7 dt=f64 fill=cancel", v3);
    /* Not every op > 0 is beyond the limit: op=2 < max(s=3, d=1). */
    static const char *const v4[] = {"1", "1", "3", "1", "none", ">0",
                                     "f32", "NCW", "IOW", "normal", "no"};
    expect_values("ci=1 co=1 in=4 k=3 s=3 op=2", v4);
    char v[IOHW_FACTOR_COUNT][IOHW_FACTOR_VALUE_MAX];
    cr_expect_eq(iohw_factor_values("ci=1 bogus=2", v, NULL), -1);
    cr_expect_eq(iohw_factor_values("", v, NULL), -1);
}

/* D1 PASS, D1 FAIL, D2 UNSUPPORTED, and one without descriptor. */
static iohw_run_results four_cases(iohw_result it[4])
{
    it[0] = make("a.b.1", "f.h5", D1, IOHW_RESULT_PASS);
    it[1] = make("a.b.2", "f.h5", D1, IOHW_RESULT_FAIL);
    it[2] = make("a.b.3", "f.h5", D2, IOHW_RESULT_UNSUPPORTED);
    it[3] = make("a.b.4", "f.h5", "", IOHW_RESULT_INVALID);
    return (iohw_run_results){.items = it, .count = 4};
}

Test(factors, count_each_level_by_outcome)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    cr_expect_eq(cov.unknown, 1);
    cr_assert_eq(cov.nlevels[IOHW_FACTOR_RANK], 2);
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_RANK][0].value, "2");
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][0].count[IOHW_OUTCOME_PASS], 1);
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][0].count[IOHW_OUTCOME_FAIL], 1);
    cr_expect_eq(cov.levels[IOHW_FACTOR_RANK][1].count[IOHW_OUTCOME_SKIP], 1);
    /* Known order: f32 before bf16, grouped before depthwise. */
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_DTYPE][0].value, "f32");
    cr_expect_str_eq(cov.levels[IOHW_FACTOR_GROUPS][1].value, "depthwise");
    cr_expect_eq(cov.nlevels[IOHW_FACTOR_STRIDE], 1);
    iohw_coverage_free(&cov);
}

/* rank x dtype: (2, f32) pass 1 fail 1; (3, bf16) skip 1; others 0. */
Test(factors, count_each_pair_of_levels_by_outcome)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    int64_t *m = iohw_coverage_pair(&cov, IOHW_FACTOR_RANK, IOHW_FACTOR_DTYPE);
    cr_assert_not_null(m);
    cr_expect_eq(m[(0 * 2 + 0) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_PASS], 1);
    cr_expect_eq(m[(0 * 2 + 0) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_FAIL], 1);
    cr_expect_eq(m[(1 * 2 + 1) * IOHW_OUTCOME_COUNT + IOHW_OUTCOME_SKIP], 1);
    for (int k = 0; k < IOHW_OUTCOME_COUNT; k++) {
        cr_expect_eq(m[(0 * 2 + 1) * IOHW_OUTCOME_COUNT + k], 0, "(2, bf16), outcome %d", k);
        cr_expect_eq(m[(1 * 2 + 0) * IOHW_OUTCOME_COUNT + k], 0, "(3, f32), outcome %d", k);
    }
    free(m);
    iohw_coverage_free(&cov);
}

/* Levels per factor: 2 everywhere but stride and dilation (1), so
 * possible = ((9*2 + 2*1)^2 - (9*4 + 2*1)) / 2 = (400 - 38) / 2 = 181;
 * every factor pair sees D1's cell and D2's, one cell when both factors
 * have one level (stride x dilation): 54*2 + 1 = 109; every pair holds
 * D1's failure; no cell passes only. */
Test(factors, summarise_the_pairs_exercised_failing_and_passing)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    iohw_pair_summary ps;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    iohw_coverage_pairs(&cov, &ps);
    cr_expect_eq(ps.possible, 181);
    cr_expect_eq(ps.exercised, 109);
    cr_expect_eq(ps.failing, 55);
    cr_expect_eq(ps.passing, 0);
    iohw_coverage_free(&cov);
}

/* One passing case: 55 pairs of one cell, all passing. */
Test(factors, one_passing_case_passes_every_pair_it_exercises)
{
    iohw_result it[4];
    iohw_run_results r = four_cases(it);
    iohw_coverage cov;
    iohw_pair_summary ps;
    r.count = 1;
    cr_assert_eq(iohw_coverage_build(&r, &cov, NULL), 0);
    iohw_coverage_pairs(&cov, &ps);
    cr_expect_eq(ps.possible, 55);
    cr_expect_eq(ps.exercised, 55);
    cr_expect_eq(ps.passing, 55);
    cr_expect_eq(ps.failing, 0);
    iohw_coverage_free(&cov);
}

/* --- writing files -------------------------------------------------------- */

Test(write, names_the_file_it_cannot_write)
{
    iohw_run_results r = sample();
    iohw_report_options o = {0};
    o.html = "/nonexistent-dir/report.html";
    iohw_error err = {{0}};
    cr_expect_eq(iohw_reports_write(&r, &o, &err), -1);
    cr_expect_not_null(strstr(err.msg, "HTML report /nonexistent-dir/report.html"),
                       "%s", err.msg);
}

Test(write, handles_an_empty_run)
{
    iohw_run_results r = {0};
    char *x = render(iohw_report_junit, &r, NULL);
    cr_expect_not_null(strstr(x, "tests=\"0\""));
    free(x);
    char *j = render(iohw_report_json, &r, NULL);
    iohw_report rep;
    cr_expect_eq(iohw_report_parse(j, strlen(j), "empty", &rep, NULL), 0);
    cr_expect_eq(rep.results.count, 0);
    iohw_report_free(&rep);
    free(j);
    free(render(iohw_report_html, &r, NULL));
    free(render(iohw_report_markdown, &r, NULL));
}

/* --- text escaping, end to end -------------------------------------------- */

/* Every escape JSON has, UTF-8 of 2, 3 and 4 bytes, and five invalid
 * sequences: an overlong "/" (C0 AF), a UTF-16 surrogate (ED A0 80), a byte
 * past U+10FFFF (F5), a cut 3-byte sequence (E2 82 then "x") and a lone
 * continuation byte (80).  Each invalid byte reads back as U+FFFD. */
#define ODD_IN "q\" b\\ s/ </x \r\n\t\b\f \x7f \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " \
               "\xE2\x80\xA8 | \xC0\xAF \xED\xA0\x80 \xF5 \xE2\x82x \x80"
#define FFFD "\xEF\xBF\xBD"
#define ODD_OUT "q\" b\\ s/ </x \r\n\t\b\f \x7f \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 " \
                "\xE2\x80\xA8 | " FFFD FFFD " " FFFD FFFD FFFD " " FFFD " " FFFD FFFD "x " FFFD

Test(text, json_strings_survive_every_escape_and_replace_bad_bytes)
{
    iohw_result one = make("odd.case.1", "f.h5", D1, IOHW_RESULT_FAIL);
    snprintf(one.message, sizeof one.message, "%s", ODD_IN);
    iohw_run_results r = {.items = &one, .count = 1};
    char *text = render(iohw_report_json, &r, NULL);
    cr_expect_not_null(strstr(text, "\"q\\\" b\\\\ s/ <\\/x \\r\\n\\t\\b\\f \\u007f"), "%s", text);
    cr_expect_not_null(strstr(text, "\\u2028"));
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_parse(text, strlen(text), "odd", &rep, &err), 0, "%s", err.msg);
    cr_expect_str_eq(rep.results.items[0].message, ODD_OUT);
    iohw_report_free(&rep);
    free(text);
}

Test(text, xml_and_markdown_replace_bad_bytes_and_cut_long_cells)
{
    iohw_result one = make("odd.case.1", "f.h5", D1, IOHW_RESULT_ERROR);
    snprintf(one.message, sizeof one.message, "%s", ODD_IN);
    iohw_run_results r = {.items = &one, .count = 1};
    char *x = render(iohw_report_junit, &r, NULL);
    /* In the attribute: quotes, CR, LF, tab as references; \b \f DEL as text. */
    cr_expect_not_null(strstr(x, "message=\"ERROR: q&quot; b\\ s/ &lt;/x &#13;&#10;&#9;\\x08\\x0c "
                                 "\\x7f \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE2\x80\xA8 | "
                                 FFFD FFFD " " FFFD FFFD FFFD " " FFFD " " FFFD FFFD "x " FFFD "\""),
                       "%s", x);
    free(x);

    /* A 300-character message is cut to 160 in the Markdown table. */
    memset(one.message, 'm', 300);
    one.message[300] = '\0';
    char *md = render(iohw_report_markdown, &r, NULL);
    char want[200];
    memset(want, 'm', 160);
    strcpy(want + 160, "... |");
    cr_expect_not_null(strstr(md, want), "%s", md);
    free(md);
}

/* --- hostile JSON: every member of the wrong type ------------------------- */

Test(json_hostile, rejects_members_of_the_wrong_type_naming_them)
{
    static const char *const docs[][2] = {
        {"\"run\": 5", "run"},
        {"\"run\": {\"backend\": 1}", "backend"},
        {"\"run\": {\"backend\": {\"name\": 1}}", "name"},
        {"\"run\": {\"inputs\": \"suite\"}", "inputs"},
        {"\"run\": {\"inputs\": [1]}", "inputs"},
        {"\"run\": {\"options\": []}", "options"},
        {"\"run\": {\"options\": {\"jobs\": 1.5}}", "jobs"},
        {"\"run\": {\"options\": {\"timeout\": \"soon\"}}", "timeout"},
        {"\"run\": {\"seconds\": true}", "seconds"},
        {"\"run\": {\"resumed\": -1}", "resumed"},
        {"\"iohw_version\": 1", "iohw_version"},
        {"\"baseline\": []", "baseline"},
        {"\"baseline\": {\"entries\": {}}", "entries"},
        {"\"baseline\": {\"entries\": [7]}", "entries[0]"},
        {"\"baseline\": {\"entries\": [{\"pattern\": \"a\", \"matched\": -2}]}", "matched"},
        {"\"cases\": [7], \"x\": 0", "cases[0]"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"exact\": \"yes\"}], \"x\": 0", "exact"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"points\": 3}], \"x\": 0", "points"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"points\": [3]}], \"x\": 0", "points[0]"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"points\": [{\"coord\": "
         "[1, 2, 3, 4, \"5\"]}]}], \"x\": 0", "coord"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"points\": [{\"coord\": "
         "[1, 2, 3, 4, 5], \"got\": [] }]}], \"x\": 0", "got"},
        {"\"cases\": [{\"id\": \"a\", \"status\": \"PASS\", \"errmap\": {}}], \"x\": 0", "errmap"},
        {"\"cases\": {}", "cases"},
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        char text[1024];
        const char *cases = strstr(docs[i][0], "\"cases\"") != NULL ? "" : ", \"cases\": []";
        snprintf(text, sizeof text, "{\"iohw_report_version\": 1, %s%s}", docs[i][0], cases);
        iohw_report rep;
        iohw_error err = {{0}};
        cr_expect_eq(iohw_report_parse(text, strlen(text), "typed", &rep, &err), -1,
                     "accepted %s", text);
        cr_expect_not_null(strstr(err.msg, docs[i][1]), "%s: %s", text, err.msg);
    }
    iohw_report rep;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_report_read("/nonexistent/report.json", &rep, &err), -1);
    cr_expect_not_null(strstr(err.msg, "/nonexistent/report.json"), "%s", err.msg);
}

/* --- files ---------------------------------------------------------------- */

Test(write, reports_a_full_disk)
{
    if (access("/dev/full", W_OK) != 0)
        cr_skip_test("/dev/full is missing");
    iohw_run_results r = sample();
    iohw_report_options o = {.json = "/dev/full"};
    iohw_error err = {{0}};
    cr_expect_eq(iohw_reports_write(&r, &o, &err), -1);
    cr_expect_not_null(strstr(err.msg, "JSON report /dev/full"), "%s", err.msg);
    cr_expect_eq(iohw_reports_write(&r, NULL, &err), -1);
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
    iohw_baseline b;
    iohw_error err = {{0}};
    baseline_of_sample(&r, &b);
    cr_assert_eq(b.count, 5);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_eq(iohw_baseline_write(f, &b), 0);
    fclose(f);
    iohw_baseline back;
    cr_assert_eq(iohw_baseline_parse(text, "back", &back, &err), 0, "%s\n%s", err.msg, text);
    cr_assert_eq(back.count, 5);
    for (int k = 0; k < 5; k++) {
        cr_expect_str_eq(back.entries[k].pattern, b.entries[k].pattern);
        cr_expect_str_eq(back.entries[k].reason, b.entries[k].reason);
    }
    cr_expect_eq(iohw_baseline_apply(&back, &r), 5);
    cr_expect_eq(iohw_baseline_stale_count(&back), 0);
    free(text);
    iohw_baseline_free(&back);
    iohw_baseline_free(&b);
}

/* --- the reports name the machine ----------------------------------------- */

/* A one-result run on a machine described by hand. */
static iohw_result one_result;

static iohw_run_results machine_sample(void)
{
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    one_result = make("ct1d.basic.0001", "suite/a.h5", D1, IOHW_RESULT_FAIL);
    r.items = &one_result;
    r.count = 1;
    snprintf(r.backend_name, sizeof r.backend_name, "onednn");
    snprintf(r.backend_version, sizeof r.backend_version, "oneDNN 2.6.3 (C API)");
    snprintf(r.machine.cpu, sizeof r.machine.cpu, "Test CPU <9000> & co");
    snprintf(r.machine.features, sizeof r.machine.features,
             "fma f16c avx2 avx512f avx512bw avx512_bf16");
    return r;
}

typedef int (*writer_fn)(FILE *, const iohw_run_results *, const iohw_report_options *);

/* Each format names the CPU (escaped its way), the features and the
 * library's version. */
Test(reports_machine, every_report_names_the_cpu_its_features_and_the_library_version)
{
    iohw_run_results r = machine_sample();
    static const struct {
        writer_fn fn;
        const char *cpu;
    } FORMATS[] = {
        {iohw_report_junit, "Test CPU &lt;9000&gt; &amp; co"},
        {iohw_report_json, "\"cpu\": \"Test CPU <9000> & co\""},
        {iohw_report_html, "Test CPU &lt;9000&gt; &amp; co"},
        {iohw_report_markdown, "Test CPU"},
    };
    for (size_t i = 0; i < sizeof FORMATS / sizeof FORMATS[0]; i++) {
        char *text = render(FORMATS[i].fn, &r, NULL);
        cr_expect(strstr(text, FORMATS[i].cpu) != NULL, "format %zu: %s", i, text);
        cr_expect(strstr(text, "avx512") != NULL && strstr(text, "bf16") != NULL,
                  "format %zu has no features: %s", i, text);
        cr_expect(strstr(text, "oneDNN 2.6.3") != NULL, "format %zu: %s", i, text);
        free(text);
    }
    char *junit = render(iohw_report_junit, &r, NULL);
    cr_expect(strstr(junit, "<property name=\"cpu_features\" value=\"fma f16c avx2 "
                            "avx512f avx512bw avx512_bf16\"/>") != NULL, "%s", junit);
    free(junit);
}

Test(reports_machine, the_console_summary_names_it)
{
    iohw_run_results r = machine_sample();
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    iohw_run_summary(&r, f);
    fclose(f);
    cr_expect(strstr(buf, "\nbackend: onednn (oneDNN 2.6.3 (C API))\nmachine: Test CPU "
                          "<9000> & co; fma f16c avx2 avx512f avx512bw avx512_bf16\n")
                  != NULL, "%s", buf);
    free(buf);
}

Test(reports_machine, a_json_report_gives_it_back)
{
    iohw_run_results r = machine_sample();
    char *text = render(iohw_report_json, &r, NULL);
    iohw_report rep;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_report_parse(text, strlen(text), "m", &rep, &err), 0, "%s", err.msg);
    cr_expect_str_eq(rep.results.machine.cpu, r.machine.cpu);
    cr_expect_str_eq(rep.results.machine.features, r.machine.features);
    iohw_report_free(&rep);
    /* A report of the wrong type is refused, naming the member. */
    const char *bad = "{\"iohw_report_version\": 1, \"run\": {\"machine\": 3}, \"cases\": []}";
    cr_expect_eq(iohw_report_parse(bad, strlen(bad), "m", &rep, &err), -1);
    cr_expect(strstr(err.msg, "machine") != NULL, "%s", err.msg);
    free(text);
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
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r;
    apply_conditioned(&b, &r);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_eq(iohw_baseline_write(f, &b), 0);
    fclose(f);
    iohw_baseline again;
    cr_assert_eq(iohw_baseline_parse(buf, "again", &again, &err), 0, "%s", err.msg);
    cr_expect_str_eq(again.entries[0].condition, b.entries[0].condition);
    cr_expect_str_eq(again.entries[0].reason, b.entries[0].reason);
    iohw_baseline_free(&again);
    iohw_baseline_free(&b);
    free(buf);
}
