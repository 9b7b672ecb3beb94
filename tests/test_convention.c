/*
 * tests/test_convention.c - the framework conventions (specification section
 * 12) against tables of expected pads, output_padding and output sizes
 * worked by hand from each framework's documentation or code:
 *   ONNX   ConvTranspose's formula (onnx/defs/nn/defs.cc, the operator text):
 *          total_padding = S*(L-1) + A + ((K-1)*D + 1) - output_shape;
 *          SAME_UPPER: begin = total/2, end = total - total/2; otherwise
 *          begin = total - total/2, end = total/2; SAME_*: output_shape =
 *          L*S.
 *   TF     tensorflow/core/framework/kernel_shape_util.cc
 *          GetWindowedOutputSizeVerbose ('SAME': out = ceil(O/S), need =
 *          max((out-1)*S + E - O, 0), before = need/2; 'VALID': out =
 *          (O - E + S)/S) and Keras deconv_output_length ('same': L*S,
 *          'valid': L*S + max(E - S, 0)).
 *   TVM    python/tvm/topi/nn/utils.py get_pad_tuple ('SAME': pad_h =
 *          K - 1, pad_top = (pad_h + 1)//2) and conv2d_transpose.py
 *          (out = (L-1)*S + K - top - bottom + opad, opad < stride).
 *   torch  torch/nn/modules/conv.py _ConvTransposeNd._output_padding
 *          (min = (L-1)*S - 2P + D*(K-1) + 1, max = min + S - 1); random
 *          problems against PyTorch itself are in test_convention_torch.c.
 *   MXNet  src/operator/nn/deconvolution-inl.h InferPad (t = S*(L-1) + E -
 *          target, adj = t % 2, pad = (t + 1)/2, "too big target shape").
 * Each row is a descriptor; the numbers after it are the expected result.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <string.h>

#include "oracle/convention.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"

typedef struct row {
    const char *desc;
    int64_t pb[3], pe[3], op[3], out[3];
} row;

static void expect_rows(const row *rows, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        iohw_desc d;
        iohw_error e;
        cr_assert_eq(iohw_desc_parse(rows[i].desc, &d, &e), 0, "%s: %s", rows[i].desc,
                     e.msg);
        for (uint32_t a = 0; a < d.p.rank; a++) {
            cr_expect_eq(d.p.pad_begin[a], rows[i].pb[a], "%s: pad_begin[%u]", rows[i].desc, a);
            cr_expect_eq(d.p.pad_end[a], rows[i].pe[a], "%s: pad_end[%u]", rows[i].desc, a);
            cr_expect_eq(d.p.output_padding[a], rows[i].op[a], "%s: op[%u]", rows[i].desc, a);
            cr_expect_eq(d.p.out_size[a], rows[i].out[a], "%s: out[%u]", rows[i].desc, a);
        }
        cr_expect_eq(iohw_convention_check(&d.p, &e), 0, "%s: %s", rows[i].desc, e.msg);
    }
}

/* Expects the descriptor to be refused with `needle` in the message. */
static void expect_refused(const char *desc, const char *needle)
{
    iohw_desc d;
    iohw_error e;
    cr_assert_neq(iohw_desc_parse(desc, &d, &e), 0, "%s was accepted", desc);
    cr_expect(strstr(e.msg, needle) != NULL, "%s: '%s' not in: %s", desc, needle, e.msg);
}

#define N(rows) (sizeof rows / sizeof rows[0])

Test(convention_onnx, pads_follow_the_operators_formula)
{
    static const row rows[] = {
        /* total = 8 + 3 - 10 = 1 */
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_upper conv=onnx", {0}, {1}, {0}, {10}},
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_lower conv=onnx", {1}, {0}, {0}, {10}},
        /* total = 6 + 4 - 8 = 2 */
        {"ci=1 co=1 in=4 k=4 s=2 auto_pad=same_upper conv=onnx", {1}, {1}, {0}, {8}},
        /* total = 2 + 5 - 3 = 4 (dilated kernel 5) */
        {"ci=1 co=1 in=3 k=3 d=2 auto_pad=same_upper conv=onnx", {2}, {2}, {0}, {3}},
        /* output_padding counts in total_padding: 4 + 1 + 2 - 6 = 1 */
        {"ci=1 co=1 in=3 k=2 s=2 op=1 auto_pad=same_lower conv=onnx", {1}, {0}, {1}, {6}},
        /* output_shape with NOTSET: 15 + 5 - 17 = 3, the larger half first */
        {"ci=1 co=1 in=6 k=5 s=3 out=17 conv=onnx", {2}, {1}, {0}, {17}},
        {"ci=1 co=1 in=6 k=5 s=3 out=17 auto_pad=same_upper conv=onnx", {1}, {2}, {0}, {17}},
        {"ci=1 co=1 in=6 k=5 s=3 out=17 auto_pad=valid conv=onnx", {2}, {1}, {0}, {17}},
        /* VALID: no pads, out = F + A = 6 + 3 + 1 */
        {"ci=1 co=1 in=4 k=3 s=2 op=1 auto_pad=valid conv=onnx", {0}, {0}, {1}, {10}},
        /* output_shape beyond F reached with output_padding: 9 + 1 - 10 */
        {"ci=1 co=1 in=4 k=3 s=2 op=1 out=10 conv=onnx", {0}, {0}, {1}, {10}},
        /* 2-d: H total 6 + 3 - 8 = 1, W total 4 + 4 - 5 = 3 */
        {"ci=1 co=1 in=4x5 k=3x4 s=2x1 auto_pad=same_upper conv=onnx", {0, 1}, {1, 2},
         {0, 0}, {8, 5}},
    };
    expect_rows(rows, N(rows));
}

Test(convention_onnx, negative_total_padding_is_refused_with_the_rule)
{
    /* L*S = 6 but F = 4 + 1 = 5: total -1 (ONNX Runtime clamps to 0). */
    expect_refused("ci=1 co=1 in=3 k=1 s=2 auto_pad=same_upper conv=onnx",
                   "total_padding = S*(L-1) + output_padding + ((K-1)*D + 1) - L*S = -1 < 0");
    expect_refused("ci=1 co=1 in=3 k=1 s=2 auto_pad=same_upper conv=onnx",
                   "ONNX Runtime clamps total_padding at 0 and returns 5");
    /* output_shape 11 > F = 9 without output_padding: total -2. */
    expect_refused("ci=1 co=1 in=4 k=3 s=2 out=11 conv=onnx",
                   "output_shape 11 is beyond what pads reach");
    expect_refused("ci=1 co=1 in=4 k=3 s=2 out=11 conv=onnx", "conv=onnx, axis W");
    expect_refused("ci=1 co=1 in=4 k=3 s=2 out=11 conv=onnx",
                   "below -1 ONNX's reference implementation and ONNX Runtime");
    /* total -1 with SAME_UPPER: the reference pads -1 at the beginning. */
    expect_refused("ci=1 co=1 in=4 k=3 s=2 out=10 auto_pad=same_upper conv=onnx",
                   "= -1 < 0; with SAME_UPPER ONNX's reference implementation pads "
                   "-1 at the beginning");
}

Test(convention_onnx, total_padding_minus_one_is_one_more_output_padding)
{
    /* F = (L-1)*S + K = 9, output_shape 10: begin 0, end -1 in ONNX's
     * reference (onnx/reference/ops/op_conv_transpose.py) and ONNX Runtime
     * (total clamped at 0, the output_shape kept); stated as op + 1. */
    static const row rows[] = {
        {"ci=1 co=1 in=4 k=3 s=2 out=10 conv=onnx", {0}, {0}, {1}, {10}},
        {"ci=1 co=1 in=4 k=3 s=2 out=10 auto_pad=valid conv=onnx", {0}, {0}, {1}, {10}},
        {"ci=1 co=1 in=4 k=3 s=2 out=10 auto_pad=same_lower conv=onnx", {0}, {0}, {1}, {10}},
        /* libonnx-testdata test_convtranspose_output_shape: in 3x3, k 3x3,
         * s 3x2, output_shape 10x8: F = 9x7. */
        {"ci=1 co=2 in=3x3 k=3 s=3x2 out=10x8 conv=onnx", {0, 0}, {0, 0}, {1, 1}, {10, 8}},
    };
    expect_rows(rows, N(rows));
}

Test(convention_onnx, total_padding_minus_one_adds_to_a_given_output_padding)
{
    /* F = 3*3 + 3 = 12, A = 1, output_shape 14: total -1, A becomes 2; the
     * resolved problem resolves to itself (total 0). */
    iohw_desc d;
    iohw_error e;
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=4 k=3 s=3 out=12 conv=onnx", &d, &e), 0,
                 "%s", e.msg);
    d.p.output_padding[0] = 1;
    d.p.out_shape[0] = 14;
    cr_assert_eq(iohw_convention_resolve(&d.p, &e), 0, "%s", e.msg);
    cr_expect_eq(d.p.pad_begin[0], 0);
    cr_expect_eq(d.p.pad_end[0], 0);
    cr_expect_eq(d.p.output_padding[0], 2);
    cr_expect_eq(d.p.out_size[0], 14);
    cr_expect_eq(iohw_convention_check(&d.p, &e), 0, "%s", e.msg);
}

Test(convention_tf, pads_follow_the_windowed_output_size)
{
    static const row rows[] = {
        /* O = 10: ceil(10/2) = 5; need = 8 + 3 - 10 = 1: before 0 */
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_upper conv=tf", {0}, {1}, {0}, {10}},
        /* need = 8 + 4 - 10 = 2: before 1 */
        {"ci=1 co=1 in=5 k=4 s=2 auto_pad=same_upper conv=tf", {1}, {1}, {0}, {10}},
        /* O = 9: ceil(9/2) = 5; need = 8 + 3 - 9 = 2 */
        {"ci=1 co=1 in=5 k=3 s=2 out=9 auto_pad=same_upper conv=tf", {1}, {1}, {0}, {9}},
        /* O = 12 beyond F = 11: need 0, output_padding 1 */
        {"ci=1 co=1 in=4 k=2 s=3 out=12 auto_pad=same_upper conv=tf", {0}, {0}, {1}, {12}},
        /* k = 1 < s = 2: O = L*S = 6, F = 5 (ONNX refuses this one) */
        {"ci=1 co=1 in=3 k=1 s=2 auto_pad=same_upper conv=tf", {0}, {0}, {1}, {6}},
        /* VALID, Keras: L*S + max(E - S, 0) = 9 + 0; (9 - 2 + 3)/3 = 3 */
        {"ci=1 co=1 in=3 k=2 s=3 auto_pad=valid conv=tf", {0}, {0}, {1}, {9}},
        /* VALID: 8 + 1 = 9 = F */
        {"ci=1 co=1 in=4 k=3 s=2 auto_pad=valid conv=tf", {0}, {0}, {0}, {9}},
        /* VALID with output_shape 10: (10 - 3 + 2)/2 = 4 */
        {"ci=1 co=1 in=4 k=3 s=2 out=10 auto_pad=valid conv=tf", {0}, {0}, {1}, {10}},
    };
    expect_rows(rows, N(rows));
}

Test(convention_tf, inconsistent_output_shapes_and_same_lower_are_refused)
{
    /* ceil(11/2) = 6, not 5 */
    expect_refused("ci=1 co=1 in=5 k=3 s=2 out=11 auto_pad=same_upper conv=tf",
                   "gives a forward convolution of 6 positions with padding 'SAME', not "
                   "the input's 5");
    /* (11 - 3 + 2)/2 = 5, not 4 */
    expect_refused("ci=1 co=1 in=4 k=3 s=2 out=11 auto_pad=valid conv=tf",
                   "gives a forward convolution of 5 positions with padding 'VALID'");
    expect_refused("ci=1 co=1 in=5 k=3 s=2 auto_pad=same_lower conv=tf",
                   "TensorFlow has no SAME_LOWER");
    expect_refused("ci=1 co=1 in=5 k=3 s=2 out=10 conv=tf", "needs a padding");
}

Test(convention_tvm, same_pads_k_minus_1_with_the_larger_half_first)
{
    static const row rows[] = {
        /* pad_h = 3: top (3+1)//2 = 2, bottom 1; out = 8 + 4 - 3 + 1 */
        {"ci=1 co=1 in=5 k=4 s=2 op=1 auto_pad=same_lower conv=tvm", {2}, {1}, {1}, {10}},
        /* pad_h = 2: 1 and 1; out = (L-1)*S + 1 = 7, not L*S */
        {"ci=1 co=1 in=4 k=3 s=2 auto_pad=same_lower conv=tvm", {1}, {1}, {0}, {7}},
        {"ci=1 co=1 in=4 k=3 s=2 auto_pad=valid conv=tvm", {0}, {0}, {0}, {9}},
        {"ci=1 co=1 in=3x2 k=2x3 s=1x2 op=0x1 auto_pad=same_lower conv=tvm", {1, 1}, {0, 1},
         {0, 1}, {3, 4}},
    };
    expect_rows(rows, N(rows));
}

Test(convention_tvm, what_tvm_does_not_take_is_refused)
{
    expect_refused("ci=1 co=1 in=5 k=4 s=2 auto_pad=same_upper conv=tvm",
                   "write auto_pad=same_lower");
    expect_refused("ci=1 co=1 in=5 k=4 s=2 op=2 auto_pad=valid conv=tvm",
                   "TVM asserts output_padding < stride");
    expect_refused("ci=1 co=1 in=5 k=4 d=2 auto_pad=valid conv=tvm", "takes no dilation");
    expect_refused("ci=1 co=1 in=5 k=4 out=8 auto_pad=valid conv=tvm", "takes no output shape");
}

Test(convention_torch, output_size_gives_output_padding)
{
    static const row rows[] = {
        /* min = 12 - 2 + 3 = 13, max 15 */
        {"ci=1 co=1 in=5 k=3 s=3 pad=1 out=13 conv=torch", {1}, {1}, {0}, {13}},
        {"ci=1 co=1 in=5 k=3 s=3 pad=1 out=15 conv=torch", {1}, {1}, {2}, {15}},
        /* H: min = 6 - 2 + 4 + 1 = 9; W: min = 6 + 1 + 1 = 8 */
        {"ci=1 co=1 in=4x3 k=3x2 s=2x3 d=2x1 pad=1x0 out=10x9 conv=torch", {1, 0}, {1, 0},
         {1, 1}, {10, 9}},
    };
    expect_rows(rows, N(rows));
    expect_refused("ci=1 co=1 in=5 k=3 s=3 pad=1 out=16 conv=torch",
                   "requested an output size of 16, but valid sizes range from 13 to 15");
    expect_refused("ci=1 co=1 in=5 k=3 s=3 pad=1:0 out=13 conv=torch",
                   "PyTorch pads both sides alike");
    expect_refused("ci=1 co=1 in=5 k=3 s=3 auto_pad=valid conv=torch", "has no 'same' or 'valid'");
}

Test(convention_mxnet, target_shape_gives_pad_and_adj)
{
    static const row rows[] = {
        /* t = 12 - 9 = 3: pad 2 each side, adj 1 */
        {"ci=1 co=1 in=5 k=4 s=2 out=9 conv=mxnet", {2}, {2}, {1}, {9}},
        /* t = 2: pad 1, adj 0 */
        {"ci=1 co=1 in=5 k=4 s=2 out=10 conv=mxnet", {1}, {1}, {0}, {10}},
        /* t = 0 */
        {"ci=1 co=1 in=5 k=4 s=2 out=12 conv=mxnet", {0}, {0}, {0}, {12}},
    };
    expect_rows(rows, N(rows));
    expect_refused("ci=1 co=1 in=5 k=4 s=2 out=13 conv=mxnet", "too big target shape");
}

Test(convention, the_frameworks_disagree_on_odd_padding)
{
    /* L = 5, K = 3, S = 2, output 10, total padding 1: where the pixel
     * goes is the whole difference. */
    static const row rows[] = {
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_upper conv=onnx", {0}, {1}, {0}, {10}},
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_lower conv=onnx", {1}, {0}, {0}, {10}},
        {"ci=1 co=1 in=5 k=3 s=2 out=10 conv=onnx", {1}, {0}, {0}, {10}},
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_upper conv=tf", {0}, {1}, {0}, {10}},
        {"ci=1 co=1 in=5 k=3 s=2 out=10 conv=mxnet", {1}, {1}, {1}, {10}},
        /* min = 8 - 2 + 3 = 9 */
        {"ci=1 co=1 in=5 k=3 s=2 pad=1 out=10 conv=torch", {1}, {1}, {1}, {10}},
        /* TVM's SAME: pads K - 1 = 2, output 9 */
        {"ci=1 co=1 in=5 k=3 s=2 auto_pad=same_lower conv=tvm", {1}, {1}, {0}, {9}},
    };
    expect_rows(rows, N(rows));
}

/* --- the descriptor ----------------------------------------------------- */

Test(convention_descriptor, printing_round_trips_and_keeps_the_convention)
{
    static const char *const texts[] = {
        "ci=2 co=3 in=5 k=3 s=2 auto_pad=same_upper conv=onnx",
        "ci=2 co=2 in=4x5 k=3x4 s=2x1 auto_pad=same_lower conv=onnx",
        "ci=3 co=2 in=6 k=5 s=3 out=17 conv=onnx",
        "ci=2 co=3 in=4 k=2 s=3 out=12 auto_pad=same_upper conv=tf",
        "ci=2 co=3 in=5 k=4 s=2 op=1 auto_pad=same_lower conv=tvm",
        "ci=1 co=2 in=2x2x3 k=2x3x2 s=2x2x3 out=4x6x8 conv=torch",
        "ci=2 co=3 in=5 k=4 s=2 out=9 conv=mxnet",
    };
    for (size_t i = 0; i < N(texts); i++) {
        iohw_desc d, d2;
        iohw_error e;
        char buf[IOHW_DESC_MAX], buf2[IOHW_DESC_MAX];
        cr_assert_eq(iohw_desc_parse(texts[i], &d, &e), 0, "%s: %s", texts[i], e.msg);
        cr_assert_gt(iohw_desc_format(&d, buf, sizeof buf), 0);
        cr_assert_eq(iohw_desc_parse(buf, &d2, &e), 0, "%s: %s", buf, e.msg);
        cr_assert_gt(iohw_desc_format(&d2, buf2, sizeof buf2), 0);
        cr_expect_str_eq(buf, buf2);
        cr_expect_eq(memcmp(&d.p, &d2.p, sizeof d.p), 0, "%s", buf);
        cr_expect_neq(d.p.convention, IOHW_CONV_NONE, "%s", texts[i]);
        cr_expect(strstr(buf, " conv=") != NULL, "%s", buf);
    }
    iohw_desc d;
    char buf[IOHW_DESC_MAX];
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=6 k=5 s=3 out=17 auto_pad=same_upper conv=onnx",
                                 &d, NULL), 0);
    cr_assert_gt(iohw_desc_format(&d, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "n=1 ci=1 co=1 g=1 in=6 k=5 s=3 d=1 pad=1:2 op=0 bias=0 dt=f32 "
                          "xl=NCW wl=IOW fill=normal seed=1 auto_pad=same_upper out=17 conv=onnx");
    cr_expect_eq(d.p.auto_pad, IOHW_AUTO_PAD_SAME_UPPER);
    cr_expect_eq(d.p.convention, IOHW_CONV_ONNX);
    cr_expect_eq(d.p.out_shape[0], 17);
    /* Without a convention nothing is added. */
    cr_assert_eq(iohw_desc_parse("ci=1 co=1 in=6 k=5", &d, NULL), 0);
    cr_assert_gt(iohw_desc_format(&d, buf, sizeof buf), 0);
    cr_expect(strstr(buf, "conv") == NULL && strstr(buf, "auto_pad") == NULL, "%s", buf);
}

Test(convention_descriptor, bad_statements_are_named)
{
    expect_refused("ci=1 co=1 in=5 k=3 s=2 auto_pad=same_upper",
                   "descriptor token 'auto_pad=same_upper': needs conv=onnx|tf|tvm|torch|mxnet");
    expect_refused("ci=1 co=1 in=5 k=3 out=7", "descriptor token 'out=7': needs conv=");
    expect_refused("ci=1 co=1 in=5 k=3 auto_pad=same conv=onnx",
                   "descriptor token 'auto_pad=same': unknown auto_pad");
    expect_refused("ci=1 co=1 in=5 k=3 auto_pad=valid conv=caffe",
                   "descriptor token 'conv=caffe': unknown convention");
    expect_refused("ci=1 co=1 in=5 k=3 conv=onnx", "states neither auto_pad nor an output shape");
    expect_refused("ci=1 co=1 in=5x5 k=3 out=7x7x7 conv=onnx", "out has 3 values but in= gives "
                   "rank 2");
    expect_refused("ci=1 co=1 in=5 k=3 out=0 conv=onnx", "out = 0: must be >= 1");
    expect_refused("ci=1 co=1 in=5 k=3 s=2 pad=1 auto_pad=same_upper conv=onnx",
                   "descriptor token 'pad=1': contradicts conv=onnx auto_pad=same_upper, "
                   "which resolves axis W to pad 0:1");
    expect_refused("ci=1 co=1 in=5 k=3 s=2 op=1 out=10 auto_pad=same_upper conv=tf",
                   "descriptor token 'op=1': contradicts conv=tf");
    expect_refused("ci=1 co=1 in=5 k=3 auto_pad=valid auto_pad=valid conv=onnx",
                   "repeated key 'auto_pad'");
}

/* --- the resolver's own arguments --------------------------------------- */

Test(convention_resolve, bad_members_are_named)
{
    iohw_problem p;
    iohw_error e;
    iohw_problem_init(&p);
    p.rank = 1;
    p.in_channels = p.out_channels = 1;
    p.in_size[0] = 5;
    p.kernel[0] = 3;
    cr_expect_eq(iohw_convention_resolve(&p, &e), 0, "no convention: %s", e.msg);
    p.auto_pad = 7;
    cr_expect_neq(iohw_convention_resolve(&p, &e), 0);
    cr_expect(strstr(e.msg, "auto_pad = 7") != NULL, "%s", e.msg);
    p.auto_pad = IOHW_AUTO_PAD_SAME_UPPER;
    cr_expect_neq(iohw_convention_resolve(&p, &e), 0);
    cr_expect(strstr(e.msg, "auto_pad without a convention") != NULL, "%s", e.msg);
    p.convention = 9;
    cr_expect_neq(iohw_convention_resolve(&p, &e), 0);
    cr_expect(strstr(e.msg, "convention = 9") != NULL, "%s", e.msg);
    p.convention = IOHW_CONV_ONNX;
    p.out_shape[1] = 4;
    cr_expect_neq(iohw_convention_resolve(&p, &e), 0);
    cr_expect(strstr(e.msg, "out_shape[1] = 4") != NULL, "%s", e.msg);
    p.out_shape[1] = 0;
    p.stride[0] = (int64_t)1 << 40;
    cr_expect_neq(iohw_convention_resolve(&p, &e), 0);
    cr_expect(strstr(e.msg, "stride = 1099511627776") != NULL, "%s", e.msg);
    p.stride[0] = 1;
    cr_expect_eq(iohw_convention_resolve(&p, &e), 0, "%s", e.msg);
    cr_expect_eq(p.pad_begin[0] + p.pad_end[0], 2);
    p.pad_end[0] += 1;
    cr_expect_neq(iohw_convention_check(&p, &e), 0);
    cr_expect(strstr(e.msg, "pad_end[0] (W) = 2, but conv=onnx auto_pad=same_upper resolves "
                            "it to 1") != NULL, "%s", e.msg);
    cr_expect_neq(iohw_convention_resolve(NULL, &e), 0);
    cr_expect_str_eq(iohw_convention_name(IOHW_CONV_MXNET), "mxnet");
    cr_expect_str_eq(iohw_auto_pad_name(IOHW_AUTO_PAD_VALID), "valid");
    cr_expect_null(iohw_convention_name(6));
    cr_expect_null(iohw_auto_pad_name(-1));
    int32_t code = 0;
    cr_expect_neq(iohw_auto_pad_parse("none", &code), 0);
    cr_expect_neq(iohw_convention_parse("ONNX", &code), 0);
}
