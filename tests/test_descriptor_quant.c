/*
 * tests/test_descriptor_quant.c - the descriptor keys of a quantized problem
 * (specification sections 6 and 11.4) and the validation of the quantized
 * members of iohw_problem: every key parsed, defaults, the canonical form
 * read back to the same problem, and every error naming its key or member.
 */
#include <criterion/criterion.h>

#include <string.h>

#include "oracle/descriptor.h"
#include "oracle/problem.h"
#include "oracle/quant_problem.h"

#define BASE "n=1 ci=4 co=6 g=2 in=5 k=3 s=2 "

static iohw_desc parse_ok(const char *text)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), 0, "%s: %s", text, err.msg);
    return d;
}

static void parse_fails(const char *text, const char *needle)
{
    iohw_desc d;
    iohw_error err = {{0}};
    cr_assert_eq(iohw_desc_parse(text, &d, &err), -1, "%s parsed", text);
    cr_expect(strstr(err.msg, needle) != NULL, "%s: '%s' lacks '%s'", text,
              err.msg, needle);
}

Test(descriptor_quant, every_key_is_parsed)
{
    iohw_desc d = parse_ok(BASE "dt=u8 wdt=s8 ydt=u8 zp=3,-2,250 round=half_away "
                           "m=scales pc=1 sx=0.5 sy=0.25 seed=9");
    cr_expect_eq(d.p.dtype, IOHW_U8);
    cr_expect_eq(d.p.w_dtype, IOHW_S8);
    cr_expect_eq(d.p.y_dtype, IOHW_U8);
    cr_expect_eq(d.p.zp_x, 3);
    cr_expect_eq(d.p.zp_w, -2);
    cr_expect_eq(d.p.zp_y, 250);
    cr_expect_eq(d.p.rounding, IOHW_ROUND_HALF_AWAY);
    cr_expect_eq(d.p.m_form, IOHW_QM_SCALES);
    cr_expect_eq(d.p.per_channel, 1);
    cr_expect_eq(d.p.s_x, 0.5f);
    cr_expect_eq(d.p.s_y, 0.25f);
    cr_expect_str_eq(d.fill, "qrandom");
    cr_expect_eq(iohw_quant_requant_count(&d.p), 6);
    cr_expect_eq(iohw_quant_requant_bytes(&d.p), 24);
}

Test(descriptor_quant, defaults_are_the_x_type_zero_points_0_half_even_scales_1)
{
    iohw_desc d = parse_ok(BASE "dt=s8");
    cr_expect_eq(d.p.w_dtype, IOHW_S8);
    cr_expect_eq(d.p.y_dtype, IOHW_S8);
    cr_expect_eq(d.p.zp_x, 0);
    cr_expect_eq(d.p.zp_y, 0);
    cr_expect_eq(d.p.rounding, IOHW_ROUND_HALF_EVEN);
    cr_expect_eq(d.p.m_form, IOHW_QM_SCALES);
    cr_expect_eq(d.p.per_channel, 0);
    cr_expect_eq(d.p.s_x, 1.0f);
    cr_expect_eq(d.p.s_y, 1.0f);
    cr_expect_eq(iohw_quant_requant_count(&d.p), 1);
    d = parse_ok(BASE "dt=s8 round=gemmlowp");
    cr_expect_eq(d.p.m_form, IOHW_QM_FIXED, "gemmlowp implies the fixed form");
    cr_expect_eq(d.p.s_x, 0.0f);
    cr_expect_eq(iohw_quant_requant_bytes(&d.p), 8);
    d = parse_ok(BASE "dt=u8 ydt=s32 zp=7,1,0");
    cr_expect_eq(d.p.rounding, 0, "an s32 y has no rounding");
    cr_expect_eq(d.p.m_form, 0);
    cr_expect_eq(iohw_quant_requant_count(&d.p), 0);
    cr_expect_eq(iohw_problem_bias_dtype(&d.p), IOHW_S32);
}

Test(descriptor_quant, the_canonical_form_reads_back_to_the_same_problem)
{
    const char *texts[] = {
        BASE "dt=u8 wdt=s8 ydt=u8 zp=3,0,5 round=half_even m=scales pc=1 sx=0.1 sy=0.3",
        BASE "dt=s8 ydt=s32 zp=-128,127,0",
        BASE "dt=s8 wdt=u8 ydt=u8 round=gemmlowp zp=0,255,255 xl=NWC wl=OWI",
        BASE "dt=u8 round=half_up m=fixed pc=1 bias=1",
    };
    for (size_t i = 0; i < sizeof texts / sizeof texts[0]; i++) {
        iohw_desc a = parse_ok(texts[i]);
        char one[IOHW_DESC_MAX], two[IOHW_DESC_MAX];
        cr_assert_gt(iohw_desc_format(&a, one, sizeof one), 0, "%s", texts[i]);
        iohw_desc b = parse_ok(one);
        cr_assert_gt(iohw_desc_format(&b, two, sizeof two), 0, "%s", one);
        cr_expect_str_eq(one, two);
        cr_expect_eq(memcmp(&a.p, &b.p, sizeof a.p), 0, "%s -> %s", texts[i], one);
        cr_expect_str_eq(a.fill, b.fill);
    }
    iohw_desc d = parse_ok(BASE "dt=u8 wdt=s8 zp=3,0,5 pc=1 sx=0.5 sy=0.25");
    char out[IOHW_DESC_MAX];
    cr_assert_gt(iohw_desc_format(&d, out, sizeof out), 0);
    cr_expect(strstr(out, " dt=u8 wdt=s8 ydt=u8 zp=3,0,5 round=half_even "
                     "m=scales pc=1 sx=0.5 sy=0.25 xl=NCW") != NULL, "%s", out);
    d = parse_ok(BASE "dt=s8 ydt=s32");
    cr_assert_gt(iohw_desc_format(&d, out, sizeof out), 0);
    cr_expect(strstr(out, "ydt=s32 zp=0,0,0 xl=") != NULL, "%s", out);
    cr_expect(strstr(out, "fill=qrandom") != NULL, "%s", out);
}

Test(descriptor_quant, a_float_problem_prints_no_quantized_key)
{
    iohw_desc d = parse_ok(BASE "dt=f32");
    char out[IOHW_DESC_MAX];
    cr_assert_gt(iohw_desc_format(&d, out, sizeof out), 0);
    cr_expect(strstr(out, "zp=") == NULL && strstr(out, "wdt") == NULL, "%s", out);
}

Test(descriptor_quant, bad_keys_and_values_are_refused_by_name)
{
    parse_fails(BASE "dt=f32 zp=1,0,0", "'zp=1,0,0': this key is for a quantized");
    parse_fails(BASE "round=half_up", "'round=half_up'");
    parse_fails(BASE "dt=s32", "s32 is only an output type");
    parse_fails(BASE "dt=s8 wdt=s32", "wdt must be s8 or u8");
    parse_fails(BASE "dt=s8 ydt=f32", "ydt must be s8, u8 or s32");
    parse_fails(BASE "dt=s8 zp=1,2", "zp is X,W,Y");
    parse_fails(BASE "dt=s8 zp=1,2,3,4", "zp is X,W,Y");
    parse_fails(BASE "dt=s8 zp=1,x,3", "not a decimal integer");
    parse_fails(BASE "dt=s8 zp=200,0,0", "zp_x = 200 is outside");
    parse_fails(BASE "dt=u8 zp=-1,0,0", "zp_x = -1 is outside");
    parse_fails(BASE "dt=s8 ydt=s32 zp=0,0,1", "zp_y = 1, must be 0");
    parse_fails(BASE "dt=s8 round=nearest", "round must be");
    parse_fails(BASE "dt=s8 m=float", "m must be scales or fixed");
    parse_fails(BASE "dt=s8 round=gemmlowp m=scales", "gemmlowp rounding needs");
    parse_fails(BASE "dt=s8 pc=2", "pc must be 0 or 1");
    parse_fails(BASE "dt=s8 m=fixed sx=0.5", "sx and sy belong to m=scales");
    parse_fails(BASE "dt=s8 sx=0", "positive normal");
    parse_fails(BASE "dt=s8 sy=-1", "positive normal");
    parse_fails(BASE "dt=s8 sy=1e-40", "positive normal");
    parse_fails(BASE "dt=s8 sy=abc", "decimal number");
    parse_fails(BASE "dt=s8 ydt=s32 round=half_up", "not requantized");
    parse_fails(BASE "dt=s8 fill=normal", "takes fill=qrandom");
    parse_fails(BASE "dt=f32 fill=qrandom", "for a quantized problem");
}

/* A valid quantized problem to break member by member. */
static iohw_problem quant_problem(void)
{
    iohw_desc d = parse_ok(BASE "dt=s8 wdt=s8 ydt=u8 zp=1,2,3 pc=1 sx=0.5 sy=2");
    return d.p;
}

static void invalid(const iohw_problem *p, const char *needle)
{
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_validate(p, &err), -1, "'%s' expected", needle);
    cr_expect(strstr(err.msg, needle) != NULL, "'%s' lacks '%s'", err.msg, needle);
}

Test(descriptor_quant, validation_names_the_wrong_quantized_member)
{
    iohw_problem p = quant_problem();
    iohw_error err = {{0}};
    cr_assert_eq(iohw_problem_validate(&p, &err), 0, "%s", err.msg);
    p.w_dtype = 0;
    cr_expect_eq(iohw_problem_validate(&p, &err), 0, "w_dtype 0 is dtype: %s", err.msg);
    cr_expect_eq(iohw_problem_w_dtype(&p), IOHW_S8);
    p = quant_problem(), p.w_dtype = IOHW_S32, invalid(&p, "w_dtype = 7");
    p = quant_problem(), p.y_dtype = 9, invalid(&p, "y_dtype = 9");
    p = quant_problem(), p.zp_w = 128, invalid(&p, "zp_w = 128");
    p = quant_problem(), p.zp_y = 256, invalid(&p, "zp_y = 256");
    p = quant_problem(), p.rounding = 0, invalid(&p, "rounding = 0");
    p = quant_problem(), p.m_form = 3, invalid(&p, "m_form = 3");
    p = quant_problem(), p.per_channel = -1, invalid(&p, "per_channel = -1");
    p = quant_problem(), p.s_x = 0.0f, invalid(&p, "s_x[0] = 0");
    p = quant_problem(), p.s_y = 1e-40f, invalid(&p, "s_y[0]");
    p = quant_problem(), p.m_form = IOHW_QM_FIXED, invalid(&p, "s_x is not used in the fixed form");
    p = quant_problem(), p.y_dtype = IOHW_S32, p.zp_y = 0, invalid(&p, "an s32 y is not requantized");
    p = quant_problem(), p.dtype = IOHW_S32, invalid(&p, "dtype = 7");
    p = quant_problem(), p.dtype = 8, invalid(&p, "dtype = 8");
}

Test(descriptor_quant, a_float_problem_must_leave_the_quantized_members_zero)
{
    iohw_desc d = parse_ok(BASE "dt=f32");
    iohw_problem p = d.p;
    p.zp_x = 1;
    invalid(&p, "zp_x is set in a float problem");
    p = d.p, p.s_y = 1.0f, invalid(&p, "s_y is set in a float problem");
    p = d.p, p.rounding = IOHW_ROUND_HALF_UP, invalid(&p, "rounding is set");
}

Test(descriptor_quant, names_of_roundings_and_forms_read_back)
{
    for (int32_t r = IOHW_ROUND_HALF_EVEN; r <= IOHW_ROUND_GEMMLOWP; r++) {
        int32_t v = 0;
        cr_expect_eq(iohw_quant_rounding_parse(iohw_quant_rounding_name(r), &v), 0);
        cr_expect_eq(v, r);
    }
    cr_expect_str_eq(iohw_quant_rounding_name(0), "?");
    cr_expect_str_eq(iohw_quant_rounding_name(5), "?");
    cr_expect_str_eq(iohw_quant_m_form_name(IOHW_QM_FIXED), "fixed");
    cr_expect_str_eq(iohw_quant_m_form_name(3), "?");
    int32_t v = 0;
    cr_expect_eq(iohw_quant_m_form_parse("scale", &v), -1);
}
