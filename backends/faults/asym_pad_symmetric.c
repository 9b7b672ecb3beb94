/*
 * backends/faults/asym_pad_symmetric.c - only symmetric padding: pad_begin
 * used on both sides.
 *
 * The buggy code computes an output of F - 2*P_begin + A positions per axis
 * (the crop starts at P_begin, which is right) and copies what fits into
 * the real output; when P_begin > P_end its result is shorter and the last
 * P_begin - P_end positions keep the bias alone.  Invisible when
 * P_begin <= P_end on every axis.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_asym_pad_symmetric";
const char iohw__fault_about[] =
    "seeded fault: uses pad_begin as the padding on both sides";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t own = fw->q.out_size[a] - 2 * p->pad_begin[a] +
                            p->output_padding[a];
        for (int64_t o = 0; o < p->out_size[a]; o++)
            if (o >= own)
                fw->map[a][o] = -1;
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
