/*
 * backends/faults/quant_x_sign.c - quantized: x's bytes read with the
 * other signedness, a u8 x as int8 (bytes from 128 on become b - 256) or
 * an s8 x as uint8 (negative values become b + 256), the zero point
 * unchanged (specification section 11.1: x_q is of x's dtype).  With the
 * oracle: acc' = acc -+ 256 * S, S the accumulator of x_q = 1 where the
 * byte's high bit is set and 0 elsewhere (zp_x = 0, no bias).
 */
#include <stdlib.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_quant_x_sign";
const char iohw__fault_about[] =
    "seeded fault: quantized, x's bytes read with the other signedness";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    const int64_t nx = iohw_problem_x_count(&fw->p);
    const int64_t sign = fw->q.x_dtype == IOHW_U8 ? -256 : 256;
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int64_t *high = malloc((size_t)fw->ny * sizeof *high);
    uint8_t *bits = malloc((size_t)nx);
    int rc = acc != NULL && high != NULL && bits != NULL
                 ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                 : iohw_error_set(err, "quant_x_sign: out of memory");
    for (int64_t i = 0; rc == 0 && i < nx; i++)
        bits[i] = fw->x[i] >= 128;
    const int32_t zp_x = fw->q.zp_x;
    fw->q.zp_x = 0;
    if (rc == 0)
        rc = iohw__fault_qacc(fw, bits, fw->w, 0, high, err);
    fw->q.zp_x = zp_x;
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t a = acc[i] + sign * high[i];
        int64_t r = a;
        if (fw->q.y_dtype != IOHW_S32)
            rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, a, &r, err);
        iohw__fault_qput(fw, yc, i, (fw->q.y_dtype != IOHW_S32 ? fw->q.zp_y : 0) + r, 0);
    }
    free(acc);
    free(high);
    free(bits);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
