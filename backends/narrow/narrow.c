/*
 * backends/narrow/narrow.c - a correct backend that claims a narrow slice,
 * as XNNPACK's deconvolution does: f32 only, one group, no dilation, 2-d
 * only.  It computes through the seeded-fault plumbing with no fault
 * (backends/faults/fault_common.h), so every case it claims passes.
 * With IOHW_NARROW_ABORT set in its environment, supports() aborts (the
 * tests of sandbox/probe.h use it).
 */
#include <stdlib.h>

#include "backends/faults/fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "narrow";
const char iohw__fault_about[] =
    "correct; claims f32, one group, no dilation, 2-d only";

static int claims(const iohw_problem *p, iohw_error *err)
{
    if (getenv("IOHW_NARROW_ABORT") != NULL)
        abort();
    if (p->dtype != IOHW_F32)
        return iohw_error_set(err, "narrow: f32 only");
    if (p->groups != 1)
        return iohw_error_set(err, "narrow: no groups");
    if (p->rank != 2)
        return iohw_error_set(err, "narrow: 2-d only");
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->dilation[a] != 1)
            return iohw_error_set(err, "narrow: no dilation");
    return 0;
}

const fault_spec iohw__fault_spec = {.claims = claims};
