/*
 * generators/rng.c - the deterministic random number generator.
 *
 * Definition:
 *   seeding   s[0..3] = the first four outputs of splitmix64 started at
 *             `seed` (Steele, Lea, Flood 2014; the reference seeding of
 *             xoshiro), so every 64-bit seed gives a valid nonzero state;
 *   next      xoshiro256** (Blackman, Vigna 2018):
 *               result = rotl(s1 * 5, 7) * 9, then the linear update;
 *   uniform   the top 53 bits of next, times 2^-53: a double in [0, 1);
 *   normal    the ziggurat method (rng_normal.c);
 *   range     an integer in [lo, hi], unbiased by rejection.
 *
 * Everything is integer arithmetic or exactly rounded IEEE operations, so
 * the same seed gives the same bits on every machine.
 */
#include "generators/generators.h"

static uint64_t rotl64(uint64_t v, int k)
{
    return (v << k) | (v >> (64 - k));
}

static uint64_t splitmix64_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

void iohw_rng_seed(iohw_rng *r, uint64_t seed)
{
    uint64_t state = seed;
    for (int i = 0; i < 4; i++)
        r->s[i] = splitmix64_next(&state);
}

uint64_t iohw_rng_next(iohw_rng *r)
{
    uint64_t *s = r->s;
    const uint64_t result = rotl64(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl64(s[3], 45);
    return result;
}

double iohw_rng_uniform(iohw_rng *r)
{
    return (double)(iohw_rng_next(r) >> 11) * 0x1.0p-53;
}

int64_t iohw_rng_range(iohw_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    /* span = hi - lo + 1 in unsigned arithmetic; 0 means all 2^64 values. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    uint64_t v = iohw_rng_next(r);
    if (span != 0) {
        /* Reject the lowest (2^64 mod span) values so every residue is
         * equally likely. */
        uint64_t threshold = (0 - span) % span;
        while (v < threshold)
            v = iohw_rng_next(r);
        v %= span;
    }
    return (int64_t)((uint64_t)lo + v);
}
