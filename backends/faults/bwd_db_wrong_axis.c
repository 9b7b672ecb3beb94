/*
 * backends/faults/bwd_db_wrong_axis.c - the bias gradient reduced along
 * the wrong axis: db takes dy's memory as channels-last when the case is
 * channels-first (NC + spatial) and as channels-first otherwise, and sums
 * what it takes for channel c (specification section 13).  dw is right.
 */
#include <stdlib.h>
#include <string.h>

#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_db_wrong_axis";
const char iohw__bwd_about[] =
    "seeded fault: reduces dy for db along the wrong axis of its memory";

static int weights(const bwd_work *bw, double *dw, double *db)
{
    static const char *const spatial[] = {"W", "HW", "DHW"};
    char first[16] = "NC", last[16] = "N";
    bwd_knobs k;
    iohw__bwd_knobs(bw, &k);
    iohw__bwd_dw(bw, &k, dw);
    if (db == NULL)
        return 0;
    strcat(first, spatial[bw->rank - 1]);
    strcat(last, spatial[bw->rank - 1]);
    strcat(last, "C");
    double *dy = iohw__bwd_read(bw->p, 1,
                                strcmp(bw->p->data_layout, first) == 0 ? last : first,
                                bw->dy_mem);
    if (dy == NULL)
        return -1;
    k.dy = dy;
    iohw__bwd_db(bw, &k, db);
    free(dy);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.weights = weights};
