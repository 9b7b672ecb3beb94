/*
 * backends/faults/asym_pad_swapped.c - pad_begin and pad_end exchanged.
 *
 * The crop starts pad_end positions into the uncropped product instead of
 * pad_begin.  Invisible when every axis has symmetric padding.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_asym_pad_swapped";
const char iohw__fault_about[] =
    "seeded fault: exchanges pad_begin and pad_end";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t F = fw->q.out_size[a];
        for (int64_t o = 0; o < p->out_size[a]; o++) {
            const int64_t at = o + p->pad_end[a];
            fw->map[a][o] = at < F ? at : -1;
        }
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
