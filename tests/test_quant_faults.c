/*
 * tests/test_quant_faults.c - the quantized seeded faults
 * (backends/faults/quant_*.c), loaded and called through the ABI's
 * run_quant() on problems built here: each claims quantized problems and
 * refuses float ones, each gives an output that differs from the oracle on
 * data designed for its bug (generators/fill_qdesign.h), and the quantized
 * diagnosis names that bug.  The float faults claim no quantized problem.
 * Tensors go to the faults in non-canonical layouts too.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/fill_qdesign.h"
#include "generators/generators.h"
#include "judge/diagnose.h"
#include "judge/diagnose_quant.h"
#include "judge/judge.h"
#include "sandbox/loader.h"
#include "oracle/descriptor.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

typedef struct qfault {
    const char *lib;       /* libiohw_<lib>.so */
    const char *desc;
    int kind;              /* the designed fill */
    int32_t rounding, form;
    const char *diagnosis; /* a name the diagnosis must give */
} qfault;

static const qfault FAULTS[] = {
    {"fault_quant_zp_x", "n=2 ci=3 co=4 in=5 k=3 s=2 bias=1 xl=NWC", IOHW__QFILL_UNSAT,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "x's zero point not subtracted"},
    {"fault_quant_zp_w", "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 wl=HWIO", IOHW__QFILL_ZP_EXTREME,
     IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED, "w's zero point not subtracted"},
    {"fault_quant_rounding", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1", IOHW__QFILL_TIES,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES,
     "ties rounded half away from zero where half_even was asked"},
    {"fault_quant_rounding", "ci=2 co=3 in=7 k=2 d=2 op=1 xl=NWC", IOHW__QFILL_TIES,
     IOHW_ROUND_HALF_AWAY, IOHW_QM_FIXED, "ties rounded to even where half_away was asked"},
    {"fault_quant_axis_i", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 wl=OIW", IOHW__QFILL_CHANNELS,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "per-channel scales applied along I"},
    {"fault_quant_no_saturation", "ci=4 co=6 g=2 in=5 k=2 d=2 op=1 bias=1", IOHW__QFILL_SATURATE,
     IOHW_ROUND_HALF_UP, IOHW_QM_FIXED, "no saturation (wrapped around)"},
    {"fault_quant_io_swap", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 wl=WOI", IOHW__QFILL_IO_TRAP,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "quantized weight read with I and O exchanged"},
    /* a case where the bias added after leaves differing elements inside
     * the limits (saturated at both everywhere it differs, it is no trace:
     * specification section 11.5) */
    {"fault_quant_bias_after", "ci=4 co=6 g=2 in=5 k=2 d=2 op=1 bias=1", IOHW__QFILL_UNSAT,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED, "bias added after the requantization"},
    {"fault_quant_zp_y_first", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1", IOHW__QFILL_TIES,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "zp_y added before rounding"},
    /* here ties rounded half up give the same output: both change only how
     * ties round, and their group's common name is given (section 11.5) */
    {"fault_quant_zp_y_first", "ci=2 co=3 in=7 k=2 d=2 op=1 xl=NWC", IOHW__QFILL_TIES,
     IOHW_ROUND_HALF_AWAY, IOHW_QM_FIXED, "ties rounded in another mode where half_away was asked"},
    {"fault_quant_f32_requant", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 xl=NWC", IOHW__QFILL_DEPLOY,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "requantization computed in binary32"},
    {"fault_quant_f32_requant", "ci=3 co=4 in=7 k=3 bias=1 wl=WIO", IOHW__QFILL_DEPLOY,
     IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED, "requantization computed in binary32"},
    {"fault_quant_acc_wrap", "ci=8192 co=2 in=10 k=9 bias=1 xl=NWC", IOHW__QFILL_WIDE,
     IOHW_ROUND_HALF_AWAY, IOHW_QM_SCALES, "int32 accumulator wrapped"},
    {"fault_quant_shift_left", "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 wl=HWIO", IOHW__QFILL_SHIFT,
     IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED, "fixed-point left shift ignored"},
    {"fault_quant_shift_left", "ci=2 co=3 in=7 k=2 d=2 op=1", IOHW__QFILL_SHIFT,
     IOHW_ROUND_HALF_UP, IOHW_QM_FIXED, "fixed-point left shift ignored"},
    {"fault_quant_pad_zero", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 xl=NWC", IOHW__QFILL_UNSAT,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, "zero insertion padded with 0 instead of zp_x"},
    {"fault_quant_pc_group", "ci=4 co=6 g=2 in=4x3 k=2x2 s=2x1 wl=HWIO", IOHW__QFILL_GROUP_TRAP,
     IOHW_ROUND_HALF_AWAY, IOHW_QM_FIXED, "per-channel M indexed by the channel within its group"},
    {"fault_quant_narrow_clamp", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1", IOHW__QFILL_SATURATE,
     IOHW_ROUND_HALF_UP, IOHW_QM_SCALES, "narrow clamp"},
    {"fault_quant_sat16", "ci=4 co=6 g=2 in=5 k=2 bias=1 xl=NWC", IOHW__QFILL_UNSAT,
     IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED, "16-bit saturation of pairs of products"},
    {"fault_quant_clamp_first", "ci=4 co=6 g=2 in=5 k=2 d=2 op=1 bias=1", IOHW__QFILL_SATURATE,
     IOHW_ROUND_HALF_EVEN, IOHW_QM_FIXED, "clamp applied before zp_y is added"},
    {"fault_quant_x_sign", "ci=2 co=3 in=3x2x3 k=2x2x2 s=1x2x1 bias=1", IOHW__QFILL_UNSAT,
     IOHW_ROUND_HALF_UP, IOHW_QM_SCALES, "x's bytes read with the other signedness"},
    {"fault_quant_gemmlowp_nudge", "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1", IOHW__QFILL_TIES,
     IOHW_ROUND_GEMMLOWP, IOHW_QM_FIXED,
     "rounding inside the fixed-point multiply differs from gemmlowp's"},
};
#define NFAULTS (sizeof FAULTS / sizeof FAULTS[0])

static void load(const char *name, iohw_loaded_backend *lb)
{
    iohw_error err;
    char path[1024];
    snprintf(path, sizeof path, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
    cr_assert_eq(iohw_backend_load(path, lb, &err), 0, "%s", err.msg);
}

static iohw_problem problem(const char *text)
{
    iohw_desc d;
    iohw_error err;
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "'%s': %s", text, err.msg);
    return d.p;
}

/* The ABI's quantized problem of p (float dtype code) and d. */
static iohw_problem abi_problem(const iohw_problem *p, const iohw_quant *q)
{
    iohw_problem a = *p;
    a.struct_size = sizeof a;
    a.dtype = q->x_dtype;
    a.w_dtype = q->w_dtype;
    a.y_dtype = q->y_dtype;
    a.zp_x = q->zp_x;
    a.zp_w = q->zp_w;
    a.zp_y = q->zp_y;
    a.rounding = q->rounding;
    a.m_form = q->m_form;
    a.per_channel = q->per_channel;
    a.s_x = q->m_form == IOHW_QM_SCALES ? q->s_x : 0.0f; /* 0 in the fixed form */
    a.s_y = q->m_form == IOHW_QM_SCALES ? q->s_y : 0.0f;
    return a;
}

/* The requant tensor: s_w[n], or multiplier[n] then shift[n]. */
static void *requant_of(const iohw_quant *q, int64_t n)
{
    int32_t *t = malloc((size_t)(2 * n) * 4);
    cr_assert_not_null(t);
    if (q->m_form == IOHW_QM_SCALES) {
        memcpy(t, q->s_w, (size_t)n * sizeof(float));
    } else {
        memcpy(t, q->multiplier, (size_t)n * 4);
        memcpy(t + n, q->shift, (size_t)n * 4);
    }
    return t;
}

/* A canonical byte tensor scattered into p's layout (weight = 1: w). */
static uint8_t *in_layout(const iohw_problem *p, int weight, const void *canon)
{
    iohw_layout_map m;
    iohw_error err;
    cr_assert_eq(weight ? iohw_layout_weight_map(p, &m, &err)
                        : iohw_layout_data_map(p, 0, &m, &err), 0, "%s", err.msg);
    uint8_t *t = malloc((size_t)m.count);
    cr_assert_not_null(t);
    iohw_layout_from_canonical(&m, 1, canon, t);
    return t;
}

static void check_fault(const qfault *f)
{
    iohw_loaded_backend lb;
    iohw_problem p = problem(f->desc);
    iohw__qwant want = {IOHW_U8, IOHW_S8, IOHW_S8, f->rounding, f->form, 0};
    iohw__qdata d;
    iohw_error err;
    char buf[512];

    cr_assert_eq(iohw__qfill(&p, f->kind, &want, 17, &d, &err), 0, "%s: %s", f->lib, err.msg);
    iohw_problem a = abi_problem(&p, &d.q);
    const int64_t ny = iohw_problem_y_count(&p);
    void *req = requant_of(&d.q, d.q.per_channel ? p.out_channels : 1);
    uint8_t *x = in_layout(&p, 0, d.x), *w = in_layout(&p, 1, d.w);
    int8_t *got = malloc((size_t)ny), *good = malloc((size_t)ny), *want_l = malloc((size_t)ny);
    iohw_layout_map my;
    cr_assert(got != NULL && good != NULL && want_l != NULL);
    cr_assert_eq(iohw_layout_data_map(&p, 1, &my, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_quant_conv_transpose(&p, &d.q, d.x, d.w, d.bias, good, &err), 0, "%s",
                 err.msg);
    iohw_layout_from_canonical(&my, 1, good, want_l);

    load(f->lib, &lb);
    cr_assert_not_null(lb.table->run_quant, "%s: no run_quant", f->lib);
    cr_expect_eq(lb.table->supports(lb.ctx, &a), IOHW_OK, "%s: %s", f->lib,
                 iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_UNSUPPORTED, "%s claims a float problem",
                 f->lib);
    const int st = lb.table->run_quant(lb.ctx, &a, x, w, d.bias, req, got);
    cr_assert_eq(st, IOHW_OK, "%s: %s", f->lib, iohw_backend_last_error(&lb));
    cr_expect_neq(memcmp(got, want_l, (size_t)ny), 0, "%s: equals the oracle on %s", f->lib,
                  f->desc);

    iohw__dgq_case c = {.p = p, .q = d.q, .x = x, .w = w, .bias = d.bias};
    cr_expect_eq(iohw__dg_quant(&c, got, buf, sizeof buf), 1, "%s: not diagnosed", f->lib);
    cr_expect(strstr(buf, f->diagnosis) != NULL, "%s: want \"%s\", got \"%s\"", f->lib,
              f->diagnosis, buf);
    cr_expect_eq(iohw__dg_quant(&c, want_l, buf, sizeof buf), 0, "the oracle diagnosed: %s", buf);

    iohw_backend_unload(&lb);
    free(req);
    free(x);
    free(w);
    free(got);
    free(good);
    free(want_l);
    iohw__qdata_free(&d);
}

Test(quant_faults, each_fault_differs_from_the_oracle_and_is_named_by_its_diagnosis)
{
    for (size_t i = 0; i < NFAULTS; i++)
        check_fault(&FAULTS[i]);
}

/* A small per-tensor s8 case: the problem, its data and its ABI form. */
static void small_case(iohw_problem *p, iohw__qdata *d, iohw_problem *a)
{
    iohw__qwant want = {IOHW_S8, IOHW_S8, IOHW_S8, IOHW_ROUND_HALF_EVEN, IOHW_QM_SCALES, 0};
    iohw_error err;
    *p = problem("ci=2 co=3 in=4 k=2");
    cr_assert_eq(iohw__qfill(p, IOHW__QFILL_UNSAT, &want, 1, d, &err), 0, "%s", err.msg);
    *a = abi_problem(p, &d->q);
}

Test(quant_faults, float_faults_claim_no_quantized_problem)
{
    iohw_loaded_backend lb;
    iohw_problem p, a;
    iohw__qdata d;
    int8_t y[15];
    small_case(&p, &d, &a);
    load("fault_io_swap", &lb);
    cr_expect_eq(lb.table->supports(lb.ctx, &a), IOHW_UNSUPPORTED);
    cr_expect_eq(lb.table->supports(lb.ctx, &p), IOHW_OK);
    cr_expect_null(lb.table->run_quant, "a float fault has no run_quant");
    (void)y;
    iohw_backend_unload(&lb);
    iohw__qdata_free(&d);
}

Test(quant_faults, a_bad_quantized_problem_is_refused_with_its_reason)
{
    iohw_loaded_backend lb;
    iohw_problem p, a;
    iohw__qdata d;
    int8_t y[15];
    small_case(&p, &d, &a);
    a.zp_x = 300;
    load("fault_quant_zp_w", &lb);
    cr_expect_eq(lb.table->supports(lb.ctx, &a), IOHW_UNSUPPORTED);
    cr_expect(strstr(iohw_backend_last_error(&lb), "zp_x") != NULL, "%s",
              iohw_backend_last_error(&lb));
    cr_expect_eq(lb.table->run_quant(lb.ctx, &a, d.x, d.w, NULL, d.s_w, y),
                 IOHW_INVALID_PROBLEM);
    a.zp_x = 0;
    cr_expect_eq(lb.table->run_quant(lb.ctx, &a, d.x, d.w, NULL, NULL, y), IOHW_INVALID_PROBLEM);
    cr_expect(strstr(iohw_backend_last_error(&lb), "requant") != NULL, "%s",
              iohw_backend_last_error(&lb));
    iohw_backend_unload(&lb);
    iohw__qdata_free(&d);
}

Test(quant_faults, iohw_diagnose_names_the_fault_on_a_generated_quantized_case)
{
    static const char *const DESC =
        "n=2 ci=2 co=4 in=6 k=3 s=2 bias=1 dt=u8 wdt=s8 ydt=s8 round=half_up m=fixed pc=1 "
        "xl=NWC fill=qsaturate seed=3";
    iohw_loaded_backend lb;
    iohw_desc d;
    iohw_case c;
    iohw_error err;
    char buf[256];
    cr_assert_eq(iohw_desc_parse(DESC, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "q", NULL, 1, &c, &err), 0, "%s", err.msg);
    const int64_t ny = iohw_problem_y_count(&c.p);
    int8_t *y = malloc((size_t)ny);
    cr_assert_not_null(y);
    load("fault_quant_no_saturation", &lb);
    cr_assert_eq(lb.table->run_quant(lb.ctx, &c.p, c.x, c.w, c.bias, c.requant, y), IOHW_OK,
                 "%s", iohw_backend_last_error(&lb));
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 1, "not diagnosed");
    cr_expect(strstr(buf, "no saturation (wrapped around)") != NULL, "%s", buf);
    cr_expect_eq(iohw_diagnose(&c, c.y, buf, sizeof buf), 0, "the oracle's y: %s", buf);
    iohw_backend_unload(&lb);
    free(y);
    iohw_case_free(&c);
}
