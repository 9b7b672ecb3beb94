/*
 * backends/faults/bwd_op_ignored.c - output_padding left out of dy: the
 * kernel sizes dy without output_padding (O - A per axis) and reads its
 * memory with those extents, so every row after the first is read shifted
 * and the tail of dy is never read (specification section 13: dy has the
 * full O, output_padding included).
 */
#include <stdlib.h>

#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_op_ignored";
const char iohw__bwd_about[] =
    "seeded fault: reads dy with extents that leave output_padding out";

/* The knobs with dy read as the problem without output_padding; *owned
 * the copy to free (NULL: no output_padding, dy as it is). */
static int knobs(const bwd_work *bw, bwd_knobs *k, double **owned)
{
    iohw_problem q = *bw->p;
    iohw__bwd_knobs(bw, k);
    *owned = NULL;
    for (int a = 0; a < bw->rank; a++) {
        q.out_size[a] -= q.output_padding[a];
        q.output_padding[a] = 0;
        k->dy_O3[3 - bw->rank + a] = q.out_size[a];
    }
    *owned = iohw__bwd_read(&q, 1, q.data_layout, bw->dy_mem);
    k->dy = *owned;
    return *owned != NULL ? 0 : -1;
}

static int data(const bwd_work *bw, double *dx)
{
    bwd_knobs k;
    double *dy;
    if (knobs(bw, &k, &dy) != 0)
        return -1;
    iohw__bwd_dx(bw, &k, dx);
    free(dy);
    return 0;
}

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    double *dy;
    if (knobs(bw, &k, &dy) != 0)
        return -1;
    iohw__bwd_dw(bw, &k, dw);
    if (db != NULL)
        iohw__bwd_db(bw, &k, db);
    free(dy);
    return 0;
}

const bwd_spec iohw__bwd_spec = {.data = data, .weights = weights};
