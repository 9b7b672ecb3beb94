/*
 * backends/faults/no_flip.c - the kernel flipped (correlation instead of
 * convolution, or flipped twice).
 *
 * Every spatial axis of the kernel is read backwards: w'[i][o][k] =
 * w[i][o][K-1-k].  Invisible only for kernels symmetric under the flip.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_no_flip";
const char iohw__fault_about[] =
    "seeded fault: uses the kernel flipped along every spatial axis";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *q = &fw->q;
    const int rank = (int)q->rank;
    int64_t K[3];

    for (int j = 0; j < 3; j++) {
        const int a = j - (3 - rank);
        K[j] = a < 0 ? 1 : q->kernel[a];
    }
    const int64_t taps = K[0] * K[1] * K[2];
    const int64_t pairs = q->in_channels * (q->out_channels / q->groups);
    double *nw = malloc((size_t)(pairs * taps) * sizeof *nw);
    if (nw == NULL)
        return iohw_error_set(err, "no_flip: out of memory");

    /* w'[pair][k] = w[pair][K-1-k] on each axis. */
    for (int64_t pr = 0; pr < pairs; pr++)
        for (int64_t k0 = 0; k0 < K[0]; k0++)
            for (int64_t k1 = 0; k1 < K[1]; k1++)
                for (int64_t k2 = 0; k2 < K[2]; k2++) {
                    const int64_t to = ((pr * K[0] + k0) * K[1] + k1) * K[2] + k2;
                    const int64_t from =
                        ((pr * K[0] + (K[0] - 1 - k0)) * K[1] + (K[1] - 1 - k1)) *
                            K[2] + (K[2] - 1 - k2);
                    nw[to] = fw->w[from];
                }
    free(fw->w);
    fw->w = nw;
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
