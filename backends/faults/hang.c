/*
 * backends/faults/hang.c - never returns on problems with output_padding
 * (a loop whose exit condition is never met); correct on the others.
 * It sleeps rather than spins, like a deadlock, so that a stuck worker does
 * not steal a core from the rest of the run.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_hang";
const char iohw__fault_about[] =
    "seeded misbehaviour: never returns when some output_padding > 0";

static int before(const iohw_problem *p, iohw_error *err)
{
    (void)err;
    int stuck = 0;
    for (uint32_t a = 0; a < p->rank; a++)
        stuck |= p->output_padding[a] > 0;
    if (stuck)
        iohw__fault_sleep_forever();
    return IOHW_OK;
}

const fault_spec iohw__fault_spec = {.before = before};
