/*
 * backends/faults/quant_clamp_first.c - quantized: R(M * acc) clamped to
 * the output type's [qmin, qmax] before zp_y is added, then the sum
 * saturated: saturate(zp_y + clamp(R(M * acc))) instead of
 * saturate(zp_y + R(M * acc)) (specification section 11.1).  The bounds
 * were meant as [qmin - zp_y, qmax - zp_y]; with a u8 output every
 * negative R(M * acc) becomes zp_y.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_clamp_first";
const char iohw__fault_about[] =
    "seeded fault: quantized, R(M*acc) clamped to the type before zp_y is added";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    const int64_t lo = fw->q.y_dtype == IOHW_S8 ? -128 : 0, hi = lo + 255;
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_clamp_first: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r, err);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + (r < lo ? lo : r > hi ? hi : r), 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
