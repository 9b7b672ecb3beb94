/*
 * tests/test_layout.c - layout letters: validation and its messages, every
 * permutation of the letters, shapes of hand-worked problems, offsets and
 * copies checked against row-major formulas written out here.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "oracle/layout.h"

/* A problem set field by field (no dependency on problem.c); stride and
 * dilation 1, no padding, so out = in + k - 1 on every axis. */
static iohw_problem make_problem(int rank, int64_t n, int64_t ci, int64_t co,
                                 int64_t g, const int64_t *in, const int64_t *k,
                                 const char *dl, const char *wl)
{
    iohw_problem p;
    memset(&p, 0, sizeof p);
    p.struct_size = sizeof(iohw_problem);
    p.rank = (uint32_t)rank;
    p.batch = n;
    p.in_channels = ci;
    p.out_channels = co;
    p.groups = g;
    for (int a = 0; a < rank; a++) {
        p.in_size[a] = in[a];
        p.kernel[a] = k[a];
        p.stride[a] = 1;
        p.dilation[a] = 1;
        p.out_size[a] = in[a] + k[a] - 1;
    }
    strcpy(p.data_layout, dl);
    strcpy(p.weight_layout, wl);
    p.dtype = IOHW_F32;
    return p;
}

/* ---------------------------------------------------------------------- */
/* Validation and its messages. */

typedef struct bad_layout {
    int weight;          /* 0: data layout, 1: weight layout */
    const char *layout;
    int rank;
    const char *why;     /* expected part of the message */
} bad_layout;

static const bad_layout bad_layouts[] = {
    {0, "", 2, "empty"},
    {0, "nchw", 2, "letter 'n' is lower case"},
    {0, "NCHw", 2, "letter 'w' is lower case"},
    {0, "NC-W", 2, "character '-' is not a layout letter"},
    {0, "NCH W", 2, "character ' ' is not a layout letter"},
    {0, "NCXW", 2, "unknown letter 'X'"},
    {0, "NCHH", 2, "letter 'H' appears more than once"},
    {0, "NCHWW", 2, "letter 'W' appears more than once"},
    {0, "NCHWNCHW", 2, "letter 'N' appears more than once"},
    {0, "NCH", 2, "letter 'W' is missing"},
    {0, "NHW", 2, "letter 'C' is missing"},
    {0, "CHW", 2, "letter 'N' is missing"},
    {0, "NCW", 3, "letter 'D' is missing"},
    {0, "NCDHW", 2, "letter 'D' is not a rank-2 axis"},
    {0, "NCHW", 1, "letter 'H' is not a rank-1 axis"},
    {0, "GNCHW", 2, "letter 'G' belongs in weight layouts"},
    {0, "NCIW", 1, "letter 'I' belongs in weight layouts"},
    {0, "OCW", 1, "letter 'O' belongs in weight layouts"},
    {0, "NCHW", 0, "rank must be 1, 2 or 3"},
    {0, "NCHW", 4, "rank must be 1, 2 or 3"},
    {1, "", 2, "empty"},
    {1, "iohw", 2, "letter 'i' is lower case"},
    {1, "IOHWD", 2, "letter 'D' is not a rank-2 axis"},
    {1, "GIODHW", 2, "letter 'D' is not a rank-2 axis"},
    {1, "IOHW", 1, "letter 'H' is not a rank-1 axis"},
    {1, "NIOHW", 2, "letter 'N' belongs in data layouts"},
    {1, "IOCW", 1, "letter 'C' belongs in data layouts"},
    {1, "IOHWX", 2, "unknown letter 'X'"},
    {1, "GIOHW ", 2, "character ' ' is not a layout letter"},
    {1, "GGIOHW", 2, "letter 'G' appears more than once"},
    {1, "IOHWIOHW", 2, "letter 'I' appears more than once"},
    {1, "IOH", 2, "letter 'W' is missing"},
    {1, "GOHW", 2, "letter 'I' is missing"},
    {1, "GIHW", 2, "letter 'O' is missing"},
    {1, "IODH", 3, "letter 'W' is missing"},
    {1, "IOW", 5, "rank must be 1, 2 or 3"},
};

Test(layout_check, rejects_every_bad_layout_with_a_message_quoting_it)
{
    char quoted[64];
    char rank_text[32];
    size_t n = sizeof bad_layouts / sizeof bad_layouts[0];

    for (size_t i = 0; i < n; i++) {
        const bad_layout *b = &bad_layouts[i];
        iohw_error err;
        int rc;
        memset(&err, 0, sizeof err);
        rc = b->weight ? iohw_layout_check_weight(b->layout, b->rank, &err)
                       : iohw_layout_check_data(b->layout, b->rank, &err);
        cr_assert_eq(rc, -1, "'%s' (rank %d) was accepted", b->layout, b->rank);
        snprintf(quoted, sizeof quoted, "%s layout '%s'",
                 b->weight ? "weight" : "data", b->layout);
        snprintf(rank_text, sizeof rank_text, "rank %d", b->rank);
        cr_expect(strstr(err.msg, quoted) != NULL,
                  "message for '%s' does not quote it: %s", b->layout, err.msg);
        cr_expect(strstr(err.msg, rank_text) != NULL,
                  "message for '%s' does not name %s: %s", b->layout,
                  rank_text, err.msg);
        cr_expect(strstr(err.msg, b->why) != NULL,
                  "message for '%s' does not say \"%s\": %s", b->layout,
                  b->why, err.msg);
    }
}

Test(layout_check, words_a_foreign_spatial_letter_as_in_the_specification)
{
    iohw_error err;
    cr_assert_eq(iohw_layout_check_weight("IOHWD", 2, &err), -1);
    cr_expect_str_eq(err.msg, "weight layout 'IOHWD' is not valid for rank 2: "
                     "letter 'D' is not a rank-2 axis (the spatial letters "
                     "are HW)");
}

Test(layout_check, shows_an_unprintable_character_by_its_code)
{
    iohw_error err;
    cr_assert_eq(iohw_layout_check_data("NC\001W", 2, &err), -1);
    cr_expect(strstr(err.msg, "'NC?W'") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "0x01") != NULL, "%s", err.msg);
}

Test(layout_check, cuts_a_very_long_layout_in_its_message)
{
    iohw_error err;
    const char *longer = "NCHWNCHWNCHWNCHWNCHWNCHWNCHWNCHW";
    cr_assert_eq(iohw_layout_check_data(longer, 2, &err), -1);
    cr_expect(strstr(err.msg, "'NCHWNCHWNCHWNCHW...'") != NULL, "%s", err.msg);
    cr_expect(strstr(err.msg, "appears more than once") != NULL, "%s", err.msg);
}

Test(layout_check, reports_a_null_layout_without_crashing)
{
    iohw_error err;
    cr_assert_eq(iohw_layout_check_data(NULL, 2, &err), -1);
    cr_expect(strstr(err.msg, "data layout") != NULL, "%s", err.msg);
    cr_assert_eq(iohw_layout_check_weight(NULL, 2, &err), -1);
    cr_expect(strstr(err.msg, "weight layout") != NULL, "%s", err.msg);
    cr_expect_eq(iohw_layout_check_weight("OIHW", 7, NULL), -1);
}

Test(layout_check, knows_which_weight_layouts_have_groups)
{
    cr_expect_eq(iohw_layout_has_groups("GOIHW"), 1);
    cr_expect_eq(iohw_layout_has_groups("OHWGI"), 1);
    cr_expect_eq(iohw_layout_has_groups("IOHW"), 0);
    cr_expect_eq(iohw_layout_has_groups(NULL), 0);
}

Test(layout_check, gives_the_default_layouts_of_each_rank)
{
    char d[16], w[16];
    const char *want_d[] = {"", "NCW", "NCHW", "NCDHW", ""};
    const char *want_w[] = {"", "IOW", "IOHW", "IODHW", ""};
    for (int r = 0; r <= 4; r++) {
        memset(d, 'x', sizeof d);
        memset(w, 'x', sizeof w);
        iohw_layout_default_data(r, d);
        iohw_layout_default_weight(r, w);
        cr_expect_str_eq(d, want_d[r], "rank %d", r);
        cr_expect_str_eq(w, want_w[r], "rank %d", r);
        if (r >= 1 && r <= 3) {
            cr_expect_eq(iohw_layout_check_data(d, r, NULL), 0);
            cr_expect_eq(iohw_layout_check_weight(w, r, NULL), 0);
        }
    }
}

/* ---------------------------------------------------------------------- */
/* Shapes and offsets of hand-worked problems. */

static void expect_shape(const iohw_layout_map *m, int ndim, const int64_t *want,
                         const char *what)
{
    cr_assert_eq(m->ndim, ndim, "%s: ndim", what);
    for (int j = 0; j < ndim; j++)
        cr_expect_eq(m->shape[j], want[j], "%s: shape[%d] = %lld, want %lld",
                     what, j, (long long)m->shape[j], (long long)want[j]);
}

/* PyTorch ConvTranspose2d(10, 30, 5, groups=2): C_in 10, C_out 30, Cg 5,
 * Mg 15; its weight tensor is [10, 15, 5, 5] (IOHW). */
Test(layout_shape, matches_pytorch_conv_transpose2d_with_groups)
{
    const int64_t in[2] = {7, 9}, k[2] = {5, 5};
    iohw_problem p = make_problem(2, 3, 10, 30, 2, in, k, "NHWC", "IOHW");
    iohw_layout_map m;
    iohw_error err;

    const int64_t iohw[] = {10, 15, 5, 5}, oihw[] = {15, 10, 5, 5};
    const int64_t goihw[] = {2, 15, 5, 5, 5}, giohw[] = {2, 5, 15, 5, 5};
    const int64_t hwoi[] = {5, 5, 15, 10};
    const int64_t canon[] = {2, 5, 15, 5, 5};
    struct { const char *l; int nd; const int64_t *s; } cases[] = {
        {"IOHW", 4, iohw}, {"OIHW", 4, oihw}, {"GOIHW", 5, goihw},
        {"GIOHW", 5, giohw}, {"HWOI", 4, hwoi},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        cr_assert_eq(iohw_layout_weight_map_as(&p, cases[c].l, &m, &err), 0,
                     "%s: %s", cases[c].l, err.msg);
        expect_shape(&m, cases[c].nd, cases[c].s, cases[c].l);
        cr_expect_str_eq(m.letters, cases[c].l);
        cr_expect_eq(m.count, 10 * 15 * 5 * 5, "%s: count", cases[c].l);
        cr_assert_eq(m.ncanon, 5);
        for (int a = 0; a < 5; a++)
            cr_expect_eq(m.canon_shape[a], canon[a], "%s: canon_shape[%d]",
                         cases[c].l, a);
    }

    /* x is [N, H, W, C_in] = [3, 7, 9, 10]; y is [3, 11, 13, 30]. */
    const int64_t xs[] = {3, 7, 9, 10}, ys[] = {3, 11, 13, 30};
    const int64_t xc[] = {3, 10, 7, 9}, yc[] = {3, 30, 11, 13};
    cr_assert_eq(iohw_layout_data_map(&p, 0, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 4, xs, "x");
    cr_expect_eq(m.count, 3 * 7 * 9 * 10);
    for (int a = 0; a < 4; a++)
        cr_expect_eq(m.canon_shape[a], xc[a], "x canon_shape[%d]", a);
    cr_assert_eq(iohw_layout_data_map(&p, 1, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 4, ys, "y");
    for (int a = 0; a < 4; a++)
        cr_expect_eq(m.canon_shape[a], yc[a], "y canon_shape[%d]", a);
}

/* ConvTranspose1d(6, 4, 3, groups=2) in TensorFlow-like WOI and
 * ConvTranspose3d(4, 9, (2,3,5)) in NDHWC / DHWOI. */
Test(layout_shape, matches_hand_worked_rank1_and_rank3_problems)
{
    iohw_layout_map m;
    iohw_error err;
    const int64_t in1[1] = {8}, k1[1] = {3};
    iohw_problem p1 = make_problem(1, 2, 6, 4, 2, in1, k1, "NWC", "WOI");
    const int64_t w1[] = {3, 2, 6}, x1[] = {2, 8, 6}, y1[] = {2, 10, 4};
    cr_assert_eq(iohw_layout_weight_map(&p1, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 3, w1, "WOI");
    cr_assert_eq(iohw_layout_data_map(&p1, 0, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 3, x1, "x NWC");
    cr_assert_eq(iohw_layout_data_map(&p1, 1, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 3, y1, "y NWC");

    const int64_t in3[3] = {4, 5, 6}, k3[3] = {2, 3, 5};
    iohw_problem p3 = make_problem(3, 1, 4, 9, 1, in3, k3, "NDHWC", "DHWOI");
    const int64_t w3[] = {2, 3, 5, 9, 4}, y3[] = {1, 5, 7, 10, 9};
    const int64_t g3[] = {1, 4, 9, 2, 3, 5};
    cr_assert_eq(iohw_layout_weight_map(&p3, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 5, w3, "DHWOI");
    cr_assert_eq(m.ncanon, 6);
    for (int a = 0; a < 6; a++)
        cr_expect_eq(m.canon_shape[a], g3[a], "canon_shape[%d]", a);
    cr_assert_eq(iohw_layout_data_map(&p3, 1, &m, &err), 0, "%s", err.msg);
    expect_shape(&m, 5, y3, "y NDHWC");
}

/* NHWC with N=2, C=3, H=4, W=5: element (n,c,h,w) sits at
 * ((n*H + h)*W + w)*C + c, so the strides of N, C, H, W are
 * H*W*C = 60, 1, W*C = 15, C = 3. */
Test(layout_offset, of_nhwc_follows_the_row_major_formula)
{
    const int64_t N = 2, C = 3, H = 4, W = 5;
    const int64_t in[2] = {4, 5}, k[2] = {1, 1};
    iohw_problem p = make_problem(2, N, C, C, 1, in, k, "NHWC", "IOHW");
    iohw_layout_map m;
    iohw_error err;
    const int64_t strides[] = {60, 1, 15, 3};

    cr_assert_eq(iohw_layout_data_map(&p, 0, &m, &err), 0, "%s", err.msg);
    for (int a = 0; a < 4; a++)
        cr_expect_eq(m.canon_stride[a], strides[a], "canon_stride[%d]", a);
    const int64_t idx[] = {1, 2, 3, 4};
    cr_expect_eq(iohw_layout_offset(&m, idx), 119); /* ((1*4+3)*5+4)*3+2 */

    /* to_canonical of a tensor holding its own NHWC offsets. */
    int32_t *src = malloc(sizeof(int32_t) * 120);
    int32_t *dst = malloc(sizeof(int32_t) * 120);
    cr_assert(src != NULL && dst != NULL);
    for (int i = 0; i < 120; i++)
        src[i] = i;
    iohw_layout_to_canonical(&m, sizeof(int32_t), src, dst);
    for (int64_t n = 0; n < N; n++)
        for (int64_t c = 0; c < C; c++)
            for (int64_t h = 0; h < H; h++)
                for (int64_t w = 0; w < W; w++) {
                    int64_t canon = ((n * C + c) * H + h) * W + w;
                    int64_t want = ((n * H + h) * W + w) * C + c;
                    cr_assert_eq(dst[canon], want, "(%lld,%lld,%lld,%lld)",
                                 (long long)n, (long long)c, (long long)h,
                                 (long long)w);
                }
    free(src);
    free(dst);
}

/* OIHW with C_in 4, C_out 6, groups 2 (Cg 2, Mg 3), kernel 2x2: memory
 * [3][4][2][2], strides O 16, I 4, H 2, W 1.  Canonical G takes Cg times
 * the I stride: 8. Element (g 1, i 1, o 2, h 1, w 0) is full I = 3, at
 * 2*16 + 3*4 + 1*2 + 0 = 46. */
Test(layout_offset, of_a_weight_without_g_splits_its_i_axis_into_groups)
{
    const int64_t in[2] = {3, 3}, k[2] = {2, 2};
    iohw_problem p = make_problem(2, 1, 4, 6, 2, in, k, "NCHW", "OIHW");
    iohw_layout_map m;
    iohw_error err;
    const int64_t strides[] = {8, 4, 16, 2, 1};
    const int64_t idx[] = {1, 1, 2, 1, 0};

    cr_assert_eq(iohw_layout_weight_map(&p, &m, &err), 0, "%s", err.msg);
    for (int a = 0; a < 5; a++)
        cr_expect_eq(m.canon_stride[a], strides[a], "canon_stride[%d]", a);
    cr_expect_eq(iohw_layout_offset(&m, idx), 46);

    /* Element (g 1, i 0, o 1, h 0, w 1), full I = 2: OIHW puts it at
     * 1*16 + 2*4 + 0*2 + 1 = 25.  GOIHW is memory [2][3][2][2][2] with
     * strides G 24, O 8, I 4, H 2, W 1: 24 + 8 + 0 + 0 + 1 = 33. */
    const int64_t idx2[] = {1, 0, 1, 0, 1};
    cr_expect_eq(iohw_layout_offset(&m, idx2), 25);
    cr_assert_eq(iohw_layout_weight_map_as(&p, "GOIHW", &m, &err), 0, "%s",
                 err.msg);
    cr_expect_eq(iohw_layout_offset(&m, idx2), 33);
}

/* A weight stored as IOHW and the same numbers stored as GIOHW (groups 2)
 * give the same canonical memory, which is the IOHW memory itself. */
Test(layout_copy, iohw_and_giohw_of_one_weight_give_identical_canonical_memory)
{
    enum { CI = 4, CO = 6, G = 2, CG = CI / G, MG = CO / G, KH = 2, KW = 3 };
    const int64_t in[2] = {3, 3}, k[2] = {KH, KW};
    iohw_problem p = make_problem(2, 1, CI, CO, G, in, k, "NCHW", "IOHW");
    double w[CI][MG][KH][KW], wg[G][CG][MG][KH][KW];
    double c1[CI * MG * KH * KW], c2[CI * MG * KH * KW];
    iohw_layout_map m;
    iohw_error err;

    for (int i = 0; i < CI; i++)
        for (int o = 0; o < MG; o++)
            for (int h = 0; h < KH; h++)
                for (int x = 0; x < KW; x++)
                    w[i][o][h][x] = 1000 * i + 100 * o + 10 * h + x;
    for (int g = 0; g < G; g++)
        for (int i = 0; i < CG; i++)
            for (int o = 0; o < MG; o++)
                for (int h = 0; h < KH; h++)
                    for (int x = 0; x < KW; x++)
                        wg[g][i][o][h][x] = w[g * CG + i][o][h][x];

    cr_assert_eq(iohw_layout_weight_map(&p, &m, &err), 0, "%s", err.msg);
    iohw_layout_to_canonical(&m, sizeof(double), w, c1);
    cr_assert_eq(iohw_layout_weight_map_as(&p, "GIOHW", &m, &err), 0, "%s",
                 err.msg);
    iohw_layout_to_canonical(&m, sizeof(double), wg, c2);
    cr_expect(memcmp(c1, c2, sizeof c1) == 0);
    cr_expect(memcmp(c1, w, sizeof c1) == 0);
}

/* ---------------------------------------------------------------------- */
/* Map errors. */

/* Calls to the map functions that must fail, each with the part of the
 * message that names what is wrong ("": not checked).  The problem is
 * valid (2-d, 4 -> 6 channels in 2 groups, NCHW / OIHW) except for what the
 * scenario changes.  Parameters are copied into the test's process: arrays,
 * not pointers. */
typedef enum bad_map_arg {
    NO_PROBLEM, NO_MAP, OUTPUT_2, DATA_AS_IOHW, WEIGHT_AS_NCHW, IN_CHANNELS_5,
    OUT_CHANNELS_7, BATCH_0, RANK_0, OUT_SIZE_0, KERNEL_NEGATIVE, TOO_MANY_ELEMENTS
} bad_map_arg;

typedef struct bad_map {
    char name[48];      /* the scenario, named in every failure */
    bad_map_arg arg;
    char why[16];
} bad_map;

static bad_map bad_maps[] = {
    {"data map of no problem", NO_PROBLEM, "problem"},
    {"data map into no map", NO_MAP, ""},
    {"data map of output 2", OUTPUT_2, "output"},
    {"data map as weight layout IOHW", DATA_AS_IOHW, "'IOHW'"},
    {"weight map as data layout NCHW", WEIGHT_AS_NCHW, "'NCHW'"},
    {"weight map, in_channels 5 in 2 groups", IN_CHANNELS_5, "in_channels"},
    {"weight map, out_channels 7 in 2 groups", OUT_CHANNELS_7, "out_channels"},
    {"data map, batch 0", BATCH_0, "batch"},
    {"data map, rank 0", RANK_0, "rank"},
    {"output data map, out_size[1] 0", OUT_SIZE_0, "out_size[1]"},
    {"weight map, kernel[0] -1", KERNEL_NEGATIVE, "kernel[0]"},
    {"data map of INT64_MAX/2 squared elements", TOO_MANY_ELEMENTS, "elements"},
};

/* Makes the call of scenario arg; returns what it returns. */
static int call_bad_map(bad_map_arg arg, iohw_layout_map *m, iohw_error *err)
{
    const int64_t in[2] = {3, 3}, k[2] = {2, 2};
    iohw_problem p = make_problem(2, 1, 4, 6, 2, in, k, "NCHW", "OIHW");
    switch (arg) {
    case NO_PROBLEM:
        return iohw_layout_data_map(NULL, 0, m, err);
    case NO_MAP:
        return iohw_layout_data_map(&p, 0, NULL, err);
    case OUTPUT_2:
        return iohw_layout_data_map(&p, 2, m, err);
    case DATA_AS_IOHW:
        return iohw_layout_data_map_as(&p, 0, "IOHW", m, err);
    case WEIGHT_AS_NCHW:
        return iohw_layout_weight_map_as(&p, "NCHW", m, err);
    case IN_CHANNELS_5:
        p.in_channels = 5;
        return iohw_layout_weight_map(&p, m, err);
    case OUT_CHANNELS_7:
        p.out_channels = 7;
        return iohw_layout_weight_map(&p, m, err);
    case BATCH_0:
        p.batch = 0;
        return iohw_layout_data_map(&p, 0, m, err);
    case RANK_0:
        p.rank = 0;
        return iohw_layout_data_map(&p, 0, m, err);
    case OUT_SIZE_0:
        p.out_size[1] = 0;
        return iohw_layout_data_map(&p, 1, m, err);
    case KERNEL_NEGATIVE:
        p.kernel[0] = -1;
        return iohw_layout_weight_map(&p, m, err);
    case TOO_MANY_ELEMENTS:
        p.in_size[0] = INT64_MAX / 2;
        p.in_size[1] = INT64_MAX / 2;
        return iohw_layout_data_map(&p, 0, m, err);
    }
    cr_assert_fail("no call for scenario %d", (int)arg);
    return 0;
}

ParameterizedTestParameters(layout_map, rejects_a_bad_argument_naming_it)
{
    return cr_make_param_array(bad_map, bad_maps, sizeof bad_maps / sizeof bad_maps[0]);
}

ParameterizedTest(bad_map *c, layout_map, rejects_a_bad_argument_naming_it)
{
    iohw_layout_map m;
    iohw_error err;
    err.msg[0] = '\0';
    cr_expect_eq(call_bad_map(c->arg, &m, &err), -1, "%s: accepted", c->name);
    cr_expect(strstr(err.msg, c->why) != NULL, "%s: message '%s' lacks '%s'", c->name,
              err.msg, c->why);
}


/* ---------------------------------------------------------------------- */
/* Every permutation of the letters, on sizes that tell the axes apart. */

#define MAX_PERMS 720 /* 6! */

static void permute_rec(const char *letters, int n, int used, char *cur,
                        int depth, char (*out)[8], int *count)
{
    if (depth == n) {
        cr_assert_lt(*count, MAX_PERMS);
        memcpy(out[*count], cur, (size_t)n);
        out[*count][n] = '\0';
        (*count)++;
        return;
    }
    for (int i = 0; i < n; i++) {
        if (used & (1 << i))
            continue;
        cur[depth] = letters[i];
        permute_rec(letters, n, used | (1 << i), cur, depth + 1, out, count);
    }
}

/* All permutations of the distinct letters; checks there are n! of them,
 * all different. */
static int permutations(const char *letters, char (*out)[8])
{
    char cur[8];
    int n = (int)strlen(letters), count = 0, fact = 1;
    permute_rec(letters, n, 0, cur, 0, out, &count);
    for (int i = 2; i <= n; i++)
        fact *= i;
    cr_assert_eq(count, fact, "%d permutations of %s", count, letters);
    for (int i = 0; i < count; i++)
        for (int j = i + 1; j < count; j++)
            if (strcmp(out[i], out[j]) == 0)
                cr_assert_fail("permutation %s appears twice", out[i]);
    return count;
}

/* Problem of the permutation tests: N 2, C_in 6, C_out 10, groups 2
 * (Cg 3, Mg 5); sizes and kernels below; out = in + k - 1. */
static const int64_t perm_in[3][3] = {{5}, {5, 7}, {5, 7, 4}};
static const int64_t perm_k[3][3] = {{4}, {4, 7}, {4, 7, 8}};
enum { PN = 2, PCI = 6, PCO = 10, PG = 2, PCG = 3, PMG = 5 };

/* kind: 0 x, 1 y, 2 weight. */
static void check_one_layout(int kind, int rank, const char *layout)
{
    static const char *spatial[] = {"", "W", "HW", "DHW"};
    iohw_problem p = make_problem(rank, PN, PCI, PCO, PG, perm_in[rank - 1],
                                  perm_k[rank - 1], "NCHW", "IOHW");
    int64_t ext[26] = {0};      /* extent of each letter in the layout */
    int64_t cext[8] = {0};      /* extent of each canonical axis */
    char canon[8];
    int has_g = strchr(layout, 'G') != NULL;
    iohw_layout_map m;
    iohw_error err;
    int rc;

    /* The letters' extents, written out independently of layout.c. */
    if (kind < 2) {
        snprintf(canon, sizeof canon, "NC%s", spatial[rank]);
        ext['N' - 'A'] = PN;
        ext['C' - 'A'] = kind == 0 ? PCI : PCO;
        for (int a = 0; a < rank; a++)
            ext[spatial[rank][a] - 'A'] = kind == 0
                ? perm_in[rank - 1][a]
                : perm_in[rank - 1][a] + perm_k[rank - 1][a] - 1;
        for (int a = 0; a < 2 + rank; a++)
            cext[a] = ext[canon[a] - 'A'];
        rc = iohw_layout_check_data(layout, rank, &err);
        cr_assert_eq(rc, 0, "%s: %s", layout, err.msg);
        rc = iohw_layout_data_map_as(&p, kind, layout, &m, &err);
    } else {
        snprintf(canon, sizeof canon, "GIO%s", spatial[rank]);
        ext['G' - 'A'] = PG;
        ext['I' - 'A'] = has_g ? PCG : PCI;
        ext['O' - 'A'] = PMG;
        for (int a = 0; a < rank; a++)
            ext[spatial[rank][a] - 'A'] = perm_k[rank - 1][a];
        cext[0] = PG;
        cext[1] = PCG;
        cext[2] = PMG;
        for (int a = 0; a < rank; a++)
            cext[3 + a] = perm_k[rank - 1][a];
        rc = iohw_layout_check_weight(layout, rank, &err);
        cr_assert_eq(rc, 0, "%s: %s", layout, err.msg);
        rc = iohw_layout_weight_map_as(&p, layout, &m, &err);
    }
    cr_assert_eq(rc, 0, "%s: %s", layout, err.msg);

    /* Shapes and count. */
    const int nd = (int)strlen(layout), nc = (int)strlen(canon);
    int64_t count = 1;
    cr_assert_eq(m.ndim, nd, "%s", layout);
    cr_assert_eq(m.ncanon, nc, "%s", layout);
    for (int j = 0; j < nd; j++) {
        cr_expect_eq(m.shape[j], ext[layout[j] - 'A'], "%s: shape[%d]", layout, j);
        count *= ext[layout[j] - 'A'];
    }
    for (int a = 0; a < nc; a++)
        cr_expect_eq(m.canon_shape[a], cext[a], "%s: canon_shape[%d]", layout, a);
    cr_assert_eq(m.count, count, "%s: count", layout);

    /* from_canonical puts canonical element t where the row-major formula
     * over the layout's letters says; to_canonical brings it back. */
    uint64_t *t = malloc(sizeof(uint64_t) * (size_t)count);
    uint64_t *l = malloc(sizeof(uint64_t) * (size_t)count);
    uint64_t *back = malloc(sizeof(uint64_t) * (size_t)count);
    cr_assert(t != NULL && l != NULL && back != NULL);
    for (int64_t e = 0; e < count; e++) {
        t[e] = (uint64_t)e + 1;
        l[e] = 0;
    }
    iohw_layout_from_canonical(&m, 8, t, l);
    for (int64_t e = 0; e < count; e++) {
        int64_t idx[8], li[26] = {0}, rest = e, off = 0;
        for (int a = nc - 1; a >= 0; a--) {
            idx[a] = rest % cext[a];
            rest /= cext[a];
            li[canon[a] - 'A'] = idx[a];
        }
        if (kind == 2 && !has_g)
            li['I' - 'A'] = idx[0] * PCG + idx[1];
        for (int j = 0; j < nd; j++)
            off = off * ext[layout[j] - 'A'] + li[layout[j] - 'A'];
        /* (Plain tests, asserting only on failure, keep this loop fast.) */
        if (l[off] != t[e])
            cr_assert_fail("%s: canonical element %lld should be at %lld",
                           layout, (long long)e, (long long)off);
        if (iohw_layout_offset(&m, idx) != off)
            cr_assert_fail("%s: offset of canonical element %lld is %lld, "
                           "want %lld", layout, (long long)e,
                           (long long)iohw_layout_offset(&m, idx),
                           (long long)off);
    }
    iohw_layout_to_canonical(&m, 8, l, back);
    cr_assert(memcmp(back, t, sizeof(uint64_t) * (size_t)count) == 0, "%s",
              layout);
    free(t);
    free(l);
    free(back);

    /* Round trip to_canonical(from_canonical(c)) == c for every size. */
    const size_t sizes[] = {1, 2, 4};
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
        const size_t es = sizes[s];
        unsigned char *c = malloc(es * (size_t)count);
        unsigned char *mem = malloc(es * (size_t)count);
        unsigned char *c2 = malloc(es * (size_t)count);
        cr_assert(c != NULL && mem != NULL && c2 != NULL);
        for (int64_t e = 0; e < count; e++)
            for (size_t b = 0; b < es; b++)
                c[(size_t)e * es + b] = (unsigned char)(((uint64_t)e + 1) >> (8 * b));
        iohw_layout_from_canonical(&m, es, c, mem);
        iohw_layout_to_canonical(&m, es, mem, c2);
        cr_assert(memcmp(c, c2, es * (size_t)count) == 0,
                  "%s: round trip with %zu-byte elements", layout, es);
        free(c);
        free(mem);
        free(c2);
    }
}

static void check_all_permutations(int kind, int rank, const char *letters)
{
    static char perms[MAX_PERMS][8];
    int n = permutations(letters, perms);
    for (int i = 0; i < n; i++)
        check_one_layout(kind, rank, perms[i]);
}

Test(layout_perm, accepts_and_maps_every_rank1_data_layout)
{
    check_all_permutations(0, 1, "NCW");
    check_all_permutations(1, 1, "NCW");
}

Test(layout_perm, accepts_and_maps_every_rank2_data_layout)
{
    check_all_permutations(0, 2, "NCHW");
    check_all_permutations(1, 2, "NCHW");
}

Test(layout_perm, accepts_and_maps_every_rank3_data_layout)
{
    check_all_permutations(0, 3, "NCDHW");
    check_all_permutations(1, 3, "NCDHW");
}

Test(layout_perm, accepts_and_maps_every_weight_layout_without_groups)
{
    check_all_permutations(2, 1, "IOW");
    check_all_permutations(2, 2, "IOHW");
    check_all_permutations(2, 3, "IODHW");
}

Test(layout_perm, accepts_and_maps_every_rank1_and_rank2_weight_layout_with_groups)
{
    check_all_permutations(2, 1, "GIOW");
    check_all_permutations(2, 2, "GIOHW");
}

Test(layout_perm, accepts_and_maps_every_rank3_weight_layout_with_groups)
{
    check_all_permutations(2, 3, "GIODHW");
}
