/*
 * tests/test_journal.c - the run journal (results/journal.h): JSON lines that
 * read back exactly, awkward strings, lines cut short by a killed run.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "results/journal.h"

static void tmp_path(char *buf, size_t n, const char *name)
{
    snprintf(buf, n, "%s/journal-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
}

/* A result with every field set to something awkward. */
static void awkward_result(iohw_result *r)
{
    iohw_result_init(r);
    r->case_id = iohw_text_keep("ct2d.grouped-f32_0042");
    r->file = iohw_text_keep("dir with space/\"quoted\"\\back.h5");
    r->descriptor = iohw_text_keep("n=2 ci=4 co=6 g=2 in=5x7 k=3x2");
    /* UTF-8: e-acute (2 bytes), a CJK character (3), an emoji (4). */
    r->tags = iohw_text_keep("caf\xc3\xa9,\xe6\x97\xa5,\xf0\x9f\x98\x80");
    r->message = iohw_text_keep("line one\nline \"two\"\twith\\backslash\x01 and \x7f");
    r->diagnosis = iohw_text_keep("matches the oracle with weight I and O exchanged");
    r->status = IOHW_RESULT_FAIL;
    r->exact = 1;
    r->elements = (int64_t)1 << 40;
    r->mismatches = 12345678901LL;
    r->unwritten = 7;
    r->worst_ratio = INFINITY;
    r->seconds = 0.1;
    r->npoints = IOHW_RESULT_POINTS;
    for (int i = 0; i < IOHW_RESULT_POINTS; i++) {
        iohw_point *p = &r->points[i];
        p->index = 1000 + i;
        for (int a = 0; a < 5; a++)
            p->coord[a] = i * 10 + a;
        p->expected = i == 0 ? -0.0 : 1.0 / (i + 3);
        p->got = i == 1 ? NAN : i == 2 ? -INFINITY : 4.9406564584124654e-324 * i;
        p->bound = 1e-300 * (i + 1);
    }
}

/* Bitwise equality of doubles, NaN equal to NaN. */
static int same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b);
    return memcmp(&a, &b, sizeof a) == 0;
}

static void assert_same_result(const iohw_result *a, const iohw_result *b)
{
    cr_assert_str_eq(a->case_id, b->case_id);
    cr_assert_str_eq(a->file, b->file);
    cr_assert_str_eq(a->descriptor, b->descriptor);
    cr_assert_str_eq(a->tags, b->tags);
    cr_assert_str_eq(a->message, b->message);
    cr_assert_str_eq(a->diagnosis, b->diagnosis);
    cr_assert_eq(a->status, b->status);
    cr_assert_eq(a->exact, b->exact);
    cr_assert_eq(a->elements, b->elements);
    cr_assert_eq(a->mismatches, b->mismatches);
    cr_assert_eq(a->unwritten, b->unwritten);
    cr_assert(same_double(a->worst_ratio, b->worst_ratio));
    cr_assert(same_double(a->seconds, b->seconds));
    cr_assert_eq(a->npoints, b->npoints);
    for (int i = 0; i < a->npoints; i++) {
        cr_assert_eq(a->points[i].index, b->points[i].index);
        for (int k = 0; k < 5; k++)
            cr_assert_eq(a->points[i].coord[k], b->points[i].coord[k]);
        cr_assert(same_double(a->points[i].expected, b->points[i].expected),
                  "point %d expected", i);
        cr_assert(same_double(a->points[i].got, b->points[i].got), "point %d got", i);
        cr_assert(same_double(a->points[i].bound, b->points[i].bound));
    }
}

Test(journal, a_result_with_awkward_strings_and_numbers_reads_back_exactly)
{
    iohw_result r, back;
    char line[65536];
    iohw_error err = {{0}};
    awkward_result(&r);
    int n = iohw_journal_format(&r, line, sizeof line);
    cr_assert_gt(n, 0);
    cr_assert_eq(iohw_journal_parse(line, &back, &err), 0, "%s", err.msg);
    assert_same_result(&r, &back);
}

Test(journal, a_line_is_one_line_of_escaped_json)
{
    iohw_result r;
    char line[65536];
    awkward_result(&r);
    int n = iohw_journal_format(&r, line, sizeof line);
    cr_assert_eq((size_t)n, strlen(line));
    cr_assert_eq(line[n - 1], '\n');
    cr_assert_null(memchr(line, '\n', (size_t)n - 1), "a raw newline inside the line");
    /* Escapes written by hand from RFC 8259. */
    cr_assert_not_null(strstr(line, "\"message\": \"line one\\nline \\\"two\\\"\\twith"
                                    "\\\\backslash\\u0001 and \\u007f\""), "%s", line);
    cr_assert_not_null(strstr(line, "\"file\": \"dir with space/\\\"quoted\\\"\\\\back.h5\""));
    /* Valid UTF-8 passes through as is. */
    cr_assert_not_null(strstr(line, "\"tags\": \"caf\xc3\xa9,\xe6\x97\xa5,\xf0\x9f\x98\x80\""));
    /* JSON has no infinities: they are strings. */
    cr_assert_not_null(strstr(line, "\"worst_ratio\": \"inf\""));
    cr_assert_not_null(strstr(line, "\"status\": \"FAIL\""));
    cr_assert_not_null(strstr(line, "\"elements\": 1099511627776"));
}

Test(journal, bytes_that_are_not_utf8_become_the_replacement_character)
{
    iohw_result r, back;
    char line[65536];
    iohw_result_init(&r);
    r.case_id = iohw_text_keep("a");
    r.file = iohw_text_keep("f.h5");
    /* A lone continuation byte, a cut 2-byte sequence, an overlong '/'. */
    r.message = iohw_text_keep("x\x80y\xc3z\xc0\xaf");
    cr_assert_gt(iohw_journal_format(&r, line, sizeof line), 0);
    cr_assert_not_null(strstr(line, "\"message\": \"x\\ufffdy\\ufffdz\\ufffd\\ufffd\""),
                       "%s", line);
    cr_assert_eq(iohw_journal_parse(line, &back, NULL), 0);
    cr_assert_str_eq(back.message, "x\xef\xbf\xbdy\xef\xbf\xbdz\xef\xbf\xbd\xef\xbf\xbd");
}

Test(journal, unicode_escapes_and_surrogate_pairs_decode_to_utf8)
{
    iohw_result r;
    iohw_error err = {{0}};
    const char *line =
        " { \"file\" : \"f.h5\", \"status\":\"PASS\", \"id\":\"\\u0061\\u002e1\","
        " \"message\":\"\\u00e9\\ud83d\\ude00\\/\\b\\f\\r\", \"future\":{\"a\":[1,2.5e3,"
        "true,false,null,\"s\"]} }\n";
    cr_assert_eq(iohw_journal_parse(line, &r, &err), 0, "%s", err.msg);
    cr_assert_str_eq(r.case_id, "a.1");
    /* U+00E9 = C3 A9; U+1F600 = F0 9F 98 80. */
    cr_assert_str_eq(r.message, "\xc3\xa9\xf0\x9f\x98\x80/\b\f\r");
    cr_assert_eq(r.status, IOHW_RESULT_PASS);
    cr_assert_eq(r.npoints, 0);
}

Test(journal, lines_that_are_not_whole_results_are_rejected)
{
    iohw_result r;
    static const char *const bad[] = {
        "",
        "{\"id\":\"a\",\"file\":\"f.h5\"}",                      /* no status */
        "{\"file\":\"f.h5\",\"status\":\"PASS\"}",               /* no id */
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"MAYBE\"}", /* unknown status */
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"PASS\",\"elements\":1.5}",
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"PASS\"} trailing",
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"PASS\",\"message\":\"cut",
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"PASS\",\"message\":\"\\ud83d\"}",
        "{\"id\":\"a\",\"file\":\"f.h5\",\"status\":\"PASS\",\"message\":\"raw\ttab\"}",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iohw_error err = {{0}};
        cr_expect_eq(iohw_journal_parse(bad[i], &r, &err), -1, "line %zu accepted", i);
        cr_expect_neq(err.msg[0], '\0', "line %zu: no message", i);
    }
}

Test(journal, a_small_buffer_is_refused_not_overrun)
{
    iohw_result r;
    char line[64];
    awkward_result(&r);
    memset(line, 'Z', sizeof line);
    cr_assert_eq(iohw_journal_format(&r, line, 40), -1);
    cr_assert_eq(line[40], 'Z');
}

Test(journal, a_missing_journal_is_empty)
{
    char path[512];
    iohw_result *items = (iohw_result *)1;
    int64_t count = -1;
    tmp_path(path, sizeof path, "missing.jsonl");
    unlink(path);
    cr_assert_eq(iohw_journal_read(path, &items, &count, NULL, NULL, NULL), 0);
    cr_assert_eq(count, 0);
    cr_assert_null(items);
}

/* Writes n results a0, a1, ... through the journal API. */
static void write_results(const char *path, int append, int first, int n)
{
    iohw_error err = {{0}};
    iohw_journal *j = iohw_journal_open(path, append, &err);
    cr_assert_not_null(j, "%s", err.msg);
    for (int i = first; i < first + n; i++) {
        iohw_result r;
        awkward_result(&r);
        r.case_id = iohw_text_fmt("a%d", i);
        r.status = (iohw_result_status)(i % IOHW_RESULT_STATUS_COUNT);
        cr_assert_eq(iohw_journal_append(j, &r, &err), 0, "%s", err.msg);
    }
    cr_assert_eq(iohw_journal_close(j, &err), 0, "%s", err.msg);
}

Test(journal, a_last_line_cut_short_is_ignored_with_a_warning)
{
    char path[512], line[65536];
    tmp_path(path, sizeof path, "cut.jsonl");
    write_results(path, 0, 0, 3);
    /* Half of a fourth line, as a killed run leaves it. */
    iohw_result r;
    awkward_result(&r);
    r.case_id = iohw_text_keep("a3");
    int n = iohw_journal_format(&r, line, sizeof line);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fwrite(line, 1, (size_t)n / 2, f);
    fclose(f);

    char *warn_text = NULL;
    size_t warn_len = 0;
    FILE *warn = open_memstream(&warn_text, &warn_len);
    iohw_result *items = NULL;
    int64_t count = 0, skipped = 0;
    cr_assert_eq(iohw_journal_read(path, &items, &count, warn, &skipped, NULL), 0);
    fclose(warn);
    cr_assert_eq(count, 3);
    cr_assert_eq(skipped, 1);
    cr_assert_str_eq(items[0].case_id, "a0");
    cr_assert_str_eq(items[2].case_id, "a2");
    cr_assert_eq(items[2].status, (iohw_result_status)2);
    cr_assert_not_null(strstr(warn_text, ":4:"), "%s", warn_text);
    cr_assert_not_null(strstr(warn_text, "ignored"));
    free(warn_text);
    free(items);
    unlink(path);
}

Test(journal, appending_after_a_cut_line_keeps_the_new_lines_whole)
{
    char path[512];
    tmp_path(path, sizeof path, "append.jsonl");
    write_results(path, 0, 0, 2);
    FILE *f = fopen(path, "a");
    cr_assert_not_null(f);
    fputs("{\"id\":\"a2\",\"fi", f);
    fclose(f);
    write_results(path, 1, 3, 2);

    iohw_result *items = NULL;
    int64_t count = 0, skipped = 0;
    cr_assert_eq(iohw_journal_read(path, &items, &count, NULL, &skipped, NULL), 0);
    cr_assert_eq(count, 4);
    cr_assert_eq(skipped, 1);
    static const char *const ids[] = {"a0", "a1", "a3", "a4"};
    for (int i = 0; i < 4; i++)
        cr_assert_str_eq(items[i].case_id, ids[i]);
    free(items);
    unlink(path);
}

Test(journal, opening_without_append_starts_a_new_journal)
{
    char path[512];
    tmp_path(path, sizeof path, "trunc.jsonl");
    write_results(path, 0, 0, 3);
    write_results(path, 0, 10, 1);
    iohw_result *items = NULL;
    int64_t count = 0;
    cr_assert_eq(iohw_journal_read(path, &items, &count, NULL, NULL, NULL), 0);
    cr_assert_eq(count, 1);
    cr_assert_str_eq(items[0].case_id, "a10");
    free(items);
    unlink(path);
}

Test(journal, the_error_map_reads_back_exactly_and_bad_hex_is_rejected)
{
    iohw_result r, back;
    char line[65536];
    iohw_error err = {{0}};
    awkward_result(&r);
    for (int i = 0; i < IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP; i++)
        r.errmap[i] = (uint8_t)((i * 37) % 256);
    int n = iohw_journal_format(&r, line, sizeof line);
    cr_assert_gt(n, 0);
    cr_assert_eq(iohw_journal_parse(line, &back, &err), 0, "%s", err.msg);
    cr_assert_eq(memcmp(r.errmap, back.errmap, sizeof r.errmap), 0);

    /* An all-zero map is left out of the line. */
    memset(r.errmap, 0, sizeof r.errmap);
    cr_assert_gt(iohw_journal_format(&r, line, sizeof line), 0);
    cr_assert_null(strstr(line, "errmap"));

    /* A map that is not 512 hex digits makes the line invalid. */
    const char *bad = "{\"id\":\"a\",\"file\":\"f\",\"status\":\"FAIL\",\"errmap\":\"0g\"}";
    cr_assert_eq(iohw_journal_parse(bad, &back, &err), -1);
    cr_assert_not_null(strstr(err.msg, "errmap"), "%s", err.msg);
}
