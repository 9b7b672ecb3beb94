/*
 * oracle/quant_problem.h - quantized problems (specification section 11,
 * docs/SPEC.md) as the ABI states them: iohw_problem's quantized members,
 * their names and checks, the requant tensor run_quant() receives, and the
 * exact oracle on tensors in the problem's layouts.
 *
 * A problem is quantized when its dtype (x's type) is IOHW_S8 or IOHW_U8.
 * Its w_dtype and y_dtype are 0 (the same as dtype) or a code; bias is
 * int32.  The requant tensor holds n = per_channel ? C_out : 1 values:
 * float s_w[n] in the scales form, int32 multiplier[n] then int32 shift[n]
 * in the fixed form; nothing (n = 0) for an s32 y, which is not
 * requantized.
 */
#ifndef IOHW_QUANT_PROBLEM_H
#define IOHW_QUANT_PROBLEM_H

#include <stddef.h>
#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"
#include "oracle/quant.h"

/* 1 when p's dtype is IOHW_S8 or IOHW_U8. */
int iohw_problem_is_quant(const iohw_problem *p);

/* The element types of w, bias and y: a float problem's dtype for all
 * three; for a quantized one w_dtype and y_dtype (0: dtype) and int32. */
iohw_dtype iohw_problem_w_dtype(const iohw_problem *p);
iohw_dtype iohw_problem_bias_dtype(const iohw_problem *p);
iohw_dtype iohw_problem_y_dtype(const iohw_problem *p);

/* Values per requant array: 0 for a float problem or an s32 y, else 1 or
 * C_out (per_channel).  Bytes of the requant tensor: 4n (scales) or 8n
 * (fixed).  Only meaningful for a validated problem. */
int64_t iohw_quant_requant_count(const iohw_problem *p);
size_t iohw_quant_requant_bytes(const iohw_problem *p);

/* "half_even", "half_away", "half_up", "gemmlowp"; "scales", "fixed";
 * "?" for another code.  The parsers return 0 and set *v, or -1. */
const char *iohw_quant_rounding_name(int32_t rounding);
int iohw_quant_rounding_parse(const char *name, int32_t *v);
const char *iohw_quant_m_form_name(int32_t m_form);
int iohw_quant_m_form_parse(const char *name, int32_t *v);

/* iohw_problem_validate's check of the quantized members: for a quantized
 * problem, iohw_quant_validate_params on them, an s32 y with rounding,
 * m_form, per_channel, s_x and s_y all 0, and the fixed form with s_x and
 * s_y 0; for a float problem, every quantized member 0.  The message names
 * the member. */
int iohw__problem_check_quant(const iohw_problem *p, iohw_error *err);

/* The parameters of a valid quantized problem with the requant tensor's
 * arrays (requant may be NULL for an s32 y), checked with
 * iohw_quant_validate; 0, or -1 with the reason. */
int iohw_quant_from_problem(const iohw_problem *p, const void *requant,
                            iohw_quant *q, iohw_error *err);

/* The oracle on a quantized problem's tensors in its layouts (x of dtype,
 * w of w_dtype, bias int32 or NULL without bias, requant as above, y of
 * y_dtype, overwritten): what run_quant() must give, bit for bit. */
int iohw_quant_run(const iohw_problem *p, const void *x, const void *w,
                   const int32_t *bias, const void *requant, void *y,
                   iohw_error *err);

#endif
