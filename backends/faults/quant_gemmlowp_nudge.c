/*
 * backends/faults/quant_gemmlowp_nudge.c - quantized: gemmlowp's
 * SaturatingRoundingDoublingHighMul without its nudge, as a hand-written
 * fixed-point kernel may have it: the high half of a * M0 is (a * M0) /
 * 2^31 truncated toward zero, not rounded; RoundingDivideByPOT follows as
 * gemmlowp has it.  Only the cases that ask for gemmlowp's rounding
 * (specification section 11.3) change; every other case is the oracle's.
 */
#include "fault_common.h"

#include <stdlib.h>

const char iohw__fault_name[] = "fault_quant_gemmlowp_nudge";
const char iohw__fault_about[] =
    "seeded fault: quantized, gemmlowp's doubling high multiply without its nudge";

/* gemmlowp's MultiplyByQuantizedMultiplier with a truncating high multiply. */
static int64_t no_nudge(int64_t acc, int64_t mult, int sh)
{
    const int left = sh > 0 ? sh : 0, right = sh > 0 ? 0 : -sh;
    const int64_t a = acc * ((int64_t)1 << left);
    const int64_t h = a * mult / ((int64_t)1 << 31); /* C: toward zero */
    const int64_t mask = ((int64_t)1 << right) - 1;
    const int64_t threshold = (mask >> 1) + (h < 0 ? 1 : 0);
    return (h >> right) + ((h & mask) > threshold ? 1 : 0);
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    const iohw_quant *q = &fw->q;
    if (q->rounding != IOHW_ROUND_GEMMLOWP || q->m_form != IOHW_QM_FIXED ||
        q->y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, q, fw->x, fw->w, fw->bias, yc, err);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_gemmlowp_nudge: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t j = q->per_channel ? (i / fw->OV) % fw->p.out_channels : 0;
        const int64_t a = acc[i] * ((int64_t)1 << (q->shift[j] > 0 ? q->shift[j] : 0));
        if (a < INT32_MIN || a > INT32_MAX) {
            rc = iohw_error_set(err, "quant_gemmlowp_nudge: acc * 2^shift leaves int32");
            break;
        }
        iohw__fault_qput(fw, yc, i, q->zp_y + no_nudge(acc[i], q->multiplier[j], q->shift[j]),
                         0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
