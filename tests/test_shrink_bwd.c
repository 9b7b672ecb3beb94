/*
 * tests/test_shrink_bwd.c - `iohw shrink` and `iohw fuzz` on backward cases
 * (explore/shrink.h, explore/fuzz.h; specification sections 7 and 13): a
 * seeded backward fault's failing case shrinks to a small case of the same
 * direction that fails with the same diagnosis, its simpler data set on
 * the direction's own inputs (dy for BWD_D and BWD_W); fuzz with dir=
 * draws backward problems, and a backward fault becomes a class whose
 * shrunk case keeps the direction.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore/fuzz.h"
#include "explore/shrink.h"
#include "generators/generators.h"
#include "harness/run.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/shell.h"

#define CALLS_BOUND 60

/* Two groups, two images, stride 2 with output_padding, asymmetric pads. */
#define BIG "n=2 ci=4 co=6 g=2 in=5x4 k=3x3 s=2x1 pad=1:0x0:1 op=1x0 dt=f32 " \
            "fill=normal seed=4"

static void backend_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
}

/* Writes the case of desc to a fresh file named after tag. */
static void write_case(const char *desc, const char *tag, char *path, size_t n)
{
    iohw_desc d;
    iohw_case c;
    iohw_error err = {{0}};
    snprintf(path, n, "%s/shrink-bwd-%s-%d.h5", IOHW_TEST_TMP, tag, (int)getpid());
    cr_assert_eq(iohw_desc_parse(desc, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "big", NULL, 1, &c, &err), 0, "%s", err.msg);
    const iohw_case *one = &c;
    cr_assert_eq(iohw_shrink_write(path, &one, 1, &err), 0, "%s", err.msg);
    iohw_case_free(&c);
}

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

/* Shrinks BIG in direction dir against fault: a FAIL naming diag before
 * and after, the same direction, at most 2 channels per group and sizes of
 * at most 3, one-hot data, and the written case fails the same way. */
static iohw_shrink_result check_fault(const char *fault, const char *dir,
                                      int32_t direction, const char *diag)
{
    char backend[512], file[512], out[512], desc[256];
    iohw_shrink_options o;
    iohw_shrink_result r;
    iohw_error err = {{0}};
    backend_path(fault, backend, sizeof backend);
    snprintf(desc, sizeof desc, "%s dir=%s", BIG, dir);
    write_case(desc, fault, file, sizeof file);
    iohw_shrink_options_init(&o);
    o.backend = backend;
    o.tmpdir = IOHW_TEST_TMP;
    cr_assert_eq(iohw_shrink_case(&o, file, "big", &r, &err), 0, "%s: %s", fault,
                 err.msg);
    cr_expect_eq(r.original.status, IOHW_RESULT_FAIL, "%s", fault);
    cr_expect_eq(r.minimal.status, IOHW_RESULT_FAIL, "%s", fault);
    cr_expect(strstr(r.original.diagnosis, diag) != NULL, "%s: \"%s\"", fault,
              r.original.diagnosis);
    cr_expect_str_eq(r.minimal.diagnosis, r.original.diagnosis, "%s", fault);
    const iohw_problem *p = &r.minimal_case.p;
    cr_expect_eq(p->direction, direction, "%s: %s", fault, r.minimal_case.descriptor);
    cr_expect(strstr(r.minimal_case.descriptor, direction == IOHW_DIR_BWD_D
                                                    ? "dir=bwd_d" : "dir=bwd_w") != NULL,
              "%s: %s", fault, r.minimal_case.descriptor);
    cr_expect_leq(p->in_channels / p->groups, 2, "%s: %s", fault, r.minimal_case.descriptor);
    cr_expect_leq(p->out_channels / p->groups, 2, "%s: %s", fault, r.minimal_case.descriptor);
    for (uint32_t a = 0; a < p->rank; a++) {
        cr_expect_leq(p->in_size[a], 3, "%s: %s", fault, r.minimal_case.descriptor);
        cr_expect_leq(p->kernel[a], 3, "%s: %s", fault, r.minimal_case.descriptor);
    }
    cr_expect_str_eq(r.minimal_case.fill, "onehot", "%s: the data step ran", fault);
    cr_expect_gt(r.steps, 0, "%s", fault);
    cr_expect_leq(r.calls, CALLS_BOUND, "%s: %d backend runs", fault, r.calls);

    snprintf(out, sizeof out, "%s/shrunk-bwd-%s-%d.h5", IOHW_TEST_TMP, fault,
             (int)getpid());
    const iohw_case *one = &r.minimal_case;
    cr_assert_eq(iohw_shrink_write(out, &one, 1, &err), 0, "%s", err.msg);
    iohw_result again = run_one(backend, out, r.minimal_case.id);
    cr_expect_eq(again.status, IOHW_RESULT_FAIL, "%s: rerun", fault);
    cr_expect_str_eq(again.diagnosis, r.original.diagnosis, "%s: rerun", fault);
    unlink(file);
    unlink(out);
    return r;
}

Test(shrink_bwd, io_swap_on_bwd_w_shrinks_within_bwd_w)
{
    iohw_shrink_result r = check_fault("fault_bwd_io_swap", "bwd_w",
                                       IOHW_DIR_BWD_W, "I and O exchanged (as OIHW)");
    /* dw swapped as OIHW shows only with C_in/G != C_out/G or both > 1. */
    cr_expect_gt(r.minimal_case.p.in_channels + r.minimal_case.p.out_channels, 2);
    iohw_shrink_result_free(&r);
}

Test(shrink_bwd, no_flip_on_bwd_d_keeps_a_kernel_wider_than_one)
{
    iohw_shrink_result r = check_fault("fault_bwd_no_flip", "bwd_d", IOHW_DIR_BWD_D,
                                       "gradient kernel not flipped");
    int wide = 0;
    for (uint32_t a = 0; a < r.minimal_case.p.rank; a++)
        wide |= r.minimal_case.p.kernel[a] > 1;
    cr_expect(wide, "a 1-tap kernel has nothing to flip: %s",
              r.minimal_case.descriptor);
    cr_expect_null(r.minimal_case.x, "BWD_D has no x");
    cr_expect_not_null(r.minimal_case.dy);
    iohw_shrink_result_free(&r);
}

Test(shrink_bwd, db_per_group_on_bwd_wb_keeps_groups_and_bias)
{
    iohw_shrink_result r = check_fault("fault_bwd_db_per_group", "bwd_wb",
                                       IOHW_DIR_BWD_W,
                                       "db summed per group into the first group's channels");
    cr_expect_geq(r.minimal_case.p.groups, 2, "%s", r.minimal_case.descriptor);
    cr_expect_eq(r.minimal_case.p.has_bias, 1, "%s", r.minimal_case.descriptor);
    iohw_shrink_result_free(&r);
}

Test(fuzz_bwd, a_backward_fault_found_by_fuzz_is_shrunk_in_its_direction)
{
    char backend[512], dir[512];
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    backend_path("fault_bwd_io_swap", backend, sizeof backend);
    snprintf(dir, sizeof dir, "%s/fuzz-bwd-%d", IOHW_TEST_TMP, (int)getpid());
    iohw_test_sh(NULL, "rm -rf '%s' && mkdir -p '%s'", dir, dir);
    iohw_fuzz_options_init(&o);
    o.backend = backend;
    o.out_dir = dir;
    o.seed = 3;
    o.time_s = 0;
    o.max_cases = 8;
    o.max_failures = 1;
    o.jobs = 1;
    o.max_calls = 30;
    o.filter = "dir=bwd_w,g=1,ci=2,co=3";
    cr_assert_eq(iohw_fuzz(&o, &r, &err), 0, "%s", err.msg);
    cr_expect_gt(r.by_status[IOHW_RESULT_FAIL], 0, "dw swapped as OIHW with ci != co");
    cr_assert_geq(r.nclasses, 1);
    cr_expect(strstr(r.classes[0].key, "I and O exchanged") != NULL, "%s",
              r.classes[0].key);
    cr_expect(r.classes[0].shrunk_ok);
    cr_expect_eq(r.classes[0].shrunk.minimal_case.p.direction, IOHW_DIR_BWD_W,
                 "%s", r.classes[0].shrunk.minimal_case.descriptor);
    iohw_fuzz_report_free(&r);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
