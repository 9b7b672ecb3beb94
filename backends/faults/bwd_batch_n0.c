/*
 * backends/faults/bwd_batch_n0.c - the batch not summed: dw and db of the
 * first image only (a kernel that overwrites its accumulator per image, or
 * reduces one image; specification section 13 sums over n).
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_batch_n0";
const char iohw__bwd_about[] =
    "seeded fault: dw and db from the first image of the batch only";

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    k.batch = 1;
    iohw__bwd_dw(bw, &k, dw);
    if (db != NULL)
        iohw__bwd_db(bw, &k, db);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.weights = weights};
