/*
 * tests/test_fuzz.c - `iohw fuzz` (explore/fuzz.h): the draws are valid,
 * deterministic and reach the edges; a seeded fault is found, reported once
 * and shrunk, with a regression file that fails when run; a correct
 * backend gives no failure; the limits stop the run; bad options are
 * refused.  Limits are case counts, never times.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "explore/fuzz.h"
#include "harness/run.h"
#include "oracle/convention.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "support/shell.h"

#define DRAWS 2000

static void backend_path(const char *name, char *buf, size_t n)
{
    snprintf(buf, n, "%s/libiohw_%s.so", IOHW_BACKEND_DIR, name);
}

static void out_dir(const char *tag, char *buf, size_t n)
{
    snprintf(buf, n, "%s/fuzz-%s-%d", IOHW_TEST_TMP, tag, (int)getpid());
    iohw_test_sh(NULL, "rm -rf '%s'", buf);
}

Test(fuzz, the_same_seed_draws_the_same_valid_problems)
{
    iohw_rng a, b, c;
    iohw_rng_seed(&a, 7);
    iohw_rng_seed(&b, 7);
    iohw_rng_seed(&c, 8);
    int differ = 0;
    for (int i = 0; i < 200; i++) {
        iohw_desc da, db, dc;
        char ta[IOHW_DESC_MAX], tb[IOHW_DESC_MAX], tc[IOHW_DESC_MAX];
        iohw_error err = {{0}};
        iohw_fuzz_draw(&a, &da);
        iohw_fuzz_draw(&b, &db);
        iohw_fuzz_draw(&c, &dc);
        cr_assert_eq(iohw_problem_validate(&da.p, &err), 0, "%s", err.msg);
        cr_assert_geq(iohw_desc_format(&da, ta, sizeof ta), 0);
        cr_assert_geq(iohw_desc_format(&db, tb, sizeof tb), 0);
        cr_assert_geq(iohw_desc_format(&dc, tc, sizeof tc), 0);
        cr_assert_str_eq(ta, tb);
        differ += strcmp(ta, tc) != 0;
    }
    cr_expect_gt(differ, 150, "seeds 7 and 8 draw nearly the same problems");
}

Test(fuzz, the_draws_reach_the_edges)
{
    iohw_rng r;
    int size1 = 0, stride_gt_k = 0, pad_beyond = 0, op_limit = 0, op_beyond = 0;
    int depthwise = 0, tail = 0, special = 0, rank3 = 0, dtypes[5] = {0};
    iohw_rng_seed(&r, 1);
    for (int i = 0; i < DRAWS; i++) {
        iohw_desc d;
        iohw_fuzz_draw(&r, &d);
        const iohw_problem *p = &d.p;
        const int64_t cg = p->in_channels / p->groups;
        depthwise += p->groups > 1 && cg == 1;
        tail += cg == 9 || cg == 17 || cg == 33 || p->out_size[p->rank - 1] == 17;
        special += strcmp(d.fill, "special") == 0;
        rank3 += p->rank == 3;
        dtypes[p->dtype]++;
        for (uint32_t a = 0; a < p->rank; a++) {
            const int64_t reach = p->dilation[a] * (p->kernel[a] - 1);
            const int64_t limit = p->stride[a] > p->dilation[a] ? p->stride[a]
                                                               : p->dilation[a];
            size1 += p->in_size[a] == 1;
            stride_gt_k += p->stride[a] > p->kernel[a];
            pad_beyond += p->pad_begin[a] > reach || p->pad_end[a] > reach;
            op_limit += p->output_padding[a] == limit - 1 && limit > 1;
            op_beyond += p->output_padding[a] >= limit;
        }
    }
    cr_expect_gt(size1, DRAWS / 20);
    cr_expect_gt(stride_gt_k, DRAWS / 20);
    cr_expect_gt(pad_beyond, DRAWS / 50);
    cr_expect_gt(op_limit, DRAWS / 20);
    cr_expect_gt(op_beyond, DRAWS / 100);
    cr_expect_gt(depthwise, DRAWS / 20);
    cr_expect_gt(tail, DRAWS / 50);
    cr_expect_gt(special, DRAWS / 20);
    cr_expect_gt(rank3, DRAWS / 20);
    for (int t = IOHW_F32; t <= IOHW_BF16; t++)
        cr_expect_gt(dtypes[t], DRAWS / 20, "dtype %d", t);
}

/* Some draws are stated in each framework's convention (specification
 * section 12): their explicit members are what it resolves to, and their
 * descriptor, read back (which resolves it again and checks pad and op
 * against it), is the same problem. */
Test(fuzz, the_draws_state_every_convention_and_resolve_it)
{
    iohw_rng r;
    int conv[IOHW_CONV_MXNET + 1] = {0}, auto_pad[IOHW_AUTO_PAD_VALID + 1] = {0};
    int out = 0;
    iohw_rng_seed(&r, 1);
    for (int i = 0; i < DRAWS; i++) {
        iohw_desc d, back;
        char text[IOHW_DESC_MAX], again[IOHW_DESC_MAX];
        iohw_error err = {{0}};
        iohw_fuzz_draw(&r, &d);
        cr_assert_eq(iohw_desc_format(&d, text, sizeof text) > 0, 1);
        conv[d.p.convention]++;
        if (d.p.convention == IOHW_CONV_NONE)
            continue;
        auto_pad[d.p.auto_pad]++;
        out += d.p.out_shape[0] > 0;
        cr_assert_eq(iohw_convention_check(&d.p, &err), 0, "%s: %s", text, err.msg);
        cr_assert_eq(iohw_desc_parse(text, &back, &err), 0, "%s: %s", text, err.msg);
        cr_assert_geq(iohw_desc_format(&back, again, sizeof again), 0);
        cr_assert_str_eq(again, text);
        cr_assert(strstr(text, " conv=") != NULL, "%s", text);
    }
    cr_expect_gt(conv[IOHW_CONV_NONE], DRAWS / 2, "most draws stay explicit");
    for (int c = IOHW_CONV_ONNX; c <= IOHW_CONV_MXNET; c++)
        cr_expect_gt(conv[c], DRAWS / 50, "conv %d: %d draws", c, conv[c]);
    for (int a = IOHW_AUTO_PAD_NONE; a <= IOHW_AUTO_PAD_VALID; a++)
        cr_expect_gt(auto_pad[a], DRAWS / 50, "auto_pad %d: %d draws", a, auto_pad[a]);
    cr_expect_gt(out, DRAWS / 20, "out= in %d draws", out);
    cr_log_info("conventions: none %d onnx %d tf %d tvm %d torch %d mxnet %d; out= %d",
                conv[0], conv[1], conv[2], conv[3], conv[4], conv[5], out);
}

/* The backend of that name, a fresh output folder, options for both. */
static void fuzz_options(iohw_fuzz_options *o, const char *name, const char *tag,
                         char *backend, char *dir, int64_t cases)
{
    backend_path(name, backend, 512);
    out_dir(tag, dir, 512);
    iohw_fuzz_options_init(o);
    o->backend = backend;
    o->out_dir = dir;
    o->seed = 3;
    o->time_s = 0;
    o->max_cases = cases;
    o->jobs = 2;
}

Test(fuzz, a_seeded_fault_is_found_once_and_shrunk)
{
    char backend[512], dir[512];
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    fuzz_options(&o, "fault_no_flip", "noflip", backend, dir, 32);
    cr_assert_eq(iohw_fuzz(&o, &r, &err), 0, "%s", err.msg);
    cr_expect_eq(r.cases, 32);
    cr_expect_str_eq(r.stopped_by, "cases");
    cr_expect_gt(r.by_status[IOHW_RESULT_FAIL], 1);
    cr_assert_eq(r.nclasses, 1, "one bug, one class");
    const iohw_fuzz_class *c = &r.classes[0];
    cr_expect(strstr(c->key, "kernel flipped") != NULL, "%s", c->key);
    cr_expect_eq(c->count, r.by_status[IOHW_RESULT_FAIL]);
    cr_assert(c->shrunk_ok);
    const iohw_problem *p = &c->shrunk.minimal_case.p;
    cr_expect_leq(p->in_channels / p->groups, 2);
    cr_expect_leq(p->out_channels / p->groups, 2);
    for (uint32_t a = 0; a < p->rank; a++)
        cr_expect_leq(p->out_size[a], 3, "%s", c->shrunk.minimal_case.descriptor);
    cr_expect_str_eq(c->shrunk.minimal_case.id, "fuzz-001");

    /* The regression file fails when run; the report names the class. */
    char *text = NULL;
    int rc = iohw_test_sh(&text, "'%s' run --backend '%s' '%s' --quiet", IOHW_BIN,
                          backend, r.regressions);
    cr_expect_eq(rc, 1, "%s", text);
    cr_expect(strstr(text, "kernel flipped") != NULL, "%s", text);
    free(text);
    rc = iohw_test_sh(&text, "cat '%s'", r.report);
    cr_expect(strstr(text, "1. FAIL: matches the oracle with kernel flipped") != NULL,
              "%s", text);
    cr_expect(strstr(text, "__REPRO: iohw run") != NULL, "%s", text);
    free(text);
    iohw_fuzz_report_free(&r);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fuzz, the_same_seed_finds_the_same_failures)
{
    char backend[512], dir[512];
    iohw_fuzz_options o;
    iohw_fuzz_report a, b;
    iohw_error err = {{0}};
    fuzz_options(&o, "fault_io_swap", "again", backend, dir, 24);
    cr_assert_eq(iohw_fuzz(&o, &a, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_fuzz(&o, &b, &err), 0, "%s", err.msg);
    for (int s = 0; s < IOHW_RESULT_STATUS_COUNT; s++)
        cr_expect_eq(a.by_status[s], b.by_status[s], "status %d", s);
    cr_assert_eq(a.nclasses, b.nclasses);
    cr_assert_gt(a.nclasses, 0);
    for (int i = 0; i < a.nclasses; i++) {
        cr_expect_str_eq(a.classes[i].key, b.classes[i].key);
        cr_expect_str_eq(a.classes[i].shrunk.minimal_case.descriptor,
                         b.classes[i].shrunk.minimal_case.descriptor);
    }
    iohw_fuzz_report_free(&a);
    iohw_fuzz_report_free(&b);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fuzz, the_failure_limit_stops_the_run)
{
    char backend[512], dir[512];
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    fuzz_options(&o, "fault_crash", "limit", backend, dir, 400);
    o.max_failures = 1;
    cr_assert_eq(iohw_fuzz(&o, &r, &err), 0, "%s", err.msg);
    cr_expect_str_eq(r.stopped_by, "failures");
    cr_expect_lt(r.cases, 400);
    cr_assert_eq(r.nclasses, 1);
    cr_expect_str_eq(r.classes[0].key, "CRASH");
    iohw_fuzz_report_free(&r);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fuzz, a_correct_backend_gives_no_failure)
{
    char dir[512];
    char *text = NULL;
    out_dir("reference", dir, sizeof dir);
    int rc = iohw_test_sh(&text, "'%s' fuzz --backend '%s/libiohw_reference.so' "
                          "--cases 32 --jobs 2 --quiet -o '%s'", IOHW_BIN,
                          IOHW_BACKEND_DIR, dir);
    cr_expect_eq(rc, 0, "%s", text);
    cr_expect(strstr(text, "32 cases run") != NULL, "%s", text);
    free(text);
    cr_expect_neq(access(dir, F_OK), -1);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}

Test(fuzz, bad_options_are_refused)
{
    char backend[512], dir[512];
    char *text = NULL;
    iohw_fuzz_options o;
    iohw_fuzz_report r;
    iohw_error err = {{0}};
    fuzz_options(&o, "fault_no_flip", "bad", backend, dir, 16);
    o.filter = "rank=7";
    cr_expect_eq(iohw_fuzz(&o, &r, &err), -1);
    cr_expect(strstr(err.msg, "\"rank=7\": no problem the fuzzer draws has "
                     "it (ranks 1 to 3)") != NULL, "%s", err.msg);
    o.filter = "g=2,ci=3";
    cr_expect_eq(iohw_fuzz(&o, &r, &err), -1);
    cr_expect(strstr(err.msg, "without one of these conditions it can: \"g=2\", "
                     "\"ci=3\"") != NULL, "%s", err.msg);
    o.filter = "rank=";
    cr_expect_eq(iohw_fuzz(&o, &r, &err), -1);
    cr_expect(strstr(err.msg, "rank=") != NULL, "%s", err.msg);

    int rc = iohw_test_sh(&text, "'%s' fuzz --backend '%s'", IOHW_BIN, backend);
    cr_expect_eq(rc, 2, "%s", text);
    cr_expect(strstr(text, "-o DIR is required") != NULL, "%s", text);
    free(text);
    rc = iohw_test_sh(&text, "'%s' fuzz --backend '%s' -o '%s' --time 5x",
                      IOHW_BIN, backend, dir);
    cr_expect_eq(rc, 2, "%s", text);
    cr_expect(strstr(text, "--time '5x'") != NULL, "%s", text);
    free(text);
    iohw_test_sh(NULL, "rm -rf '%s'", dir);
}
