/*
 * backends/faults/quant_sat16.c - quantized: a u8 * s8 kernel without
 * VNNI (x86's pmaddubsw) adds the products of two adjacent input channels
 * in int16, which saturates.  x is taken as u8 (an s8 x shifted by +128)
 * and w as s8 (a u8 w shifted by -128), the zero points corrected apart,
 * so the one error is, per pair of input channels 2j, 2j+1 of a group at
 * one input position and tap, sat16(p0 + p1) - (p0 + p1) added to the
 * accumulator of the output they reach (specification section 11.1 asks
 * for the exact sum).
 */
#include <stdlib.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_quant_sat16";
const char iohw__fault_about[] =
    "seeded fault: quantized, pairs of u8*s8 products saturated to int16";

static int64_t byte_at(int32_t t, const uint8_t *b, int64_t i)
{
    return t == IOHW_S8 ? (int64_t)(int8_t)b[i] : (int64_t)b[i];
}

/* Output offset of input position li and tap ki, or -1 when outside. */
static int64_t reach(const iohw_problem *p, int64_t li, int64_t ki)
{
    int64_t o = 0;
    for (int64_t a = (int64_t)p->rank - 1, lstep = 1, kstep = 1, ostep = 1; a >= 0; a--) {
        const int64_t i = li / lstep % p->in_size[a], k = ki / kstep % p->kernel[a];
        const int64_t at = i * p->stride[a] - p->pad_begin[a] + k * p->dilation[a];
        if (at < 0 || at >= p->out_size[a])
            return -1;
        o += at * ostep;
        lstep *= p->in_size[a];
        kstep *= p->kernel[a];
        ostep *= p->out_size[a];
    }
    return o;
}

static void saturate_pairs(const fault_qwork *fw, int64_t *acc)
{
    const iohw_problem *p = &fw->p;
    const int64_t Cg = p->in_channels / p->groups, Mg = p->out_channels / p->groups;
    const int64_t L = iohw_problem_x_count(p) / (p->batch * p->in_channels);
    const int64_t K = iohw_problem_w_count(p) / (p->in_channels * Mg);
    const int64_t xs = fw->q.x_dtype == IOHW_S8 ? 128 : 0;
    const int64_t ws = fw->q.w_dtype == IOHW_U8 ? -128 : 0;
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t c0 = 0; c0 + 1 < p->in_channels; c0 += 2) {
            if (c0 / Cg != (c0 + 1) / Cg) {
                c0--; /* odd Cg: the group's last channel has no partner */
                continue;
            }
            for (int64_t li = 0; li < L; li++)
                for (int64_t ki = 0; ki < K; ki++) {
                    const int64_t o = reach(p, li, ki);
                    for (int64_t m = 0; o >= 0 && m < Mg; m++) {
                        int64_t s = 0;
                        for (int64_t c = c0; c <= c0 + 1; c++)
                            s += (byte_at(fw->q.x_dtype, fw->x, (n * p->in_channels + c) * L +
                                                                    li) + xs) *
                                 (byte_at(fw->q.w_dtype, fw->w, (c * Mg + m) * K + ki) + ws);
                        const int64_t sat = s < -32768 ? -32768 : s > 32767 ? 32767 : s;
                        acc[(n * p->out_channels + (c0 / Cg) * Mg + m) * fw->OV + o] += sat - s;
                    }
                }
        }
}

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_sat16: out of memory");
    if (rc == 0)
        saturate_pairs(fw, acc);
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r = acc[i];
        if (fw->q.y_dtype != IOHW_S32)
            rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels, acc[i], &r,
                                       err);
        iohw__fault_qput(fw, yc, i, (fw->q.y_dtype != IOHW_S32 ? fw->q.zp_y : 0) + r, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
