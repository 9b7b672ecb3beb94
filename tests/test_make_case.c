/*
 * tests/test_make_case.c - derived tags (every tag's condition, worked out by
 * hand for each problem) and complete cases: iohw_make_case and
 * iohw_complete_case.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/problem.h"

static iohw_desc parse(const char *text)
{
    iohw_desc d;
    iohw_error e;
    memset(&d, 0, sizeof d);
    int rc = iohw_desc_parse(text, &d, &e);
    cr_assert_eq(rc, 0, "descriptor '%s': %s", text, e.msg);
    return d;
}

static void check_tags(const char *problem, const char *expected)
{
    iohw_desc d = parse(problem);
    char buf[512];
    int len = iohw_problem_tags(&d.p, d.fill, buf, sizeof buf);
    cr_assert_eq(len, (int)strlen(expected), "%s: got '%s'", problem, buf);
    cr_assert_str_eq(buf, expected, "%s", problem);
}

/* ---------------------------------------------------------------------- */
/* Tags. */

Test(tags, a_plain_problem_has_only_rank_dtype_and_fill)
{
    check_tags("ci=1 co=1 in=3 k=2", "1d,f32,fill-normal");
    check_tags("ci=1 co=1 in=3x3x3 k=2x2x2 dt=bf16 fill=exact", "3d,bf16,fill-exact");
}

Test(tags, the_specification_example_has_every_tag_its_parameters_imply)
{
    /* batch 2; g=2 (not depthwise: ci=4); s=2 on H; d=2 on W; pads 1:0 and
     * 0:1 (asymmetric); op=1 on H, below max(s, d) = 2; bias; every
     * parameter differs between H and W; NHWC puts C last; OIHW is not
     * IO-first; no G in the weight layout. */
    check_tags("n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 "
               "dt=f32 xl=NHWC wl=OIHW fill=normal seed=7",
               "2d,f32,fill-normal,batch,grouped,strided,dilated,padded,asym-pad,out-pad,"
               "bias,anisotropic,channels-last,weight-not-io");
}

Test(tags, depthwise_and_grouped_weight_layouts_are_tagged)
{
    /* G == C_in; GOIW without G is OIW, not IO-first. */
    check_tags("ci=4 co=8 g=4 in=5 k=3 wl=GOIW",
               "1d,f32,fill-normal,grouped,depthwise,weight-grouped,weight-not-io");
    /* GIOHW without G is IOHW. */
    check_tags("ci=4 co=4 g=2 in=5x5 k=3x3 wl=GIOHW dt=f16 fill=special",
               "2d,f16,fill-special,grouped,weight-grouped");
}

Test(tags, output_padding_beyond_stride_and_dilation_is_tagged)
{
    /* op=2 >= max(s=2, d=1). */
    check_tags("ci=1 co=1 in=3 k=2 s=2 op=2",
               "1d,f32,fill-normal,strided,out-pad,op-beyond-limit");
    /* op=1 < max(s=1, d=2) = 2: only out-pad. */
    check_tags("ci=1 co=1 in=3 k=2 d=2 op=1", "1d,f32,fill-normal,dilated,out-pad");
    /* symmetric padding is padded but not asym-pad. */
    check_tags("ci=1 co=1 in=4 k=3 pad=1 dt=f64", "1d,f64,fill-normal,padded");
}

Test(tags, a_small_buffer_gives_minus_one)
{
    iohw_desc d = parse("n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 bias=1");
    char buf[8];
    cr_assert_eq(iohw_problem_tags(&d.p, d.fill, buf, sizeof buf), -1);
    cr_assert_eq(iohw_problem_tags(&d.p, d.fill, buf, 0), -1);
}

/* ---------------------------------------------------------------------- */
/* Cases. */

static const char *example =
    "n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2 pad=1:0x0:1 op=1x0 bias=1 dt=f32 "
    "xl=NHWC wl=OIHW fill=normal seed=7";

Test(make_case, a_case_holds_the_canonical_descriptor_tags_and_outputs)
{
    iohw_desc d = parse("in=5x7 ci=4 co=6 k=3x2 g=2 n=2 bias=1");
    iohw_case c;
    iohw_error e;
    char text[IOHW_DESC_MAX];
    cr_assert_eq(iohw_make_case(&d, "one", "regression,oneDNN-314", 1, &c, &e), 0, "%s",
                 e.msg);
    cr_assert_str_eq(c.id, "one");
    cr_assert_geq(iohw_desc_format(&d, text, sizeof text), 0);
    cr_assert_str_eq(c.descriptor, text);
    cr_assert_str_eq(c.fill, "normal");
    cr_assert_eq(c.seed, 1);
    /* Derived tags, then the extra ones. */
    cr_assert_str_eq(c.tags, "2d,f32,fill-normal,batch,grouped,bias,anisotropic,"
                             "regression,oneDNN-314");
    cr_assert(c.x != NULL && c.w != NULL && c.bias != NULL);
    cr_assert(c.y != NULL && c.y_f64 != NULL && c.err_bound != NULL);
    /* Each output sums Cg * 3 * 2 = 12 products (stride 1, no padding, so
     * every kernel position reaches the middle outputs). */
    cr_assert_eq(c.terms_max, 12);
    iohw_case_free(&c);
    cr_assert_null(c.x);
}

Test(make_case, the_same_descriptor_gives_the_same_numbers_with_any_thread_count)
{
    iohw_desc d = parse(example);
    iohw_case a, b;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "a", NULL, 1, &a, &e), 0, "%s", e.msg);
    cr_assert_eq(iohw_make_case(&d, "b", NULL, 3, &b, &e), 0, "%s", e.msg);
    const size_t ny = (size_t)iohw_problem_y_count(&a.p);
    cr_assert_eq(memcmp(a.x, b.x, (size_t)iohw_problem_x_count(&a.p) * 4), 0);
    cr_assert_eq(memcmp(a.y_f64, b.y_f64, ny * sizeof(double)), 0);
    cr_assert_eq(memcmp(a.err_bound, b.err_bound, ny * sizeof(double)), 0);
    iohw_case_free(&a);
    iohw_case_free(&b);
}

Test(make_case, a_bad_id_is_an_error_naming_it)
{
    iohw_desc d = parse(example);
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "bad id/1", NULL, 1, &c, &e), -1);
    cr_assert(strstr(e.msg, "'bad id/1'") != NULL, "%s", e.msg);
    cr_assert_null(c.x);
    cr_assert_eq(iohw_make_case(NULL, "x", NULL, 1, &c, &e), -1);
    cr_assert_eq(iohw_make_case(&d, NULL, NULL, 1, &c, &e), -1);
}

Test(make_case, completing_a_case_without_outputs_reproduces_them)
{
    iohw_desc d = parse(example);
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "user.1", NULL, 1, &c, &e), 0, "%s", e.msg);
    const size_t ny = (size_t)iohw_problem_y_count(&c.p);
    double *y_f64 = malloc(ny * sizeof(double));
    double *eb = malloc(ny * sizeof(double));
    memcpy(y_f64, c.y_f64, ny * sizeof(double));
    memcpy(eb, c.err_bound, ny * sizeof(double));
    const int64_t terms_max = c.terms_max;

    /* What a user file holds: the problem without out_size, and inputs. */
    free(c.y);
    free(c.y_f64);
    free(c.err_bound);
    free(c.tags);
    free(c.descriptor);
    c.y = NULL;
    c.y_f64 = c.err_bound = NULL;
    c.tags = c.descriptor = NULL;
    c.fill[0] = '\0';
    c.terms_max = 0;
    memset(c.p.out_size, 0, sizeof c.p.out_size);

    cr_assert_eq(iohw_complete_case(&c, 2, &e), 0, "%s", e.msg);
    cr_assert_eq(memcmp(c.y_f64, y_f64, ny * sizeof(double)), 0);
    cr_assert_eq(memcmp(c.err_bound, eb, ny * sizeof(double)), 0);
    cr_assert_eq(c.terms_max, terms_max);
    cr_assert_eq(c.p.out_size[0], 11); /* (5-1)*2 - 1 - 0 + 1*(3-1) + 1 + 1 */
    cr_assert_eq(c.p.out_size[1], 8); /* (7-1)*1 - 0 - 1 + 2*(2-1) + 0 + 1 */
    cr_assert_str_eq(c.fill, "user");
    cr_assert(c.descriptor != NULL && strstr(c.descriptor, "ci=4") != NULL);
    cr_assert(c.tags != NULL && strstr(c.tags, "fill-user") != NULL, "%s", c.tags);
    free(y_f64);
    free(eb);
    iohw_case_free(&c);
}

Test(make_case, completing_a_case_without_inputs_is_an_error_naming_them)
{
    iohw_desc d = parse(example);
    iohw_case c;
    iohw_error e;
    cr_assert_eq(iohw_make_case(&d, "user.2", NULL, 1, &c, &e), 0, "%s", e.msg);
    void *w = c.w;
    c.w = NULL;
    cr_assert_eq(iohw_complete_case(&c, 1, &e), -1);
    cr_assert(strstr(e.msg, "user.2") != NULL && strstr(e.msg, "w") != NULL, "%s", e.msg);
    c.w = w;
    c.p.groups = 5;
    cr_assert_eq(iohw_complete_case(&c, 1, &e), -1);
    cr_assert(strstr(e.msg, "user.2") != NULL, "%s", e.msg);
    iohw_case_free(&c);
}
