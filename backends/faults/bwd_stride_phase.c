/*
 * backends/faults/bwd_stride_phase.c - the stride phase one position late:
 * dx and dw read dy at i*S + k*D - P + 1 on every axis with S > 1 (a
 * kernel that takes the strided positions out of a zero-inserted gradient
 * starting at the wrong phase; specification section 13).
 */
#include "bwd_common.h"

const char iohw__bwd_name[] = "fault_bwd_stride_phase";
const char iohw__bwd_about[] =
    "seeded fault: reads dy one position off the stride phase";

static void knobs(const bwd_work *bw, bwd_knobs *k)
{
    iohw__bwd_knobs(bw, k);
    for (int A = 0; A < 3; A++)
        k->phase[A] = bw->S3[A] > 1;
}

static int data(const bwd_work *bw, double *dx)
{
    bwd_knobs k;
    knobs(bw, &k);
    iohw__bwd_dx(bw, &k, dx);
    return 0;
}

static int weights(const bwd_work *bw, double *dw, double *db)
{
    bwd_knobs k;
    knobs(bw, &k);
    iohw__bwd_dw(bw, &k, dw);
    if (db != NULL)
        iohw__bwd_db(bw, &k, db);   /* a sum over every position: right */
    return 0;
}

const bwd_spec iohw__bwd_spec = {.data = data, .weights = weights};
