/*
 * backends/faults/group_interleave.c - group channels interleaved instead
 * of blocked.
 *
 * Group g's channel c is channel g*Cg + c; the buggy code takes it as
 * channel c*G + g, for the input channels it reads and for the output
 * channels it writes: its whole result for group g's output m, bias
 * included, lands in channel m*G + g.  Invisible with one group, or with
 * one channel per group on both sides.
 */
#include <stdlib.h>
#include <string.h>

#include "fault_common.h"

const char iohw__fault_name[] = "fault_group_interleave";
const char iohw__fault_about[] =
    "seeded fault: takes group g's channel c as channel c*G + g";

static int perturb(fault_work *fw, iohw_error *err)
{
    const iohw_problem *p = fw->p;
    const int64_t G = p->groups, N = p->batch;
    const int64_t Cg = p->in_channels / G, Mg = p->out_channels / G;
    int64_t plane = 1;
    for (uint32_t a = 0; a < p->rank; a++)
        plane *= p->in_size[a];

    /* Input channel g*Cg + c reads channel c*G + g. */
    const int64_t count = N * p->in_channels * plane;
    double *nx = malloc((size_t)count * sizeof *nx);
    if (nx == NULL)
        return iohw_error_set(err, "group_interleave: out of memory");
    for (int64_t n = 0; n < N; n++)
        for (int64_t g = 0; g < G; g++)
            for (int64_t c = 0; c < Cg; c++)
                memcpy(nx + (n * p->in_channels + g * Cg + c) * plane,
                       fw->x + (n * p->in_channels + c * G + g) * plane,
                       (size_t)plane * sizeof *nx);
    free(fw->x);
    fw->x = nx;

    /* Output channel m*G + g shows group g's output m, with its bias. */
    double *nb = NULL;
    if (fw->bias != NULL) {
        nb = malloc((size_t)p->out_channels * sizeof *nb);
        if (nb == NULL)
            return iohw_error_set(err, "group_interleave: out of memory");
    }
    for (int64_t g = 0; g < G; g++) {
        for (int64_t m = 0; m < Mg; m++) {
            fw->cmap[m * G + g] = g * Mg + m;
            if (nb != NULL)
                nb[m * G + g] = fw->bias[g * Mg + m];
        }
    }
    if (nb != NULL) {
        free(fw->bias);
        fw->bias = nb;
    }
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb};
