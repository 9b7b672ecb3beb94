/*
 * backends/faults/dilation_ignored_shape.c - dilation ignored, the output
 * shape too: the library computes the undilated problem (dilation 1 on
 * every axis, its own smaller output: 4x4 where 5x5 is right) and the
 * adapter copies that output densely into the y it was given, leaving
 * y's tail unwritten.  The judge names it from the shape and the values
 * (specification section 3.5).  Invisible when every axis with a kernel
 * wider than one tap has dilation 1.
 */
#include <string.h>

#include "fault_common.h"
#include "oracle/oracle.h"
#include "oracle/problem.h"

const char iohw__fault_name[] = "fault_dilation_ignored_shape";
const char iohw__fault_about[] =
    "seeded fault: ignores the dilation and writes the undilated output "
    "densely (a smaller shape)";

/* The problem the library computes: p with dilation 1. */
static void undilated(const iohw_problem *p, iohw_problem *q)
{
    *q = *p;
    for (uint32_t a = 0; a < q->rank; a++) {
        q->dilation[a] = 1;
        q->out_size[a] = iohw_problem_out_axis(q, a);
    }
}

static int compute(const iohw_problem *p, const void *x, const void *w,
                   const void *bias, void *y, iohw_error *err)
{
    iohw_problem q;
    iohw_oracle_result r;
    undilated(p, &q);
    if (iohw_oracle_run(&q, x, w, bias, 1, &r, err) != 0)
        return -1;
    memcpy(y, r.y, (size_t)iohw_problem_y_count(&q) * iohw__fault_elem_size(p));
    iohw_oracle_result_free(&r);
    return 0;
}

/* Only the undilated output's elements reach the caller's y. */
static void store(const iohw_problem *p, const void *result, void *y,
                  const void *x)
{
    iohw_problem q;
    (void)x;
    undilated(p, &q);
    memcpy(y, result,
           (size_t)iohw_problem_y_count(&q) * iohw__fault_elem_size(p));
}

const fault_spec iohw__fault_spec = {.compute = compute, .store = store};
