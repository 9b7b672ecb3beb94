/*
 * tests/support/reference_forms.h - test-only formulations of the
 * transposed convolution, written from the mathematics and sharing no code
 * with the oracle.  Tensors are canonical double arrays:
 *   x[N][C_in][L...], w[C_in][Mg][K...] (IOHW), bias[C_out] or NULL,
 *   y[N][C_out][O...], with O from the output-size formula.
 * Only the problem's sizes are read (not out_size, layouts or dtype).
 */
#ifndef IOHW_TEST_REFERENCE_FORMS_H
#define IOHW_TEST_REFERENCE_FORMS_H

#include <stdint.h>

#include "iohw/backend.h"

/* Output size of axis a by the formula
 * (L - 1)*S - P_begin - P_end + D*(K - 1) + A + 1. */
int64_t iohw_ref_out_axis(const iohw_problem *p, int a);

/* Gather form: zero-insert x by the stride, pad every axis by
 * D*(K-1) - P_begin before and D*(K-1) - P_end + A after (a negative pad
 * crops), then run a stride-1 forward convolution with dilation D and the
 * spatially flipped kernel, the weight indexed [c_in][m].  Returns 0, or -1
 * when memory runs out. */
int iohw_ref_gather(const iohw_problem *p, const double *x, const double *w,
                    const double *bias, double *y);

/* The forward convolution whose adjoint conv_transpose is (no bias):
 *   z[n, g*Cg + c, i] = sum_{m < Mg} sum_k w[g*Cg + c, m, k]
 *                         * y[n, g*Mg + m, i*S + k*D - P_begin]
 * with y taken as 0 outside [0, O).  z has the shape of x.  Returns 0. */
int iohw_ref_conv_forward(const iohw_problem *p, const double *y,
                          const double *w, double *z);

#endif
