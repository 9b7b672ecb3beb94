/*
 * backends/faults/bwd_group_interleave.c - the channels of the groups
 * interleaved: group g's channel j taken at j*G + g (dy's, x's, and dx's
 * written there) where the definition has g*C/G + j (specification
 * sections 1 and 13).  db, a reduction per channel, stays right.
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_group_interleave";
const char iohw__bwd_about[] =
    "seeded fault: takes the channels of the groups interleaved in dx and dw";

static int data(const bwd_work *bw, double *dx)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    k.interleave = 1;
    iohw__bwd_dx(bw, &k, dx);
    return 0;
}

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    if (db != NULL)
        iohw__bwd_db(bw, &k, db);
    k.interleave = 1;
    iohw__bwd_dw(bw, &k, dw);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.data = data, .weights = weights};
