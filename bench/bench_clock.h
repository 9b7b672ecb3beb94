/*
 * bench/bench_clock.h - what the benchmarks share: a monotonic clock in
 * seconds and the comparison qsort needs for medians.
 */
#ifndef IOHW_BENCH_CLOCK_H
#define IOHW_BENCH_CLOCK_H

#include <time.h>

static inline double bench_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static inline int bench_cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#endif
