/*
 * tests/test_fill_stated.c - fills keep the quantization parameters the
 * descriptor states (specification section 11.4): the case generated from
 * a descriptor with sx, sy, sw (or qmul, qshift) stores exactly those, the
 * unstated ones are chosen as without them, and a stated left shift reaches
 * the oracle (y checked against values computed here from x and w).
 */
#include <criterion/criterion.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "generators/generators.h"
#include "oracle/descriptor.h"

static iohw_case make(const char *text)
{
    iohw_desc *d = malloc(sizeof *d);
    iohw_error err = {{0}};
    iohw_case c;
    cr_assert_not_null(d);
    cr_assert_eq(iohw_desc_parse(text, d, &err), 0, "%s: %s", text, err.msg);
    cr_assert_eq(iohw_make_case(d, "stated", NULL, 1, &c, &err), 0, "%s: %s", text, err.msg);
    free(d);
    return c;
}

Test(fill_stated, qrandom_keeps_sx_sy_and_per_channel_sw)
{
    iohw_case c = make("ci=2 co=3 in=4 k=2 dt=u8 wdt=s8 pc=1 sx=0.00392156863 sy=0.02 "
                       "sw=0.0123,0.0456,0.5");
    const float *sw = c.requant;
    cr_expect_eq(c.p.s_x, 0.00392156863f);
    cr_expect_eq(c.p.s_y, 0.02f);
    cr_expect_eq(sw[0], 0.0123f);
    cr_expect_eq(sw[1], 0.0456f);
    cr_expect_eq(sw[2], 0.5f);
    cr_expect(strstr(c.descriptor, " sw=0.0122999996,0.0456000008,0.5 ") != NULL, "%s",
              c.descriptor);
    iohw_case_free(&c);
}

Test(fill_stated, one_sw_applies_to_every_channel_and_sy_is_still_fitted)
{
    iohw_case c = make("ci=2 co=3 in=4 k=2 dt=u8 wdt=s8 pc=1 sx=0.5 sw=0.25");
    iohw_case u = make("ci=2 co=3 in=4 k=2 dt=u8 wdt=s8 pc=1 sx=0.5");
    const float *sw = c.requant;
    for (int j = 0; j < 3; j++)
        cr_expect_eq(sw[j], 0.25f, "channel %d", j);
    /* s_y = s_x * 2^j (fill_quant.c) for the stated s_w: a power of two times 0.5. */
    int e;
    cr_expect_eq(frexpf(c.p.s_y, &e), 0.5f, "s_y %g", (double)c.p.s_y);
    /* x and w are drawn as without the stated value. */
    cr_expect_eq(memcmp(c.x, u.x, 2 * 4), 0);
    cr_expect_eq(memcmp(c.w, u.w, 2 * 3 * 2), 0);
    iohw_case_free(&c);
    iohw_case_free(&u);
}

Test(fill_stated, a_designed_fill_keeps_the_stated_scales_and_chooses_the_rest)
{
#define QDEPLOY "n=2 ci=2 co=4 in=6 k=3 s=2 pad=1:0 bias=1 dt=u8 wdt=s8 ydt=s8 " \
                "round=half_even m=scales pc=1 fill=qdeploy"
    iohw_case c = make(QDEPLOY " sx=0.00392156863 sw=0.001");
    iohw_case u = make(QDEPLOY);
    const float *sw = c.requant;
    cr_expect_eq(c.p.s_x, 0.00392156863f);
    for (int j = 0; j < 4; j++)
        cr_expect_eq(sw[j], 0.001f, "channel %d", j);
    cr_expect_eq(c.p.s_y, u.p.s_y, "s_y is the fill's");
    cr_expect_eq(c.p.zp_y, u.p.zp_y, "zp_y is the fill's");
    iohw_case_free(&c);
    iohw_case_free(&u);
}

/* y = clamp(zp_y + R_half_even(M * x * w)) for ci = co = 1, k = 1, no bias. */
static void expect_y(const iohw_case *c, double m)
{
    const int8_t *x = c->x, *w = c->w, *y = c->y;
    for (int i = 0; i < 5; i++) {
        double v = rint(m * (double)x[i] * (double)w[0]) + c->p.zp_y;
        v = v < -128 ? -128 : v > 127 ? 127 : v;
        cr_expect_eq(y[i], (int8_t)v, "y[%d] = %d for x %d, w %d, M %.17g", i, y[i], x[i],
                     w[0], m);
    }
}

Test(fill_stated, a_stated_left_shift_reaches_the_oracle)
{
    iohw_case c = make("ci=1 co=1 in=5 k=1 dt=s8 wdt=s8 ydt=s8 round=half_even m=fixed "
                       "qmul=1073741824 qshift=3");
    const int32_t *q = c.requant;
    cr_expect_eq(q[0], 1073741824);
    cr_expect_eq(q[1], 3);
    expect_y(&c, 4.0); /* 2^30 * 2^(3 - 31) */
    iohw_case_free(&c);
    c = make("ci=1 co=1 in=5 k=1 dt=s8 wdt=s8 ydt=s8 round=half_even m=fixed "
             "qmul=1500000000 qshift=2 seed=3");
    q = c.requant;
    cr_expect_eq(q[0], 1500000000);
    cr_expect_eq(q[1], 2);
    expect_y(&c, 1500000000.0 / 536870912.0); /* 2^(2 - 31) */
    iohw_case_free(&c);
}

Test(fill_stated, a_stated_multiplier_gets_a_fitted_shift)
{
    iohw_case c = make("ci=1 co=1 in=5 k=1 dt=s8 wdt=s8 ydt=s8 m=fixed qmul=1073741824");
    const int32_t *q = c.requant;
    const int8_t *x = c.x, *w = c.w;
    double lo = 0, hi = 0;
    for (int i = 0; i < 5; i++) {
        const double a = (double)x[i] * (double)w[0];
        lo = i == 0 || a < lo ? a : lo;
        hi = i == 0 || a > hi ? a : hi;
    }
    /* The largest shift with 2^30 * 2^(shift - 31) * r <= 255. */
    const double r = hi - lo > 0 ? hi - lo : 1;
    cr_expect_eq(q[0], 1073741824);
    cr_expect_eq(q[1], (int)floor(log2(510.0 / r)), "r = %g", r);
    iohw_case_free(&c);
}
