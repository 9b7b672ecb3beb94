/*
 * backends/faults/quant_zp_x.c - quantized: x's zero point not subtracted
 * (the kernel multiplies x_q itself, as if zp_x were 0).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_zp_x";
const char iohw__fault_about[] = "seeded fault: quantized, zp_x not subtracted";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    iohw_quant q = fw->q;
    q.zp_x = 0;
    return iohw_quant_conv_transpose(&fw->p, &q, fw->x, fw->w, fw->bias, yc, err);
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
