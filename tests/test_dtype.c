/*
 * tests/test_dtype.c - element types and the f16 / bf16 conversions.
 *
 * Expected values come from independent formulations:
 *   f16  decoded here from sign, exponent and mantissa with ldexp (the code
 *        under test builds double bit patterns instead), and compared with the
 *        compiler's _Float16 conversion where the compiler has one;
 *   bf16 decoded here as the upper half of an IEEE single (float bits);
 * and every pair of neighbouring representable values gives the midpoint
 * and the expected tie-to-even result.
 */
#include <criterion/criterion.h>

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "oracle/dtype.h"

/* Independent references. */

static double ref_f16(uint16_t h)
{
    int s = h >> 15;
    int e = (h >> 10) & 0x1F;
    int m = h & 0x3FF;
    double v;
    if (e == 0x1F)
        v = m != 0 ? NAN : INFINITY;
    else if (e == 0)
        v = ldexp((double)m, -24);        /* m * 2^(1-15-10) */
    else
        v = ldexp((double)(1024 + m), e - 25); /* (1.m) * 2^(e-15) */
    return s ? -v : v;
}

static double ref_bf16(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return (double)f;
}

static int same_double(double a, double b)
{
    if (isnan(a) || isnan(b))
        return isnan(a) && isnan(b) && signbit(a) == signbit(b);
    return a == b && signbit(a) == signbit(b);
}

/* One 16-bit format under test. */
typedef struct fmt {
    const char *name;
    double (*ref)(uint16_t);
    double (*to)(uint16_t);
    uint16_t (*from)(double);
    uint16_t inf;      /* +Inf pattern */
    uint16_t quiet;    /* quiet bit */
    double overflow;   /* 2^(emax+1): first power of two past the range */
} fmt;

static const fmt F16 = {"f16", ref_f16, iohw_f16_to_double,
                        iohw_f16_from_double, 0x7C00, 0x0200, 65536.0};
static const fmt BF16 = {"bf16", ref_bf16, iohw_bf16_to_double,
                         iohw_bf16_from_double, 0x7F80, 0x0040, 0x1p128};

static void check_decode_all(const fmt *f)
{
    for (uint32_t b = 0; b < 0x10000; b++) {
        double got = f->to((uint16_t)b);
        double want = f->ref((uint16_t)b);
        if (!same_double(got, want))
            cr_assert_fail("%s 0x%04x decodes to %a, expected %a", f->name, b, got,
                    want);
    }
}

static void check_round_trip_all(const fmt *f)
{
    for (uint32_t b = 0; b < 0x10000; b++) {
        uint16_t h = (uint16_t)b;
        uint16_t back = f->from(f->to(h));
        int is_nan = (h & f->inf) == f->inf && (h & ~f->inf & 0x7FFF) != 0;
        if (is_nan) {
            /* A NaN comes back as a quiet NaN with the same sign. */
            if ((back & f->inf) != f->inf || (back & f->quiet) == 0 ||
                (back & 0x8000) != (h & 0x8000))
                cr_assert_fail("%s NaN 0x%04x comes back as 0x%04x", f->name, b,
                        back);
        } else if (back != h) {
            cr_assert_fail("%s 0x%04x comes back as 0x%04x", f->name, b, back);
        }
    }
}

/* For every pair of neighbours lo < hi among the non-negative finite values
 * (hi = 2^(emax+1), i.e. Inf, after the largest finite): the midpoint goes to
 * the one with the even pattern, a hair above it goes up and a hair below
 * goes down; the same holds mirrored for negative values. */
static void check_midpoints_all(const fmt *f)
{
    for (uint32_t b = 0; b < f->inf; b++) {
        double lo = f->ref((uint16_t)b);
        double hi = b + 1 == f->inf ? f->overflow : f->ref((uint16_t)(b + 1));
        double mid = (lo + hi) / 2; /* exact: neighbours differ in one ulp */
        uint16_t even = (b & 1) == 0 ? (uint16_t)b : (uint16_t)(b + 1);
        uint16_t up = (uint16_t)(b + 1);
        uint16_t down = (uint16_t)b;
        double above = nextafter(mid, INFINITY);
        double below = nextafter(mid, -INFINITY);
        if (f->from(mid) != even || f->from(-mid) != (even | 0x8000))
            cr_assert_fail("%s midpoint %a of 0x%04x and next rounds to 0x%04x, "
                    "expected 0x%04x", f->name, mid, b, f->from(mid), even);
        if (f->from(above) != up || f->from(-above) != (up | 0x8000))
            cr_assert_fail("%s just above midpoint %a rounds to 0x%04x, expected "
                    "0x%04x", f->name, above, f->from(above), up);
        if (f->from(below) != down || f->from(-below) != (down | 0x8000))
            cr_assert_fail("%s just below midpoint %a rounds to 0x%04x, expected "
                    "0x%04x", f->name, below, f->from(below), down);
    }
}

Test(dtype, f16_decodes_all_65536_patterns_like_the_ldexp_formula)
{
    check_decode_all(&F16);
}

Test(dtype, f16_round_trips_every_pattern)
{
    check_round_trip_all(&F16);
}

Test(dtype, f16_rounds_every_midpoint_to_even_and_neighbours_to_nearest)
{
    check_midpoints_all(&F16);
}

Test(dtype, bf16_decodes_all_65536_patterns_like_float_bits)
{
    check_decode_all(&BF16);
}

Test(dtype, bf16_round_trips_every_pattern)
{
    check_round_trip_all(&BF16);
}

Test(dtype, bf16_rounds_every_midpoint_to_even_and_neighbours_to_nearest)
{
    check_midpoints_all(&BF16);
}

Test(dtype, f16_overflow_thresholds)
{
    /* max finite 65504 = 0x7BFF; next would be 65536; midpoint 65520 ties to
     * the even pattern 0x7C00 = Inf. */
    cr_expect_eq(iohw_f16_from_double(65504.0), 0x7BFF);
    cr_expect_eq(iohw_f16_from_double(65519.99), 0x7BFF);
    cr_expect_eq(iohw_f16_from_double(65520.0), 0x7C00);
    cr_expect_eq(iohw_f16_from_double(-65520.0), 0xFC00);
    cr_expect_eq(iohw_f16_from_double(-65519.99), 0xFBFF);
    cr_expect_eq(iohw_f16_from_double(1e300), 0x7C00);
    cr_expect_eq(iohw_f16_from_double(DBL_MAX), 0x7C00);
    cr_expect_eq(iohw_f16_from_double(INFINITY), 0x7C00);
    cr_expect_eq(iohw_f16_from_double(-INFINITY), 0xFC00);
}

Test(dtype, f16_subnormals_round_to_the_nearest_even_pattern)
{
    /* smallest subnormal 2^-24 = 0x0001; half of it ties to 0 (even); a
     * hair more goes to 0x0001; 1.5 * 2^-24 ties to 0x0002 (even). */
    cr_expect_eq(iohw_f16_from_double(0x1p-24), 0x0001);
    cr_expect_eq(iohw_f16_from_double(0x1p-25), 0x0000);
    cr_expect_eq(iohw_f16_from_double(-0x1p-25), 0x8000);
    cr_expect_eq(iohw_f16_from_double(nextafter(0x1p-25, 1.0)), 0x0001);
    cr_expect_eq(iohw_f16_from_double(0x1.8p-24), 0x0002);
    cr_expect_eq(iohw_f16_from_double(0x1p-30), 0x0000);
    cr_expect_eq(iohw_f16_from_double(DBL_TRUE_MIN), 0x0000);
    /* largest subnormal 1023 * 2^-24 = 0x03FF, smallest normal 2^-14. */
    cr_expect_eq(iohw_f16_from_double(1023 * 0x1p-24), 0x03FF);
    cr_expect_eq(iohw_f16_from_double(0x1p-14), 0x0400);
}

Test(dtype, f16_zero_keeps_its_sign)
{
    cr_expect_eq(iohw_f16_from_double(0.0), 0x0000);
    cr_expect_eq(iohw_f16_from_double(-0.0), 0x8000);
    cr_expect(signbit(iohw_f16_to_double(0x8000)));
}

Test(dtype, f16_nan_is_quiet_and_keeps_its_sign)
{
    uint16_t qn = iohw_f16_from_double(NAN);
    uint16_t nqn = iohw_f16_from_double(-NAN);
    cr_expect_eq(qn & 0x7E00, 0x7E00, "NaN is 0x%04x", qn);
    cr_expect_eq(qn & 0x8000, 0);
    cr_expect_eq(nqn & 0xFE00, 0xFE00, "-NaN is 0x%04x", nqn);
    cr_expect(isnan(iohw_f16_to_double(0x7C01)));
    cr_expect(isnan(iohw_f16_to_double(0xFE00)) &&
              signbit(iohw_f16_to_double(0xFE00)));
}

Test(dtype, f16_rounds_once_not_through_float)
{
    /* 1 + 2^-11 is the midpoint of 1 and 1 + 2^-10; 2^-40 more must round
     * up.  Through float it would become the midpoint and round to 1. */
    cr_expect_eq(iohw_f16_from_double(1.0 + 0x1p-11 + 0x1p-40), 0x3C01);
    cr_expect_eq(iohw_f16_from_double(1.0 + 0x1p-11), 0x3C00);
    cr_expect_eq(iohw_f16_from_double(1.0 + 0x1p-11 - 0x1p-40), 0x3C00);
    /* 1 + 3*2^-11 is the midpoint of 0x3C01 and 0x3C02: ties to 0x3C02. */
    cr_expect_eq(iohw_f16_from_double(1.0 + 3 * 0x1p-11), 0x3C02);
    cr_expect_eq(iohw_f16_from_double(-1.0 - 0x1p-11 - 0x1p-40), 0xBC01);
}

Test(dtype, f16_agrees_with_the_compilers_float16_on_random_doubles)
{
#if defined(__FLT16_MANT_DIG__)
    uint64_t s = 0x9E3779B97F4A7C15u;
    for (int i = 0; i < 200000; i++) {
        /* xorshift64*; exponents concentrated around the f16 range */
        s ^= s >> 12;
        s ^= s << 25;
        s ^= s >> 27;
        uint64_t r = s * 0x2545F4914F6CDD1Du;
        uint64_t e = 1023 - 30 + (r >> 58) % 48; /* 2^-30 .. 2^17 */
        uint64_t bits = (r & 0x800FFFFFFFFFFFFFu) | (e << 52);
        double d;
        memcpy(&d, &bits, sizeof d);
        _Float16 h = (_Float16)d;
        uint16_t want;
        memcpy(&want, &h, sizeof want);
        uint16_t got = iohw_f16_from_double(d);
        if (got != want)
            cr_assert_fail("%a -> 0x%04x, _Float16 gives 0x%04x", d, got, want);
    }
#else
    cr_skip_test("the compiler has no _Float16");
#endif
}

Test(dtype, bf16_overflow_thresholds)
{
    /* max finite 0x7F7F = (2 - 2^-7) * 2^127; midpoint to 2^128 is
     * (2 - 2^-8) * 2^127 and ties to the even pattern 0x7F80 = Inf. */
    cr_expect_eq(iohw_bf16_from_double(0x1.fep127), 0x7F7F);
    cr_expect_eq(iohw_bf16_from_double(0x1.ffp127), 0x7F80);
    cr_expect_eq(iohw_bf16_from_double(nextafter(0x1.ffp127, 0)), 0x7F7F);
    cr_expect_eq(iohw_bf16_from_double(-0x1.ffp127), 0xFF80);
    cr_expect_eq(iohw_bf16_from_double(1e300), 0x7F80);
}

Test(dtype, bf16_subnormals_round_to_the_nearest_even_pattern)
{
    /* smallest subnormal 2^-133; its half ties to 0; 1.5 of it to 2. */
    cr_expect_eq(iohw_bf16_from_double(0x1p-133), 0x0001);
    cr_expect_eq(iohw_bf16_from_double(0x1p-134), 0x0000);
    cr_expect_eq(iohw_bf16_from_double(nextafter(0x1p-134, 1)), 0x0001);
    cr_expect_eq(iohw_bf16_from_double(0x1.8p-133), 0x0002);
    cr_expect_eq(iohw_bf16_from_double(0x1p-126), 0x0080);
}

Test(dtype, bf16_negative_zero_keeps_its_sign)
{
    cr_expect_eq(iohw_bf16_from_double(-0.0), 0x8000);
}

Test(dtype, bf16_rounds_once_not_through_float)
{
    /* 1 + 2^-8 is the midpoint of 1 and 1 + 2^-7 and ties to 1; 2^-40 more
     * must round up.  Through float (ulp 2^-23 at 1) it would first become
     * the midpoint and then round down to 1. */
    cr_expect_eq(iohw_bf16_from_double(1.0 + 0x1p-8), 0x3F80);
    cr_expect_eq(iohw_bf16_from_double(1.0 + 0x1p-8 + 0x1p-40), 0x3F81);
    cr_expect_eq(iohw_bf16_from_double(1.0), 0x3F80);
    cr_expect_eq(iohw_bf16_from_double(-2.0), 0xC000);
}

Test(dtype, bf16_nan_is_quiet_and_keeps_its_sign)
{
    uint16_t qn = iohw_bf16_from_double(NAN);
    uint16_t nqn = iohw_bf16_from_double(-NAN);
    cr_expect_eq(qn & 0xFFC0, 0x7FC0, "NaN is 0x%04x", qn);
    cr_expect_eq(nqn & 0xFFC0, 0xFFC0, "-NaN is 0x%04x", nqn);
}

Test(dtype, each_type_has_its_name_size_and_unit_roundoff)
{
    const struct {
        iohw_dtype dt;
        const char *name;
        size_t size;
        double u;
    } t[] = {
        {IOHW_F32, "f32", 4, 1.0 / 16777216.0},        /* 2^-24 */
        {IOHW_F64, "f64", 8, 1.0 / 9007199254740992.0}, /* 2^-53 */
        {IOHW_F16, "f16", 2, 1.0 / 2048.0},            /* 2^-11 */
        {IOHW_BF16, "bf16", 2, 1.0 / 256.0},           /* 2^-8 */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        iohw_dtype dt = (iohw_dtype)0;
        cr_expect_str_eq(iohw_dtype_name(t[i].dt), t[i].name);
        cr_expect_eq(iohw_dtype_size(t[i].dt), t[i].size, "%s", t[i].name);
        cr_expect_eq(iohw_dtype_unit_roundoff(t[i].dt), t[i].u, "%s", t[i].name);
        cr_expect_eq(iohw_dtype_parse(t[i].name, &dt), 0, "%s", t[i].name);
        cr_expect_eq(dt, t[i].dt, "%s", t[i].name);
    }
}

Test(dtype, an_unknown_type_has_no_name_and_no_size)
{
    cr_expect_str_eq(iohw_dtype_name((iohw_dtype)0), "?");
    cr_expect_str_eq(iohw_dtype_name((iohw_dtype)8), "?");
    cr_expect_eq(iohw_dtype_size((iohw_dtype)0), 0);
    cr_expect_eq(iohw_dtype_size((iohw_dtype)8), 0);
    cr_expect_eq(iohw_dtype_is_float((iohw_dtype)8), 0);
}

Test(dtype, the_quantized_types_have_names_and_sizes_but_are_not_floats)
{
    const struct {
        iohw_dtype dt;
        const char *name;
        size_t size;
    } t[] = {{IOHW_S8, "s8", 1}, {IOHW_U8, "u8", 1}, {IOHW_S32, "s32", 4}};
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        iohw_dtype dt = (iohw_dtype)0;
        cr_expect_str_eq(iohw_dtype_name(t[i].dt), t[i].name);
        cr_expect_eq(iohw_dtype_size(t[i].dt), t[i].size, "%s", t[i].name);
        cr_expect_eq(iohw_dtype_parse(t[i].name, &dt), 0, "%s", t[i].name);
        cr_expect_eq(dt, t[i].dt, "%s", t[i].name);
        cr_expect_eq(iohw_dtype_is_float(t[i].dt), 0, "%s", t[i].name);
    }
    cr_expect_eq(iohw_dtype_is_float(IOHW_BF16), 1);
}

Test(dtype, integer_types_store_rounded_to_even_and_saturated)
{
    int8_t s8[6];
    uint8_t u8[3];
    int32_t s32[2];
    const double in8[6] = {1.0, 2.5, -2.5, 300.0, -300.0, NAN};
    const int8_t want8[6] = {1, 2, -2, 127, -128, 0};
    for (int i = 0; i < 6; i++) {
        iohw_dtype_store(IOHW_S8, s8, (size_t)i, in8[i]);
        cr_expect_eq(s8[i], want8[i], "s8 %g", in8[i]);
        cr_expect_eq(iohw_dtype_load(IOHW_S8, s8, (size_t)i), (double)want8[i]);
    }
    iohw_dtype_store(IOHW_U8, u8, 0, 3.5);
    iohw_dtype_store(IOHW_U8, u8, 1, -1.0);
    iohw_dtype_store(IOHW_U8, u8, 2, 255.4);
    cr_expect(u8[0] == 4 && u8[1] == 0 && u8[2] == 255, "%d %d %d", u8[0], u8[1], u8[2]);
    iohw_dtype_store(IOHW_S32, s32, 0, 3e9);
    iohw_dtype_store(IOHW_S32, s32, 1, -7.5);
    cr_expect(s32[0] == INT32_MAX && s32[1] == -8, "%d %d", s32[0], s32[1]);
}

Test(dtype, a_bad_name_is_refused_and_leaves_the_type_alone)
{
    iohw_dtype dt = IOHW_F64;
    cr_expect_eq(iohw_dtype_parse("F32", &dt), -1);
    cr_expect_eq(iohw_dtype_parse("f8", &dt), -1);
    cr_expect_eq(iohw_dtype_parse("", &dt), -1);
    cr_expect_eq(iohw_dtype_parse("f32 ", &dt), -1);
    cr_expect_eq(iohw_dtype_parse(NULL, &dt), -1);
    cr_expect_eq(dt, IOHW_F64, "a failed parse leaves *dt alone");
}

Test(dtype, round_gives_the_nearest_value_of_each_type)
{
    /* f32: 1 + 2^-24 ties to 1; 2^-50 more goes to 1 + 2^-23. */
    cr_expect_eq(iohw_dtype_round(IOHW_F32, 1.0 + 0x1p-24), 1.0);
    cr_expect_eq(iohw_dtype_round(IOHW_F32, 1.0 + 0x1p-24 + 0x1p-50),
                 1.0 + 0x1p-23);
    cr_expect_eq(iohw_dtype_round(IOHW_F64, 1.0 + 0x1p-52), 1.0 + 0x1p-52);
    /* f16: 0.1 lies between 0x2E66 = 1638*2^-14 and 0x2E67; nearer to the
     * latter (0.1*2^14 = 1638.4 -> 1638). */
    cr_expect_eq(iohw_dtype_round(IOHW_F16, 0.1), 1638 * 0x1p-14);
    /* bf16: 0.1 = 1.6 * 2^-4; 1.6*128 = 204.8 -> 205 * 2^-11. */
    cr_expect_eq(iohw_dtype_round(IOHW_BF16, 0.1), 205 * 0x1p-11);
    cr_expect(isinf(iohw_dtype_round(IOHW_F16, 1e6)));
}

/* Load, store and the array conversions use each type's layout of bits. */
static const double conv_values[4] = {1.5, -0.1, 65520.0, 0x1p-25};

Test(dtype, f16_arrays_hold_the_patterns_worked_out_above)
{
    uint16_t h[4];
    double back[4];
    iohw_dtype_from_double(IOHW_F16, conv_values, h, 4);
    cr_expect_eq(h[0], 0x3E00); /* 1.5 = 1.1b */
    cr_expect_eq(h[2], 0x7C00);
    cr_expect_eq(h[3], 0x0000);
    iohw_dtype_to_double(IOHW_F16, h, back, 4);
    cr_expect_eq(back[0], 1.5);
    cr_expect(isinf(back[2]));
    cr_expect_eq(iohw_dtype_load(IOHW_F16, h, 1), iohw_f16_to_double(h[1]));
}

Test(dtype, a_bf16_store_writes_the_upper_half_of_the_float)
{
    uint16_t h[4];
    iohw_dtype_store(IOHW_BF16, h, 0, 1.5);
    cr_expect_eq(h[0], 0x3FC0); /* 1.5 = 0x3FC0 */
}

Test(dtype, f32_arrays_are_plain_float_casts)
{
    float f[4];
    iohw_dtype_from_double(IOHW_F32, conv_values, f, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(f[i], (float)conv_values[i], "[%d]", i);
    cr_expect_eq(iohw_dtype_load(IOHW_F32, f, 1), (double)(float)-0.1);
}

Test(dtype, f64_arrays_are_unchanged)
{
    double d[4], back[4];
    iohw_dtype_from_double(IOHW_F64, conv_values, d, 4);
    iohw_dtype_to_double(IOHW_F64, d, back, 4);
    for (int i = 0; i < 4; i++)
        cr_expect_eq(back[i], conv_values[i], "[%d]", i);
    iohw_dtype_store(IOHW_F64, d, 2, -3.25);
    cr_expect_eq(d[2], -3.25);
}
