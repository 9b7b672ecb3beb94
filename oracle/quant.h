/*
 * oracle/quant.h - the quantized transposed convolution (specification
 * section 11, docs/SPEC.md): s8/u8 x and w, int32 bias, an exact int64
 * accumulator, one requantization to s8/u8 (or none, to s32).
 *
 * acc[n, oc, o] = bias_q[oc] + sum (x_q - zp_x) * (w_q - zp_w)
 *                 over the terms of section 1, oc = g*Mg + m;
 * y_q = saturate(zp_y + R(M[oc] * acc), qmin, qmax), R applied to the exact
 * rational value.  The problem (iohw_problem's quantized members) and the
 * requant tensor of the ABI become an iohw_quant with
 * iohw_quant_from_problem (oracle/quant_problem.h).
 */
#ifndef IOHW_QUANT_H
#define IOHW_QUANT_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* The element types (IOHW_S8, IOHW_U8, IOHW_S32), the rounding modes
 * (IOHW_ROUND_*) and the forms of M (IOHW_QM_*) are the ABI's, in
 * iohw/backend.h. */

/* The quantization parameters.  Per-channel arrays hold C_out values along
 * the O axis (index oc = g*Mg + m); per-tensor ones hold one value.  For the
 * s32 output only the dtypes and zp_x, zp_w are read (zp_y must be 0). */
typedef struct iohw_quant {
    int32_t x_dtype, w_dtype, y_dtype;  /* IOHW_S8, IOHW_U8 (y: or IOHW_S32) */
    int32_t zp_x, zp_w, zp_y;           /* in the range of their dtype */
    int32_t rounding;                   /* IOHW_ROUND_* */
    int32_t m_form;                     /* IOHW_QM_SCALES or IOHW_QM_FIXED */
    int32_t per_channel;                /* 0: one M; 1: C_out values */
    float s_x, s_y;                     /* scales form: positive normal */
    const float *s_w;                   /* scales form: 1 or C_out values */
    const int32_t *multiplier;          /* fixed form: [0, 2^31 - 1] */
    const int32_t *shift;               /* fixed form: [-31, 30] */
} iohw_quant;

/* Checks q against the problem (C_out for per-channel arrays), in member
 * order; 0, or -1 with the reason naming the member. */
int iohw_quant_validate(const iohw_problem *p, const iohw_quant *q,
                        iohw_error *err);

/* The same without the arrays (s_w, multiplier, shift): the dtypes, zero
 * points, rounding, form of M, per_channel, and s_x, s_y in the scales
 * form.  An s32 y is checked up to zp_y only. */
int iohw_quant_validate_params(const iohw_quant *q, iohw_error *err);

/* The definition (oracle/quant.c) on canonical tensors: x_q[N][C_in][L...]
 * and w_q[C_in][Mg][K...] of x_dtype and w_dtype (int8_t or uint8_t),
 * bias_q[C_out] int32 (when p->has_bias; else ignored, may be NULL),
 * y_q[N][C_out][O...] of y_dtype, overwritten.  p must pass
 * iohw_problem_validate; its layouts and dtype are not used.  Fails with the
 * reason on a bad argument, and in the gemmlowp mode when acc * 2^max(sh, 0)
 * leaves int32 (such a case is invalid). */
int iohw_quant_conv_transpose(const iohw_problem *p, const iohw_quant *q,
                              const void *x_q, const void *w_q,
                              const int32_t *bias_q, void *y_q,
                              iohw_error *err);

/* The accumulators alone, exactly: acc[N][C_out][O...] (int64) :=
 * bias_q[oc] (when p->has_bias) + the terms of section 11.1, with the
 * dtypes and zp_x, zp_w of q (its y_dtype, zp_y and M are not read).
 * Unlike an s32 y (which saturates), an accumulator past 2^31 is kept
 * (specification section 11.1: |acc| < 2^50).  0, or -1 with the reason. */
int iohw_quant_accumulate(const iohw_problem *p, const iohw_quant *q, const void *x_q,
                          const void *w_q, const int32_t *bias_q, int64_t *acc,
                          iohw_error *err);

/* R(M * acc) for one accumulator and one output channel's M (entry `oc` of
 * per-channel arrays, entry 0 otherwise), before zp_y and saturation;
 * *r is clamped to [-2^40, 2^40] (any such value saturates every dtype).
 * q must be valid.  0, or -1 in the gemmlowp overflow above. */
int iohw_quant_requantize(const iohw_quant *q, int64_t oc, int64_t acc,
                          int64_t *r, iohw_error *err);

#endif
