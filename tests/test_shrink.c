/*
 * tests/test_shrink.c - `iohw shrink` (explore/shrink.h): each bundled
 * seeded fault, from a sizeable failing case, shrinks to a problem of at
 * most 2 channels per group and spatial sizes of at most 3 within a bounded
 * number of backend runs, still failing with the same status and diagnosis
 * (checked again by running the written file); a passing case is refused;
 * the bound on backend runs holds; the reductions keep problems valid.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "generators/generators.h"
#include "harness/run.h"
#include "explore/shrink.h"
#include "explore/shrink_internal.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/shell.h"

/* Failing for every fault below: grouped, strided, dilated, asymmetric
 * pads with output_padding where pad_end > 0, bias, channels-last. */
#define BIG "n=2 ci=4 co=6 g=2 in=4x5 k=3x3 s=2x2 d=1x2 pad=1:0x0:1 op=1x1 " \
            "bias=1 dt=f32 xl=NHWC fill=normal seed=5"
#define CALLS_BOUND 120

static void backend_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
}

/* Writes one case made from desc to a fresh file; returns its path. */
static void write_case(const char *desc, const char *tag, char *path, size_t n)
{
    iohw_desc d;
    iohw_case c;
    iohw_error err = {{0}};
    snprintf(path, n, "%s/shrink-%s-%d.h5", IOHW_TEST_TMP, tag, (int)getpid());
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "big", NULL, 1, &c, &err), 0, "%s", err.msg);
    const iohw_case *one = &c;
    cr_assert_eq(iohw_shrink_write(path, &one, 1, &err), 0, "%s", err.msg);
    iohw_case_free(&c);
}

/* The backend of that name, BIG written to a file, options for both. */
static void setup(const char *name, const char *tag, char *backend,
                  char *file, iohw_shrink_options *o)
{
    backend_path(name, backend, 512);
    write_case(BIG, tag, file, 512);
    iohw_shrink_options_init(o);
    o->backend = backend;
    o->tmpdir = IOHW_TEST_TMP;
}

/* Runs case id of file against backend: its result. */
static iohw_result run_one(const char *backend, const char *file, const char *id)
{
    iohw_run_options o;
    iohw_run_results res;
    iohw_error err = {{0}};
    char filter[160];
    const char *inputs[1] = {file};
    snprintf(filter, sizeof filter, "id=%s", id);
    iohw_run_options_init(&o);
    o.backend = backend, o.inputs = inputs, o.ninputs = 1;
    o.filter = filter, o.jobs = 1, o.progress = -1;
    cr_assert_eq(iohw_run(&o, &res, &err), 0, "%s", err.msg);
    cr_assert_eq(res.count, 1);
    iohw_result r = res.items[0];
    iohw_run_results_free(&res);
    return r;
}

/* Shrinks desc against fault; checks the sizes, the bound, the status and
 * (expected_diag not NULL) the diagnosis, and that the minimal case written
 * to a file fails the same way when run again. */
static void check_fault(const char *fault, const char *desc,
                        iohw_result_status status, const char *expected_diag)
{
    char backend[512], file[512], out[512];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_error err = {{0}};
    backend_path(fault, backend, sizeof backend);
    write_case(desc, fault, file, sizeof file);
    iohw_shrink_options_init(&o);
    o.backend = backend;
    o.tmpdir = IOHW_TEST_TMP;
    cr_assert_eq(iohw_shrink_case(&o, file, "big", &r, &err), 0, "%s: %s", fault,
                 err.msg);

    cr_expect_eq(r.original.status, status, "%s: original %s", fault,
                 iohw_result_status_name(r.original.status));
    cr_expect_eq(r.minimal.status, status, "%s: minimal %s", fault,
                 iohw_result_status_name(r.minimal.status));
    if (expected_diag != NULL) {
        cr_expect_str_eq(r.original.diagnosis, expected_diag, "%s", fault);
        cr_expect_str_eq(r.minimal.diagnosis, expected_diag, "%s", fault);
    }
    const iohw_problem *p = &r.minimal_case.p;
    cr_expect_leq(p->in_channels / p->groups, 2, "%s: %s", fault,
                  r.minimal_case.descriptor);
    cr_expect_leq(p->out_channels / p->groups, 2, "%s: %s", fault,
                  r.minimal_case.descriptor);
    for (uint32_t a = 0; a < p->rank; a++) {
        cr_expect_leq(p->in_size[a], 3, "%s: %s", fault, r.minimal_case.descriptor);
        cr_expect_leq(p->kernel[a], 3, "%s: %s", fault, r.minimal_case.descriptor);
        cr_expect_leq(p->out_size[a], 3, "%s: %s", fault, r.minimal_case.descriptor);
    }
    cr_expect_gt(r.steps, 0, "%s", fault);
    cr_expect_leq(r.calls, CALLS_BOUND, "%s: %d backend runs", fault, r.calls);
    cr_expect_eq(r.budget_hit, 0, "%s", fault);

    /* The written case fails the same way on its own. */
    snprintf(out, sizeof out, "%s/shrunk-%s-%d.h5", IOHW_TEST_TMP, fault,
             (int)getpid());
    const iohw_case *one = &r.minimal_case;
    cr_assert_eq(iohw_shrink_write(out, &one, 1, &err), 0, "%s", err.msg);
    iohw_result again = run_one(backend, out, r.minimal_case.id);
    cr_expect_eq(again.status, status, "%s: rerun %s", fault,
                 iohw_result_status_name(again.status));
    if (expected_diag != NULL)
        cr_expect_str_eq(again.diagnosis, expected_diag, "%s", fault);
    iohw_shrink_result_free(&r);
    unlink(file);
    unlink(out);
}

#define DIAG "matches the oracle with "

Test(shrink, io_swap_shrinks_to_two_by_two_channels)
{
    check_fault("fault_io_swap", BIG, IOHW_RESULT_FAIL,
                DIAG "weight I and O exchanged");
}

Test(shrink, no_flip_shrinks_to_a_small_kernel)
{
    check_fault("fault_no_flip", BIG, IOHW_RESULT_FAIL, DIAG "kernel flipped");
}

Test(shrink, group_interleave_keeps_two_groups)
{
    check_fault("fault_group_interleave", BIG, IOHW_RESULT_FAIL,
                DIAG "input and output channels of the groups interleaved, "
                "bias included");
}

Test(shrink, op_ignored_keeps_output_padding_and_pad_end)
{
    /* Without dilation: on BIG the failure is also "effective kernel
     * k + d - 1", which keeps a dilated kernel of extent 5. */
    check_fault("fault_op_ignored", "n=2 ci=4 co=6 g=2 in=4x5 k=3x3 s=2x2 "
                "pad=1x0 op=1x1 bias=1 dt=f32 xl=NHWC seed=5", IOHW_RESULT_FAIL,
                DIAG "output_padding dropped");
}

Test(shrink, dilation_ignored_keeps_a_dilation)
{
    check_fault("fault_dilation_ignored", BIG, IOHW_RESULT_FAIL,
                DIAG "dilation ignored");
}

Test(shrink, asym_pad_swapped_keeps_asymmetric_pads)
{
    check_fault("fault_asym_pad_swapped", BIG, IOHW_RESULT_FAIL,
                DIAG "pad begin and end exchanged");
}

Test(shrink, bias_per_group_keeps_groups_and_bias)
{
    check_fault("fault_bias_per_group", BIG, IOHW_RESULT_FAIL,
                DIAG "bias indexed per group");
}

Test(shrink, crash_from_rank_3_stays_a_crash)
{
    check_fault("fault_crash", "n=3 ci=6 co=4 g=2 in=3x4x5 k=2x3x2 s=1x2x1 "
                "d=2x1x1 pad=0x1x0 bias=1 dt=f32 xl=NDHWC wl=OIDHW seed=2",
                IOHW_RESULT_CRASH, NULL);
}

Test(shrink, a_passing_case_is_refused)
{
    char backend[512], file[512];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_error err = {{0}};
    setup("reference", "pass", backend, file, &o);
    cr_assert_eq(iohw_shrink_case(&o, file, "big", &r, &err), -1);
    cr_expect(strstr(err.msg, "is PASS against") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "only a FAIL, ERROR, CRASH or TIMEOUT") != NULL,
              "%s", err.msg);
    unlink(file);
}

Test(shrink, a_missing_case_is_named)
{
    char backend[512], file[512];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_error err = {{0}};
    setup("fault_io_swap", "missing", backend, file, &o);
    cr_assert_eq(iohw_shrink_case(&o, file, "nosuch", &r, &err), -1);
    cr_expect(strstr(err.msg, "nosuch") != NULL, "%s", err.msg);
    unlink(file);
}

Test(shrink, the_bound_on_backend_runs_stops_the_search)
{
    char backend[512], file[512];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_error err = {{0}};
    setup("fault_no_flip", "bound", backend, file, &o);
    o.max_calls = 4;
    cr_assert_eq(iohw_shrink_case(&o, file, "big", &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.calls, 4);
    cr_expect_eq(r.budget_hit, 1);
    cr_expect_eq(r.minimal.status, IOHW_RESULT_FAIL);
    cr_expect_str_eq(r.minimal.diagnosis, DIAG "kernel flipped");
    iohw_shrink_result_free(&r);
    unlink(file);
}

/* --- the same failure ------------------------------------------------------ */

static iohw_result result(iohw_result_status s, const char *diag)
{
    iohw_result r;
    iohw_result_init(&r);
    r.status = s;
    r.diagnosis = iohw_text_keep(diag);
    return r;
}

Test(shrink, same_failure_is_the_same_status_and_set_of_misreadings)
{
    iohw_result a = result(IOHW_RESULT_FAIL, DIAG "pads averaged, or with "
                           "output_padding at the beginning");
    iohw_result b = result(IOHW_RESULT_FAIL, DIAG "output_padding at the "
                           "beginning, or with pads averaged");
    iohw_result c = result(IOHW_RESULT_FAIL, DIAG "pads averaged");
    iohw_result d = result(IOHW_RESULT_FAIL, DIAG "output channels of the "
                           "groups interleaved, bias included");
    iohw_result e = result(IOHW_RESULT_FAIL, DIAG "output channels of the "
                           "groups interleaved");
    iohw_result crash = result(IOHW_RESULT_CRASH, "");
    iohw_result fail = result(IOHW_RESULT_FAIL, "");
    cr_expect(iohw_shrink_same_failure(&a, &b));
    cr_expect(!iohw_shrink_same_failure(&a, &c));
    cr_expect(!iohw_shrink_same_failure(&c, &a));
    cr_expect(!iohw_shrink_same_failure(&d, &e));
    cr_expect(!iohw_shrink_same_failure(&fail, &c));
    cr_expect(iohw_shrink_same_failure(&crash, &crash));
    cr_expect(!iohw_shrink_same_failure(&crash, &fail));
}

/* --- the reductions --------------------------------------------------------- */

Test(shrink, dropping_an_axis_renames_the_layout_letters)
{
    iohw_desc d;
    iohw_problem q;
    iohw_error err = {{0}};
    char what[160];
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=4x5x6 k=1x2x3 s=1x2x3 dt=f32 "
                                 "xl=NDHWC wl=OIDHW", &d, &err), 0, "%s", err.msg);
    /* kind 0 is the rank; candidate 1 drops H */
    cr_assert_eq(iohw__shrink_candidate(&d.p, 0, 1, &q, what, sizeof what), 1);
    cr_expect_eq(q.rank, 2);
    cr_expect_str_eq(q.data_layout, "NHWC");
    cr_expect_str_eq(q.weight_layout, "OIHW");
    cr_expect_eq(q.in_size[0], 4);
    cr_expect_eq(q.in_size[1], 6);
    cr_expect_eq(q.kernel[1], 3);
    cr_expect_eq(q.stride[1], 3);
    cr_expect_eq(q.in_size[2], 0);
    cr_expect(strstr(what, "axis H dropped") != NULL, "%s", what);
}

/* A problem stated in a convention (specification section 12) may drop it,
 * keeping its explicit members; dropping an axis drops its out= too. */
Test(shrink, a_convention_can_be_dropped_and_an_axis_with_its_out_shape)
{
    iohw_desc d;
    iohw_problem q;
    iohw_error err = {{0}};
    char what[160];
    int dropped = 0;
    cr_assert_eq(iohw_desc_parse("ci=2 co=3 in=3x5 k=2x3 s=2x2 out=6x10 conv=mxnet", &d,
                                 &err), 0, "%s", err.msg);
    for (int k = 0; k < iohw__shrink_kind_count(); k++) {
        if (iohw__shrink_candidate(&d.p, k, 0, &q, what, sizeof what) != 1 ||
            strstr(what, "conv=mxnet -> explicit") == NULL)
            continue;
        dropped++;
        cr_expect_eq(q.convention, IOHW_CONV_NONE);
        cr_expect_eq(q.out_shape[0], 0);
        for (int a = 0; a < 2; a++) {
            cr_expect_eq(q.pad_begin[a], d.p.pad_begin[a]);
            cr_expect_eq(q.pad_end[a], d.p.pad_end[a]);
            cr_expect_eq(q.output_padding[a], d.p.output_padding[a]);
            cr_expect_eq(q.out_size[a], d.p.out_size[a]);
        }
    }
    cr_expect_eq(dropped, 1);
    /* kind 0 is the rank; candidate 0 drops H: W keeps its target shape. */
    cr_assert_eq(iohw__shrink_candidate(&d.p, 0, 0, &q, what, sizeof what), 1, "%s", what);
    cr_expect_eq(q.rank, 1);
    cr_expect_eq(q.out_shape[0], 10);
    cr_expect_eq(q.out_shape[1], 0);
    cr_expect_eq(q.out_size[0], 10);
}

Test(shrink, every_candidate_is_valid_and_smaller)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(BIG, &d, &err), 0, "%s", err.msg);
    int valid = 0;
    for (int k = 0; k < iohw__shrink_kind_count(); k++) {
        for (int j = 0;; j++) {
            iohw_problem q;
            char what[160];
            int c = iohw__shrink_candidate(&d.p, k, j, &q, what, sizeof what);
            if (c < 0)
                break;
            if (c == 0)
                continue;
            valid++;
            cr_expect_eq(iohw_problem_validate(&q, &err), 0, "%s: %s", what,
                         err.msg);
            cr_expect_leq(iohw_problem_x_count(&q) + iohw_problem_w_count(&q),
                          iohw_problem_x_count(&d.p) + iohw_problem_w_count(&d.p),
                          "%s", what);
        }
    }
    cr_expect_gt(valid, 20);
}

/* --- the command ------------------------------------------------------------ */

Test(shrink, the_command_writes_a_case_that_iohw_run_fails)
{
    char backend[512], file[512], out[600], dir[600];
    char *text = NULL;
    backend_path("fault_no_flip", backend, sizeof backend);
    write_case(BIG, "cmd", file, sizeof file);
    snprintf(out, sizeof out, "%s/cmd-min-%d.h5", IOHW_TEST_TMP, (int)getpid());
    int rc = iohw_test_sh(&text, "'%s' shrink --backend '%s' '%s' -o '%s'",
                          IOHW_BIN, backend, file, out);
    cr_expect_eq(rc, 0, "%s", text);
    cr_expect(strstr(text, "__REPRO: iohw run --backend") != NULL, "%s", text);
    cr_expect(strstr(text, "step 1 ") != NULL, "%s", text);
    free(text);
    rc = iohw_test_sh(&text, "'%s' run --backend '%s' '%s' --quiet", IOHW_BIN,
                      backend, out);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, DIAG "kernel flipped") != NULL, "%s", text);
    free(text);

    /* iohw run --shrink=DIR */
    snprintf(dir, sizeof dir, "%s/runshrink-%d", IOHW_TEST_TMP, (int)getpid());
    rc = iohw_test_sh(&text, "rm -rf '%s' && mkdir '%s' && '%s' run --backend "
                      "'%s' '%s' --quiet --shrink='%s'", dir, dir, IOHW_BIN,
                      backend, file, dir);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, "1 minimal case written to") != NULL, "%s", text);
    free(text);
    rc = iohw_test_sh(&text, "'%s' run --backend '%s' '%s/shrunk.h5' --quiet",
                      IOHW_BIN, backend, dir);
    cr_expect_eq(rc, 1, "%s", text);
    free(text);
    iohw_test_sh(NULL, "rm -rf '%s' '%s' '%s'", dir, out, file);
}

/* A minimal case with one-hot data (fill=onehot) is read back whole: its
 * descriptor parses, the verdict counts its multiply-adds (not 0), and its
 * message says how wrong the output is where the oracle's sum is exactly 0
 * (not "worst error inf u*err_bound"). */
Test(shrink, a_one_hot_minimal_case_reports_its_work_and_its_error)
{
    char backend[512], file[512], out[512], want[160];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_desc d;
    iohw_error err = {{0}};
    char *text = NULL;
    setup("fault_no_flip", "onehot", backend, file, &o);
    cr_assert_eq(iohw_shrink_case(&o, file, "big", &r, &err), 0, "%s", err.msg);
    cr_assert_str_eq(r.minimal_case.fill, "onehot", "%s", r.minimal_case.descriptor);
    cr_assert_eq(iohw_desc_parse(r.minimal_case.descriptor, &d, &err), 0, "%s", err.msg);
    cr_expect_str_eq(d.fill, "onehot");

    /* Multiply-adds by hand: every x element meets every tap of its group. */
    const iohw_problem *p = &r.minimal_case.p;
    long long macs = (long long)p->batch * p->in_channels * (p->out_channels / p->groups);
    for (uint32_t a = 0; a < p->rank; a++)
        macs *= (long long)p->in_size[a] * p->kernel[a];
    cr_assert_gt(macs, 0);
    snprintf(want, sizeof want, ", %lld multiply-adds)", macs);

    snprintf(out, sizeof out, "%s/onehot-min-%d.h5", IOHW_TEST_TMP, (int)getpid());
    const iohw_case *one = &r.minimal_case;
    cr_assert_eq(iohw_shrink_write(out, &one, 1, &err), 0, "%s", err.msg);
    int rc = iohw_test_sh(&text, "'%s' run --backend '%s' '%s'", IOHW_BIN,
                          backend, out);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, want) != NULL, "want '%s' in:\n%s", want, text);
    cr_expect(strstr(text, " 0 multiply-adds") == NULL, "%s", text);
    cr_expect(strstr(text, "inf u*err_bound") == NULL, "%s", text);
    cr_expect(strstr(text, "(absolute) where exactly 0 is expected") != NULL, "%s", text);
    free(text);
    iohw_shrink_result_free(&r);
    unlink(file);
    unlink(out);
}

/* Three failures of one cause (kernel flipped) are one group of the
 * verdict: `iohw run --shrink` shrinks one of them, the smallest, and
 * writes one minimal case, not three identical ones. */
Test(shrink, run_shrink_gives_one_minimal_case_per_cause)
{
    static const char *const desc[3] = {
        "n=2 ci=4 co=6 g=2 in=4x5 k=3x3 s=2x2 bias=1 dt=f32 seed=5",
        "ci=2 co=2 in=4x4 k=3x3 dt=f32 seed=6",
        "ci=3 co=2 in=5x4 k=2x3 s=2 dt=f32 seed=7",
    };
    char backend[512], file[512], dir[600];
    iohw_case c[3];
    const iohw_case *all[3];
    iohw_error err = {{0}};
    char *text = NULL;
    for (int i = 0; i < 3; i++) {
        iohw_desc d;
        char id[16];
        snprintf(id, sizeof id, "case%d", i);
        cr_assert_eq(iohw_desc_parse(desc[i], &d, &err), 0, "%s", err.msg);
        cr_assert_eq(iohw_make_case(&d, id, NULL, 1, &c[i], &err), 0, "%s", err.msg);
        all[i] = &c[i];
    }
    snprintf(file, sizeof file, "%s/shrink-cause-%d.h5", IOHW_TEST_TMP, (int)getpid());
    cr_assert_eq(iohw_shrink_write(file, all, 3, &err), 0, "%s", err.msg);
    for (int i = 0; i < 3; i++)
        iohw_case_free(&c[i]);
    backend_path("fault_no_flip", backend, sizeof backend);
    snprintf(dir, sizeof dir, "%s/cause-%d", IOHW_TEST_TMP, (int)getpid());
    int rc = iohw_test_sh(&text, "rm -rf '%s' && mkdir '%s' && '%s' run --backend "
                          "'%s' '%s' --quiet --shrink='%s'", dir, dir, IOHW_BIN,
                          backend, file, dir);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, "all 3 failures match kernel flipped") != NULL, "%s", text);
    cr_expect(strstr(text, "shrunk case 'case1' of") != NULL, "%s", text);
    cr_expect(strstr(text, "shrunk case 'case0'") == NULL, "%s", text);
    cr_expect(strstr(text, "shrunk case 'case2'") == NULL, "%s", text);
    cr_expect(strstr(text, "1 minimal case written to") != NULL, "%s", text);
    free(text);

    char shrunk[700];
    snprintf(shrunk, sizeof shrunk, "%s/shrunk.h5", dir);
    iohw_case_file *f = iohw_case_file_open(shrunk, &err);
    cr_assert_not_null(f, "%s", err.msg);
    cr_expect_eq(iohw_case_file_count(f), 1);
    cr_expect_str_eq(iohw_case_file_id(f, 0), "case1-min");
    iohw_case_file_close(f, NULL);
    iohw_test_sh(NULL, "rm -rf '%s' '%s'", dir, file);
}

Test(shrink, the_command_refuses_a_passing_case)
{
    char backend[512], file[512];
    char *text = NULL;
    backend_path("reference", backend, sizeof backend);
    write_case(BIG, "cmdpass", file, sizeof file);
    int rc = iohw_test_sh(&text, "'%s' shrink --backend '%s' '%s' --id big",
                          IOHW_BIN, backend, file);
    cr_expect_eq(rc, 2, "%s", text);
    cr_expect(strstr(text, "is PASS against") != NULL, "%s", text);
    free(text);
    unlink(file);
}
