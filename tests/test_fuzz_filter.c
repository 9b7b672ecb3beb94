/*
 * tests/test_fuzz_filter.c - `iohw fuzz --filter` constrains the draws
 * (explore/fuzz.h, specification section 7): for each key the fuzzer can
 * constrain, every problem drawn inside the filter's bounds satisfies the
 * filter (checked by the run's own matcher, harness/filter.h, and by hand
 * on the members), and a filter no draw can meet is refused naming its
 * condition.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "explore/fuzz.h"
#include "harness/filter.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

#define DRAWS 150

/* Draws DRAWS problems inside filter expr; every one must match it. */
static void draws_satisfy(const char *expr, iohw_desc *last)
{
    iohw_fuzz_bounds b;
    iohw_error err = {{0}};
    iohw_rng r;
    cr_assert_eq(iohw_fuzz_bounds_parse(expr, &b, &err), 0, "%s: %s", expr, err.msg);
    iohw_filter *f = iohw_filter_parse(expr, &err);
    cr_assert_not_null(f, "%s", err.msg);
    iohw_rng_seed(&r, 11);
    for (int i = 0; i < DRAWS; i++) {
        iohw_desc d;
        iohw_case c;
        cr_assert_eq(iohw_fuzz_draw_within(&r, &b, &d), 0, "%s: draw %d", expr, i);
        cr_assert_eq(iohw_problem_validate(&d.p, &err), 0, "%s", err.msg);
        memset(&c, 0, sizeof c);
        c.p = d.p;
        memcpy(c.fill, d.fill, sizeof c.fill);
        snprintf(c.id, sizeof c.id, "fuzz.%06d", i);
        c.tags = (char *)"";
        c.descriptor = (char *)"";
        cr_assert(iohw_filter_match(f, &c), "%s: draw %d outside it", expr, i);
        if (last != NULL)
            last[i] = d;
    }
    iohw_filter_free(f);
}

Test(fuzz_filter, each_constrainable_key_yields_problems_that_satisfy_it)
{
    static const char *const filters[] = {
        "rank=1", "rank=3", "rank!=2", "n=4", "n>=3", "ci=5", "ci<=2", "co=7",
        "g=3", "g>2", "k=1", "k>=6", "k<2", "k!=1", "s=1", "s>=4", "d=2",
        "pb=0", "pb>=3", "pe=2", "op=1", "op=0", "in=1", "in>=20", "dt=f16",
        "dt=bf16", "dt!=f32", "fill=exact", "fill!=special", "xl=NWC",
        "xl=NDHWC", "wl=OIHW", "dir=fwd", "dir=fwd_d", "dir=fwd_b",
        "dir=bwd", "dir=bwd_d", "dir=bwd_w", "dir=bwd_wb", "dir=bwd_w,rank=3",
        "rank=2,dt=f32,k=1,s=1", "rank=2,k=1,pb>=1,pe>=1,s=2",
        "g=2,ci=4,co=6,d=3,op=2",
    };
    for (size_t i = 0; i < sizeof filters / sizeof filters[0]; i++)
        draws_satisfy(filters[i], NULL);
}

Test(fuzz_filter, the_1x1_kernel_with_crop_is_drawn_in_every_rank)
{
    iohw_desc d[DRAWS];
    draws_satisfy("rank=2,dt=f32,k=1,s=1", d);
    int cropped = 0;
    for (int i = 0; i < DRAWS; i++) {
        cr_assert_eq(d[i].p.rank, 2);
        cr_assert_eq(d[i].p.dtype, IOHW_F32);
        for (int a = 0; a < 2; a++) {
            cr_assert_eq(d[i].p.kernel[a], 1);
            cr_assert_eq(d[i].p.stride[a], 1);
        }
        cropped += d[i].p.pad_begin[0] + d[i].p.pad_end[0] > 0;
    }
    cr_expect_gt(cropped, DRAWS / 10, "a 1x1 kernel with padding (a crop) is drawn");
    for (int rank = 1; rank <= 3; rank++) {
        char expr[64];
        snprintf(expr, sizeof expr, "rank=%d,k=1,pb>=1", rank);
        draws_satisfy(expr, d);
        cr_expect_eq(d[0].p.rank, (uint32_t)rank);
    }
}

Test(fuzz_filter, a_lower_bound_on_an_axis_key_holds_on_one_axis)
{
    iohw_desc d[DRAWS];
    draws_satisfy("rank=3,k>=5", d);
    int mixed = 0;
    for (int i = 0; i < DRAWS; i++) {
        int64_t big = 0, small = 0;
        for (int a = 0; a < 3; a++) {
            big += d[i].p.kernel[a] >= 5;
            small += d[i].p.kernel[a] < 5;
        }
        cr_assert_geq(big, 1);
        mixed += small > 0;
    }
    cr_expect_gt(mixed, 0, "the other axes keep their own kernels");
}

Test(fuzz_filter, a_filter_no_draw_can_meet_is_refused_by_name)
{
    static const struct {
        const char *expr, *named;
    } bad[] = {
        {"dt=s8", "\"dt=s8\": the fuzzer draws float problems only"},
        {"rank=4", "\"rank=4\": no problem"},
        {"k=0", "\"k=0\": no problem has it (k is at least 1)"},
        {"s<1", "\"s<1\""},
        {"dir=fwd,dir=bwd", "\"dir=bwd\": contradicts the filter's other dir="},
        {"dir=sideways", "\"dir=sideways\": unknown direction"},
        {"fill=qdeploy", "\"fill=qdeploy\": the fuzzer draws the fills"},
        {"rank=2,xl=NCW", "\"xl=NCW\": its rank 1 contradicts"},
        {"n>2,n<3", "\"n<3\""},
        {"dt!=f32,dt!=f64,dt!=f16,dt!=bf16", "\"dt!=bf16\": excludes every dtype"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        iohw_fuzz_bounds b;
        iohw_error err = {{0}};
        cr_expect_eq(iohw_fuzz_bounds_parse(bad[i].expr, &b, &err), -1, "%s", bad[i].expr);
        cr_expect(strstr(err.msg, bad[i].named) != NULL, "%s: %s", bad[i].expr, err.msg);
    }
}

Test(fuzz_filter, without_a_filter_the_draws_are_the_plain_stream)
{
    iohw_rng a, b;
    iohw_rng_seed(&a, 3);
    iohw_rng_seed(&b, 3);
    for (int i = 0; i < 100; i++) {
        iohw_desc x, y;
        iohw_fuzz_bounds none;
        cr_assert_eq(iohw_fuzz_bounds_parse("id=*", &none, NULL), 0);
        iohw_fuzz_draw(&a, &x);
        cr_assert_eq(iohw_fuzz_draw_within(&b, &none, &y), 0);
        cr_assert_eq(memcmp(&x.p, &y.p, sizeof x.p), 0, "draw %d", i);
        cr_assert_str_eq(x.fill, y.fill);
    }
}

/* Backward problems only when dir= asks (specification section 13): each
 * direction is drawn under dir=bwd, none without a dir=. */
Test(fuzz_filter, dir_bwd_draws_both_backward_directions_and_none_by_default)
{
    iohw_desc d[DRAWS];
    int seen[3] = {0, 0, 0};
    draws_satisfy("dir=bwd", d);
    for (int i = 0; i < DRAWS; i++) {
        cr_assert(d[i].p.direction == IOHW_DIR_BWD_D || d[i].p.direction == IOHW_DIR_BWD_W);
        seen[d[i].p.direction]++;
        if (d[i].p.direction == IOHW_DIR_BWD_D)
            cr_expect_eq(d[i].p.has_bias, 0, "BWD_D has no bias");
    }
    cr_expect_gt(seen[IOHW_DIR_BWD_D], 0);
    cr_expect_gt(seen[IOHW_DIR_BWD_W], 0);
    draws_satisfy("rank=2", d);
    for (int i = 0; i < DRAWS; i++)
        cr_expect_eq(d[i].p.direction, IOHW_DIR_FWD);
}
