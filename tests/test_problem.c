/*
 * tests/test_problem.c - defaults, the output-size formula, validation (every
 * error exit) and overflow guards of iohw_problem.
 *
 * Output sizes below are worked by hand from
 *   O = (L - 1)*S - P- - P+ + D*(K - 1) + A + 1.
 */
#include <criterion/criterion.h>

#include <stdint.h>
#include <string.h>

#include "oracle/problem.h"

/* The specification's example: n=2 ci=4 co=6 g=2 in=5x7 k=3x2 s=2x1 d=1x2
 * pad=1:0x0:1 op=1x0 bias=1 dt=f32 xl=NHWC wl=OIHW. */
static iohw_problem spec_example(void)
{
    iohw_problem p;
    iohw_problem_init(&p);
    p.rank = 2;
    p.batch = 2;
    p.in_channels = 4;
    p.out_channels = 6;
    p.groups = 2;
    p.in_size[0] = 5, p.in_size[1] = 7;
    p.kernel[0] = 3, p.kernel[1] = 2;
    p.stride[0] = 2, p.stride[1] = 1;
    p.dilation[0] = 1, p.dilation[1] = 2;
    p.pad_begin[0] = 1, p.pad_end[0] = 0;
    p.pad_begin[1] = 0, p.pad_end[1] = 1;
    p.output_padding[0] = 1, p.output_padding[1] = 0;
    p.has_bias = 1;
    strcpy(p.data_layout, "NHWC");
    strcpy(p.weight_layout, "OIHW");
    return p;
}

/* A rank-1 problem with everything 1 and the given input size. */
static iohw_problem line(int64_t L)
{
    iohw_problem p;
    iohw_problem_init(&p);
    p.rank = 1;
    p.in_channels = 1;
    p.out_channels = 1;
    p.in_size[0] = L;
    p.kernel[0] = 1;
    return p;
}

Test(problem, init_sets_the_descriptor_defaults)
{
    iohw_problem p;
    memset(&p, 0x5A, sizeof p);
    iohw_problem_init(&p);
    cr_expect_eq(p.struct_size, sizeof(iohw_problem));
    cr_expect_eq(p.rank, 0);
    cr_expect_eq(p.batch, 1);
    cr_expect_eq(p.groups, 1);
    cr_expect_eq(p.in_channels, 0);
    cr_expect_eq(p.out_channels, 0);
    for (int a = 0; a < 3; a++) {
        cr_expect_eq(p.stride[a], 1);
        cr_expect_eq(p.dilation[a], 1);
        cr_expect_eq(p.in_size[a], 0);
        cr_expect_eq(p.pad_begin[a], 0);
        cr_expect_eq(p.output_padding[a], 0);
    }
    cr_expect_eq(p.dtype, IOHW_F32);
    cr_expect_eq(p.has_bias, 0);
    cr_expect_str_eq(p.data_layout, "");
    cr_expect_str_eq(p.weight_layout, "");
}

Test(problem, out_size_follows_the_formula_on_hand_worked_examples)
{
    /* Spec example.  H: (5-1)*2 - 1 - 0 + 1*(3-1) + 1 + 1 = 11.
     *                W: (7-1)*1 - 0 - 1 + 2*(2-1) + 0 + 1 = 8. */
    iohw_problem p = spec_example();
    cr_expect_eq(iohw_problem_out_axis(&p, 0), 11);
    cr_expect_eq(iohw_problem_out_axis(&p, 1), 8);

    /* L=4 K=3 S=2 D=2 P=1:2 A=1: 3*2 - 1 - 2 + 2*2 + 1 + 1 = 9. */
    iohw_problem q = line(4);
    q.kernel[0] = 3, q.stride[0] = 2, q.dilation[0] = 2;
    q.pad_begin[0] = 1, q.pad_end[0] = 2, q.output_padding[0] = 1;
    cr_expect_eq(iohw_problem_out_axis(&q, 0), 9);

    /* L=1 K=1: 0 + 0 + 1 = 1.  L=3 S=3: 2*3 + 1 = 7.
     * L=2 K=5 D=3: 1 + 3*4 + 1 = 14. */
    q = line(1);
    cr_expect_eq(iohw_problem_out_axis(&q, 0), 1);
    q = line(3);
    q.stride[0] = 3;
    cr_expect_eq(iohw_problem_out_axis(&q, 0), 7);
    q = line(2);
    q.kernel[0] = 5, q.dilation[0] = 3;
    cr_expect_eq(iohw_problem_out_axis(&q, 0), 14);

    /* L=1 K=1 P-=1: 0 - 1 + 0 + 0 + 1 = 0 (invalid).
     * L=2 K=2 P=3:3: 1 - 6 + 1 + 1 = -3. */
    q = line(1);
    q.pad_begin[0] = 1;
    cr_expect_eq(iohw_problem_out_axis(&q, 0), 0);
    q = line(2);
    q.kernel[0] = 2, q.pad_begin[0] = 3, q.pad_end[0] = 3;
    cr_expect_eq(iohw_problem_out_axis(&q, 0), -3);

    /* Axes outside the rank. */
    cr_expect_eq(iohw_problem_out_axis(&p, 2), -1);
    cr_expect_eq(iohw_problem_out_axis(&p, -1), -1);
}

Test(problem, finish_fills_empty_layouts_out_size_and_clears_unused_axes)
{
    iohw_problem p = spec_example();
    iohw_error err = {{0}};
    p.data_layout[0] = '\0';
    p.weight_layout[0] = '\0';
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    cr_expect_str_eq(p.data_layout, "NCHW");
    cr_expect_str_eq(p.weight_layout, "IOHW");
    cr_expect_eq(p.out_size[0], 11);
    cr_expect_eq(p.out_size[1], 8);
    cr_expect_eq(p.out_size[2], 0);
    cr_expect_eq(p.stride[2], 0, "init's stride 1 on the unused axis");
    cr_expect_eq(p.dilation[2], 0);
}

Test(problem, finish_keeps_the_layouts_already_given)
{
    iohw_problem p = spec_example();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    cr_expect_str_eq(p.data_layout, "NHWC");
    cr_expect_str_eq(p.weight_layout, "OIHW");
}

Test(problem, finish_gives_rank_1_and_rank_3_their_default_layouts)
{
    iohw_error err = {{0}};
    iohw_problem q = line(3);
    cr_assert_eq(iohw_problem_finish(&q, &err), 0, "%s", err.msg);
    cr_expect_str_eq(q.data_layout, "NCW");
    cr_expect_str_eq(q.weight_layout, "IOW");
    q.rank = 3;
    q.data_layout[0] = q.weight_layout[0] = '\0';
    for (int a = 0; a < 3; a++)
        q.in_size[a] = q.kernel[a] = q.stride[a] = q.dilation[a] = 1;
    cr_assert_eq(iohw_problem_finish(&q, &err), 0, "%s", err.msg);
    cr_expect_str_eq(q.data_layout, "NCDHW");
    cr_expect_str_eq(q.weight_layout, "IODHW");
}

Test(problem, finish_reports_an_invalid_problem)
{
    iohw_problem p = line(1);
    iohw_error err = {{0}};
    p.pad_end[0] = 1;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "out_size[0]") != NULL, "%s", err.msg);
    p.rank = 7;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "rank") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_problem_finish(NULL, &err), -1);
}

/* Breaks case i of a valid finished problem; returns the text the message
 * must contain, or NULL past the last case. */
static const char *break_problem(iohw_problem *p, int i)
{
    switch (i) {
    case 0: p->struct_size = 8; return "struct_size";
    case 1: p->rank = 0; return "rank";
    case 2: p->rank = 4; return "rank";
    case 3: p->batch = 0; return "batch";
    case 4: p->in_channels = 0; return "in_channels";
    case 5: p->out_channels = -6; return "out_channels";
    case 6: p->groups = 0; return "groups";
    case 7: p->groups = 3; return "does not divide in_channels";  /* 4 % 3 */
    case 8: p->groups = 4; return "does not divide out_channels"; /* 6 % 4 */
    case 9: p->in_size[0] = 0; return "in_size[0]";
    case 10: p->kernel[1] = 0; return "kernel[1]";
    case 11: p->stride[0] = 0; return "stride[0]";
    case 12: p->dilation[1] = 0; return "dilation[1]";
    case 13: p->pad_begin[0] = -1; return "pad_begin[0]";
    case 14: p->pad_end[1] = -1; return "pad_end[1]";
    case 15: p->output_padding[0] = -1; return "output_padding[0]";
    case 16: p->in_size[2] = 5; return "in_size[2]";
    case 17: p->stride[2] = 1; return "stride[2]";
    case 18: p->output_padding[2] = 1; return "output_padding[2]";
    case 19: p->out_size[2] = 1; return "out_size[2]";
    case 20: p->out_size[0] = 10; return "out_size[0] (H) = 10";
    case 21: /* W: 6 - 100 - 1 + 2 + 1 = -92 */
        p->pad_begin[1] = 100; return "out_size[1] (W): the formula gives -92";
    case 22: p->dtype = (iohw_dtype)0; return "dtype";
    case 23: p->dtype = (iohw_dtype)8; return "dtype";
    case 24: p->has_bias = 2; return "has_bias";
    case 25: strcpy(p->data_layout, "NCW"); return "data_layout";
    case 26: strcpy(p->data_layout, "nchw"); return "data_layout";
    case 27: strcpy(p->weight_layout, "IOW"); return "weight_layout";
    case 28: strcpy(p->weight_layout, "NCHW"); return "weight_layout";
    case 29: memset(p->data_layout, 'N', 16); return "data_layout";
    case 30: memset(p->weight_layout, 'I', 16); return "weight_layout";
    }
    return NULL;
}

Test(problem, validate_names_the_first_wrong_member_for_every_error_exit)
{
    iohw_problem good = spec_example();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&good, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_problem_validate(&good, &err), 0, "%s", err.msg);
    int n = 0;
    for (int i = 0;; i++) {
        iohw_problem p = good;
        const char *want = break_problem(&p, i);
        if (want == NULL)
            break;
        n++;
        strcpy(err.msg, "(unset)");
        cr_expect_eq(iohw_problem_validate(&p, &err), -1, "case %d (%s)", i,
                     want);
        cr_expect(strstr(err.msg, want) != NULL, "case %d: '%s' lacks '%s'",
                  i, err.msg, want);
        cr_expect_eq(iohw_problem_validate(&p, NULL), -1, "case %d", i);
    }
    cr_expect_eq(n, 31);
    cr_expect_eq(iohw_problem_validate(NULL, &err), -1);
    cr_expect(strstr(err.msg, "NULL") != NULL);
}

Test(problem, huge_values_give_a_clean_overflow_error)
{
    iohw_error err = {{0}};

    /* (100 - 1) * 1e18 overflows int64. */
    iohw_problem p = line(100);
    p.stride[0] = 1000000000000000000;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "overflows") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_problem_out_axis(&p, 0), -1);

    /* INT64_MAX * (3 - 1) overflows. */
    p = line(1);
    p.kernel[0] = 3;
    p.dilation[0] = INT64_MAX;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "out_size[0] (W): the output-size formula "
                              "overflows") != NULL, "%s", err.msg);

    /* 0 - INT64_MAX - INT64_MAX overflows. */
    p = line(1);
    p.pad_begin[0] = INT64_MAX;
    p.pad_end[0] = INT64_MAX;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "overflows") != NULL, "%s", err.msg);

    /* 0 + 0 + INT64_MAX + 1 overflows. */
    p = line(1);
    p.output_padding[0] = INT64_MAX;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "overflows") != NULL, "%s", err.msg);

    /* L-1 of INT64_MIN: rejected as in_size < 1; out_axis does not wrap. */
    p = line(INT64_MIN);
    cr_expect_eq(iohw_problem_out_axis(&p, 0), -1);
    cr_expect_eq(iohw_problem_validate(&p, &err), -1);
    cr_expect(strstr(err.msg, "in_size[0]") != NULL, "%s", err.msg);

    /* A stride of 1e18 on a single input position is harmless: O = 1. */
    p = line(1);
    p.stride[0] = 1000000000000000000;
    cr_expect_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    cr_expect_eq(p.out_size[0], 1);

    /* L = INT64_MAX: O = INT64_MAX, and x = 1*1*INT64_MAX is too large;
     * with batch 2 the count itself overflows. */
    p = line(INT64_MAX);
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor x") != NULL, "%s", err.msg);
    p = line(INT64_MAX);
    p.batch = 2;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor x: element count N*C_in*L overflows")
              != NULL, "%s", err.msg);
}

Test(problem, tensors_over_the_element_limit_are_rejected_by_name_and_count)
{
    iohw_error err = {{0}};

    /* Exactly 2^31 elements in x and y (L = O = 2^31): accepted. */
    iohw_problem p = line((int64_t)1 << 31);
    cr_expect_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);

    /* x: 1 * 1 * (2^31 + 1). */
    p = line(((int64_t)1 << 31) + 1);
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor x: 2147483649 elements") != NULL, "%s",
              err.msg);

    /* w: C_in * C_out/G * K = 2^16 * 2^16 * 1 = 4294967296; x, y 2^16. */
    p = line(1);
    p.in_channels = 65536;
    p.out_channels = 65536;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor w: 4294967296 elements") != NULL, "%s",
              err.msg);

    /* Grouped: G = 65536 makes w = 2^16 * 1 * 1 and the same problem fits. */
    p.groups = 65536;
    cr_expect_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);

    /* y: O = 0 + 2^31 + 1 = 2^31 + 1 from output padding alone. */
    p = line(1);
    p.output_padding[0] = (int64_t)1 << 31;
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor y: 2147483649 elements") != NULL, "%s",
              err.msg);

    /* Rank 3: 2^11 cubed = 2^33 input positions. */
    p = line(2048);
    p.rank = 3;
    for (int a = 0; a < 3; a++) {
        p.in_size[a] = 2048;
        p.kernel[a] = p.stride[a] = p.dilation[a] = 1;
    }
    cr_expect_eq(iohw_problem_finish(&p, &err), -1);
    cr_expect(strstr(err.msg, "tensor x: 8589934592 elements") != NULL, "%s",
              err.msg);
}

Test(problem, element_counts_of_the_four_tensors)
{
    /* Spec example: x = 2*4*5*7 = 280, w = 4*(6/2)*3*2 = 72,
     * y = 2*6*11*8 = 1056, bias = 6. */
    iohw_problem p = spec_example();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    cr_expect_eq(iohw_problem_x_count(&p), 280);
    cr_expect_eq(iohw_problem_w_count(&p), 72);
    cr_expect_eq(iohw_problem_y_count(&p), 1056);
    cr_expect_eq(iohw_problem_bias_count(&p), 6);
    p.has_bias = 0;
    cr_expect_eq(iohw_problem_bias_count(&p), 0);
}

Test(problem, output_padding_beyond_max_of_stride_and_dilation_is_flagged)
{
    /* A >= max(S, D) on any axis. */
    iohw_problem p = line(3);
    p.stride[0] = 2, p.output_padding[0] = 1;
    cr_expect_eq(iohw_problem_beyond_limit(&p), 0); /* 1 < 2 */
    p.output_padding[0] = 2;
    cr_expect_eq(iohw_problem_beyond_limit(&p), 1); /* 2 >= 2 */
    p.stride[0] = 1, p.dilation[0] = 2, p.output_padding[0] = 1;
    cr_expect_eq(iohw_problem_beyond_limit(&p), 0); /* 1 < max(1, 2) */
    p.output_padding[0] = 2;
    cr_expect_eq(iohw_problem_beyond_limit(&p), 1);
    /* Spec example: H: A=1 < 2, W: A=0 < 2. */
    iohw_problem q = spec_example();
    cr_expect_eq(iohw_problem_beyond_limit(&q), 0);
    q.output_padding[1] = 2; /* W: S=1, D=2 */
    cr_expect_eq(iohw_problem_beyond_limit(&q), 1);
}

Test(problem, spatial_letters_end_in_w)
{
    cr_expect_str_eq(iohw_spatial_letters(1), "W");
    cr_expect_str_eq(iohw_spatial_letters(2), "HW");
    cr_expect_str_eq(iohw_spatial_letters(3), "DHW");
    cr_expect_null(iohw_spatial_letters(0));
    cr_expect_null(iohw_spatial_letters(4));
}

Test(problem, the_direction_picks_the_output_and_its_count)
{
    /* Spec example: dx = x's 280 elements, dw + db = 72 + 6. */
    iohw_problem p = spec_example();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    cr_expect_eq(iohw_problem_out_count(&p), 1056);
    cr_expect_str_eq(iohw_direction_name(&p), "FWD_B");
    p.direction = IOHW_DIR_BWD_W;
    cr_expect_eq(iohw_problem_out_count(&p), 72 + 6);
    cr_expect_str_eq(iohw_direction_name(&p), "BWD_WB");
    cr_expect(iohw_problem_is_backward(&p));
    p.has_bias = 0;
    cr_expect_eq(iohw_problem_out_count(&p), 72);
    cr_expect_str_eq(iohw_direction_name(&p), "BWD_W");
    p.direction = IOHW_DIR_BWD_D;
    cr_expect_eq(iohw_problem_out_count(&p), 280);
    cr_expect_str_eq(iohw_direction_name(&p), "BWD_D");
    cr_expect_eq(iohw_problem_validate(&p, &err), 0, "%s", err.msg);
    p.direction = IOHW_DIR_FWD;
    cr_expect_str_eq(iohw_direction_name(&p), "FWD_D");
    cr_expect(!iohw_problem_is_backward(&p));
}

Test(problem, a_direction_is_parsed_by_benchdnn_names_in_any_case)
{
    static const struct {
        const char *s;
        int32_t direction, has_bias;
    } ok[] = {
        {"FWD_D", IOHW_DIR_FWD, 0}, {"fwd_b", IOHW_DIR_FWD, 1},
        {"Bwd_D", IOHW_DIR_BWD_D, 0}, {"bwd_w", IOHW_DIR_BWD_W, 0},
        {"BWD_WB", IOHW_DIR_BWD_W, 1},
    };
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        int32_t d = -1, b = -1;
        cr_expect_eq(iohw_direction_parse(ok[i].s, &d, &b), 0, "%s", ok[i].s);
        cr_expect_eq(d, ok[i].direction, "%s", ok[i].s);
        cr_expect_eq(b, ok[i].has_bias, "%s", ok[i].s);
    }
    int32_t d = 7, b = 7;
    cr_expect_eq(iohw_direction_parse("bwd", &d, &b), -1);
    cr_expect_eq(iohw_direction_parse("FWD_I", &d, &b), -1);
    cr_expect_eq(iohw_direction_parse("", &d, &b), -1);
    cr_expect_eq(iohw_direction_parse(NULL, &d, &b), -1);
    cr_expect_eq(d, 7, "a failed parse leaves the outputs alone");
}

Test(problem, validate_refuses_a_bad_direction_by_name)
{
    iohw_problem p = spec_example();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_finish(&p, &err), 0, "%s", err.msg);
    p.direction = 3;
    cr_expect_eq(iohw_problem_validate(&p, &err), -1);
    cr_expect(strstr(err.msg, "direction = 3") != NULL, "%s", err.msg);
    p.direction = IOHW_DIR_BWD_D;
    cr_expect_eq(iohw_problem_validate(&p, &err), -1, "BWD_D with a bias");
    cr_expect(strstr(err.msg, "BWD_D with has_bias = 1") != NULL, "%s", err.msg);
    p.has_bias = 0;
    p.reserved = 1;
    cr_expect_eq(iohw_problem_validate(&p, &err), -1);
    cr_expect(strstr(err.msg, "reserved = 1") != NULL, "%s", err.msg);
    p.reserved = 0;
    p.dtype = IOHW_S8;
    p.direction = IOHW_DIR_BWD_W;
    cr_expect_eq(iohw_problem_validate(&p, &err), -1, "quantized backward");
    cr_expect(strstr(err.msg, "float only") != NULL, "%s", err.msg);
}
