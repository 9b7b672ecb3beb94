/*
 * tests/test_run_bwd.c - backward cases through `iohw run` (specification
 * section 13) against tests/bwd/bwd_backend.c, a backend with its own
 * loops: correct answers PASS; a wrong dx FAILs naming dx's coordinates;
 * a write past the end of dw+db is caught by the guard page; a table
 * without run_bwd_data makes BWD_D cases UNSUPPORTED without supports()
 * being asked (it aborts if it is); a crash in run_bwd_weights is a CRASH
 * naming run_bwd_weights; the JSON report holds each case's direction.
 * The cases' outputs come from the oracle (iohw_oracle_run_inputs).
 */
#include <criterion/criterion.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cases/case.h"
#include "harness/run.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "reports/reports.h"
#include "support/run_options.h"

/* Forward descriptors made backward below: one BWD_D and one BWD_W case
 * of each (bias dropped for BWD_D). */
static const char *const specs[] = {
    "n=2 ci=2 co=3 in=4x5 k=3x2 s=2x1 pad=1:0x0:1 bias=1",
    "ci=3 co=2 in=6 k=3 s=2 d=2 op=1",
};
#define NSPECS 2
#define NCASES (2 * NSPECS)

/* Small exact-ish values: (i * 7 + seed) % 11 - 5, scaled by 1/8. */
static float *pattern(int64_t n, int seed)
{
    float *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    cr_assert_not_null(v);
    for (int64_t i = 0; i < n; i++)
        v[i] = (float)((i * 7 + seed) % 11 - 5) / 8.0f;
    return v;
}

static void make_case(const char *text, int32_t dir, int k, iohw_case *c)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    memset(c, 0, sizeof *c);
    c->p = d.p;
    c->p.direction = dir;
    if (dir == IOHW_DIR_BWD_D)
        c->p.has_bias = 0;
    cr_assert_eq(iohw_problem_validate(&c->p, &err), 0, "%s", err.msg);
    snprintf(c->id, sizeof c->id, "b.%s.%d",
             dir == IOHW_DIR_BWD_D ? "bwd_d" : "bwd_w", k);
    snprintf(c->fill, sizeof c->fill, "normal");
    c->seed = (uint64_t)k;
    char desc[IOHW_DESC_MAX];
    cr_assert_geq(iohw_desc_format_problem(&c->p, c->fill, c->seed, desc,
                                           sizeof desc), 0);
    c->descriptor = strdup(desc);
    c->tags = strdup(dir == IOHW_DIR_BWD_D ? "dir-bwd_d" : "dir-bwd_w");
    c->dy = pattern(iohw_problem_dy_count(&c->p), 3 + k);
    if (dir == IOHW_DIR_BWD_D)
        c->w = pattern(iohw_problem_w_count(&c->p), 5 + k);
    else
        c->x = pattern(iohw_problem_x_count(&c->p), 1 + k);
    iohw_oracle_inputs in = {c->x, c->w, NULL, c->dy};
    iohw_oracle_result r;
    memset(&r, 0, sizeof r);
    cr_assert_eq(iohw_oracle_run_inputs(&c->p, &in, IOHW_ORACLE_DEFINITION, 1,
                                        &r, &err), 0, "%s", err.msg);
    c->y = r.y;
    c->y_f64 = r.y_f64;
    c->err_bound = r.err_bound;
    c->terms_max = r.terms_max;
}

typedef struct suite {
    char dir[400], file[512];
    const char *inputs[1];
} suite;

static void make_suite(suite *s, const char *name)
{
    iohw_error err = {{0}};
    snprintf(s->dir, sizeof s->dir, "%s/runbwd-%d-%s", IOHW_TEST_TMP,
             (int)getpid(), name);
    mkdir(s->dir, 0755);
    snprintf(s->file, sizeof s->file, "%s/backward.h5", s->dir);
    s->inputs[0] = s->dir;
    iohw_case_file *f = iohw_case_file_create(s->file, &err);
    cr_assert_not_null(f, "%s", err.msg);
    for (int k = 0; k < NSPECS; k++) {
        for (int32_t dir = IOHW_DIR_BWD_D; dir <= IOHW_DIR_BWD_W; dir++) {
            iohw_case c;
            make_case(specs[k], dir, k, &c);
            cr_assert_eq(iohw_case_file_write(f, &c, &err), 0, "%s", err.msg);
            iohw_case_free(&c);
        }
    }
    cr_assert_eq(iohw_case_file_close(f, &err), 0, "%s", err.msg);
}

static void remove_suite(const suite *s)
{
    unlink(s->file);
    rmdir(s->dir);
}

/* Runs the suite against the test backend with IOHW_BWD_KNOB = knob. */
static void run_knob(const suite *s, const char *knob, iohw_run_results *res)
{
    char path[512];
    iohw_error err = {{0}};
    snprintf(path, sizeof path, "%s/libiohw_bwd_test.so", IOHW_BACKEND_DIR);
    if (knob != NULL)
        setenv("IOHW_BWD_KNOB", knob, 1);
    else
        unsetenv("IOHW_BWD_KNOB");
    iohw_run_options o = iohw_test_run_options(path, s->inputs);
    cr_assert_eq(iohw_run(&o, res, &err), 0, "%s", err.msg);
    unsetenv("IOHW_BWD_KNOB");
    cr_assert_eq(res->count, NCASES);
}

static int is_data(const iohw_result *r)
{
    return strstr(r->case_id, "bwd_d") != NULL;
}

Test(run_bwd, correct_backward_answers_pass_with_their_direction)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "ok");
    run_knob(&s, NULL, &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s: %s %s", r->case_id,
                     iohw_result_status_name(r->status), r->message);
        const char *want = is_data(r) ? "BWD_D"
                           : strcmp(r->case_id, "b.bwd_w.0") == 0 ? "BWD_WB"
                                                                 : "BWD_W";
        cr_expect_str_eq(r->direction, want, "%s", r->case_id);
    }
    /* The JSON report holds the direction. */
    static char buf[1 << 18];
    FILE *f = fmemopen(buf, sizeof buf - 1, "w");
    cr_assert_not_null(f);
    iohw_report_options ro;
    memset(&ro, 0, sizeof ro);
    cr_assert_eq(iohw_report_json(f, &res, &ro), 0);
    fclose(f);
    cr_expect_not_null(strstr(buf, "\"direction\": \"BWD_D\""));
    cr_expect_not_null(strstr(buf, "\"direction\": \"BWD_WB\""));
    cr_expect_not_null(strstr(buf, "\"direction\": \"BWD_W\""));
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run_bwd, a_wrong_dx_fails_naming_dx)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "wrongdx");
    run_knob(&s, "wrong_dx", &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (!is_data(r)) {
            cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s", r->case_id);
            continue;
        }
        cr_expect_eq(r->status, IOHW_RESULT_FAIL, "%s: %s", r->case_id,
                     r->message);
        cr_expect_eq(r->mismatches, 1, "%s", r->case_id);
        cr_expect_eq(r->points[0].index, 0);
        const char *at = strstr(r->case_id, ".0") ? "dx[N=0,C=0,H=0,W=0]"
                                                   : "dx[N=0,C=0,W=0]";
        cr_expect_not_null(strstr(r->message, at), "%s: %s", r->case_id,
                           r->message);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run_bwd, a_write_past_dw_and_db_is_caught)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "oob");
    run_knob(&s, "oob", &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (is_data(r))
            continue;
        cr_expect_eq(r->status, IOHW_RESULT_CRASH, "%s: %s", r->case_id,
                     r->message);
        cr_expect_not_null(strstr(r->message, "run_bwd_weights()"), "%s",
                           r->message);
        cr_expect_not_null(strstr(r->message, "past the end of dw (then db)"),
                           "%s", r->message);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run_bwd, no_run_bwd_data_is_unsupported_unasked)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "nodata");
    run_knob(&s, "no_data", &res);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (!is_data(r)) {
            cr_expect_eq(r->status, IOHW_RESULT_PASS, "%s", r->case_id);
            continue;
        }
        /* supports() aborts when asked: UNSUPPORTED proves it was not. */
        cr_expect_eq(r->status, IOHW_RESULT_UNSUPPORTED, "%s: %s %s",
                     r->case_id, iohw_result_status_name(r->status),
                     r->message);
        cr_expect_not_null(strstr(r->message, "no run_bwd_data"), "%s",
                           r->message);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}

Test(run_bwd, a_crash_in_run_bwd_weights_names_it)
{
    suite s;
    iohw_run_results res;
    make_suite(&s, "crash");
    run_knob(&s, "crash_w", &res);
    int crashes = 0;
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        if (is_data(r))
            continue;
        crashes++;
        cr_expect_eq(r->status, IOHW_RESULT_CRASH, "%s: %s", r->case_id,
                     r->message);
        cr_expect_not_null(strstr(r->message, "in run_bwd_weights()"), "%s",
                           r->message);
        cr_expect_not_null(strstr(r->message, "SIGSEGV"), "%s",
                           r->message);
    }
    cr_expect_eq(crashes, NSPECS);
    iohw_run_results_free(&res);
    remove_suite(&s);
}

/* A TIMEOUT is made by the parent (the worker and its verifier killed),
 * from the listing alone: it carries the case's direction (BWD_WB with a
 * bias, BWD_W without), so the reports group it with its direction. */
Test(run_bwd, a_timeout_made_by_the_parent_carries_the_direction)
{
    suite s;
    iohw_run_results res;
    char path[512];
    iohw_error err = {{0}};
    make_suite(&s, "hang");
    snprintf(path, sizeof path, "%s/libiohw_bwd_test.so", IOHW_BACKEND_DIR);
    setenv("IOHW_BWD_KNOB", "hang_w", 1);
    iohw_run_options o = iohw_test_run_options(path, s.inputs);
    o.timeout = 1, o.timeout_scaled = 0;
    o.filter = "dir=bwd_w";
    o.breaker = 0;
    cr_assert_eq(iohw_run(&o, &res, &err), 0, "%s", err.msg);
    unsetenv("IOHW_BWD_KNOB");
    cr_assert_eq(res.count, NSPECS);
    for (int64_t i = 0; i < res.count; i++) {
        const iohw_result *r = &res.items[i];
        cr_expect_eq(r->status, IOHW_RESULT_TIMEOUT, "%s", r->case_id);
        cr_expect_str_eq(r->direction, strstr(r->case_id, ".0") ? "BWD_WB" : "BWD_W",
                         "%s", r->case_id);
    }
    iohw_run_results_free(&res);
    remove_suite(&s);
}
