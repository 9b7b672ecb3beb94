/*
 * tests/test_adapt.c - re-expressing cases in other layouts
 * (judge/adapt.h), the basis of `iohw run --adapt-layout`.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <string.h>

#include "generators/generators.h"
#include "judge/adapt.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/layout.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static void make(const char *text, iohw_case *c)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "t.adapt.0", NULL, 1, c, &err), 0, "%s",
                 err.msg);
}

/* Offset of (n, c, h, w) in a rank-2 data tensor, from the layout's letters
 * with strides worked out here, independently of oracle/layout.c. */
static int64_t data_off(const iohw_problem *p, int output, int64_t n,
                        int64_t ch, int64_t h, int64_t w)
{
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
    return off;
}

/* Element (n, c, h, w) of a rank-2 data tensor of a float case. */
static double data_at(const iohw_case *c, int output, int64_t n, int64_t ch,
                      int64_t h, int64_t w, int f64)
{
    const int64_t off = data_off(&c->p, output, n, ch, h, w);
    if (f64)
        return ((const double *)(output ? (const void *)c->y_f64 : NULL))[off];
    return iohw_dtype_load(c->p.dtype, output ? c->y : c->x, (size_t)off);
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

Test(adapt, lists_the_common_layouts_most_common_first)
{
    char d[16][16], w[16][16];
    int nd = iohw_adapt_data_candidates(3, d, 16);
    cr_assert_eq(nd, 4);
    cr_assert_str_eq(d[0], "NCDHW");
    cr_assert_str_eq(d[1], "NDHWC");
    cr_assert_str_eq(d[2], "CDHWN");
    cr_assert_str_eq(d[3], "CNDHW");
    for (int i = 0; i < nd; i++)
        cr_assert_eq(iohw_layout_check_data(d[i], 3, NULL), 0, "%s", d[i]);
    int nw = iohw_adapt_weight_candidates(2, w, 16);
    cr_assert_eq(nw, 10);
    cr_assert_str_eq(w[0], "IOHW");
    for (int i = 0; i < nw; i++) {
        cr_assert_eq(iohw_layout_check_weight(w[i], 2, NULL), 0, "%s", w[i]);
        for (int j = 0; j < i; j++)
            cr_assert_str_neq(w[i], w[j]);
    }
    cr_assert_eq(iohw_adapt_data_candidates(4, d, 16), 0);
    cr_assert_eq(iohw_adapt_data_candidates(2, d, 1), 1, "at most max");
}

/* --- quantized cases (specification section 11) ---------------------- */

/* Every element of x (1 byte) and y (es bytes) of c found at its place in
 * a, whose data layout differs. */
static void check_data(const iohw_case *c, const iohw_case *a, size_t es)
{
    const iohw_problem *p = &c->p;
    for (int out = 0; out < 2; out++) {
        const unsigned char *tc = out ? c->y : c->x, *ta = out ? a->y : a->x;
        const size_t s = out ? es : 1;
        const int64_t nc = out ? p->out_channels : p->in_channels;
        const int64_t nh = out ? p->out_size[0] : p->in_size[0];
        const int64_t nw = out ? p->out_size[1] : p->in_size[1];
        for (int64_t n = 0; n < p->batch; n++)
            for (int64_t ch = 0; ch < nc; ch++)
                for (int64_t h = 0; h < nh; h++)
                    for (int64_t w = 0; w < nw; w++)
                        cr_assert_eq(memcmp(tc + s * (size_t)data_off(p, out, n, ch, h, w),
                                            ta + s * (size_t)data_off(&a->p, out, n, ch, h, w),
                                            s), 0, "%s n%ld c%ld h%ld w%ld",
                                     out ? "y" : "x", (long)n, (long)ch, (long)h,
                                     (long)w);
    }
}

Test(adapt, quantized_carries_the_int32_bias_and_the_per_channel_requant_values)
{
    iohw_case c, a;
    make("n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2 bias=1 dt=u8 wdt=s8 ydt=u8 "
         "zp=3,-2,0 pc=1 sx=0.5 xl=NCHW wl=IOHW", &c);
    cr_assert_not_null(c.requant);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "NHWC", "GOHWI", &a, &err), 0, "%s", err.msg);
    cr_assert_str_eq(a.p.data_layout, "NHWC");
    cr_assert_str_eq(a.p.weight_layout, "GOHWI");
    /* Six int32 biases, 24 bytes (not six), and six float scales. */
    cr_assert_not_null(a.bias);
    cr_assert_eq(memcmp(a.bias, c.bias, 6 * sizeof(int32_t)), 0);
    cr_assert_eq(iohw_quant_requant_bytes(&c.p), 6 * sizeof(float));
    cr_assert_not_null(a.requant);
    cr_assert_eq(memcmp(a.requant, c.requant, 6 * sizeof(float)), 0);
    cr_assert_null(a.y_f64);
    cr_assert_null(a.err_bound);
    check_data(&c, &a, 1);
    /* IOHW w[i][o][kh][kw] (C_in 4, Mg 3, G 2, Cg 2) in GOHWI: one byte
     * each, (g, o, kh, kw, i) holding w[g*2 + i][o][kh][kw]. */
    const int8_t *wi = c.w, *wa = a.w;
    for (int g = 0; g < 2; g++)
        for (int o = 0; o < 3; o++)
            for (int kh = 0; kh < 3; kh++)
                for (int kw = 0; kw < 2; kw++)
                    for (int i = 0; i < 2; i++)
                        cr_assert_eq(wa[(((g * 3 + o) * 3 + kh) * 2 + kw) * 2 + i],
                                     wi[(((g * 2 + i) * 3 + o) * 3 + kh) * 2 + kw]);
    iohw_case_free(&a);
    iohw_case_free(&c);
}

Test(adapt, quantized_moves_an_s32_output_with_four_bytes_an_element)
{
    iohw_case c, a;
    make("n=2 ci=3 co=2 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=1 xl=NCHW", &c);
    iohw_error err = {{0}};
    cr_assert_eq(iohw_adapt_case(&c, "HWNC", "OIHW", &a, &err), 0, "%s", err.msg);
    cr_assert_null(a.requant, "an s32 y has no requant values");
    cr_assert_eq(memcmp(a.bias, c.bias, 2 * sizeof(int32_t)), 0);
    check_data(&c, &a, sizeof(int32_t));
    iohw_case_free(&a);
    iohw_case_free(&c);
}

/* --- through `iohw run` -------------------------------------------------- */

#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

/* Occurrences of needle in the file at path. */
static int count_in_file(const char *path, const char *needle)
{
    FILE *f = fopen(path, "rb");
    cr_assert_not_null(f, "%s", path);
    static char buf[1 << 20];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    int count = 0;
    for (const char *p = buf; (p = strstr(p, needle)) != NULL; p++)
        count++;
    return count;
}

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

Test(adapt, lets_a_backend_that_takes_only_channels_last_pass_every_case)
{
    char dir[512], cmd[4096];
    snprintf(dir, sizeof dir, "%s/adapt-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' gen -o '%s/t.h5'"
             " --problem 'ci=2 co=3 in=5 k=3 s=2'"
             " --problem 'ci=4 co=6 g=2 in=4x3 k=3x2 s=2 bias=1 xl=NHWC wl=OIHW'"
             " --problem 'ci=2 co=2 in=3x2x2 k=2 dt=f64'"
             " --problem 'ci=3 co=2 in=4x4 k=2 dt=bf16 xl=CHWN wl=HWIO fill=exact'"
             " > /dev/null", dir, dir, IOHW_BIN, dir);
    cr_assert_eq(run_cmd(cmd), 0);

    /* The picky backend claims NHWC-like data with GOHWI-like weights only:
     * without the flag, three of the four cases are skipped... */
    snprintf(cmd, sizeof cmd, "'%s' run --quiet --jobs 1 --allow-empty --backend "
             "'%s/libiohw_picky.so' '%s/t.h5' --json '%s/plain.json' > /dev/null",
             IOHW_BIN, IOHW_BACKEND_DIR, dir, dir);
    cr_assert_eq(run_cmd(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/plain.json", dir);
    cr_assert_eq(count_in_file(cmd, "\"status\": \"UNSUPPORTED\""), 4,
                 "every case is in layouts the picky backend refuses");

    /* ...with it, all four run in adapted layouts and pass. */
    snprintf(cmd, sizeof cmd, "'%s' run --quiet --jobs 1 --adapt-layout --backend "
             "'%s/libiohw_picky.so' '%s/t.h5' --json '%s/adapted.json' > /dev/null",
             IOHW_BIN, IOHW_BACKEND_DIR, dir, dir);
    cr_assert_eq(run_cmd(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/adapted.json", dir);
    cr_assert_eq(count_in_file(cmd, "\"status\": \"PASS\""), 4);
    cr_assert_eq(count_in_file(cmd, "run with layouts NHWC/GOHWI (adapted from NHWC/OIHW)"), 1);
    cr_assert_eq(count_in_file(cmd, "run with layouts NHWC/GOHWI (adapted from CHWN/HWIO)"), 1);
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
}
