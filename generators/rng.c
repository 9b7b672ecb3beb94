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
 *   normal    the ziggurat method with 256 layers (below);
 *   range     an integer in [lo, hi], unbiased by rejection.
 *
 * Everything is integer arithmetic or exactly rounded IEEE operations, so
 * the same seed gives the same bits on every machine.
 */
#include "generators/generators.h"

#include <math.h>
#include <pthread.h>
#include <stdatomic.h>

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

/* xoshiro256**; static, so that it is inlined where this file draws (a
 * library built for position-independent code does not inline an exported
 * function). */
static uint64_t next(iohw_rng *r)
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

uint64_t iohw_rng_next(iohw_rng *r)
{
    return next(r);
}

double iohw_rng_uniform(iohw_rng *r)
{
    return (double)(next(r) >> 11) * 0x1.0p-53;
}

int64_t iohw_rng_range(iohw_rng *r, int64_t lo, int64_t hi)
{
    if (hi <= lo)
        return lo;
    /* span = hi - lo + 1 in unsigned arithmetic; 0 means all 2^64 values. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1;
    uint64_t v = next(r);
    if (span != 0) {
        /* Reject the lowest (2^64 mod span) values so every residue is
         * equally likely. */
        uint64_t threshold = (0 - span) % span;
        while (v < threshold)
            v = next(r);
        v %= span;
    }
    return (int64_t)((uint64_t)lo + v);
}

/*
 * Normal numbers: the
 * ziggurat method with 256 layers (Marsaglia, Tsang, "The ziggurat method
 * for generating random variables", J. Stat. Softw. 5(8), 2000).
 *
 * Definition, with f(x) = exp(-x^2 / 2), R = 3.6541528853610088 and
 * V = R f(R) + (the area of f beyond R), the area of every layer:
 *   X[0] = V / f(R), X[1] = R, X[i+1] = f^-1(V / X[i] + f(X[i])),
 *   X[256] = 0; F[i] = f(X[i]).
 *   One draw u of the generator: layer i = bits 0-7 of u, sign = bit 8,
 *   U = the top 53 bits times 2^-53, x = U X[i].
 *   x < X[i+1]     (98.8% of draws) x, signed;
 *   i = 0          the tail beyond R (Marsaglia 1964): a = -ln(U1) / R,
 *                  b = -ln(U2) until 2b > a^2, then R + a, signed;
 *   otherwise      the wedge: x, signed, when F[i] + U1 (F[i+1] - F[i]) <
 *                  f(x), else a new draw.
 *
 * Reproducible bit for bit on every machine: exp and ln are this file's
 * own, made of +, -, *, / and scalings by powers of two (IEEE operations
 * with one result each; the module is compiled without contraction into
 * fused multiply-adds), and sqrt is correctly rounded; no C library
 * function with machine-dependent last bits takes part.  The fast path
 * costs one draw and one multiply where Box-Muller took a log and a cos.
 */
#define LAYERS 256

static const double ZIG_R = 3.6541528853610088;
static const double LN2 = 0.693147180559945309417232121458;

static double X[LAYERS + 1];
static double F[LAYERS + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;
static atomic_int tables_ready;  /* set once X and F are complete */

/* exp(t) for t <= 0, to about 1e-15 relative: t = k ln2 + r with |r| <=
 * ln2 / 2, a degree-13 Taylor polynomial of r (its remainder is below
 * 2^-57), scaled by 2^k. */
static double zig_exp(double t)
{
    const double k = floor(t / LN2 + 0.5);
    const double r = t - k * LN2;
    double p = 1.0;
    for (int n = 13; n >= 1; n--)
        p = 1.0 + p * r / n;
    return ldexp(p, (int)k);
}

/* ln(u) for u > 0: u = m 2^e with m in [sqrt(1/2), sqrt(2)), s = (m - 1)
 * / (m + 1), ln m = 2 (s + s^3/3 + ... + s^23/23) (|s| < 0.172; the
 * remainder is below 2^-60). */
static double zig_log(double u)
{
    int e;
    double m = frexp(u, &e);
    if (m < 0.70710678118654752440) {
        m *= 2.0;
        e--;
    }
    const double s = (m - 1.0) / (m + 1.0);
    const double s2 = s * s;
    double p = 0.0;
    for (int n = 23; n >= 3; n -= 2)
        p = (p + 1.0 / n) * s2;
    return 2.0 * s * (1.0 + p) + e * LN2;
}

static double zig_f(double x)
{
    return zig_exp(-0.5 * x * x);
}

static void make_tables(void)
{
    /* The area of f beyond R, (pi/2)^(1/2) erfc(R / 2^(1/2)), taken as a
     * constant: erfc is not among the functions above. */
    const double tail = 0.00032339576466332126;
    const double V = ZIG_R * zig_f(ZIG_R) + tail;

    X[0] = V / zig_f(ZIG_R);
    X[1] = ZIG_R;
    for (int i = 1; i < LAYERS - 1; i++)
        X[i + 1] = sqrt(-2.0 * zig_log(V / X[i] + zig_f(X[i])));
    X[LAYERS] = 0.0;
    for (int i = 0; i <= LAYERS; i++)
        F[i] = zig_f(X[i]);
    atomic_store_explicit(&tables_ready, 1, memory_order_release);
}

/* A uniform in (0, 1]. */
static double uniform_open0(iohw_rng *r)
{
    return 1.0 - iohw_rng_uniform(r);
}

/* A draw of layer i at x that missed the layer's rectangle (1.2% of
 * draws): from the tail when i = 0, else x when it falls under f in the
 * wedge.  1 with the value in *v when accepted.  Kept out of line, so
 * that the fast path needs no stack frame. */
static __attribute__((noinline)) int outside(iohw_rng *r, int i, double x,
                                             double *v)
{
    if (i == 0) {
        double a, b;
        do {
            a = -zig_log(uniform_open0(r)) / ZIG_R;
            b = -zig_log(uniform_open0(r));
        } while (b + b <= a * a);
        *v = ZIG_R + a;
        return 1;
    }
    *v = x;
    return F[i] + iohw_rng_uniform(r) * (F[i + 1] - F[i]) < zig_f(x);
}

double iohw_rng_normal(iohw_rng *r)
{
    if (!atomic_load_explicit(&tables_ready, memory_order_acquire))
        pthread_once(&tables_once, make_tables);
    for (;;) {
        const uint64_t u = next(r);
        const int i = (int)(u & (LAYERS - 1));
        const double sign = (u >> 8) & 1 ? -1.0 : 1.0;
        const double x = (double)(u >> 11) * 0x1.0p-53 * X[i];
        double v;

        if (x < X[i + 1])
            return sign * x;
        if (outside(r, i, x, &v))
            return sign * v;
    }
}
