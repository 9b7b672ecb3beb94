/*
 * backends/faults/op_at_begin.c - output_padding added at the beginning.
 *
 * The extra A positions are put before the result instead of after it, so
 * everything moves A positions towards the end: position o shows what
 * belongs at o - A.  Invisible when A = 0 on every axis.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_op_at_begin";
const char iohw__fault_about[] =
    "seeded fault: puts the output_padding at the beginning of each axis";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t F = fw->q.out_size[a];
        for (int64_t o = 0; o < p->out_size[a]; o++) {
            const int64_t at = o + p->pad_begin[a] - p->output_padding[a];
            fw->map[a][o] = at >= 0 && at < F ? at : -1;
        }
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
