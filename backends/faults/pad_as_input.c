/*
 * backends/faults/pad_as_input.c - padding treated as input padding.
 *
 * The buggy code pads the input with P_begin zeros in front (and P_end
 * behind) and crops nothing: position o then shows the uncropped product
 * at o - P_begin*S.  Invisible when P_begin = 0 on every axis.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_pad_as_input";
const char iohw__fault_about[] =
    "seeded fault: pads the input instead of cropping the output";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t F = fw->q.out_size[a];
        const int64_t shift = p->pad_begin[a] * p->stride[a];
        for (int64_t o = 0; o < p->out_size[a]; o++) {
            const int64_t at = o - shift;
            fw->map[a][o] = at >= 0 && at < F ? at : -1;
        }
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
