/*
 * backends/faults/picky_channels_reversed.c - claims only channels-last
 * data (N, spatial, C), as many vendor kernels do, and writes the output
 * channels in reverse order.  Its failures show only under
 * `iohw run --adapt-layout` on cases stored channels-first, so the tests
 * use it to check that a failure's repro command keeps that option.
 */
#include <stdio.h>
#include <string.h>

#include "fault_common.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_picky_channels_reversed";
const char iohw__fault_about[] =
    "seeded fault: claims only channels-last data; output channels reversed";

static int claims(const iohw_problem *p, iohw_error *err)
{
    const char *sp = iohw_spatial_letters((int)p->rank);
    char xl[16];
    snprintf(xl, sizeof xl, "N%sC", sp != NULL ? sp : "");
    if (strcmp(p->data_layout, xl) != 0)
        return iohw_error_set(err, "picky: only %s data", xl);
    return 0;
}

static int perturb(fault_work *fw, iohw_error *err)
{
    (void)err;
    const int64_t co = fw->p->out_channels;
    for (int64_t c = 0; c < co; c++)
        fw->cmap[c] = co - 1 - c;
    return 0;
}

const fault_spec iohw__fault_spec = {.perturb = perturb, .claims = claims};
