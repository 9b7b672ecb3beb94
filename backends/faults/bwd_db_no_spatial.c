/*
 * backends/faults/bwd_db_no_spatial.c - the bias gradient without the
 * spatial sum: db[c] summed over the batch at dy's first position only
 * (specification section 13 sums over every position).  dw is right.
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_db_no_spatial";
const char iohw__bwd_about[] =
    "seeded fault: db from dy's first spatial position only";

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    iohw__bwd_dw(bw, &k, dw);
    if (db == NULL)
        return 0;
    for (int64_t c = 0; c < bw->C_out; c++) {
        db[c] = 0.0;
        for (int64_t n = 0; n < bw->N; n++)
            db[c] += bw->dy[(n * bw->C_out + c) * bw->O];
    }
    return 0;
}

const bwd_spec iohw__bwd_spec = {.weights = weights};
