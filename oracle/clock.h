/*
 * oracle/clock.h - the tool's one clock: CLOCK_MONOTONIC, for deadlines,
 * progress and timings.  It sits in the lowest module so that every module
 * (the suite writer in generators/ as much as the sandbox) reads the same
 * clock.
 */
#ifndef IOHW_CLOCK_H
#define IOHW_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t iohw_clock_ns(void);

/* The same in seconds. */
double iohw_clock_s(void);

#endif
