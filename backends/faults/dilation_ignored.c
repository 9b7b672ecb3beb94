/*
 * backends/faults/dilation_ignored.c - dilation ignored: the kernel is
 * applied densely (dilation 1 on every axis) while the output keeps its
 * size and crop.  Invisible when every axis with a kernel wider than one
 * tap has dilation 1.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_dilation_ignored";
const char iohw__fault_about[] =
    "seeded fault: ignores the dilation (dense kernel)";

static int perturb(fault_work *fw, iohw_error *err)
{
    for (uint32_t a = 0; a < fw->q.rank; a++)
        fw->q.dilation[a] = 1;
    return iohw__fault_refresh(fw, err);
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
