/*
 * backends/faults/quant_axis_i.c - quantized: the per-channel scales taken
 * along the weight's axis 0, which in IOHW is I: the kernel dequantizes
 * weight w[ci][m][k] with M[ci] (entry ci mod C_out of the C_out-long
 * list) and sums in double,
 *   v = sum_ci M[ci] * acc_ci + M[oc] * bias[oc],
 * acc_ci the terms of input channel ci, then rounds v in the case's mode
 * (gemmlowp: half away from zero), adds zp_y and saturates.  A per-tensor
 * M is unaffected.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_quant_axis_i";
const char iohw__fault_about[] =
    "seeded fault: quantized, per-channel scales applied along I";

static double m_of(const iohw_quant *q, int64_t j)
{
    if (q->m_form == IOHW_QM_SCALES)
        return (double)q->s_x * (double)q->s_w[j] / (double)q->s_y;
    return ldexp((double)q->multiplier[j], q->shift[j] - 31);
}

static double round_mode(int32_t mode, double v)
{
    if (mode == IOHW_ROUND_HALF_EVEN)
        return nearbyint(v);
    if (mode == IOHW_ROUND_HALF_UP)
        return floor(v + 0.5);
    return round(v);
}

/* v[i] += M[ci] * acc_ci for every input channel ci. */
static int add_channels(fault_qwork *fw, double *v, iohw_error *err)
{
    const int64_t C_in = fw->p.in_channels, nx = iohw_problem_x_count(&fw->p);
    const int64_t L = nx / (fw->p.batch * C_in);
    const int64_t nm = fw->q.per_channel ? fw->p.out_channels : 1;
    uint8_t *x = malloc((size_t)nx);
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = x != NULL && acc != NULL ? 0 : iohw_error_set(err, "quant_axis_i: out of memory");
    for (int64_t ci = 0; rc == 0 && ci < C_in; ci++) {
        for (int64_t i = 0; i < nx; i++) /* only channel ci's terms */
            x[i] = (i / L) % C_in == ci ? fw->x[i] : (uint8_t)fw->q.zp_x;
        rc = iohw__fault_qacc(fw, x, fw->w, 0, acc, err);
        for (int64_t i = 0; rc == 0 && i < fw->ny; i++)
            v[i] += m_of(&fw->q, ci % nm) * (double)acc[i];
    }
    free(x);
    free(acc);
    return rc;
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    double *v = calloc((size_t)fw->ny, sizeof *v);
    int rc = v != NULL ? add_channels(fw, v, err)
                       : iohw_error_set(err, "quant_axis_i: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        const int64_t oc = (i / fw->OV) % fw->p.out_channels;
        if (fw->bias != NULL)
            v[i] += m_of(&fw->q, fw->q.per_channel ? oc : 0) * (double)fw->bias[oc];
        const double r = round_mode(fw->q.rounding, v[i]);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + (int64_t)fmax(fmin(r, 1e12), -1e12), 0);
    }
    free(v);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
