/*
 * backends/faults/quant_acc_wrap.c - quantized: the accumulator is an
 * int32 that wraps around (two's complement) where the definition's sum
 * passes 2^31 (specification section 11.1: acc is exact, |acc| < 2^50);
 * the requantization is then exact on the wrapped value.  Wrapping each
 * addition or the finished sum gives the same int32.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_acc_wrap";
const char iohw__fault_about[] =
    "seeded fault: quantized, an int32 accumulator that wraps around";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_acc_wrap: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t wrapped = (int32_t)(uint32_t)((uint64_t)acc[i] & 0xffffffffu);
        int64_t r = wrapped;
        if (fw->q.y_dtype != IOHW_S32)
            rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, wrapped, &r,
                                       err);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + r, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
