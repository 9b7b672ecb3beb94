/*
 * tests/test_reports.c - the report writers (JUnit, JSON, Markdown, HTML)
 * and the machine they name, on the runs of test_reports_fixture.h.  The
 * JSON reader on hostile input, the baseline and the factor coverage have
 * files of their own (test_report_*.c).
 */
#include "test_reports_fixture.h"

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
                                    "\"passed_with_note\": 0, \"exit_code\": 1}"), "%s", text);
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

/* The verdict table (issue: its meaning column wrapped one word per line
 * and a long repro ran past the right edge): the meaning cells and the repro
 * blocks carry classes whose rules give the column a minimum width and let
 * the repro wrap inside its cell. */
Test(html, the_verdict_keeps_the_meaning_readable_and_wraps_the_repro)
{
    iohw_run_results r = sample();
    iohw_report_options o = sample_options();
    char *h = render(iohw_report_html, &r, &o);
    const char *verdict = strstr(h, "<section id=\"verdict\">");
    cr_assert_not_null(verdict);
    const char *end = strstr(verdict, "</section>");
    cr_assert_not_null(end);
    cr_expect_not_null(strstr(h, "table.groups .meaning{min-width:16em}"));
    cr_expect_not_null(strstr(h, "table.groups pre.repro{white-space:pre-wrap;"
                                 "overflow-wrap:anywhere;word-break:break-all;"));
    const char *table = strstr(verdict, "<table class=\"groups\">");
    cr_expect(table != NULL && table < end, "no table.groups in the verdict");
    const char *meaning = strstr(verdict, "<td class=\"meaning\">");
    cr_expect(meaning != NULL && meaning < end, "no meaning cell in the verdict");
    const char *repro = strstr(verdict, "<pre class=\"repro\">iohw run --backend");
    cr_expect(repro != NULL && repro < end, "no repro block in the verdict");
    free(h);
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
    one.message = iohw_text_keep(ODD_IN);
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
    one.message = iohw_text_keep(ODD_IN);
    iohw_run_results r = {.items = &one, .count = 1};
    char *x = render(iohw_report_junit, &r, NULL);
    /* In the attribute: quotes, CR, LF, tab as references; \b \f DEL as text. */
    cr_expect_not_null(strstr(x, "message=\"ERROR: q&quot; b\\ s/ &lt;/x &#13;&#10;&#9;\\x08\\x0c "
                                 "\\x7f \xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 \xE2\x80\xA8 | "
                                 FFFD FFFD " " FFFD FFFD FFFD " " FFFD " " FFFD FFFD "x " FFFD "\""),
                       "%s", x);
    free(x);

    /* A 300-character message is cut to 160 in the Markdown table. */
    char m300[301];
    memset(m300, 'm', 300);
    m300[300] = '\0';
    one.message = iohw_text_keep(m300);
    char *md = render(iohw_report_markdown, &r, NULL);
    char want[200];
    memset(want, 'm', 160);
    strcpy(want + 160, "... |");
    cr_expect_not_null(strstr(md, want), "%s", md);
    free(md);
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

/* --- the reports name the machine ----------------------------------------- */

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
    cr_expect_str_empty(rep.results.machine.cpuid_brand);
    iohw_report_free(&rep);
    /* A machine whose brand agrees writes no cpuid_brand. */
    cr_expect(strstr(text, "cpuid_brand") == NULL, "%s", text);
    free(text);
    /* One whose CPUID brand differs (a VM) gives it back too. */
    snprintf(r.machine.cpuid_brand, sizeof r.machine.cpuid_brand, "Virtual \"CPU\"");
    text = render(iohw_report_json, &r, NULL);
    cr_expect(strstr(text, "\"cpuid_brand\": \"Virtual \\\"CPU\\\"\"") != NULL, "%s", text);
    cr_assert_eq(iohw_report_parse(text, strlen(text), "m", &rep, &err), 0, "%s", err.msg);
    cr_expect_str_eq(rep.results.machine.cpu, r.machine.cpu);
    cr_expect_str_eq(rep.results.machine.cpuid_brand, "Virtual \"CPU\"");
    iohw_report_free(&rep);
    /* A report of the wrong type is refused, naming the member. */
    const char *bad = "{\"iohw_report_version\": 1, \"run\": {\"machine\": 3}, \"cases\": []}";
    cr_expect_eq(iohw_report_parse(bad, strlen(bad), "m", &rep, &err), -1);
    cr_expect(strstr(err.msg, "machine") != NULL, "%s", err.msg);
    free(text);
}

Test(reports, claimed_pair_coverage_only_when_computed)
{
    iohw_result item;
    iohw_result_init(&item);
    item.case_id = iohw_text_fmt("ct2d.pairwise.f32.0000");
    item.descriptor = iohw_text_fmt("ci=2 co=3 in=4x4 k=3x3");
    item.status = IOHW_RESULT_PASS;
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    r.items = &item;
    r.count = 1;

    char *json = render(iohw_report_json, &r, NULL);
    cr_expect(strstr(json, "\"claim_coverage\": null") != NULL, "%s", json);
    free(json);

    r.claim_known = 1;
    r.claim_pairs = 200;
    r.claim_covered = 50;
    json = render(iohw_report_json, &r, NULL);
    cr_expect(strstr(json, "\"claim_coverage\": {\"pairs_claimed\": 200, \"pairs_covered\": "
                           "50, \"percent\": 25}") != NULL, "%s", json);
    free(json);
    const char *sentence = "of the 200 factor-value pairs this backend claims, the "
                           "claimed cases cover 50 (25.0%)";
    char *md = render(iohw_report_markdown, &r, NULL);
    cr_expect(strstr(md, sentence) != NULL, "%s", md);
    free(md);
    char *html = render(iohw_report_html, &r, NULL);
    cr_expect(strstr(html, sentence) != NULL);
    free(html);
}
