/*
 * backends/faults/size1_squeeze.c - size-1 dimensions squeezed.
 *
 * When an input axis has one position, the buggy code squeezes it away: it
 * keeps only the kernel's first tap along that axis and broadcasts the
 * result to every output position of the axis.  Correct when that axis has
 * a one-tap kernel and a single output position; wrong as soon as the
 * kernel spreads the lone input position over several outputs.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_size1_squeeze";
const char iohw__fault_about[] =
    "seeded fault: squeezes size-1 input axes (first tap, broadcast)";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;

    /* Reduce the kernels first: each reduction resets every map. */
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->in_size[a] == 1 &&
            iohw__fault_kernel_axis(fw, (int)a, 0, 0, err) != 0)
            return -1;
    for (uint32_t a = 0; a < p->rank; a++)
        if (p->in_size[a] == 1)
            for (int64_t o = 0; o < p->out_size[a]; o++)
                fw->map[a][o] = 0;
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
