/*
 * backends/faults/op_ignored.c - output_padding filled with zeros.
 *
 * The buggy code allocates the output with its output_padding but computes
 * only the first O - A positions of each axis; the last A keep the bias
 * alone, although real values belong there whenever pad_end > 0.
 * Invisible when A = 0 or pad_end = 0 on every axis.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_op_ignored";
const char iohw__fault_about[] =
    "seeded fault: leaves the output_padding positions at the bias";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        /* output_padding may exceed the output when the pads eat the rest */
        int64_t first = p->out_size[a] - p->output_padding[a];
        if (first < 0)
            first = 0;
        for (int64_t o = first; o < p->out_size[a]; o++)
            fw->map[a][o] = -1;
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
