/*
 * judge/diagnose_qfixed.h - the misreadings inside gemmlowp's own
 * fixed-point steps (specification section 11.3): the requantization
 * y = zp_y + RoundingDivideByPOT(SaturatingRoundingDoublingHighMul(
 * acc * 2^left, M0), right) with one of its two roundings done otherwise.
 * Finish hooks (iohw__dgq_finish_fn) of judge/diagnose_quant.c's TABLE.
 */
#ifndef IOHW_DIAGNOSE_QFIXED_H
#define IOHW_DIAGNOSE_QFIXED_H

#include <stdint.h>

#include "judge/diagnose_quant.h"

/* The doubling high multiply without its nudge: (a * M0) / 2^31
 * truncated toward zero, then gemmlowp's rounding divide. */
int iohw__dgq_no_nudge(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out);

/* The rounding divide by 2^right done as a plain arithmetic shift
 * (floor) after gemmlowp's doubling high multiply. */
int iohw__dgq_plain_shift(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out);

#endif
