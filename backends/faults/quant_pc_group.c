/*
 * backends/faults/quant_pc_group.c - quantized: the per-channel multiplier
 * of output channel g*Mg + m taken as M[m], the channel's index within its
 * group, instead of M[g*Mg + m] (specification section 11.1: per-channel M
 * runs along the C_out = G*Mg output channels).  A grouped kernel that
 * offsets the weight pointer per group but not the scales' pointer.
 */
#include <stdlib.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_quant_pc_group";
const char iohw__fault_about[] =
    "seeded fault: quantized, per-channel M indexed by the channel within its group";

static int compute_quant(fault_qwork *fw, void *yc, iohw_error *err)
{
    if (fw->q.y_dtype == IOHW_S32 || !fw->q.per_channel)
        return iohw_quant_conv_transpose(&fw->p, &fw->q, fw->x, fw->w, fw->bias, yc, err);
    const int64_t Mg = fw->p.out_channels / fw->p.groups;
    int64_t *acc = malloc((size_t)fw->ny * sizeof *acc);
    int rc = acc != NULL ? iohw__fault_qacc(fw, fw->x, fw->w, 1, acc, err)
                         : iohw_error_set(err, "quant_pc_group: out of memory");
    for (int64_t i = 0; rc == 0 && i < fw->ny; i++) {
        int64_t r;
        rc = iohw_quant_requantize(&fw->q, (i / fw->OV) % fw->p.out_channels % Mg, acc[i],
                                   &r, err);
        iohw__fault_qput(fw, yc, i, fw->q.zp_y + r, 0);
    }
    free(acc);
    return rc;
}

const fault_spec iohw__fault_spec = {.compute_quant = compute_quant};
