/*
 * explore/shrink_internal.h - what the files of `iohw shrink` share: the
 * list of reductions (explore/shrink_steps.c).
 */
#ifndef IOHW_SHRINK_INTERNAL_H
#define IOHW_SHRINK_INTERNAL_H

#include <stddef.h>

#include "iohw/backend.h"

/* Number of reduction kinds, in the order they are tried: lower rank,
 * batch, groups, channels per group (in, out), no bias, default data and
 * weight layouts, then per axis the input size, kernel, stride, dilation,
 * pad_begin, pad_end and output_padding. */
int iohw__shrink_kind_count(void);

/* Candidate j (0, 1, ...; most reduced first) of reduction kind `kind`
 * applied to p: writes the finished problem to *q and a description such
 * as "k[W] 3 -> 1" to what (size n).  Returns 1 for a valid candidate, 0
 * when candidate j exists but is not a valid problem (skip it), -1 when
 * the kind has no candidate j. */
int iohw__shrink_candidate(const iohw_problem *p, int kind, int j,
                           iohw_problem *q, char *what, size_t n);

#endif
