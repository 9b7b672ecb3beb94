/*
 * backends/faults/quant_zp_y_first.c - quantized: the output zero point is
 * added before the requantization rounds, R(zp_y + M * acc) instead of
 * zp_y + R(M * acc) (float requantization that adds zp_y before rint;
 * specification section 11.3).  Differs only at exact ties: in half_even
 * when zp_y is odd, in half_away when M * acc and zp_y + M * acc have
 * different signs; never in half_up, nor in gemmlowp (zp_y is added to an
 * integer there).
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_zp_y_first";
const char iohw__fault_about[] =
    "seeded fault: quantized, zp_y added before rounding, R(zp_y + M*acc)";

/* R(zp_y + v), v = M[oc] * acc.  v lies in [lo, hi] with lo = v rounded
 * half down and hi = v rounded half up; they differ only at a tie
 * v = lo + 1/2, and there zp_y + v is the tie zp_y + lo + 1/2, which the
 * case's mode rounds by itself: to the even of the two, or away from 0.
 * Elsewhere (and in half_up, gemmlowp) the result is zp_y + R(v). */
static int round_with_zp(const iohw_quant *q, int64_t oc, int64_t acc, int64_t *r,
                         iohw_error *err)
{
    iohw_quant up = *q;
    int64_t hi, lo, rv;
    up.rounding = IOHW_ROUND_HALF_UP;
    if (iohw_quant_requantize(&up, oc, acc, &hi, err) != 0 ||
        iohw_quant_requantize(&up, oc, -acc, &lo, err) != 0 ||
        iohw_quant_requantize(q, oc, acc, &rv, err) != 0)
        return -1;
    const int64_t below = q->zp_y - lo, above = below + 1; /* around zp_y + v */
    *r = q->zp_y + rv;
    if (hi == -lo)
        return 0;
    if (q->rounding == IOHW_ROUND_HALF_EVEN)
        *r = below % 2 == 0 ? below : above;
    else if (q->rounding == IOHW_ROUND_HALF_AWAY)
        *r = below >= 0 ? above : below;
    return 0;
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_zp_y_first: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r = 0;
        rc = round_with_zp(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r, err);
        if (rc == 0)
            iohw__fault_qput(fw, yc, i, r, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
