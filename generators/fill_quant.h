/*
 * generators/fill_quant.h - the fills of quantized problems (internal to
 * the generators; generators/fill_quant.c).  Each fill writes x (dtype),
 * w (w_dtype), bias (int32, when the problem has one) and the requant
 * values in the problem's layouts, and may set the problem's output
 * parameters (zp_y, s_y); the case's y is then computed from the result.
 */
#ifndef IOHW_FILL_QUANT_H
#define IOHW_FILL_QUANT_H

#include <stdint.h>

#include "generators/generators.h"
#include "iohw/backend.h"
#include "oracle/error.h"

/* qrandom: uniform inputs, then iohw__quant_fit_output.  The parameters
 * `stated` states (NULL: none) are kept. */
int iohw__fill_qrandom(iohw_problem *p, const iohw_desc *stated, uint64_t seed, void *x,
                       void *w, int32_t *bias, void *requant, iohw_error *err);

/* Writes the quantization parameters `stated` states (s_x, s_y, s_w, the
 * multipliers, the shifts; a list of one value to every channel) over p
 * and requant (specification section 11.4); nothing when stated is NULL or
 * y is s32. */
void iohw__quant_keep_stated(iohw_problem *p, const iohw_desc *stated, void *requant);

/* Chooses zp_y and s_y (scales form) or the multipliers and shifts
 * (fixed form; drawn from rng) from the range of the accumulators of the
 * given inputs, so that outputs span y's range without most saturating;
 * nothing for an s32 y.  x is in p's data layout, w in its weight layout.
 * What `stated` states (NULL: nothing) is kept, already in p and requant. */
int iohw__quant_fit_output(iohw_problem *p, const iohw_desc *stated, const void *x,
                           const void *w, const int32_t *bias, void *requant, iohw_rng *rng,
                           iohw_error *err);

/* A quantized case's inputs (c->p set, c->fill one of the quantized
 * fills, c->seed): allocates and fills x, w, bias and requant; the fill
 * may set c->p's output parameters, except those `stated` states (NULL:
 * none), which are kept. */
int iohw__quant_inputs(iohw_case *c, const iohw_desc *stated, iohw_error *err);

/* A quantized case's outputs from its inputs under problem p: y (exact,
 * iohw_quant_run) and terms_max; y_f64 and err_bound stay NULL. */
int iohw__quant_outputs(iohw_case *c, const iohw_problem *p, iohw_error *err);

/* Fits a quantized descriptor's output parameters as its fill would (the
 * inputs made and dropped; what d states kept), so that it names the case
 * it generates. */
int iohw__quant_fit_desc(iohw_desc *d, iohw_error *err);

#endif
