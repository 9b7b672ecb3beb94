/*
 * oracle/dtype.c - element types and exact conversions.
 *
 * Definitions.  A binary format with E exponent bits and M mantissa bits
 * (binary16: E = 5, M = 10; bfloat16: E = 8, M = 7) has
 *   bias  = 2^(E-1) - 1,       emin = 1 - bias,
 *   normal      (-1)^s * (2^M + f) * 2^(e - bias - M),  1 <= e <= 2^E - 2,
 *   subnormal   (-1)^s * f * 2^(emin - M),              e = 0,
 *   e = 2^E - 1: infinity (f = 0) or NaN (f != 0).
 * For a magnitude a with binade B (2^B <= a < 2^(B+1)) let B' = max(B, emin).
 * The quantum (ulp) of the target at a is 2^(B' - M), and
 *   bits = ((B' - emin) << M) + round(a / 2^(B' - M)),
 * which covers normals and subnormals alike: a carry of the rounded
 * significand into the next binade gives the next exponent field, and a
 * carry out of the largest binade gives exactly the infinity pattern.
 * a / 2^(B' - M) is a power-of-two scaling, exact in double, so rounding it
 * to an integer (ties to even) is the one and only rounding.
 *
 * Decoding builds the double's bit pattern directly (no arithmetic), which
 * keeps it independent of the ldexp formulation the tests use.
 */
#include "oracle/dtype.h"

#include <math.h>
#include <string.h>

/* One 16-bit binary format. */
typedef struct fmt16 {
    int mant_bits;   /* M */
    int exp_bits;    /* E */
    uint16_t qnan;   /* canonical quiet NaN, positive */
} fmt16;

static const fmt16 FMT_F16 = {10, 5, 0x7E00u};
static const fmt16 FMT_BF16 = {7, 8, 0x7FC0u};

/* Rounds q (0 <= q < 2^31) to the nearest integer, ties to even, whatever
 * the current rounding mode. */
static uint32_t round_half_even(double q)
{
    double fl = floor(q);
    double frac = q - fl; /* exact: q has at most 53 significant bits */
    uint32_t m = (uint32_t)fl;
    if (frac > 0.5 || (frac == 0.5 && (m & 1u) != 0))
        m += 1;
    return m;
}

static uint16_t encode16(const fmt16 *f, double v)
{
    const int M = f->mant_bits;
    const int bias = (1 << (f->exp_bits - 1)) - 1;
    const int emin = 1 - bias;
    const int emax = bias;
    const uint32_t inf = ((1u << f->exp_bits) - 1u) << M;
    const uint16_t sign = signbit(v) ? 0x8000u : 0u;

    /* Special values. */
    if (isnan(v))
        return (uint16_t)(sign | f->qnan);
    double a = fabs(v);
    if (a == 0.0)
        return sign;
    if (isinf(a) || a >= ldexp(1.0, emax + 1))
        return (uint16_t)(sign | inf);

    /* Binade and quantum. */
    int e2;
    (void)frexp(a, &e2); /* a = r * 2^e2, 0.5 <= r < 1 */
    int B = e2 - 1;
    if (B < emin)
        B = emin;
    double q = ldexp(a, M - B); /* exact, q < 2^(M+1) */

    /* The one rounding; carries propagate into the exponent field, and at
     * most reach the infinity pattern (B <= emax, q rounds to <= 2^(M+1)). */
    uint32_t bits = ((uint32_t)(B - emin) << M) + round_half_even(q);
    return (uint16_t)(sign | bits);
}

static double decode16(const fmt16 *f, uint16_t h)
{
    const int M = f->mant_bits;
    const int bias = (1 << (f->exp_bits - 1)) - 1;
    const uint32_t emask = (1u << f->exp_bits) - 1u;
    const uint64_t sign = (uint64_t)(h >> 15) << 63;
    uint32_t e = ((uint32_t)h >> M) & emask;
    uint64_t frac = (uint64_t)h & ((1u << M) - 1u);
    uint64_t bits;

    if (e == emask) {
        /* Infinity or NaN: all-ones exponent, fraction moved to the top
         * (a NaN stays a NaN, with its quiet bit and payload). */
        bits = sign | ((uint64_t)0x7FF << 52) | (frac << (52 - M));
    } else if (e == 0 && frac == 0) {
        bits = sign;
    } else {
        int64_t e64 = (int64_t)e - bias + 1023;
        if (e == 0) {
            /* Subnormal: normalise so that the hidden bit is set. */
            e64 = 1 - bias + 1023;
            while ((frac & ((uint64_t)1 << M)) == 0) {
                frac <<= 1;
                e64 -= 1;
            }
            frac &= ((uint64_t)1 << M) - 1;
        }
        bits = sign | ((uint64_t)e64 << 52) | (frac << (52 - M));
    }
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

size_t iohw_dtype_size(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return 4;
    case IOHW_F64: return 8;
    case IOHW_F16: return 2;
    case IOHW_BF16: return 2;
    case IOHW_S8: return 1;
    case IOHW_U8: return 1;
    case IOHW_S32: return 4;
    }
    return 0;
}

const char *iohw_dtype_name(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return "f32";
    case IOHW_F64: return "f64";
    case IOHW_F16: return "f16";
    case IOHW_BF16: return "bf16";
    case IOHW_S8: return "s8";
    case IOHW_U8: return "u8";
    case IOHW_S32: return "s32";
    }
    return "?";
}

int iohw_dtype_parse(const char *name, iohw_dtype *dt)
{
    static const iohw_dtype all[] = {IOHW_F32, IOHW_F64, IOHW_F16, IOHW_BF16,
                                     IOHW_S8, IOHW_U8, IOHW_S32};
    if (name == NULL)
        return -1;
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (strcmp(name, iohw_dtype_name(all[i])) == 0) {
            if (dt != NULL)
                *dt = all[i];
            return 0;
        }
    }
    return -1;
}

int iohw_dtype_is_float(iohw_dtype dt)
{
    return dt == IOHW_F32 || dt == IOHW_F64 || dt == IOHW_F16 || dt == IOHW_BF16;
}

double iohw_dtype_unit_roundoff(iohw_dtype dt)
{
    switch (dt) {
    case IOHW_F32: return ldexp(1.0, -24);
    case IOHW_F64: return ldexp(1.0, -53);
    case IOHW_F16: return ldexp(1.0, -11);
    case IOHW_BF16: return ldexp(1.0, -8);
    }
    return NAN;
}

uint16_t iohw_f16_from_double(double v)
{
    return encode16(&FMT_F16, v);
}

double iohw_f16_to_double(uint16_t bits)
{
    return decode16(&FMT_F16, bits);
}

uint16_t iohw_bf16_from_double(double v)
{
    return encode16(&FMT_BF16, v);
}

double iohw_bf16_to_double(uint16_t bits)
{
    return decode16(&FMT_BF16, bits);
}

double iohw_dtype_round(iohw_dtype dt, double v)
{
    switch (dt) {
    case IOHW_F32: return (double)(float)v;
    case IOHW_F64: return v;
    case IOHW_F16: return iohw_f16_to_double(iohw_f16_from_double(v));
    case IOHW_BF16: return iohw_bf16_to_double(iohw_bf16_from_double(v));
    }
    return NAN;
}

double iohw_dtype_load(iohw_dtype dt, const void *base, size_t i)
{
    const unsigned char *p = base;
    switch (dt) {
    case IOHW_F32: {
        float f;
        memcpy(&f, p + i * sizeof f, sizeof f);
        return (double)f;
    }
    case IOHW_F64: {
        double d;
        memcpy(&d, p + i * sizeof d, sizeof d);
        return d;
    }
    case IOHW_F16:
    case IOHW_BF16: {
        uint16_t h;
        memcpy(&h, p + i * sizeof h, sizeof h);
        return dt == IOHW_F16 ? iohw_f16_to_double(h) : iohw_bf16_to_double(h);
    }
    case IOHW_S8: return (double)((const int8_t *)base)[i];
    case IOHW_U8: return (double)((const uint8_t *)base)[i];
    case IOHW_S32: {
        int32_t v;
        memcpy(&v, p + i * sizeof v, sizeof v);
        return (double)v;
    }
    }
    return NAN;
}

/* v rounded to nearest (ties to even) and saturated to an integer type;
 * NaN stores 0. */
static void store_integer(iohw_dtype dt, unsigned char *p, size_t i, double v)
{
    const double lo = dt == IOHW_S8 ? INT8_MIN : dt == IOHW_U8 ? 0 : INT32_MIN;
    const double hi = dt == IOHW_S8 ? INT8_MAX : dt == IOHW_U8 ? UINT8_MAX : INT32_MAX;
    double r = isnan(v) ? 0.0 : v < lo ? lo : v > hi ? hi : v;
    const double fl = floor(r), frac = r - fl;
    r = frac > 0.5 || (frac == 0.5 && fmod(fl, 2.0) != 0.0) ? fl + 1.0 : fl;
    if (dt == IOHW_S8) {
        p[i] = (unsigned char)(int8_t)r;
    } else if (dt == IOHW_U8) {
        p[i] = (unsigned char)r;
    } else {
        const int32_t w = (int32_t)r;
        memcpy(p + i * sizeof w, &w, sizeof w);
    }
}

void iohw_dtype_store(iohw_dtype dt, void *base, size_t i, double v)
{
    unsigned char *p = base;
    switch (dt) {
    case IOHW_F32: {
        float f = (float)v;
        memcpy(p + i * sizeof f, &f, sizeof f);
        return;
    }
    case IOHW_F64:
        memcpy(p + i * sizeof v, &v, sizeof v);
        return;
    case IOHW_F16:
    case IOHW_BF16: {
        uint16_t h = dt == IOHW_F16 ? iohw_f16_from_double(v)
                                    : iohw_bf16_from_double(v);
        memcpy(p + i * sizeof h, &h, sizeof h);
        return;
    }
    case IOHW_S8:
    case IOHW_U8:
    case IOHW_S32:
        store_integer(dt, p, i, v);
        return;
    }
}

void iohw_dtype_to_double(iohw_dtype dt, const void *src, double *dst, size_t n)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = iohw_dtype_load(dt, src, i);
}

void iohw_dtype_from_double(iohw_dtype dt, const double *src, void *dst, size_t n)
{
    /* f32, the common case, in a loop of its own: the same conversion
     * without a call and a switch per element (a tenth of writing a case). */
    if (dt == IOHW_F32) {
        unsigned char *p = dst;
        for (size_t i = 0; i < n; i++) {
            const float f = (float)src[i];
            memcpy(p + i * sizeof f, &f, sizeof f);
        }
        return;
    }
    for (size_t i = 0; i < n; i++)
        iohw_dtype_store(dt, dst, i, src[i]);
}
