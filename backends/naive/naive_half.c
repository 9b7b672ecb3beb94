/*
 * backends/naive/naive_half.c - binary16 and bfloat16 <-> float, written
 * from the formats' definitions with integer operations only.
 *
 *   binary16: sign 1, exponent 5 (bias 15), fraction 10.
 *   bfloat16: sign 1, exponent 8 (bias 127), fraction 7 - the top half of
 *             a binary32.
 * Both widen to float exactly.  Narrowing rounds to nearest, ties to even;
 * overflow gives infinity; NaN stays a (quiet) NaN.
 */
#include <string.h>

#include "naive.h"

static uint32_t float_bits(float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static float bits_float(uint32_t u)
{
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

float iohw__naive_f16_to_float(uint16_t h)
{
    const uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
    const uint32_t e = (h >> 10) & 0x1Fu;
    uint32_t m = h & 0x3FFu;

    if (e == 0x1Fu) /* infinity or NaN */
        return bits_float(sign | 0x7F800000u | (m << 13));
    if (e != 0) /* normal: rebias 15 -> 127 */
        return bits_float(sign | ((e + 112u) << 23) | (m << 13));
    if (m == 0)
        return bits_float(sign);
    /* Subnormal m * 2^-24: normalise into a float. */
    uint32_t fe = 113; /* float exponent field of 2^-14 */
    while ((m & 0x400u) == 0) {
        m <<= 1;
        fe--;
    }
    return bits_float(sign | (fe << 23) | ((m & 0x3FFu) << 13));
}

uint16_t iohw__naive_float_to_f16(float f)
{
    const uint32_t u = float_bits(f);
    const uint16_t sign = (uint16_t)((u >> 16) & 0x8000u);
    const uint32_t a = u & 0x7FFFFFFFu;
    const uint32_t e = a >> 23;

    if (a > 0x7F800000u) /* NaN: keep the top of the payload, quiet */
        return (uint16_t)(sign | 0x7E00u | ((a >> 13) & 0x3FFu));
    if (a >= 0x477FF000u) /* >= 65520 rounds to infinity; infinity too */
        return (uint16_t)(sign | 0x7C00u);
    if (e >= 113) {
        /* Normal result: drop 13 fraction bits, round half to even (a
         * carry may step into the next exponent, which is right). */
        uint32_t h = ((e - 112u) << 10) | ((a >> 13) & 0x3FFu);
        const uint32_t rest = a & 0x1FFFu;
        if (rest > 0x1000u || (rest == 0x1000u && (h & 1u)))
            h++;
        return (uint16_t)(sign | h);
    }
    if (e < 102) /* below 2^-25: rounds to zero */
        return sign;
    /* Subnormal result: the value is mant * 2^(e - 150), the unit is
     * 2^-24, so the count of units is mant >> (126 - e), rounded. */
    const uint32_t mant = (a & 0x7FFFFFu) | 0x800000u;
    const uint32_t shift = 126u - e; /* 14 .. 24 */
    uint32_t h = mant >> shift;
    const uint32_t rest = mant & ((1u << shift) - 1u);
    const uint32_t half = 1u << (shift - 1);
    if (rest > half || (rest == half && (h & 1u)))
        h++;
    return (uint16_t)(sign | h);
}

float iohw__naive_bf16_to_float(uint16_t h)
{
    return bits_float((uint32_t)h << 16);
}

uint16_t iohw__naive_float_to_bf16(float f)
{
    const uint32_t u = float_bits(f);

    if ((u & 0x7FFFFFFFu) > 0x7F800000u) /* NaN, quiet */
        return (uint16_t)((u >> 16) | 0x40u);
    /* Round half to even on the low 16 bits; a carry may reach infinity,
     * which is the right answer there. */
    const uint32_t rounded = u + 0x7FFFu + ((u >> 16) & 1u);
    return (uint16_t)(rounded >> 16);
}
