/*
 * judge/diagnose_qcauses.h - more misreadings of the quantized definition
 * (specification section 11.5), each modelled on a bug that int8 kernels
 * ship: computed here on the canonical case (iohw__dgq_canon) through the
 * acc_fn and finish hooks of judge/diagnose_quant.h, and listed in the
 * TABLE of judge/diagnose_quant.c.
 */
#ifndef IOHW_DIAGNOSE_QCAUSES_H
#define IOHW_DIAGNOSE_QCAUSES_H

#include <stdint.h>

#include "judge/diagnose_quant.h"

/* Zero-insertion formulation padding with 0 instead of zp_x: every tap of
 * an output that falls on an inserted zero or on the border adds
 * (0 - zp_x) * (w_q - zp_w) (iohw__dgq_acc_fn). */
int iohw__dgq_pad_zero_acc(const iohw__dgq_canon *c, int64_t *acc);

/* 16-bit saturation of pairs of adjacent products (pmaddubsw without
 * VNNI): x as u8 (s8 x shifted by +128), w as s8 (u8 w shifted by -128),
 * the products of input channels 2j and 2j+1 of a group at one input
 * position and tap summed and saturated to int16 (iohw__dgq_acc_fn). */
int iohw__dgq_sat16_acc(const iohw__dgq_canon *c, int64_t *acc);

/* x's bytes read with the other signedness (u8 as int8, s8 as uint8),
 * zp_x unchanged (iohw__dgq_acc_fn). */
int iohw__dgq_x_sign_acc(const iohw__dgq_canon *c, int64_t *acc);

/* Per-channel M indexed by the channel within its group: M[m], not
 * M[g*Mg + m] (iohw__dgq_finish_fn). */
int iohw__dgq_pc_group_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                              int64_t *out);

/* The narrow clamp: [-127, 127] for s8, [1, 255] for u8, instead of the
 * type's whole range. */
int iohw__dgq_narrow_clamp_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                                  int64_t *out);

/* The clamp to [qmin, qmax] applied to R(M * acc) before zp_y is added:
 * saturate(zp_y + clamp(R(M * acc))). */
int iohw__dgq_clamp_first_finish(const iohw__dgq_canon *c, int64_t oc, int64_t acc,
                                 int64_t *out);

#endif
