/*
 * backends/faults/quant_f32_requant.c - quantized: the requantization is
 * computed in binary32, as float kernels and converters do (specification
 * section 11.2): M = fl(fl(s_x * s_w) / s_y) (fixed form: the multiplier
 * converted to float times 2^(shift - 31)), then fl((float)acc * M)
 * rounded in float (rintf for half_even, roundf for half_away and
 * gemmlowp, floorf(v + 0.5f) for half_up).  Exact inside the bound of
 * section 11.2; off by one near ties outside it, and (float)acc rounds
 * accumulators past 2^24.
 */
#include <math.h>
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_f32_requant";
const char iohw__fault_about[] =
    "seeded fault: quantized, the requantization computed in binary32";

static int64_t f32_requant(const iohw_quant *q, int64_t oc, int64_t acc)
{
    const int64_t j = q->per_channel ? oc : 0;
    volatile float m, v, r;
    if (q->m_form == IOHW_QM_SCALES) {
        volatile float prod = q->s_x * q->s_w[j];
        m = prod / q->s_y;
    } else {
        m = ldexpf((float)q->multiplier[j], (int)q->shift[j] - 31);
    }
    v = (float)acc * m;
    switch (q->rounding) {
    case IOHW_ROUND_HALF_EVEN: r = rintf(v); break;
    case IOHW_ROUND_HALF_UP: { volatile float h = v + 0.5f; r = floorf(h); break; }
    default: r = roundf(v); break;
    }
    return fabsf(r) > 1e12f ? (r > 0 ? (int64_t)1 << 40 : -((int64_t)1 << 40)) : (int64_t)r;
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_f32_requant: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++)
        iohw__fault_qput(fw, yc, i,
                         fw->q.zp_y + f32_requant(&fw->q, (i / fw->OV) % fw->p.out_channels,
                                                  acc[i]), 0);
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
