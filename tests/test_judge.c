/*
 * tests/test_judge.c - the judge's entry point (judge/judge.h): a float
 * case and a quantized case, each with the oracle's own output (a PASS)
 * and with the output of a known bug (a FAIL, named by the diagnosis when
 * asked for).  The buggy outputs are made here, by the oracle on changed
 * inputs or a changed rounding; the quantized one passes, with the note,
 * when the run declares the rounding it used.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"
#include "support/diagnose_cases.h"

static const char *const FLOAT_CASE = "ci=2 co=3 in=4x5 k=3x2 bias=1 seed=3";
static const char *const QUANT_CASE =
    "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 dt=s8 wdt=s8 ydt=u8 round=half_even "
    "fill=qties seed=5";

/* The float case's output with the weight's I and O exchanged (IOHW
 * memory read as OIHW). */
static void *weight_io_exchanged(const iohw_case *c)
{
    const size_t es = iohw_dtype_size(c->p.dtype);
    const int64_t CI = c->p.in_channels, MG = c->p.out_channels / c->p.groups;
    const int64_t K = c->p.kernel[0] * c->p.kernel[1];
    unsigned char *w2 = iohw_test_copy(c, c->w, iohw_problem_w_count(&c->p));
    const unsigned char *w = c->w;
    for (int64_t i = 0; i < CI; i++)
        for (int64_t o = 0; o < MG; o++)
            memcpy(w2 + (size_t)((i * MG + o) * K) * es,
                   w + (size_t)((o * CI + i) * K) * es, (size_t)K * es);
    void *y = iohw_test_oracle_y(&c->p, c->x, w2, c->bias);
    free(w2);
    return y;
}

/* The quantized case's output rounded by mode instead of its own. */
static void *rounded_by(const iohw_case *c, int32_t mode)
{
    iohw_problem p = c->p;
    iohw_error err = {{0}};
    const size_t len = (size_t)iohw_problem_y_count(&p) *
                       iohw_dtype_size(iohw_problem_y_dtype(&p));
    void *y = malloc(len);
    cr_assert_not_null(y);
    p.rounding = mode;
    cr_assert_eq(iohw_quant_run(&p, c->x, c->w, c->bias, c->requant, y, &err), 0,
                 "%s", err.msg);
    cr_assert_neq(memcmp(y, c->y, len), 0, "the case has no tie");
    return y;
}

static iohw_result judged(const iohw_case *c, const void *y,
                          const iohw_judge_options *o)
{
    iohw_result r;
    iohw_result_init(&r);
    iohw_judge(c, y, NULL, o, &r);
    return r;
}

Test(judge, a_case_is_float_or_quantized_by_its_problem)
{
    iohw_case f, q;
    iohw_test_case_of(FLOAT_CASE, &f);
    iohw_test_case_of(QUANT_CASE, &q);
    cr_expect_eq(iohw_case_kind_of(&f.p), IOHW_KIND_FLOAT);
    cr_expect_eq(iohw_case_kind_of(&q.p), IOHW_KIND_QUANT);
    iohw_case_free(&f);
    iohw_case_free(&q);
}

/* The oracle's own output for case desc: a PASS, nothing to say. */
static void expect_oracle_passes(const char *desc)
{
    iohw_case c;
    iohw_test_case_of(desc, &c);
    const iohw_judge_options o = {1, 0, 0};
    iohw_result r = judged(&c, c.y, &o);
    cr_expect_eq(r.status, IOHW_RESULT_PASS, "%s", r.message);
    cr_expect_eq(r.elements, iohw_problem_y_count(&c.p));
    cr_expect_eq(r.mismatches, 0);
    cr_expect_str_empty(r.message);
    cr_expect_str_empty(r.diagnosis);
    iohw_case_free(&c);
}

Test(judge, the_float_oracles_output_passes)
{
    expect_oracle_passes(FLOAT_CASE);
}

Test(judge, the_quantized_oracles_output_passes)
{
    expect_oracle_passes(QUANT_CASE);
}

Test(judge, a_float_bug_fails_and_is_named_when_diagnosis_is_on)
{
    iohw_case c;
    iohw_test_case_of(FLOAT_CASE, &c);
    void *y = weight_io_exchanged(&c);
    const iohw_judge_options on = {1, 0, 0};
    iohw_result r = judged(&c, y, &on);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_gt(r.mismatches, 0);
    cr_expect(strstr(r.message, "output elements outside the tolerance; worst error") != NULL,
              "%s", r.message);
    cr_expect_str_eq(r.diagnosis, "matches the oracle with weight I and O exchanged");

    r = judged(&c, y, NULL);   /* no options: no diagnosis, same verdict */
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect_str_empty(r.diagnosis);
    free(y);
    iohw_case_free(&c);
}

Test(judge, a_declared_flush_does_not_pass_a_float_bug)
{
    iohw_case c;
    iohw_test_case_of(FLOAT_CASE, &c);
    void *y = weight_io_exchanged(&c);
    const iohw_judge_options o = {0, 0, IOHW_SUBNORMALS_FLUSH_BIT(c.p.dtype)};
    iohw_result r = judged(&c, y, &o);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL, "%s", r.message);
    cr_expect_null(strstr(r.message, IOHW_RESULT_NOTE_FLUSHED), "%s", r.message);
    free(y);
    iohw_case_free(&c);
}

Test(judge, a_quantized_rounding_bug_fails_and_is_named_unless_declared)
{
    iohw_case c;
    iohw_test_case_of(QUANT_CASE, &c);
    void *y = rounded_by(&c, IOHW_ROUND_HALF_AWAY);
    const iohw_judge_options o = {1, 0, 0};
    iohw_result r = judged(&c, y, &o);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL);
    cr_expect(strstr(r.message, "output elements differ from the exact quantized result") !=
                  NULL, "%s", r.message);
    cr_expect(strstr(r.diagnosis,
                     "ties rounded half away from zero where half_even was asked") != NULL,
              "%s", r.diagnosis);

    /* Declared: a PASS with the note, nothing to diagnose. */
    const iohw_judge_options declared = {1, IOHW_ROUND_HALF_AWAY, 0};
    r = judged(&c, y, &declared);
    cr_expect_eq(r.status, IOHW_RESULT_PASS, "%s", r.message);
    cr_expect_eq(strncmp(r.message, IOHW_RESULT_NOTE_ROUNDING,
                         strlen(IOHW_RESULT_NOTE_ROUNDING)), 0, "%s", r.message);
    cr_expect_str_empty(r.diagnosis);

    /* One more error, where no tie is: no longer the declared mode's
     * result, a FAIL. */
    ((unsigned char *)y)[0] += 2;
    r = judged(&c, y, &declared);
    cr_expect_eq(r.status, IOHW_RESULT_FAIL, "%s", r.message);
    free(y);
    iohw_case_free(&c);
}

/* The worst error in words (results/result.h): a finite ratio as a ratio,
 * an infinite one by what made it infinite. */
static iohw_result worst_case(double ratio, double expected, double got)
{
    iohw_result r;
    iohw_result_init(&r);
    r.status = IOHW_RESULT_FAIL;
    r.elements = 4, r.mismatches = 2, r.npoints = 2;
    r.worst_ratio = ratio;
    r.points[0] = (iohw_point){0, {0, 0, 0, 0, 0}, 1.0, 1.5, 1e-6};
    r.points[1] = (iohw_point){1, {0, 0, 0, 0, 1}, expected, got, 0.0};
    return r;
}

Test(judge, the_worst_error_says_why_it_is_infinite)
{
    char buf[256];
    iohw_result r = worst_case(12.5, 0.0, 0.25);
    iohw_result_worst_error(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "worst error 12.5 u*err_bound");

    r = worst_case(INFINITY, 0.0, -0.25);
    iohw_result_worst_error(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "worst error 0.25 (absolute) where exactly 0 is "
                          "expected (err_bound 0: no error allowed)");

    r = worst_case(INFINITY, 2.0, INFINITY);
    iohw_result_worst_error(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "worst error: got inf where 2 is expected");

    r = worst_case(INFINITY, 0.0, -0.25);
    r.unwritten = 1;
    iohw_result_worst_error(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "worst error: elements never written");

    r = worst_case(INFINITY, 3.0, 2.0);   /* the cause was not recorded */
    iohw_result_worst_error(&r, buf, sizeof buf);
    cr_expect_str_eq(buf, "worst error inf u*err_bound");
}
