/*
 * backends/faults/eff_kernel.c - effective kernel k + d - 1 instead of
 * (k - 1)*d + 1.
 *
 * The buggy code sizes its uncropped result with the wrong effective
 * kernel, (L - 1)*S + K + D - 1 positions instead of (L - 1)*S + (K - 1)*D
 * + 1, so for K > 2 and D > 1 the last (K - 2)*(D - 1) positions of the
 * uncropped product are lost (they keep only the bias).  Visible when some
 * of them survive the end crop: (K - 2)*(D - 1) + A > P_end.
 */
#include "fault_common.h"

const char iohw__fault_name[] = "fault_eff_kernel";
const char iohw__fault_about[] =
    "seeded fault: effective kernel k + d - 1 instead of (k - 1)*d + 1";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    (void)err;
    for (uint32_t a = 0; a < p->rank; a++) {
        const int64_t wrong = (p->in_size[a] - 1) * p->stride[a] +
                              p->kernel[a] + p->dilation[a] - 1;
        for (int64_t o = 0; o < p->out_size[a]; o++)
            if (fw->map[a][o] >= wrong)
                fw->map[a][o] = -1;
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
