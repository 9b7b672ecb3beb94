/*
 * bench/bench_oracle.c - throughput of the oracle (iohw_oracle_run_method,
 * with err_bound and the layout/dtype conversions), in multiply-adds per
 * second: the definition (one thread) beside the tuned kernel on one and two
 * threads, with the ratios fast/definition and t=1/t=2.
 *
 *   bench_oracle [seconds-per-measurement]     (default 0.5)
 *
 * A multiply-add is one product x*w summed into one output element; the
 * count is N * G * Mg * Cg * prod over axes of the valid (i, k) pairs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "bench_clock.h"
#include "generators/generators.h"
#include "oracle/descriptor.h"
#include "oracle/dtype.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

static const char *const problems[] = {
    "n=1 ci=64 co=64 in=32x32 k=3x3 s=2 pad=1 op=1 dt=f32",
    "n=1 ci=64 co=64 in=32x32 k=3x3 s=2 pad=1 op=1 dt=f64",
    "n=1 ci=64 co=64 in=32x32 k=4x4 s=2 pad=1 dt=f32",
    "n=1 ci=64 co=64 in=32x32 k=3x3 s=1 pad=1 dt=f32",
    "n=1 ci=32 co=32 g=4 in=8x8x8 k=3 s=2 dt=f32",
    "n=1 ci=32 co=32 g=4 in=8x8x8 k=3 s=2 dt=f64",
    "n=1 ci=16 co=16 in=65536 k=7 s=2 dt=f32",
    "n=1 ci=16 co=16 in=65536 k=7 s=2 dt=f64",
    NULL,
};

/* Multiply-adds of a problem, counted pair by pair per axis. */
static double count_macs(const iohw_problem *p)
{
    double macs = (double)p->batch * (double)p->in_channels / (double)p->groups *
                  (double)p->out_channels;
    for (uint32_t a = 0; a < p->rank; a++) {
        int64_t pairs = 0;
        for (int64_t i = 0; i < p->in_size[a]; i++)
            for (int64_t k = 0; k < p->kernel[a]; k++) {
                const int64_t o = i * p->stride[a] + k * p->dilation[a] - p->pad_begin[a];
                pairs += o >= 0 && o < p->out_size[a];
            }
        macs *= (double)pairs;
    }
    return macs;
}

static void *random_tensor(iohw_rng *r, iohw_dtype dt, int64_t n)
{
    void *v = malloc((size_t)n * iohw_dtype_size(dt));
    if (v == NULL)
        return NULL;
    for (int64_t i = 0; i < n; i++)
        iohw_dtype_store(dt, v, (size_t)i, iohw_rng_normal(r));
    return v;
}

/* Seconds per run (the best of repeated runs filling `budget` seconds). */
static double time_run(const iohw_problem *p, const void *x, const void *w,
                       iohw_oracle_method method, int threads, double budget)
{
    double best = 1e300, spent = 0.0;
    int reps = 0;
    while (reps < 2 || spent < budget) {
        iohw_oracle_result r;
        iohw_error err;
        const double t0 = bench_now();
        if (iohw_oracle_run_method(p, x, w, NULL, method, threads, &r, &err) != 0) {
            fprintf(stderr, "bench_oracle: %s\n", err.msg);
            exit(1);
        }
        const double dt = bench_now() - t0;
        iohw_oracle_result_free(&r);
        best = dt < best ? dt : best;
        spent += dt;
        reps++;
    }
    return best;
}

int main(int argc, char **argv)
{
    const double budget = argc > 1 ? atof(argv[1]) : 0.5;
    iohw_rng rng;
    iohw_rng_seed(&rng, 1);
    printf("%-54s %10s %10s %10s %10s %9s %6s\n", "problem", "MACs", "def GMAC/s",
           "t=1 GMAC/s", "t=2 GMAC/s", "fast/def", "t1/t2");
    for (int i = 0; problems[i] != NULL; i++) {
        iohw_desc d;
        iohw_error err;
        if (iohw_desc_parse(problems[i], &d, &err) != 0) {
            fprintf(stderr, "bench_oracle: %s\n", err.msg);
            return 1;
        }
        const iohw_problem *p = &d.p;
        void *x = random_tensor(&rng, p->dtype, iohw_problem_x_count(p));
        void *w = random_tensor(&rng, p->dtype, iohw_problem_w_count(p));
        if (x == NULL || w == NULL) {
            fprintf(stderr, "bench_oracle: out of memory\n");
            return 1;
        }
        const double macs = count_macs(p);
        const double td = time_run(p, x, w, IOHW_ORACLE_DEFINITION, 1, budget);
        const double t1 = time_run(p, x, w, IOHW_ORACLE_FAST, 1, budget);
        const double t2 = time_run(p, x, w, IOHW_ORACLE_FAST, 2, budget);
        printf("%-54s %10.3g %10.3f %10.3f %10.3f %9.1f %6.2f\n", problems[i], macs,
               macs / td * 1e-9, macs / t1 * 1e-9, macs / t2 * 1e-9, td / t1, t1 / t2);
        fflush(stdout);
        free(x);
        free(w);
    }
    return 0;
}
