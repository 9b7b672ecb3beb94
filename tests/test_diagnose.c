/*
 * tests/test_diagnose.c - naming the bug behind a failure.
 *
 * Each test builds a case (iohw_desc_parse + iohw_make_case) whose shape makes
 * the bug visible (C_in != Mg, non-square kernels, asymmetric pads, op > 0,
 * groups > 1, a bias), produces the buggy backend's output itself, by
 * transforming the inputs or the problem in the case's own memory layout and
 * running the oracle (iohw_oracle_run, tested on its own), and checks that
 * iohw_diagnose names exactly that bug.  Most cases use the default layouts
 * (NCHW data, IOHW weight), so memory index = canonical index below.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "judge/diagnose.h"
#include "judge/judge.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"
#include "support/diagnose_cases.h"

#define make iohw_test_case_of
#define oracle_y iohw_test_oracle_y
#define copy_of iohw_test_copy
#define expect_named iohw_test_expect_named
#define with_pads iohw_test_with_pads

/* Copies element j of src into element i of dst (case dtype). */
static void move(const iohw_case *c, void *dst, int64_t i, const void *src, int64_t j)
{
    size_t es = iohw_dtype_size(c->p.dtype);
    memcpy((unsigned char *)dst + (size_t)i * es, (const unsigned char *)src + (size_t)j * es,
           es);
}

/* --- the weight ------------------------------------------------------- */

/* IOHW memory read as OIHW: w'(i, o, kh, kw) = mem[((o*C_in + i)*KH + kh)*KW + kw]. */
static void weight_io_case(const char *desc)
{
    iohw_case c;
    make(desc, &c);
    const int64_t CI = c.p.in_channels, MG = c.p.out_channels / c.p.groups;
    const int64_t KH = c.p.kernel[0], KW = c.p.kernel[1];
    void *w2 = copy_of(&c, c.w, iohw_problem_w_count(&c.p));
    for (int64_t i = 0; i < CI; i++)
        for (int64_t o = 0; o < MG; o++)
            for (int64_t kh = 0; kh < KH; kh++)
                for (int64_t kw = 0; kw < KW; kw++)
                    move(&c, w2, ((i * MG + o) * KH + kh) * KW + kw, c.w,
                         ((o * CI + i) * KH + kh) * KW + kw);
    void *y = oracle_y(&c.p, c.x, w2, c.bias);
    expect_named(&c, y, "weight I and O exchanged");
    free(y);
    free(w2);
    iohw_case_free(&c);
}

/* --- consistent with a misreading, not checkable ------------------------ */

/* An f16 case with a 1x1 kernel whose weight is [[0.5, 40000], [0.25,
 * 0.75]] (w[i][m]) and whose x has |x0| <= 1 and x1 = +-2 at every third
 * position: the oracle, 40000 x0 + 0.75 x1 at most, stays finite, but with
 * I and O exchanged channel 0 is 0.5 x0 + 40000 x1, which overflows where
 * x1 = +-2.  The case's outputs are the oracle's on these inputs. */
static void overflowing_case(iohw_case *c)
{
    static const double w[4] = {0.5, 40000.0, 0.25, 0.75};
    make("ci=2 co=2 in=4x5 k=1x1 dt=f16 seed=2", c);
    const int64_t L = c->p.in_size[0] * c->p.in_size[1];
    for (int64_t j = 0; j < L; j++) {
        iohw_dtype_store(c->p.dtype, c->x, (size_t)j, (double)(j % 5) / 4.0 - 0.5);
        iohw_dtype_store(c->p.dtype, c->x, (size_t)(L + j),
                         j % 3 == 0 ? (j % 2 ? 2.0 : -2.0) : (double)(j % 4) / 8.0);
    }
    for (int k = 0; k < 4; k++)
        iohw_dtype_store(c->p.dtype, c->w, (size_t)k, w[k]);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_complete_case(c, 1, &err), 0, "%s", err.msg);
    for (int64_t i = 0; i < iohw_problem_y_count(&c->p); i++)
        cr_assert(isfinite(c->y_f64[i]) && isfinite(iohw_dtype_load(c->p.dtype, c->y, (size_t)i)));
}

/* The output with I and O exchanged: the oracle's on the transposed
 * 2x2 weight. */
static void *exchanged_y(const iohw_case *c)
{
    void *w2 = copy_of(c, c->w, 4);
    move(c, w2, 1, c->w, 2);
    move(c, w2, 2, c->w, 1);
    void *y = oracle_y(&c->p, c->x, w2, NULL);
    free(w2);
    return y;
}

/* The backend's output with I and O exchanged, every other overflowed
 * element made NaN as an accumulation that overflows on the way may leave
 * it; *ninf counts the elements that overflowed. */
static void *exchanged_output(const iohw_case *c, int64_t *ninf)
{
    void *y = exchanged_y(c);
    *ninf = 0;
    for (int64_t i = 0; i < iohw_problem_y_count(&c->p); i++)
        if (isinf(iohw_dtype_load(c->p.dtype, y, (size_t)i)) && (*ninf)++ % 2 == 1)
            iohw_dtype_store(c->p.dtype, y, (size_t)i, NAN);
    return y;
}

Test(diagnose, an_overflowing_output_consistent_with_one_misreading_joins_it_not_checkable)
{
    iohw_case c;
    int64_t ninf;
    char buf[256];
    overflowing_case(&c);
    void *y = exchanged_output(&c, &ninf);
    cr_assert_geq(ninf, 2, "the exchanged output should overflow");
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 1, "%s", buf);
    cr_expect_str_eq(buf, "consistent with weight I and O exchanged (not checkable: "
                          "the output overflows)");
    cr_expect_str_eq(iohw_diagnose_name(iohw_diagnose_find(buf)), "weight I and O exchanged");
    free(y);
    iohw_case_free(&c);
}

/* Without the NaNs the overflowed elements are what the misreading gives
 * (its own rounding overflows there): a plain match. */
Test(diagnose, an_output_overflowing_as_the_misreading_does_matches_it)
{
    iohw_case c;
    overflowing_case(&c);
    void *y = exchanged_y(&c);
    expect_named(&c, y, "weight I and O exchanged");
    free(y);
    iohw_case_free(&c);
}

/* Infinities where the misreading's output is finite: no name. */
Test(diagnose, an_output_overflowing_elsewhere_gets_no_consistent_name)
{
    iohw_case c;
    int64_t ninf;
    char buf[256];
    overflowing_case(&c);
    void *y = exchanged_output(&c, &ninf);
    const int64_t n = iohw_problem_y_count(&c.p);
    /* channel 1 (the second half) is finite in the misreading */
    iohw_dtype_store(c.p.dtype, y, (size_t)(n - 1), INFINITY);
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 0, "diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    iohw_case_free(&c);
}

/* An output that is NaN everywhere (written, quiet NaNs) differs from the
 * oracle only in non-finite values: nothing can be read from it, and no
 * misreading is named. */
Test(diagnose, an_output_all_nan_gets_no_diagnosis)
{
    iohw_case c;
    char buf[256];
    make("ci=2 co=3 in=5x4 k=3x2 pad=1:0x0:1 bias=1", &c);
    const int64_t n = iohw_problem_y_count(&c.p);
    void *y = copy_of(&c, c.y, n);
    for (int64_t i = 0; i < n; i++)
        iohw_dtype_store(c.p.dtype, y, (size_t)i, NAN);
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 0, "diagnosed: %s", buf);
    cr_expect_str_empty(buf);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, weight_i_and_o_exchanged_with_c_in_unlike_mg)
{
    weight_io_case("ci=2 co=3 in=4x5 k=3x2 bias=1 seed=3");
}

Test(diagnose, weight_i_and_o_exchanged_with_c_in_equal_to_mg)
{
    /* C_in = Mg = 3: same shapes, exchanged values. */
    weight_io_case("ci=3 co=3 in=4x3 k=2x3 pad=0:1x0 bias=1 seed=4");
}

/* Reverses every spatial axis of a weight whose spatial axes are last (in
 * D, H, W order) whatever the order of its I and O axes. */
static void *flipped(const iohw_case *c)
{
    const int rank = (int)c->p.rank;
    int64_t K3[3] = {1, 1, 1};
    for (int a = 0; a < rank; a++)
        K3[3 - rank + a] = c->p.kernel[a];
    const int64_t K = K3[0] * K3[1] * K3[2];
    const int64_t rows = iohw_problem_w_count(&c->p) / K;
    void *w2 = copy_of(c, c->w, iohw_problem_w_count(&c->p));
    for (int64_t r = 0; r < rows; r++)
        for (int64_t kd = 0; kd < K3[0]; kd++)
            for (int64_t kh = 0; kh < K3[1]; kh++)
                for (int64_t kw = 0; kw < K3[2]; kw++)
                    move(c, w2, r * K + (kd * K3[1] + kh) * K3[2] + kw, c->w,
                         r * K + ((K3[0] - 1 - kd) * K3[1] + K3[1] - 1 - kh) * K3[2] +
                             K3[2] - 1 - kw);
    return w2;
}

static void kernel_flipped_case(const char *desc)
{
    iohw_case c;
    make(desc, &c);
    void *w2 = flipped(&c);
    void *y = oracle_y(&c.p, c.x, w2, c.bias);
    expect_named(&c, y, "kernel flipped");
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose, kernel_flipped)
{
    kernel_flipped_case("ci=2 co=3 in=4x5 k=3x2 s=2x1 bias=1 seed=5");
}

Test(diagnose, kernel_flipped_in_an_exact_case)
{
    kernel_flipped_case("ci=2 co=3 in=4x5 k=3x2 s=2x1 bias=1 fill=exact seed=6");
}

Test(diagnose, kernel_flipped_in_rank_3_channels_last_f16)
{
    kernel_flipped_case("ci=2 co=3 in=3x3x4 k=2x2x3 xl=NDHWC wl=OIDHW dt=f16 seed=7");
}

Test(diagnose, kernel_flipped_in_rank_1)
{
    kernel_flipped_case("n=2 ci=3 co=2 in=7 k=4 s=3 d=2 bias=1 dt=f64 seed=8");
}

Test(diagnose, spatial_axes_h_and_w_of_the_weight_exchanged)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 bias=1 seed=9", &c);
    const int64_t MG = 3, KH = 3, KW = 2;
    void *w2 = copy_of(&c, c.w, iohw_problem_w_count(&c.p));
    /* IOHW memory read as IOWH: w'(i, o, kh, kw) = mem[((i*MG + o)*KW + kw)*KH + kh] */
    for (int64_t r = 0; r < 2 * MG; r++)
        for (int64_t kh = 0; kh < KH; kh++)
            for (int64_t kw = 0; kw < KW; kw++)
                move(&c, w2, (r * KH + kh) * KW + kw, c.w, (r * KW + kw) * KH + kh);
    void *y = oracle_y(&c.p, c.x, w2, c.bias);
    expect_named(&c, y, "spatial axes H and W of the weight exchanged");
    free(y);
    free(w2);
    iohw_case_free(&c);
}

/* --- groups and bias ----------------------------------------------------- */

/* n=2 ci=4 co=6 g=2: Cg = 2, Mg = 3; x and y planes of L and O elements. */
#define GROUPED "n=2 ci=4 co=6 g=2 in=3x4 k=2x3 s=2x1 bias=1 seed=10"

/* x'[n][g*Cg + c] = x[n][c*G + g] */
static void *x_interleaved(const iohw_case *c)
{
    const int64_t G = 2, CG = 2, CI = 4, L = 12;
    void *x2 = copy_of(c, c->x, iohw_problem_x_count(&c->p));
    for (int64_t n = 0; n < 2; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t ch = 0; ch < CG; ch++)
                for (int64_t l = 0; l < L; l++)
                    move(c, x2, (n * CI + g * CG + ch) * L + l, c->x,
                         (n * CI + ch * G + g) * L + l);
    return x2;
}

/* The product of channel g*Mg + m written at channel m*G + g, then the bias
 * of the channel written added (in the dtype):
 *   y'[n][m*G + g] = fl(prod[n][g*Mg + m] + bias[m*G + g]) */
static void *y_interleaved(const iohw_case *c, const void *x)
{
    const int64_t G = 2, MG = 3, CO = 6;
    const int64_t O = c->p.out_size[0] * c->p.out_size[1];
    iohw_problem q = c->p;
    q.has_bias = 0;
    void *prod = oracle_y(&q, x, c->w, NULL);
    void *y2 = copy_of(c, prod, iohw_problem_y_count(&c->p));
    for (int64_t n = 0; n < 2; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t m = 0; m < MG; m++)
                for (int64_t o = 0; o < O; o++) {
                    int64_t to = (n * CO + m * G + g) * O + o;
                    double v = iohw_dtype_load(c->p.dtype, prod,
                                               (size_t)((n * CO + g * MG + m) * O + o)) +
                               iohw_dtype_load(c->p.dtype, c->bias, (size_t)(m * G + g));
                    iohw_dtype_store(c->p.dtype, y2, (size_t)to, v);
                }
    free(prod);
    return y2;
}

/* The whole output channel, bias included, moved:
 *   y'[n][m*G + g] = y[n][g*Mg + m] */
static void *y_moved(const iohw_case *c, const void *y)
{
    const int64_t G = 2, MG = 3, CO = 6;
    const int64_t O = c->p.out_size[0] * c->p.out_size[1];
    void *y2 = copy_of(c, y, iohw_problem_y_count(&c->p));
    for (int64_t n = 0; n < 2; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t m = 0; m < MG; m++)
                for (int64_t o = 0; o < O; o++)
                    move(c, y2, (n * CO + m * G + g) * O + o, y, (n * CO + g * MG + m) * O + o);
    return y2;
}

/* How the buggy backend mixes the groups' channels: x interleaved or not,
 * then y as computed, moved whole (bias included) or interleaved before
 * the bias is added. */
typedef enum { Y_AS_IS, Y_MOVED, Y_INTERLEAVED } y_mix;

typedef struct group_mix {   /* copied into the test's process: no pointers */
    int x_interleaved;
    y_mix y;
    char name[80];
} group_mix;

static group_mix group_mixes[] = {
    {0, Y_MOVED, "output channels of the groups interleaved, bias included"},
    {1, Y_MOVED, "input and output channels of the groups interleaved, bias included"},
    {1, Y_AS_IS, "input channels of the groups interleaved"},
    {0, Y_INTERLEAVED, "output channels of the groups interleaved"},
    {1, Y_INTERLEAVED, "input and output channels of the groups interleaved"},
};

ParameterizedTestParameters(diagnose, channels_of_the_groups_interleaved)
{
    return cr_make_param_array(group_mix, group_mixes,
                               sizeof group_mixes / sizeof group_mixes[0]);
}

ParameterizedTest(group_mix *m, diagnose, channels_of_the_groups_interleaved)
{
    iohw_case c;
    make(GROUPED, &c);
    void *x2 = m->x_interleaved ? x_interleaved(&c) : NULL;
    const void *x = x2 != NULL ? x2 : c.x;
    void *y = NULL, *y2 = NULL;
    if (m->y == Y_INTERLEAVED) {
        y2 = y_interleaved(&c, x);
    } else {
        y = x2 != NULL ? oracle_y(&c.p, x2, c.w, c.bias) : NULL;
        const void *yc = y != NULL ? y : c.y;
        y2 = m->y == Y_MOVED ? y_moved(&c, yc) : copy_of(&c, yc, iohw_problem_y_count(&c.p));
    }
    expect_named(&c, y2, m->name);
    free(y2);
    free(y);
    free(x2);
    iohw_case_free(&c);
}

Test(diagnose, bias_indexed_per_group)
{
    iohw_case c;
    make(GROUPED, &c);
    void *b2 = copy_of(&c, c.bias, 6);
    for (int64_t g = 0; g < 2; g++)
        for (int64_t m = 0; m < 3; m++)
            move(&c, b2, g * 3 + m, c.bias, m);   /* bias[m], not bias[g*Mg + m] */
    void *y = oracle_y(&c.p, c.x, c.w, b2);
    expect_named(&c, y, "bias indexed per group");
    free(y);
    free(b2);
    iohw_case_free(&c);
}

/* --- pads and output_padding ---------------------------------------------- */

/* Pads and output_padding read another way, keeping the out size: the
 * oracle's y with the pads the buggy backend uses. */
typedef struct pad_misread {   /* copied into the test's process: no pointers */
    char desc[64];
    int64_t pb[2], pe[2], op[2];
    char name[48];
} pad_misread;

#define OUT_PADDED "ci=2 co=3 in=4x5 k=3x3 s=2 pad=1 op=1 bias=1 seed=13"

static pad_misread pad_misreads[] = {
    {"ci=2 co=3 in=4x5 k=3x2 pad=2:0x0:1 bias=1 seed=11", {0, 1}, {2, 0}, {0, 0},
     "pad begin and end exchanged"},
    /* (2 + 0)/2 = 1 and (1 + 3)/2 = 2 on each side: the same out size. */
    {"ci=2 co=3 in=4x5 k=3x4 pad=2:0x1:3 bias=1 seed=12", {1, 2}, {1, 2}, {0, 0},
     "pads averaged"},
    /* Shifted by op: pad_begin 1 - 1 = 0, pad_end 1, no op: same out size. */
    {OUT_PADDED, {0, 0}, {1, 1}, {0, 0}, "output_padding at the beginning"},
};

ParameterizedTestParameters(diagnose, pads_read_another_way)
{
    return cr_make_param_array(pad_misread, pad_misreads,
                               sizeof pad_misreads / sizeof pad_misreads[0]);
}

ParameterizedTest(pad_misread *m, diagnose, pads_read_another_way)
{
    iohw_case c;
    make(m->desc, &c);
    void *y = with_pads(&c, m->pb, m->pe, m->op);
    expect_named(&c, y, m->name);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, output_padding_dropped)
{
    iohw_case c;
    make(OUT_PADDED, &c);
    /* Out size 8x10 with op, 7x9 without; pad_end = 1 so the last row and
     * column hold real values that the buggy backend replaces by the bias. */
    iohw_problem q = c.p;
    q.output_padding[0] = q.output_padding[1] = 0;
    cr_assert_eq(iohw_problem_finish(&q, NULL), 0);
    const int64_t OH = c.p.out_size[0], OW = c.p.out_size[1];
    cr_assert_eq(q.out_size[0], OH - 1);
    cr_assert_eq(q.out_size[1], OW - 1);
    void *yq = oracle_y(&q, c.x, c.w, c.bias);
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    for (int64_t co = 0; co < 3; co++)
        for (int64_t h = 0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++) {
                int64_t dst = (co * OH + h) * OW + w;
                if (h < OH - 1 && w < OW - 1)
                    move(&c, y, dst, yq, (co * (OH - 1) + h) * (OW - 1) + w);
                else
                    move(&c, y, dst, c.bias, co);
            }
    expect_named(&c, y, "output_padding dropped");
    free(y);
    free(yq);
    iohw_case_free(&c);
}

Test(diagnose, every_misinterpretation_that_matches_is_named)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 pad=1:0x0 op=1x0 bias=1 seed=27", &c);
    /* H: pad 1:0, op 1.  Starting the crop at 0 instead of 1 is what
     * exchanging the pads (begin 0), averaging them (floor(1/2) = 0) and
     * putting op first (1 - 1 = 0) all do: pads 0:0 keep the size 6. */
    const int64_t pb[2] = {0, 0}, pe[2] = {0, 0}, op[2] = {0, 0};
    void *y = with_pads(&c, pb, pe, op);
    char buf[256];
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 1);
    cr_expect_str_eq(buf, "matches the oracle with pad begin and end exchanged, or with "
                          "pads averaged, or with output_padding at the beginning");
    /* A short buffer keeps the beginning. */
    char small[40];
    cr_expect_eq(iohw_diagnose(&c, y, small, sizeof small), 1);
    cr_expect_str_eq(small, "matches the oracle with pad begin and e");
    free(y);
    iohw_case_free(&c);
}

/* --- dilation ------------------------------------------------------------ */

/* The case's problem with dilation d2, pads and op adjusted so that the
 * output keeps its size and its first position (the backend computes the
 * case's grid with the wrong dilation). */
static void *with_dilation(const iohw_case *c, const int64_t *d2)
{
    iohw_problem q = c->p;
    for (int a = 0; a < (int)q.rank; a++) {
        int64_t grow = (d2[a] - c->p.dilation[a]) * (c->p.kernel[a] - 1);
        q.dilation[a] = d2[a];
        if (grow >= 0)
            q.pad_end[a] += grow;
        else
            q.output_padding[a] -= grow;
    }
    cr_assert_eq(iohw_problem_finish(&q, NULL), 0);
    return oracle_y(&q, c->x, c->w, c->bias);
}

#define DILATED "ci=2 co=3 in=4x5 k=3x2 d=2x3 bias=1 seed=14"

typedef struct dilation_misread {   /* copied into the test's process */
    int64_t d2[2];   /* the dilation the buggy backend uses (case: 2x3) */
    char name[48];
} dilation_misread;

static dilation_misread dilation_misreads[] = {
    {{1, 1}, "dilation ignored"},
    {{1, 2}, "dilation 0-based (d - 1 used)"},
    {{3, 4}, "dilation off by one (d + 1 used)"},
};

ParameterizedTestParameters(diagnose, dilation_read_another_way)
{
    return cr_make_param_array(dilation_misread, dilation_misreads,
                               sizeof dilation_misreads / sizeof dilation_misreads[0]);
}

ParameterizedTest(dilation_misread *m, diagnose, dilation_read_another_way)
{
    iohw_case c;
    make(DILATED, &c);
    void *y = with_dilation(&c, m->d2);
    expect_named(&c, y, m->name);
    free(y);
    iohw_case_free(&c);
}

/* Sets every position of H row h >= h0 (NCHW, N = 1) to the bias alone. */
static void rows_to_bias(const iohw_case *c, void *y, int64_t h0)
{
    const int64_t CO = c->p.out_channels, OH = c->p.out_size[0], OW = c->p.out_size[1];
    for (int64_t co = 0; co < CO; co++)
        for (int64_t h = h0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++)
                move(c, y, (co * OH + h) * OW + w, c->bias, co);
}

Test(diagnose, effective_kernel_k_plus_d_minus_1)
{
    iohw_case c;
    make("ci=2 co=3 in=5x4 k=4x2 d=3x1 pad=1 bias=1 seed=15", &c);
    /* H: uncropped size (5-1) + 3*3 + 1 = 14, out 14 - 2 = 12; the buggy
     * size (5-1) + 4 + 3 - 1 = 10 loses uncropped positions 10..13, which
     * are output rows 9..11 (crop 1).  W: k = 2 makes both sizes agree. */
    cr_assert_eq(c.p.out_size[0], 12);
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    rows_to_bias(&c, y, 9);
    expect_named(&c, y, "effective kernel k + d - 1");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, dilation_0_based_sums_a_dense_axis)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 d=1x3 bias=1 fill=exact seed=23", &c);
    /* H: d - 1 = 0, the three taps land on one position: the kernel summed
     * along H (exact: small integers).  W: d 3 -> 2. */
    const int64_t R = 2 * 3, KH = 3, KW = 2;
    iohw_problem q = c.p;
    q.kernel[0] = 1;
    q.dilation[1] = 2;
    q.output_padding[0] = 2;   /* out H: (4-1) + 0 + 2 + 1 = 6 as before */
    q.output_padding[1] = 1;   /* out W: (5-1) + 2 + 1 + 1 = 8 as before */
    cr_assert_eq(iohw_problem_finish(&q, NULL), 0);
    cr_assert_eq(q.out_size[0], c.p.out_size[0]);
    cr_assert_eq(q.out_size[1], c.p.out_size[1]);
    float *w2 = malloc((size_t)(R * KW) * sizeof *w2);
    const float *w = c.w;
    cr_assert_not_null(w2);
    for (int64_t r = 0; r < R; r++)
        for (int64_t kw = 0; kw < KW; kw++) {
            float sum = 0.0f;
            for (int64_t kh = 0; kh < KH; kh++)
                sum += w[(r * KH + kh) * KW + kw];
            w2[r * KW + kw] = sum;
        }
    void *y = oracle_y(&q, c.x, w2, c.bias);
    expect_named(&c, y, "dilation 0-based (d - 1 used)");
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose, pad_begin_used_on_both_sides)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 pad=2:0x0:1 bias=1 seed=24", &c);
    /* H: uncropped 3 + 2 + 1 = 6, 6 - 2*2 = 2 rows computed, rows 2..3 keep
     * the bias.  W: pad_begin 0 < pad_end: what fits is right. */
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    rows_to_bias(&c, y, 2);
    expect_named(&c, y, "pad_begin used on both sides");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, padding_applied_to_the_input)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 s=2x1 pad=1x0:1 bias=1 seed=25", &c);
    /* H: the input padded by 1 position = 2 output rows (stride 2), nothing
     * cropped: row h shows uncropped row h - 2. */
    const int64_t pb[2] = {0, 0}, pe[2] = {2, 1}, op[2] = {0, 0};
    void *yq = with_pads(&c, pb, pe, op);   /* row h = uncropped row h */
    const int64_t OH = c.p.out_size[0], OW = c.p.out_size[1];
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    for (int64_t co = 0; co < 3; co++)
        for (int64_t h = 0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++) {
                if (h >= 2)
                    move(&c, y, (co * OH + h) * OW + w, yq, (co * OH + h - 2) * OW + w);
                else
                    move(&c, y, (co * OH + h) * OW + w, c.bias, co);
            }
    expect_named(&c, y, "padding applied to the input instead of cropping the output");
    free(y);
    free(yq);
    iohw_case_free(&c);
}

Test(diagnose, size_1_input_axes_squeezed)
{
    iohw_case c;
    make("ci=2 co=3 in=1x5 k=3x2 bias=1 seed=26", &c);
    /* H has one input position: the buggy code keeps kernel row 0 and
     * broadcasts its one output row to the 3 rows of the real output. */
    const int64_t R = 2 * 3, KH = 3, KW = 2;
    iohw_problem q = c.p;
    q.kernel[0] = 1;
    cr_assert_eq(iohw_problem_finish(&q, NULL), 0);
    cr_assert_eq(q.out_size[0], 1);
    void *w2 = copy_of(&c, c.w, R * KW);
    for (int64_t r = 0; r < R; r++)
        for (int64_t kw = 0; kw < KW; kw++)
            move(&c, w2, r * KW + kw, c.w, (r * KH + 0) * KW + kw);
    void *yq = oracle_y(&q, c.x, w2, c.bias);
    const int64_t OH = c.p.out_size[0], OW = c.p.out_size[1];
    cr_assert_eq(OH, 3);
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    for (int64_t co = 0; co < 3; co++)
        for (int64_t h = 0; h < OH; h++)
            for (int64_t w = 0; w < OW; w++)
                move(&c, y, (co * OH + h) * OW + w, yq, co * OW + w);
    expect_named(&c, y, "size-1 input axes squeezed");
    free(y);
    free(yq);
    free(w2);
    iohw_case_free(&c);
}

/* --- data layout ------------------------------------------------------- */

static void layout_case(const char *desc, const char *read_as, const char *name)
{
    iohw_case c;
    make(desc, &c);
    iohw_problem q = c.p;
    strcpy(q.data_layout, read_as);   /* the same memory, other letters */
    void *y = oracle_y(&q, c.x, c.w, c.bias);
    expect_named(&c, y, name);
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, data_layout_read_as_channels_first)
{
    layout_case("ci=3 co=2 in=4x5 k=3x2 xl=NHWC bias=1 seed=16", "NCHW",
                "data layout read as channels-first (NCHW)");
}

Test(diagnose, data_layout_read_as_channels_last)
{
    layout_case("ci=3 co=2 in=4x5 k=3x2 bias=1 seed=17", "NHWC",
                "data layout read as channels-last (NHWC)");
}

Test(diagnose, data_layout_read_as_channels_last_in_rank_1)
{
    layout_case("n=2 ci=3 co=2 in=6 k=3 bias=1 seed=18", "NWC",
                "data layout read as channels-last (NHWC)");
}

/* --- whole outputs ------------------------------------------------------ */

Test(diagnose, all_products_dropped)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 bias=1 seed=19", &c);
    const int64_t O = c.p.out_size[0] * c.p.out_size[1];
    void *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    for (int64_t co = 0; co < 3; co++)
        for (int64_t o = 0; o < O; o++)
            move(&c, y, co * O + o, c.bias, co);
    expect_named(&c, y, "all products dropped (bias only or zeros)");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, outputs_left_unwritten)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 bias=1 seed=20", &c);
    float *y = copy_of(&c, c.y, iohw_problem_y_count(&c.p));
    const uint32_t sentinel = 0x7fa5a5a5u;   /* a NaN pattern */
    for (int k = 3; k < 40; k += 7)
        memcpy(&y[k], &sentinel, 4);
    char buf[256];
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 1);
    cr_expect_str_eq(buf, "outputs left unwritten");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, garbage_matches_nothing)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 pad=1:0x0:1 op=1x0 s=2x1 d=1x2 bias=1 seed=21", &c);
    const int64_t n = iohw_problem_y_count(&c.p);
    float *y = malloc((size_t)n * sizeof *y);
    cr_assert_not_null(y);
    for (int64_t i = 0; i < n; i++)
        y[i] = (float)((i * 37) % 11) - 5.25f;
    char buf[256];
    memset(buf, 'x', sizeof buf);
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "");
    /* A partly wrong output (one element) matches nothing either. */
    memcpy(y, c.y, (size_t)n * sizeof *y);
    y[5] += 1.0f;
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "");
    free(y);
    iohw_case_free(&c);
}

Test(diagnose, bad_arguments_give_no_diagnosis)
{
    iohw_case c;
    make("ci=2 co=3 in=4x5 k=3x2 seed=22", &c);
    char buf[8] = "junk";
    cr_expect_eq(iohw_diagnose(&c, NULL, buf, sizeof buf), 0);
    cr_expect_str_eq(buf, "");
    cr_expect_eq(iohw_diagnose(NULL, c.y, buf, sizeof buf), 0);
    /* A short buffer is truncated, never overrun. */
    void *w2 = flipped(&c);
    void *y = oracle_y(&c.p, c.x, w2, NULL);
    cr_expect_eq(iohw_diagnose(&c, y, buf, sizeof buf), 1);
    cr_expect_str_eq(buf, "matches");
    cr_expect_eq(iohw_diagnose(&c, y, NULL, 0), 1);
    free(y);
    free(w2);
    iohw_case_free(&c);
}

Test(diagnose, names_are_distinct_and_listed)
{
    int n = iohw_diagnose_count();
    cr_assert_geq(n, 24);
    for (int i = 0; i < n; i++) {
        cr_assert_not_null(iohw_diagnose_name(i));
        cr_expect_gt(strlen(iohw_diagnose_name(i)), 5);
        for (int j = 0; j < i; j++)
            cr_expect_str_neq(iohw_diagnose_name(i), iohw_diagnose_name(j));
    }
    cr_expect_null(iohw_diagnose_name(-1));
    cr_expect_null(iohw_diagnose_name(n));
}
