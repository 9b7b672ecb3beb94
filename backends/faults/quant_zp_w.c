/*
 * backends/faults/quant_zp_w.c - quantized: the weight's zero point not
 * subtracted (a kernel that assumes a symmetric weight, zp_w = 0).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_zp_w";
const char iohw__fault_about[] = "seeded fault: quantized, zp_w not subtracted";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    iohw_quant q = fw->q;
    q.zp_w = 0;
    return iohw_quant_conv_transpose(&fw->p, &q, fw->x, fw->w, fw->bias, yc, err);
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
