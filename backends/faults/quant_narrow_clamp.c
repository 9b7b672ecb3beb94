/*
 * backends/faults/quant_narrow_clamp.c - quantized: an s8 output clamped
 * to the narrow range [-127, 127] (the symmetric range of int8 weights in
 * TensorRT and TFLite's per-channel scheme) where the definition saturates
 * to [-128, 127] (specification section 11.1).  A u8 output is right.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_narrow_clamp";
const char iohw__fault_about[] =
    "seeded fault: quantized, an s8 output clamped to [-127, 127]";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype != IOHW_S8)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_narrow_clamp: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r, err);
        const int64_t v = fw->q.zp_y + r;
        iohw__fault_qput(fw, yc, i, v < -127 ? -127 : v, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
