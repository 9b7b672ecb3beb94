/*
 * tests/test_subnormals.c - `iohw run --subnormals flush[:DTYPES]`
 * (specification section 3.4), end to end: a case file with subnormal
 * inputs and results in f32 and bf16, run through the command against
 * backends/flush (the oracle with subnormal inputs and results flushed to
 * zero) with and without the declaration, and against a seeded fault that
 * the declaration must not excuse.  Also the option's parsing and its form
 * in the repro line.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "generators/generators.h"
#include "results/result.h"
#include "harness/run.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "support/shell.h"

#define FLUSH IOHW_BACKEND_DIR "/libiohw_flush.so"
#define NO_FLIP IOHW_BACKEND_DIR "/libiohw_fault_no_flip.so"

/* A case of desc whose x are tiny: every third a subnormal of the dtype
 * (k * 2^sub), the others just above the smallest normal (k * 2^norm), so
 * that results lie near the smallest normal and the subnormal terms show.
 * Written to f; its outputs recomputed by the oracle. */
static void write_tiny(iohw_case_file *f, const char *id, const char *desc,
                       int sub, int norm)
{
    iohw_desc d;
    iohw_case c;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, id, NULL, 1, &c, &err), 0, "%s", err.msg);
    int64_t nx = iohw_problem_x_count(&c.p);
    for (int64_t i = 0; i < nx; i++)
        iohw_dtype_store(c.p.dtype, c.x, (size_t)i,
                         ldexp((double)(1 + i % 5), i % 3 == 0 ? sub : norm));
    c.fill[0] = '\0';                   /* user data: fresh descriptor, tags */
    free(c.descriptor);
    free(c.tags);
    c.descriptor = NULL;
    c.tags = NULL;
    cr_assert_eq(iohw_complete_case(&c, 1, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
    iohw_case_free(&c);
}

/* sub.h5 in a fresh directory: sub.f32 and sub.bf16 with subnormals,
 * plain.f32 without. */
static void make_file(char *path, size_t n, const char *name)
{
    char dir[512];
    iohw_error err = {{0}};
    snprintf(dir, sizeof dir, "%s/subnormals-%d-%s", IOHW_TEST_TMP, (int)getpid(), name);
    mkdir(dir, 0755);
    snprintf(path, n, "%s/sub.h5", dir);
    iohw_case_file *f = iohw_case_file_create(path, &err);
    cr_assert_not_null(f, "%s", err.msg);
    write_tiny(f, "sub.f32", "ci=2 co=2 in=4x4 k=2x2 seed=12", -140, -125);
    write_tiny(f, "sub.bf16", "ci=2 co=2 in=4x4 k=2x2 dt=bf16 seed=13", -130, -125);
    write_tiny(f, "plain.f32", "ci=2 co=3 in=5 k=3 seed=14", -20, -10);
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

/* `iohw run` on path with extra options; its exit status and output. */
static int run(const char *backend, const char *path, const char *extra, char **out)
{
    return iohw_test_sh(out, "'%s' run --backend '%s' '%s' --jobs 1 --quiet %s",
                        IOHW_BIN, backend, path, extra);
}

/* A fresh file (make_file), run with extra options: the output, after
 * checking the exit status. */
static char *run_fresh(const char *backend, const char *name, const char *extra,
                       int status)
{
    char path[600], *out = NULL;
    make_file(path, sizeof path, name);
    cr_expect_eq(run(backend, path, extra, &out), status, "%s", out);
    return out;
}

/* 1 when out holds the header of a block of case id with status. */
static int has_block(const char *out, const char *status, const char *id)
{
    char head[128];
    snprintf(head, sizeof head, "\n%s %s ", status, id);
    return strstr(out, head) != NULL;
}

Test(subnormals, a_flushing_backend_fails_without_the_declaration_and_is_named)
{
    char *out = run_fresh(FLUSH, "none", "", 1);
    cr_expect(has_block(out, "FAIL", "sub.f32"), "%s", out);
    cr_expect(has_block(out, "FAIL", "sub.bf16"), "%s", out);
    cr_expect(!has_block(out, "FAIL", "plain.f32"), "%s", out);
    cr_expect_not_null(strstr(out, "diagnosis: matches the oracle with subnormal "
                                   "inputs and results flushed to zero"), "%s", out);
    cr_expect_null(strstr(out, "PASS with a note"), "%s", out);
    free(out);
}

Test(subnormals, a_declaration_for_f32_passes_f32_with_the_note_and_not_bf16)
{
    char *out = run_fresh(FLUSH, "f32", "--subnormals flush:f32", 1);
    cr_expect(!has_block(out, "FAIL", "sub.f32"), "%s", out);
    cr_expect(has_block(out, "FAIL", "sub.bf16"), "%s", out);
    cr_expect_not_null(strstr(out, "PASS with a note: 1 case(s) with subnormals "
                                   "flushed (declared) (first: sub.f32)"), "%s", out);
    cr_expect_not_null(strstr(out, "--filter 'id=sub.bf16' --subnormals flush:f32"),
                       "%s", out);
    free(out);
}

Test(subnormals, a_declaration_for_both_dtypes_passes_and_every_report_shows_the_note)
{
    char path[600], json[700], md[700], *out = NULL, *text = NULL;
    make_file(path, sizeof path, "both");
    snprintf(json, sizeof json, "%s.json", path);
    snprintf(md, sizeof md, "%s.md", path);
    char extra[1600];
    snprintf(extra, sizeof extra, "--subnormals flush:bf16,f32 --json '%s' --markdown '%s'",
             json, md);
    cr_expect_eq(run(FLUSH, path, extra, &out), 0, "%s", out);
    cr_expect_not_null(strstr(out, "PASS with a note: 2 case(s)"), "%s", out);
    free(out);

    cr_assert_eq(iohw_test_sh(&text, "cat '%s'", json), 0);
    cr_expect_not_null(strstr(text, "\"id\": \"sub.bf16\", \"file\""), "%s", text);
    cr_expect_not_null(strstr(text, "\"status\": \"PASS\", \"message\": \"subnormals "
                                    "flushed (declared): "), "%s", text);
    free(text);
    cr_assert_eq(iohw_test_sh(&text, "cat '%s'", md), 0);
    cr_expect_not_null(strstr(text, "2 PASS with a note: subnormals flushed (declared)"),
                       "%s", text);
    free(text);
}

Test(subnormals, the_declaration_does_not_excuse_another_fault)
{
    char *out = run_fresh(NO_FLIP, "noflip", "--subnormals flush", 1);
    cr_expect(has_block(out, "FAIL", "sub.f32"), "%s", out);
    cr_expect(has_block(out, "FAIL", "plain.f32"), "%s", out);
    cr_expect_null(strstr(out, "PASS with a note"), "%s", out);
    free(out);
}

Test(subnormals, the_option_parses_and_formats_back)
{
    unsigned m = 99;
    char buf[64];
    iohw_error err = {{0}};
    cr_expect_eq(iohw_subnormals_parse("ieee", &m, &err), 0);
    cr_expect_eq(m, 0u);
    cr_expect_eq(iohw_subnormals_parse("flush", &m, &err), 0);
    cr_expect_eq(m, IOHW_SUBNORMALS_FLUSH_ALL);
    iohw_subnormals_format(m, buf, sizeof buf);
    cr_expect_str_eq(buf, "flush");
    cr_expect_eq(iohw_subnormals_parse("flush:bf16,f32", &m, &err), 0);
    cr_expect_eq(m, (1u << IOHW_BF16) | (1u << IOHW_F32));
    iohw_subnormals_format(m, buf, sizeof buf);
    cr_expect_str_eq(buf, "flush:f32,bf16");
    iohw_subnormals_format(0, buf, sizeof buf);
    cr_expect_str_eq(buf, "ieee");

    const char *bad[] = {"", "flush:", "flush:f8", "flush:f32,", "flushf32", "IEEE"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        m = 7;
        cr_expect_eq(iohw_subnormals_parse(bad[i], &m, &err), -1, "'%s'", bad[i]);
        cr_expect_eq(m, 7u, "'%s' changed the mask", bad[i]);
        cr_expect_not_null(strstr(err.msg, bad[i]), "%s", err.msg);
    }
}

Test(subnormals, a_bad_value_is_a_usage_error_naming_it)
{
    char *out = NULL;
    cr_expect_eq(iohw_test_sh(&out, "'%s' run --backend '%s' x.h5 --subnormals flush:f8",
                              IOHW_BIN, FLUSH), 2);
    cr_expect_not_null(strstr(out, "--subnormals 'flush:f8': unknown dtype 'f8'"), "%s", out);
    free(out);
}

Test(subnormals, the_repro_line_carries_a_declaration_that_is_not_ieee)
{
    iohw_run_options o;
    iohw_repro_options ro;
    iohw_result r;
    char buf[1024];
    iohw_run_options_init(&o);
    o.backend = "lib.so";
    iohw_result_init(&r);
    r.case_id = iohw_text_keep("c1");
    r.file = iohw_text_keep("f.h5");
    iohw_repro_options_of_run(&o, &ro);
    cr_assert_geq(iohw_repro_format(&ro, &r, buf, sizeof buf), 0);
    cr_expect_null(strstr(buf, "--subnormals"), "%s", buf);
    o.subnormals_flush = 1u << IOHW_BF16;
    iohw_repro_options_of_run(&o, &ro);
    cr_assert_geq(iohw_repro_format(&ro, &r, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "iohw run --backend lib.so f.h5 --filter 'id=c1' "
                          "--subnormals flush:bf16");
}
