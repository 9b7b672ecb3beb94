/*
 * oracle/problem.h - a transposed-convolution problem: defaults, the
 * output-size formula, validation and element counts.
 *
 * The problem type is the ABI's iohw_problem (iohw/backend.h), used as is
 * everywhere in iohw so that what a case holds is what a backend receives.
 */
#ifndef IOHW_PROBLEM_H
#define IOHW_PROBLEM_H

#include <stdint.h>

#include "iohw/backend.h"
#include "oracle/error.h"

/* Largest element count iohw accepts for one tensor (2^31): a sane memory
 * limit that also keeps every index product inside int64_t. */
#define IOHW_MAX_ELEMENTS ((int64_t)1 << 31)

/* Zeroes *p, sets struct_size, and the defaults of the descriptor: batch 1,
 * groups 1, stride 1, dilation 1, dtype f32, empty layouts (filled in by
 * iohw_problem_finish). rank and channels stay 0. */
void iohw_problem_init(iohw_problem *p);

/* The output size of axis a (0-based among the first rank axes) by the
 * formula of the specification; may be < 1 for an invalid problem. */
int64_t iohw_problem_out_axis(const iohw_problem *p, int a);

/* Fills the default layouts where they are empty (NC+spatial, IO+spatial),
 * computes out_size, then validates; returns 0 or -1 with the reason. */
int iohw_problem_finish(iohw_problem *p, iohw_error *err);

/* Checks everything: rank, every extent >= its minimum, groups dividing
 * both channel counts, out_size equal to the formula and >= 1, the dtype
 * (and a quantized problem's members, oracle/quant_problem.h),
 * has_bias 0 or 1, the direction (backward: a float dtype; BWD_D: no
 * bias), reserved 0, both layout strings valid for the rank, and every tensor
 * within IOHW_MAX_ELEMENTS.  The message names the first wrong member. */
int iohw_problem_validate(const iohw_problem *p, iohw_error *err);

/* 1 when some axis has output_padding >= max(stride, dilation): defined and
 * computed by the oracle, but tagged op-beyond-limit. */
int iohw_problem_beyond_limit(const iohw_problem *p);

/* Element counts of the four tensors (bias: C_out, or 0 without bias).
 * Only meaningful for a validated problem. */
int64_t iohw_problem_x_count(const iohw_problem *p);
int64_t iohw_problem_w_count(const iohw_problem *p);
int64_t iohw_problem_y_count(const iohw_problem *p);
int64_t iohw_problem_bias_count(const iohw_problem *p);
/* dy has y's shape: the same count as y. */
#define iohw_problem_dy_count(p) iohw_problem_y_count(p)

/* The multiply-adds of a validated problem: input elements times
 * C_out / groups times the kernel's taps. */
double iohw_problem_macs(const iohw_problem *p);

/* Directions (specification section 13). */

/* 1 when p is a backward problem (direction BWD_D or BWD_W). */
int iohw_problem_is_backward(const iohw_problem *p);

/* benchdnn's name of p's direction with its bias: "FWD_D", "FWD_B",
 * "BWD_D", "BWD_W" or "BWD_WB"; "?" for an unknown direction. */
const char *iohw_direction_name(const iohw_problem *p);

/* Parses a direction as a user types it (benchdnn's five names, any case:
 * "bwd_wb", "FWD_B"): 0 with the direction and the bias it implies, -1
 * for anything else. */
int iohw_direction_parse(const char *s, int32_t *direction, int32_t *has_bias);

/* Element count of the direction's output: y (forward), dx (BWD_D, x's
 * count), or dw followed by db (BWD_W: w's count plus bias's).  The case's
 * output buffers (y, y_f64, err_bound of cases/case.h) hold this many. */
int64_t iohw_problem_out_count(const iohw_problem *p);

/* Spatial letters of a rank: "W", "HW", "DHW"; NULL for another rank. */
const char *iohw_spatial_letters(int rank);

#endif
