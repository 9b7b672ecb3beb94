/*
 * backends/faults/bwd_db_per_group.c - the bias gradient indexed per
 * group: db zeroed, then dy's channel g*Mg + m accumulated into db[m] for
 * every group (specification section 13 has db[g*Mg + m]).  dw is right.
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_db_per_group";
const char iohw__bwd_about[] =
    "seeded fault: accumulates db of every group into the first group's channels";

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    iohw__bwd_dw(bw, &k, dw);
    if (db == NULL)
        return 0;
    for (int64_t c = 0; c < bw->C_out; c++)
        db[c] = 0.0;
    for (int64_t n = 0; n < bw->N; n++)
        for (int64_t g = 0; g < bw->G; g++)
            for (int64_t m = 0; m < bw->Mg; m++)
                for (int64_t o = 0; o < bw->O; o++)
                    db[m] += bw->dy[(n * bw->C_out + g * bw->Mg + m) * bw->O + o];
    return 0;
}

const bwd_spec iohw__bwd_spec = {.weights = weights};
