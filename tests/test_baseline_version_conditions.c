/*
 * tests/test_baseline_version_conditions.c - baseline conditions on the
 * backend's version string (reports/baseline.c): `version~TEXT` and its
 * negation `version!~TEXT`, malformed conditions, and the oneDNN entries
 * that use them.  The oneDNN adapter names its effective ISA in its
 * version, with "vnni" in it exactly when that ISA has VNNI; O5 and O6
 * (docs/CONFORMANCE.md) are in the kernels without VNNI, so their entries
 * must apply to a version without "vnni" and to no version with it.  The
 * versions here are written by hand: nothing depends on this machine's CPU
 * or on what oneDNN picks on it.
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <string.h>

#include "reports/reports.h"

static iohw_run_results run_with_version(const char *version)
{
    iohw_run_results r;
    memset(&r, 0, sizeof r);
    r.backend_version = (char *)version;
    snprintf(r.machine.features, sizeof r.machine.features, "fma f16c avx2");
    return r;
}

/* 1 when the one entry of text applies to a backend of this version. */
static int applies(const char *text, const char *version)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r = run_with_version(version);
    cr_assert_eq(iohw_baseline_parse(text, "v.txt", &b, &err), 0, "%s: %s", text, err.msg);
    cr_assert_eq(b.count, 1);
    int yes = iohw_baseline_entry_applies(&b.entries[0], &r);
    iohw_baseline_free(&b);
    return yes;
}

Test(version_conditions, negation_holds_where_the_text_is_absent)
{
    const char *entry = "x  version!~vnni  kernels without VNNI\n";
    cr_expect(applies(entry, "oneDNN 2.6.3 (C API; ISA avx2)"));
    cr_expect(applies(entry, "oneDNN 2.6.3 (C API; ISA avx512_core)"));
    cr_expect(!applies(entry, "oneDNN 2.6.3 (C API; ISA avx512_core_vnni)"));
    cr_expect(!applies(entry, "oneDNN 2.6.3 (C API; ISA avx512_core_bf16+vnni)"));
    cr_expect(!applies(entry, "oneDNN 2.6.3 (C API; ISA avx2_vnni)"));
    /* With version~ every word must hold. */
    entry = "x  version~2.6. version!~vnni  kernels without VNNI in 2.6\n";
    cr_expect(applies(entry, "oneDNN 2.6.3 (ISA avx2)"));
    cr_expect(!applies(entry, "oneDNN 3.1.0 (ISA avx2)"));
    cr_expect(!applies(entry, "oneDNN 2.6.3 (ISA avx2_vnni)"));
}

Test(version_conditions, parse_into_the_condition_not_the_reason)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_parse("a.*  version~2.6. version!~vnni  why it fails\n"
                                     "b  version!~x cpu!=avx512f  another\n",
                                     "v.txt", &b, &err), 0, "%s", err.msg);
    cr_assert_eq(b.count, 2);
    cr_expect_str_eq(b.entries[0].condition, "version~2.6. version!~vnni");
    cr_expect_str_eq(b.entries[0].reason, "why it fails");
    cr_expect_str_eq(b.entries[1].condition, "version!~x cpu!=avx512f");
    cr_expect_str_eq(b.entries[1].reason, "another");
    iohw_baseline_free(&b);
}

/* Malformed conditions, the line they are on and a word the error names. */
static const struct {
    const char *text;
    const char *line, *says;
} MALFORMED[] = {
    {"x version!~ why\n", "m.txt:1:", "needs a value"},
    {"# ok\nx version=2.6 why\n", "m.txt:2:", "'version=2.6' is not one of"},
    {"x version!=2.6 why\n", "m.txt:1:", "version!~TEXT"},
    {"\n\nx cpu~avx2 why\n", "m.txt:3:", "'cpu~avx2'"},
    {"x cpu!~avx2 why\n", "m.txt:1:", "cpu!=FEATURE"},
    {"x cpu=vnni why\n", "m.txt:1:", "avx512_vnni"},
    {"x version!~vnni\n", "m.txt:1:", "no reason"},
};

Test(version_conditions, malformed_ones_are_errors_naming_the_line)
{
    for (size_t i = 0; i < sizeof MALFORMED / sizeof MALFORMED[0]; i++) {
        iohw_baseline b;
        iohw_error err = {{0}};
        cr_expect_eq(iohw_baseline_parse(MALFORMED[i].text, "m.txt", &b, &err), -1, "%s",
                     MALFORMED[i].text);
        cr_expect(strstr(err.msg, MALFORMED[i].line) != NULL, "'%s': %s",
                  MALFORMED[i].text, err.msg);
        cr_expect(strstr(err.msg, MALFORMED[i].says) != NULL, "'%s': %s does not say '%s'",
                  MALFORMED[i].text, err.msg, MALFORMED[i].says);
    }
}

/* A reason may still start with words like "version 2.7" or "cpu bound". */
Test(version_conditions, plain_words_stay_in_the_reason)
{
    iohw_baseline b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_baseline_parse("x  version 2.7 fixes it\ny cpu bound\n", "p.txt", &b,
                                     &err), 0, "%s", err.msg);
    cr_expect_str_eq(b.entries[0].condition, "");
    cr_expect_str_eq(b.entries[0].reason, "version 2.7 fixes it");
    cr_expect_str_eq(b.entries[1].reason, "cpu bound");
    iohw_baseline_free(&b);
}

/* The number of entries of backends/onednn/FILE whose reason starts with
 * one of O4, O5 and O6 and that apply to a oneDNN of this version; *total
 * gets how many such entries there are. */
static int onednn_quant_entries_applied(const char *file, const char *version, int *total)
{
    char path[600];
    iohw_baseline b;
    iohw_error err = {{0}};
    iohw_run_results r = run_with_version(version);
    snprintf(path, sizeof path, "%s/backends/onednn/%s", IOHW_SOURCE_DIR, file);
    cr_assert_eq(iohw_baseline_load(path, &b, &err), 0, "%s", err.msg);
    int n = 0;
    *total = 0;
    for (int k = 0; k < b.count; k++) {
        const char *why = b.entries[k].reason;
        if (strncmp(why, "O5:", 3) != 0 && strncmp(why, "O6:", 3) != 0)
            continue;
        (*total)++;
        n += iohw_baseline_entry_applies(&b.entries[k], &r);
    }
    iohw_baseline_free(&b);
    return n;
}

Test(version_conditions, onednn_o5_o6_entries_apply_exactly_without_vnni)
{
    static const char *const FILES[] = {"baseline-regressions.txt", "baseline-smoke.txt",
                                        "baseline-ci.txt"};
    static const char *const WITHOUT[] = {
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx2)",
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx512_core)",
    };
    static const char *const WITH[] = {
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx512_core_vnni)",
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx512_core_bf16+vnni)",
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx512_core_amx+vnni)",
        "oneDNN 2.6.3 (deconvolution forward, C API; ISA avx2_vnni)",
    };
    for (size_t f = 0; f < sizeof FILES / sizeof FILES[0]; f++) {
        int total;
        for (size_t i = 0; i < sizeof WITHOUT / sizeof WITHOUT[0]; i++) {
            int n = onednn_quant_entries_applied(FILES[f], WITHOUT[i], &total);
            cr_expect_gt(total, 0, "%s has no O5 or O6 entry", FILES[f]);
            cr_expect_eq(n, total, "%s, '%s': %d of %d O5/O6 entries apply", FILES[f],
                         WITHOUT[i], n, total);
        }
        for (size_t i = 0; i < sizeof WITH / sizeof WITH[0]; i++)
            cr_expect_eq(onednn_quant_entries_applied(FILES[f], WITH[i], &total), 0,
                         "%s, '%s': an O5/O6 entry applies", FILES[f], WITH[i]);
    }
}
