/*
 * backends/faults/quant_no_saturation.c - quantized: zp_y + R(M * acc)
 * stored without clamping, so values beyond the type wrap around (the
 * low 8 bits kept).
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_no_saturation";
const char iohw__fault_about[] =
    "seeded fault: quantized, the output wraps around instead of saturating";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_no_saturation: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r, err);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + r, 1);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
