/*
 * tests/test_record.c - the result record's one codec (results/record.h):
 * full-size fields read back whole, every value is checked before use and
 * the error names the member, the older forms still read, and the tampered
 * reports and journals fuzzing found (a heat-map stack overflow) are
 * refused or drawn safely.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/journal.h"
#include "results/record.h"
#include "reports/reports.h"

/* A text of n bytes of ch. */
static const char *filled(char ch, size_t n)
{
    char *t = malloc(n + 1);
    cr_assert_not_null(t);
    memset(t, ch, n);
    t[n] = '\0';
    const char *k = iohw_text_keep(t);
    free(t);
    return k;
}

/* Texts of 5000 bytes each: longer than any field ever was. */
#define LONG 5000

static iohw_result full_result(void)
{
    iohw_result r;
    iohw_result_init(&r);
    r.case_id = filled('c', IOHW_RESULT_ID_MAX);
    r.file = filled('p', LONG);
    r.descriptor = filled('d', LONG);
    r.tags = filled('t', LONG);
    r.message = filled('m', LONG);
    r.diagnosis = filled('g', LONG);
    r.warnings = filled('w', LONG);
    r.status = IOHW_RESULT_FAIL;
    r.elements = 100;
    r.mismatches = 3;
    r.worst_ratio = 2.5;
    r.npoints = 1;
    r.points[0].coord[3] = 4;
    return r;
}

Test(record, texts_of_any_length_read_back_whole)
{
    iohw_result r = full_result(), back;
    /* Bytes that are not UTF-8 become U+FFFD, however long the text. */
    char *m = malloc(LONG + 1);
    cr_assert_not_null(m);
    for (size_t i = 0; i < LONG; i++)
        m[i] = i % 7 == 0 ? (char)0xFF : 'm';
    m[LONG] = '\0';
    r.message = iohw_text_keep(m);
    free(m);
    char *text = iohw_record_encode_alloc(&r);
    cr_assert_not_null(text);
    cr_assert_null(strchr(text, '\n'));
    cr_assert_eq(text[strlen(text) - 1], '}');
    iohw_error err = {{0}};
    cr_assert_eq(iohw_record_decode(text, strlen(text), &back, &err), 0, "%s", err.msg);
    const char *const got[] = {back.case_id, back.file, back.descriptor, back.tags,
                               back.diagnosis, back.warnings};
    const char want[] = {'c', 'p', 'd', 't', 'g', 'w'};
    for (int i = 0; i < 6; i++) {
        const size_t len = i == 0 ? IOHW_RESULT_ID_MAX : LONG;
        cr_expect_eq(strlen(got[i]), len, "text %d cut to %zu", i, strlen(got[i]));
        cr_expect_eq(strspn(got[i], (char[]){want[i], 0}), len);
    }
    /* 715 bytes 0xFF, three bytes each as U+FFFD, 4285 'm'. */
    cr_expect_eq(strlen(back.message), 715 * 3 + 4285, "message is %zu bytes",
                 strlen(back.message));
    cr_expect_eq(memcmp(back.message, "\xEF\xBF\xBDmmmmmm\xEF\xBF\xBD", 12), 0);
    cr_expect_eq(back.points[0].coord[3], 4);
    free(text);

    /* A short message keeps the replacement character. */
    r.message = iohw_text_keep("a\xFF" "b");
    char buf[65536];
    cr_assert_gt(iohw_record_encode(&r, buf, sizeof buf), 0);
    cr_expect_not_null(strstr(buf, "\"message\": \"a\\ufffdb\""));
    /* A buffer too small is refused, not overrun. */
    cr_expect_eq(iohw_record_encode(&r, buf, 100), -1);
    cr_expect_str_eq(buf, "");
}

Test(record, the_longest_encoding_fits_iohw_record_size)
{
    iohw_result r;
    iohw_result_init(&r);
    /* every text byte escaped as \u0001 */
    r.file = r.descriptor = r.tags = filled(0x01, LONG);
    r.case_id = filled(0x01, IOHW_RESULT_ID_MAX);
    r.message = r.diagnosis = r.warnings = filled(0x01, LONG);
    memset(r.direction, 0x01, sizeof r.direction - 1);
    r.status = IOHW_RESULT_UNSUPPORTED;
    r.elements = r.mismatches = r.unwritten = INT64_MIN;
    r.worst_ratio = r.seconds = -1.2345678901234567e-300;
    r.npoints = IOHW_RESULT_POINTS;
    for (int i = 0; i < IOHW_RESULT_POINTS; i++) {
        r.points[i].index = INT64_MIN;
        for (int a = 0; a < 5; a++)
            r.points[i].coord[a] = INT64_MIN;
        r.points[i].expected = r.points[i].got = r.points[i].bound = -2.2250738585072014e-308;
    }
    memset(r.errmap, 255, sizeof r.errmap);
    char *text = iohw_record_encode_alloc(&r);
    cr_assert_not_null(text, "the worst case does not fit iohw_record_size");
    cr_expect_lt(strlen(text), iohw_record_size(&r));
    /* 6 texts of LONG bytes at 6 bytes each, at least. */
    cr_expect_gt(strlen(text), 6 * 6 * LONG);
    free(text);
}

/* Decodes text expecting a refusal whose message names `member`. */
static void expect_refused(const char *text, const char *member)
{
    iohw_result r;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_record_decode(text, strlen(text), &r, &err), -1, "accepted %s", text);
    cr_expect_not_null(strstr(err.msg, member), "%s: '%s' not named in: %s", text, member,
                       err.msg);
}

#define HEAD "{\"id\":\"a\",\"status\":\"FAIL\","

Test(record, every_value_is_checked_and_the_error_names_it)
{
    expect_refused(HEAD "\"points\":[{\"coord\":[0,0,0,4611686018427387904,0]}]}",
                   "points[0].coord[3]");
    expect_refused(HEAD "\"points\":[{\"coord\":[0,0,0,-1,0]}]}", "points[0].coord[3]");
    expect_refused(HEAD "\"points\":[{\"coord\":[0,0,0,1]}]}", "points[0].coord");
    expect_refused(HEAD "\"points\":[{},{\"index\":-5}]}", "points[1].index");
    expect_refused(HEAD "\"points\":[{\"got\":\"many\"}]}", "points[0].got");
    expect_refused(HEAD "\"errmap\":[1,2,3]}", "errmap");
    expect_refused(HEAD "\"errmap\":\"zz\"}", "errmap");
    expect_refused(HEAD "\"elements\":-1}", "elements");
    expect_refused(HEAD "\"mismatches\":1.5}", "mismatches");
    expect_refused(HEAD "\"unwritten\":1e400}", "unwritten");
    expect_refused(HEAD "\"exact\":2}", "exact");
    expect_refused(HEAD "\"message\":5}", "message");
    expect_refused("{\"id\":\"a\",\"status\":\"SOMETIMES\"}", "status");
    expect_refused("{\"status\":\"PASS\"}", "id");
    expect_refused("{\"id\":\"a\"}", "status");
    /* A case id is at most 127 bytes (specification section 4). */
    char big[400];
    snprintf(big, sizeof big, HEAD "\"id\":\"%0200d\"}", 7);
    expect_refused(big, "id");
    expect_refused(HEAD "\"message\":\"a\\u0000b\"}", "message");
    /* A NUL byte inside the length given, and text after the object. */
    iohw_result r;
    cr_expect_eq(iohw_record_decode("{\"id\":\"a\",\0\"status\":\"PASS\"}", 28, &r, NULL), -1);
    expect_refused("{\"id\":\"a\",\"status\":\"PASS\"} {}", "after the object");
    /* The length bounds the text: a record cut by it is refused. */
    const char *whole = "{\"id\":\"a\",\"status\":\"PASS\"}";
    cr_expect_eq(iohw_record_decode(whole, strlen(whole) - 1, &r, NULL), -1);
    cr_expect_eq(iohw_record_decode(whole, strlen(whole), &r, NULL), 0);
}

Test(record, older_forms_and_report_members_read)
{
    iohw_result r;
    iohw_error err = {{0}};
    char hex[600];
    memset(hex, '0', 512);
    hex[510] = 'f', hex[511] = 'e';
    hex[512] = '\0';
    char text[1200];
    snprintf(text, sizeof text, "{\"id\":\"a\",\"file\":\"f\",\"status\":\"PASS\",\"exact\":1,"
             "\"errmap\":\"%s\",\"category\":\"x\",\"repro\":\"iohw run\",\"wall\":null,"
             "\"worst_ratio\":null}", hex);
    cr_assert_eq(iohw_record_decode(text, strlen(text), &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.exact, 1);
    cr_expect_eq(r.errmap[255], 0xfe);
    cr_expect(isinf(r.worst_ratio));
    const char *v1 = "{\"id\":\"b\",\"status\":\"FAIL\",\"exact\":true,\"message\":null}";
    cr_assert_eq(iohw_record_decode(v1, strlen(v1), &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.exact, 1);
    cr_expect_eq(r.worst_ratio, 0);
}

/* A result as a tampered report or journal could have held it before the
 * codec checked coordinates: a descriptor that does not parse and points
 * far outside any tensor (fuzzing found these overflow the heat map's
 * cells on the stack, and a signed overflow of h * rows). */
static iohw_result tampered(void)
{
    iohw_result r;
    iohw_result_init(&r);
    r.case_id = iohw_text_keep("hostile.1");
    r.descriptor = iohw_text_keep("not a descriptor");
    r.status = IOHW_RESULT_FAIL;
    r.elements = 10;
    r.mismatches = 3;
    r.npoints = 3;
    r.points[0].coord[3] = INT64_MAX;
    r.points[0].coord[4] = 3;
    r.points[1].coord[3] = (int64_t)1 << 62;
    r.points[1].coord[4] = (int64_t)1 << 62;
    r.points[2].coord[3] = ((int64_t)1 << 62) - 1;
    r.points[2].coord[4] = -7;
    return r;
}

Test(record, a_heat_map_of_hostile_points_stays_inside_its_cells)
{
    iohw_result r = tampered();
    iohw_run_results rr = {.items = &r, .count = 1};
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(iohw_report_html(f, &rr, NULL), 0);
    fclose(f);
    cr_expect_not_null(strstr(buf, "class=\"heatmap\""));
    free(buf);
}

Test(record, a_tampered_report_and_journal_are_refused_naming_the_coordinate)
{
    /* The JSON report `iohw report` reads. */
    const char *report =
        "{\"iohw_report_version\": 1, \"cases\": [\n"
        "{\"id\":\"hostile.1\",\"descriptor\":\"x\",\"status\":\"FAIL\",\"mismatches\":1,"
        "\"points\":[{\"coord\":[0,0,0,9223372036854775807,3]}]}]}";
    iohw_report rep;
    iohw_error err = {{0}};
    cr_expect_eq(iohw_report_parse(report, strlen(report), "tampered.json", &rep, &err), -1);
    cr_expect_not_null(strstr(err.msg, "tampered.json:2:1: cases[0]"), "%s", err.msg);
    cr_expect_not_null(strstr(err.msg, "points[0].coord[3]"), "%s", err.msg);

    /* The journal `iohw run --resume` reads: the line is skipped with a
     * warning naming the coordinate, the good line is kept. */
    char path[512];
    snprintf(path, sizeof path, "%s/record-%d-tampered.jsonl", IOHW_TEST_TMP, (int)getpid());
    FILE *f = fopen(path, "w");
    cr_assert_not_null(f);
    fputs("{\"id\":\"ok.1\",\"file\":\"f.h5\",\"status\":\"PASS\"}\n"
          "{\"id\":\"hostile.1\",\"file\":\"f.h5\",\"status\":\"FAIL\",\"descriptor\":\"x\","
          "\"points\":[{\"coord\":[0,0,0,4611686018427387904,0]}]}\n", f);
    fclose(f);
    char *warn_text = NULL;
    size_t warn_len = 0;
    FILE *warn = open_memstream(&warn_text, &warn_len);
    iohw_result *items = NULL;
    int64_t count = 0, skipped = 0;
    cr_assert_eq(iohw_journal_read(path, &items, &count, warn, &skipped, &err), 0, "%s",
                 err.msg);
    fclose(warn);
    cr_expect_eq(count, 1);
    cr_expect_eq(skipped, 1);
    cr_expect_str_eq(items[0].case_id, "ok.1");
    cr_expect_not_null(strstr(warn_text, "points[0].coord[3]"), "%s", warn_text);
    free(items);
    free(warn_text);
    unlink(path);
}
