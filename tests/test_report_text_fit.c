/*
 * tests/test_report_text_fit.c - whatever iohw writes as a JSON report, it
 * reads back (reports/json_read.c, reports/text.c): a baseline entry whose
 * pattern is full of bytes that are not UTF-8 (the shape libFuzzer found:
 * the writer's U+FFFD, three bytes each, grew the pattern past what a
 * fixed field held and the merged report could not be read again), and
 * 4 KB patterns, reasons and conditions: the strings have no fixed size.
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

/* n bytes c, malloc'd. */
static char *filled(char c, size_t n)
{
    char *s = malloc(n + 1);
    cr_assert_not_null(s);
    memset(s, c, n);
    s[n] = '\0';
    return s;
}

/* "ct2d." and 4091 bytes 0xFF: each reads back as U+FFFD (3 bytes), the
 * merged report is read again unchanged. */
Test(report_text_fit, a_4kb_pattern_full_of_bad_bytes_reads_back_after_a_merge)
{
    char *pattern = filled((char)0xFF, 4096), *want = malloc(5 + 3 * 4091 + 1);
    cr_assert_not_null(want);
    memcpy(pattern, "ct2d.", 5);
    memcpy(want, "ct2d.", 5);
    for (size_t k = 0; k < 4091; k++)
        memcpy(want + 5 + 3 * k, FFFD, 3);
    want[5 + 3 * 4091] = '\0';
    expect_round_trip(pattern, "known", want);
    free(want);
    free(pattern);
}

/* A bad byte reads as U+FFFD in a short pattern too. */
Test(report_text_fit, a_short_pattern_keeps_u_fffd_for_a_bad_byte)
{
    expect_round_trip("ct2d.\xFF" "1", "known", "ct2d." FFFD "1");
}

/* A 4 KB reason with a bad byte and a U+FFFD already there reads whole. */
Test(report_text_fit, a_4kb_reason_with_a_bad_byte_reads_back_whole)
{
    char *reason = filled('r', 4096);
    reason[10] = (char)0xC0;
    memcpy(reason + 20, FFFD, 3);
    iohw_report first;
    iohw_error err = {{0}};
    char *text = report_text("ct2d.1", reason);
    cr_assert_eq(iohw_report_parse(text, strlen(text), "in", &first, &err), 0,
                 "%s", err.msg);
    const char *got = first.baseline.entries[0].reason;
    cr_expect_eq(strlen(got), 4096 + 2);
    cr_expect_eq(memcmp(got + 10, FFFD, 3), 0);
    cr_expect_eq(memcmp(got + 22, FFFD, 3), 0);
    cr_expect_eq(got[25], 'r');
    cr_expect_eq(got[4097], 'r');
    iohw_report_free(&first);
    free(text);
    expect_round_trip("ct2d.1", reason, "ct2d.1");
    free(reason);
}

/* 4 KB pattern, condition words and reason in a baseline file: parsed,
 * written and parsed again whole. */
Test(report_text_fit, a_baseline_file_with_4kb_fields_reads_back_whole)
{
    char *pattern = filled('p', 4096), *reason = filled('r', 4096);
    char *version = filled('v', 4096);
    memcpy(version, "version~", 8);
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    fprintf(f, "%s  %s  %s\n", pattern, version, reason);
    cr_assert_eq(fclose(f), 0);
    iohw_baseline b, back;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_parse(text, "bl.txt", &b, &err), 0, "%s", err.msg);
    cr_assert_eq(b.count, 1);
    cr_expect_str_eq(b.entries[0].pattern, pattern);
    cr_expect_str_eq(b.entries[0].condition, version);
    cr_expect_str_eq(b.entries[0].reason, reason);
    free(text);
    text = NULL;
    f = open_memstream(&text, &len);
    cr_assert_not_null(f);
    cr_assert_eq(iohw_baseline_write(f, &b), 0);
    cr_assert_eq(fclose(f), 0);
    cr_assert_eq(iohw_baseline_parse(text, "back.txt", &back, &err), 0, "%s", err.msg);
    cr_assert_eq(back.count, 1);
    cr_expect_str_eq(back.entries[0].pattern, pattern);
    cr_expect_str_eq(back.entries[0].condition, version);
    cr_expect_str_eq(back.entries[0].reason, reason);
    iohw_baseline_free(&back);
    iohw_baseline_free(&b);
    free(text);
    free(version);
    free(reason);
    free(pattern);
}

/* A missing pattern is still an error naming the member. */
Test(report_text_fit, a_missing_pattern_is_refused_naming_the_member)
{
    iohw_report rep;
    iohw_error err = {{0}};
    const char *text = "{\"iohw_report_version\": 1, \"baseline\": {\"file\": \"bl\", "
                       "\"entries\": [{\"reason\": \"r\"}], \"stale\": []}, \"cases\": []}";
    cr_expect_neq(iohw_report_parse(text, strlen(text), "in", &rep, &err), 0);
    cr_expect(strstr(err.msg, "member 'pattern' missing") != NULL, "%s", err.msg);
}
