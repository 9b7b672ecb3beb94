/*
 * backends/faults/bias_per_group.c - bias indexed within the group.
 *
 * Output channel g*Mg + m gets bias[m] instead of bias[g*Mg + m] (the
 * ONNX reference's grouped-bias bug).  Invisible without bias or with one
 * group.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_bias_per_group";
const char iohw__fault_about[] =
    "seeded fault: adds bias[m] instead of bias[g*Mg + m]";

static int perturb(fault_work *fw, iohw_error *err)
{
    (void)err;
    if (fw->bias == NULL)
        return 0;
    const int64_t G = fw->p->groups, Mg = fw->p->out_channels / G;
    /* Group 0 keeps its values; every other group repeats them. */
    for (int64_t g = 1; g < G; g++)
        for (int64_t m = 0; m < Mg; m++)
            fw->bias[g * Mg + m] = fw->bias[m];
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
