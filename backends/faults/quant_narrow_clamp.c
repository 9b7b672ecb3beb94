/*
 * backends/faults/quant_narrow_clamp.c - quantized: the output clamped to
 * the narrow range, [-127, 127] for s8 and [1, 255] for u8 (TensorFlow's
 * fake quantization with narrow_range, the symmetric int8 range of
 * TensorRT and of TFLite's weights) where the definition saturates to the
 * type's whole range (specification section 11.1).
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_narrow_clamp";
const char iohw__fault_about[] =
    "seeded fault: quantized, the output clamped to [-127, 127] (s8) or [1, 255] (u8)";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_narrow_clamp: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r, err);
        const int64_t v = fw->q.zp_y + r, lo = fw->q.y_dtype == IOHW_S8 ? -127 : 1;
        iohw__fault_qput(fw, yc, i, v < lo ? lo : v, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
