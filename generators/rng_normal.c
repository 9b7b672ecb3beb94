/*
 * generators/rng_normal.c - normal numbers from the generator: the
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
#include "generators/generators.h"

#include <math.h>
#include <pthread.h>

#define LAYERS 256

static const double ZIG_R = 3.6541528853610088;
static const double LN2 = 0.693147180559945309417232121458;

static double X[LAYERS + 1];
static double F[LAYERS + 1];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

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
}

/* A uniform in (0, 1]. */
static double uniform_open0(iohw_rng *r)
{
    return 1.0 - iohw_rng_uniform(r);
}

double iohw_rng_normal(iohw_rng *r)
{
    pthread_once(&tables_once, make_tables);
    for (;;) {
        const uint64_t u = iohw_rng_next(r);
        const int i = (int)(u & (LAYERS - 1));
        const double sign = (u >> 8) & 1 ? -1.0 : 1.0;
        const double x = (double)(u >> 11) * 0x1.0p-53 * X[i];

        if (x < X[i + 1])
            return sign * x;
        if (i == 0) {
            double a, b;
            do {
                a = -zig_log(uniform_open0(r)) / ZIG_R;
                b = -zig_log(uniform_open0(r));
            } while (b + b <= a * a);
            return sign * (ZIG_R + a);
        }
        if (F[i] + iohw_rng_uniform(r) * (F[i + 1] - F[i]) < zig_f(x))
            return sign * x;
    }
}
