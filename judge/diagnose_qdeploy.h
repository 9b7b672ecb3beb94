/*
 * judge/diagnose_qdeploy.h - the misreadings of the quantized definition
 * (specification section 11) that only the scales and sizes people deploy
 * show (generators' qdeploy, qwide, qshift fills): each is a hook of
 * judge/diagnose_quant.h, reached through a row of its TABLE.
 *
 *   requantization computed in binary32   M = fl(fl(s_x * s_w) / s_y) (fixed:
 *       (float)multiplier * 2^(shift - 31)), fl((float)acc * M) rounded in
 *       float: rintf (half_even), roundf (half_away, gemmlowp),
 *       floorf(v + 0.5f) (half_up); section 11.2
 *   int32 accumulator wrapped             the exact accumulator reduced to
 *       int32 in two's complement, then requantized exactly; section 11.1
 *   fixed-point left shift ignored        a positive shift taken as 0
 *       (M = multiplier * 2^(min(shift, 0) - 31)); section 11.2
 */
#ifndef IOHW_DIAGNOSE_QDEPLOY_H
#define IOHW_DIAGNOSE_QDEPLOY_H

#include <stdint.h>

#include "judge/diagnose_quant.h"

/* iohw__dgq_finish_fn: the binary32 requantization. */
int iohw__dgq_f32_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out);

/* iohw__dgq_acc_fn: the definition's accumulators wrapped to int32. */
int iohw__dgq_wrap_acc(const iohw__dgq_canon *c, int64_t *acc);

/* iohw__dgq_finish_fn: the requantization with a positive shift taken as 0. */
int iohw__dgq_shift_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc, int64_t *out);

/* 1 when q's fixed-form M has a positive shift (the left-shift misreading
 * changes something); n values of q->shift are read. */
int iohw__dgq_has_left_shift(const iohw_quant *q, int64_t n);

/* 1 when the binary32 misreading can be told apart on q: not on an s32
 * y, and in the gemmlowp mode only when some multiplier is not a binary32
 * value (otherwise, inside the bound of section 11.2, it is gemmlowp's
 * ties rounded half away from zero, which has its own name). */
int iohw__dgq_f32_distinct(const iohw_quant *q, int64_t n);

#endif
