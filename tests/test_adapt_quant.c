/*
 * tests/test_adapt_quant.c - `iohw run --adapt-layout` on quantized cases
 * (specification section 11): x, w and y re-expressed with their own
 * element sizes, the int32 bias and the requant values carried as they are.
 */
#include <criterion/criterion.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "generators/generators.h"
#include "harness/adapt.h"
#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

static void make(const char *text, iohw_case *c)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s", err.msg);
    cr_assert_eq(iohw_make_case(&d, "t.adaptq.0", NULL, 1, c, &err), 0, "%s",
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

Test(adapt_quant, carries_the_int32_bias_and_the_per_channel_requant_values)
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

Test(adapt_quant, moves_an_s32_output_with_four_bytes_an_element)
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

static int run_cmd(const char *cmd)
{
    int st = system(cmd);
    cr_assert(WIFEXITED(st), "%s", cmd);
    return WEXITSTATUS(st);
}

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

/* dir (made afresh) with t.h5 holding the problems. */
static void gen(char *dir, size_t n, const char *problems)
{
    char cmd[4096];
    snprintf(dir, n, "%s/adaptq-%d", IOHW_TEST_TMP, (int)getpid());
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s' && '%s' gen -o '%s/t.h5'"
             " %s > /dev/null", dir, dir, IOHW_BIN, dir, problems);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
}

/* `iohw run` of dir/t.h5 on the backend lib with the flags; the JSON
 * report's path into json. */
static void run(const char *dir, const char *lib, const char *flags,
                const char *name, char *json, size_t n)
{
    char cmd[4096];
    snprintf(json, n, "%s/%s.json", dir, name);
    snprintf(cmd, sizeof cmd, "'%s' run --quiet --jobs 1 --allow-empty %s --backend "
             "'%s/libiohw_%s.so' '%s/t.h5' --json '%s' > /dev/null 2>&1",
             IOHW_BIN, flags, IOHW_BACKEND_DIR, lib, dir, json);
    cr_assert_lt(run_cmd(cmd), 2, "%s", cmd);
}

static void remove_dir(const char *dir)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    cr_assert_eq(run_cmd(cmd), 0, "%s", cmd);
}

Test(adapt_quant, lets_a_channels_last_backend_pass_nchw_quantized_cases)
{
    char dir[512], json[600];
    gen(dir, sizeof dir,
        "--problem 'n=2 ci=4 co=6 g=2 in=5x4 k=3x2 s=2 bias=1 dt=u8 wdt=s8"
        " ydt=u8 zp=3,-2,0 pc=1 sx=0.5 xl=NCHW wl=IOHW'"
        " --problem 'ci=3 co=4 in=6x3 k=2 s=2 dt=s8 round=gemmlowp pc=1"
        " m=fixed zp=1,0,-3 bias=1 xl=NCHW wl=OIHW'"
        " --problem 'ci=3 co=2 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=1'");

    /* The picky backend (NHWC data, GOHWI weights only) refuses all three
     * as they are... */
    run(dir, "picky", "", "plain", json, sizeof json);
    cr_assert_eq(count_in_file(json, "\"status\": \"UNSUPPORTED\""), 3);

    /* ...and passes them re-expressed, bit for bit. */
    run(dir, "picky", "--adapt-layout", "adapted", json, sizeof json);
    cr_assert_eq(count_in_file(json, "\"status\": \"PASS\""), 3);
    cr_assert_eq(count_in_file(json, "run with layouts NHWC/GOHWI (adapted from NCHW/IOHW)"), 2);
    cr_assert_eq(count_in_file(json, "run with layouts NHWC/GOHWI (adapted from NCHW/OIHW)"), 1);
    remove_dir(dir);
}

Test(adapt_quant, shows_a_backend_that_reads_the_bias_as_bytes_its_int32_bias)
{
    /* fault_quant_bias_bytes takes only channels-last data and reads the
     * bias as C_out int8: on the adapted case, which hands it int32
     * values, it fails where a bias is given and passes without one. */
    char dir[512], json[600];
    gen(dir, sizeof dir,
        "--problem 'ci=3 co=4 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=1'"
        " --problem 'ci=3 co=4 in=4x3 k=2 s=2 dt=s8 ydt=s32 zp=1,2,0 bias=0'");
    run(dir, "fault_quant_bias_bytes", "", "plain", json, sizeof json);
    cr_assert_eq(count_in_file(json, "\"status\": \"UNSUPPORTED\""), 2);
    run(dir, "fault_quant_bias_bytes", "--adapt-layout", "adapted", json, sizeof json);
    cr_assert_eq(count_in_file(json, "\"status\": \"FAIL\""), 1);
    cr_assert_eq(count_in_file(json, "\"status\": \"PASS\""), 1);
    cr_assert_eq(count_in_file(json, "(adapted from NCHW/IOHW)"), 2);
    remove_dir(dir);
}
