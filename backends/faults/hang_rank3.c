/*
 * backends/faults/hang_rank3.c - never returns from run() on rank-3
 * problems (a whole class of problems stuck, as when a 3-d code path
 * deadlocks); correct on the others.  The circuit breaker of `iohw run`
 * (harness/breaker.h) exists for this backend.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_hang_rank3";
const char iohw__fault_about[] =
    "seeded misbehaviour: never returns on rank-3 problems";

static int before(const iohw_problem *p, iohw_error *err)
{
    (void)err;
    if (p->rank == 3)
        iohw__fault_sleep_forever();
    return IOHW_OK;
}

const fault_spec iohw__fault_spec = {.before = before};
