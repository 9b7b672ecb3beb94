/*
 * tests/test_judge_bwd.c - judging a backward case (judge/judge.h,
 * specification section 13): the kind of a problem, the comparison over
 * the direction's output (dx; dw then db), the coordinates of a mismatch
 * named in the tensor's own layout, unwritten elements of db found by the
 * sentinel.  The cases are built here in memory with hand-chosen outputs:
 * judging compares, so the numbers need not come from any oracle.
 */
#include <criterion/criterion.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge/adapt.h"
#include "judge/judge.h"
#include "oracle/problem.h"
#include "sandbox/run_call.h"
#include "sandbox/worker.h"

/* A rank-1 f32 problem: n=1, ci, co, in=2, k=2 (out 3). */
static iohw_problem problem(int32_t dir, int64_t ci, int64_t co, int bias,
                            const char *wl)
{
    iohw_problem p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof p;
    p.rank = 1;
    p.batch = 1;
    p.in_channels = ci;
    p.out_channels = co;
    p.groups = 1;
    p.in_size[0] = 2;
    p.kernel[0] = 2;
    p.stride[0] = 1;
    p.dilation[0] = 1;
    p.dtype = IOHW_F32;
    p.has_bias = bias;
    p.direction = dir;
    snprintf(p.weight_layout, sizeof p.weight_layout, "%s", wl);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    return p;
}

/* A case whose direction's output is 1, 2, 3, ... (count elements), each
 * with err_bound 1 and terms_max 2: f32 tolerance about 5e-7 per element. */
static iohw_case make_case(const iohw_problem *p, int64_t count)
{
    iohw_case c;
    memset(&c, 0, sizeof c);
    c.p = *p;
    snprintf(c.id, sizeof c.id, "bwd.test");
    snprintf(c.fill, sizeof c.fill, "normal");
    c.terms_max = 2;
    float *y = calloc((size_t)count, sizeof *y);
    c.y_f64 = calloc((size_t)count, sizeof *c.y_f64);
    c.err_bound = calloc((size_t)count, sizeof *c.err_bound);
    cr_assert(y && c.y_f64 && c.err_bound);
    for (int64_t i = 0; i < count; i++) {
        y[i] = (float)(i + 1);
        c.y_f64[i] = (double)(i + 1);
        c.err_bound[i] = 1.0;
    }
    c.y = y;
    c.tags = strdup("dir-bwd");
    c.descriptor = strdup("");
    return c;
}

static float *copy_out(const iohw_case *c, int64_t count)
{
    float *y = malloc((size_t)count * sizeof *y);
    cr_assert_not_null(y);
    memcpy(y, c->y, (size_t)count * sizeof *y);
    return y;
}

Test(judge_bwd, kind_of_each_direction)
{
    iohw_problem f = problem(IOHW_DIR_FWD, 2, 3, 0, "IOW");
    iohw_problem d = problem(IOHW_DIR_BWD_D, 2, 3, 0, "IOW");
    iohw_problem w = problem(IOHW_DIR_BWD_W, 2, 3, 1, "IOW");
    cr_assert_eq(iohw_case_kind_of(&f), IOHW_KIND_FLOAT);
    cr_assert_eq(iohw_case_kind_of(&d), IOHW_KIND_BWD_DATA);
    cr_assert_eq(iohw_case_kind_of(&w), IOHW_KIND_BWD_WEIGHTS);
}

Test(judge_bwd, data_passes_and_names_dx)
{
    /* ci=2: dx is [1][2][2] = 4 elements in NCW. */
    iohw_problem p = problem(IOHW_DIR_BWD_D, 2, 3, 0, "IOW");
    cr_assert_eq(iohw_problem_out_count(&p), 4);
    iohw_case c = make_case(&p, 4);
    float *y = copy_out(&c, 4);
    iohw_result r;
    iohw_result_init(&r);
    const iohw_judge_options o = {1, 0, 0};
    iohw_judge(&c, y, NULL, &o, &r);
    cr_assert_eq(r.status, IOHW_RESULT_PASS, "%s", r.message);
    cr_assert_eq(r.elements, 4);

    y[3] = 9.0f;   /* n=0, c=1, w=1 */
    iohw_result_init(&r);
    iohw_judge(&c, y, NULL, &o, &r);
    cr_assert_eq(r.status, IOHW_RESULT_FAIL);
    cr_assert_eq(r.mismatches, 1);
    cr_assert_eq(r.points[0].index, 3);
    cr_assert_eq(r.points[0].coord[0], 0);
    cr_assert_eq(r.points[0].coord[1], 1);
    cr_assert_eq(r.points[0].coord[4], 1);
    cr_assert_not_null(strstr(r.message, "dx[N=0,C=1,W=1]"), "%s", r.message);
    cr_assert_not_null(strstr(r.message, "expected 4, got 9"), "%s", r.message);
    cr_assert_str_eq(r.diagnosis, "");
    free(y);
    iohw_case_free(&c);
}

Test(judge_bwd, weights_name_dw_in_its_layout_and_db)
{
    /* ci=2, co=3, k=2, OIW: dw has 12 elements, db 3 after them. */
    iohw_problem p = problem(IOHW_DIR_BWD_W, 2, 3, 1, "OIW");
    cr_assert_eq(iohw_problem_out_count(&p), 15);
    iohw_case c = make_case(&p, 15);
    float *y = copy_out(&c, 15);
    y[3] = -1.0f;    /* OIW: O=0, I=1, W=1 */
    y[13] = 0.5f;    /* db[1] */
    iohw_result r;
    iohw_result_init(&r);
    iohw_judge(&c, y, NULL, NULL, &r);
    cr_assert_eq(r.status, IOHW_RESULT_FAIL);
    cr_assert_eq(r.elements, 15);
    cr_assert_eq(r.mismatches, 2);
    cr_assert_eq(r.points[0].coord[0], 1);   /* I */
    cr_assert_eq(r.points[0].coord[1], 0);   /* O */
    cr_assert_eq(r.points[0].coord[4], 1);   /* kernel w */
    cr_assert_eq(r.points[1].index, 13);
    cr_assert_eq(r.points[1].coord[1], 1);   /* db's channel */
    cr_assert_not_null(strstr(r.message, "dw[O=0,I=1,W=1]"), "%s", r.message);

    /* Only db wrong: the message names db[c]. */
    y[3] = 4.0f;
    iohw_result_init(&r);
    iohw_judge(&c, y, NULL, NULL, &r);
    cr_assert_eq(r.mismatches, 1);
    cr_assert_not_null(strstr(r.message, "db[1]"), "%s", r.message);
    free(y);
    iohw_case_free(&c);
}

Test(judge_bwd, unwritten_db_found_by_the_sentinel)
{
    iohw_problem p = problem(IOHW_DIR_BWD_W, 1, 2, 1, "IOW");
    const int64_t n = iohw_problem_out_count(&p);   /* 1*2*2 + 2 = 6 */
    cr_assert_eq(n, 6);
    iohw_case c = make_case(&p, n);
    float *y = copy_out(&c, n);
    unsigned char bits[8];
    cr_assert_eq(iohw_worker_sentinel(IOHW_F32, bits), 4);
    memcpy(&y[5], bits, 4);
    iohw_result r;
    iohw_result_init(&r);
    iohw_judge(&c, y, bits, NULL, &r);
    cr_assert_eq(r.status, IOHW_RESULT_FAIL);
    cr_assert_eq(r.unwritten, 1);
    cr_assert_not_null(strstr(r.message, "db[1]"), "%s", r.message);
    cr_assert_not_null(strstr(r.message, "never written"), "%s", r.message);
    free(y);
    iohw_case_free(&c);
}

/* --- the call a backward problem makes (sandbox/run_call.c) --------------- */

static int fake_bwd_d(void *ctx, const iohw_problem *p, const void *dy,
                      const void *w, void *dx)
{
    (void)ctx, (void)p, (void)dy, (void)w, (void)dx;
    return IOHW_OK;
}

static void *seen_dw, *seen_db;

static int fake_bwd_w(void *ctx, const iohw_problem *p, const void *x,
                      const void *dy, void *dw, void *db)
{
    (void)ctx, (void)p, (void)x, (void)dy;
    seen_dw = dw;
    seen_db = db;
    return IOHW_OK;
}

Test(judge_bwd, run_call_rows)
{
    iohw_problem d = problem(IOHW_DIR_BWD_D, 2, 3, 0, "IOW");
    iohw_problem w = problem(IOHW_DIR_BWD_W, 2, 3, 1, "IOW");
    iohw_problem wn = problem(IOHW_DIR_BWD_W, 2, 3, 0, "IOW");
    const iohw__run_call *cd = iohw__run_call_of(&d);
    const iohw__run_call *cw = iohw__run_call_of(&w);
    cr_assert_str_eq(cd->name, "run_bwd_data()");
    cr_assert_str_eq(cw->name, "run_bwd_weights()");
    cr_assert_not_null(cd->missing);
    cr_assert_eq(cd->reference, 0);

    /* A table of the size before the backward members: absent. */
    iohw_backend t;
    memset(&t, 0, sizeof t);
    t.struct_size = (uint32_t)IOHW_MEMBER_END(iohw_backend, run_quant);
    t.run_bwd_data = fake_bwd_d;
    t.run_bwd_weights = fake_bwd_w;
    cr_assert_eq(cd->present(&t), 0);
    cr_assert_eq(cw->present(&t), 0);
    /* The whole table, one pointer NULL. */
    t.struct_size = sizeof t;
    t.run_bwd_data = NULL;
    cr_assert_eq(cd->present(&t), 0);
    cr_assert_eq(cw->present(&t), 1);

    /* dw at the start of the output, db right after w_count floats. */
    float out[15], dy[9], x[4];
    iohw__run_args a = {x, NULL, NULL, NULL, out, dy};
    cr_assert_eq(cw->call(&t, NULL, &w, &a), IOHW_OK);
    cr_assert_eq(seen_dw, (void *)out);
    cr_assert_eq(seen_db, (void *)&out[12]);
    cr_assert_eq(cw->call(&t, NULL, &wn, &a), IOHW_OK);
    cr_assert_null(seen_db);
}

Test(judge_bwd, death_message_names_the_entry_point)
{
    iohw_worker_note note;
    memset(&note, 0, sizeof note);
    atomic_store(&note.call, IOHW_CALL_RUN);
    snprintf(note.call_name, sizeof note.call_name, "run_bwd_weights()");
    char buf[512];
    /* wait status of a process killed by SIGSEGV: the signal number. */
    iohw_worker_death_message(SIGSEGV, &note, buf, (int)sizeof buf);
    cr_assert_not_null(strstr(buf, "SIGSEGV"), "%s", buf);
    cr_assert_not_null(strstr(buf, " in run_bwd_weights()"), "%s", buf);

    /* A write one byte past dw+db's end, recorded by the fault handler. */
    note.signo = SIGSEGV;
    note.addr_valid = 1;
    note.regions[IOHW_REGION_Y].map_lo = 0x10000;
    note.regions[IOHW_REGION_Y].data_lo = 0x11000;
    note.regions[IOHW_REGION_Y].data_hi = 0x12000;
    note.regions[IOHW_REGION_Y].map_hi = 0x13000;
    note.fault_addr = 0x12000;
    iohw_worker_death_message(SIGSEGV, &note, buf, (int)sizeof buf);
    cr_assert_not_null(strstr(buf, "past the end of dw (then db)"), "%s", buf);
}

/* --adapt-layout re-expresses a backward case too (dx like x, dw like w):
 * the layouts change, the direction stays, and adapting back gives the
 * case's own output bytes (tests/test_adapt_bwd.c runs a backend on it). */
Test(judge_bwd, adapt_re_expresses_a_backward_case_and_back)
{
    iohw_problem p = problem(IOHW_DIR_BWD_D, 2, 3, 0, "IOW");
    const int64_t count = iohw_problem_out_count(&p);
    iohw_case c = make_case(&p, count), a, b;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "NWC", "OWI", &a, &err), 0, "%s", err.msg);
    cr_expect_str_eq(a.p.data_layout, "NWC");
    cr_expect_str_eq(a.p.weight_layout, "OWI");
    cr_expect_eq(a.p.direction, IOHW_DIR_BWD_D);
    cr_assert_eq(iohw_adapt_case(&a, "NCW", "IOW", &b, &err), 0, "%s", err.msg);
    cr_expect_eq(memcmp(b.y, c.y, (size_t)count * sizeof(float)), 0);
    iohw_case_free(&b);
    iohw_case_free(&a);
    iohw_case_free(&c);
}
