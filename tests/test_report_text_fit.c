/*
 * tests/test_report_text_fit.c - whatever iohw writes as a JSON report, it
 * reads back (reports/json_read.c, reports/text.c): a baseline entry whose
 * pattern fills its field with bytes that are not UTF-8 (the shape
 * libFuzzer found: the writer's U+FFFD, three bytes each, grew the
 * pattern past 127 bytes and the merged report could not be read again).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reports/reports.h"

#define FFFD "\xEF\xBF\xBD"

/* A report whose only baseline entry has pattern and reason as given. */
static char *report_text(const char *pattern, const char *reason)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    fprintf(f, "{\"iohw_report_version\": 1, \"baseline\": {\"file\": \"bl\", "
               "\"entries\": [{\"pattern\": \"%s\", \"reason\": \"%s\", "
               "\"line\": 1, \"matched\": 0}], \"stale\": []}, \"cases\": "
               "[{\"id\": \"a.1\", \"file\": \"a.h5\", \"status\": \"PASS\"}]}",
            pattern, reason);
    cr_assert_eq(fclose(f), 0);
    return text;
}

/* Merges the one report (as `iohw report merge` does) and writes it. */
static char *merge_and_write(const iohw_report *rep)
{
    iohw_report merged;
    iohw_error err = {{0}};
    const iohw_report *in[1] = {rep};
    cr_assert_eq(iohw_report_merge(in, 1, &merged, NULL, &err), 0, "%s",
                 err.msg);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    iohw_report_json(f, &merged.results, &merged.options);
    cr_assert_eq(fclose(f), 0);
    iohw_report_free(&merged);
    return text;
}

/* Reads text, merges and writes it, reads that back: both reads succeed
 * and give the same pattern and reason, want_pattern. */
static void expect_round_trip(const char *pattern, const char *reason,
                              const char *want_pattern)
{
    iohw_report first, second;
    iohw_error err = {{0}};
    char *text = report_text(pattern, reason);
    cr_assert_eq(iohw_report_parse(text, strlen(text), "in", &first, &err), 0,
                 "%s", err.msg);
    char *written = merge_and_write(&first);
    cr_assert_eq(iohw_report_parse(written, strlen(written), "out", &second,
                                   &err), 0, "%s", err.msg);
    cr_assert_eq(second.baseline.count, 1);
    cr_expect_str_eq(second.baseline.entries[0].pattern, want_pattern);
    cr_expect_str_eq(second.baseline.entries[0].pattern,
                     first.baseline.entries[0].pattern);
    cr_expect_str_eq(second.baseline.entries[0].reason,
                     first.baseline.entries[0].reason);
    /* Written again, the text is the same. */
    char *again = merge_and_write(&second);
    cr_expect_str_eq(again, written);
    free(again);
    free(written);
    free(text);
    iohw_report_free(&first);
    iohw_report_free(&second);
}

/* 127 bytes: "ct2d." and 122 bytes 0xFF.  As U+FFFD they would be 371
 * bytes; they read as '?' instead, one byte each. */
Test(report_text_fit, a_pattern_full_of_bad_bytes_reads_back_after_a_merge)
{
    char pattern[128], want[128];
    memcpy(pattern, "ct2d.", 5);
    memset(pattern + 5, 0xFF, 122);
    pattern[127] = '\0';
    memcpy(want, "ct2d.", 5);
    memset(want + 5, '?', 122);
    want[127] = '\0';
    expect_round_trip(pattern, "known", want);
}

/* Where U+FFFD fits, a bad byte reads as U+FFFD, as before. */
Test(report_text_fit, a_short_pattern_keeps_u_fffd_for_a_bad_byte)
{
    expect_round_trip("ct2d.\xFF" "1", "known", "ct2d." FFFD "1");
}

/* A reason of 383 bytes (its field's most) with a bad byte and a U+FFFD
 * already there: both become '?'. */
Test(report_text_fit, a_full_reason_with_a_bad_byte_and_a_u_fffd_reads_back)
{
    char reason[384];
    memset(reason, 'r', 383);
    reason[383] = '\0';
    reason[10] = (char)0xC0;
    memcpy(reason + 20, FFFD, 3);
    iohw_report first;
    iohw_error err = {{0}};
    char *text = report_text("ct2d.1", reason);
    cr_assert_eq(iohw_report_parse(text, strlen(text), "in", &first, &err), 0,
                 "%s", err.msg);
    const char *got = first.baseline.entries[0].reason;
    cr_expect_eq(strlen(got), 381);
    cr_expect_eq(got[10], '?');
    cr_expect_eq(got[20], '?');
    cr_expect_eq(got[21], 'r');
    iohw_report_free(&first);
    free(text);
    expect_round_trip("ct2d.1", reason, "ct2d.1");
}

/* What fits in no form is still an error naming the member. */
Test(report_text_fit, a_pattern_too_long_even_as_question_marks_is_refused)
{
    char pattern[200];
    memset(pattern, 'p', 199);
    pattern[199] = '\0';
    iohw_report rep;
    iohw_error err = {{0}};
    char *text = report_text(pattern, "known");
    cr_expect_neq(iohw_report_parse(text, strlen(text), "in", &rep, &err), 0);
    cr_expect(strstr(err.msg, "member 'pattern': longer than 127 bytes") !=
              NULL, "%s", err.msg);
    free(text);
}
