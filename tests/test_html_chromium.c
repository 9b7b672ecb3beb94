/*
 * tests/test_html_chromium.c - the HTML report opened in a real browser:
 * headless Chromium loads a report full of hostile strings, failures with
 * heat maps and a baseline, and tests/check_html.sh checks that the page's
 * script ran to its end without errors and that nothing was fetched.
 * A verdict with a very long repro line and long meanings renders too.
 * Skipped when /usr/bin/chromium is not installed.
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "reports/reports.h"

#define D1 "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 " \
           "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7"
#define D2 "ci=4 co=4 g=4 in=3x4x5 k=2x3x2 s=2 d=2x1x1 dt=bf16 xl=NDHWC " \
           "wl=GOIDHW fill=exact"

static const char *const statuses_cycle[] = {"PASS", "FAIL", "PASS", "UNSUPPORTED",
                                             "CRASH", "PASS", "WAIVED", "INVALID"};

static void run_check(const char *html, int expect_ok)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "bash '%s/tests/check_html.sh' '%s'", IOHW_SOURCE_DIR, html);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "check_html.sh did not exit");
    if (WEXITSTATUS(st) == 77)
        cr_skip_test("chromium is not installed");
    if (expect_ok)
        cr_expect_eq(WEXITSTATUS(st), 0, "check_html.sh failed on %s", html);
    else
        cr_expect_eq(WEXITSTATUS(st), 1, "check_html.sh passed a broken page %s", html);
}

Test(html_chromium, renders_a_hostile_report_without_errors, .timeout = 300)
{
    if (access("/usr/bin/chromium", X_OK) != 0)
        cr_skip_test("/usr/bin/chromium is not installed");
    enum { N = 40 };
    static iohw_result it[N];
    for (int i = 0; i < N; i++) {
        iohw_result *r = &it[i];
        iohw_result_status s;
        iohw_result_init(r);
        iohw_result_status_parse(statuses_cycle[i % 8], &s);
        r->case_id = iohw_text_fmt("ct%dd.cat%d.%04d", 2 + i % 2, i % 3, i);
        r->file = iohw_text_fmt("suite/f%d.h5", i % 2);
        r->descriptor = iohw_text_keep(i % 2 ? D2 : D1);
        r->tags = iohw_text_fmt("rank%d,<b>tag</b>", 2 + i % 2);
        r->status = s;
        r->message = iohw_text_fmt(
                 "msg %d </script><script>document.body.setAttribute("
                 "'data-iohw-js-error','injected')</script> \x01 \xff '\" `${x}`", i);
        r->elements = s == IOHW_RESULT_UNSUPPORTED || s == IOHW_RESULT_INVALID ? 0 : 480;
        r->worst_ratio = s == IOHW_RESULT_FAIL ? (i % 3 ? INFINITY : 1e5) : 0.1 * i;
        r->seconds = 0.001 * i;
        if (s == IOHW_RESULT_FAIL || s == IOHW_RESULT_CRASH) {
            r->mismatches = 3;
            r->npoints = 3;
            for (int k = 0; k < 3; k++)
                r->points[k] = (iohw_point){k, {0, k, 0, k, 2 * k}, 1, 2, 1e-6};
            if (i % 3 == 1)
                for (int b = 0; b < IOHW_RESULT_ERRMAP * IOHW_RESULT_ERRMAP; b += 7)
                    r->errmap[b] = (uint8_t)(b % 256);
        }
    }
    /* A descriptor that does not parse must not break the page either. */
    it[5].descriptor = iohw_text_fmt("ci=</script>");
    iohw_run_results r = {.items = it, .count = N, .seconds = 4.2};
    r.backend_name = "<i>naive</i>";
    r.backend_version = "1.0 \"q\"";
    iohw_baseline bl;
    cr_assert_eq(iohw_baseline_parse("stale.one <b>reason</b>\n", "bl.txt", &bl, NULL), 0);

    char html[512];
    snprintf(html, sizeof html, "%s/chromium-%d.html", IOHW_TEST_TMP, (int)getpid());
    iohw_report_options o = {.html = html, .backend_path = "/x/lib'q.so",
                             .baseline = &bl, .start_time = 1796209786};
    iohw_error err = {{0}};
    cr_assert_eq(iohw_reports_write(&r, &o, &err), 0, "%s", err.msg);
    run_check(html, 1);
    iohw_baseline_free(&bl);
    remove(html);
}

/* The verdict table with a very long repro line (a deep backend path with
 * no space to break at) and the longest meanings of the diagnosis table:
 * the page still renders without errors, with the rules that keep the
 * meaning column readable and wrap the repro in its cell. */
Test(html_chromium, renders_a_verdict_with_a_long_repro_and_meaning, .timeout = 300)
{
    if (access("/usr/bin/chromium", X_OK) != 0)
        cr_skip_test("/usr/bin/chromium is not installed");
    static const char *const diag[] = {
        "matches the oracle with weight I and O exchanged",
        "matches the oracle with input and output channels of the groups "
        "interleaved, bias included",
    };
    enum { N = 4 };
    static iohw_result it[N];
    for (int i = 0; i < N; i++) {
        iohw_result *r = &it[i];
        iohw_result_init(r);
        r->status = IOHW_RESULT_FAIL;
        r->case_id = iohw_text_fmt("ct2d.long.%04d", i);
        r->file = iohw_text_fmt("suite/f.h5");
        r->descriptor = iohw_text_keep(D1);
        r->diagnosis = iohw_text_keep(diag[i % 2]);
        r->message = iohw_text_fmt("1 of 480 output elements "
                 "outside the tolerance");
        r->elements = 480;
        r->mismatches = 1;
        r->worst_ratio = 1e5;
    }
    char path[1200];
    int len = snprintf(path, sizeof path, "/opt");
    while (len < 900)
        len += snprintf(path + len, sizeof path - (size_t)len,
                        "/a-folder-name-with-no-space-to-break-at");
    snprintf(path + len, sizeof path - (size_t)len, "/libmine.so");
    iohw_run_results r = {.items = it, .count = N, .seconds = 1.0};
    r.backend_name = "mine";

    char html[512], png[512];
    snprintf(html, sizeof html, "%s/chromium-long-%d.html", IOHW_TEST_TMP, (int)getpid());
    snprintf(png, sizeof png, "%s/chromium-long-%d.png", IOHW_TEST_TMP, (int)getpid());
    iohw_report_options o = {.html = html, .backend_path = path,
                             .start_time = 1796209786};
    iohw_error err = {{0}};
    cr_assert_eq(iohw_reports_write(&r, &o, &err), 0, "%s", err.msg);

    FILE *f = fopen(html, "r");
    cr_assert_not_null(f);
    static char page[1 << 20];
    size_t n = fread(page, 1, sizeof page - 1, f);
    fclose(f);
    page[n] = '\0';
    cr_expect_not_null(strstr(page, "<pre class=\"repro\">iohw run --backend /opt/a-folder"));
    cr_expect_not_null(strstr(page, "<td class=\"meaning\">"));
    cr_expect_not_null(strstr(page, "table.groups pre.repro{white-space:pre-wrap;"));

    char cmd[2048];
    snprintf(cmd, sizeof cmd, "bash '%s/tests/check_html.sh' '%s' '%s'",
             IOHW_SOURCE_DIR, html, png);
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "check_html.sh did not exit");
    if (WEXITSTATUS(st) == 77)
        cr_skip_test("chromium is not installed");
    cr_expect_eq(WEXITSTATUS(st), 0, "check_html.sh failed on %s", html);
    cr_expect_eq(access(png, R_OK), 0, "no screenshot %s", png);
    remove(html);
    remove(png);
}

Test(html_chromium, notices_a_page_whose_script_fails, .timeout = 300)
{
    if (access("/usr/bin/chromium", X_OK) != 0)
        cr_skip_test("/usr/bin/chromium is not installed");
    /* The checker itself must be able to fail: a page that throws. */
    char html[512];
    snprintf(html, sizeof html, "%s/chromium-bad-%d.html", IOHW_TEST_TMP, (int)getpid());
    FILE *f = fopen(html, "w");
    cr_assert_not_null(f);
    fputs("<!DOCTYPE html><html><body><div id=\"pair-grid\"><table></table></div>"
          "<script>null.boom();document.body.setAttribute('data-iohw-ready','1');"
          "</script></body></html>\n", f);
    fclose(f);
    run_check(html, 0);
    remove(html);
}
