/*
 * tests/test_adapt.c - re-expressing cases in other layouts
 * (harness/adapt.h), the basis of `iohw run --adapt-layout`.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "generators/generators.h"
#include "harness/adapt.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"

static void make(const char *text, iohw_case *c)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "t.adapt.0", NULL, 1, c, &err), 0, "%s",
                 err.msg);
}

/* Element (n, c, h, w) of a rank-2 data tensor, read through the layout's
 * letters with strides worked out here, independently of oracle/layout.c. */
static double data_at(const iohw_case *c, int output, int64_t n, int64_t ch,
                      int64_t h, int64_t w, int f64)
{
    const iohw_problem *p = &c->p;
    int64_t ext[4] = {p->batch, output ? p->out_channels : p->in_channels,
                      output ? p->out_size[0] : p->in_size[0],
                      output ? p->out_size[1] : p->in_size[1]};
    int64_t idx[4] = {n, ch, h, w};
    const char *letters = "NCHW";
    int64_t off = 0;
    for (const char *l = p->data_layout; *l; l++) {
        int a = (int)(strchr(letters, *l) - letters);
        off = off * ext[a] + idx[a];
    }
    if (f64)
        return ((const double *)(output ? (const void *)c->y_f64 : NULL))[off];
    return iohw_dtype_load(p->dtype, output ? c->y : c->x, (size_t)off);
}

Test(adapt, keeps_every_semantic_value_when_the_data_layout_changes)
{
    iohw_case c, a;
    make("n=2 ci=3 co=4 in=3x5 k=2x3 s=2x1 bias=1 dt=f32 xl=NCHW", &c);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "HWNC", "IOHW", &a, &err), 0, "%s", err.msg);
    cr_assert_str_eq(a.p.data_layout, "HWNC");
    for (int64_t n = 0; n < 2; n++)
        for (int64_t ch = 0; ch < 3; ch++)
            for (int64_t h = 0; h < 3; h++)
                for (int64_t w = 0; w < 5; w++)
                    cr_assert_eq(data_at(&c, 0, n, ch, h, w, 0),
                                 data_at(&a, 0, n, ch, h, w, 0));
    for (int64_t n = 0; n < 2; n++)
        for (int64_t ch = 0; ch < 4; ch++)
            for (int64_t h = 0; h < c.p.out_size[0]; h++)
                for (int64_t w = 0; w < c.p.out_size[1]; w++) {
                    cr_assert_eq(data_at(&c, 1, n, ch, h, w, 0),
                                 data_at(&a, 1, n, ch, h, w, 0));
                    cr_assert_eq(data_at(&c, 1, n, ch, h, w, 1),
                                 data_at(&a, 1, n, ch, h, w, 1));
                }
    cr_assert_eq(memcmp(c.bias, a.bias, 4 * sizeof(float)), 0);
    iohw_case_free(&a);
    iohw_case_free(&c);
}

Test(adapt, moves_the_weight_into_a_grouped_channels_last_layout)
{
    /* IOHW w[i][o][kh][kw] with C_in = 4, Mg = 3, G = 2 (Cg = 2); in GOHWI
     * the element (g, o, kh, kw, i) sits at (((g*3 + o)*2 + kh)*2 + kw)*2 + i
     * and holds w[g*2 + i][o][kh][kw]. */
    iohw_case c, a;
    make("ci=4 co=6 g=2 in=3x3 k=2 dt=f64 fill=exact", &c);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "NHWC", "GOHWI", &a, &err), 0, "%s", err.msg);
    const double *wi = c.w, *wa = a.w;
    for (int g = 0; g < 2; g++)
        for (int o = 0; o < 3; o++)
            for (int kh = 0; kh < 2; kh++)
                for (int kw = 0; kw < 2; kw++)
                    for (int i = 0; i < 2; i++) {
                        double want = wi[(((g * 2 + i) * 3 + o) * 2 + kh) * 2 + kw];
                        double got = wa[(((g * 3 + o) * 2 + kh) * 2 + kw) * 2 + i];
                        cr_assert_eq(got, want, "g%d o%d kh%d kw%d i%d", g, o,
                                     kh, kw, i);
                    }
    iohw_case_free(&a);
    iohw_case_free(&c);
}

Test(adapt, refuses_a_layout_that_does_not_fit_the_rank)
{
    iohw_case c, a;
    make("ci=2 co=2 in=4 k=3", &c);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "NCHW", "IOW", &a, &err), -1);
    cr_assert(strstr(err.msg, "NCHW") != NULL, "%s", err.msg);
    iohw_case_free(&c);
}

Test(adapt, lists_common_candidates_first_and_every_data_permutation)
{
    char d[128][16], w[16][16];
    int nd = iohw_adapt_data_candidates(3, d, 128);
    cr_assert_eq(nd, 120, "5! permutations of NCDHW");
    cr_assert_str_eq(d[0], "NCDHW");
    cr_assert_str_eq(d[1], "NDHWC");
    for (int i = 0; i < nd; i++) {
        cr_assert_eq(iohw_layout_check_data(d[i], 3, NULL), 0, "%s", d[i]);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(d[i], d[j]);
    }
    int nw = iohw_adapt_weight_candidates(2, w, 16);
    cr_assert_eq(nw, 10);
    cr_assert_str_eq(w[0], "IOHW");
    for (int i = 0; i < nw; i++)
        cr_assert_eq(iohw_layout_check_weight(w[i], 2, NULL), 0, "%s", w[i]);
    cr_assert_eq(iohw_adapt_data_candidates(4, d, 128), 0);
}
