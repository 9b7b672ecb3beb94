/*
 * backends/faults/dilation_zero_based.c - dilation read as 0-based.
 *
 * The buggy code converts iohw's 1-based dilation for a library whose
 * dilation counts the holes (oneDNN: 0 = dense) and then uses the converted
 * value as a 1-based one again: the taps are D - 1 apart instead of D.  For
 * D = 1 that is 0 apart: every tap of the axis lands on the same position,
 * which is the kernel summed along the axis.  Invisible only for one-tap
 * kernels.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_dilation_zero_based";
const char iohw__fault_about[] =
    "seeded fault: uses d - 1 as the dilation";

static int perturb(fault_work *fw, iohw_error *err)
{
    for (uint32_t a = 0; a < fw->q.rank; a++) {
        if (fw->q.dilation[a] > 1) {
            fw->q.dilation[a] -= 1;
            if (iohw__fault_refresh(fw, err) != 0)
                return -1;
        } else if (iohw__fault_kernel_axis(fw, (int)a, 1, 0, err) != 0) {
            return -1;
        }
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
