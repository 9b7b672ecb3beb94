/*
 * backends/faults/quant_shift_left.c - quantized, fixed form: a positive
 * shift (a multiplier M >= 1/2, specification section 11.2) is ignored,
 * as in kernels written for M < 1 only (TFLite's
 * MultiplyByQuantizedMultiplierSmallerThanOne; its add kernel did not
 * support real_output_multiplier >= 1 before tensorflow/tensorflow#61698,
 * docs/PITFALLS.md): M is taken as multiplier * 2^(min(shift, 0) - 31), so the
 * output is about 2^shift times too small.  Right shifts are exact.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_shift_left";
const char iohw__fault_about[] =
    "seeded fault: quantized, fixed form, a positive (left) shift ignored";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    iohw_quant q = fw->q;
    const int64_t n = q.per_channel ? fw->p.out_channels : 1;
    int32_t *shift = malloc((size_t)n * sizeof *shift);
    if (shift == NULL)
        return iohw_error_set(err, "quant_shift_left: out of memory");
    if (q.y_dtype != IOHW_S32 && q.m_form == IOHW_QM_FIXED) {
        for (int64_t j = 0; j < n; j++)
            shift[j] = q.shift[j] > 0 ? 0 : q.shift[j];
        q.shift = shift;
    }
    const int rc = iohw_quant_conv_transpose(&fw->p, &q, fw->x, fw->w, fw->bias, yc, err);
    free(shift);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
