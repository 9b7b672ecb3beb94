/*
 * tests/test_machine.c - the machine a run names (harness/machine.h), the
 * reports that carry it, and baseline entries conditioned on a CPU feature
 * or a library version (reports/baseline.c).
 *
 * The features are checked against the kernel's own list (/proc/cpuinfo's
 * flags use the same names), so the test holds on any x86-64 CPU; the
 * conditions are checked on machines described by hand, with and without
 * each feature.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/machine.h"
#include "harness/run.h"
#include "reports/reports.h"

static const char *const NAMES[] = {"fma", "f16c", "avx2", "avx512f", "avx512dq",
                                    "avx512bw", "avx512vl", "avx512_bf16",
                                    "avx512_fp16", "amx_tile", "amx_bf16"};
#define NNAMES (sizeof NAMES / sizeof NAMES[0])

/* /proc/cpuinfo's first "flags" line and "model name" value, or 0. */
static int cpuinfo(char *flags, size_t nf, char *model, size_t nm)
{
    FILE *f = fopen("/proc/cpuinfo", "r");
    char line[8192];
    flags[0] = model[0] = '\0';
    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        char *colon = strchr(line, ':');
        if (colon == NULL)
            continue;
        char *v = colon + 1 + strspn(colon + 1, " ");
        v[strcspn(v, "\n")] = '\0';
        if (flags[0] == '\0' && strncmp(line, "flags", 5) == 0)
            snprintf(flags, nf, " %s ", v);
        if (model[0] == '\0' && strncmp(line, "model name", 10) == 0)
            snprintf(model, nm, "%s", v);
    }
    fclose(f);
    return flags[0] != '\0';
}

Test(machine, names_exactly_the_features_the_kernel_lists)
{
    char flags[8192], model[256], word[64];
    iohw_machine m;
    iohw_machine_detect(&m);
    if (!cpuinfo(flags, sizeof flags, model, sizeof model))
        cr_skip_test("/proc/cpuinfo has no flags line");
    for (size_t i = 0; i < NNAMES; i++) {
        snprintf(word, sizeof word, " %s ", NAMES[i]);
        cr_expect_eq(iohw_machine_has(&m, NAMES[i]), strstr(flags, word) != NULL,
                     "%s: machine '%s', /proc/cpuinfo %s", NAMES[i], m.features,
                     strstr(flags, word) != NULL ? "has it" : "does not");
        cr_expect(iohw_machine_feature_known(NAMES[i]));
    }
    if (model[0] != '\0')
        cr_expect_str_eq(m.cpu, model);
    cr_log_info("machine: %s; %s", m.cpu, m.features);
}

Test(machine, matches_whole_feature_names_only)
{
    iohw_machine m;
    memset(&m, 0, sizeof m);
    snprintf(m.features, sizeof m.features, "avx2 avx512f avx512_bf16");
    cr_expect(iohw_machine_has(&m, "avx512f"));
    cr_expect(iohw_machine_has(&m, "avx512_bf16"));
    cr_expect(!iohw_machine_has(&m, "avx512"));
    cr_expect(!iohw_machine_has(&m, "avx"));
    cr_expect(!iohw_machine_has(&m, "bf16"));
    cr_expect(!iohw_machine_has(&m, ""));
    cr_expect(!iohw_machine_has(&m, NULL));
    cr_expect(!iohw_machine_feature_known("avx512"));
    cr_expect(!iohw_machine_feature_known("sse2"));
    char buf[300];
    cr_expect_str_eq(iohw_machine_describe(&m, buf, sizeof buf),
                     "unknown CPU; avx2 avx512f avx512_bf16");
    m.features[0] = '\0';
    snprintf(m.cpu, sizeof m.cpu, "Some CPU");
    cr_expect_str_eq(iohw_machine_describe(&m, buf, sizeof buf),
                     "Some CPU; no AVX2 or later features");
}

/* --- the reports name the machine ----------------------------------------- */

static iohw_result one_result;

static iohw_run_results sample(void)
{
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    memset(&one_result, 0, sizeof one_result);
    snprintf(one_result.case_id, sizeof one_result.case_id, "ct1d.basic.0001");
    snprintf(one_result.file, sizeof one_result.file, "suite/a.h5");
    one_result.status = IOHW_RESULT_FAIL;
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

static char *render(writer_fn fn, const iohw_run_results *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    cr_assert_not_null(f);
    cr_assert_eq(fn(f, r, NULL), 0);
    fclose(f);
    return buf;
}

/* Each format names the CPU (escaped its way), the features and the
 * library's version. */
Test(machine, every_report_names_the_cpu_its_features_and_the_library_version)
{
    iohw_run_results r = sample();
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
        char *text = render(FORMATS[i].fn, &r);
        cr_expect(strstr(text, FORMATS[i].cpu) != NULL, "format %zu: %s", i, text);
        cr_expect(strstr(text, "avx512") != NULL && strstr(text, "bf16") != NULL,
                  "format %zu has no features: %s", i, text);
        cr_expect(strstr(text, "oneDNN 2.6.3") != NULL, "format %zu: %s", i, text);
        free(text);
    }
    char *junit = render(iohw_report_junit, &r);
    cr_expect(strstr(junit, "<property name=\"cpu_features\" value=\"fma f16c avx2 "
                            "avx512f avx512bw avx512_bf16\"/>") != NULL, "%s", junit);
    free(junit);
}

Test(machine, the_console_summary_names_it)
{
    iohw_run_results r = sample();
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

Test(machine, a_json_report_gives_it_back)
{
    iohw_run_results r = sample();
    char *text = render(iohw_report_json, &r);
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
    iohw_run_results r = sample();
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
    iohw_run_results r = sample();
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

Test(baseline_conditions, survive_a_json_report_and_the_baseline_writer)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r = sample();
    cr_assert_eq(iohw_baseline_parse(CONDITIONED, "cond.txt", &b, &err), 0, "%s", err.msg);
    iohw_baseline_apply(&b, &r);
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

    /* The writer puts the conditions back between pattern and reason. */
    f = open_memstream(&buf, &len);
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
