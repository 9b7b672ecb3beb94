/*
 * backends/faults/tail_channels.c - the remainder of a blocked channel
 * loop dropped: input channels are summed in blocks of 8, and when a
 * group's channel count is above 8 and not a multiple of 8, the last
 * C_in/G mod 8 channels of each group never reach the result.
 *
 * Invisible with 8 or fewer channels per group (a single partial block is
 * handled) and with multiples of 8; caught by channels per group of 9-15,
 * 17, 33, 65... (tag bug-blocked-tail).
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_tail_channels";
const char iohw__fault_about[] =
    "seeded fault: drops the last C_in/G mod 8 channels when C_in/G > 8";

#define BLOCK 8

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    const int64_t Cg = p->in_channels / p->groups;
    if (Cg <= BLOCK || Cg % BLOCK == 0)
        return 0;
    int64_t plane = 1;
    for (uint32_t a = 0; a < p->rank; a++)
        plane *= p->in_size[a];
    /* x of the channels past the last full block, zero. */
    for (int64_t n = 0; n < p->batch; n++)
        for (int64_t c = 0; c < p->in_channels; c++) {
            if (c % Cg < Cg / BLOCK * BLOCK)
                continue;
            double *xc = fw->x + (n * p->in_channels + c) * plane;
            for (int64_t i = 0; i < plane; i++)
                xc[i] = 0.0;
        }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
