/*
 * backends/faults/tail_width.c - the remainder of a vectorised output row
 * dropped: output positions along the last spatial axis are written in
 * vectors of 8, and when the row is longer than 16 and not a multiple of
 * 8, its last W mod 8 positions keep the bias alone.
 *
 * Caught by output widths just past 16, 32, 64 that are not multiples of 8
 * (tag bug-blocked-tail).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_tail_width";
const char iohw__fault_about[] =
    "seeded fault: the last W mod 8 outputs of rows longer than 16 hold the bias only";

#define VECTOR 8
#define MIN_WIDTH 16

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    const int a = (int)p->rank - 1;
    const int64_t W = p->out_size[a];
    if (W <= MIN_WIDTH || W % VECTOR == 0)
        return 0;
    for (int64_t o = W / VECTOR * VECTOR; o < W; o++)
        fw->map[a][o] = -1;
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
