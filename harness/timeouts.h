/*
 * harness/timeouts.h - how long one backend call of a case may take.
 *
 * With the default (iohw_run_options.timeout_scaled = 1) the limit grows
 * with the case's work:
 *
 *   limit = timeout + MACs / IOHW_TIMEOUT_MACS_PER_S
 *
 * where timeout is the floor (IOHW_TIMEOUT_FLOOR_S, set by
 * iohw_run_options_init) and MACs counts multiply-adds as every input element times
 * every weight element of its group, C_out/g * K_1*...*K_r products per
 * input element (an upper bound: products that fall into the padding are
 * counted too).  The rate is far below what a plain scalar loop does in a
 * sanitizer build, so that only a backend that is stuck, not a slow one,
 * reaches the limit.  A fixed --timeout S (timeout_scaled = 0) makes S the
 * limit of every case; 0 means none.
 */
#ifndef IOHW_TIMEOUTS_H
#define IOHW_TIMEOUTS_H

#include <stdint.h>

#include "harness/listing.h"
#include "harness/run.h"
#include "iohw/backend.h"

#define IOHW_TIMEOUT_FLOOR_S 10.0
#define IOHW_TIMEOUT_MACS_PER_S 1e7

/* The limit of one backend call of the entry in seconds (0: none).  An
 * entry whose descriptor does not parse gets the floor. */
double iohw_case_timeout(const iohw_run_options *o, const iohw_listing_entry *e);

/* The limits of every entry of s (malloc'd), or NULL when memory runs out. */
double *iohw_case_timeouts(const iohw_run_options *o, const iohw_listing *s);

#endif
