/*
 * backends/faults/crash.c - dies with SIGSEGV on grouped problems (like the
 * implementations that segfault on unusual shapes instead of refusing
 * them); correct on the others.
 */
#include <signal.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_crash";
const char iohw__fault_about[] =
    "seeded misbehaviour: SIGSEGV on every problem with groups > 1";

static int before(const iohw_problem *p, iohw_error *err)
{
    (void)err;
    if (p->groups > 1)
        raise(SIGSEGV);
    return IOHW_OK;
}

const fault_spec iohw__fault_spec = {.before = before};
