/*
 * tests/test_report_json_hostile.c - the JSON report reader on hostile
 * input: truncations, deep nesting, bad numbers and strings, random
 * corruption, members of the wrong type.
 */
#include "test_reports_fixture.h"

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
