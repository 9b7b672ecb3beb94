/*
 * backends/faults/quant_bias_after.c - quantized: the int32 bias added to
 * the output after the requantization (as if it were at the output's
 * scale) instead of to the accumulator.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_bias_after";
const char iohw__fault_about[] =
    "seeded fault: quantized, the bias added after the requantization";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32 || fw->bias == NULL)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 0, acc, err)
                         : iohw_error_set(err, "quant_bias_after: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t oc = (i / fw->OV) % fw->p.out_channels;
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, oc, acc[i], &r, err);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + r + fw->bias[oc], 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
