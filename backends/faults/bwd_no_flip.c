/*
 * backends/faults/bwd_no_flip.c - the gradient kernel not flipped: dx and
 * dw pair tap k with the position of tap K-1-k on every axis (a gradient
 * derived as a "full" convolution that forgot, or doubled, the kernel's
 * rotation; specification section 13).
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_no_flip";
const char iohw__bwd_about[] =
    "seeded fault: dx and dw read the taps of the kernel in reverse";

static int data(const bwd_work *bw, double *dx)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    k.flip = 1;
    iohw__bwd_dx(bw, &k, dx);
    return 0;
}

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    if (db != NULL)
        iohw__bwd_db(bw, &k, db);
    k.flip = 1;
    iohw__bwd_dw(bw, &k, dw);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.data = data, .weights = weights};
