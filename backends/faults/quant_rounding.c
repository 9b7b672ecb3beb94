/*
 * backends/faults/quant_rounding.c - quantized: the requantization rounds
 * ties half away from zero (C's round()) whatever the case asks; a case
 * that asks for half_away gets ties to even instead.  Differs only at
 * exact ties (and, for gemmlowp, where its double rounding shows).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_rounding";
const char iohw__fault_about[] =
    "seeded fault: quantized, ties rounded half away from zero whatever the case asks";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    iohw_quant q = fw->q;
    q.rounding = q.rounding == IOHW_ROUND_HALF_AWAY ? IOHW_ROUND_HALF_EVEN
                                                    : IOHW_ROUND_HALF_AWAY;
    return iohw_quant_conv_transpose(&fw->p, &q, fw->x, fw->w, fw->bias, yc, err);
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
