/*
 * backends/faults/quant_pad_zero.c - quantized: the zero-insertion
 * formulation (the input dilated by S - 1 inserted values and padded by
 * (K - 1)*D - P, then a direct convolution with the flipped kernel) fills
 * the inserted values and the border with 0 in the quantized domain where
 * the definition's zero is zp_x (specification section 11.1): every tap of
 * an output that falls off a real input adds (0 - zp_x) * (w_q - zp_w).
 *
 * With the oracle: acc' = acc - zp_x * (T[oc] - R[o]), T[oc] the sum of
 * (w_q - zp_w) over all taps of output channel oc (every output of the
 * direct form sees all of them), R[o] the same sum over the taps that reach
 * a real input: the oracle's accumulator with every x_q - zp_x = 1.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_quant_pad_zero";
const char iohw__fault_about[] =
    "seeded fault: quantized, zero insertion and border padded with 0 instead of zp_x";

static int64_t w_value(const fault_qwork *fw, int64_t i)
{
    return fw->q.w_dtype == IOHW_S8 ? (int64_t)(int8_t)fw->w[i] : (int64_t)fw->w[i];
}

/* total[oc] := sum over all taps of channel oc of (w_q - zp_w). */
static void all_taps(const fault_qwork *fw, int64_t *total)
{
    const int64_t C_in = fw->p.in_channels, G = fw->p.groups;
    const int64_t Cg = C_in / G, Mg = fw->p.out_channels / G;
    const int64_t K = iohw_problem_w_count(&fw->p) / (C_in * Mg);
    for (int64_t ci = 0; ci < C_in; ci++)
        for (int64_t m = 0; m < Mg; m++)
            for (int64_t k = 0; k < K; k++)
                total[(ci / Cg) * Mg + m] += w_value(fw, (ci * Mg + m) * K + k) - fw->q.zp_w;
}

/* real[i] := the oracle's accumulator with x_q = 1 and zp_x = 0. */
static int real_taps(fault_qwork *fw, int64_t *real, iohw_error *err)
{
    const int64_t nx = iohw_problem_x_count(&fw->p);
    uint8_t *ones = malloc((size_t)nx);
    if (ones == NULL)
        return iohw_error_set(err, "quant_pad_zero: out of memory");
    memset(ones, 1, (size_t)nx);
    const int32_t zp_x = fw->q.zp_x;
    fw->q.zp_x = 0;
    const int rc = iohw__fault_qacc(fw, ones, fw->w, 0, real, err);
    fw->q.zp_x = zp_x;
    free(ones);
    return rc;
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    const int64_t C_out = fw->p.out_channels;
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int64_t *real = malloc((size_t)fw->ny * sizeof *real);
    int64_t *total = calloc((size_t)C_out, sizeof *total);
    int rc = acc != NULL && real != NULL && total != NULL
                 ? 0 : iohw_error_set(err, "quant_pad_zero: out of memory");
    if (rc == 0)
        rc = iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err);
    if (rc == 0)
        rc = real_taps(fw, real, err);
    if (rc == 0)
        all_taps(fw, total);
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t oc = (i / fw->OV) % C_out;
        const int64_t a = acc[i] - (int64_t)fw->q.zp_x * (total[oc] - real[i]);
        int64_t r = a;
        if (fw->q.y_dtype != IOHW_S32)
            rc = iohw_quant_requantize(&fw->q, oc, a, &r, err);
        iohw__fault_qput(fw, yc, i, (fw->q.y_dtype != IOHW_S32 ? fw->q.zp_y : 0) + r, 0);
    }
    free(acc);
    free(real);
    free(total);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
