/*
 * backends/faults/claim_then_error.c - claims every problem, then returns
 * IOHW_BACKEND_ERROR from run() for rank-3 problems; correct on the
 * others.  A claimed case that fails is the backend's error, not a skip.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_claim_then_error";
const char iohw__fault_about[] =
    "seeded misbehaviour: claims rank-3 problems, then fails them";

static int before(const iohw_problem *p, iohw_error *err)
{
    if (p->rank == 3) {
        iohw_error_set(err, "3-d transposed convolution is not implemented");
        return IOHW_BACKEND_ERROR;
    }
    return IOHW_OK;
}

const fault_spec iohw__fault_spec = {.before = before};
